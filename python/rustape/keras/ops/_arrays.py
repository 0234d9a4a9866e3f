"""Keras 3's `keras.ops` for reductions, shapes, indexing and products (NumPy's names and
axes: `axis=None` means every axis, `keepdims`), each a thin wrapper of rustape's ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from ... import linalg as _linalg
from ... import math as _math
from ._core import axes, floating, normalize_axis, promoted, scalar, tensor


def _flat(x: Any) -> Any:
    return _rt.reshape(x, [-1])


def _counting(x: Any) -> Any:
    """Bools counted as int32 (Keras sums and products of bools are int32)."""
    return _rt.cast(x, "int32") if x.dtype.name == "bool" else x


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.sum`: the sum over `axis` (an int, a tuple, or None for all).

    >>> import rustape as rt
    >>> rt.keras.ops.sum([[1, 2], [3, 4]], axis=0).numpy()
    array([4, 6], dtype=int32)
    """
    return _rt.reduce_sum(_counting(tensor(x)), axis=axes(axis), keepdims=keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.prod`: the product over `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.prod([[1.0, 2.0], [3.0, 4.0]], axis=1).numpy()
    array([ 2., 12.], dtype=float32)
    """
    return _rt.reduce_prod(_counting(tensor(x)), axis=axes(axis), keepdims=keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.mean` (integers average as float32).

    >>> import rustape as rt
    >>> rt.keras.ops.mean([[1, 2], [3, 4]], axis=1).numpy()
    array([1.5, 3.5], dtype=float32)
    """
    return _rt.reduce_mean(floating(x), axis=axes(axis), keepdims=keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    """Keras 3's `keras.ops.max`: the largest element over `axis`, at least `initial`.

    >>> import rustape as rt
    >>> rt.keras.ops.max([[1.0, 5.0], [3.0, 4.0]], axis=0).numpy()
    array([3., 5.], dtype=float32)
    """
    t = tensor(x)
    out = _rt.reduce_max(t, axis=axes(axis), keepdims=keepdims)
    return out if initial is None else _rt.maximum(out, scalar(initial, t.dtype))


def min(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    """Keras 3's `keras.ops.min`: the smallest element over `axis`, at most `initial`.

    >>> import rustape as rt
    >>> rt.keras.ops.min([[1.0, 5.0], [3.0, 4.0]], axis=1).numpy()
    array([1., 3.], dtype=float32)
    """
    t = tensor(x)
    out = _rt.reduce_min(t, axis=axes(axis), keepdims=keepdims)
    return out if initial is None else _rt.minimum(out, scalar(initial, t.dtype))


amax = max
amin = min


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.std`: the population standard deviation over `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.std([1.0, 3.0]).numpy()
    np.float32(1.0)
    """
    return _math.reduce_std(floating(x), axis=axes(axis), keepdims=keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.var`: the population variance over `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.var([1.0, 3.0]).numpy()
    np.float32(1.0)
    """
    return _math.reduce_variance(floating(x), axis=axes(axis), keepdims=keepdims)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.logsumexp`: `log(sum(exp(x)))` over `axis`, without overflow.

    >>> import rustape as rt
    >>> rt.keras.ops.logsumexp([100.0, 100.0]).numpy().round(4)
    np.float32(100.6931)
    """
    return _rt.reduce_logsumexp(floating(x), axis=axes(axis), keepdims=keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.all`: whether every element over `axis` is true (non-zero).

    >>> import rustape as rt
    >>> rt.keras.ops.all([[True, False], [True, True]], axis=1).numpy()
    array([False,  True])
    """
    return _rt.reduce_all(_rt.cast(tensor(x), "bool"), axis=axes(axis), keepdims=keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.any`: whether some element over `axis` is true (non-zero).

    >>> import rustape as rt
    >>> rt.keras.ops.any([[True, False], [False, False]], axis=1).numpy()
    array([ True, False])
    """
    return _rt.reduce_any(_rt.cast(tensor(x), "bool"), axis=axes(axis), keepdims=keepdims)


def _arg(fn: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    t = tensor(x)
    if axis is None:
        out = fn(_flat(t), axis=0, output_type="int32")
        return _rt.reshape(out, [1] * len(t.shape)) if keepdims else out
    out = fn(t, axis=axis, output_type="int32")
    return _rt.expand_dims(out, axis) if keepdims else out


def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.argmax`: the index (int32) of the largest element along `axis`
    (of the flattened array when `axis` is None).

    >>> import rustape as rt
    >>> rt.keras.ops.argmax([[1.0, 5.0], [3.0, 4.0]], axis=1).numpy()
    array([1, 1], dtype=int32)
    """
    return _arg(_rt.argmax, x, axis, keepdims)


def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.argmin`: the index (int32) of the smallest element along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.argmin([[1.0, 5.0], [3.0, 0.0]]).numpy()
    np.int32(3)
    """
    return _arg(_rt.argmin, x, axis, keepdims)


def cumsum(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.cumsum`: running sums along `axis` (of the flattened array when
    `axis` is None).

    >>> import rustape as rt
    >>> rt.keras.ops.cumsum([[1, 2], [3, 4]]).numpy()
    array([ 1,  3,  6, 10], dtype=int32)
    """
    t = _counting(tensor(x, dtype))
    return _rt.cumsum(_flat(t), axis=0) if axis is None else _rt.cumsum(t, axis=axis)


def cumprod(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.cumprod`: running products along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.cumprod([1.0, 2.0, 3.0]).numpy()
    array([1., 2., 6.], dtype=float32)
    """
    t = _counting(tensor(x, dtype))
    return _math.cumprod(_flat(t), axis=0) if axis is None else _math.cumprod(t, axis=axis)


def count_nonzero(x: Any, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.count_nonzero`: how many elements are non-zero (int32).

    >>> import rustape as rt
    >>> rt.keras.ops.count_nonzero([[0, 1], [2, 0]]).numpy()
    np.int32(2)
    """
    t = tensor(x)
    nonzero = _rt.cast(_rt.not_equal(t, _rt.cast(0, t.dtype)), "int32")
    return _rt.reduce_sum(nonzero, axis=axes(axis))


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.norm`: the 2-norm (Frobenius for matrices) by default, or the
    vector norm of order `ord` along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.norm([3.0, 4.0]).numpy()
    np.float32(5.0)
    """
    t = floating(x)
    if ord is None or ord == "fro":
        return _rt.sqrt(_rt.reduce_sum(_rt.square(t), axis=axes(axis), keepdims=keepdims))
    return _rt.norm(t, ord=ord, axis=axes(axis), keepdims=keepdims)


def average(x: Any, axis: int | None = None, weights: Any = None) -> Any:
    """Keras 3's `keras.ops.average`: the mean along `axis`, weighted by `weights` (one per
    element along `axis`, or of `x`'s shape).

    >>> import rustape as rt
    >>> rt.keras.ops.average([1.0, 3.0], weights=[3.0, 1.0]).numpy()
    np.float32(1.5)
    """
    if weights is None:
        return mean(x, axis=axis)
    t, w = promoted(floating(x), weights)
    if axis is not None and len(w.shape) == 1 and len(t.shape) > 1:
        shape = [1] * len(t.shape)
        shape[normalize_axis(axis, len(t.shape))] = -1
        w = _rt.reshape(w, shape)
    w = _rt.broadcast_to(w, t.shape)
    return _rt.divide(_rt.reduce_sum(_rt.multiply(t, w), axis=axis), _rt.reduce_sum(w, axis=axis))


# -- shapes ----------------------------------------------------------------------------------


def shape(x: Any) -> tuple[int, ...]:
    """Keras 3's `keras.ops.shape`: the shape as a tuple of ints.

    >>> import rustape as rt
    >>> rt.keras.ops.shape(rt.zeros([2, 3]))
    (2, 3)
    """
    return tuple(int(d) for d in tensor(x).shape)


def ndim(x: Any) -> int:
    """Keras 3's `keras.ops.ndim`: the number of axes.

    >>> import rustape as rt
    >>> rt.keras.ops.ndim(rt.zeros([2, 3]))
    2
    """
    return len(tensor(x).shape)


def size(x: Any) -> Any:
    """Keras 3's `keras.ops.size`: the number of elements (an int32 scalar).

    >>> import rustape as rt
    >>> rt.keras.ops.size(rt.zeros([2, 3])).numpy()
    np.int32(6)
    """
    count = 1
    for d in tensor(x).shape:
        count *= int(d)
    return _rt.constant(count, dtype="int32")


def reshape(x: Any, newshape: Any) -> Any:
    """Keras 3's `keras.ops.reshape` (one axis may be -1).

    >>> import rustape as rt
    >>> rt.keras.ops.reshape(rt.zeros([2, 3]), (3, -1)).shape
    (3, 2)
    """
    return _rt.reshape(tensor(x), [newshape] if isinstance(newshape, int) else list(newshape))


def transpose(x: Any, axes: Sequence[int] | None = None) -> Any:
    """Keras 3's `keras.ops.transpose`: the axes reversed, or permuted by `axes`.

    >>> import rustape as rt
    >>> rt.keras.ops.transpose(rt.zeros([2, 3, 4])).shape
    (4, 3, 2)
    """
    t = tensor(x)
    perm = list(range(len(t.shape)))[::-1] if axes is None else [int(a) for a in axes]
    return _rt.transpose(t, perm)


def expand_dims(x: Any, axis: Any) -> Any:
    """Keras 3's `keras.ops.expand_dims`: new axes of length 1 at `axis` (an int or tuple).

    >>> import rustape as rt
    >>> rt.keras.ops.expand_dims(rt.zeros([2, 3]), (0, -1)).shape
    (1, 2, 3, 1)
    """
    t = tensor(x)
    if isinstance(axis, int):
        return _rt.expand_dims(t, axis)
    rank = len(t.shape) + len(axis)
    for a in sorted(normalize_axis(int(a), rank) for a in axis):
        t = _rt.expand_dims(t, a)
    return t


def squeeze(x: Any, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.squeeze`: axes of length 1 removed (those in `axis`, or all).

    >>> import rustape as rt
    >>> rt.keras.ops.squeeze(rt.zeros([1, 3, 1])).shape
    (3,)
    """
    t = tensor(x)
    return _rt.squeeze(t, axis=[axis] if isinstance(axis, int) else axes(axis))


def concatenate(xs: Sequence[Any], axis: int = 0) -> Any:
    """Keras 3's `keras.ops.concatenate`: the arrays joined along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.concatenate([rt.zeros([2, 3]), rt.ones([1, 3])]).shape
    (3, 3)
    """
    return _rt.concat(promoted(*xs), axis=axis)


def stack(x: Sequence[Any], axis: int = 0) -> Any:
    """Keras 3's `keras.ops.stack`: the arrays joined along a new axis `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.stack([rt.zeros([3]), rt.ones([3])], axis=1).shape
    (3, 2)
    """
    return _rt.stack(promoted(*x), axis=axis)


def unstack(x: Any, num: int | None = None, axis: int = 0) -> list[Any]:
    """Keras 3's `keras.ops.unstack`: the slices along `axis`, as a list.

    >>> import rustape as rt
    >>> [t.shape for t in rt.keras.ops.unstack(rt.zeros([2, 3]))]
    [(3,), (3,)]
    """
    return list(_rt.unstack(tensor(x), num=num, axis=axis))


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """Keras 3's `keras.ops.split`: `x` cut into equal sections (an int), or at the given
    indices along `axis`.

    >>> import rustape as rt
    >>> [t.shape for t in rt.keras.ops.split(rt.zeros([5, 2]), (1, 3))]
    [(1, 2), (2, 2), (2, 2)]
    """
    t = tensor(x)
    if isinstance(indices_or_sections, int):
        return list(_rt.split(t, indices_or_sections, axis=axis))
    length = int(t.shape[axis])
    points = [0, *(int(i) for i in indices_or_sections), length]
    return list(_rt.split(t, [b - a for a, b in zip(points, points[1:])], axis=axis))


def tile(x: Any, repeats: Any) -> Any:
    """Keras 3's `keras.ops.tile`: `x` repeated `repeats` times along each axis (leading
    axes added when `repeats` is longer than the rank, ones assumed when shorter).

    >>> import rustape as rt
    >>> rt.keras.ops.tile(rt.zeros([2, 3]), (2, 1)).shape
    (4, 3)
    """
    t = tensor(x)
    reps = [int(repeats)] if isinstance(repeats, int) else [int(r) for r in repeats]
    rank = len(t.shape)
    if len(reps) > rank:
        t = _rt.reshape(t, [1] * (len(reps) - rank) + list(t.shape))
    reps = [1] * (len(t.shape) - len(reps)) + reps
    return _rt.tile(t, reps)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Any:
    """Keras 3's `keras.ops.repeat`: each element repeated along `axis` (of the flattened
    array when `axis` is None).

    >>> import rustape as rt
    >>> rt.keras.ops.repeat([1, 2], 2).numpy()
    array([1, 1, 2, 2], dtype=int32)
    """
    t = tensor(x)
    return _rt.repeat(_flat(t) if axis is None else t, repeats, axis=0 if axis is None else axis)


def flip(x: Any, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.flip`: the order reversed along `axis` (every axis by default).

    >>> import rustape as rt
    >>> rt.keras.ops.flip([1, 2, 3]).numpy()
    array([3, 2, 1], dtype=int32)
    """
    t = tensor(x)
    if axis is None:
        axis = list(range(len(t.shape)))
    return _rt.reverse(t, [axis] if isinstance(axis, int) else list(axis))


def roll(x: Any, shift: Any, axis: Any = None) -> Any:
    """Keras 3's `keras.ops.roll`: elements shifted along `axis`, wrapping around (over the
    flattened array when `axis` is None).

    >>> import rustape as rt
    >>> rt.keras.ops.roll([1, 2, 3], 1).numpy()
    array([3, 1, 2], dtype=int32)
    """
    t = tensor(x)
    if axis is None:
        return _rt.reshape(_rt.roll(_flat(t), shift, axis=0), t.shape)
    return _rt.roll(t, shift, axis=axis)


def broadcast_to(x: Any, shape: Sequence[int]) -> Any:
    """Keras 3's `keras.ops.broadcast_to`.

    >>> import rustape as rt
    >>> rt.keras.ops.broadcast_to([1.0, 2.0], (3, 2)).shape
    (3, 2)
    """
    return _rt.broadcast_to(tensor(x), list(shape))


def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    """Keras 3's `keras.ops.swapaxes`: two axes exchanged.

    >>> import rustape as rt
    >>> rt.keras.ops.swapaxes(rt.zeros([2, 3, 4]), 0, 2).shape
    (4, 3, 2)
    """
    t = tensor(x)
    rank = len(t.shape)
    perm = list(range(rank))
    a, b = normalize_axis(axis1, rank), normalize_axis(axis2, rank)
    perm[a], perm[b] = perm[b], perm[a]
    return _rt.transpose(t, perm)


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """Keras 3's `keras.ops.moveaxis`: axes moved to new positions, the others in order.

    >>> import rustape as rt
    >>> rt.keras.ops.moveaxis(rt.zeros([2, 3, 4]), 0, -1).shape
    (3, 4, 2)
    """
    t = tensor(x)
    rank = len(t.shape)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [normalize_axis(a, rank) for a in src]
    dst = [normalize_axis(a, rank) for a in dst]
    rest = [a for a in range(rank) if a not in src]
    perm: list[int] = [-1] * rank
    for s, d in zip(src, dst):
        perm[d] = s
    fill = iter(rest)
    perm = [p if p >= 0 else next(fill) for p in perm]
    return _rt.transpose(t, perm)


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = None) -> Any:
    """Keras 3's `keras.ops.pad`: `pad_width` `((before, after), ...)` per axis (or one pair,
    or one int, for every axis); `mode` "constant", "reflect" or "symmetric".

    >>> import rustape as rt
    >>> rt.keras.ops.pad([1, 2], (1, 2), constant_values=9).numpy()
    array([9, 1, 2, 9, 9], dtype=int32)
    """
    t = tensor(x)
    rank = len(t.shape)
    if isinstance(pad_width, int):
        widths = [[pad_width, pad_width]] * rank
    else:
        items = [list(p) if isinstance(p, (list, tuple)) else [p, p] for p in pad_width]
        if len(items) == 2 and not isinstance(pad_width[0], (list, tuple)):
            items = [[int(pad_width[0]), int(pad_width[1])]]
        widths = items * rank if len(items) == 1 and rank > 1 else items
    mode = mode.lower()
    if mode != "constant" and constant_values is not None:
        raise ValueError(f"pad: constant_values is only for mode 'constant', got mode {mode!r}")
    value = 0 if constant_values is None else constant_values
    return _rt.pad(t, widths, mode=mode.upper(), constant_values=scalar(value, t.dtype))


def take(x: Any, indices: Any, axis: int | None = None) -> Any:
    """Keras 3's `keras.ops.take`: elements at `indices` along `axis` (of the flattened array
    when `axis` is None); negative indices count from the end.

    >>> import rustape as rt
    >>> rt.keras.ops.take([[1, 2], [3, 4]], [3, -4]).numpy()
    array([4, 1], dtype=int32)
    """
    t = tensor(x)
    if axis is None:
        t, axis = _flat(t), 0
    idx = tensor(indices)
    length = _rt.cast(int(t.shape[axis]), idx.dtype)
    idx = _rt.where(_rt.less(idx, _rt.cast(0, idx.dtype)), _rt.add(idx, length), idx)
    return _rt.gather(t, idx, axis=axis)


def take_along_axis(x: Any, indices: Any, axis: int | None = None) -> Any:
    """Keras 3's `keras.ops.take_along_axis`: for each position, the element of `x` at the
    index `indices` holds there along `axis` (the other axes broadcast).

    >>> import rustape as rt
    >>> rt.keras.ops.take_along_axis([[10, 20], [30, 40]], [[1], [0]], axis=1).numpy()
    array([[20],
           [30]], dtype=int32)
    """
    t, idx = tensor(x), _rt.cast(tensor(indices), "int32")
    if axis is None:
        t, idx, axis = _flat(t), _flat(idx), 0
    rank = len(t.shape)
    axis = normalize_axis(axis, rank)
    t_last, idx_last = moveaxis(t, axis, -1), moveaxis(idx, axis, -1)
    lead = [
        int(a) if int(a) != 1 else int(b) for a, b in zip(t_last.shape[:-1], idx_last.shape[:-1])
    ]
    t_last = _rt.broadcast_to(t_last, [*lead, int(t_last.shape[-1])])
    idx_last = _rt.broadcast_to(idx_last, [*lead, int(idx_last.shape[-1])])
    n, k = int(t_last.shape[-1]), int(idx_last.shape[-1])
    rows = 1
    for d in lead:
        rows *= d
    idx_last = _rt.where(_rt.less(idx_last, 0), _rt.add(idx_last, n), idx_last)
    offsets = _rt.reshape(_rt.multiply(_rt.range(rows, dtype="int32"), n), [rows, 1])
    flat = _rt.gather(_flat(t_last), _rt.add(_rt.reshape(idx_last, [rows, k]), offsets))
    return moveaxis(_rt.reshape(flat, [*lead, k]), -1, axis)


# -- products ----------------------------------------------------------------------------------


def matmul(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.matmul`, as NumPy's: batched over leading axes; a vector
    argument is a row (first) or a column (second) whose axis is then dropped.

    >>> import rustape as rt
    >>> rt.keras.ops.matmul(rt.ones([2, 3]), [1.0, 2.0, 3.0]).numpy()
    array([6., 6.], dtype=float32)
    """
    a, b = promoted(x1, x2)
    if len(a.shape) == 1 and len(b.shape) == 1:
        return _rt.reduce_sum(_rt.multiply(a, b))
    if len(a.shape) == 1:
        return _rt.squeeze(_rt.matmul(_rt.expand_dims(a, 0), b), axis=[-2])
    if len(b.shape) == 1:
        return _rt.squeeze(_rt.matmul(a, _rt.expand_dims(b, -1)), axis=[-1])
    return _rt.matmul(a, b)


def dot(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.dot`, as NumPy's: scalars multiply, vectors give their inner
    product, otherwise a sum over the last axis of `x1` and the second-to-last of `x2`.

    >>> import rustape as rt
    >>> rt.keras.ops.dot([1.0, 2.0], [3.0, 4.0]).numpy()
    np.float32(11.0)
    """
    a, b = promoted(x1, x2)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return _rt.multiply(a, b)
    if len(b.shape) == 1 or len(a.shape) == 1:
        return matmul(a, b)
    return _rt.tensordot(a, b, [[len(a.shape) - 1], [len(b.shape) - 2]])


def outer(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.outer`: every product of an element of `x1` with one of `x2`
    (both flattened).

    >>> import rustape as rt
    >>> rt.keras.ops.outer([1.0, 2.0], [3.0, 4.0]).numpy()
    array([[3., 4.],
           [6., 8.]], dtype=float32)
    """
    a, b = promoted(x1, x2)
    return _rt.multiply(_rt.reshape(a, [-1, 1]), _rt.reshape(b, [1, -1]))


def inner(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.inner`: the sum over the last axes of both.

    >>> import rustape as rt
    >>> rt.keras.ops.inner([1.0, 2.0], [3.0, 4.0]).numpy()
    np.float32(11.0)
    """
    a, b = promoted(x1, x2)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return _rt.multiply(a, b)
    return _rt.tensordot(a, b, [[len(a.shape) - 1], [len(b.shape) - 1]])


def tensordot(x1: Any, x2: Any, axes: Any = 2) -> Any:
    """Keras 3's `keras.ops.tensordot`: the sum over `axes` (a count of trailing/leading
    axes, or a pair of axis lists).

    >>> import rustape as rt
    >>> rt.keras.ops.tensordot(rt.ones([2, 3]), rt.ones([3, 4]), axes=1).shape
    (2, 4)
    """
    a, b = promoted(x1, x2)
    if not isinstance(axes, int):
        axes = [
            list(axes[0]) if not isinstance(axes[0], int) else [axes[0]],
            list(axes[1]) if not isinstance(axes[1], int) else [axes[1]],
        ]
    return _rt.tensordot(a, b, axes)


def einsum(subscripts: str, *operands: Any) -> Any:
    """Keras 3's `keras.ops.einsum`.

    >>> import rustape as rt
    >>> rt.keras.ops.einsum("ij,jk->ik", rt.ones([2, 3]), rt.ones([3, 4])).shape
    (2, 4)
    """
    return _rt.einsum(subscripts, *promoted(*operands))


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Keras 3's `keras.ops.trace`: the sum of the diagonal of the `axis1`, `axis2` planes.

    >>> import rustape as rt
    >>> rt.keras.ops.trace(rt.eye(3)).numpy()
    np.float32(3.0)
    """
    return _rt.reduce_sum(diagonal(x, offset, axis1, axis2), axis=-1)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Keras 3's `keras.ops.diagonal`: the diagonal (above it with a positive `offset`) of
    the planes of `axis1` and `axis2`, as a last axis.

    >>> import rustape as rt
    >>> rt.keras.ops.diagonal([[1, 2], [3, 4]]).numpy()
    array([1, 4], dtype=int32)
    """
    t = tensor(x)
    rank = len(t.shape)
    a, b = normalize_axis(axis1, rank), normalize_axis(axis2, rank)
    rest = [i for i in range(rank) if i not in (a, b)]
    return _linalg.diag_part(_rt.transpose(t, [*rest, a, b]), k=offset)


def diag(x: Any, k: int = 0) -> Any:
    """Keras 3's `keras.ops.diag`: a vector's diagonal matrix, or a matrix's diagonal.

    >>> import rustape as rt
    >>> rt.keras.ops.diag([1, 2]).numpy()
    array([[1, 0],
           [0, 2]], dtype=int32)
    """
    t = tensor(x)
    if len(t.shape) == 1:
        return _linalg.diag(t, k=k)
    if len(t.shape) == 2:
        return _linalg.diag_part(t, k=k)
    raise ValueError(f"diag: expected a vector or a matrix, got shape {list(t.shape)}")


def _band(x: Any, k: int, lower: bool) -> Any:
    t = tensor(x)
    n, m = int(t.shape[-2]), int(t.shape[-1])
    mask = _rt.cast(tri(n, m, k=k if lower else k - 1, dtype="int32"), "bool")
    if not lower:
        mask = _rt.logical_not(mask)
    return _rt.where(mask, t, _rt.zeros_like(t))


def tril(x: Any, k: int = 0) -> Any:
    """Keras 3's `keras.ops.tril`: the elements on and below the `k`-th diagonal, zeros
    above.

    >>> import rustape as rt
    >>> rt.keras.ops.tril(rt.ones([2, 2])).numpy()
    array([[1., 0.],
           [1., 1.]], dtype=float32)
    """
    return _band(x, k, lower=True)


def triu(x: Any, k: int = 0) -> Any:
    """Keras 3's `keras.ops.triu`: the elements on and above the `k`-th diagonal, zeros
    below.

    >>> import rustape as rt
    >>> rt.keras.ops.triu(rt.ones([2, 2])).numpy()
    array([[1., 1.],
           [0., 1.]], dtype=float32)
    """
    return _band(x, k, lower=False)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.tri`: ones on and below the `k`-th diagonal of an `N` x `M`
    matrix (float32 by default).

    >>> import rustape as rt
    >>> rt.keras.ops.tri(2).numpy()
    array([[1., 0.],
           [1., 1.]], dtype=float32)
    """
    m = N if M is None else M
    rows = _rt.reshape(_rt.range(N, dtype="int32"), [N, 1])
    cols = _rt.reshape(_rt.range(m, dtype="int32"), [1, m])
    return _rt.cast(_rt.less_equal(cols, _rt.add(rows, k)), dtype or "float32")


def sort(x: Any, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.sort`: ascending along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.sort([3.0, 1.0, 2.0]).numpy()
    array([1., 2., 3.], dtype=float32)
    """
    return _rt.sort(tensor(x), axis=axis)


def argsort(x: Any, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.argsort`: the indices (int32) that sort `x` along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.argsort([3.0, 1.0, 2.0]).numpy()
    array([1, 2, 0], dtype=int32)
    """
    return _rt.cast(_rt.argsort(tensor(x), axis=axis, stable=True), "int32")
