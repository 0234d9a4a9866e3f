"""`rt.image`'s colour spaces and hue/saturation adjustments, with `tf.image`'s names and
arithmetic. `rgb_to_hsv`, `hsv_to_rgb` and the fused hue and saturation kernels are Rust ops
(src/ops/image_color.rs, with exact gradients); YIQ and YUV are `tf.image`'s 3x3 matrices
applied to the channel axis (a `tensordot`, as TensorFlow). The random forms draw their factor
with rustape's generators (TensorFlow's draws cannot be matched); a seed repeats them."""

from __future__ import annotations

from typing import Any

import rustape as rt

from . import _rustape
from ._export import export
from ._image import convert_image_dtype
from ._rustape import Tensor
from ._typing import TensorLike


def _adjusted(image: TensorLike, kernel: Any, amount: Any) -> Tensor:
    x = rt.convert_to_tensor(image)
    if x.dtype.is_floating:
        return kernel(x, amount)
    out = kernel(convert_image_dtype(x, rt.float32), amount)
    return convert_image_dtype(out, x.dtype)


@export("image")
def adjust_hue(image: TensorLike, delta: float | TensorLike, name: str | None = None) -> Tensor:
    """`tf.image.adjust_hue`: every pixel's hue (the last axis holds RGB) moved by `delta`
    turns, wrapped into `[0, 1)`, in one fused pass. Integer images are converted to float32
    and back, as TensorFlow; float64 images stay float64. Differentiable with respect to the
    image (TensorFlow's `AdjustHue` has no gradient); `delta` gets none.

    >>> rt.image.adjust_hue([[1.0, 0.0, 0.0]], 1 / 3).numpy().round(6).tolist()
    [[0.0, 1.0, 0.0]]
    """
    return _adjusted(image, _rustape.image_adjust_hue, delta)


@export("image")
def adjust_saturation(
    image: TensorLike, saturation_factor: float | TensorLike, name: str | None = None
) -> Tensor:
    """`tf.image.adjust_saturation`: every pixel's saturation multiplied by
    `saturation_factor` and clamped to `[0, 1]`, in one fused pass (integer images converted
    to float32 and back). Differentiable with respect to the image.

    >>> rt.image.adjust_saturation([[1.0, 0.5, 0.0]], 0.5).numpy().tolist()
    [[1.0, 0.75, 0.5]]
    """
    return _adjusted(image, _rustape.image_adjust_saturation, saturation_factor)


def _check_hue(op: str, max_delta: float) -> None:
    if max_delta > 0.5:
        raise ValueError(f"image.{op}: max_delta must be <= 0.5, got {max_delta}")
    if max_delta < 0:
        raise ValueError(f"image.{op}: max_delta must be non-negative, got {max_delta}")


def _check_range(op: str, lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError(f"image.{op}: upper must be greater than lower, got {lower}, {upper}")
    if lower < 0:
        raise ValueError(f"image.{op}: lower must be non-negative, got {lower}")


@export("image")
def random_hue(image: TensorLike, max_delta: float, seed: int | None = None) -> Tensor:
    """`tf.image.random_hue`: `adjust_hue` by one delta drawn uniformly from
    `[-max_delta, max_delta)` (`max_delta` in `[0, 0.5]`) for the whole input.

    >>> y = rt.image.random_hue([[[0.5, 0.5, 0.5]]], 0.2, seed=1)
    >>> y.numpy().tolist()  # a grey pixel has no hue to move
    [[[0.5, 0.5, 0.5]]]
    """
    _check_hue("random_hue", max_delta)
    delta = rt.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


@export("image")
def random_saturation(
    image: TensorLike, lower: float, upper: float, seed: int | None = None
) -> Tensor:
    """`tf.image.random_saturation`: `adjust_saturation` by one factor drawn uniformly from
    `[lower, upper)` (`0 <= lower < upper`) for the whole input.

    >>> y = rt.image.random_saturation([[[1.0, 0.0, 0.0]]], 0.0, 0.5, seed=1).numpy()
    >>> bool(y[0, 0, 1] == y[0, 0, 2] and 0.5 <= y[0, 0, 1] <= 1.0)
    True
    """
    _check_range("random_saturation", lower, upper)
    factor = rt.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, factor)


@export("image")
def stateless_random_hue(image: TensorLike, max_delta: float, seed: Any) -> Tensor:
    """`tf.image.stateless_random_hue`: `random_hue` with the delta drawn by
    `rt.random.stateless_uniform` from the seed pair `seed` (the same seed, the same result).

    >>> x = [[[0.9, 0.2, 0.1]]]
    >>> a = rt.image.stateless_random_hue(x, 0.3, seed=[1, 2])
    >>> b = rt.image.stateless_random_hue(x, 0.3, seed=[1, 2])
    >>> bool((a.numpy() == b.numpy()).all())
    True
    """
    _check_hue("stateless_random_hue", max_delta)
    delta = rt.random.stateless_uniform([], seed, -max_delta, max_delta)
    return adjust_hue(image, delta)


@export("image")
def stateless_random_saturation(image: TensorLike, lower: float, upper: float, seed: Any) -> Tensor:
    """`tf.image.stateless_random_saturation`: `random_saturation` with the factor drawn by
    `rt.random.stateless_uniform` from the seed pair `seed`.

    >>> x = [[[0.9, 0.2, 0.1]]]
    >>> a = rt.image.stateless_random_saturation(x, 0.2, 0.8, seed=[3, 4])
    >>> b = rt.image.stateless_random_saturation(x, 0.2, 0.8, seed=[3, 4])
    >>> bool((a.numpy() == b.numpy()).all())
    True
    """
    _check_range("stateless_random_saturation", lower, upper)
    factor = rt.random.stateless_uniform([], seed, lower, upper)
    return adjust_saturation(image, factor)


# The 3x3 matrices of `tf.image` (rows: input channels, columns: output channels).
_RGB_TO_YIQ: list[list[float]] = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB: list[list[float]] = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV: list[list[float]] = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB: list[list[float]] = [
    [1, 1, 1],
    [0, -0.394642334, 2.03206185],
    [1.13988303, -0.58062185, 0],
]


def _linear(images: TensorLike, kernel: list[list[float]], op: str) -> Tensor:
    x = rt.convert_to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"image.{op}: expected float32 or float64 images, got {x.dtype.name}")
    if x.ndim == 0 or x.shape[-1] != 3:
        raise ValueError(
            f"image.{op}: the last axis must have 3 channels, got shape {list(x.shape)} "
            f"({x.dtype.name})"
        )
    return rt.tensordot(x, rt.constant(kernel, dtype=x.dtype), axes=[[x.ndim - 1], [0]])


@export("image")
def rgb_to_yiq(images: TensorLike) -> Tensor:
    """`tf.image.rgb_to_yiq`: RGB to NTSC YIQ (`tf.image`'s matrix on the last axis).

    >>> rt.image.rgb_to_yiq(np.array([[1.0, 0.0, 0.0]])).numpy().round(2).tolist()
    [[0.3, 0.6, 0.21]]
    """
    return _linear(images, _RGB_TO_YIQ, "rgb_to_yiq")


@export("image")
def yiq_to_rgb(images: TensorLike) -> Tensor:
    """`tf.image.yiq_to_rgb`: NTSC YIQ to RGB (the inverse of `rgb_to_yiq`).

    >>> rt.image.yiq_to_rgb([[1.0, 0.0, 0.0]]).numpy().tolist()
    [[1.0, 1.0, 1.0]]
    """
    return _linear(images, _YIQ_TO_RGB, "yiq_to_rgb")


@export("image")
def rgb_to_yuv(images: TensorLike) -> Tensor:
    """`tf.image.rgb_to_yuv`: RGB to YUV (`tf.image`'s matrix on the last axis).

    >>> rt.image.rgb_to_yuv(np.array([[1.0, 1.0, 1.0]])).numpy().round(6)[0, 0]
    np.float64(1.0)
    """
    return _linear(images, _RGB_TO_YUV, "rgb_to_yuv")


@export("image")
def yuv_to_rgb(images: TensorLike) -> Tensor:
    """`tf.image.yuv_to_rgb`: YUV to RGB (the inverse of `rgb_to_yuv`).

    >>> rt.image.yuv_to_rgb([[1.0, 0.0, 0.0]]).numpy().tolist()
    [[1.0, 1.0, 1.0]]
    """
    return _linear(images, _YUV_TO_RGB, "yuv_to_rgb")
