"""`rt.image`'s compositions: flips, rotations, crops, pads and colour adjustments built from
rustape's ops (so they differentiate like them), with `tf.image`'s names and arithmetic. Images
are `[height, width, channels]` or `[batch, height, width, channels]`."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

import rustape as rt

from ._export import export
from ._rustape import Tensor
from ._typing import DTypeLike, TensorLike

_INT_MAX = {"int32": 2**31 - 1, "int64": 2**63 - 1, "int16": 2**15 - 1, "int8": 2**7 - 1}


def _int_max(dtype: Any, op: str) -> int:
    """The largest value of an integer image dtype; a TypeError for other dtypes."""
    top = _INT_MAX.get(dtype.name)
    if top is None:
        raise TypeError(
            f"image.{op}: expected a float or signed integer image dtype, got {dtype.name}"
        )
    return top


def _image(image: TensorLike, op: str) -> Tensor:
    x = rt.convert_to_tensor(image)
    if x.ndim not in (3, 4):
        raise ValueError(
            f"image.{op}: 'image' must have rank 3 [height, width, channels] or 4 [batch, "
            f"height, width, channels], got shape {list(x.shape)} ({x.dtype.name})"
        )
    return x


def _int_arg(value: Any, name: str, op: str) -> int:
    """An integer argument (a Python or NumPy integer, an integral float or a one-element
    integer tensor); TypeError naming `op` otherwise."""
    if isinstance(value, (rt.Tensor, rt.Variable, np.ndarray)):
        array = np.asarray(value)
        if array.size == 1 and array.dtype.kind in "iu":
            return int(array.reshape(()))
    elif not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            if isinstance(value, float) and math.isfinite(value) and value.is_integer():
                return int(value)
    raise TypeError(f"image.{op}: {name} must be an integer, got {value!r}")


def _box(oh: Any, ow: Any, th: Any, tw: Any, op: str) -> tuple[int, int, int, int]:
    names = ("offset_height", "offset_width", "target_height", "target_width")
    a, b, c, d = (_int_arg(v, n, op) for v, n in zip((oh, ow, th, tw), names))
    return a, b, c, d


def _hw(x: Tensor) -> tuple[int, int]:
    return int(x.shape[-3]), int(x.shape[-2])


@export("image")
def flip_left_right(image: TensorLike) -> Tensor:
    """`tf.image.flip_left_right`: reverses the width axis.

    >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
    >>> rt.image.flip_left_right(x)[0, :, 0].numpy().tolist()
    [3.0, 2.0, 1.0, 0.0]
    """
    return rt.reverse(_image(image, "flip_left_right"), [-2])


@export("image")
def flip_up_down(image: TensorLike) -> Tensor:
    """`tf.image.flip_up_down`: reverses the height axis.

    >>> x = rt.reshape(rt.range(3.0), [3, 1, 1])
    >>> rt.image.flip_up_down(x)[:, 0, 0].numpy().tolist()
    [2.0, 1.0, 0.0]
    """
    return rt.reverse(_image(image, "flip_up_down"), [-3])


@export("image")
def transpose(image: TensorLike) -> Tensor:
    """`tf.image.transpose`: swaps height and width.

    >>> x = rt.reshape(rt.range(6.0), [2, 3, 1])
    >>> rt.image.transpose(x).shape
    (3, 2, 1)
    """
    x = _image(image, "transpose")
    perm = [1, 0, 2] if x.ndim == 3 else [0, 2, 1, 3]
    return rt.transpose(x, perm)


@export("image")
def rot90(image: TensorLike, k: int = 1) -> Tensor:
    """`tf.image.rot90`: rotates by `k` quarter turns counter-clockwise.

    >>> x = rt.reshape(rt.range(4.0), [2, 2, 1])
    >>> rt.image.rot90(x)[:, :, 0].numpy().tolist()
    [[1.0, 3.0], [0.0, 2.0]]
    """
    x = _image(image, "rot90")
    k = _int_arg(k, "k", "rot90") % 4
    if k == 0:
        return x
    if k == 2:
        return rt.reverse(x, [-3, -2])
    if k == 1:
        return transpose(rt.reverse(x, [-2]))
    return rt.reverse(transpose(x), [-2])


@export("image")
def crop_to_bounding_box(
    image: TensorLike, offset_height: int, offset_width: int, target_height: int, target_width: int
) -> Tensor:
    """`tf.image.crop_to_bounding_box`: the `target_height x target_width` window whose top
    left corner is at `(offset_height, offset_width)`.

    >>> x = rt.reshape(rt.range(16.0), [4, 4, 1])
    >>> rt.image.crop_to_bounding_box(x, 1, 2, 2, 2)[:, :, 0].numpy().tolist()
    [[6.0, 7.0], [10.0, 11.0]]
    """
    x = _image(image, "crop_to_bounding_box")
    h, w = _hw(x)
    oh, ow, th, tw = _box(
        offset_height, offset_width, target_height, target_width, "crop_to_bounding_box"
    )
    if oh < 0 or ow < 0 or th <= 0 or tw <= 0 or oh + th > h or ow + tw > w:
        raise ValueError(
            f"image.crop_to_bounding_box: the box at ({oh}, {ow}) of size ({th}, {tw}) is not "
            f"inside an image of shape {list(x.shape)}"
        )
    return x[..., oh : oh + th, ow : ow + tw, :]


@export("image")
def pad_to_bounding_box(
    image: TensorLike, offset_height: int, offset_width: int, target_height: int, target_width: int
) -> Tensor:
    """`tf.image.pad_to_bounding_box`: the image placed at `(offset_height, offset_width)` in a
    `target_height x target_width` image of zeros.

    >>> x = rt.ones([1, 1, 1])
    >>> rt.image.pad_to_bounding_box(x, 1, 0, 2, 2)[:, :, 0].numpy().tolist()
    [[0.0, 0.0], [1.0, 0.0]]
    """
    x = _image(image, "pad_to_bounding_box")
    h, w = _hw(x)
    oh, ow, th, tw = _box(
        offset_height, offset_width, target_height, target_width, "pad_to_bounding_box"
    )
    after_h, after_w = th - oh - h, tw - ow - w
    if oh < 0 or ow < 0 or after_h < 0 or after_w < 0:
        raise ValueError(
            f"image.pad_to_bounding_box: an image of shape {list(x.shape)} at ({oh}, {ow}) does "
            f"not fit in ({th}, {tw})"
        )
    pads = [[oh, after_h], [ow, after_w], [0, 0]]
    return rt.pad(x, pads if x.ndim == 3 else [[0, 0], *pads])


@export("image")
def central_crop(image: TensorLike, central_fraction: float) -> Tensor:
    """`tf.image.central_crop`: the centred `central_fraction` of the height and width.

    >>> x = rt.reshape(rt.range(16.0), [4, 4, 1])
    >>> rt.image.central_crop(x, 0.5)[:, :, 0].numpy().tolist()
    [[5.0, 6.0], [9.0, 10.0]]
    """
    x = _image(image, "central_crop")
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError(
            f"image.central_crop: central_fraction must be within (0, 1], got {central_fraction}"
        )
    if central_fraction == 1.0:
        return x
    h, w = _hw(x)
    top = int((h - h * central_fraction) / 2)
    left = int((w - w * central_fraction) / 2)
    return crop_to_bounding_box(x, top, left, h - 2 * top, w - 2 * left)


@export("image")
def resize_with_crop_or_pad(image: TensorLike, target_height: int, target_width: int) -> Tensor:
    """`tf.image.resize_with_crop_or_pad`: crops or zero-pads evenly about the centre.

    >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
    >>> rt.image.resize_with_crop_or_pad(x, 3, 2)[:, :, 0].numpy().tolist()
    [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
    """
    x = _image(image, "resize_with_crop_or_pad")
    h, w = _hw(x)
    op = "resize_with_crop_or_pad"
    th, tw = (
        _int_arg(target_height, "target_height", op),
        _int_arg(target_width, "target_width", op),
    )
    if th <= 0 or tw <= 0:
        raise ValueError(
            f"image.resize_with_crop_or_pad: target size must be positive, got ({th}, {tw})"
        )
    cropped = crop_to_bounding_box(
        x, max(-(th - h) // 2, 0), max(-(tw - w) // 2, 0), min(th, h), min(tw, w)
    )
    return pad_to_bounding_box(cropped, max((th - h) // 2, 0), max((tw - w) // 2, 0), th, tw)


@export("image")
def resize_with_pad(
    image: TensorLike,
    target_height: int,
    target_width: int,
    method: str = "bilinear",
    antialias: bool = False,
) -> Tensor:
    """`tf.image.resize_with_pad`: resizes keeping the aspect ratio, then zero-pads to the
    target size (centred), with TensorFlow's float32 arithmetic for the sizes.

    >>> x = rt.ones([2, 4, 1])
    >>> rt.image.resize_with_pad(x, 4, 4)[:, :, 0].numpy().tolist()
    [[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]
    """
    x = _image(image, "resize_with_pad")
    h, w = (np.float32(v) for v in _hw(x))
    op = "resize_with_pad"
    th, tw = (
        _int_arg(target_height, "target_height", op),
        _int_arg(target_width, "target_width", op),
    )
    if th <= 0 or tw <= 0:
        raise ValueError(f"image.resize_with_pad: target size must be positive, got ({th}, {tw})")
    if h == 0 or w == 0:
        raise ValueError(
            f"image.resize_with_pad: images must have a positive height and width, got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    ratio = max(w / np.float32(tw), h / np.float32(th))
    new_h, new_w = h / ratio, w / ratio
    pad_h = max(0, math.floor((np.float32(th) - new_h) / np.float32(2)))
    pad_w = max(0, math.floor((np.float32(tw) - new_w) / np.float32(2)))
    resized = rt.image.resize(
        x, [math.floor(new_h), math.floor(new_w)], method=method, antialias=antialias
    )
    return pad_to_bounding_box(resized, pad_h, pad_w, th, tw)


def _float_dtype(x: Tensor) -> Any:
    return x.dtype if x.dtype.is_floating else rt.float32


@export("image")
def adjust_brightness(image: TensorLike, delta: float | TensorLike) -> Tensor:
    """`tf.image.adjust_brightness`: adds `delta` (integer images are converted to float32 and
    back, as TensorFlow).

    >>> rt.image.adjust_brightness(rt.zeros([1, 1, 3]), 0.25).numpy().ravel().tolist()
    [0.25, 0.25, 0.25]
    """
    x = rt.convert_to_tensor(image)
    flt = convert_image_dtype(x, _float_dtype(x))
    return convert_image_dtype(flt + rt.cast(delta, flt.dtype), x.dtype)


@export("image")
def adjust_contrast(images: TensorLike, contrast_factor: float | TensorLike) -> Tensor:
    """`tf.image.adjust_contrast`: `(x - mean) * contrast_factor + mean`, the mean per channel
    over height and width.

    >>> x = rt.reshape(rt.constant([0.0, 1.0]), [1, 2, 1])
    >>> rt.image.adjust_contrast(x, 2.0)[0, :, 0].numpy().tolist()
    [-0.5, 1.5]
    """
    x = _image(images, "adjust_contrast")
    flt = convert_image_dtype(x, _float_dtype(x))
    mean = rt.reduce_mean(flt, axis=[-3, -2], keepdims=True)
    out = (flt - mean) * rt.cast(contrast_factor, flt.dtype) + mean
    return convert_image_dtype(out, x.dtype)


@export("image")
def per_image_standardization(image: TensorLike) -> Tensor:
    """`tf.image.per_image_standardization`: `(x - mean) / max(stddev, 1 / sqrt(N))` per image,
    `N` its number of elements (integer images become float32).

    >>> x = rt.reshape(rt.constant([1.0, 3.0]), [1, 2, 1])
    >>> rt.image.per_image_standardization(x)[0, :, 0].numpy().tolist()
    [-1.0, 1.0]
    """
    x = _image(image, "per_image_standardization")
    flt = rt.cast(x, _float_dtype(x))
    axes = [-3, -2, -1]
    n = int(np.prod(x.shape[-3:]))
    mean = rt.reduce_mean(flt, axis=axes, keepdims=True)
    var = rt.reduce_mean(rt.square(flt - mean), axis=axes, keepdims=True)
    floor = rt.cast(1.0 / math.sqrt(n) if n else math.inf, flt.dtype)
    return (flt - mean) / rt.maximum(rt.sqrt(var), floor)


@export("image")
def rgb_to_grayscale(images: TensorLike) -> Tensor:
    """`tf.image.rgb_to_grayscale`: `0.2989 R + 0.5870 G + 0.1140 B`, keeping a channel axis.

    >>> rt.image.rgb_to_grayscale(rt.ones([1, 1, 3])).numpy().ravel().tolist()
    [0.9999000430107117]
    """
    x = rt.convert_to_tensor(images)
    if x.ndim < 1 or x.shape[-1] != 3:
        raise ValueError(
            f"image.rgb_to_grayscale: the last axis must have 3 channels, got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    flt = convert_image_dtype(x, _float_dtype(x))
    weights = rt.constant([0.2989, 0.5870, 0.1140], dtype=flt.dtype)
    gray = rt.reduce_sum(flt * weights, axis=-1, keepdims=True)
    return convert_image_dtype(gray, x.dtype)


@export("image")
def grayscale_to_rgb(images: TensorLike) -> Tensor:
    """`tf.image.grayscale_to_rgb`: the one channel repeated three times.

    >>> rt.image.grayscale_to_rgb(rt.ones([1, 1, 1])).shape
    (1, 1, 3)
    """
    x = rt.convert_to_tensor(images)
    if x.ndim < 1 or x.shape[-1] != 1:
        raise ValueError(
            f"image.grayscale_to_rgb: the last axis must have 1 channel, got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    return rt.concat([x, x, x], axis=-1)


@export("image")
def convert_image_dtype(image: TensorLike, dtype: DTypeLike, saturate: bool = False) -> Tensor:
    """`tf.image.convert_image_dtype`: integers scale to `[0, 1]` floats (divided by the
    integer dtype's maximum), floats to integers times `max + 0.5` (truncated; `saturate`
    clips to the integer range first), floats to floats by a cast.

    >>> rt.image.convert_image_dtype(rt.constant([0.5]), rt.int32).numpy().tolist()
    [1073741824]
    """
    x = rt.convert_to_tensor(image)
    target = rt.as_dtype(dtype)
    src_float, dst_float = x.dtype.is_floating, target.is_floating
    if not src_float:
        _int_max(x.dtype, "convert_image_dtype")
    if not dst_float:
        _int_max(target, "convert_image_dtype")
    if target == x.dtype:
        return x
    if src_float and dst_float:
        return rt.cast(x, target)
    if not src_float and dst_float:
        return rt.cast(x, target) * rt.cast(1.0 / _INT_MAX[x.dtype.name], target)
    if src_float and not dst_float:
        top = _int_max(target, "convert_image_dtype")
        scaled = x * rt.cast(top + 0.5, x.dtype)
        if saturate:  # TensorFlow's saturate_cast: clip to the floats inside the int range
            np_dtype = np.float32 if x.dtype == rt.float32 else np.float64
            hi = np_dtype(top)
            if float(hi) > top:
                hi = np.nextafter(hi, np_dtype(0))
            scaled = rt.clip_by_value(scaled, float(-top - 1), float(hi))
        return rt.cast(scaled, target)
    # integer to integer: rescale by the ratio of the maxima (shifts in TensorFlow)
    scaled = rt.cast(x, rt.float64) * (_INT_MAX[target.name] / _INT_MAX[x.dtype.name])
    return rt.cast(scaled, target)


def _random_flip(image: TensorLike, seed: int | None, axis: int, op: str) -> Tensor:
    x = _image(image, op)
    shape = [int(x.shape[0])] if x.ndim == 4 else []
    draws = rt.random_uniform(shape, 0.0, 1.0, seed=seed)
    keep = rt.reshape(draws < 0.5, shape + [1, 1, 1])
    return rt.where(keep, rt.reverse(x, [axis]), x)


@export("image")
def random_flip_left_right(image: TensorLike, seed: int | None = None) -> Tensor:
    """`tf.image.random_flip_left_right`: each image flipped left-right with probability 1/2
    (one uniform draw per image, flipped when below 0.5).

    >>> x = rt.reshape(rt.range(2.0), [1, 2, 1])
    >>> sorted(rt.image.random_flip_left_right(x, seed=1)[0, :, 0].numpy().tolist())
    [0.0, 1.0]
    """
    return _random_flip(image, seed, -2, "random_flip_left_right")


@export("image")
def random_flip_up_down(image: TensorLike, seed: int | None = None) -> Tensor:
    """`tf.image.random_flip_up_down`: each image flipped upside down with probability 1/2
    (one uniform draw per image, flipped when below 0.5).

    >>> x = rt.reshape(rt.range(2.0), [2, 1, 1])
    >>> sorted(rt.image.random_flip_up_down(x, seed=1)[:, 0, 0].numpy().tolist())
    [0.0, 1.0]
    """
    return _random_flip(image, seed, -3, "random_flip_up_down")
