"""`tf.linalg`'s LU helpers written over `rt.linalg.lu`'s packed output, as TensorFlow
composes them: `lu_reconstruct`, `lu_solve`, `lu_matrix_inverse`. Their gradients (with
respect to `lower_upper` and the right-hand side, any order) come from the ops they are made
of; `lu` itself has none (TensorFlow registers none).

`@export(...)` above a function is its row in the binding table (see `_export.py`).
"""

from __future__ import annotations

import numpy as np

from . import _rustape as _rt
from ._export import export
from ._rustape import Tensor
from ._typing import DTypeLike, TensorLike


def _tensor(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    if isinstance(x, _rt.Variable):
        x = x.value()
    if isinstance(x, _rt.Tensor):
        return x
    if dtype is None:
        return _rt.convert_to_tensor(x)
    return _rt.convert_to_tensor(x, dtype=dtype)


def _factors(op: str, lower_upper: TensorLike, perm: TensorLike) -> tuple[Tensor, Tensor, Tensor]:
    """`(lower, lower_upper, perm)`: the unit lower factor and the checked operands."""
    lu = _tensor(lower_upper)
    p = _tensor(perm, _rt.int32)
    shape = list(lu.shape)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{op}: lower_upper must have shape [..., M, M], got {shape}")
    if p.dtype not in (_rt.int32, _rt.int64):
        raise TypeError(f"{op}: perm must be int32 or int64, got {p.dtype.name}")
    if list(p.shape)[-1:] != shape[-1:] or len(p.shape) != len(shape) - 1:
        raise ValueError(
            f"{op}: perm must have shape {shape[:-1]} to match lower_upper of shape {shape}, "
            f"got {list(p.shape)}"
        )
    ones = _rt.ones(shape[:-1], dtype=lu.dtype)
    lower = _rt.set_diag(_rt.band_part(lu, -1, 0), ones)
    return lower, lu, p


@export("linalg")
def lu_reconstruct(
    lower_upper: TensorLike, perm: TensorLike, validate_args: bool = False, name: str | None = None
) -> Tensor:
    """The matrices `x` whose `rt.linalg.lu` is `(lower_upper, perm)`: `L @ U` with its rows
    put back in the input's order, as `tf.linalg.lu_reconstruct`.

    >>> x = [[3.0, 4.0], [1.0, 2.0]]
    >>> rt.linalg.lu_reconstruct(*rt.linalg.lu(x)).numpy()
    array([[3., 4.],
           [1., 2.]], dtype=float32)
    """
    lower, lu, p = _factors("lu_reconstruct", lower_upper, perm)
    product = _rt.matmul(lower, _rt.band_part(lu, 0, -1))
    inverse = _rt.argsort(p, axis=-1)
    return _rt.gather(product, inverse, axis=-2, batch_dims=len(p.shape) - 1)


@export("linalg")
def lu_solve(
    lower_upper: TensorLike,
    perm: TensorLike,
    rhs: TensorLike,
    validate_args: bool = False,
    name: str | None = None,
) -> Tensor:
    """Solves `x @ y = rhs` given `(lower_upper, perm) = rt.linalg.lu(x)`, as
    `tf.linalg.lu_solve`: the rows of `rhs` permuted, then two triangular solves. `rhs` is
    `[..., M, K]`; batch axes broadcast.

    >>> lu, p = rt.linalg.lu([[0.0, 2.0], [1.0, 0.0]])
    >>> rt.linalg.lu_solve(lu, p, [[4.0], [3.0]]).numpy()
    array([[3.],
           [2.]], dtype=float32)
    """
    lower, lu, p = _factors("lu_solve", lower_upper, perm)
    b = _tensor(rhs, lu.dtype)
    if len(b.shape) < 2 or b.shape[-2] != lu.shape[-1]:
        raise ValueError(
            f"lu_solve: rhs must have shape [..., {lu.shape[-1]}, K] to match lower_upper of "
            f"shape {list(lu.shape)}, got {list(b.shape)}"
        )
    if len(b.shape) == 2 and len(p.shape) == 1:
        permuted = _rt.gather(b, p, axis=-2)
    else:
        try:
            batch = list(np.broadcast_shapes(tuple(b.shape[:-2]), tuple(p.shape[:-1])))
        except ValueError:
            raise ValueError(
                f"lu_solve: batch shapes of rhs {list(b.shape)} and perm {list(p.shape)} do "
                "not broadcast"
            ) from None
        b = _rt.broadcast_to(b, batch + list(b.shape[-2:]))
        p = _rt.broadcast_to(p, batch + list(p.shape[-1:]))
        permuted = _rt.gather(b, p, axis=-2, batch_dims=len(batch))
    y = _rt.triangular_solve(lower, permuted, lower=True)
    return _rt.triangular_solve(lu, y, lower=False)


@export("linalg")
def lu_matrix_inverse(
    lower_upper: TensorLike, perm: TensorLike, validate_args: bool = False, name: str | None = None
) -> Tensor:
    """The inverse of `x` given `(lower_upper, perm) = rt.linalg.lu(x)`, as
    `tf.linalg.lu_matrix_inverse` (`lu_solve` of the identity).

    >>> lu, p = rt.linalg.lu([[2.0, 0.0], [0.0, 4.0]])
    >>> rt.linalg.lu_matrix_inverse(lu, p).numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    lu = _tensor(lower_upper)
    shape = list(lu.shape)
    if len(shape) < 2:
        raise ValueError(f"lu_matrix_inverse: lower_upper must have shape [..., M, M], got {shape}")
    eye = _rt.eye(shape[-1], batch_shape=shape[:-2], dtype=lu.dtype)
    return lu_solve(lu, perm, eye)
