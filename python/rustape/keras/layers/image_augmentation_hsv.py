"""Keras 3's colour augmentation layers built on HSV and per-pixel arithmetic: `RandomHue`,
`RandomSaturation`, `RandomColorJitter`, `RandomInvert`, `RandomPosterization`,
`RandomColorDegeneration` and `RandomSharpness` (the shared machinery is
image_augmentation.py's). Each transform is Keras 3.15's arithmetic for given parameters,
including its quirks (`RandomSaturation` converts the images to HSV without rescaling them from
`value_range` and clips the saturation to `value_range`); the draws are rustape's."""

from __future__ import annotations

from typing import Any, Callable

import rustape as rt

from .image_augmentation import (
    RandomBrightness,
    RandomContrast,
    _factor_pair,
    _RandomImageLayer,
    check_value_range,
)
from .image_augmentation_color import _rescale, _value_range

__all__ = [
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomHue",
    "RandomInvert",
    "RandomPosterization",
    "RandomSaturation",
    "RandomSharpness",
]

_EPSILON = 1e-7  # keras.backend.epsilon()


def _batch(data: Any) -> int:
    return int(data.shape[0]) if len(data.shape) == 4 else 1


def _per_image(images: Any, fn: Callable[[Any], Any]) -> Any:
    """`fn` on `[b, h, w, c]` images (a rank-3 image gets a batch axis for the call)."""
    if images.ndim == 3:
        return rt.squeeze(fn(rt.expand_dims(images, 0)), 0)
    return fn(images)


def _channels_last(layer: Any, images: Any, fn: Callable[[Any], Any]) -> Any:
    """`fn` on channels-last `[b, h, w, c]` images, whatever the layer's data format."""
    if layer.data_format != "channels_first":
        return _per_image(images, fn)

    def moved(x: Any) -> Any:
        return rt.transpose(fn(rt.transpose(x, [0, 2, 3, 1])), [0, 3, 1, 2])

    return _per_image(images, moved)


class RandomHue(_RandomImageLayer):
    """Rotates each image's hue by a random amount (Keras 3's `RandomHue`): a factor drawn
    per image from `factor` (a number `f` for `[0, f]`, or a pair, in `[0, 1]`) with a random
    sign, halved; the images are rescaled from `value_range` to `[0, 1]`, converted to HSV,
    the hue moved (wrapped once into `[0, 1]`) and converted back, clipped and rescaled.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomHue(0.5, value_range=(0, 1))
    >>> x = rt.constant([[[[1.0, 0.0, 0.0]]]])
    >>> t = {"factor": rt.constant([1 / 3])}
    >>> layer.transform_images(x, t)[0, 0, 0].numpy().round(5).tolist()
    [0.0, 1.0, 0.0]
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomHue", "factor", factor, 0.0, 1.0)
        check_value_range("RandomHue", value_range)
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'factor': [b]}`: signed hue shifts in turns, in `[-0.5, 0.5]`."""
        batch = _batch(data)
        sign = rt.where(self._uniform([batch], 0.0, 1.0) > 0.5, -1.0, 1.0)
        factor = self._uniform([batch], self.factor[0], self.factor[1])
        return {"factor": sign * factor * 0.5}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The images with each one's hue moved by its factor."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        source = [float(v) for v in self.value_range]
        shift = rt.cast(rt.convert_to_tensor(transformation["factor"]), images.dtype)

        def apply(x: Any) -> Any:
            x = _rescale(x, source, [0.0, 1.0])
            hsv = rt.image.rgb_to_hsv(x)
            h = hsv[..., 0] + rt.reshape(shift, [-1, 1, 1])
            h = rt.where(h > 1.0, h - 1.0, h)
            h = rt.where(h < 0.0, h + 1.0, h)
            out = rt.image.hsv_to_rgb(rt.stack([h, hsv[..., 1], hsv[..., 2]], axis=-1))
            return _rescale(rt.clip_by_value(out, 0.0, 1.0), [0.0, 1.0], source)

        return _channels_last(self, images, apply)


class RandomSaturation(_RandomImageLayer):
    """Scales each image's saturation by a random factor (Keras 3's `RandomSaturation`): `u`
    drawn per image from `factor` (a number `f` for `[0, f]`, or a pair, in `[0, 1]`), the
    saturation multiplied by `u / (1 - u + 1e-7)` (0 greys, 0.5 keeps, 1 saturates) and
    clipped to `value_range`, as Keras does (without rescaling the images from `value_range`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomSaturation(0.5, value_range=(0, 1))
    >>> x = rt.constant([[[[1.0, 0.5, 0.0]]]])
    >>> layer.transform_images(x, {"factor": rt.constant([0.0])})[0, 0, 0].numpy().tolist()
    [1.0, 1.0, 1.0]
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomSaturation", "factor", factor, 0.0, 1.0)
        self.value_range = _value_range("RandomSaturation", value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'factor': [b]}`: the saturation multipliers."""
        u = self._uniform([_batch(data)], self.factor[0], self.factor[1])
        return {"factor": u / (1.0 - u + _EPSILON)}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The images with each one's saturation scaled by its factor."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        scale = rt.cast(rt.convert_to_tensor(transformation["factor"]), images.dtype)
        low, high = self.value_range

        def apply(x: Any) -> Any:
            hsv = rt.image.rgb_to_hsv(x)
            s = rt.clip_by_value(hsv[..., 1] * rt.reshape(scale, [-1, 1, 1]), low, high)
            return rt.image.hsv_to_rgb(rt.stack([hsv[..., 0], s, hsv[..., 2]], axis=-1))

        return _channels_last(self, images, apply)


class RandomInvert(_RandomImageLayer):
    """Inverts each image (`value_range[1] - x`) with a probability drawn per image from
    `factor` (Keras 3's `RandomInvert`: a number `f` for `[0, f]`, or a pair, in `[0, 1]`; an
    image inverts when a second uniform draw falls below its probability).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomInvert(value_range=(0, 1))
    >>> x = rt.constant([[[[0.25]]], [[[0.5]]]])
    >>> t = {"apply_inversion": rt.constant([True, False])}
    >>> layer.transform_images(x, t)[:, 0, 0, 0].numpy().tolist()
    [0.75, 0.5]
    """

    def __init__(
        self,
        factor: Any = 1.0,
        value_range: Any = (0, 255),
        seed: int | None = None,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomInvert", "factor", factor, 0.0, 1.0)
        check_value_range("RandomInvert", value_range)
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'apply_inversion': bool [b]}` (None when not training)."""
        if not training:
            return None
        batch = _batch(data)
        probability = self._uniform([batch], self.factor[0], self.factor[1])
        threshold = self._uniform([batch], 0.0, 1.0)
        return {"apply_inversion": threshold < probability}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`value_range[1] - images` for the images chosen."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        chosen = rt.convert_to_tensor(transformation["apply_inversion"])
        top = float(self.value_range[1])
        return _per_image(images, lambda x: rt.where(rt.reshape(chosen, [-1, 1, 1, 1]), top - x, x))


class RandomPosterization(_RandomImageLayer):
    """Keeps only the top bits of each 8-bit value (Keras 3's `RandomPosterization`): a bit
    count drawn per image from `[factor[0], factor[1])` (a number `f` for `[1, f]`, or a pair,
    in `[1, 8]`; the lower bound when they are equal); the images are rescaled to `[0, 255]`,
    truncated to integers, shifted right and left by `8 - bits`, and rescaled back.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomPosterization(2)
    >>> x = rt.constant([[[[200.0, 100.0, 37.0]]]])
    >>> t = {"shift_factor": rt.constant([6])}
    >>> layer.transform_images(x, t)[0, 0, 0].numpy().tolist()
    [192.0, 64.0, 0.0]
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomPosterization", "factor", factor, 1.0, 8.0)
        self.value_range = _value_range("RandomPosterization", value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'shift_factor': int32 [b]}`: how many low bits each image drops."""
        batch = _batch(data)
        low, high = int(self.factor[0]), int(self.factor[1])
        if low != high:
            bits = rt.random.uniform([batch], low, high, dtype=rt.int32, seed=self.seed)
        else:
            bits = rt.fill([batch], low)
        return {"shift_factor": 8 - bits}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The images with the low bits of their 8-bit values cleared."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        shift = rt.cast(rt.convert_to_tensor(transformation["shift_factor"]), images.dtype)
        step = rt.pow(rt.constant(2.0, images.dtype), shift)

        def apply(x: Any) -> Any:
            x = rt.floor(rt.clip_by_value(_rescale(x, self.value_range, [0.0, 255.0]), 0, 255))
            size = rt.reshape(step, [-1, 1, 1, 1])
            x = rt.floor(x / size) * size
            return _rescale(x, [0.0, 255.0], self.value_range)

        return _per_image(images, apply)


class RandomColorDegeneration(_RandomImageLayer):
    """Blends each image towards its greyscale version by a random factor (Keras 3's
    `RandomColorDegeneration`): `x + f (grey - x)`, `f` drawn per image from `factor` (a
    number `f` for `[0, f]`, or a pair), clipped to `value_range`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomColorDegeneration(0.5, value_range=(0, 1))
    >>> x = rt.constant([[[[1.0, 0.0, 0.0]]]])
    >>> y = layer.transform_images(x, {"factor": rt.ones([1, 1, 1, 1])})
    >>> [round(v, 4) for v in y[0, 0, 0].numpy().tolist()]
    [0.2989, 0.2989, 0.2989]
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomColorDegeneration", "factor", factor, -1.0, 1.0)
        self.value_range = _value_range("RandomColorDegeneration", value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'factor': [b, 1, 1, 1]}`."""
        shape = [_batch(data), 1, 1, 1]
        return {"factor": self._uniform(shape, self.factor[0], self.factor[1])}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """Each image blended towards grey by its factor."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        factor = rt.cast(rt.convert_to_tensor(transformation["factor"]), images.dtype)
        low, high = self.value_range

        def apply(x: Any) -> Any:
            grey = rt.image.rgb_to_grayscale(x)
            return rt.clip_by_value(x + factor * (grey - x), low, high)

        return _channels_last(self, images, apply)


class RandomSharpness(_RandomImageLayer):
    """Sharpens or blurs each image by a random factor (Keras 3's `RandomSharpness`): with the
    smoothing filter `[[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13` (SAME padding, per channel),
    `x + (1 - 2 f) (smooth - x)`, `f` drawn per image from `factor` (a number `f` for
    `[0, f]`, or a pair, in `[0, 1]`; 0.5 keeps the image), clipped to `value_range`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomSharpness(0.5, value_range=(0, 1))
    >>> x = rt.fill([1, 3, 3, 1], 0.5)
    >>> layer.transform_images(x, {"factor": rt.constant([0.0])})[0, 1, 1, 0].numpy().round(6)
    np.float32(0.5)
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _factor_pair("RandomSharpness", "factor", factor, 0.0, 1.0)
        self.value_range = _value_range("RandomSharpness", value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'factor': [b]}`."""
        return {"factor": self._uniform([_batch(data)], self.factor[0], self.factor[1])}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """Each image moved away from (or towards) its smoothed version."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        factor = rt.cast(rt.convert_to_tensor(transformation["factor"]), images.dtype) * 2.0
        low, high = self.value_range

        def apply(x: Any) -> Any:
            channels = int(x.shape[-1])
            a, b = 1.0 / 13.0, 5.0 / 13.0
            kernel = rt.constant([[a, a, a], [a, b, a], [a, a, a]], dtype=x.dtype)
            kernel = rt.tile(rt.reshape(kernel, [3, 3, 1, 1]), [1, 1, channels, 1])
            smooth = rt.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "SAME")
            f = rt.reshape(factor, [-1, 1, 1, 1])
            return rt.clip_by_value(x + (1.0 - f) * (smooth - x), low, high)

        return _channels_last(self, images, apply)


class RandomColorJitter(_RandomImageLayer):
    """Keras 3's `RandomColorJitter`: `RandomBrightness`, `RandomContrast`,
    `RandomSaturation` and `RandomHue` in that order, each only when its factor is given,
    each with its own draw.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomColorJitter(value_range=(0, 1), brightness_factor=0.1)
    >>> y = layer(rt.fill([2, 4, 4, 3], 0.5), training=True).numpy()
    >>> bool((abs(y - 0.5) <= 0.1 + 1e-6).all())
    True
    """

    def __init__(
        self,
        value_range: Any = (0, 255),
        brightness_factor: Any = None,
        contrast_factor: Any = None,
        saturation_factor: Any = None,
        hue_factor: Any = None,
        seed: int | None = None,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        check_value_range("RandomColorJitter", value_range)
        self.value_range = value_range
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        common = {"value_range": value_range, "seed": seed, "data_format": data_format}
        steps: list[Any] = []
        if brightness_factor is not None:
            steps.append(RandomBrightness(brightness_factor, dtype=dtype, **common))
        if contrast_factor is not None:
            steps.append(RandomContrast(contrast_factor, dtype=dtype, **common))
        if saturation_factor is not None:
            steps.append(RandomSaturation(saturation_factor, dtype=dtype, **common))
        if hue_factor is not None:
            steps.append(RandomHue(hue_factor, dtype=dtype, **common))
        self._steps = steps

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """None: each step draws its own parameters as it runs."""
        return None

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The images through each configured step, with fresh draws."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        for step in self._steps:
            images = step.transform_images(
                images, step.get_random_transformation(images), training=True
            )
        return images
