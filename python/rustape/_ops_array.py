"""TensorFlow's array and clipping functions written as compositions of rustape's ops
(`slice`, `strided_slice`, `sequence_mask`, `reverse_sequence`, `clip_by_global_norm`,
`depth_to_space`, the truncating divisions, ...): their gradients, of any order, come from the
ops they are made of.

`@export(...)` above a function is its row in the binding table (see `_export.py`).
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

from . import _ops
from . import _rustape as _rt
from ._export import export
from ._rustape import Tensor
from ._typing import DTypeLike, TensorLike


def _tensor(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    if isinstance(x, _rt.Variable):
        x = x.value()
    if isinstance(x, _rt.Tensor):
        return x if dtype is None or x.dtype == _rt.as_dtype(dtype) else _rt.cast(x, dtype)
    return _rt.convert_to_tensor(x) if dtype is None else _rt.convert_to_tensor(x, dtype=dtype)


def int_arg(value: Any, op: str, what: str) -> int:
    """`value` (a Python or NumPy integer, or a one-element integer tensor) as an int; a
    TypeError naming `op` otherwise."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (_rt.Tensor, _rt.Variable)):
        if value.dtype not in (_rt.int32, _rt.int64) or value.shape.num_elements() != 1:
            raise TypeError(f"{op}: `{what}` must be an integer, got {value!r}")
        return int(value.numpy().reshape(()))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}: `{what}` must be an integer, got {value!r}") from None


def _ints(op: str, what: str, values: Any) -> list[int]:
    """A list of Python ints from a list, an array or an integer tensor."""
    if isinstance(values, (_rt.Tensor, _rt.Variable)):
        if values.dtype not in (_rt.int32, _rt.int64) or len(values.shape) > 1:
            raise TypeError(f"{op}: `{what}` must be a list of ints, got {values!r}")
        values = values.numpy().reshape(-1).tolist()
    if not isinstance(values, (list, tuple)) and not hasattr(values, "tolist"):
        raise TypeError(f"{op}: `{what}` must be a list of ints, got {values!r}")
    items = values.tolist() if hasattr(values, "tolist") else list(values)
    if not isinstance(items, list):
        raise TypeError(f"{op}: `{what}` must be a list of ints, got {values!r}")
    return [int_arg(v, op, what) for v in items]


@export("rt")
def slice(  # TensorFlow's name (builtins.slice below)
    input_: TensorLike, begin: Any, size: Any, name: str | None = None
) -> Tensor:
    """The block of `input_` starting at `begin` with `size` elements per axis (-1: to the
    end).

    >>> rt.slice([[1, 2, 3], [4, 5, 6]], [0, 1], [2, -1]).numpy().tolist()
    [[2, 3], [5, 6]]
    """
    t = _tensor(input_)
    starts, sizes = _ints("slice", "begin", begin), _ints("slice", "size", size)
    rank = len(t.shape)
    if len(starts) != rank or len(sizes) != rank:
        raise ValueError(
            f"slice: `begin` and `size` need one entry per axis of shape {list(t.shape)}, got "
            f"{starts} and {sizes}"
        )
    index = []
    for axis, (b, s, d) in enumerate(zip(starts, sizes, t.shape)):
        end = d if s == -1 else b + s
        if b < 0 or s < -1 or end > d:
            raise ValueError(
                f"slice: begin {b} and size {s} on axis {axis} run outside its length {d} "
                f"(shape {list(t.shape)})"
            )
        index.append(builtins.slice(b, end))
    return t[tuple(index)]


@export("rt")
def strided_slice(
    input_: TensorLike,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """`input_[begin:end:strides]` per axis, with TensorFlow's bit masks: bit `i` of
    `begin_mask` / `end_mask` ignores `begin[i]` / `end[i]`, of `ellipsis_mask` makes entry
    `i` an ellipsis, of `new_axis_mask` a new axis, of `shrink_axis_mask` an index.

    >>> x = rt.reshape(rt.range(12), [3, 4])
    >>> rt.strided_slice(x, [0, 1], [3, 4], [2, 2]).numpy().tolist()
    [[1, 3], [9, 11]]
    >>> rt.strided_slice(x, [1, 0], [2, 4], shrink_axis_mask=1).numpy().tolist()
    [4, 5, 6, 7]
    """
    t = _tensor(input_)
    starts = _ints("strided_slice", "begin", begin)
    ends = _ints("strided_slice", "end", end)
    steps = [1] * len(starts) if strides is None else _ints("strided_slice", "strides", strides)
    if not len(starts) == len(ends) == len(steps):
        raise ValueError(
            f"strided_slice: `begin`, `end` and `strides` must have one length, got "
            f"{len(starts)}, {len(ends)} and {len(steps)}"
        )
    masks = [
        int_arg(m, "strided_slice", what)
        for m, what in (
            (begin_mask, "begin_mask"),
            (end_mask, "end_mask"),
            (ellipsis_mask, "ellipsis_mask"),
            (new_axis_mask, "new_axis_mask"),
            (shrink_axis_mask, "shrink_axis_mask"),
        )
    ]
    begin_mask, end_mask, _, new_axis_mask, shrink_axis_mask = masks
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(starts, ends, steps)):
        bit = 1 << i
        if masks[2] & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(b)
        else:
            if s == 0:
                raise ValueError(f"strided_slice: a stride of 0 on entry {i}")
            index.append(
                builtins.slice(None if begin_mask & bit else b, None if end_mask & bit else e, s)
            )
    return t[tuple(index)]


@export("rt")
def sequence_mask(
    lengths: TensorLike,
    maxlen: Any = None,
    dtype: DTypeLike = "bool",
    name: str | None = None,
) -> Tensor:
    """`mask[..., j] = j < lengths[...]` for `j < maxlen` (the largest length when None).

    >>> rt.sequence_mask([1, 3, 2], 4).numpy().astype(int).tolist()
    [[1, 0, 0, 0], [1, 1, 1, 0], [1, 1, 0, 0]]
    """
    lengths_t = _tensor(lengths)
    if lengths_t.dtype not in (_rt.int32, _rt.int64):
        raise TypeError(f"sequence_mask: lengths must be integers, got {lengths_t.dtype.name}")
    if maxlen is None:
        size = int(_rt.reduce_max(lengths_t).numpy()) if lengths_t.shape.num_elements() else 0
    else:
        size = int_arg(maxlen, "sequence_mask", "maxlen")
    size = max(size, 0)
    positions = _rt.range(size, dtype=lengths_t.dtype)
    mask = _rt.less(positions, _rt.expand_dims(lengths_t, -1))
    return mask if _rt.as_dtype(dtype) == _rt.bool else _rt.cast(mask, dtype)


@export("rt")
def reverse_sequence(
    input: TensorLike,
    seq_lengths: TensorLike,
    seq_axis: int | None = None,
    batch_axis: int = 0,
    name: str | None = None,
) -> Tensor:
    """Reverses the first `seq_lengths[b]` entries along `seq_axis` of each slice `b` of
    `batch_axis`; the rest stay in place.

    >>> rt.reverse_sequence([[1, 2, 3, 4], [5, 6, 7, 8]], [3, 1], seq_axis=1).numpy().tolist()
    [[3, 2, 1, 4], [5, 6, 7, 8]]
    """
    t = _tensor(input)
    rank = len(t.shape)
    if seq_axis is None:
        raise ValueError("reverse_sequence: seq_axis is required")
    seq_axis = int_arg(seq_axis, "reverse_sequence", "seq_axis") % max(rank, 1)
    batch_axis = int_arg(batch_axis, "reverse_sequence", "batch_axis") % max(rank, 1)
    if rank < 2 or seq_axis == batch_axis:
        raise ValueError(
            f"reverse_sequence: seq_axis {seq_axis} and batch_axis {batch_axis} must be two "
            f"different axes of shape {list(t.shape)}"
        )
    lengths = _tensor(seq_lengths)
    if list(lengths.shape) != [t.shape[batch_axis]]:
        raise ValueError(
            f"reverse_sequence: seq_lengths must have shape [{t.shape[batch_axis]}], got "
            f"{list(lengths.shape)}"
        )
    lengths = _rt.cast(lengths, _rt.int64)
    steps = int(t.shape[seq_axis])
    too_long = _rt.reduce_any(_rt.greater(lengths, steps)).numpy()
    if bool(too_long) or bool(_rt.reduce_any(_rt.less(lengths, 0)).numpy()):
        raise ValueError(
            f"reverse_sequence: every seq_lengths entry must be within [0, {steps}], got "
            f"{lengths.numpy().tolist()}"
        )
    # Move the batch axis first and the sequence axis second, gather, move them back.
    order = [batch_axis, seq_axis] + [a for a in range(rank) if a not in (batch_axis, seq_axis)]
    moved = _rt.transpose(t, order)
    position = _rt.expand_dims(_rt.range(steps, dtype=_rt.int64), 0)
    length = _rt.expand_dims(lengths, 1)
    source = _rt.where(_rt.less(position, length), length - 1 - position, position)
    gathered = _rt.gather(moved, source, axis=1, batch_dims=1)
    inverse = [order.index(a) for a in range(rank)]
    return _rt.transpose(gathered, inverse)


@export("rt")
def unravel_index(indices: TensorLike, dims: TensorLike, name: str | None = None) -> Tensor:
    """The coordinates in an array of shape `dims` of each flat index (row-major): shape
    `[len(dims)] + indices.shape`.

    >>> rt.unravel_index([5, 7], [3, 4]).numpy().tolist()
    [[1, 1], [1, 3]]
    """
    flat = _tensor(indices)
    if flat.dtype not in (_rt.int32, _rt.int64):
        raise TypeError(f"unravel_index: indices must be integers, got {flat.dtype.name}")
    shape = _ints("unravel_index", "dims", _tensor(dims, flat.dtype))
    total = math.prod(shape)
    values = flat.numpy()
    if values.size and (values.min() < 0 or values.max() >= total):
        raise ValueError(
            f"unravel_index: flat indices must be within [0, {total}) for dims {shape}"
        )
    coordinates = []
    remaining = flat
    for d in reversed(shape):
        coordinates.append(_rt.floormod(remaining, d))
        remaining = _rt.floordiv(remaining, d)
    return _rt.stack(coordinates[::-1], axis=0)


@export("rt")
def shape_n(
    input: Sequence[TensorLike], out_type: DTypeLike = "int32", name: str | None = None
) -> list[Tensor]:
    """The shape of each tensor of `input`, as int tensors.

    >>> [s.numpy().tolist() for s in rt.shape_n([rt.zeros([2, 3]), rt.zeros([4])])]
    [[2, 3], [4]]
    """
    return [_ops.shape(_tensor(x), out_type=out_type) for x in input]


@export("rt")
def identity_n(input: Sequence[TensorLike], name: str | None = None) -> list[Tensor]:
    """Each tensor of `input`, unchanged (gradients pass through).

    >>> [t.numpy().tolist() for t in rt.identity_n([[1.0], [2.0, 3.0]])]
    [[1.0], [2.0, 3.0]]
    """
    return [_ops.identity(_tensor(x)) for x in input]


@export("rt")
def ensure_shape(x: TensorLike, shape: Any, name: str | None = None) -> Tensor:
    """`x` itself after checking that its shape matches `shape` (None matches any length).

    >>> rt.ensure_shape(rt.zeros([2, 3]), [None, 3]).shape
    (2, 3)
    """
    t = _tensor(x)
    want = None if shape is None else list(shape)
    if want is not None and (
        len(want) != len(t.shape)
        or any(w is not None and int(w) != d for w, d in zip(want, t.shape))
    ):
        raise ValueError(f"ensure_shape: shape {list(t.shape)} is not compatible with {want}")
    return t


@export("rt", "math")
def realdiv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x / y` for floating tensors.

    >>> rt.realdiv([3.0], [2.0]).numpy()
    array([1.5], dtype=float32)
    """
    a = _tensor(x)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        raise TypeError(f"realdiv: needs floating or complex tensors, got {a.dtype.name}")
    return _rt.divide(a, _tensor(y, a.dtype))


@export("rt", "math")
def truncatediv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x / y` rounded toward zero (C's integer division; floats: `trunc(x / y)`).

    >>> rt.truncatediv([-7, 7], [2, -2]).numpy().tolist()
    [-3, -3]
    """
    a = _tensor(x)
    b = _tensor(y, a.dtype)
    if a.dtype.is_floating:
        q = _rt.divide(a, b)
        return _rt.where(_rt.less(q, 0.0), _rt.negative(_rt.floor(_rt.negative(q))), _rt.floor(q))
    floor = _rt.floordiv(a, b)
    remainder = _rt.floormod(a, b)
    zero = _rt.zeros([], dtype=a.dtype)
    signs_differ = _rt.not_equal(_rt.less(a, zero), _rt.less(b, zero))
    adjust = _rt.logical_and(signs_differ, _rt.not_equal(remainder, zero))
    return _rt.where(adjust, floor + _rt.ones([], dtype=a.dtype), floor)


@export("rt", "math")
def truncatemod(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """The remainder of `truncatediv`: it has the sign of `x` (C's `%`, `fmod` for floats).

    >>> rt.truncatemod([-7, 7], [2, -2]).numpy().tolist()
    [-1, 1]
    """
    a = _tensor(x)
    b = _tensor(y, a.dtype)
    return a - truncatediv(a, b) * b


@export("linalg")
def global_norm(t_list: Sequence[TensorLike | None], name: str | None = None) -> Tensor:
    """`sqrt(sum of every element squared)` over the tensors of `t_list` (None entries are
    skipped).

    >>> float(rt.linalg.global_norm([[3.0], [4.0]]))
    5.0
    """
    tensors = [_tensor(t) for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm: t_list holds no tensor")
    dtype = tensors[0].dtype
    squares = [
        _rt.reduce_sum(_rt.square(_rt.cast(t, dtype) if t.dtype != dtype else t)) for t in tensors
    ]
    return _rt.sqrt(_ops.add_n(squares))


@export("rt")
def clip_by_global_norm(
    t_list: Sequence[TensorLike | None],
    clip_norm: Any,
    use_norm: TensorLike | None = None,
    name: str | None = None,
) -> tuple[list[Tensor | None], Tensor]:
    """Scales every tensor of `t_list` by `clip_norm / max(global_norm, clip_norm)`, so that
    together their norm is at most `clip_norm`; returns the tensors (None stays None) and the
    global norm. An infinite or NaN norm gives NaN tensors, as in TensorFlow.

    >>> clipped, norm = rt.clip_by_global_norm([[3.0], [4.0]], 1.0)
    >>> [round(float(c[0]), 4) for c in clipped], float(norm)
    ([0.6, 0.8], 5.0)
    """
    if isinstance(t_list, (_rt.Tensor, _rt.Variable)) or not isinstance(t_list, Sequence):
        raise TypeError("clip_by_global_norm: t_list must be a sequence of tensors")
    tensors = [None if t is None else _tensor(t) for t in t_list]
    norm = global_norm(tensors) if use_norm is None else _tensor(use_norm)
    dtype = norm.dtype
    try:
        bound = float(clip_norm.numpy() if hasattr(clip_norm, "numpy") else clip_norm)
    except (TypeError, ValueError):
        raise TypeError(
            f"clip_by_global_norm: clip_norm must be a number, got {clip_norm!r}"
        ) from None
    limit = _rt.constant(bound, dtype=dtype)
    scale = limit * _rt.minimum(_ops.reciprocal(norm), _ops.reciprocal(limit))
    # TensorFlow's rule: a non-finite norm makes every output NaN.
    scale = _rt.where(_rt.is_finite(norm), scale, _rt.constant(float("nan"), dtype=dtype))
    out = [None if t is None else t * _rt.cast(scale, t.dtype) for t in tensors]
    return out, norm


def _block_size(op: str, block_size: Any) -> int:
    size = int_arg(block_size, op, "block_size")
    if size < 2:
        raise ValueError(f"{op}: block_size must be at least 2, got {size}")
    return size


@export("nn", "rt")
def depth_to_space(
    input: TensorLike, block_size: int, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """Moves channel blocks into `block_size x block_size` spatial blocks: `[n, h, w, c]` to
    `[n, h * b, w * b, c / b^2]` (NHWC; "NCHW" too).

    >>> rt.nn.depth_to_space(rt.reshape(rt.range(4.0), [1, 1, 1, 4]), 2).numpy()[0, :, :, 0].tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    """
    t = _tensor(input)
    b = _block_size("depth_to_space", block_size)
    if len(t.shape) != 4 or data_format not in ("NHWC", "NCHW"):
        raise ValueError(
            f"depth_to_space: needs a rank-4 NHWC or NCHW input, got shape {list(t.shape)} "
            f"and data_format {data_format!r}"
        )
    if data_format == "NCHW":
        t = _rt.transpose(t, [0, 2, 3, 1])
    n, h, w, c = (int(d) for d in t.shape)
    if c % (b * b):
        raise ValueError(
            f"depth_to_space: channels {c} must be divisible by block_size^2 = {b * b}"
        )
    out = _rt.reshape(t, [n, h, w, b, b, c // (b * b)])
    out = _rt.transpose(out, [0, 1, 3, 2, 4, 5])
    out = _rt.reshape(out, [n, h * b, w * b, c // (b * b)])
    return _rt.transpose(out, [0, 3, 1, 2]) if data_format == "NCHW" else out


@export("nn", "rt")
def space_to_depth(
    input: TensorLike, block_size: int, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """Moves `block_size x block_size` spatial blocks into channels: `[n, h, w, c]` to
    `[n, h / b, w / b, c * b^2]` (NHWC; "NCHW" too); the inverse of `depth_to_space`.

    >>> rt.nn.space_to_depth(rt.reshape(rt.range(4.0), [1, 2, 2, 1]), 2).numpy().tolist()
    [[[[0.0, 1.0, 2.0, 3.0]]]]
    """
    t = _tensor(input)
    b = _block_size("space_to_depth", block_size)
    if len(t.shape) != 4 or data_format not in ("NHWC", "NCHW"):
        raise ValueError(
            f"space_to_depth: needs a rank-4 NHWC or NCHW input, got shape {list(t.shape)} "
            f"and data_format {data_format!r}"
        )
    if data_format == "NCHW":
        t = _rt.transpose(t, [0, 2, 3, 1])
    n, h, w, c = (int(d) for d in t.shape)
    if h % b or w % b:
        raise ValueError(
            f"space_to_depth: height {h} and width {w} must be divisible by block_size {b}"
        )
    out = _rt.reshape(t, [n, h // b, b, w // b, b, c])
    out = _rt.transpose(out, [0, 1, 3, 2, 4, 5])
    out = _rt.reshape(out, [n, h // b, w // b, c * b * b])
    return _rt.transpose(out, [0, 3, 1, 2]) if data_format == "NCHW" else out


@export("rt")
def dynamic_partition(
    data: TensorLike, partitions: TensorLike, num_partitions: int, name: str | None = None
) -> list[Tensor]:
    """Splits `data` into `num_partitions` tensors: output `i` holds the slices of `data`
    whose `partitions` entry is `i`, in order.

    >>> [p.numpy().tolist() for p in rt.dynamic_partition([10, 20, 30, 40], [1, 0, 1, 1], 2)]
    [[20], [10, 30, 40]]
    """
    t = _tensor(data)
    ids = _tensor(partitions)
    if ids.dtype not in (_rt.int32, _rt.int64):
        raise TypeError(f"dynamic_partition: partitions must be integers, got {ids.dtype.name}")
    count = int_arg(num_partitions, "dynamic_partition", "num_partitions")
    if count < 1:
        raise ValueError(f"dynamic_partition: num_partitions must be >= 1, got {count}")
    rank = len(ids.shape)
    if tuple(t.shape[:rank]) != tuple(ids.shape):
        raise ValueError(
            f"dynamic_partition: partitions shape {list(ids.shape)} must prefix data shape "
            f"{list(t.shape)}"
        )
    values = ids.numpy()
    if values.size and (values.min() < 0 or values.max() >= count):
        raise ValueError(
            f"dynamic_partition: partitions must be within [0, {count}), got "
            f"[{values.min()}, {values.max()}]"
        )
    flat = _rt.reshape(t, [-1, *t.shape[rank:]])
    flat_ids = _rt.reshape(ids, [-1])
    return [_rt.boolean_mask(flat, _rt.equal(flat_ids, i)) for i in range(count)]


@export("rt")
def tensor_scatter_nd_sub(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    """`tensor` with `updates` subtracted at `indices` (repeated indices subtract each time).

    >>> rt.tensor_scatter_nd_sub([1.0, 2.0, 3.0], [[0], [0], [2]], [1.0, 1.0, 5.0]).numpy()
    array([-1.,  2., -2.], dtype=float32)
    """
    t = _tensor(tensor)
    return _rt.tensor_scatter_nd_add(t, indices, _rt.negative(_tensor(updates, t.dtype)))


def _scatter_extreme(
    op: str, tensor: TensorLike, indices: TensorLike, updates: TensorLike, take_max: bool
) -> Tensor:
    from . import math as _math

    t = _tensor(tensor)
    idx = _tensor(indices)
    u = _tensor(updates, t.dtype)
    if idx.dtype not in (_rt.int32, _rt.int64) or len(idx.shape) < 1:
        raise TypeError(f"{op}: indices must be an integer tensor of rank >= 1")
    depth = int(idx.shape[-1])
    if depth > len(t.shape) or depth < 1:
        raise ValueError(
            f"{op}: indices' last dimension {depth} must be within [1, rank {len(t.shape)}]"
        )
    lead = [int(d) for d in t.shape[:depth]]
    tail = [int(d) for d in t.shape[depth:]]
    points = _rt.reshape(idx, [-1, depth])
    values = points.numpy()
    if values.size and ((values < 0).any() or (values >= lead).any()):
        raise ValueError(f"{op}: an index is outside the tensor's shape {list(t.shape)}")
    strides = [math.prod(lead[k + 1 :]) for k in range(depth)]
    linear = _rt.reduce_sum(points * _rt.constant(strides, dtype=points.dtype), axis=1)
    rows = _rt.reshape(u, [-1, *tail])
    if int(rows.shape[0]) != int(linear.shape[0]):
        raise ValueError(
            f"{op}: updates shape {list(u.shape)} does not match indices {list(idx.shape)} "
            f"and tensor {list(t.shape)}"
        )
    cells = math.prod(lead)
    flat = _rt.reshape(t, [cells, *tail])
    if take_max:
        out = _rt.maximum(flat, _math.unsorted_segment_max(rows, linear, cells))
    else:
        # min(x) = flip(max(flip(x))) with a decreasing flip: -x for floats, -1 - x for
        # integers (no overflow at the type's minimum).
        def flip(x: Tensor) -> Tensor:
            return _rt.negative(x) if x.dtype.is_floating else _rt.subtract(-1, x)

        out = _rt.minimum(flat, flip(_math.unsorted_segment_max(flip(rows), linear, cells)))
    return _rt.reshape(out, list(t.shape))


@export("rt")
def tensor_scatter_nd_max(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    """`tensor` with each indexed element (or slice) the maximum of itself and its updates.

    >>> rt.tensor_scatter_nd_max([1.0, 5.0, 3.0], [[0], [1], [0]], [4.0, 2.0, 2.0]).numpy()
    array([4., 5., 3.], dtype=float32)
    """
    return _scatter_extreme("tensor_scatter_nd_max", tensor, indices, updates, True)


@export("rt")
def tensor_scatter_nd_min(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    """`tensor` with each indexed element (or slice) the minimum of itself and its updates.

    >>> rt.tensor_scatter_nd_min([1.0, 5.0, 3.0], [[0], [1], [0]], [4.0, 2.0, 0.5]).numpy()
    array([0.5, 2. , 3. ], dtype=float32)
    """
    return _scatter_extreme("tensor_scatter_nd_min", tensor, indices, updates, False)
