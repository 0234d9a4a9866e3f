"""Keras 3's `keras.ops` for linear algebra (`cholesky`, `solve`, `svd`, ...): thin wrappers of
`rt.linalg`, with Keras's argument names, output orders and conventions (NumPy's `vh` from
`svd`, a vector right-hand side for `solve`), so gradients work through them."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _rustape as _rt
from ... import linalg as _linalg
from ._core import floating, tensor


def _square(x: Any, op: str) -> Any:
    x = floating(tensor(x))
    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{op}: expected a square matrix (or a batch of them), got shape {tuple(x.shape)}"
        )
    return x


def cholesky(x: Any, upper: bool = False) -> Any:
    """Keras 3's `keras.ops.cholesky`: the lower (or with `upper`, the upper) triangular factor
    of a symmetric positive definite matrix.

    >>> import rustape as rt
    >>> rt.keras.ops.cholesky([[4.0, 2.0], [2.0, 5.0]]).numpy().tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    factor = _linalg.cholesky(_square(x, "cholesky"))
    return _linalg.adjoint(factor) if upper else factor


def cholesky_inverse(x: Any, upper: bool = False) -> Any:
    """Keras 3's `keras.ops.cholesky_inverse`: the inverse of `A` from its Cholesky factor
    `x` (lower, or upper with `upper`).

    >>> import rustape as rt
    >>> rt.keras.ops.cholesky_inverse([[2.0, 0.0], [1.0, 2.0]]).numpy().round(4).tolist()
    [[0.3125, -0.125], [-0.125, 0.25]]
    """
    x = _square(x, "cholesky_inverse")
    eye = _rt.eye(x.shape[-1], dtype=x.dtype)
    inverse = _linalg.triangular_solve(x, eye, lower=not upper)
    if upper:
        return _rt.matmul(inverse, inverse, transpose_b=True)
    return _rt.matmul(inverse, inverse, transpose_a=True)


def det(x: Any) -> Any:
    """Keras 3's `keras.ops.det`: the determinant of each square matrix.

    >>> import rustape as rt
    >>> float(rt.keras.ops.det([[1.0, 2.0], [3.0, 4.0]]))
    -2.0
    """
    return _linalg.det(_square(x, "det"))


def inv(x: Any) -> Any:
    """Keras 3's `keras.ops.inv`: the inverse of each square matrix.

    >>> import rustape as rt
    >>> rt.keras.ops.inv([[2.0, 0.0], [0.0, 4.0]]).numpy().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return _linalg.inv(_square(x, "inv"))


def eigh(x: Any) -> tuple[Any, Any]:
    """Keras 3's `keras.ops.eigh`: eigenvalues (ascending) and eigenvectors (columns) of a
    symmetric matrix.

    >>> import rustape as rt
    >>> w, v = rt.keras.ops.eigh([[2.0, 0.0], [0.0, 1.0]])
    >>> w.numpy().tolist()
    [1.0, 2.0]
    """
    w, v = _linalg.eigh(_square(x, "eigh"))
    return w, v


def lu_factor(x: Any) -> tuple[Any, Any]:
    """Keras 3's `keras.ops.lu_factor` (its TensorFlow backend): `rt.linalg.lu`'s packed
    factors and the inverse of its permutation (row `i` of `x` is row `pivots[i]` of
    `L @ U`).

    >>> import rustape as rt
    >>> lu, pivots = rt.keras.ops.lu_factor([[1.0, 2.0], [3.0, 4.0]])
    >>> pivots.numpy().tolist()
    [1, 0]
    """
    lu, p = _linalg.lu(_square(x, "lu_factor"))
    return lu, _rt.argsort(p, axis=-1)


def logdet(x: Any) -> Any:
    """Keras 3's `keras.ops.logdet`: the log-determinant of a symmetric positive definite
    matrix.

    >>> import rustape as rt
    >>> round(float(rt.keras.ops.logdet([[2.0, 0.0], [0.0, 3.0]])), 5)
    1.79176
    """
    return _linalg.logdet(_square(x, "logdet"))


def slogdet(x: Any) -> tuple[Any, Any]:
    """Keras 3's `keras.ops.slogdet`: the sign and the log of the absolute determinant.

    >>> import rustape as rt
    >>> sign, logabsdet = rt.keras.ops.slogdet([[0.0, 2.0], [1.0, 0.0]])
    >>> float(sign), round(float(logabsdet), 5)
    (-1.0, 0.69315)
    """
    sign, logabsdet = _linalg.slogdet(_square(x, "slogdet"))
    return sign, logabsdet


def solve(a: Any, b: Any) -> Any:
    """Keras 3's `keras.ops.solve`: `x` with `a @ x = b` (`b` a matrix, or a vector per matrix).

    >>> import rustape as rt
    >>> rt.keras.ops.solve([[2.0, 0.0], [0.0, 4.0]], [2.0, 2.0]).numpy().tolist()
    [1.0, 0.5]
    """
    a = _square(a, "solve")
    b = tensor(b, a.dtype.name)
    if len(b.shape) == len(a.shape) - 1:
        return _rt.squeeze(_linalg.solve(a, _rt.expand_dims(b, -1)), -1)
    return _linalg.solve(a, b)


def solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    """Keras 3's `keras.ops.solve_triangular`: `x` with `a @ x = b` for triangular `a` (upper
    unless `lower`).

    >>> import rustape as rt
    >>> rt.keras.ops.solve_triangular([[1.0, 1.0], [0.0, 2.0]], [3.0, 2.0]).numpy().tolist()
    [2.0, 1.0]
    """
    a = _square(a, "solve_triangular")
    b = tensor(b, a.dtype.name)
    if len(b.shape) == len(a.shape) - 1:
        x = _linalg.triangular_solve(a, _rt.expand_dims(b, -1), lower=lower)
        return _rt.squeeze(x, -1)
    return _linalg.triangular_solve(a, b, lower=lower)


def qr(x: Any, mode: str = "reduced") -> tuple[Any, Any]:
    """Keras 3's `keras.ops.qr`: `(q, r)` with `x = q @ r`; `mode="complete"` gives a square
    `q`.

    >>> import rustape as rt
    >>> q, r = rt.keras.ops.qr([[3.0], [4.0]])
    >>> tuple(q.shape), tuple(r.shape)
    ((2, 1), (1, 1))
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(
            "`mode` argument value not supported. Expected one of {'reduced', 'complete'}. "
            f"Received: mode={mode}"
        )
    q, r = _linalg.qr(floating(tensor(x)), full_matrices=mode == "complete")
    return q, r


def svd(x: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """Keras 3's `keras.ops.svd`: `(u, s, vh)` with `x = u @ diag(s) @ vh` (NumPy's order),
    or the singular values alone without `compute_uv`.

    >>> import rustape as rt
    >>> rt.keras.ops.svd([[3.0, 0.0], [0.0, -2.0]], compute_uv=False).numpy().tolist()
    [3.0, 2.0]
    """
    x = floating(tensor(x))
    if not compute_uv:
        return _linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = _linalg.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, _linalg.adjoint(v)


def pinv(x: Any, rcond: float | None = None) -> Any:
    """Keras 3's `keras.ops.pinv`: the Moore-Penrose pseudo-inverse (singular values at most
    `rcond` times the largest are treated as zero).

    >>> import rustape as rt
    >>> rt.keras.ops.pinv([[2.0, 0.0], [0.0, 0.0]]).numpy().tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    return _linalg.pinv(floating(tensor(x)), rcond=rcond)


def matrix_rank(x: Any, tol: float | None = None) -> Any:
    """Keras 3's `keras.ops.matrix_rank`: how many singular values exceed `tol` (default:
    the largest dimension times the dtype's epsilon times the largest singular value).

    >>> import rustape as rt
    >>> int(rt.keras.ops.matrix_rank([[1.0, 2.0], [2.0, 4.0]]))
    1
    """
    x = floating(tensor(x))
    s = _linalg.svd(x, compute_uv=False)
    if tol is None:
        eps = float(np.finfo(x.dtype.name).eps)
        largest = _rt.reduce_max(s, axis=-1, keepdims=True)
        limit = eps * float(max(x.shape[-2:])) * largest
    else:
        limit = _rt.constant(tol, dtype=x.dtype)
    return _rt.reduce_sum(_rt.cast(s > limit, "int32"), axis=-1)


def lstsq(a: Any, b: Any, rcond: float | None = None) -> Any:
    """Keras 3's `keras.ops.lstsq`: the least-squares solution `x` of `a @ x = b` for a 2-D
    `a` (through its SVD, singular values below `rcond` times the largest dropped).

    >>> import rustape as rt
    >>> rt.keras.ops.lstsq([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [1.0, 2.0, 3.0]).numpy().tolist()
    [1.0, 2.0]
    """
    a, b = floating(tensor(a)), tensor(b)
    b = _rt.cast(b, a.dtype)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = len(b.shape) == 1
    if vector:
        b = _rt.expand_dims(b, -1)
    if len(a.shape) != 2:
        raise TypeError(f"{len(a.shape)}-dimensional array given. Array must be two-dimensional")
    if len(b.shape) != 2:
        raise TypeError(
            f"{len(b.shape)}-dimensional array given. Array must be one or two-dimensional"
        )
    m, n = a.shape
    eps = float(np.finfo(a.dtype.name).eps)
    if rcond is None:
        rcond = eps * max(n, m)
    elif rcond < 0:
        rcond = eps
    u, s, vt = svd(a, full_matrices=False)
    keep = s >= _rt.constant(rcond, dtype=s.dtype) * s[0]
    safe = _rt.where(keep, s, _rt.ones_like(s))
    s_inv = _rt.expand_dims(_rt.where(keep, 1 / safe, _rt.zeros_like(s)), -1)
    x = _rt.matmul(_linalg.adjoint(vt), s_inv * _rt.matmul(u, b, transpose_a=True))
    return _rt.reshape(x, [-1]) if vector else x
