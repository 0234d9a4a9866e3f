"""The base `Layer`: lazy build on first call, weights, and the call protocol."""
from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from .._util import _as_dtype, _snake, _unique_name
from ..initializers import get_initializer

__all__ = ["Layer"]


def _is_tensor_list(x: Any) -> bool:
    """A list or tuple of tensors or variables: the inputs of a layer that takes several."""
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(
        isinstance(v, (_rt.Tensor, _rt.Variable)) for v in x
    )


def _shape_of(inputs: Any) -> Any:
    """The shape `build` gets: a tuple, or a list of tuples for several inputs."""
    if isinstance(inputs, list):
        return [tuple(v.shape) for v in inputs]
    return tuple(inputs.shape)


def _symbolic(inputs: Any) -> bool:
    if getattr(inputs, "_keras_symbolic", False):
        return True
    return isinstance(inputs, (list, tuple)) and any(
        getattr(x, "_keras_symbolic", False) for x in inputs
    )


class Layer:
    """Base class: lazy `build(input_shape)` on the first call, then `call(inputs, ...)`.

    Floating inputs are cast to the layer's dtype (float32 unless given), as Keras does.
    """

    def __init__(self, name: str | None = None, dtype: Any = None, trainable: bool = True) -> None:
        self.name = name if name is not None else _unique_name(_snake(type(self).__name__))
        self.dtype = _as_dtype(dtype)
        self.trainable = trainable
        self.built = False
        self._variables: list[Any] = []

    def add_weight(self, name: str, shape: tuple, initializer: Any, trainable: bool = True) -> Any:
        value = get_initializer(initializer)(tuple(shape), self.dtype)
        var = _rt.Variable(value, trainable=trainable, name=f"{self.name}/{name}")
        self._variables.append(var)
        return var

    @property
    def variables(self) -> list[Any]:
        """Every variable of the layer ([] before the first call)."""
        return list(self._variables)

    @property
    def weights(self) -> list[Any]:
        return self.variables

    @property
    def trainable_variables(self) -> list[Any]:
        if not self.trainable:
            return []
        return [v for v in self._variables if v.trainable]

    @property
    def trainable_weights(self) -> list[Any]:
        return self.trainable_variables

    @property
    def non_trainable_variables(self) -> list[Any]:
        if not self.trainable:
            return list(self._variables)
        return [v for v in self._variables if not v.trainable]

    @property
    def non_trainable_weights(self) -> list[Any]:
        return self.non_trainable_variables

    def build(self, input_shape: tuple) -> None:
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def _convert_input(self, x: Any) -> Any:
        if _is_tensor_list(x):  # several inputs (merging layers): each converted
            return [self._convert_input(v) for v in x]
        if isinstance(x, _rt.Variable):
            x = x.value()
        elif not isinstance(x, _rt.Tensor):
            x = _rt.convert_to_tensor(x)
        if x.dtype.is_floating and x.dtype != self.dtype:
            x = _rt.cast(x, self.dtype)
        return x

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if _symbolic(inputs):
            # rt.keras.Input's symbolic tensors: the functional API (models.py) records the call.
            from ..models import symbolic_call

            return symbolic_call(self, inputs, *args, **kwargs)
        inputs = self._convert_input(inputs)
        if not self.built:
            self.build(_shape_of(inputs))
            self.built = True
        return self.call(inputs, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<rt.layers.{type(self).__name__} name={self.name!r} built={self.built}>"
