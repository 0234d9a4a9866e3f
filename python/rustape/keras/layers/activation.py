"""Activation layers (Keras 3): `Activation`, `LeakyReLU`, `ReLU`, `ELU`, `PReLU`, `Softmax`."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from ..._ops import relu6 as _relu6
from .. import constraints, regularizers
from .._util import check_number
from ..activations import get_activation
from ..initializers import get_initializer
from ._args import reject_options
from .base import Layer

__all__ = ["ELU", "Activation", "LeakyReLU", "PReLU", "ReLU", "Softmax"]


class Activation(Layer):
    """Applies an activation function (a Keras name or a callable) (Keras 3's `Activation`).

    >>> import rustape as rt
    >>> rt.keras.layers.Activation("relu")(rt.constant([-1.0, 2.0])).numpy().tolist()
    [0.0, 2.0]
    """

    supports_masking = True

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

    supports_masking = True

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


class _Elementwise(Layer):
    """A layer whose output has its input's shape."""

    supports_masking = True

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)


def _relu(x: Any, negative_slope: float, max_value: float | None, threshold: float) -> Any:
    """Keras 3's `relu(x, negative_slope, max_value, threshold)`, step for step (so gradients
    at the kinks are its too)."""
    negative_part: Any = None
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return _rt.where(_rt.greater(x, 0.0), x, _rt.multiply(x, negative_slope))
        negative_part = _rt.relu(_rt.add(_rt.negative(x), threshold))
    clip_max = max_value is not None
    if threshold != 0:
        x = _rt.multiply(x, _rt.cast(_rt.greater(x, threshold), x.dtype))
    elif max_value == 6:
        x = _relu6(x)
        clip_max = False
    else:
        x = _rt.relu(x)
    if clip_max and max_value is not None:
        x = _rt.clip_by_value(x, 0.0, max_value)
    if negative_part is not None:
        x = _rt.subtract(x, _rt.multiply(negative_part, negative_slope))
    return x


class ReLU(_Elementwise):
    """`max_value` from `max_value` up, `x` from `threshold` up, else `negative_slope * (x -
    threshold)` (Keras 3's `ReLU`; the defaults give `max(x, 0)`).

    >>> import rustape as rt
    >>> rt.keras.layers.ReLU(max_value=1.0)(rt.constant([-1.0, 0.5, 2.0])).numpy().tolist()
    [0.0, 0.5, 1.0]
    """

    def __init__(
        self,
        max_value: float | None = None,
        negative_slope: float = 0.0,
        threshold: float = 0.0,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("ReLU", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if max_value is not None:
            max_value = check_number("ReLU", "max_value", max_value, low=0.0)
        if negative_slope is None or threshold is None:
            raise ValueError("ReLU: negative_slope and threshold cannot be None")
        self.max_value = max_value
        self.negative_slope = check_number("ReLU", "negative_slope", negative_slope, low=0.0)
        self.threshold = check_number("ReLU", "threshold", threshold, low=0.0)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        return _relu(x, self.negative_slope, self.max_value, self.threshold)


class ELU(_Elementwise):
    """`x` where positive, else `alpha * (exp(x) - 1)` (Keras 3's `ELU`).

    >>> import rustape as rt
    >>> [round(float(v), 4) for v in rt.keras.layers.ELU(0.5)(rt.constant([-1.0, 2.0]))]
    [-0.3161, 2.0]
    """

    def __init__(
        self, alpha: float = 1.0, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("ELU", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.alpha = check_number("ELU", "alpha", alpha)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        if self.alpha == 1.0:
            return _rt.elu(x)
        return _rt.where(_rt.greater(x, 0.0), x, _rt.multiply(_rt.elu(x), self.alpha))


class PReLU(_Elementwise):
    """`x` where positive, else `alpha * x`, with a learned `alpha` per element of a sample
    (shared along `shared_axes`, counted with the batch axis as 0) (Keras 3's `PReLU`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.PReLU(alpha_initializer="ones", shared_axes=[1])
    >>> layer(rt.ones([2, 5, 3])).shape, tuple(layer.alpha.shape)
    ((2, 5, 3), (1, 3))
    """

    def __init__(
        self,
        alpha_initializer: Any = "zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("PReLU", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        self.alpha_initializer = get_initializer(alpha_initializer)
        if shared_axes is None:
            self.shared_axes: list[int] | None = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [int(a) for a in shared_axes]
        else:
            self.shared_axes = [int(shared_axes)]

    def build(self, input_shape: Any) -> None:
        shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            if not 1 <= axis <= len(shape):
                raise ValueError(
                    f"PReLU: shared axis {axis} is out of range for inputs of rank "
                    f"{len(input_shape)} (axis 0 is the batch)"
                )
            shape[axis - 1] = 1
        if any(d is None for d in shape):
            raise ValueError(
                f"PReLU: the sample shape {tuple(input_shape[1:])} must be known (or its unknown "
                "axes shared)"
            )
        self.alpha = self.add_weight(
            shape=shape,
            initializer=self.alpha_initializer,
            name="alpha",
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        positive = _rt.relu(x)
        negative = _rt.multiply(_rt.negative(self.alpha), _rt.relu(_rt.negative(x)))
        return _rt.add(positive, negative)


class Softmax(_Elementwise):
    """The softmax along `axis` (an int, or several axes) (Keras 3's `Softmax`). Positions
    where `mask` is False (or <= 0.5) get no weight (zeros when a whole lane is masked).

    >>> import rustape as rt
    >>> rt.keras.layers.Softmax()(rt.constant([[1.0, 1.0]])).numpy().tolist()
    [[0.5, 0.5]]
    """

    def __init__(
        self, axis: Any = -1, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("Softmax", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Any:  # type: ignore[override]
        x = _rt.convert_to_tensor(inputs)
        if mask is not None:
            mask = _rt.convert_to_tensor(mask)
            if len(mask.shape) > len(x.shape) or any(
                m != 1 and m != i for m, i in zip(mask.shape[::-1], x.shape[::-1])
            ):
                raise ValueError(
                    f"Softmax: the mask must be broadcastable to the inputs, got inputs of shape "
                    f"{tuple(x.shape)} and a mask of shape {tuple(mask.shape)}"
                )
            if mask.dtype != _rt.bool:
                mask = _rt.greater(mask, _rt.cast(0.5, mask.dtype))
            x = _rt.where(mask, x, _rt.cast(-1e9, x.dtype))
        if isinstance(self.axis, (list, tuple)) and len(self.axis) > 1:
            out = _rt.exp(
                _rt.subtract(x, _rt.reduce_logsumexp(x, axis=list(self.axis), keepdims=True))
            )
        else:
            axis = self.axis[0] if isinstance(self.axis, (list, tuple)) else self.axis
            out = _rt.softmax(x, axis=axis)
        if mask is not None:
            out = _rt.where(mask, out, _rt.zeros_like(out))
        return out
