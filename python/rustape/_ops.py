"""TensorFlow functions written in Python as compositions of rustape's differentiable ops
(`add_n`, `reduce_variance`, `l2_normalize`, ...): their gradients, of any
order, come from the ops they are made of. Everything else is the extension's own function.

`@export("rt", "math")` above a function is its row in the binding table: the namespaces it
appears in (see `_export.py` and DEVELOPERS.md "Adding an op").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as _np

from . import _rustape as _rt
from ._export import export
from ._rustape import Tensor
from ._typing import Axis, DTypeLike, TensorLike

# -- argument normalisation -----------------------------------------------------------------


def _is_tensorlike(x: Any) -> bool:
    return isinstance(x, (_rt.Tensor, _rt.Variable))


def _tensor(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    if isinstance(x, _rt.Tensor):
        return x
    if isinstance(x, _rt.Variable):
        return x.value()
    return _rt.convert_to_tensor(x) if dtype is None else _rt.convert_to_tensor(x, dtype=dtype)


# -- compositions (TensorFlow functions made of rustape's ops) --------------------------------


@export("rt")
def identity(input: TensorLike, name: str | None = None) -> Tensor:
    """A new tensor with the same value; the gradient passes through unchanged.

    >>> rt.identity([1.0, 2.0]).numpy()
    array([1., 2.], dtype=float32)
    """
    # `t[...]` is the engine's identity op: a new id, the cotangent passed through as is.
    return _tensor(input)[...]  # type: ignore[no-any-return]


@export("rt")
def shape(input: TensorLike, out_type: DTypeLike = None, name: str | None = None) -> Tensor:
    """The shape of `input` as a 1-D int32 Tensor.

    >>> rt.shape(rt.zeros([2, 3])).numpy()
    array([2, 3], dtype=int32)
    """
    dims = list(_shape_of(input))
    return _rt.constant(dims, dtype=out_type or _rt.int32, shape=[len(dims)])


@export("rt")
def size(input: TensorLike, out_type: DTypeLike = None, name: str | None = None) -> Tensor:
    """The number of elements, as an int32 tensor (`out_type` for another dtype).

    >>> int(rt.size(rt.zeros([2, 3])))
    6
    """
    n = 1
    for d in _shape_of(input):
        n *= d
    return _rt.constant(n, dtype=out_type or _rt.int32)


@export("rt")
def rank(input: TensorLike, name: str | None = None) -> Tensor:
    """The number of axes, as an int32 tensor.

    >>> int(rt.rank(rt.zeros([2, 3])))
    2
    """
    return _rt.constant(len(_shape_of(input)), dtype=_rt.int32)


def _shape_of(x: Any) -> tuple[int, ...]:
    if _is_tensorlike(x):
        return tuple(x.shape)
    return tuple(_tensor(x).shape)


@export("rt", "math")
def add_n(inputs: Sequence[TensorLike], name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype.

    >>> rt.add_n([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).numpy()
    array([ 9., 12.], dtype=float32)
    """
    inputs = list(inputs)
    if not inputs:
        raise ValueError("add_n: inputs must be a non-empty list of tensors")
    total = _tensor(inputs[0])
    for x in inputs[1:]:
        total = _rt.add(total, x)
    return total


@export("rt", "math")
def truediv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x / y` (TensorFlow's name for `divide`).

    >>> rt.truediv([1.0, 3.0], 2.0).numpy()
    array([0.5, 1.5], dtype=float32)
    """
    return _rt.divide(x, y)


@export("rt", "math")
def reciprocal(x: TensorLike, name: str | None = None) -> Tensor:
    """`1 / x`, elementwise.

    >>> rt.math.reciprocal([2.0, 4.0]).numpy()
    array([0.5 , 0.25], dtype=float32)
    """
    t = _tensor(x)
    return _rt.divide(_rt.ones_like(t), t)


@export("rt", "math")
def rsqrt(x: TensorLike, name: str | None = None) -> Tensor:
    """`1 / sqrt(x)`, elementwise.

    >>> rt.math.rsqrt([4.0, 16.0]).numpy()
    array([0.5 , 0.25], dtype=float32)
    """
    return reciprocal(_rt.sqrt(x))


@export("rt", "math")
def squared_difference(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`(x - y) ** 2`, elementwise with broadcasting.

    >>> rt.math.squared_difference([1.0, 5.0], 3.0).numpy()
    array([4., 4.], dtype=float32)
    """
    return _rt.square(_rt.subtract(x, y))


@export("math")
def reduce_variance(
    input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """The (biased) variance over `axis`.

    >>> float(rt.math.reduce_variance([1.0, 2.0, 3.0, 4.0]))
    1.25
    """
    x = _tensor(input_tensor)
    mean = _rt.reduce_mean(x, axis=axis, keepdims=True)
    return _rt.reduce_mean(_rt.square(_rt.subtract(x, mean)), axis=axis, keepdims=keepdims)


@export("math")
def reduce_std(
    input_tensor: TensorLike, axis: Axis = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """The standard deviation over `axis` (all axes when None).

    >>> float(rt.math.reduce_std([1.0, 3.0]))
    1.0
    """
    return _rt.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


@export("math", "nn", "linalg")
def l2_normalize(
    x: TensorLike,
    axis: Axis = None,
    epsilon: float = 1e-12,
    name: str | None = None,
    dim: Axis = None,
) -> Tensor:
    """`x / sqrt(max(sum(x**2, axis), epsilon))`.

    >>> rt.math.l2_normalize([3.0, 4.0]).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    if dim is not None:
        axis = dim
    t = _tensor(x)
    square_sum = _rt.reduce_sum(_rt.square(t), axis=axis, keepdims=True)
    return _rt.multiply(t, rsqrt(_rt.maximum(square_sum, epsilon)))


@export("nn")
def l2_loss(t: TensorLike, name: str | None = None) -> Tensor:
    """`sum(t ** 2) / 2`.

    >>> float(rt.nn.l2_loss([1.0, 2.0]))
    2.5
    """
    return _rt.divide(_rt.reduce_sum(_rt.square(t)), 2.0)


@export("nn")
def leaky_relu(features: TensorLike, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """`features` where positive, else `alpha * features`.

    >>> rt.nn.leaky_relu([-1.0, 2.0]).numpy()
    array([-0.2,  2. ], dtype=float32)
    """
    t = _tensor(features)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, _np.number)):
        raise TypeError(f"leaky_relu: alpha must be a number, got {alpha!r}")
    # TensorFlow's op takes alpha as a float32 attribute: float64 inputs see it rounded too.
    slope = float(_np.float32(alpha))
    return _rt.where(_rt.greater(t, 0.0), t, _rt.multiply(t, slope))


@export("nn")
def relu6(features: TensorLike, name: str | None = None) -> Tensor:
    """`min(max(features, 0), 6)`, elementwise.

    >>> rt.nn.relu6([-1.0, 3.0, 9.0]).numpy()
    array([0., 3., 6.], dtype=float32)
    """
    t = _tensor(features)
    # TensorFlow's Relu6 passes the gradient only where 0 < x < 6 (none at 6 itself).
    return _rt.where(_rt.less(t, 6.0), _rt.relu(t), 6.0)


@export("nn")
def silu(features: TensorLike, beta: float = 1.0, name: str | None = None) -> Tensor:
    """`x * sigmoid(beta * x)` (also `swish`).

    >>> rt.nn.silu([0.0, 1.0]).numpy()
    array([0.       , 0.7310586], dtype=float32)
    """
    t = _tensor(features)
    return _rt.multiply(t, _rt.sigmoid(_rt.multiply(t, beta) if beta != 1.0 else t))


swish = export("nn", name="swish")(silu)


@export("linalg")
def matrix_transpose(a: TensorLike, name: str | None = None, conjugate: bool = False) -> Tensor:
    """Swaps the last two axes (`conjugate=True`: the conjugate transpose, `linalg.adjoint`).

    >>> rt.linalg.adjoint([[1.0, 2.0], [3.0, 4.0]]).numpy()
    array([[1., 3.],
           [2., 4.]], dtype=float32)
    """
    t = _tensor(a)
    n = len(t.shape)
    if n < 2:
        raise ValueError(
            f"matrix_transpose: needs a tensor of rank >= 2, got shape {list(t.shape)}"
        )
    if conjugate:
        return _rt.adjoint(t)
    perm = list(range(n - 2)) + [n - 1, n - 2]
    return _rt.transpose(t, perm)
