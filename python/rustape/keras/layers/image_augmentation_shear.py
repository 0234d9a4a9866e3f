"""Keras 3's `RandomShear` (a shear per image through `rt.keras.ops.image.affine_transform`)
and `RandomGaussianBlur` (through `rt.keras.ops.image.gaussian_blur`); the shared machinery is
image_augmentation.py's."""

from __future__ import annotations

from typing import Any

import rustape as rt

from .image_augmentation import _AffineLayer

__all__ = ["RandomGaussianBlur", "RandomShear"]


def _shear_factor(name: str, factor: Any) -> tuple[float, float]:
    """Keras's `_set_factor_with_name`: a number `f` is `(-|f|, |f|)`, a pair is sorted; every
    number in `[0, 1]`."""
    message = (
        "RandomShear: the `factor` argument should be a number (or a list of two numbers) in "
        f"the range [0, 1.0]. Received: {name}={factor!r}"
    )

    def check(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
            raise ValueError(message)
        return float(v)

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(message)
        lower, upper = sorted(check(v) for v in factor)
        return lower, upper
    f = abs(check(factor))
    return -f, f


class RandomShear(_AffineLayer):
    """Shears each image by random amounts (Keras 3's `RandomShear`): `s_x` and `s_y` drawn
    per image from `x_factor` and `y_factor` (numbers `f` for `[-f, f]`, or pairs, in
    `[0, 1]`), both negated together with probability 1/2; output pixel `(x, y)` reads the
    input at `(x + s_x y, s_y x + y)`. `fill_mode`, `fill_value` and `interpolation` as
    `rt.keras.ops.image.affine_transform`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomShear(x_factor=0.5, fill_mode="constant")
    >>> x = rt.reshape(rt.range(4.0), [1, 2, 2, 1])
    >>> t = {"shear_factor": rt.constant([[1.0, 0.0]])}
    >>> layer.transform_images(x, t)[0, :, :, 0].numpy().tolist()
    [[0.0, 1.0], [3.0, 0.0]]
    """

    def __init__(
        self,
        x_factor: Any = 0.0,
        y_factor: Any = 0.0,
        interpolation: str = "bilinear",
        fill_mode: str = "reflect",
        fill_value: float = 0.0,
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.x_factor = _shear_factor("x_factor", x_factor)
        self.y_factor = _shear_factor("y_factor", y_factor)
        self._modes(fill_mode, interpolation, fill_value)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'shear_factor': [b, 2]}` (`s_x`, `s_y` per image; None when not training)."""
        if not training:
            return None
        batch = int(data.shape[0]) if len(data.shape) == 4 else 1
        sign = rt.where(self._uniform([batch, 1], 0.0, 1.0) > 0.5, -1.0, 1.0)
        shear_y = self._uniform([batch, 1], self.y_factor[0], self.y_factor[1])
        shear_x = self._uniform([batch, 1], self.x_factor[0], self.x_factor[1])
        return {"shear_factor": rt.concat([shear_x, shear_y], axis=1) * sign}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`images` sheared by `transformation['shear_factor']`."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        shear = rt.cast(rt.convert_to_tensor(transformation["shear_factor"]), rt.float32)
        ones = rt.ones_like(shear[:, 0])
        zeros = rt.zeros_like(ones)
        matrix = rt.stack(
            [ones, shear[:, 0], zeros, shear[:, 1], ones, zeros, zeros, zeros], axis=1
        )
        return self._warp(images, matrix)


def _odd_pair(value: Any) -> tuple[int, int]:
    message = (
        f"RandomGaussianBlur: kernel_size must be an odd number. Received: kernel_size={value!r}"
    )
    if isinstance(value, (tuple, list)):
        if len(value) != 2 or value[0] % 2 == 0 or value[1] % 2 == 0:
            raise ValueError(message)
        return int(value[0]), int(value[1])
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value % 2 == 0:
        raise ValueError(message)
    return int(value), int(value)


class RandomGaussianBlur(_AffineLayer):
    """Blurs each image with probability drawn from `factor` (Keras 3's `RandomGaussianBlur`:
    a probability per image uniform in `factor`, a number `f` for `[0, f]` or a pair in
    `[0, 1]`; an image blurs when a second draw falls below it), with one pair of sigmas per
    batch drawn from `sigma` (plus 1e-6) and `keras.ops.image.gaussian_blur`'s kernel of
    `kernel_size`; the result is clipped to `value_range`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomGaussianBlur(value_range=(0, 1))
    >>> x = rt.fill([1, 3, 3, 1], 0.5)
    >>> t = {"should_apply_blur": rt.constant([True]), "blur_factor": rt.constant([1.0, 1.0])}
    >>> round(float(layer.transform_images(x, t)[0, 1, 1, 0]), 6)
    0.5
    """

    def __init__(
        self,
        factor: Any = 1.0,
        kernel_size: Any = 3,
        sigma: Any = 1.0,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        from .image_augmentation import _factor_pair, check_value_range

        self.factor = _factor_pair("RandomGaussianBlur", "factor", factor, 0.0, 1.0)
        self.kernel_size = _odd_pair(kernel_size)
        self.sigma = _factor_pair("RandomGaussianBlur", "sigma", sigma, 0.0, 1.0)
        check_value_range("RandomGaussianBlur", value_range)
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'should_apply_blur': bool [b], 'blur_factor': [2]}` (None when not training)."""
        if not training:
            return None
        batch = int(data.shape[0]) if len(data.shape) == 4 else 1
        probability = self._uniform([batch], self.factor[0], self.factor[1])
        threshold = self._uniform([batch], 0.0, 1.0)
        sigma = self._uniform([2], self.sigma[0], self.sigma[1]) + 1e-6
        return {"should_apply_blur": threshold < probability, "blur_factor": sigma}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The chosen images blurred, every image clipped to `value_range`."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        sigma = rt.convert_to_tensor(transformation["blur_factor"]).numpy().tolist()
        blurred = rt.keras.ops.image.gaussian_blur(
            images, self.kernel_size, sigma, data_format=self.data_format
        )
        chosen = rt.convert_to_tensor(transformation["should_apply_blur"])
        shape = [-1, 1, 1, 1] if images.ndim == 4 else [1, 1, 1]
        out = rt.where(rt.reshape(chosen, shape), blurred, images)
        low, high = (float(v) for v in self.value_range)
        return rt.clip_by_value(out, low, high)
