"""Keras 3's colour augmentation layers: `RandomGrayscale`, `Solarization` and `AutoContrast`
(the shared machinery is image_augmentation.py's). `AutoContrast` has no random part and, as in
Keras, applies at inference too."""

from __future__ import annotations

from typing import Any

import rustape as rt

from .image_augmentation import _RandomImageLayer, _training, check_value_range

__all__ = ["AutoContrast", "RandomGrayscale", "Solarization"]


def _value_range(owner: str, value_range: Any) -> list[float]:
    check_value_range(owner, value_range)
    return sorted(float(v) for v in value_range)


def _rescale(images: Any, source: list[float], target: list[float]) -> Any:
    """Keras's `_transform_value_range`: `images` mapped linearly from `source` to `target`."""
    if source[0] == target[0] and source[1] == target[1]:
        return images
    unit = (images - source[0]) / (source[1] - source[0])
    return unit * (target[1] - target[0]) + target[0]


class RandomGrayscale(_RandomImageLayer):
    """Turns each image grey with probability `factor` (Keras 3's `RandomGrayscale`): the
    grey level `0.2989 R + 0.5870 G + 0.1140 B` in every channel.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomGrayscale(1.0)
    >>> x = rt.reshape(rt.constant([1.0, 0.0, 0.0]), [1, 1, 1, 3])
    >>> [round(v, 4) for v in layer.transform_images(x, rt.constant([[[[True]]]]))[0, 0, 0].numpy().tolist()]
    [0.2989, 0.2989, 0.2989]
    """

    def __init__(
        self,
        factor: float = 0.5,
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        if not 0 <= factor <= 1:
            raise ValueError(
                f"RandomGrayscale: `factor` should be between 0 and 1. Received: factor={factor}"
            )
        self.factor = factor

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """Whether each image turns grey: bool `[b, 1, 1, 1]` (or `[1, 1, 1, 1]`)."""
        batch = int(data.shape[0]) if len(data.shape) == 4 else 1
        draws = self._uniform([batch], 0.0, 1.0)
        return rt.reshape(draws < float(self.factor), [batch, 1, 1, 1])

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """The images where `transformation` holds, grey."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        if transformation is None:
            transformation = self.get_random_transformation(images)
        first = self.data_format == "channels_first"
        axis = -3 if first else -1
        if int(images.shape[axis]) == 1:
            return images
        if int(images.shape[axis]) != 3:
            raise ValueError(
                "RandomGrayscale: expected 3 (RGB) or 1 (grayscale) channels, got shape "
                f"{list(images.shape)}"
            )
        weights = rt.constant([0.2989, 0.5870, 0.1140], dtype=images.dtype)
        weights = rt.reshape(weights, [3, 1, 1] if first else [3])
        grey = rt.reduce_sum(images * weights, axis=axis, keepdims=True)
        apply = rt.convert_to_tensor(transformation)
        if images.ndim == 3:
            apply = rt.reshape(apply, [1, 1, 1])
        return rt.where(apply, grey + rt.zeros_like(images), images)


class Solarization(_RandomImageLayer):
    """Adds a random amount to each image and inverts the values above a random threshold
    (Keras 3's `Solarization`), computed on the `[0, 255]` scale of `value_range`:
    `addition_factor` and `threshold_factor` are numbers `f` for `[0, f]` or pairs in `[0, 1]`
    (Keras draws from `[lower, upper * 255]`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Solarization(value_range=(0, 1))
    >>> x = rt.reshape(rt.constant([0.25, 0.75]), [1, 2, 1])
    >>> t = {"additions": rt.constant(0.0), "thresholds": rt.constant(128.0)}
    >>> layer.transform_images(x, t)[0, :, 0].numpy().tolist()
    [0.25, 0.25]
    """

    def __init__(
        self,
        addition_factor: Any = 0.0,
        threshold_factor: Any = 0.0,
        value_range: Any = (0, 255),
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, None, name, dtype, kwargs)
        self.addition_factor = self._unit_pair("addition_factor", addition_factor)
        self.threshold_factor = self._unit_pair("threshold_factor", threshold_factor)
        self.value_range = _value_range("Solarization", value_range)

    @staticmethod
    def _unit_pair(name: str, factor: Any) -> tuple[float, float]:
        message = (
            "Solarization: the `addition_factor` and `threshold_factor` arguments should be a "
            f"number (or a list of two numbers) in the range [0, 1]. Received: {name}={factor!r}"
        )
        values = list(factor) if isinstance(factor, (tuple, list)) else [0.0, factor]
        if len(values) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in values
        ):
            raise ValueError(message)
        lower, upper = sorted(float(v) for v in values)
        return lower, upper

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """`{'additions': [b, 1, 1, 1], 'thresholds': [b, 1, 1, 1]}` on the `[0, 255]` scale."""
        if not training:
            return None
        shape = [1, 1, 1] if len(data.shape) == 3 else [int(data.shape[0]), 1, 1, 1]
        low, high = self.addition_factor
        additions = rt.random.uniform(shape, low, high * 255, dtype=self.dtype, seed=self.seed)
        low, high = self.threshold_factor
        thresholds = rt.random.uniform(shape, low, high * 255, dtype=self.dtype, seed=self.seed)
        return {"additions": additions, "thresholds": thresholds}

    def transform_images(self, images: Any, transformation: Any, training: bool = True) -> Any:
        """`x + addition` clipped to `[0, 255]`, then `255 - x` where it reaches the threshold."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        additions = rt.cast(rt.convert_to_tensor(transformation["additions"]), self.dtype)
        thresholds = rt.cast(rt.convert_to_tensor(transformation["thresholds"]), self.dtype)
        x = _rescale(images, self.value_range, [0.0, 255.0])
        x = rt.clip_by_value(x + additions, 0.0, 255.0)
        x = rt.where(x < thresholds, x, 255.0 - x)
        return _rescale(x, [0.0, 255.0], self.value_range)


class AutoContrast(_RandomImageLayer):
    """Stretches each image channel to the full `value_range` (Keras 3's `AutoContrast`):
    `(x - min) * 255 / (max - min)` on the `[0, 255]` scale, per image and channel; a
    constant channel is left as it was. Applied at inference too (nothing is random).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.AutoContrast(value_range=(0, 1))
    >>> x = rt.reshape(rt.constant([0.25, 0.5, 0.75]), [1, 3, 1])
    >>> layer(x, training=False)[0, :, 0].numpy().tolist()
    [0.0, 0.5, 1.0]
    """

    def __init__(
        self,
        value_range: Any = (0, 255),
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(None, None, name, dtype, kwargs)
        self.value_range = _value_range("AutoContrast", value_range)

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """None: the layer has no random part."""
        return None

    def transform_images(
        self, images: Any, transformation: Any = None, training: bool = True
    ) -> Any:
        """Each channel of each image stretched to `value_range`."""
        original = rt.cast(rt.convert_to_tensor(images), self.dtype)
        x = _rescale(original, self.value_range, [0.0, 255.0])
        axes = [-3, -2]
        low = rt.reduce_min(x, axis=axes, keepdims=True)
        high = rt.reduce_max(x, axis=axes, keepdims=True)
        scale = 255.0 / (high - low)
        x = rt.clip_by_value(x * scale - low * scale, 0.0, 255.0)
        x = _rescale(x, [0.0, 255.0], self.value_range)
        return rt.where(rt.math.is_nan(x), original, x)

    def call(self, inputs: Any, training: Any = True) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return self.transform_images(inputs, None, training=_training(training))
