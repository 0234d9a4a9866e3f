"""Activation layers (Keras 3): `Activation`, `LeakyReLU`."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from ..activations import get_activation
from ._args import reject_options
from .base import Layer

__all__ = ["Activation", "LeakyReLU"]


class Activation(Layer):
    """Applies an activation function (a Keras name or a callable) (Keras 3's `Activation`).

    >>> import rustape as rt
    >>> rt.keras.layers.Activation("relu")(rt.constant([-1.0, 2.0])).numpy().tolist()
    [0.0, 2.0]
    """

    def __init__(
        self, activation: Any, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("Activation", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.activation = get_activation(activation)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return self.activation(inputs)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)


class LeakyReLU(Layer):
    """`x` where positive, else `negative_slope * x` (Keras 3's `LeakyReLU`, slope 0.3).

    >>> import rustape as rt
    >>> [round(float(v), 3) for v in rt.keras.layers.LeakyReLU()(rt.constant([-1.0, 2.0]))]
    [-0.3, 2.0]
    """

    def __init__(
        self, negative_slope: float = 0.3, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        if "alpha" in kwargs:  # Keras 2's name, which Keras 3 still accepts
            negative_slope = kwargs.pop("alpha")
        reject_options("LeakyReLU", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.negative_slope = check_number("LeakyReLU", "negative_slope", negative_slope, low=0.0)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return _rt.where(
            _rt.greater(inputs, 0.0), inputs, _rt.multiply(inputs, self.negative_slope)
        )

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)
