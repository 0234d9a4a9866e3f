"""Keras 3's `RandAugment`: `num_ops` augmentations picked at random from eleven layers (shear,
translation, rotation, brightness, colour degeneration, contrast, sharpness, posterization,
solarization, auto-contrast, equalization), each at strength `factor`. The layers are this
package's own."""

from __future__ import annotations

from typing import Any

import rustape as rt

from .image_augmentation import (
    RandomBrightness,
    RandomContrast,
    RandomRotation,
    RandomTranslation,
    _RandomImageLayer,
    _training,
    check_value_range,
)
from .image_augmentation_color import AutoContrast, Solarization
from .image_augmentation_erase import Equalization, _unit_bounds
from .image_augmentation_hsv import RandomColorDegeneration, RandomPosterization, RandomSharpness
from .image_augmentation_shear import RandomShear

__all__ = ["RandAugment"]

#: Keras's order (the index `randint` draws).
_LAYERS = (
    "random_shear",
    "random_translation",
    "random_rotation",
    "random_brightness",
    "random_color_degeneration",
    "random_contrast",
    "random_sharpness",
    "random_posterization",
    "solarization",
    "auto_contrast",
    "equalization",
)


class RandAugment(_RandomImageLayer):
    """Applies `num_ops` augmentations in a row, each picked uniformly from Keras's eleven
    (Keras 3's `RandAugment`): one pick per step for the whole batch, with each layer's random
    parameters drawn once per call (a layer picked twice repeats them). `factor` (a number `f`
    for `(0, f)`, or a pair in `[0, 1]`) is every layer's strength; posterization keeps
    `max(1, int(8 * factor[1]))` bits. Seeded draws are rustape's own; with `training=False`
    the images pass unchanged.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandAugment(num_ops=2, factor=0.3, seed=7)
    >>> layer(rt.random.uniform([2, 8, 8, 3], 0, 255, seed=1)).shape
    (2, 8, 8, 3)
    """

    def __init__(
        self,
        value_range: Any = (0, 255),
        num_ops: int = 2,
        factor: Any = 0.5,
        interpolation: str = "bilinear",
        seed: int | None = None,
        data_format: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        check_value_range("RandAugment", value_range)
        if isinstance(num_ops, bool) or not isinstance(num_ops, int) or num_ops < 0:
            raise ValueError(
                f"RandAugment: num_ops must be a non-negative integer, got {num_ops!r}"
            )
        self.value_range, self.num_ops, self.interpolation = value_range, num_ops, interpolation
        self.factor = _unit_bounds("RandAugment", factor, "factor")
        f, common = self.factor, {"seed": seed, "dtype": dtype}
        ranged = {**common, "value_range": value_range}
        self._augmenters = {
            "random_shear": RandomShear(
                x_factor=f, y_factor=f, interpolation=interpolation, **common
            ),
            "random_translation": RandomTranslation(f, f, interpolation=interpolation, **common),
            "random_rotation": RandomRotation(f, interpolation=interpolation, **common),
            "random_brightness": RandomBrightness(f, **ranged),
            "random_color_degeneration": RandomColorDegeneration(f, **ranged),
            "random_contrast": RandomContrast(f, **ranged),
            "random_sharpness": RandomSharpness(f, **ranged),
            "random_posterization": RandomPosterization(max(1, int(8 * f[1])), **ranged),
            "solarization": Solarization(f, f, **ranged),
            "auto_contrast": AutoContrast(value_range=value_range, dtype=dtype),
            "equalization": Equalization(value_range=value_range, dtype=dtype),
        }

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """The picked layer indices (`[num_ops]`, int32) and every layer's parameters (None
        when not training)."""
        if not training:
            return None
        images = self._channels_last(rt.convert_to_tensor(data))
        picks = rt.random.uniform([self.num_ops], 0, len(_LAYERS), dtype=rt.int32, seed=self.seed)
        transforms = {
            key: self._augmenters[key].get_random_transformation(images, training=True)
            for key in _LAYERS
        }
        return {"layer_idxes": picks, "transforms": transforms}

    def _channels_last(self, x: Any) -> Any:
        if self.data_format == "channels_last":
            return x
        return rt.transpose(x, [1, 2, 0] if x.ndim == 3 else [0, 2, 3, 1])

    def _channels_first(self, x: Any) -> Any:
        if self.data_format == "channels_last":
            return x
        return rt.transpose(x, [2, 0, 1] if x.ndim == 3 else [0, 3, 1, 2])

    def transform_images(
        self, images: Any, transformation: Any = None, training: bool = True
    ) -> Any:
        """The picked layers applied in order (unchanged when not training)."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        x = self._channels_last(images)
        for pick in transformation["layer_idxes"].numpy().tolist():
            key = _LAYERS[int(pick)]
            x = self._augmenters[key].transform_images(
                x, transformation["transforms"][key], training=True
            )
            x = rt.cast(x, self.dtype)
        return self._channels_first(x)

    def call(self, inputs: Any, training: Any = True) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if not _training(training):
            return rt.cast(rt.convert_to_tensor(inputs), self.dtype)
        transformation = self.get_random_transformation(inputs, training=True)
        return self.transform_images(inputs, transformation, training=True)
