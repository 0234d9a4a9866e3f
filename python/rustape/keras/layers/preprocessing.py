"""Preprocessing layers (Keras 3): `Rescaling` scales and shifts inputs, `Normalization`
standardises them with a mean and variance given or learned by `adapt(data)`."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ... import _rustape as _rt
from ..._ops import reduce_variance
from .._util import check_number
from ._args import reject_options
from .base import Layer

__all__ = ["Normalization", "Rescaling"]

#: Keras's `backend.epsilon()`: the smallest standard deviation Normalization divides by.
_EPSILON = 1e-7


class Rescaling(Layer):
    """`inputs * scale + offset` (each a number or per-channel values), in the layer's dtype:
    `Rescaling(1 / 255)` turns pixel values into [0, 1].

    >>> import rustape as rt
    >>> rt.keras.layers.Rescaling(1 / 127.5, offset=-1)(rt.constant([0.0, 255.0])).numpy()
    array([-1.,  1.], dtype=float32)
    """

    def __init__(
        self,
        scale: Any,
        offset: Any = 0.0,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Rescaling", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.scale = scale
        self.offset = offset

    def _convert_input(self, x: Any) -> Any:
        # Images arrive as integers (uint8 pixels): cast them too, not only other floats.
        x = x if isinstance(x, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(x)
        return _rt.cast(x, self.dtype)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        scale = _rt.cast(_rt.convert_to_tensor(self.scale), self.dtype)
        offset = _rt.cast(_rt.convert_to_tensor(self.offset), self.dtype)
        return inputs * scale + offset

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)


class Normalization(Layer):
    """`(inputs - mean) / max(sqrt(variance), 1e-7)` per position of `axis` (the last by
    default; None for one mean over everything), `mean + inputs * std` with `invert=True`.
    The mean and variance are given, or learned from data by `adapt(data)` (an array or
    tensor, or an iterable of batches), as Keras does; they are the layer's non-trainable
    weights `mean`, `variance` (and Keras's `count`).

    >>> import numpy as np, rustape as rt
    >>> layer = rt.keras.layers.Normalization()
    >>> layer.adapt(np.array([[1.0, 10.0], [3.0, 30.0]]))
    >>> layer(np.array([[2.0, 30.0]])).numpy().tolist()
    [[0.0, 1.0]]
    """

    supports_masking = True

    def __init__(
        self,
        axis: Any = -1,
        mean: Any = None,
        variance: Any = None,
        invert: bool = False,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Normalization", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if axis is None:
            self.axis: tuple[int, ...] = ()
        elif isinstance(axis, int):
            self.axis = (axis,)
        else:
            self.axis = tuple(check_number("Normalization", "axis", a, integer=True) for a in axis)
        if (mean is None) != (variance is None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Received: mean={mean} and variance={variance}"
            )
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(
                    "When setting values directly, `mean` and `variance` must have the same "
                    f"shape. Received: mean shape {np.shape(mean)} and variance shape "
                    f"{np.shape(variance)}"
                )
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(
                    "The rank of `mean` must be less than or equal to the number of axes "
                    f"({len(self.axis)}). Received: mean shape {np.shape(mean)} for axis "
                    f"{self.axis}"
                )
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self.mean: Any = None
        self.variance: Any = None

    def build(self, input_shape: tuple[Any, ...]) -> None:
        ndim = len(input_shape)
        if any(not -ndim <= a < ndim for a in self.axis):
            raise ValueError(
                "All `axis` values must be in the range [-ndim, ndim). Received inputs with "
                f"ndim={ndim}, while axis={self.axis}"
            )
        self._keep = tuple(sorted(a % ndim for a in self.axis))
        for a in self._keep:
            if input_shape[a] is None:
                raise ValueError(
                    f"All `axis` values to be kept must have a known shape. Received "
                    f"axis={self.axis}, inputs.shape={tuple(input_shape)}"
                )
        self._reduce = tuple(d for d in range(ndim) if d not in self._keep)
        self._broadcast = [int(input_shape[d]) if d in self._keep else 1 for d in range(ndim)]
        self._kept_shape = tuple(int(input_shape[d]) for d in self._keep)
        self._input_shape = tuple(input_shape)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(
                name="mean", shape=self._kept_shape, initializer="zeros", trainable=False
            )
            self.adapt_variance = self.add_weight(
                name="variance", shape=self._kept_shape, initializer="ones", trainable=False
            )
            self.count = self.add_weight(
                name="count", shape=(), dtype="int64", initializer="zeros", trainable=False
            )
            self.built = True  # before adapt: mean 0, variance 1 (Keras's)
            self.finalize_state()
        else:
            self.mean, self.variance = (
                self._broadcast_given(self.input_mean),
                self._broadcast_given(self.input_variance),
            )

    def _broadcast_given(self, value: Any) -> Any:
        t = _rt.cast(_rt.convert_to_tensor(value), self.dtype)
        if len(t.shape) > 0:
            # The given values align with the last kept axes.
            expanded = [1] * len(self._broadcast)
            for i in range(1, len(t.shape) + 1):
                expanded[self._keep[-i]] = int(t.shape[-i])
            t = _rt.reshape(t, expanded)
        return _rt.broadcast_to(t, self._broadcast)

    def finalize_state(self) -> None:
        """Reads the adapted mean and variance into the broadcast `mean` and `variance`."""
        if self.input_mean is not None or not self.built:
            return
        self.mean = _rt.cast(_rt.reshape(self.adapt_mean, self._broadcast), self.dtype)
        self.variance = _rt.cast(_rt.reshape(self.adapt_variance, self._broadcast), self.dtype)

    def adapt(self, data: Any) -> None:
        """Learns the mean and variance over every axis but `axis` from `data`: an array or
        tensor, or an iterable of batches (merged as Keras merges them)."""
        if isinstance(data, (np.ndarray, _rt.Tensor, _rt.Variable)):
            batches: Iterable[Any] = [data]
            shape = tuple(data.shape)
        elif hasattr(data, "__iter__"):
            items = list(data)
            if not items:
                raise ValueError("Normalization.adapt: received an empty iterable (no batches)")
            batches, shape = items, tuple(np.shape(items[0]))
        else:
            raise TypeError(
                f"Normalization.adapt: unsupported data type {type(data).__name__}; expected an "
                "array, a tensor or an iterable of batches"
            )
        if not self.built:
            self.build(shape)
            self.built = True
        elif any(shape[d] != self._input_shape[d] for d in self._keep):
            raise ValueError(
                f"Normalization.adapt: the layer was built with input_shape="
                f"{self._input_shape}, but adapt() got data of shape {shape}"
            )
        if self.input_mean is not None:
            raise ValueError("Normalization.adapt: the mean and variance were given")
        axes = list(self._reduce)

        def moments(x: Any) -> tuple[Any, Any]:
            if not axes:
                return x, _rt.zeros_like(x)
            return _rt.reduce_mean(x, axis=axes), reduce_variance(x, axis=axes)

        if isinstance(data, np.ndarray):
            # A NumPy array in float64 (Keras's np.mean and np.var).
            total_mean, total_var = moments(_rt.constant(np.asarray(data, dtype=np.float64)))
        else:
            # Tensors and batches in the layer's dtype, batches merged as Keras merges them.
            total_mean = total_var = _rt.zeros(list(self._kept_shape), dtype=self.dtype)
            count = 0
            for batch in batches:
                x = _rt.cast(_rt.convert_to_tensor(batch), self.dtype)
                mean, var = moments(x)
                n = math.prod(int(x.shape[d]) for d in axes)
                count += n
                w = n / count
                new_mean = total_mean * (1 - w) + mean * w
                total_var = (total_var + (total_mean - new_mean) ** 2) * (1 - w) + (
                    var + (mean - new_mean) ** 2
                ) * w
                total_mean = new_mean
        self.adapt_mean.assign(_rt.cast(total_mean, self.adapt_mean.dtype))
        self.adapt_variance.assign(_rt.cast(total_var, self.adapt_variance.dtype))
        self.finalize_state()

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if self.mean is None:
            raise ValueError("Normalization: call `build(input_shape)` or `adapt(data)` first")
        std = _rt.maximum(_rt.sqrt(self.variance), _rt.cast(_EPSILON, self.variance.dtype))
        if self.invert:
            return self.mean + inputs * std
        return (inputs - self.mean) / std

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)
