"""Keras 3's `RandomShear` (the shared machinery is image_augmentation.py's): a shear per image
through `rt.keras.ops.image.affine_transform`."""

from __future__ import annotations

from typing import Any

import rustape as rt

from .image_augmentation import _AffineLayer

__all__ = ["RandomShear"]


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
