"""Keras 3's indexing, scattering and signal-style `keras.ops` (slice, slice_update,
scatter, scatter_update, unravel_index, segment_max/min, multi_hot, in_top_k,
extract_sequences, correlate, corrcoef, cross) over rustape's differentiable ops."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _rustape as _rt
from ._core import normalize_axis, promoted, result_type, tensor


def _ints(values: Any) -> list[int]:
    items = values.numpy() if hasattr(values, "numpy") else values
    return [int(v) for v in np.asarray(items).reshape(-1)]


def slice(inputs: Any, start_indices: Any, shape: Any) -> Any:
    """Keras 3's `keras.ops.slice(inputs, start_indices, shape)`: the block of `shape`
    starting at `start_indices` (a -1 in `shape` runs to the end).

    >>> import rustape as rt
    >>> rt.keras.ops.slice([[1, 2, 3], [4, 5, 6]], (0, 1), (2, 2)).numpy()
    array([[2, 3],
           [5, 6]], dtype=int32)
    """
    t = tensor(inputs)
    dims = list(t.shape)
    starts, sizes = _ints(start_indices), _ints(shape)
    if len(starts) != len(dims) or len(sizes) != len(dims):
        raise ValueError(
            f"slice: start_indices {starts} and shape {sizes} must both have one entry per "
            f"axis of the input of shape {dims}"
        )
    index = []
    for start, size, dim in zip(starts, sizes, dims):
        stop = dim if size == -1 else start + size
        if start < 0 or stop > dim or stop < start:
            raise ValueError(
                f"slice: the block at {starts} of shape {sizes} is outside the input of "
                f"shape {dims}"
            )
        index.append(builtins.slice(start, stop))
    return t[tuple(index)]


def _block_indices(starts: list[int], shape: list[int]) -> np.ndarray:
    """The coordinates of every element of the block of `shape` at `starts`, row-major."""
    grids = np.meshgrid(*[np.arange(s, s + n) for s, n in zip(starts, shape)], indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=-1).astype(np.int32)


def slice_update(inputs: Any, start_indices: Any, updates: Any) -> Any:
    """Keras 3's `keras.ops.slice_update(inputs, start_indices, updates)`: `inputs` with
    the block at `start_indices` replaced by `updates`.

    >>> import rustape as rt
    >>> rt.keras.ops.slice_update(rt.zeros([2, 3]), (1, 1), rt.ones([1, 2])).numpy()
    array([[0., 0., 0.],
           [0., 1., 1.]], dtype=float32)
    """
    t = tensor(inputs)
    u = tensor(updates, t.dtype.name)
    dims, block = list(t.shape), list(u.shape)
    starts = _ints(start_indices)
    if len(starts) != len(dims) or len(block) != len(dims):
        raise ValueError(
            f"slice_update: start_indices {starts} and updates of shape {block} must match "
            f"the rank of the input of shape {dims}"
        )
    if any(s < 0 or s + n > d for s, n, d in zip(starts, block, dims)):
        raise ValueError(
            f"slice_update: updates of shape {block} at {starts} do not fit the input of "
            f"shape {dims}"
        )
    coordinates = _block_indices(starts, block)
    if len(coordinates) == 0:
        return t
    return _rt.tensor_scatter_nd_update(
        t, _rt.constant(coordinates), _rt.reshape(u, [len(coordinates)])
    )


def scatter(indices: Any, values: Any, shape: Any) -> Any:
    """Keras 3's `keras.ops.scatter(indices, values, shape)`: zeros of `shape` with
    `values` added at `indices` (repeated indices add up).

    >>> import rustape as rt
    >>> rt.keras.ops.scatter([[0], [2], [0]], [1.0, 2.0, 3.0], (4,)).numpy()
    array([4., 0., 2., 0.], dtype=float32)
    """
    return _rt.scatter_nd(_rt.cast(tensor(indices), "int32"), tensor(values), _ints(shape))


def scatter_update(inputs: Any, indices: Any, updates: Any, reduction: Any = None) -> Any:
    """Keras 3's `keras.ops.scatter_update(inputs, indices, updates, reduction=None)`:
    `inputs` with the elements (or slices) at `indices` replaced by `updates`, or combined
    with them by `reduction` ("add", "max", "min" or "mul").

    >>> import rustape as rt
    >>> rt.keras.ops.scatter_update(rt.zeros([3]), [[1]], [5.0]).numpy()
    array([0., 5., 0.], dtype=float32)
    >>> rt.keras.ops.scatter_update(rt.ones([3]), [[1], [1]], [2.0, 3.0], "mul").numpy()
    array([1., 6., 1.], dtype=float32)
    """
    t = tensor(inputs)
    where = _rt.cast(tensor(indices), "int32")
    values = tensor(updates, t.dtype.name)
    if reduction is None:
        return _rt.tensor_scatter_nd_update(t, where, values)
    if reduction == "add":
        return _rt.tensor_scatter_nd_add(t, where, values)
    if reduction not in ("max", "min", "mul"):
        raise ValueError(
            f"scatter_update: reduction must be None, 'add', 'max', 'min' or 'mul', "
            f"got {reduction!r}"
        )
    combine = {"max": _rt.maximum, "min": _rt.minimum, "mul": _rt.multiply}[reduction]
    # One update at a time, so repeated indices combine in order (as Keras's loop does).
    out = t
    for i in range(int(where.shape[0])):
        at = where[i : i + 1]
        current = _rt.gather_nd(out, at)
        out = _rt.tensor_scatter_nd_update(out, at, combine(current, values[i : i + 1]))
    return out


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple[Any, ...]:
    """Keras 3's `keras.ops.unravel_index(indices, shape)`: flat indices as one coordinate
    tensor per axis of `shape` (row-major), in the indices' dtype.

    >>> import rustape as rt
    >>> [c.numpy().tolist() for c in rt.keras.ops.unravel_index([5, 7], (3, 4))]
    [[1, 1], [1, 3]]
    """
    flat = tensor(indices)
    if not flat.dtype.is_integer:
        raise TypeError(f"unravel_index: indices must be integers, got {flat.dtype.name}")
    dims = [int(d) for d in shape]
    if any(d <= 0 for d in dims):
        raise ValueError(f"unravel_index: shape must be positive, got {tuple(shape)}")
    coordinates = []
    rest = flat
    for dim in reversed(dims):
        size = _rt.cast(dim, flat.dtype)
        coordinates.append(_rt.floormod(rest, size))
        rest = _rt.floordiv(rest, size)
    return tuple(reversed(coordinates))


def _segment_ids(segment_ids: Any, num_segments: Any, sorted: bool, name: str) -> tuple[Any, int]:
    ids = _rt.cast(tensor(segment_ids), "int32")
    if sorted and num_segments is not None:
        raise ValueError(f"{name}: num_segments cannot be set when sorted is True")
    if num_segments is None:
        num_segments = int(np.max(ids.numpy())) + 1 if int(ids.shape[0]) else 0
    return ids, int(num_segments)


def segment_max(data: Any, segment_ids: Any, num_segments: Any = None, sorted: bool = False) -> Any:
    """Keras 3's `keras.ops.segment_max`: the largest element of each segment (the dtype's
    lowest value for an empty one).

    >>> import rustape as rt
    >>> rt.keras.ops.segment_max([1.0, 5.0, 2.0, 3.0], [0, 0, 1, 1]).numpy()
    array([5., 3.], dtype=float32)
    """
    ids, count = _segment_ids(segment_ids, num_segments, sorted, "segment_max")
    return _rt.unsorted_segment_max(tensor(data), ids, count)


def segment_min(data: Any, segment_ids: Any, num_segments: Any = None, sorted: bool = False) -> Any:
    """Keras 3's `keras.ops.segment_min`: the smallest element of each segment (the dtype's
    largest value for an empty one).

    >>> import rustape as rt
    >>> rt.keras.ops.segment_min([1.0, 5.0, 2.0, 3.0], [0, 0, 1, 1]).numpy()
    array([1., 2.], dtype=float32)
    """
    ids, count = _segment_ids(segment_ids, num_segments, sorted, "segment_min")
    t = tensor(data)
    if not t.dtype.is_floating:
        raise TypeError(f"segment_min: rustape takes float data, got {t.dtype.name}")
    return _rt.negative(_rt.unsorted_segment_max(_rt.negative(t), ids, count))


def multi_hot(
    inputs: Any, num_classes: int, axis: int = -1, dtype: Any = None, sparse: bool = False
) -> Any:
    """Keras 3's `keras.ops.multi_hot(inputs, num_classes)`: for each row of class indices,
    a vector with 1 at every class present (float32 unless `dtype`).

    >>> import rustape as rt
    >>> rt.keras.ops.multi_hot([[1, 3], [0, 0]], 4).numpy()
    array([[0., 1., 0., 1.],
           [1., 0., 0., 0.]], dtype=float32)
    """
    if sparse:
        raise ValueError("multi_hot: rustape has no sparse tensors; use sparse=False")
    ids = _rt.cast(tensor(inputs), "int32")
    kind = dtype or "float32"
    hot = _rt.one_hot(ids, int(num_classes), axis=axis, dtype="float32")
    reduced = 1 if len(ids.shape) > 1 else 0
    out = _rt.reduce_max(hot, axis=reduced)
    return _rt.cast(out, kind)


def in_top_k(targets: Any, predictions: Any, k: int) -> Any:
    """Keras 3's `keras.ops.in_top_k(targets, predictions, k)`: whether each row's target
    class scores among the `k` highest (ties at the boundary count as in; a non-finite
    score never does).

    >>> import rustape as rt
    >>> rt.keras.ops.in_top_k([2, 0], [[0.1, 0.5, 0.4], [0.1, 0.5, 0.4]], 2).numpy()
    array([ True, False])
    """
    scores = tensor(predictions)
    if not scores.dtype.is_floating:
        scores = _rt.cast(scores, "float32")
    classes = _rt.cast(tensor(targets), "int32")
    rows = int(scores.shape[0])
    target = _rt.gather(scores, _rt.reshape(classes, [rows, 1]), axis=1, batch_dims=1)
    above = _rt.reduce_sum(_rt.cast(_rt.greater(scores, target), "int32"), axis=1)
    finite = _rt.reshape(
        _rt.logical_not(
            _rt.logical_or(_rt.not_equal(target, target), _rt.equal(_rt.abs(target), float("inf")))
        ),
        [rows],
    )
    return _rt.logical_and(_rt.less(above, _rt.cast(int(k), "int32")), finite)


def extract_sequences(x: Any, sequence_length: int, sequence_stride: int) -> Any:
    """Keras 3's `keras.ops.extract_sequences(x, sequence_length, sequence_stride)`: the
    windows of `sequence_length` along the last axis, `sequence_stride` apart, as a new
    second-to-last axis.

    >>> import rustape as rt
    >>> rt.keras.ops.extract_sequences([1, 2, 3, 4, 5], 3, 2).numpy()
    array([[1, 2, 3],
           [3, 4, 5]], dtype=int32)
    """
    t = tensor(x)
    if sequence_length <= 0 or sequence_stride <= 0:
        raise ValueError(
            f"extract_sequences: sequence_length and sequence_stride must be positive, got "
            f"{sequence_length} and {sequence_stride}"
        )
    length = int(t.shape[-1])
    count = 0 if length < sequence_length else (length - sequence_length) // sequence_stride + 1
    if count == 0:
        return _rt.zeros([*t.shape[:-1], 0, sequence_length], dtype=t.dtype)
    frames = [
        t[..., i * sequence_stride : i * sequence_stride + sequence_length] for i in range(count)
    ]
    return _rt.stack(frames, axis=-2)


def correlate(x1: Any, x2: Any, mode: str = "valid") -> Any:
    """Keras 3's `keras.ops.correlate(x1, x2, mode="valid")`: the cross-correlation of two
    vectors, `out[k] = sum_n x1[n + k] * x2[n]` ("valid", "same" or "full" length; int64
    as float64, other integers float32).

    >>> import rustape as rt
    >>> rt.keras.ops.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]).numpy()
    array([3.5], dtype=float32)
    """
    dtype = result_type(x1, x2)
    dtype = "float64" if dtype in ("int64", "float64") else "float32"
    a, b = tensor(x1, dtype), tensor(x2, dtype)
    if len(a.shape) != 1 or len(b.shape) != 1:
        raise ValueError(
            f"correlate: both inputs must be vectors, got shapes {list(a.shape)} and "
            f"{list(b.shape)}"
        )
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"correlate: mode must be 'valid', 'same' or 'full', got {mode!r}")
    n, m = int(a.shape[0]), int(b.shape[0])
    if mode != "valid":
        a = _rt.pad(a, [[m - 1, m - 1]])
    width = int(a.shape[0]) - m + 1
    if width <= 0:
        return _rt.zeros([0], dtype=dtype)
    out = _rt.multiply(a[0:width], b[0])
    for j in range(1, m):
        out = _rt.add(out, _rt.multiply(a[j : j + width], b[j]))
    if mode == "same":
        size = max(m, n)
        start = (n + m - 1 - size) // 2
        out = out[start : start + size]
    return out


def corrcoef(x: Any) -> Any:
    """Keras 3's `keras.ops.corrcoef(x)`: the Pearson correlation matrix of the rows of `x`
    (each a variable, its columns the observations), clipped to [-1, 1].

    >>> import rustape as rt
    >>> rt.keras.ops.corrcoef([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]).numpy()
    array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    t = tensor(x)
    if not (t.dtype.is_floating or t.dtype.is_complex):
        t = _rt.cast(t, "float64" if t.dtype.name == "int64" else "float32")
    if len(t.shape) == 0:
        return _rt.constant(float("nan"), dtype="float32")
    centred = _rt.subtract(t, _rt.reduce_mean(t, axis=-1, keepdims=True))
    samples = _rt.constant(float(int(t.shape[-1]) - 1), dtype=t.dtype)
    covariance = _rt.divide(_rt.matmul(centred, centred, transpose_b=True), samples)
    if len(covariance.shape) == 0:
        covariance = _rt.reshape(covariance, [1, 1])
    spread = _rt.sqrt(_rt.diag_part(covariance))
    scale = _rt.multiply(_rt.reshape(spread, [-1, 1]), _rt.reshape(spread, [1, -1]))
    correlation = _rt.divide(covariance, scale)
    low, high = _rt.constant(-1.0, dtype=t.dtype), _rt.constant(1.0, dtype=t.dtype)
    return _rt.clip_by_value(correlation, low, high)


def cross(
    x1: Any, x2: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None
) -> Any:
    """Keras 3's `keras.ops.cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None)`: the
    cross product of 3-vectors (or 2-vectors, whose product is the z component) along the
    given axes, broadcast over the others.

    >>> import rustape as rt
    >>> rt.keras.ops.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]).numpy()
    array([0., 0., 1.], dtype=float32)
    """
    a, b = promoted(x1, x2)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _moved_last(a, axisa)
    b = _moved_last(b, axisb)
    da, db = int(a.shape[-1]), int(b.shape[-1])
    if da not in (2, 3) or db not in (2, 3):
        raise ValueError(f"cross: the vectors must have 2 or 3 components, got {da} and {db}")
    ax, ay = a[..., 0], a[..., 1]
    bx, by = b[..., 0], b[..., 1]
    z = _rt.subtract(_rt.multiply(ax, by), _rt.multiply(ay, bx))
    if da == 2 and db == 2:
        return z
    zero = _rt.zeros_like(ax)
    az = a[..., 2] if da == 3 else zero
    bz = b[..., 2] if db == 3 else _rt.zeros_like(bx)
    x = _rt.subtract(_rt.multiply(ay, bz), _rt.multiply(az, by))
    y = _rt.subtract(_rt.multiply(az, bx), _rt.multiply(ax, bz))
    out = _rt.stack([_rt.add(x, _rt.zeros_like(z)), _rt.add(y, _rt.zeros_like(z)), z], axis=-1)
    rank = len(out.shape)
    return _moved_from_last(out, normalize_axis(axisc, rank))


def _moved_last(t: Any, axis: int) -> Any:
    rank = len(t.shape)
    axis = normalize_axis(axis, rank)
    perm = [i for i in range(rank) if i != axis] + [axis]
    return _rt.transpose(t, perm)


def _moved_from_last(t: Any, axis: int) -> Any:
    rank = len(t.shape)
    perm = list(range(rank - 1))
    perm.insert(axis, rank - 1)
    return _rt.transpose(t, perm)
