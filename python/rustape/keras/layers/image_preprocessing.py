"""Image preprocessing layers (Keras 3): `Resizing` (with cropping or padding to the target
aspect ratio) and `CenterCrop`, built on `rt.image.resize`."""

from __future__ import annotations

from typing import Any

import rustape as rt

from ._args import reject_options
from .base import Layer

__all__ = ["CenterCrop", "Resizing"]


def _channels_last(x: Any, data_format: str) -> Any:
    if data_format == "channels_last":
        return x
    return rt.transpose(x, [1, 2, 0] if x.ndim == 3 else [0, 2, 3, 1])


def _channels_first(x: Any, data_format: str) -> Any:
    if data_format == "channels_last":
        return x
    return rt.transpose(x, [2, 0, 1] if x.ndim == 3 else [0, 3, 1, 2])


def _data_format(layer: str, data_format: str | None) -> str:
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"{layer}: data_format must be 'channels_last' or 'channels_first', got {data_format!r}"
        )
    return data_format


def _resize(
    images: Any,
    height: int,
    width: int,
    interpolation: str,
    antialias: bool,
    crop_to_aspect_ratio: bool,
    pad_to_aspect_ratio: bool,
    fill_value: float,
) -> Any:
    """Keras's `ops.image.resize` on channels-last images (TensorFlow backend's arithmetic)."""
    h, w = int(images.shape[-3]), int(images.shape[-2])
    if crop_to_aspect_ratio:
        crop_h = max(min(h, int(float(w * height) / width)), 1)
        crop_w = max(min(w, int(float(h * width) / height)), 1)
        top, left = int(float(h - crop_h) / 2), int(float(w - crop_w) / 2)
        images = images[..., top : top + crop_h, left : left + crop_w, :]
    elif pad_to_aspect_ratio:
        pad_h = max(h, int(float(w * height) / width))
        pad_w = max(w, int(float(h * width) / height))
        top, left = int(float(pad_h - h) / 2), int(float(pad_w - w) / 2)
        # Keras pads both sides by the leading margin (its TensorFlow backend's concat).
        pads = [[top, top], [left, left], [0, 0]]
        if images.ndim == 4:
            pads = [[0, 0], *pads]
        images = rt.pad(images, pads, constant_values=fill_value)
    return rt.image.resize(images, [height, width], method=interpolation, antialias=antialias)


class Resizing(Layer):
    """Resizes images to `height x width` (Keras 3's `Resizing`): `interpolation` is
    `rt.image.resize`'s method; `crop_to_aspect_ratio` first crops the largest centred window of
    the target aspect ratio, `pad_to_aspect_ratio` first pads (with `fill_value`) to it.
    Images are `[h, w, c]` or `[b, h, w, c]` (`data_format='channels_first'`: channels first).

    >>> import rustape as rt
    >>> rt.keras.layers.Resizing(2, 2)(rt.ones([1, 4, 4, 3])).shape
    (1, 2, 2, 3)
    """

    def __init__(
        self,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant",
        fill_value: float = 0.0,
        antialias: bool = False,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Resizing", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if int(height) <= 0 or int(width) <= 0:
            raise ValueError(f"Resizing: height and width must be positive, got {height}, {width}")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(
                "Resizing: only one of crop_to_aspect_ratio and pad_to_aspect_ratio can be True"
            )
        if fill_mode != "constant":
            raise NotImplementedError(
                f"Resizing: fill_mode={fill_mode!r} is not implemented (only 'constant')"
            )
        self.height, self.width = int(height), int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = antialias
        self.data_format = _data_format("Resizing", data_format)

    def _convert_input(self, x: Any) -> Any:
        x = x if isinstance(x, (rt.Tensor, rt.Variable)) else rt.convert_to_tensor(x)
        return rt.cast(x, self.dtype)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        images = _channels_last(inputs, self.data_format)
        out = _resize(
            images,
            self.height,
            self.width,
            self.interpolation,
            self.antialias,
            self.crop_to_aspect_ratio,
            self.pad_to_aspect_ratio,
            self.fill_value,
        )
        return _channels_first(out, self.data_format)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape with the new height and width."""
        shape = list(input_shape)
        first = self.data_format == "channels_first"
        at = len(shape) - (2 if first else 3)
        shape[at], shape[at + 1] = self.height, self.width
        return tuple(shape)


class CenterCrop(Layer):
    """Crops the centred `height x width` window of images (Keras 3's `CenterCrop`); an image
    smaller than that is resized (bilinear) after cropping the largest centred window of the
    target aspect ratio.

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(16.0), [4, 4, 1])
    >>> rt.keras.layers.CenterCrop(2, 2)(x)[:, :, 0].numpy().tolist()
    [[5.0, 6.0], [9.0, 10.0]]
    """

    def __init__(
        self,
        height: int,
        width: int,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("CenterCrop", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if int(height) <= 0 or int(width) <= 0:
            raise ValueError(
                f"CenterCrop: height and width must be positive, got {height}, {width}"
            )
        self.height, self.width = int(height), int(width)
        self.data_format = _data_format("CenterCrop", data_format)

    def _convert_input(self, x: Any) -> Any:
        x = x if isinstance(x, (rt.Tensor, rt.Variable)) else rt.convert_to_tensor(x)
        return rt.cast(x, self.dtype)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        images = _channels_last(inputs, self.data_format)
        h, w = int(images.shape[-3]), int(images.shape[-2])
        dh, dw = h - self.height, w - self.width
        if dh >= 0 and dw >= 0:
            top, left = int(dh / 2), int(dw / 2)
            out = images[..., top : top + self.height, left : left + self.width, :]
        else:
            out = _resize(images, self.height, self.width, "bilinear", False, True, False, 0.0)
        return _channels_first(out, self.data_format)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape with the new height and width."""
        shape = list(input_shape)
        first = self.data_format == "channels_first"
        at = len(shape) - (2 if first else 3)
        shape[at], shape[at + 1] = self.height, self.width
        return tuple(shape)
