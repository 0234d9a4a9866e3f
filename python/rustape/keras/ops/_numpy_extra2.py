"""Keras 3's NumPy-style `keras.ops` that build, join, cut and rearrange arrays (append,
hstack, array_split, diff, rot90, kron, trapezoid, windows, ...): thin compositions of
rustape's differentiable ops with Keras's dtype rules."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from ._arrays import diag, flip, split
from ._core import normalize_axis, promoted, result_type, tensor
from ._nn import linspace


def append(x1: Any, x2: Any, axis: int | None = None) -> Any:
    """Keras 3's `keras.ops.append(x1, x2, axis=None)`: `x2` joined after `x1` along
    `axis` (both flattened when `axis` is None), in their promoted dtype.

    >>> import rustape as rt
    >>> rt.keras.ops.append([1, 2], [[3, 4]]).numpy()
    array([1, 2, 3, 4], dtype=int32)
    """
    a, b = promoted(x1, x2)
    if axis is None:
        return _rt.concat([_rt.reshape(a, [-1]), _rt.reshape(b, [-1])], 0)
    return _rt.concat([a, b], axis)


def array(x: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.array(x, dtype=None)`: `x` as a tensor (of `dtype` if given).

    >>> import rustape as rt
    >>> rt.keras.ops.array([1, 2], dtype="float32").numpy()
    array([1., 2.], dtype=float32)
    """
    return tensor(x, None if dtype is None else _rt.as_dtype(dtype).name)


def empty(shape: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.empty(shape, dtype=None)`: a tensor of `shape` (float32 by
    default); its values are zeros, as on Keras's TensorFlow backend.

    >>> import rustape as rt
    >>> rt.keras.ops.empty((2,)).numpy()
    array([0., 0.], dtype=float32)
    """
    dims = [int(shape)] if isinstance(shape, int) else [int(d) for d in shape]
    return _rt.zeros(dims, dtype=dtype or "float32")


def empty_like(x: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.empty_like(x, dtype=None)`: a tensor shaped like `x` (zeros).

    >>> import rustape as rt
    >>> rt.keras.ops.empty_like([1, 2]).numpy()
    array([0, 0], dtype=int32)
    """
    t = tensor(x)
    return _rt.zeros(list(t.shape), dtype=dtype or t.dtype)


def _joined(xs: Sequence[Any]) -> list[Any]:
    return promoted(*xs) if len(xs) > 1 else [tensor(xs[0])]


def hstack(xs: Sequence[Any]) -> Any:
    """Keras 3's `keras.ops.hstack(xs)`: joined along axis 1 (axis 0 for vectors).

    >>> import rustape as rt
    >>> rt.keras.ops.hstack([[1, 2], [3]]).numpy()
    array([1, 2, 3], dtype=int32)
    """
    ts = _joined(xs)
    return _rt.concat(ts, 0 if len(ts[0].shape) == 1 else 1)


def vstack(xs: Sequence[Any]) -> Any:
    """Keras 3's `keras.ops.vstack(xs)`: joined along axis 0.

    >>> import rustape as rt
    >>> rt.keras.ops.vstack([[[1, 2]], [[3, 4]]]).numpy()
    array([[1, 2],
           [3, 4]], dtype=int32)
    """
    return _rt.concat(_joined(xs), 0)


def dstack(xs: Sequence[Any]) -> Any:
    """Keras 3's `keras.ops.dstack(xs)`: joined along axis 2 (scalars, vectors and
    matrices first made `(1, 1, 1)`, `(1, n, 1)` and `(m, n, 1)`).

    >>> import rustape as rt
    >>> rt.keras.ops.dstack([[1, 2], [3, 4]]).numpy()
    array([[[1, 3],
            [2, 4]]], dtype=int32)
    """
    out = []
    for t in _joined(xs):
        dims = list(t.shape)
        if len(dims) == 0:
            t = _rt.reshape(t, [1, 1, 1])
        elif len(dims) == 1:
            t = _rt.reshape(t, [1, dims[0], 1])
        elif len(dims) == 2:
            t = _rt.reshape(t, [*dims, 1])
        out.append(t)
    return _rt.concat(out, 2)


def hsplit(x: Any, indices_or_sections: Any) -> list[Any]:
    """Keras 3's `keras.ops.hsplit`: `split` along axis 1 (axis 0 for vectors).

    >>> import rustape as rt
    >>> [t.shape for t in rt.keras.ops.hsplit(rt.zeros([2, 4]), 2)]
    [(2, 2), (2, 2)]
    """
    t = tensor(x)
    return split(t, indices_or_sections, axis=0 if len(t.shape) == 1 else 1)


def vsplit(x: Any, indices_or_sections: Any) -> list[Any]:
    """Keras 3's `keras.ops.vsplit`: `split` along axis 0.

    >>> import rustape as rt
    >>> [t.shape for t in rt.keras.ops.vsplit(rt.zeros([4, 2]), [1])]
    [(1, 2), (3, 2)]
    """
    return split(x, indices_or_sections, axis=0)


def dsplit(x: Any, indices_or_sections: Any) -> list[Any]:
    """Keras 3's `keras.ops.dsplit`: `split` along axis 2.

    >>> import rustape as rt
    >>> [t.shape for t in rt.keras.ops.dsplit(rt.zeros([1, 2, 4]), 2)]
    [(1, 2, 2), (1, 2, 2)]
    """
    return split(x, indices_or_sections, axis=2)


def array_split(x: Any, indices_or_sections: int, axis: int = 0) -> list[Any]:
    """Keras 3's `keras.ops.array_split`: `x` cut into `indices_or_sections` parts along
    `axis` that need not be equal (the first ones one longer).

    >>> import rustape as rt
    >>> [t.numpy().tolist() for t in rt.keras.ops.array_split([1, 2, 3, 4, 5], 3)]
    [[1, 2], [3, 4], [5]]
    """
    t = tensor(x)
    if not isinstance(indices_or_sections, int) or indices_or_sections <= 0:
        raise ValueError(
            f"array_split: indices_or_sections must be a positive int, got {indices_or_sections!r}"
        )
    total = int(t.shape[normalize_axis(axis, len(t.shape))])
    base, extra = divmod(total, indices_or_sections)
    sizes = [base + 1] * extra + [base] * (indices_or_sections - extra)
    return list(_rt.split(t, sizes, axis=axis))


def diagflat(x: Any, k: int = 0) -> Any:
    """Keras 3's `keras.ops.diagflat(x, k=0)`: the flattened `x` as the `k`-th diagonal of
    a square matrix.

    >>> import rustape as rt
    >>> rt.keras.ops.diagflat([[1, 2]]).numpy()
    array([[1, 0],
           [0, 2]], dtype=int32)
    """
    return diag(_rt.reshape(tensor(x), [-1]), k=k)


def _take(t: Any, axis: int, start: int | None, stop: int | None) -> Any:
    index = [slice(None)] * len(t.shape)
    index[axis] = slice(start, stop)
    return t[tuple(index)]


def diff(a: Any, n: int = 1, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.diff(a, n=1, axis=-1)`: the `n`-th discrete difference along
    `axis` (bools: whether neighbours differ).

    >>> import rustape as rt
    >>> rt.keras.ops.diff([1, 4, 9, 16], n=2).numpy()
    array([2, 2], dtype=int32)
    """
    t = tensor(a)
    if n < 0:
        raise ValueError(f"diff: the order n must be non-negative, got n={n}")
    if n == 0:
        return t
    if len(t.shape) == 0:
        raise ValueError("diff: the input must be at least one-dimensional, got a scalar")
    axis = normalize_axis(axis, len(t.shape))
    for _ in range(n):
        later, earlier = _take(t, axis, 1, None), _take(t, axis, None, -1)
        if t.dtype.name == "bool":
            t = _rt.not_equal(later, earlier)
        else:
            t = _rt.subtract(later, earlier)
    return t


def fliplr(x: Any) -> Any:
    """Keras 3's `keras.ops.fliplr(x)`: the order reversed along axis 1.

    >>> import rustape as rt
    >>> rt.keras.ops.fliplr([[1, 2], [3, 4]]).numpy()
    array([[2, 1],
           [4, 3]], dtype=int32)
    """
    t = tensor(x)
    if len(t.shape) < 2:
        raise ValueError(f"fliplr: the input must be at least 2-D, got shape {list(t.shape)}")
    return flip(t, axis=1)


def flipud(x: Any) -> Any:
    """Keras 3's `keras.ops.flipud(x)`: the order reversed along axis 0.

    >>> import rustape as rt
    >>> rt.keras.ops.flipud([[1, 2], [3, 4]]).numpy()
    array([[3, 4],
           [1, 2]], dtype=int32)
    """
    t = tensor(x)
    if len(t.shape) < 1:
        raise ValueError("flipud: the input must be at least 1-D, got a scalar")
    return flip(t, axis=0)


def rot90(array: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """Keras 3's `keras.ops.rot90(array, k=1, axes=(0, 1))`: rotated by 90 degrees `k`
    times in the plane of `axes` (from the first axis towards the second).

    >>> import rustape as rt
    >>> rt.keras.ops.rot90([[1, 2], [3, 4]]).numpy()
    array([[2, 4],
           [1, 3]], dtype=int32)
    """
    t = tensor(array)
    rank = len(t.shape)
    if rank < 2:
        raise ValueError(f"rot90: the input must be at least 2-D, got shape {list(t.shape)}")
    if len(axes) != 2:
        raise ValueError(f"rot90: axes must be two different axes, got {axes}")
    first, second = normalize_axis(axes[0], rank), normalize_axis(axes[1], rank)
    if first == second:
        raise ValueError(f"rot90: axes must be two different axes, got {axes}")
    k %= 4
    if k == 0:
        return t
    if k == 2:
        return _rt.reverse(t, [first, second])
    perm = list(range(rank))
    perm[first], perm[second] = perm[second], perm[first]
    if k == 1:
        return _rt.transpose(flip(t, axis=second), perm)
    return flip(_rt.transpose(t, perm), axis=second)


def kron(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.kron(x1, x2)`: the Kronecker product (block `i, j` is
    `x1[i, j] * x2`).

    >>> import rustape as rt
    >>> rt.keras.ops.kron([1, 10], [1, 2]).numpy()
    array([ 1,  2, 10, 20], dtype=int32)
    """
    a, b = promoted(x1, x2)
    ra, rb = len(a.shape), len(b.shape)
    rank = max(rb, ra)
    da = [1] * (rank - ra) + list(a.shape)
    db = [1] * (rank - rb) + list(b.shape)
    # Interleave the axes: a's as (n, 1), b's as (1, m), so the product's (n, m) flatten to n*m.
    ia = [d for n in da for d in (n, 1)]
    ib = [d for m in db for d in (1, m)]
    out = _rt.multiply(_rt.reshape(a, ia), _rt.reshape(b, ib))
    return _rt.reshape(out, [n * m for n, m in zip(da, db)])


def vdot(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.vdot(x1, x2)`: the dot product of the flattened arguments (the
    first conjugated when complex).

    >>> import rustape as rt
    >>> rt.keras.ops.vdot([[1, 2], [3, 4]], [1, 1, 1, 1]).numpy()
    np.int32(10)
    """
    a, b = promoted(x1, x2)
    if a.dtype.is_complex:
        a = _rt.conj(a)
    return _rt.reduce_sum(_rt.multiply(_rt.reshape(a, [-1]), _rt.reshape(b, [-1])))


def ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.ptp(x, axis=None, keepdims=False)`: the range (max - min)
    over `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.ptp([[1, 5], [3, -2]], axis=1).numpy()
    array([4, 5], dtype=int32)
    """
    t = tensor(x)
    ax = axis if axis is None or isinstance(axis, int) else [int(a) for a in axis]
    high = _rt.reduce_max(t, axis=ax, keepdims=keepdims)
    return _rt.subtract(high, _rt.reduce_min(t, axis=ax, keepdims=keepdims))


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.trapezoid(y, x=None, dx=1.0, axis=-1)`: the integral of `y`
    along `axis` by the trapezoidal rule, at points `x` (or spaced `dx`).

    >>> import rustape as rt
    >>> rt.keras.ops.trapezoid([1.0, 2.0, 3.0]).numpy()
    np.float32(4.0)
    """
    dtype = result_type(y, 1.0)
    t = tensor(y, dtype)
    rank = len(t.shape)
    axis = normalize_axis(axis, rank)
    heights = _rt.multiply(
        _rt.add(_take(t, axis, 1, None), _take(t, axis, None, -1)),
        _rt.constant(0.5, dtype=dtype),
    )
    if x is None:
        widths = _rt.constant(float(dx), dtype=dtype)
    else:
        points = tensor(x, dtype)
        widths = diff(points, axis=axis if len(points.shape) == rank else -1)
        if len(points.shape) == 1 and rank > 1:
            widths = _rt.reshape(widths, [-1 if i == axis else 1 for i in range(rank)])
    return _rt.reduce_sum(_rt.multiply(heights, widths), axis=axis)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """Keras 3's `keras.ops.vander(x, N=None, increasing=False)`: the Vandermonde matrix,
    columns the powers of `x` (decreasing unless `increasing`), in `x`'s dtype.

    >>> import rustape as rt
    >>> rt.keras.ops.vander([1, 2, 3], 3).numpy()
    array([[1, 1, 1],
           [4, 2, 1],
           [9, 3, 1]], dtype=int32)
    """
    t = tensor(x)
    if len(t.shape) != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {list(t.shape)}")
    count = int(t.shape[0]) if N is None else int(N)
    if count < 0:
        raise ValueError(f"vander: N must be non-negative, got {N}")
    powers = range(count) if increasing else range(count - 1, -1, -1)
    columns = [_rt.ones_like(t) if p == 0 else t for p in powers]
    out = []
    for p, base in zip(powers, columns):
        value = base
        for _ in range(p - 1):
            value = _rt.multiply(value, t)
        out.append(value)
    if not out:
        return _rt.zeros([int(t.shape[0]), 0], dtype=t.dtype)
    return _rt.stack(out, axis=1)


def isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    """Keras 3's `keras.ops.isin(x1, x2, assume_unique=False, invert=False)`: whether each
    element of `x1` occurs in `x2` (negated with `invert`), shaped like `x1`.

    >>> import rustape as rt
    >>> rt.keras.ops.isin([1, 2, 3], [3, 1]).numpy()
    array([ True, False,  True])
    """
    a, b = promoted(x1, x2)
    shape = list(a.shape)
    flat_a, flat_b = _rt.reshape(a, [-1, 1]), _rt.reshape(b, [1, -1])
    if int(flat_a.shape[0]) == 0 or int(flat_b.shape[1]) == 0:
        found = _rt.cast(_rt.zeros(shape, dtype="int32"), "bool")
    else:
        found = _rt.reshape(_rt.reduce_any(_rt.equal(flat_a, flat_b), axis=1), shape)
    return _rt.logical_not(found) if invert else found


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: float = 10,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """Keras 3's `keras.ops.logspace`: `base ** linspace(start, stop, num)`.

    >>> import rustape as rt
    >>> rt.keras.ops.logspace(0.0, 2.0, 3).numpy()
    array([  1.,  10., 100.], dtype=float32)
    """
    exponents = linspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis)
    return _rt.pow(_rt.constant(float(base), dtype=exponents.dtype), exponents)


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> Any:
    """Keras 3's `keras.ops.geomspace`: `num` numbers from `start` to `stop` spaced evenly
    on a log scale (a geometric progression; the sign is `start`'s).

    >>> import rustape as rt
    >>> rt.keras.ops.geomspace(1.0, 1000.0, 4).numpy().round(3)
    array([   1.,   10.,  100., 1000.], dtype=float32)
    """
    kind = dtype or "float32"
    first, last = float(start), float(stop)
    if first == 0.0 or last == 0.0:
        raise ValueError("geomspace: start and stop must be non-zero")
    values = logspace(math.log10(abs(first)), math.log10(abs(last)), num, endpoint, 10, kind, axis)
    return _rt.multiply(values, _rt.constant(math.copysign(1.0, first), dtype=values.dtype))


def nonzero(x: Any) -> tuple[Any, ...]:
    """Keras 3's `keras.ops.nonzero(x)`: the indices of the non-zero elements, one int32
    tensor per axis.

    >>> import rustape as rt
    >>> rt.keras.ops.nonzero([[0, 3], [5, 0]])[1].numpy()
    array([1, 0], dtype=int32)
    """
    t = tensor(x)
    mask = _rt.cast(t, "bool")
    coordinates = _rt.cast(_rt.where(mask), "int32")
    return tuple(_rt.unstack(coordinates, num=len(t.shape), axis=1))


def _window(n: int, name: str) -> tuple[Any, float]:
    """`arange(n)` in float32 and `n - 1` (1 when `n` is 1), or an error for a bad `n`."""
    if int(n) != n or n < 0:
        raise ValueError(f"{name}: the window length must be a non-negative int, got {n!r}")
    return _rt.range(0, int(n), 1, dtype="float32"), float(max(int(n) - 1, 1))


def _cosine_window(n: int, name: str, terms: Sequence[float]) -> Any:
    """`sum_k terms[k] * cos(2 pi k i / (n - 1))` over `i < n` (1 for a one-point window)."""
    points, span = _window(n, name)
    out = _rt.constant(terms[0], dtype="float32") * _rt.ones_like(points)
    for k, weight in enumerate(terms[1:], start=1):
        angle = _rt.multiply(points, _rt.constant(2.0 * math.pi * k / span, dtype="float32"))
        out = _rt.add(out, _rt.multiply(_rt.cos(angle), _rt.constant(weight, dtype="float32")))
    return _rt.ones_like(points) if int(n) == 1 else out


def hamming(x: int) -> Any:
    """Keras 3's `keras.ops.hamming(x)`: the symmetric Hamming window of `x` points.

    >>> import rustape as rt
    >>> rt.keras.ops.hamming(3).numpy().round(4)
    array([0.08, 1.  , 0.08], dtype=float32)
    """
    return _cosine_window(x, "hamming", (0.54, -0.46))


def hanning(x: int) -> Any:
    """Keras 3's `keras.ops.hanning(x)`: the symmetric Hann window of `x` points.

    >>> import rustape as rt
    >>> rt.keras.ops.hanning(3).numpy().round(4)
    array([0., 1., 0.], dtype=float32)
    """
    return _cosine_window(x, "hanning", (0.5, -0.5))


def blackman(x: int) -> Any:
    """Keras 3's `keras.ops.blackman(x)`: the symmetric Blackman window of `x` points.

    >>> import rustape as rt
    >>> rt.keras.ops.blackman(3).numpy().round(4)
    array([-0.,  1., -0.], dtype=float32)
    """
    return _cosine_window(x, "blackman", (0.42, -0.5, 0.08))


def bartlett(x: int) -> Any:
    """Keras 3's `keras.ops.bartlett(x)`: the triangular (Bartlett) window of `x` points.

    >>> import rustape as rt
    >>> rt.keras.ops.bartlett(5).numpy()
    array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    points, span = _window(x, "bartlett")
    if int(x) == 1:
        return _rt.ones_like(points)
    rising = _rt.multiply(points, _rt.constant(2.0 / span, dtype="float32"))
    falling = _rt.subtract(_rt.constant(2.0, dtype="float32"), rising)
    return _rt.where(
        _rt.less_equal(points, _rt.constant(span / 2, dtype="float32")), rising, falling
    )


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """Keras 3's `keras.ops.select(condlist, choicelist, default=0)`: at each position, the
    element of the first choice whose condition holds, else `default`.

    >>> import rustape as rt
    >>> x = rt.constant([-2.0, 0.5, 3.0])
    >>> rt.keras.ops.select([x < 0, x > 1], [-x, x * 10], 7.0).numpy()
    array([ 2.,  7., 30.], dtype=float32)
    """
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"select: condlist and choicelist must have the same length, "
            f"got {len(condlist)} and {len(choicelist)}"
        )
    if not condlist:
        raise ValueError("select: condlist must not be empty")
    values = promoted(*choicelist, default)
    out = values[-1]
    for cond, choice in zip(reversed(condlist), reversed(values[:-1])):
        mask = _rt.cast(tensor(cond), "bool")
        # Zeros of the broadcast shape, so `where` sees three arrays of one shape.
        zeros = _rt.add(_rt.zeros_like(choice), _rt.zeros_like(out))
        zeros = _rt.add(zeros, _rt.cast(_rt.zeros_like(mask), choice.dtype))
        out = _rt.where(mask, _rt.add(choice, zeros), _rt.add(out, zeros))
    return out
