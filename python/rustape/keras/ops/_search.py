"""Keras 3's `keras.ops` for searching and counting: `digitize`, `searchsorted`, `bincount`,
`unique` and `histogram`, over rustape's Rust ops of the same names (none is differentiable)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _rustape as _rt
from ... import math as _math
from ._core import normalize_axis, result_type, tensor


def digitize(x: Any, bins: Sequence[float]) -> Any:
    """Keras 3's `keras.ops.digitize`: for each element of `x`, the index (int32) of the bin
    it falls in, `bins[i - 1] <= x < bins[i]` (0 below the first edge, `len(bins)` from the
    last; NaN in the last). The edges are float32, as in TensorFlow.

    >>> import rustape as rt
    >>> rt.keras.ops.digitize([0.5, 1.0, 2.7], [1.0, 2.0]).numpy().tolist()
    [0, 1, 2]
    """
    x = tensor(x)
    if x.dtype.name == "bool":
        x = _rt.cast(x, "int32")
    # TensorFlow's Bucketize holds its boundaries as float32.
    edges = [float(np.float32(b)) for b in bins]
    if any(b > a for a, b in zip(edges[1:], edges)):
        raise ValueError(f"digitize: bins must be sorted in increasing order, got {edges}")
    sequence = _rt.constant(edges, dtype="float64")
    return _rt.searchsorted(sequence, _rt.cast(x, "float64"), side="right")


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left") -> Any:
    """Keras 3's `keras.ops.searchsorted`: where each of `values` would be inserted into the
    1-D `sorted_sequence` to keep it sorted (int32).

    >>> import rustape as rt
    >>> rt.keras.ops.searchsorted([1, 3, 5], [0, 3, 6], side="right").numpy().tolist()
    [0, 2, 3]
    """
    sequence, values = tensor(sorted_sequence), tensor(values)
    if len(sequence.shape) != 1:
        raise ValueError(
            "`searchsorted` only supports 1-D sorted sequences. You can use "
            "`keras.ops.vectorized_map` to extend it to N-D sequences. Received: "
            f"sorted_sequence.shape={tuple(sequence.shape)}"
        )
    dtype = result_type(sequence, values)
    return _rt.searchsorted(_rt.cast(sequence, dtype), _rt.cast(values, dtype), side=side)


def bincount(x: Any, weights: Any = None, minlength: int = 0, sparse: bool = False) -> Any:
    """Keras 3's `keras.ops.bincount`: how often each non-negative integer occurs in `x`
    (each row of a 2-D `x` separately), or the sum of its `weights` (in the promoted dtype of
    `x` and the weights); at least `minlength` bins.

    >>> import rustape as rt
    >>> rt.keras.ops.bincount([1, 2, 2, 3]).numpy().tolist()
    [0, 1, 2, 1]
    """
    if sparse:
        raise ValueError("bincount: rustape has no sparse tensors; use sparse=False")
    x = tensor(x)
    if x.dtype.name not in ("int32", "int64"):
        x = _rt.cast(x, "int32")
    dtype = "int32"
    if weights is not None:
        weights = tensor(weights)
        dtype = result_type(x, weights)
    axis = -1 if len(x.shape) == 2 else None
    counts = _math.bincount(x, weights=weights, minlength=minlength, axis=axis)
    return _rt.cast(counts, dtype)


def unique(
    x: Any,
    sorted: bool = True,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """Keras 3's `keras.ops.unique`: the distinct elements of `x` (flattened), or its distinct
    slices along `axis`, ascending with `sorted` (else in order of first occurrence); with
    `return_index`, `return_inverse` and `return_counts` also the first position of each,
    each element's position among them (in `x`'s shape when flattened) and their counts, in
    that order. `size` pads (with `fill_value`, or 0) or truncates the result to `size`.

    >>> import rustape as rt
    >>> y, counts = rt.keras.ops.unique([3, 1, 3, 2], return_counts=True)
    >>> y.numpy().tolist(), counts.numpy().tolist()
    ([1, 2, 3], [1, 1, 2])
    """
    x = tensor(x)
    flat = axis is None
    source = _rt.reshape(x, [-1]) if flat else x
    ax = 0 if axis is None else normalize_axis(axis, len(x.shape))
    y, first, inverse, counts = _rt.unique_slices(source, ax, builtins.bool(sorted))
    if size is not None:
        found = y.shape[ax]
        keep = min(found, size)
        y = _rt.gather(y, list(range(keep)), axis=ax)
        first = first[:keep]
        counts = counts[:keep]
        pad = max(0, size - found)
        if pad:
            paddings = [[0, 0] for _ in y.shape]
            paddings[ax] = [0, pad]
            fill = 0 if fill_value is None else fill_value
            y = _rt.pad(y, paddings, constant_values=fill)
            first = _rt.pad(first, [[0, pad]], constant_values=1)
            counts = _rt.pad(counts, [[0, pad]])
    if return_inverse and flat:
        inverse = _rt.reshape(inverse, list(x.shape))
    results = [y]
    if return_index:
        results.append(first)
    if return_inverse:
        results.append(inverse)
    if return_counts:
        results.append(counts)
    return tuple(results) if len(results) > 1 else y


def histogram(x: Any, bins: int = 10, range: tuple[float, float] | None = None) -> Any:
    """Keras 3's `keras.ops.histogram`: counts of the 1-D `x` in `bins` equal bins
    spanning `range` (default: `x`'s smallest to largest value; values outside are left out;
    the last bin includes its right edge), and the `bins + 1` edges, both in `x`'s dtype.

    >>> import rustape as rt
    >>> counts, edges = rt.keras.ops.histogram([0.0, 1.0, 2.0, 3.0, 10.0], bins=2)
    >>> counts.numpy().tolist(), edges.numpy().tolist()
    ([4.0, 1.0], [0.0, 5.0, 10.0])
    """
    x = tensor(x)
    if len(x.shape) != 1:
        raise ValueError(
            f"histogram: input tensor must be 1-dimensional. Received: input.shape={tuple(x.shape)}"
        )
    if isinstance(bins, builtins.bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"histogram: bins must be a positive integer, got {bins!r}")
    low: Any
    high: Any
    if range is None:
        low, high = _rt.reduce_min(x), _rt.reduce_max(x)
    else:
        low, high = range
    kept = _rt.boolean_mask(x, _rt.logical_and(x >= low, x <= high))
    edges = _rt.cast(
        _rt.linspace(_rt.cast(low, "float64"), _rt.cast(high, "float64"), bins + 1), x.dtype
    )
    index = _rt.searchsorted(edges[1:-1], kept, side="right")
    counts = _math.bincount(index, minlength=bins, maxlength=bins)
    return _rt.cast(counts, x.dtype), edges
