"""Keras 3's order statistics and NaN-ignoring reductions (`quantile`, `percentile`,
`median`, `nansum`, `nanmean`, `nanquantile`, ...) over rustape's differentiable ops (sort,
gather, where), with Keras's axes, dtypes and methods."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _rustape as _rt
from ... import math as _math
from ._arrays import argmax, argmin, cumprod, cumsum, prod
from ._core import normalize_axis, result_type, tensor
from ._math import nan_to_num

_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _axes_list(axis: Any, rank: int) -> list[int]:
    if axis is None:
        return list(range(rank))
    items = [axis] if isinstance(axis, int) else list(axis)
    return sorted({normalize_axis(int(a), rank) for a in items})


def _ceil(x: Any) -> Any:
    return _rt.negative(_rt.floor(_rt.negative(x)))


def _quantiles(
    x: Any, q: np.ndarray, axis: Any, method: str, keepdims: bool, skip_nan: bool, name: str
) -> Any:
    """The `q` quantiles of `x` over `axis` (NaN rows give NaN, or, with `skip_nan`, the
    NaNs are left out), shaped `q.shape + kept axes`."""
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {_METHODS}, got {method!r}")
    if np.any(q < 0) or np.any(q > 1) or np.any(np.isnan(q)):
        raise ValueError(f"{name}: quantiles must be within [0, 1], got {q.tolist()}")
    t = tensor(x)
    t = tensor(t, result_type(t, 1.0))
    rank = len(t.shape)
    dims = list(t.shape)
    reduced = _axes_list(axis, rank)
    kept = [i for i in range(rank) if i not in reduced]
    rows = math.prod(dims[i] for i in kept)
    width = math.prod(dims[i] for i in reduced)
    if width == 0:
        raise ValueError(f"{name}: cannot take a quantile over an empty axis (shape {dims})")
    y = _rt.reshape(_rt.transpose(t, kept + reduced) if rank else t, [rows, width])
    missing = _math.is_nan(y)
    if skip_nan:
        y = _rt.where(missing, _rt.constant(float("inf"), dtype=y.dtype), y)
        count = _rt.reduce_sum(_rt.cast(_rt.logical_not(missing), "float64"), axis=1)
    else:
        count = _rt.fill([rows], float(width))
        count = _rt.cast(count, "float64")
    ordered = _rt.sort(y, axis=-1)
    last = _rt.subtract(count, _rt.constant(1.0, dtype="float64"))
    one = _rt.constant(1.0, dtype=y.dtype)

    def pick(index: Any) -> Any:
        index = _rt.minimum(_rt.maximum(index, _rt.constant(0.0, dtype="float64")), last)
        index = _rt.maximum(index, _rt.constant(0.0, dtype="float64"))
        gathered = _rt.gather(
            ordered, _rt.reshape(_rt.cast(index, "int32"), [rows, 1]), axis=1, batch_dims=1
        )
        return _rt.reshape(gathered, [rows])

    results = []
    for level in q.reshape(-1):
        exact = _rt.multiply(last, _rt.constant(float(level), dtype="float64"))
        if method == "lower":
            value = pick(_rt.floor(exact))
        elif method == "higher":
            value = pick(_ceil(exact))
        elif method == "nearest":
            value = pick(_rt.round(exact))
        elif method == "midpoint":
            value = _rt.multiply(
                _rt.add(pick(_rt.floor(exact)), pick(_ceil(exact))),
                _rt.constant(0.5, dtype=y.dtype),
            )
        else:
            # Keras's "preserve gradients" pair: the two neighbours always differ by one.
            zero = _rt.constant(0.0, dtype="float64")
            larger = _rt.minimum(_rt.maximum(_ceil(exact), zero), _rt.maximum(last, zero))
            smaller = _rt.maximum(_rt.subtract(larger, _rt.constant(1.0, dtype="float64")), zero)
            larger = _rt.minimum(_rt.add(smaller, _rt.constant(1.0, dtype="float64")), last)
            fraction = _rt.cast(_rt.subtract(larger, exact), y.dtype)
            value = _rt.add(
                _rt.multiply(pick(larger), _rt.subtract(one, fraction)),
                _rt.multiply(pick(smaller), fraction),
            )
        results.append(value)
    out = _rt.stack(results, axis=0)
    nan = _rt.constant(float("nan"), dtype=y.dtype)
    if skip_nan:
        empty = _rt.reshape(_rt.equal(count, _rt.constant(0.0, dtype="float64")), [1, rows])
        out = _rt.where(_rt.logical_or(empty, _rt.cast(_rt.zeros_like(out), "bool")), nan, out)
    elif y.dtype.is_floating:
        poisoned = _rt.reshape(_rt.reduce_any(missing, axis=1), [1, rows])
        out = _rt.where(_rt.logical_or(poisoned, _rt.cast(_rt.zeros_like(out), "bool")), nan, out)
    core = (
        [1 if i in reduced else dims[i] for i in range(rank)]
        if keepdims
        else [dims[i] for i in kept]
    )
    return _rt.reshape(out, list(q.shape) + core)


def _levels(q: Any, scale: float = 1.0, narrow: bool = False) -> np.ndarray:
    """The quantile levels as float64, rounded as Keras rounds them: Python numbers (and,
    with `narrow`, every `q`) become float32 first, percentages are divided in float32."""
    values = np.asarray(q.numpy() if hasattr(q, "numpy") else q)
    if narrow or scale != 1.0 or isinstance(q, (int, float, list, tuple)):
        values = values.astype(np.float32)
    if scale != 1.0:
        values = values / np.float32(scale)
    return values.astype(np.float64)


def quantile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """Keras 3's `keras.ops.quantile(x, q, axis=None, method="linear", keepdims=False)`:
    the `q`-th quantiles (in [0, 1]) over `axis`, `q`'s axes first; `method` is one of
    linear, lower, higher, nearest, midpoint. A NaN makes its row's result NaN.

    >>> import rustape as rt
    >>> rt.keras.ops.quantile([[1.0, 2.0, 3.0, 4.0]], [0.25, 0.5], axis=1).numpy()
    array([[1.75],
           [2.5 ]], dtype=float32)
    """
    return _quantiles(x, _levels(q), axis, method, keepdims, False, "quantile")


def percentile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """Keras 3's `keras.ops.percentile`: `quantile` with `q` in percent (0 to 100).

    >>> import rustape as rt
    >>> rt.keras.ops.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 25).numpy()
    np.float32(2.0)
    """
    return _quantiles(x, _levels(q, 100.0), axis, method, keepdims, False, "percentile")


def median(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.median(x, axis=None, keepdims=False)`: the middle value (the
    mean of the two middle values for an even count) over `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.median([[1, 7, 3, 4]], axis=1).numpy()
    array([3.5], dtype=float32)
    """
    return _quantiles(x, np.asarray(0.5), axis, "linear", keepdims, False, "median")


def nanquantile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """Keras 3's `keras.ops.nanquantile`: `quantile` leaving NaNs out (NaN where a row has
    no number).

    >>> import rustape as rt
    >>> rt.keras.ops.nanquantile([1.0, float("nan"), 3.0], 0.5).numpy()
    np.float32(2.0)
    """
    return _quantiles(x, _levels(q, narrow=True), axis, method, keepdims, True, "nanquantile")


def nanpercentile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """Keras 3's `keras.ops.nanpercentile`: `percentile` leaving NaNs out.

    >>> import rustape as rt
    >>> rt.keras.ops.nanpercentile([1.0, float("nan"), 3.0], 100).numpy()
    np.float32(3.0)
    """
    return _quantiles(
        x, _levels(q, 100.0, narrow=True), axis, method, keepdims, True, "nanpercentile"
    )


def nanmedian(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanmedian`: `median` leaving NaNs out.

    >>> import rustape as rt
    >>> rt.keras.ops.nanmedian([[1.0, float("nan"), 4.0]], axis=1).numpy()
    array([2.5], dtype=float32)
    """
    return _quantiles(x, np.asarray(0.5), axis, "linear", keepdims, True, "nanmedian")


def _ax(axis: Any) -> Any:
    return axis if axis is None or isinstance(axis, int) else [int(a) for a in axis]


def _nan_mask(t: Any) -> Any:
    return _math.is_nan(t) if t.dtype.is_floating else _rt.cast(_rt.zeros_like(t), "bool")


def _nan_as(t: Any, value: float) -> Any:
    if not t.dtype.is_floating:
        return t
    return _rt.where(_math.is_nan(t), _rt.constant(value, dtype=t.dtype), t)


def nansum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nansum`: the sum over `axis` with NaNs counted as zero (bools
    sum as int32).

    >>> import rustape as rt
    >>> rt.keras.ops.nansum([1.0, float("nan"), 2.0]).numpy()
    np.float32(3.0)
    """
    t = _nan_as(tensor(x), 0.0)
    if t.dtype.name == "bool":
        t = _rt.cast(t, "int32")
    return _rt.reduce_sum(t, axis=_ax(axis), keepdims=keepdims)


def nanprod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanprod`: the product over `axis` with NaNs counted as one.

    >>> import rustape as rt
    >>> rt.keras.ops.nanprod([2.0, float("nan"), 3.0]).numpy()
    np.float32(6.0)
    """
    return prod(_nan_as(tensor(x), 1.0), axis=axis, keepdims=keepdims)


def nanmean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanmean`: the mean of the numbers over `axis` (NaNs left out;
    integers as float32).

    >>> import rustape as rt
    >>> rt.keras.ops.nanmean([1.0, float("nan"), 2.0]).numpy()
    np.float32(1.5)
    """
    t = tensor(x)
    if not t.dtype.is_floating:
        return _rt.reduce_mean(_rt.cast(t, "float32"), axis=_ax(axis), keepdims=keepdims)
    total = _rt.reduce_sum(_nan_as(t, 0.0), axis=_ax(axis), keepdims=keepdims)
    count = _rt.reduce_sum(
        _rt.cast(_rt.logical_not(_nan_mask(t)), t.dtype), axis=_ax(axis), keepdims=keepdims
    )
    return _rt.divide(total, count)


def nanvar(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanvar`: the population variance of the numbers over `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.nanvar([1.0, float("nan"), 3.0]).numpy()
    np.float32(1.0)
    """
    t = tensor(x, result_type(x, 1.0))
    valid = _rt.logical_not(_nan_mask(t))
    centre = nanmean(t, axis=axis, keepdims=True)
    centred = _rt.where(valid, _rt.subtract(t, centre), _rt.zeros_like(t))
    count = _rt.reduce_sum(_rt.cast(valid, t.dtype), axis=_ax(axis), keepdims=keepdims)
    return _rt.divide(_rt.reduce_sum(_rt.square(centred), axis=_ax(axis), keepdims=keepdims), count)


def nanstd(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanstd`: the population standard deviation of the numbers.

    >>> import rustape as rt
    >>> rt.keras.ops.nanstd([1.0, float("nan"), 3.0]).numpy()
    np.float32(1.0)
    """
    return _rt.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _nan_extreme(x: Any, axis: Any, keepdims: bool, largest: bool) -> Any:
    t = tensor(x)
    reduce = _rt.reduce_max if largest else _rt.reduce_min
    if not t.dtype.is_floating:
        if t.dtype.name == "bool":
            pick = _rt.reduce_any if largest else _rt.reduce_all
            return pick(t, axis=_ax(axis), keepdims=keepdims)
        return reduce(t, axis=_ax(axis), keepdims=keepdims)
    filler = float("-inf") if largest else float("inf")
    out = reduce(_nan_as(t, filler), axis=_ax(axis), keepdims=keepdims)
    all_nan = _rt.reduce_all(_math.is_nan(t), axis=_ax(axis), keepdims=keepdims)
    return _rt.where(all_nan, _rt.constant(float("nan"), dtype=t.dtype), out)


def nanmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanmax`: the largest number over `axis` (NaN if there is none).

    >>> import rustape as rt
    >>> rt.keras.ops.nanmax([1.0, float("nan"), 2.0]).numpy()
    np.float32(2.0)
    """
    return _nan_extreme(x, axis, keepdims, True)


def nanmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanmin`: the smallest number over `axis` (NaN if there is none).

    >>> import rustape as rt
    >>> rt.keras.ops.nanmin([1.0, float("nan"), 2.0]).numpy()
    np.float32(1.0)
    """
    return _nan_extreme(x, axis, keepdims, False)


def _nan_arg(x: Any, axis: Any, keepdims: bool, largest: bool) -> Any:
    t = tensor(x)
    pick = argmax if largest else argmin
    if not t.dtype.is_floating:
        return pick(t, axis=axis, keepdims=keepdims)
    filler = float("-inf") if largest else float("inf")
    index = pick(_nan_as(t, filler), axis=axis, keepdims=keepdims)
    all_nan = _rt.reduce_all(_math.is_nan(t), axis=_ax(axis), keepdims=keepdims)
    return _rt.where(all_nan, _rt.constant(-1, dtype=index.dtype), index)


def nanargmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanargmax`: the index of the largest number over `axis` (-1
    where there is none).

    >>> import rustape as rt
    >>> rt.keras.ops.nanargmax([[float("nan"), 1.0, 3.0]], axis=1).numpy()
    array([2], dtype=int32)
    """
    return _nan_arg(x, axis, keepdims, True)


def nanargmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Keras 3's `keras.ops.nanargmin`: the index of the smallest number over `axis` (-1
    where there is none).

    >>> import rustape as rt
    >>> rt.keras.ops.nanargmin([[float("nan"), 1.0, 3.0]], axis=1).numpy()
    array([1], dtype=int32)
    """
    return _nan_arg(x, axis, keepdims, False)


def nancumsum(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.nancumsum`: running sums with NaNs counted as zero (and
    infinities as the dtype's extremes, as Keras's `nan_to_num` makes them).

    >>> import rustape as rt
    >>> rt.keras.ops.nancumsum([1.0, float("nan"), 2.0]).numpy()
    array([1., 1., 3.], dtype=float32)
    """
    return cumsum(nan_to_num(x), axis=axis, dtype=dtype)


def nancumprod(x: Any, axis: int | None = None, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.nancumprod`: running products with NaNs counted as one (and
    infinities as the dtype's extremes).

    >>> import rustape as rt
    >>> rt.keras.ops.nancumprod([2.0, float("nan"), 3.0]).numpy()
    array([2., 2., 6.], dtype=float32)
    """
    return cumprod(nan_to_num(x, nan=1.0), axis=axis, dtype=dtype)
