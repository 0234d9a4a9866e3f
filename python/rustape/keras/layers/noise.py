"""Regularisation layers that add noise while training (Keras 3): `GaussianNoise`,
`GaussianDropout`, `AlphaDropout`, `SpatialDropout1D`, `SpatialDropout2D`,
`SpatialDropout3D`. Each is the identity at inference.
`seed` is the op seed: after `rt.random.set_seed`, the same calls give the same noise."""

from __future__ import annotations

import math
from typing import Any

from ... import _rustape as _rt
from ... import random as _random
from .._util import check_number
from ._args import normalize_data_format, reject_options
from .base import Layer

__all__ = [
    "AlphaDropout",
    "GaussianDropout",
    "GaussianNoise",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
]

#: SELU's constants (Klambauer et al.): AlphaDropout sets dropped values to SELU's limit.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _training(training: Any) -> bool:
    if isinstance(training, _rt.Tensor):
        return bool(training.numpy())
    return bool(training)


class _Noise(Layer):
    supports_masking = True

    def __init__(
        self, rate: float, seed: int | None, name: str | None, dtype: Any, kwargs: dict
    ) -> None:
        owner = type(self).__name__
        reject_options(owner, kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.rate = check_number(owner, self._rate_name, rate, low=0.0, high=self._rate_high)
        self.seed = check_number(owner, "seed", seed, integer=True, none_ok=True)

    _rate_name = "rate"
    _rate_high: float | None = 1.0

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)


class GaussianNoise(_Noise):
    """Adds zero-mean Gaussian noise of standard deviation `stddev` while training.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.GaussianNoise(0.1, seed=1)
    >>> layer(rt.ones([2])).numpy().tolist()  # inference: unchanged
    [1.0, 1.0]
    >>> bool((layer(rt.ones([1000]), training=True).numpy() != 1.0).all())
    True
    """

    _rate_name = "stddev"
    _rate_high = None

    def __init__(
        self,
        stddev: float,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(stddev, seed, name, dtype, kwargs)
        self.stddev = self.rate

    def call(self, inputs: Any, training: Any = None) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if not _training(training) or self.stddev == 0:
            return inputs
        noise = _random.normal(
            list(inputs.shape), stddev=self.stddev, dtype=inputs.dtype, seed=self.seed
        )
        return inputs + noise


class GaussianDropout(_Noise):
    """Multiplies by Gaussian noise of mean 1 and standard deviation
    `sqrt(rate / (1 - rate))` while training (Keras's `GaussianDropout`).

    >>> import rustape as rt
    >>> rt.keras.layers.GaussianDropout(0.2)(rt.ones([2])).numpy().tolist()
    [1.0, 1.0]
    """

    def __init__(
        self,
        rate: float,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(rate, seed, name, dtype, kwargs)

    def call(self, inputs: Any, training: Any = None) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if not _training(training) or not 0 < self.rate < 1:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = _random.normal(
            list(inputs.shape), mean=1.0, stddev=stddev, dtype=inputs.dtype, seed=self.seed
        )
        return inputs * noise


class AlphaDropout(_Noise):
    """Dropout that keeps a SELU network's mean and variance (Keras's `AlphaDropout`): while
    training, dropped values become SELU's negative limit, then an affine map restores the
    mean and variance of inputs of mean 0 and variance 1. `noise_shape` shares draws across
    axes of length 1.

    >>> import rustape as rt
    >>> rt.keras.layers.AlphaDropout(0.2)(rt.ones([2])).numpy().tolist()
    [1.0, 1.0]
    """

    def __init__(
        self,
        rate: float,
        noise_shape: Any = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(rate, seed, name, dtype, kwargs)
        self.noise_shape = None if noise_shape is None else list(noise_shape)

    def call(self, inputs: Any, training: Any = None) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if not _training(training) or not 0 < self.rate < 1:
            return inputs
        shape = list(inputs.shape)
        noise = shape
        if self.noise_shape is not None:
            noise = [s if n is None else int(n) for n, s in zip(self.noise_shape, shape)]
        kept = _rt.cast(
            _random.uniform(noise, dtype=inputs.dtype, seed=self.seed) >= self.rate, inputs.dtype
        )
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = inputs * kept + (1 - kept) * alpha_p
        return a * x + b


class _SpatialDropout(_Noise):
    """Dropout of whole feature maps: one draw per sample and channel."""

    _rank = 1

    def __init__(
        self,
        rate: float,
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(rate, seed, name, dtype, kwargs)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any, training: Any = None) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        shape = list(inputs.shape)
        if len(shape) != self._rank + 2:
            raise ValueError(
                f"{type(self).__name__}: expected inputs of rank {self._rank + 2}, got shape "
                f"{tuple(shape)}"
            )
        if not _training(training) or self.rate == 0:
            return inputs
        if self.rate == 1:
            return _rt.zeros_like(inputs)
        if self.data_format == "channels_last":
            noise = [shape[0]] + [1] * self._rank + [shape[-1]]
        else:
            noise = shape[:2] + [1] * self._rank
        return _rt.dropout(inputs, self.rate, noise_shape=noise, seed=self.seed)


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of `[batch, steps, channels]` inputs while training (each kept
    channel scaled by `1 / (1 - rate)`).

    >>> import rustape as rt
    >>> y = rt.keras.layers.SpatialDropout1D(0.5, seed=2)(rt.ones([1, 4, 50]), training=True)
    >>> bool((y.numpy() == y.numpy()[:, :1]).all())  # the same for every step
    True
    """

    _rank = 1


class SpatialDropout2D(_SpatialDropout):
    """Drops whole feature maps of images (`channels_last` `[batch, h, w, channels]` or
    `channels_first`) while training.

    >>> import rustape as rt
    >>> y = rt.keras.layers.SpatialDropout2D(0.5, seed=3)(rt.ones([1, 3, 3, 40]), training=True)
    >>> bool((y.numpy() == y.numpy()[:, :1, :1]).all())
    True
    """

    _rank = 2


class SpatialDropout3D(_SpatialDropout):
    """Drops whole feature maps of volumes (`channels_last` `[batch, d, h, w, channels]` or
    `channels_first`) while training.

    >>> import rustape as rt
    >>> y = rt.keras.layers.SpatialDropout3D(0.5, seed=4)(rt.ones([1, 2, 2, 2, 30]), training=True)
    >>> bool((y.numpy() == y.numpy()[:, :1, :1, :1]).all())
    True
    """

    _rank = 3
