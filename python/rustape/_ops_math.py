"""TensorFlow's `tf.math` / `tf.nn` functions written as compositions of rustape's ops
(`in_top_k`, `ceil`, `count_nonzero`, `confusion_matrix`, the sorted segment reductions, ...):
their gradients, of any order, come from the ops they are made of.

`@export(...)` above a function is its row in the binding table (see `_export.py`).
"""

from __future__ import annotations

from . import _rustape as _rt
from ._export import export
from ._rustape import Tensor
from ._typing import Axis, DTypeLike, TensorLike


def _tensor(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    if isinstance(x, _rt.Variable):
        x = x.value()
    if isinstance(x, _rt.Tensor):
        return x if dtype is None or x.dtype == _rt.as_dtype(dtype) else _rt.cast(x, dtype)
    return _rt.convert_to_tensor(x) if dtype is None else _rt.convert_to_tensor(x, dtype=dtype)


@export("math", "nn")
def in_top_k(targets: TensorLike, predictions: TensorLike, k: int, name: str | None = None) -> Tensor:
    """Whether each row's target class is among its `k` highest predictions: fewer than `k`
    classes score strictly higher (ties at the boundary count in). A target outside
    `[0, classes)` or a row with a non-finite prediction gives False, as in TensorFlow.

    >>> rt.math.in_top_k([2, 0], [[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]], 2).numpy()
    array([False, False])
    >>> rt.math.in_top_k([1], [[0.5, 0.5, 0.2]], 1).numpy()
    array([ True])
    """
    scores = _tensor(predictions)
    labels = _tensor(targets)
    if len(scores.shape) != 2 or len(labels.shape) != 1 or labels.shape[0] != scores.shape[0]:
        raise ValueError(
            f"in_top_k: predictions must be [batch, classes] and targets [batch], got shapes "
            f"{list(scores.shape)} and {list(labels.shape)}"
        )
    if labels.dtype not in (_rt.int32, _rt.int64):
        raise TypeError(f"in_top_k: targets must be int32 or int64, got {labels.dtype.name}")
    classes = int(scores.shape[1])
    valid = _rt.logical_and(_rt.greater_equal(labels, 0), _rt.less(labels, classes))
    safe = _rt.where(valid, labels, _rt.zeros_like(labels))
    target_score = _rt.gather(scores, safe, axis=1, batch_dims=1)
    higher = _rt.greater(scores, _rt.expand_dims(target_score, 1))
    count = _rt.reduce_sum(_rt.cast(higher, _rt.int64), axis=1)
    finite = _rt.reduce_all(_rt.is_finite(scores), axis=1)
    return _rt.logical_and(_rt.logical_and(valid, finite), _rt.less(count, int(k)))


@export("math")
def ceil(x: TensorLike, name: str | None = None) -> Tensor:
    """The smallest integer not below `x`, elementwise (no gradient, as in TensorFlow).

    >>> rt.math.ceil([-1.5, 0.2, 2.0]).numpy()
    array([-1.,  1.,  2.], dtype=float32)
    """
    t = _tensor(x)
    return _rt.negative(_rt.floor(_rt.negative(t)))


@export("math")
def count_nonzero(
    input: TensorLike,
    axis: Axis = None,
    keepdims: bool | None = None,
    dtype: DTypeLike = "int64",
    name: str | None = None,
) -> Tensor:
    """The number of non-zero elements along `axis` (all when None).

    >>> rt.math.count_nonzero([[0.0, 1.5], [2.0, 0.0]], axis=1).numpy()
    array([1, 1])
    """
    t = _tensor(input)
    zero = _rt.zeros([], dtype=t.dtype)
    nonzero = _rt.cast(_rt.not_equal(t, zero), dtype)
    return _rt.reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims))


@export("math")
def logical_xor(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x` or `y` but not both, elementwise on bools.

    >>> rt.math.logical_xor([True, True, False], [True, False, False]).numpy()
    array([False,  True, False])
    """
    a, b = _tensor(x), _tensor(y)
    return _rt.logical_and(_rt.logical_or(a, b), _rt.logical_not(_rt.logical_and(a, b)))
