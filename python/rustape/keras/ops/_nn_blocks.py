"""Keras 3's `keras.ops.unfold` / `fold` (im2col / col2im on NCHW images) and
`adaptive_average_pool` / `adaptive_max_pool` (1-D, 2-D, 3-D), over rustape's differentiable
ops: `unfold` is one gather, `fold` its adjoint (a segment sum), so each is the other's
gradient and every order follows; the adaptive pools are Keras's two-pool method (a pool of
the small and of the big window along each axis, stride 1, then a gather of each bin's
window), with Keras's bin edges computed in float32 as Keras computes them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _rustape as _rt
from ... import math as _math
from ... import nn as _nn
from ._core import tensor


def _pair(value: Any, name: str, op: str) -> tuple[int, int]:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, (int, np.integer)) for v in pair):
        raise ValueError(f"{op}: {name} must be an int or a pair of ints, got {value!r}")
    return int(pair[0]), int(pair[1])


def _block_index(
    op: str,
    size: tuple[int, int],
    kernel: tuple[int, int],
    dilation: tuple[int, int],
    padding: tuple[int, int],
    stride: tuple[int, int],
) -> tuple[np.ndarray, int, int]:
    """`(index, nh, nw)`: `index[kh*kw, nh*nw]`, each block position's flat index into the
    padded `(H + 2 ph) x (W + 2 pw)` image."""
    for name, v, least in (("kernel_size", kernel, 1), ("dilation", dilation, 1)):
        if min(v) < least:
            raise ValueError(f"{op}: {name} must be positive, got {v}")
    if min(stride) < 1 or min(padding) < 0:
        raise ValueError(f"{op}: stride must be positive, padding >= 0; got {stride}, {padding}")
    hp, wp = size[0] + 2 * padding[0], size[1] + 2 * padding[1]
    nh = (hp - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    nw = (wp - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    if nh < 1 or nw < 1:
        raise ValueError(
            f"{op}: kernel_size {kernel} with dilation {dilation} does not fit the padded image "
            f"of size {(hp, wp)}"
        )
    rows = (np.arange(kernel[0]) * dilation[0])[:, None] + np.arange(nh)[None, :] * stride[0]
    cols = (np.arange(kernel[1]) * dilation[1])[:, None] + np.arange(nw)[None, :] * stride[1]
    index = rows[:, None, :, None] * wp + cols[None, :, None, :]  # kh, kw, nh, nw
    return index.reshape(kernel[0] * kernel[1], nh * nw).astype(np.int32), nh, nw


def unfold(x: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
    """Keras 3's `keras.ops.unfold` (im2col): the sliding blocks of an NCHW image batch
    `(N, C, H, W)` as `(N, C * kh * kw, L)`, channel-major, `L` blocks in row-major order.

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(16.0), [1, 1, 4, 4])
    >>> rt.keras.ops.unfold(x, 2, stride=2).numpy()[0]
    array([[ 0.,  2.,  8., 10.],
           [ 1.,  3.,  9., 11.],
           [ 4.,  6., 12., 14.],
           [ 5.,  7., 13., 15.]], dtype=float32)
    """
    op = "unfold"
    t = tensor(x)
    if len(t.shape) != 4:
        raise ValueError(f"{op}: input must be 4-D (N, C, H, W), got shape {list(t.shape)}")
    n, c, h, w = t.shape
    k = _pair(kernel_size, "kernel_size", op)
    p = _pair(padding, "padding", op)
    index, nh, nw = _block_index(
        op, (h, w), k, _pair(dilation, "dilation", op), p, _pair(stride, "stride", op)
    )
    if p != (0, 0):
        t = _rt.pad(t, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    flat = _rt.reshape(t, [n, c, (h + 2 * p[0]) * (w + 2 * p[1])])
    blocks = _rt.gather(flat, _rt.constant(index), axis=2)  # n, c, kh*kw, L
    return _rt.reshape(blocks, [n, c * k[0] * k[1], nh * nw])


def fold(
    x: Any,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.fold` (col2im): sums the blocks `(N, C * kh * kw, L)` back into an
    NCHW image `(N, C, *output_size)` (overlaps add up), the adjoint of `unfold`.

    >>> import rustape as rt
    >>> blocks = rt.ones([1, 4, 9])
    >>> rt.keras.ops.fold(blocks, 4, 2).numpy()[0, 0]
    array([[1., 2., 2., 1.],
           [2., 4., 4., 2.],
           [2., 4., 4., 2.],
           [1., 2., 2., 1.]], dtype=float32)
    """
    op = "fold"
    t = tensor(x)
    if len(t.shape) != 3:
        raise ValueError(f"{op}: input must be 3-D (N, C * kh * kw, L), got shape {list(t.shape)}")
    n, ckk, blocks = t.shape
    out = _pair(output_size, "output_size", op)
    k = _pair(kernel_size, "kernel_size", op)
    p = _pair(padding, "padding", op)
    index, nh, nw = _block_index(
        op, out, k, _pair(dilation, "dilation", op), p, _pair(stride, "stride", op)
    )
    if ckk % (k[0] * k[1]) != 0 or blocks != nh * nw:
        raise ValueError(
            f"{op}: input of shape {list(t.shape)} does not hold C * {k[0] * k[1]} rows of "
            f"{nh * nw} blocks for output_size {out}, kernel_size {k}"
        )
    c = ckk // (k[0] * k[1])
    hp, wp = out[0] + 2 * p[0], out[1] + 2 * p[1]
    rows = _rt.transpose(_rt.reshape(t, [n, c, k[0] * k[1] * blocks]), [2, 0, 1])
    ids = _rt.constant(index.reshape(-1))
    image = _math.unsorted_segment_sum(rows, ids, hp * wp)  # hp*wp, n, c
    image = _rt.reshape(_rt.transpose(image, [1, 2, 0]), [n, c, hp, wp])
    if p != (0, 0):
        image = image[:, :, p[0] : p[0] + out[0], p[1] : p[1] + out[1]]
    return image


def _bins(size: int, out: int) -> tuple[int, int, np.ndarray]:
    """Keras's two-pool bins of an axis of `size` pooled to `out`: the small and big window
    sizes and, per output position, its index into `concat(small_pool, big_pool)`."""
    small = math.ceil(size / out)
    big = small + 1
    f_size, f_out = np.float32(size), np.float32(out)
    starts = np.floor(np.arange(out, dtype=np.float32) * f_size / f_out).astype(np.int64)
    ends = np.ceil(np.arange(1, out + 1, dtype=np.float32) * f_size / f_out).astype(np.int64)
    ends = np.minimum(ends, size)
    starts = np.minimum(starts, size - 1)
    small_len = max(1, size - small + 1)
    index = np.where(ends - starts == big, starts + small_len, starts)
    return small, big, index.astype(np.int32)


def _pool_axis(t: Any, axis: int, out: int, max_pool: bool) -> Any:
    """Keras's adaptive pool of `t` along `axis` to `out` positions."""
    shape = list(t.shape)
    size = shape[axis]
    small, big, index = _bins(size, out)
    perm = [0, axis] + [a for a in range(1, len(shape)) if a != axis]
    moved = _rt.transpose(t, perm)
    rest = int(np.prod([shape[a] for a in perm[2:]], dtype=np.int64))
    flat = _rt.reshape(moved, [shape[0], size, rest])
    pool = _nn.max_pool1d if max_pool else _nn.avg_pool1d
    pools = [pool(flat, window, 1, "VALID") for window in (small, big) if window <= size]
    pooled = _rt.gather(_rt.concat(pools, axis=1), _rt.constant(index), axis=1)
    back = _rt.reshape(pooled, [shape[0], out] + [shape[a] for a in perm[2:]])
    return _rt.transpose(back, list(np.argsort(perm)))


def _adaptive(op: str, inputs: Any, output_size: Any, data_format: Any, max_pool: bool) -> Any:
    t = tensor(inputs)
    rank = len(t.shape) - 2
    if rank not in (1, 2, 3):
        raise ValueError(f"{op} supports 1D, 2D, or 3D inputs only (got shape {list(t.shape)})")
    sizes = (output_size,) * rank if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != rank or any(int(s) < 1 for s in sizes):
        raise ValueError(f"{op}: output_size must be {rank} positive ints, got {output_size!r}")
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{op}: unknown data_format {data_format!r}")
    first = 2 if data_format == "channels_first" else 1
    for k, out in enumerate(sizes):
        axis = first + k
        if t.shape[axis] < 1:
            raise ValueError(f"{op}: spatial axis {axis} of shape {list(t.shape)} is empty")
        t = _pool_axis(t, axis, int(out), max_pool)
    return t


def adaptive_average_pool(inputs: Any, output_size: Any, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.adaptive_average_pool`: the mean over each of `output_size` bins
    per spatial axis (1-D, 2-D or 3-D; Keras's bins and its two-pool method).

    >>> import rustape as rt
    >>> rt.keras.ops.adaptive_average_pool(rt.reshape(rt.range(6.0), [1, 6, 1]), 3).numpy()[0, :, 0]
    array([0.5, 2.5, 4.5], dtype=float32)
    """
    return _adaptive("adaptive_average_pool", inputs, output_size, data_format, False)


def adaptive_max_pool(inputs: Any, output_size: Any, data_format: Any = None) -> Any:
    """Keras 3's `keras.ops.adaptive_max_pool`: the maximum over each of `output_size` bins
    per spatial axis (1-D, 2-D or 3-D; Keras's bins and its two-pool method).

    >>> import rustape as rt
    >>> rt.keras.ops.adaptive_max_pool(rt.reshape(rt.range(6.0), [1, 6, 1]), 3).numpy()[0, :, 0]
    array([1., 3., 5.], dtype=float32)
    """
    return _adaptive("adaptive_max_pool", inputs, output_size, data_format, True)
