"""`rt.keras.activations`: activation functions by Keras name."""

from __future__ import annotations

from typing import Any, Callable

from .. import _rustape as _rt

__all__ = ["get"]


# -- activations ----------------------------------------------------------------------------
def _linear(x: Any) -> Any:
    return x


def _swish(x: Any) -> Any:
    return _rt.multiply(x, _rt.sigmoid(x))


def _softmax(x: Any) -> Any:
    return _rt.softmax(x, axis=-1)


def _hard_sigmoid(x: Any) -> Any:
    # Keras 3 (TensorFlow backend): relu6(x + 3) / 6.
    return _rt.divide(_rt.minimum(_rt.relu(_rt.add(x, 3.0)), 6.0), 6.0)


_ACTIVATIONS: dict[str, Callable] = {
    "linear": _linear,
    "relu": lambda x: _rt.relu(x),
    "elu": lambda x: _rt.elu(x),
    "tanh": lambda x: _rt.tanh(x),
    "sigmoid": lambda x: _rt.sigmoid(x),
    "softmax": _softmax,
    "softplus": lambda x: _rt.softplus(x),
    "exponential": lambda x: _rt.exp(x),
    "swish": _swish,
    "silu": _swish,
    "hard_sigmoid": _hard_sigmoid,
}


def get_activation(activation: Any) -> Callable:
    """A callable for `activation`: None (linear), a callable, or a Keras name ('relu', ...).

    >>> rt.layers.get_activation("relu")(rt.constant([-1.0, 1.0])).numpy()
    array([0., 1.], dtype=float32)
    """
    if activation is None:
        return _linear
    if callable(activation):
        return activation
    if isinstance(activation, str) and activation in _ACTIVATIONS:
        return _ACTIVATIONS[activation]
    raise ValueError(
        f"Unknown activation function: {activation!r}; expected a callable or one of "
        f"{sorted(_ACTIVATIONS)}"
    )


get = get_activation
