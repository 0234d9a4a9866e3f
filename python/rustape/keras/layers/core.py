"""`Dense`."""
from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from ..activations import get_activation
from ..initializers import get_initializer
from .base import Layer

__all__ = ["Dense"]


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`, with kernel `[input_dim, units]`.

    Inputs of rank above 2 are contracted on their last axis (as Keras's Dense does).
    """

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(f"Dense got unexpected keyword arguments: {sorted(kwargs)}")
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError(f"Dense: units must be a positive integer, got {units!r}")
        self.activation = get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel: Any = None
        self.bias: Any = None

    def build(self, input_shape: tuple) -> None:
        if len(input_shape) < 1 or input_shape[-1] is None:
            raise ValueError(
                f"Dense {self.name}: the last dimension of the inputs must be known, got shape "
                f"{list(input_shape)}"
            )
        in_dim = int(input_shape[-1])
        self.kernel = self.add_weight("kernel", (in_dim, self.units), self.kernel_initializer)
        if self.use_bias:
            self.bias = self.add_weight("bias", (self.units,), self.bias_initializer)
        self.built = True

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        shape = tuple(inputs.shape)
        if len(shape) == 2:
            y = _rt.matmul(inputs, self.kernel)
        elif len(shape) < 2:
            y = _rt.reshape(_rt.matmul(_rt.reshape(inputs, [1, -1]), self.kernel), [self.units])
        else:
            flat = _rt.reshape(inputs, [-1, shape[-1]])
            y = _rt.reshape(_rt.matmul(flat, self.kernel), list(shape[:-1]) + [self.units])
        if self.use_bias:
            y = _rt.add(y, self.bias)
        return self.activation(y)
