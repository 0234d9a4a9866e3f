"""Keras 3's `keras.ops.image` over rustape (TensorFlow backend's arithmetic): `affine_transform`
and `resize`, on `[h, w, c]` or `[b, h, w, c]` images (`data_format='channels_first'`: channels
first).

>>> import rustape as rt
>>> rt.keras.ops.image.resize(rt.ones([1, 4, 4, 3]), (2, 2)).shape
(1, 2, 2, 3)
"""

from __future__ import annotations

from typing import Any

import rustape as _rt

__all__ = ["affine_transform", "resize"]


def _data_format(op: str, data_format: str | None) -> str:
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"{op}: data_format must be 'channels_last' or 'channels_first', got {data_format!r}"
        )
    return data_format


def _to_last(x: Any, data_format: str) -> Any:
    if data_format == "channels_last":
        return x
    return _rt.transpose(x, [1, 2, 0] if x.ndim == 3 else [0, 2, 3, 1])


def _to_first(x: Any, data_format: str) -> Any:
    if data_format == "channels_last":
        return x
    return _rt.transpose(x, [2, 0, 1] if x.ndim == 3 else [0, 3, 1, 2])


def affine_transform(
    images: Any,
    transform: Any,
    interpolation: str = "bilinear",
    fill_mode: str = "constant",
    fill_value: float = 0,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.affine_transform`: each image resampled at the points its
    transform (`[8]` or `[batch, 8]`: `[a0, a1, a2, b0, b1, b2, c0, c1]`) maps the output
    pixels to, as `rt.image.affine_transform` (TensorFlow's `ImageProjectiveTransformV3`).
    `interpolation`: `'nearest'` or `'bilinear'`; `fill_mode`: `'constant'`, `'nearest'`,
    `'wrap'`, `'mirror'` (SciPy's, which Keras's TensorFlow backend lacks) or `'reflect'`.

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
    >>> flip = [-1.0, 0.0, 3.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    >>> rt.keras.ops.image.affine_transform(x, flip)[0, :, 0].numpy().tolist()
    [3.0, 2.0, 1.0, 0.0]
    """
    op = "keras.ops.image.affine_transform"
    data_format = _data_format(op, data_format)
    x = _rt.convert_to_tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError(
            f"{op}: images must have rank 3 (single image) or 4 (batch of images), got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    t = _rt.convert_to_tensor(transform)
    if t.ndim not in (1, 2):
        raise ValueError(
            f"{op}: transform must have rank 1 (single transform) or 2 (batch of transforms), "
            f"got shape {list(t.shape)} ({t.dtype.name})"
        )
    y = _rt.image.affine_transform(
        _to_last(x, data_format), t, interpolation, fill_mode, float(fill_value)
    )
    return _to_first(y, data_format)


def resize(
    images: Any,
    size: Any,
    interpolation: str = "bilinear",
    antialias: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    fill_mode: str = "constant",
    fill_value: float = 0.0,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.resize`: `rt.image.resize` to `size = (height, width)`, first
    cropping (`crop_to_aspect_ratio`) or padding with `fill_value` (`pad_to_aspect_ratio`) to
    the target aspect ratio.

    >>> import rustape as rt
    >>> rt.keras.ops.image.resize(rt.ones([2, 6, 3]), (3, 3), interpolation="area").shape
    (3, 3, 3)
    """
    from ..layers.image_preprocessing import _resize

    op = "keras.ops.image.resize"
    data_format = _data_format(op, data_format)
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(
            f"{op}: only one of crop_to_aspect_ratio and pad_to_aspect_ratio can be True"
        )
    if fill_mode != "constant":
        raise ValueError(f"{op}: fill_mode must be 'constant', got {fill_mode!r}")
    height, width = (int(v) for v in size)
    x = _to_last(_rt.convert_to_tensor(images), data_format)
    y = _resize(
        x,
        height,
        width,
        interpolation,
        antialias,
        crop_to_aspect_ratio,
        pad_to_aspect_ratio,
        fill_value,
    )
    return _to_first(y, data_format)
