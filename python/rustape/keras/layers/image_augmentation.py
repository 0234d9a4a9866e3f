"""Keras 3's random image augmentation layers: `RandomFlip`, `RandomRotation`, `RandomZoom`,
`RandomTranslation`, `RandomCrop`, `RandomContrast`, `RandomBrightness`.

Each augments when training (Keras: `training=True`, the default of a direct call, or inside
`fit`) and is the identity at inference (`training=False`, `predict`, `evaluate`). As in Keras,
`get_random_transformation(images)` draws the parameters (per image where Keras draws per
image) and `transform_images(images, transformation)` applies given ones. The draws are
rustape's random numbers (`seed` is the op seed: after `rt.random.set_seed`, the same calls
give the same draws), so they differ from TensorFlow's; the transforms match Keras's for the
same parameters. Images are `[h, w, c]` or `[b, h, w, c]` (`data_format='channels_first'`:
channels first); the geometric layers resample with `rt.image.affine_transform`.
"""

from __future__ import annotations

import math
from typing import Any

import rustape as rt

from ._args import reject_options
from .base import Layer
from .image_preprocessing import _resize

__all__ = [
    "RandomBrightness",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomRotation",
    "RandomTranslation",
    "RandomZoom",
]

_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


def _training(training: Any) -> bool:
    if isinstance(training, rt.Tensor):
        return bool(training.numpy())
    return bool(training)


def _factor_pair(
    owner: str, name: str, factor: Any, low: float, high: float
) -> tuple[float, float]:
    """Keras's `_set_factor`: a number `f` is `(max(-|f|, low), |f|)`, a pair is sorted; both
    must lie in `[low, high]`."""
    message = (
        f"{owner}: the `{name}` argument should be a number (or a list of two numbers) in the "
        f"range [{low}, {high}]. Received: {name}={factor!r}"
    )
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > high or factor[1] < low:
            raise ValueError(message)
        lower, upper = sorted(float(v) for v in factor)
        return lower, upper
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor < low or factor > high:
            raise ValueError(message)
        f = abs(float(factor))
        return max(-f, low), f
    raise ValueError(message)


def _shift_factor(owner: str, name: str, factor: Any, open_low: bool) -> tuple[float, float]:
    """RandomZoom's and RandomTranslation's factors: a number `f` is `(-|f|, |f|)`, a pair is
    sorted; every number in `(-1, 1]` (zoom) or `[-1, 1]` (translation)."""
    message = (
        f"{owner}: the `{name}` argument should be a number (or a list of two numbers) in the "
        f"range {'(' if open_low else '['}-1.0, 1.0]. Received: {name}={factor!r}"
    )

    def check(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(message)
        if v > 1.0 or v < -1.0 or (open_low and v == -1.0):
            raise ValueError(message)
        return float(v)

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(message)
        lower, upper = sorted(check(v) for v in factor)
        return lower, upper
    f = abs(check(factor))
    return -f, f


def check_value_range(owner: str, value_range: Any) -> None:
    """ValueError (Keras's) unless `value_range` is a list or tuple of two numbers."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(
            f"{owner}: the `value_range` argument should be a list of two numbers. Received: "
            f"value_range={value_range!r}"
        )


class _RandomImageLayer(Layer):
    """What the augmentation layers share: the seed, the data format, the training switch."""

    def __init__(
        self, seed: Any, data_format: Any, name: Any, dtype: Any, kwargs: dict[str, Any]
    ) -> None:
        owner = type(self).__name__
        reject_options(owner, kwargs, ("input_shape", "batch_size", "bounding_box_format"))
        super().__init__(name=name, dtype=dtype)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"{owner}: seed must be an integer or None, got {seed!r}")
        self.seed = seed
        data_format = data_format or "channels_last"
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                f"{owner}: data_format must be 'channels_last' or 'channels_first', "
                f"got {data_format!r}"
            )
        self.data_format = data_format

    def _convert_input(self, x: Any) -> Any:
        x = x.value() if isinstance(x, rt.Variable) else x
        x = x if isinstance(x, rt.Tensor) else rt.convert_to_tensor(x)
        if x.ndim not in (3, 4):
            raise ValueError(
                f"{type(self).__name__}: expected images of rank 3 or 4, got shape "
                f"{list(x.shape)} ({x.dtype.name})"
            )
        return rt.cast(x, self.dtype)

    def _hw(self, shape: Any) -> tuple[int, int]:
        """The height and width of images of `shape`."""
        shape = list(shape)
        at = len(shape) - (2 if self.data_format == "channels_first" else 3)
        return int(shape[at]), int(shape[at + 1])

    def _uniform(self, shape: list[int], low: float, high: float) -> Any:
        return rt.random.uniform(shape, low, high, dtype=rt.float32, seed=self.seed)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """The parameters of one random draw for the images `data` (None when not training)."""
        raise NotImplementedError

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`images` transformed by the given parameters (unchanged when not training)."""
        raise NotImplementedError

    def call(self, inputs: Any, training: Any = True) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if not _training(training):
            return inputs
        transformation = self.get_random_transformation(inputs, training=True)
        return self.transform_images(inputs, transformation, training=True)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)


class _AffineLayer(_RandomImageLayer):
    """Layers that resample through `rt.keras.ops.image.affine_transform`."""

    def _modes(self, fill_mode: str, interpolation: str, fill_value: Any) -> None:
        owner = type(self).__name__
        if fill_mode not in _FILL_MODES:
            raise ValueError(
                f"{owner}: unknown fill_mode {fill_mode!r}; expected one of {_FILL_MODES}"
            )
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(
                f"{owner}: unknown interpolation {interpolation!r}; expected one of "
                f"{_INTERPOLATIONS}"
            )
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def _batch(self, images: Any) -> int:
        return int(images.shape[0]) if images.ndim == 4 else 1

    def _warp(self, images: Any, matrix: Any) -> Any:
        if images.ndim == 3:
            matrix = rt.reshape(matrix, [8])
        return rt.keras.ops.image.affine_transform(
            images,
            matrix,
            interpolation=self.interpolation,
            fill_mode=self.fill_mode,
            fill_value=float(self.fill_value),
            data_format=self.data_format,
        )


class RandomFlip(_RandomImageLayer):
    """Flips each image with probability 1/2 (Keras 3's `RandomFlip`): `mode` is
    `'horizontal'`, `'vertical'` or `'horizontal_and_vertical'` (one draw flips both axes).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomFlip("horizontal", seed=1)
    >>> x = rt.reshape(rt.range(3.0), [1, 3, 1])
    >>> layer.transform_images(x, {"flips": rt.constant([[[True]]])})[0, :, 0].numpy().tolist()
    [2.0, 1.0, 0.0]
    >>> layer(x, training=False)[0, :, 0].numpy().tolist()
    [0.0, 1.0, 2.0]
    """

    def __init__(
        self,
        mode: str = "horizontal_and_vertical",
        seed: int | None = None,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        modes = ("horizontal", "vertical", "horizontal_and_vertical")
        if mode not in modes:
            raise ValueError(f"RandomFlip: unknown mode {mode!r}; expected one of {modes}")
        self.mode = mode

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'flips': bool [b, 1, 1, 1] (or [1, 1, 1]), 'input_shape': ...}`: True flips."""
        if not training:
            return None
        shape = list(data.shape)
        flips_shape = [1, 1, 1] if len(shape) == 3 else [shape[0], 1, 1, 1]
        flips = rt.less_equal(self._uniform(flips_shape, 0.0, 1.0), 0.5)
        return {"flips": flips, "input_shape": tuple(shape)}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`images` flipped where `transformation['flips']` holds."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        flips = rt.convert_to_tensor(transformation["flips"])
        unbatched = images.ndim == 3
        if unbatched:
            images = images[None]
        flips = rt.reshape(flips, [-1, 1, 1, 1])
        first = self.data_format == "channels_first"
        width_axis, height_axis = (-1, -2) if first else (-2, -3)
        out = images
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            out = rt.where(flips, rt.reverse(out, [width_axis]), out)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            out = rt.where(flips, rt.reverse(out, [height_axis]), out)
        return out[0] if unbatched else out


class RandomRotation(_AffineLayer):
    """Rotates each image by a random angle about its centre (Keras 3's `RandomRotation`):
    `factor` is a fraction of a full turn, a number `f` for `[-f, f]` or a pair
    `(lower, upper)`; the angle is drawn per image. `fill_mode` (`'reflect'`, `'wrap'`,
    `'constant'`, `'nearest'`), `fill_value` and `interpolation` as
    `rt.keras.ops.image.affine_transform`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomRotation(0.5, seed=3)
    >>> x = rt.reshape(rt.range(4.0), [2, 2, 1])
    >>> half_turn = layer.rotation_transformation(rt.constant([180.0]), 2, 2)
    >>> layer.transform_images(x, half_turn)[:, :, 0].numpy().round(4).tolist()
    [[3.0, 2.0], [1.0, 0.0]]
    """

    def __init__(
        self,
        factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomRotation", "factor", factor, -1.0, 1.0)
        self._modes(fill_mode, interpolation, fill_value)

    def rotation_transformation(self, angle: Any, height: int, width: int) -> dict[str, Any]:
        """The transformation of rotations by `angle` (degrees, one per image) of images of
        `height x width`: Keras's `_compute_affine_matrix` about the centre, in float32."""
        angle = rt.cast(rt.convert_to_tensor(angle), rt.float32)
        radians = angle * rt.constant(math.pi / 180.0, rt.float32)
        cx = 0.5 * (width - 1.0)
        cy = 0.5 * (height - 1.0)
        cos, sin = rt.cos(radians), rt.sin(radians)
        a0, a1 = cos, -sin
        b0, b1 = sin, cos
        a2 = cx - cx * a0 - cy * a1
        b2 = cy - cx * b0 - cy * b1
        zero = rt.zeros_like(cos)
        matrix = rt.stack([a0, a1, a2, b0, b1, b2, zero, zero], axis=1)
        return {
            "angle": angle,
            "rotation_matrix": matrix,
            "image_height": height,
            "image_width": width,
        }

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'angle': degrees [b], 'rotation_matrix': [b, 8], ...}`, the angle uniform in
        `factor * 360` degrees."""
        if not training:
            return None
        h, w = self._hw(data.shape)
        batch = int(data.shape[0]) if len(data.shape) == 4 else 1
        angle = self._uniform([batch], self.factor[0] * 360.0, self.factor[1] * 360.0)
        return self.rotation_transformation(angle, h, w)

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`images` rotated by `transformation['rotation_matrix']`."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        return self._warp(images, transformation["rotation_matrix"])


class RandomZoom(_AffineLayer):
    """Zooms each image in or out about its centre (Keras 3's `RandomZoom`): the zoom is
    `1 + u` with `u` drawn per image from `height_factor` (a number `f` for `[-f, f]`, or a
    pair, in `(-1, 1]`; positive zooms out); `width_factor` likewise, or None to keep the
    aspect ratio. `fill_mode`, `fill_value` and `interpolation` as in `RandomRotation`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomZoom(0.5)
    >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
    >>> zoom = {"height_zoom": rt.ones([1, 1]), "width_zoom": rt.constant([[2.0]])}
    >>> layer.transform_images(x, zoom)[0, :, 0].numpy().tolist()
    [0.5, 0.5, 2.5, 2.5]
    """

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any = None,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _shift_factor(
            "RandomZoom", "height_factor", height_factor, True
        )
        if width_factor is not None:
            self.width_lower, self.width_upper = _shift_factor(
                "RandomZoom", "width_factor", width_factor, True
            )
        self._modes(fill_mode, interpolation, fill_value)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'height_zoom': [b, 1], 'width_zoom': [b, 1], ...}` (the same when
        `width_factor` is None)."""
        if not training:
            return None
        shape = [int(data.shape[0]) if len(data.shape) == 4 else 1, 1]
        height = self._uniform(shape, 1.0 + self.height_lower, 1.0 + self.height_upper)
        width = height
        if self.width_factor is not None:
            width = self._uniform(shape, 1.0 + self.width_lower, 1.0 + self.width_upper)
        return {"height_zoom": height, "width_zoom": width, "input_shape": tuple(data.shape)}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`images` zoomed by `transformation`'s factors (Keras's zoom matrix)."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        h, w = self._hw(images.shape)
        zx = rt.cast(rt.convert_to_tensor(transformation["width_zoom"]), rt.float32)[:, 0]
        zy = rt.cast(rt.convert_to_tensor(transformation["height_zoom"]), rt.float32)[:, 0]
        x_offset = (w - 1.0) / 2.0 * (1.0 - zx)
        y_offset = (h - 1.0) / 2.0 * (1.0 - zy)
        zero = rt.zeros_like(zx)
        matrix = rt.stack([zx, zero, x_offset, zero, zy, y_offset, zero, zero], axis=1)
        return self._warp(images, matrix)


class RandomTranslation(_AffineLayer):
    """Shifts each image by a random fraction of its size (Keras 3's `RandomTranslation`):
    `height_factor` and `width_factor` are numbers `f` for `[-f, f]` or pairs in `[-1, 1]`,
    drawn per image (positive moves the content down / right). `fill_mode`, `fill_value`
    and `interpolation` as in `RandomRotation`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomTranslation(0.0, 0.5, fill_mode="constant")
    >>> x = rt.reshape(rt.range(1.0, 5.0), [1, 4, 1])
    >>> shift = {"translations": rt.constant([[1.0, 0.0]])}
    >>> layer.transform_images(x, shift)[0, :, 0].numpy().tolist()
    [0.0, 1.0, 2.0, 3.0]
    """

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _shift_factor(
            "RandomTranslation", "height_factor", height_factor, False
        )
        self.width_lower, self.width_upper = _shift_factor(
            "RandomTranslation", "width_factor", width_factor, False
        )
        self._modes(fill_mode, interpolation, fill_value)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'translations': [b, 2] (x, y) in pixels, ...}`."""
        if not training:
            return None
        h, w = self._hw(data.shape)
        shape = [int(data.shape[0]) if len(data.shape) == 4 else 1, 1]
        dy = self._uniform(shape, self.height_lower, self.height_upper) * float(h)
        dx = self._uniform(shape, self.width_lower, self.width_upper) * float(w)
        return {"translations": rt.concat([dx, dy], axis=1), "input_shape": tuple(data.shape)}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`images` shifted by `transformation['translations']` pixels."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        shift = rt.cast(rt.convert_to_tensor(transformation["translations"]), rt.float32)
        one, zero = rt.ones_like(shift[:, 0]), rt.zeros_like(shift[:, 0])
        matrix = rt.stack([one, zero, -shift[:, 0], zero, one, -shift[:, 1], zero, zero], axis=1)
        return self._warp(images, matrix)


class RandomCrop(_RandomImageLayer):
    """Crops a random `height x width` window, the same for the whole batch (Keras 3's
    `RandomCrop`); images not larger than that in both sides get the centred window of the
    target aspect ratio, resized. Identity at inference (as Keras 3).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomCrop(2, 2)
    >>> x = rt.reshape(rt.range(16.0), [4, 4, 1])
    >>> layer.transform_images(x, (1, 2))[:, :, 0].numpy().tolist()
    [[6.0, 7.0], [10.0, 11.0]]
    """

    def __init__(
        self,
        height: int,
        width: int,
        seed: int | None = None,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        if int(height) <= 0 or int(width) <= 0:
            raise ValueError(
                f"RandomCrop: height and width must be positive, got {height}, {width}"
            )
        self.height, self.width = int(height), int(width)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`(h_start, w_start)`: uniform over the windows inside the images when training and
        they are larger, else the centred window of the target aspect ratio."""
        h, w = self._hw(data.shape)
        if training and h > self.height and w > self.width:
            top = int(self._uniform([], 0.0, float(h - self.height + 1)).numpy())
            left = int(self._uniform([], 0.0, float(w - self.width + 1)).numpy())
            return top, left
        crop_h = max(min(h, int(float(w * self.height) / self.width)), 1)
        crop_w = max(min(w, int(float(h * self.width) / self.height)), 1)
        return int(float(h - crop_h) / 2), int(float(w - crop_w) / 2)

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The `height x width` window at `transformation = (h_start, w_start)` (resized when
        the images are smaller)."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        top, left = (int(v) for v in transformation)
        first = self.data_format == "channels_first"
        x = (
            rt.transpose(images, [1, 2, 0] if images.ndim == 3 else [0, 2, 3, 1])
            if first
            else images
        )
        x = x[..., top : top + self.height, left : left + self.width, :]
        if (int(x.shape[-3]), int(x.shape[-2])) != (self.height, self.width):
            x = _resize(x, self.height, self.width, "bilinear", False, False, False, 0.0)
        if first:
            x = rt.transpose(x, [2, 0, 1] if x.ndim == 3 else [0, 3, 1, 2])
        return x

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape with the crop's height and width."""
        shape = list(input_shape)
        at = len(shape) - (2 if self.data_format == "channels_first" else 3)
        shape[at], shape[at + 1] = self.height, self.width
        return tuple(shape)


class RandomContrast(_RandomImageLayer):
    """Scales each image's deviation from its mean by a random factor (Keras 3's
    `RandomContrast`): the factor is drawn per image from `[1 - lower, 1 + upper]`, where a
    number `f` gives `(lower, upper) = (0, f)` (Keras 3.15's bounds) and a pair is taken as
    is; the result is clipped to `value_range`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomContrast(0.5, value_range=(0, 10))
    >>> x = rt.reshape(rt.constant([2.0, 4.0]), [1, 2, 1])
    >>> layer.transform_images(x, {"contrast_factor": rt.constant(2.0)})[0, :, 0].numpy().tolist()
    [1.0, 5.0]
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        seed: int | None = None,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomContrast", "factor", factor, 0.0, 1.0)
        check_value_range("RandomContrast", value_range)
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'contrast_factor': [b, 1, 1, 1] (or [1, 1, 1])}`."""
        shape = [1, 1, 1] if len(data.shape) == 3 else [int(data.shape[0]), 1, 1, 1]
        if not training:
            return {"contrast_factor": rt.zeros(shape)}
        factor = rt.random.uniform(
            shape, 1.0 - self.factor[0], 1.0 + self.factor[1], dtype=self.dtype, seed=self.seed
        )
        return {"contrast_factor": factor}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`(images - mean) * factor + mean`, clipped to `value_range`."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        factor = rt.cast(rt.convert_to_tensor(transformation["contrast_factor"]), self.dtype)
        axes = [-2, -1] if self.data_format == "channels_first" else [-3, -2]
        mean = rt.reduce_mean(images, axis=axes, keepdims=True)
        out = (images - mean) * factor + mean
        low, high = (float(v) for v in self.value_range)
        return rt.clip_by_value(out, low, high)


class RandomBrightness(_RandomImageLayer):
    """Adds a random offset to each image (Keras 3's `RandomBrightness`): a fraction drawn
    per image from `factor` (a number `f` for `[-f, f]`, or a pair, in `[-1, 1]`) times the
    width of `value_range`; the result is clipped to `value_range`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomBrightness(0.2, value_range=(0, 1))
    >>> x = rt.fill([1, 2, 1], 0.5)
    >>> layer.transform_images(x, {"rgb_delta": rt.constant(0.7)})[0, :, 0].numpy().tolist()
    [1.0, 1.0]
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        seed: int | None = None,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomBrightness", "factor", factor, -1.0, 1.0)
        check_value_range("RandomBrightness", value_range)
        self.value_range = value_range
        self._range = sorted(float(v) for v in value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'rgb_delta': [b, 1, 1, 1] (or [1, 1, 1])}`, already scaled by the range."""
        shape = [1, 1, 1] if len(data.shape) == 3 else [int(data.shape[0]), 1, 1, 1]
        if not training:
            return {"rgb_delta": rt.zeros(shape)}
        delta = self._uniform(shape, self.factor[0], self.factor[1])
        return {"rgb_delta": delta * (self._range[1] - self._range[0])}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`images + rgb_delta`, clipped to `value_range`."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        delta = rt.cast(rt.convert_to_tensor(transformation["rgb_delta"]), images.dtype)
        return rt.clip_by_value(images + delta, self._range[0], self._range[1])
