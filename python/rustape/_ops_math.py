"""TensorFlow's `tf.math` / `tf.nn` functions written as compositions of rustape's ops
(`in_top_k`, `ceil`, `count_nonzero`, `confusion_matrix`, the sorted segment reductions, ...):
their gradients, of any order, come from the ops they are made of.

`@export(...)` above a function is its row in the binding table (see `_export.py`).
"""

from __future__ import annotations

from typing import Any

from . import _rustape as _rt
from ._export import export
from ._ops_array import int_arg
from ._rustape import Tensor
from ._typing import Axis, DTypeLike, TensorLike


def _tensor(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    if isinstance(x, _rt.Variable):
        x = x.value()
    if isinstance(x, _rt.Tensor):
        return x if dtype is None or x.dtype == _rt.as_dtype(dtype) else _rt.cast(x, dtype)
    return _rt.convert_to_tensor(x) if dtype is None else _rt.convert_to_tensor(x, dtype=dtype)


@export("math", "nn")
def in_top_k(
    targets: TensorLike, predictions: TensorLike, k: int, name: str | None = None
) -> Tensor:
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
    return _rt.logical_and(
        _rt.logical_and(valid, finite), _rt.less(count, int_arg(k, "in_top_k", "k"))
    )


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


# -- segments --------------------------------------------------------------------------------


def _segments(op: str, data: TensorLike, segment_ids: TensorLike) -> tuple[Tensor, Tensor, int]:
    """`data`, its sorted segment ids and the number of segments (the last id + 1)."""
    t = _tensor(data)
    ids = _tensor(segment_ids)
    if ids.dtype not in (_rt.int32, _rt.int64) or len(ids.shape) != 1:
        raise TypeError(f"{op}: segment_ids must be a 1-D integer tensor, got {ids!r}")
    if not t.shape or int(t.shape[0]) != int(ids.shape[0]):
        raise ValueError(
            f"{op}: segment_ids shape {list(ids.shape)} must match data's first dimension "
            f"(data shape {list(t.shape)})"
        )
    values = ids.numpy()
    if values.size and ((values[1:] < values[:-1]).any() or values[0] < 0):
        raise ValueError(f"{op}: segment_ids must be sorted and non-negative")
    return t, ids, int(values[-1]) + 1 if values.size else 0


def _flip(x: Tensor) -> Tensor:
    """A decreasing map, its own inverse: -x for floats, -1 - x for integers (no overflow)."""
    return _rt.negative(x) if x.dtype.is_floating else _rt.subtract(-1, x)


@export("math")
def unsorted_segment_min(
    data: TensorLike, segment_ids: TensorLike, num_segments: Any, name: str | None = None
) -> Tensor:
    """The minimum of the rows of `data` in each segment (the dtype's largest value for an
    empty one).

    >>> rt.math.unsorted_segment_min([1.0, 2.0, 3.0], [1, 0, 1], 2).numpy().tolist()
    [2.0, 1.0]
    """
    t = _tensor(data)
    return _flip(_rt.unsorted_segment_max(_flip(t), segment_ids, num_segments))


@export("math")
def unsorted_segment_sqrt_n(
    data: TensorLike, segment_ids: TensorLike, num_segments: Any, name: str | None = None
) -> Tensor:
    """The sum of the rows of `data` in each segment divided by the square root of their
    number (0 for an empty segment).

    >>> rt.math.unsorted_segment_sqrt_n([1.0, 2.0, 3.0], [1, 0, 1], 3).numpy().tolist()
    [2.0, 2.8284270763397217, 0.0]
    """
    t = _tensor(data)
    if not t.dtype.is_floating:
        raise TypeError(f"unsorted_segment_sqrt_n: data must be floating, got {t.dtype.name}")
    ids = _tensor(segment_ids)
    total = _rt.unsorted_segment_sum(t, ids, num_segments)
    count = _rt.unsorted_segment_sum(_rt.ones(list(ids.shape), dtype=t.dtype), ids, num_segments)
    count = _rt.reshape(count, [-1] + [1] * (len(total.shape) - 1))
    return total / _rt.sqrt(_rt.maximum(count, _rt.ones([], dtype=t.dtype)))


def _sorted_extreme(op: str, data: TensorLike, segment_ids: TensorLike, take_max: bool) -> Tensor:
    t, ids, segments = _segments(op, data, segment_ids)
    source = t if take_max else _flip(t)
    best = _rt.unsorted_segment_max(source, ids, segments)
    best = best if take_max else _flip(best)
    counts = _rt.unsorted_segment_sum(_rt.ones(list(ids.shape), dtype=_rt.int32), ids, segments)
    present = _rt.reshape(_rt.greater(counts, 0), [-1] + [1] * (len(t.shape) - 1))
    return _rt.where(present, best, _rt.zeros_like(best))


@export("math")
def segment_max(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """The maximum of the rows of `data` in each segment of sorted `segment_ids` (0 for an
    empty segment; `segment_ids[-1] + 1` segments).

    >>> rt.math.segment_max([1.0, 5.0, 3.0], [0, 0, 2]).numpy().tolist()
    [5.0, 0.0, 3.0]
    """
    return _sorted_extreme("segment_max", data, segment_ids, True)


@export("math")
def segment_min(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """The minimum of the rows of `data` in each segment of sorted `segment_ids` (0 for an
    empty segment).

    >>> rt.math.segment_min([1.0, 5.0, 3.0], [0, 0, 2]).numpy().tolist()
    [1.0, 0.0, 3.0]
    """
    return _sorted_extreme("segment_min", data, segment_ids, False)


@export("math")
def segment_mean(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """The mean of the rows of `data` in each segment of sorted `segment_ids` (0 for an empty
    segment).

    >>> rt.math.segment_mean([1.0, 5.0, 3.0], [0, 0, 2]).numpy().tolist()
    [3.0, 0.0, 3.0]
    """
    t, ids, segments = _segments("segment_mean", data, segment_ids)
    return _rt.unsorted_segment_mean(t, ids, segments)


# -- elementwise -----------------------------------------------------------------------------


@export("math")
def reciprocal_no_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """`1 / x`, and 0 where `x` is 0 (its gradient there is 0 too).

    >>> rt.math.reciprocal_no_nan([2.0, 0.0]).numpy()
    array([0.5, 0. ], dtype=float32)
    """
    t = _tensor(x)
    zero = _rt.equal(t, _rt.zeros([], dtype=t.dtype))
    safe = _rt.where(zero, _rt.ones_like(t), t)
    return _rt.where(zero, _rt.zeros_like(t), _rt.ones([], dtype=t.dtype) / safe)


@export("math")
def xlog1py(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x * log1p(y)`, and 0 where `x` is 0 (whatever `y` is).

    >>> rt.math.xlog1py([0.0, 2.0], [-1.0, 0.0]).numpy()
    array([0., 0.], dtype=float32)
    """
    a = _tensor(x)
    b = _tensor(y, a.dtype)
    zero = _rt.equal(a, _rt.zeros([], dtype=a.dtype))
    safe = _rt.where(zero, _rt.zeros_like(b), b)
    return _rt.where(zero, _rt.zeros_like(a * safe), a * _rt.log1p(safe))


@export("math")
def lbeta(x: TensorLike, name: str | None = None) -> Tensor:
    """The log of the multivariate Beta function over the last axis:
    `sum(lgamma(x)) - lgamma(sum(x))` (-inf for an empty last axis, as TensorFlow's
    convention of an empty sum 0 and product 1 gives).

    >>> round(float(rt.math.lbeta([1.0, 2.0])), 6)
    -0.693147
    """
    t = _tensor(x)
    if not t.shape:
        raise ValueError("lbeta: needs a tensor of rank >= 1")
    return _rt.reduce_sum(_rt.lgamma(t), axis=-1) - _rt.lgamma(_rt.reduce_sum(t, axis=-1))


@export("math")
def polyval(coeffs: Any, x: TensorLike, name: str | None = None) -> Tensor:
    """`coeffs[0] * x^(n-1) + ... + coeffs[n-1]` by Horner's rule (`coeffs` a list of tensors
    or numbers; an empty list gives zeros).

    >>> rt.math.polyval([1.0, 0.0, -2.0], rt.constant([3.0])).numpy()
    array([7.], dtype=float32)
    """
    t = _tensor(x)
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(  # noqa: TRY004  (TensorFlow's error)
            "polyval: coeffs must be a list of tensors or numbers"
        )
    result = _rt.zeros_like(t)
    for c in coeffs:
        result = result * t + _tensor(c, t.dtype)
    return result


@export("math")
def zero_fraction(value: TensorLike, name: str | None = None) -> Tensor:
    """The fraction of `value`'s elements that are zero (float32).

    >>> float(rt.math.zero_fraction([0.0, 1.0, 0.0, 2.0]))
    0.5
    """
    t = _tensor(value)
    zero = _rt.equal(t, _rt.zeros([], dtype=t.dtype))
    return _rt.reduce_mean(_rt.cast(zero, _rt.float32))


@export("math")
def is_non_decreasing(x: TensorLike, name: str | None = None) -> Tensor:
    """Whether the elements of `x`, read in row-major order, never decrease (True for fewer
    than two).

    >>> bool(rt.math.is_non_decreasing([1, 2, 2, 5]))
    True
    """
    flat = _rt.reshape(_tensor(x), [-1])
    if int(flat.shape[0]) < 2:
        return _rt.constant(True)
    return _rt.reduce_all(_rt.less_equal(flat[:-1], flat[1:]))


@export("math")
def is_strictly_increasing(x: TensorLike, name: str | None = None) -> Tensor:
    """Whether the elements of `x`, read in row-major order, always increase (True for fewer
    than two).

    >>> bool(rt.math.is_strictly_increasing([1, 2, 2, 5]))
    False
    """
    flat = _rt.reshape(_tensor(x), [-1])
    if int(flat.shape[0]) < 2:
        return _rt.constant(True)
    return _rt.reduce_all(_rt.less(flat[:-1], flat[1:]))


@export("math")
def invert_permutation(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse of the permutation `x` of `0..n-1`: `y[x[i]] = i`.

    >>> rt.math.invert_permutation([3, 4, 0, 2, 1]).numpy().tolist()
    [2, 4, 3, 0, 1]
    """
    t = _tensor(x)
    if t.dtype not in (_rt.int32, _rt.int64) or len(t.shape) != 1:
        raise TypeError(f"invert_permutation: needs a 1-D integer tensor, got {t!r}")
    values = t.numpy()
    n = values.size
    if sorted(values.tolist()) != list(range(n)):
        raise ValueError(
            f"invert_permutation: {values.tolist()} is not a permutation of 0..{n - 1}"
        )
    positions = _rt.range(n, dtype=t.dtype)
    return _rt.tensor_scatter_nd_update(
        _rt.zeros([n], dtype=t.dtype), _rt.expand_dims(t, 1), positions
    )


@export("math")
def confusion_matrix(
    labels: TensorLike,
    predictions: TensorLike,
    num_classes: Any = None,
    weights: TensorLike | None = None,
    dtype: DTypeLike = "int32",
    name: str | None = None,
) -> Tensor:
    """The `[num_classes, num_classes]` counts (or summed `weights`) of each (label,
    prediction) pair: rows are labels, columns predictions.

    >>> rt.math.confusion_matrix([1, 2, 4], [2, 2, 4]).numpy().tolist()
    [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]]
    """
    truth = _tensor(labels)
    guess = _tensor(predictions)
    if truth.dtype not in (_rt.int32, _rt.int64) or guess.dtype not in (_rt.int32, _rt.int64):
        raise TypeError("confusion_matrix: labels and predictions must be integers")
    truth, guess = _rt.reshape(truth, [-1]), _rt.reshape(guess, [-1])
    if int(truth.shape[0]) != int(guess.shape[0]):
        raise ValueError(
            f"confusion_matrix: {truth.shape[0]} labels but {guess.shape[0]} predictions"
        )
    t_values, g_values = truth.numpy(), guess.numpy()
    if (t_values < 0).any() or (g_values < 0).any():
        raise ValueError("confusion_matrix: labels and predictions must be non-negative")
    if num_classes is None:
        n = int(max(t_values.max(initial=-1), g_values.max(initial=-1))) + 1
    else:
        n = int_arg(num_classes, "confusion_matrix", "num_classes")
        if (t_values >= n).any() or (g_values >= n).any():
            raise ValueError(f"confusion_matrix: labels and predictions must be < {n}")
    out_dtype = _rt.as_dtype(dtype)
    values = (
        _rt.ones([int(truth.shape[0])], dtype=out_dtype)
        if weights is None
        else _rt.reshape(_tensor(weights, out_dtype), [-1])
    )
    pairs = _rt.stack([_rt.cast(truth, _rt.int64), _rt.cast(guess, _rt.int64)], axis=1)
    return _rt.tensor_scatter_nd_add(_rt.zeros([n, n], dtype=out_dtype), pairs, values)
