"""`rt.image.ssim` and `rt.image.ssim_multiscale`: TensorFlow's structural similarity, composed
from rustape's ops (so they differentiate like them).

TensorFlow filters with an `n x n` Gaussian (`softmax` of `-(i^2 + j^2) / (2 sigma^2)`), which
is the outer product of two normalised 1-D Gaussians: here the filter runs as one separable Rust
op (src/ops/image_filter.rs: two 1-D passes, `2n` taps a pixel instead of `n^2`) over the four
filtered quantities at once (`x`, `y`, `x y`, `x^2 + y^2` stacked on a leading axis). The sums round differently from
TensorFlow's (about 1e-7 relative in float32). Integer images are converted to float32 as
TensorFlow converts them (`max_val` too); float64 images stay float64 (TensorFlow computes in
float32)."""

from __future__ import annotations

from typing import Any

import numpy as np

import rustape as rt

from . import _rustape
from ._export import export
from ._image import convert_image_dtype
from ._rustape import Tensor
from ._typing import TensorLike

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _pair(img1: TensorLike, img2: TensorLike, op: str) -> tuple[Tensor, Tensor]:
    x, y = rt.convert_to_tensor(img1), rt.convert_to_tensor(img2)
    if x.dtype != y.dtype:
        raise TypeError(
            f"image.{op}: img1 and img2 must have the same dtype, got {x.dtype.name} and "
            f"{y.dtype.name}"
        )
    if x.ndim < 3 or y.ndim < 3 or tuple(x.shape[-3:]) != tuple(y.shape[-3:]):
        raise ValueError(
            f"image.{op}: img1 and img2 must be images of the same [height, width, channels], "
            f"got shapes {list(x.shape)} and {list(y.shape)}"
        )
    return x, y


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_floating else convert_image_dtype(x, rt.float32)


def _max_val(max_val: Any, x: Tensor) -> Tensor:
    top = rt.cast(max_val, x.dtype)
    return _float(top)


def _gauss(size: int, sigma: float, dtype: Any) -> np.ndarray:
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = -0.5 * coords**2 / float(sigma) ** 2
    w = np.exp(g - g.max())
    return (w / w.sum()).astype(np.dtype(dtype.name))


def _filtered(stacked: Tensor, weights: np.ndarray) -> Tensor:
    """`stacked` (`lead + [h, w, c]`) filtered by the separable Gaussian, VALID."""
    taps = [float(v) for v in weights]
    return _rustape.image_separable_filter(stacked, taps, taps)


def _ssim_per_channel(
    x: Tensor,
    y: Tensor,
    max_val: Tensor,
    filter_size: int,
    filter_sigma: float,
    k1: float,
    k2: float,
    op: str,
    index_map: bool = False,
) -> tuple[Tensor, Tensor]:
    h, w = int(x.shape[-3]), int(x.shape[-2])
    if h < filter_size or w < filter_size:
        raise ValueError(
            f"image.{op}: images of height {h} and width {w} are smaller than filter_size "
            f"{filter_size}"
        )
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    shape = list(np.broadcast_shapes(tuple(x.shape), tuple(y.shape)))
    x, y = rt.broadcast_to(x, shape), rt.broadcast_to(y, shape)
    stacked = rt.stack([x, y, x * y, rt.square(x) + rt.square(y)], axis=0)
    means = _filtered(stacked, _gauss(filter_size, filter_sigma, x.dtype))
    mean0, mean1, cross, squares = rt.unstack(means, axis=0)
    num0 = mean0 * mean1 * 2.0
    den0 = rt.square(mean0) + rt.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    cs = (cross * 2.0 - num0 + c2) / (squares - den0 + c2)
    if index_map:
        return luminance * cs, cs
    return rt.reduce_mean(luminance * cs, axis=[-3, -2]), rt.reduce_mean(cs, axis=[-3, -2])


@export("image")
def ssim(
    img1: TensorLike,
    img2: TensorLike,
    max_val: Any,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
    return_index_map: bool = False,
) -> Tensor:
    """`tf.image.ssim`: the structural similarity of each image pair (`[..., h, w, c]`, leading
    axes broadcast), averaged over the pixels (unless `return_index_map`) and the channels.
    Differentiable with respect to both images.

    >>> x = rt.reshape(rt.range(144.0) / 144.0, [1, 12, 12, 1])
    >>> float(rt.image.ssim(x, x, 1.0)[0])
    1.0
    """
    x, y = _pair(img1, img2, "ssim")
    top = _max_val(max_val, x)
    x, y = _float(x), _float(y)
    per_channel, _ = _ssim_per_channel(
        x, y, top, int(filter_size), filter_sigma, k1, k2, "ssim", return_index_map
    )
    return rt.reduce_mean(per_channel, axis=-1)


@export("image")
def ssim_multiscale(
    img1: TensorLike,
    img2: TensorLike,
    max_val: Any,
    power_factors: Any = _MSSSIM_WEIGHTS,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
) -> Tensor:
    """`tf.image.ssim_multiscale`: MS-SSIM, the contrast-structure terms of
    `len(power_factors)` scales (each a 2x2 average pool of the last, edges padded
    symmetrically to even sizes) and the SSIM of the coarsest, raised to `power_factors` and
    multiplied, averaged over the channels. Each scale must be at least `filter_size` wide.

    >>> x = rt.reshape(rt.range(1024.0) / 1024.0, [1, 32, 32, 1])
    >>> float(rt.image.ssim_multiscale(x, x, 1.0, power_factors=(0.5, 0.5), filter_size=5)[0])
    1.0
    """
    x, y = _pair(img1, img2, "ssim_multiscale")
    top = _max_val(max_val, x)
    imgs = [_float(x), _float(y)]
    factors = [float(p) for p in power_factors]
    mcs: list[Tensor] = []
    per_channel = None
    for k in range(len(factors)):
        if k > 0:
            imgs = [_halve(im) for im in imgs]
        per_channel, cs = _ssim_per_channel(
            imgs[0], imgs[1], top, int(filter_size), filter_sigma, k1, k2, "ssim_multiscale"
        )
        mcs.append(rt.nn.relu(cs))
    if per_channel is None:
        raise ValueError("image.ssim_multiscale: power_factors must not be empty")
    mcs.pop()
    stacked = rt.stack(mcs + [rt.nn.relu(per_channel)], axis=-1)
    weights = rt.constant(factors, dtype=stacked.dtype)
    return rt.reduce_mean(rt.reduce_prod(rt.pow(stacked, weights), axis=-1), axis=-1)


def _halve(image: Tensor) -> Tensor:
    """A 2x2 average pool (VALID) of `lead + [h, w, c]` images, odd sizes padded first by
    repeating the last row or column (TensorFlow's SYMMETRIC pad by the remainder)."""
    lead = list(image.shape[:-3])
    h, w, c = (int(d) for d in image.shape[-3:])
    flat = rt.reshape(image, [-1, h, w, c])
    if h % 2 or w % 2:
        flat = rt.pad(flat, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
    pooled = rt.nn.avg_pool2d(flat, 2, 2, "VALID")
    return rt.reshape(pooled, lead + [int(d) for d in pooled.shape[1:]])
