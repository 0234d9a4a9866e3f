"""`rt.keras.activations`: Keras 3's activation functions, by function or by name.

Each is Keras's formula in rustape's differentiable ops (most through `rt.keras.ops`), so a
layer built with `activation="gelu"` or `activation=rt.keras.activations.gelu` computes what
Keras computes. `get` turns a name, a serialized config or a callable into the function.

>>> import rustape as rt
>>> rt.keras.activations.relu([-10.0, -5.0, 0.0, 5.0, 10.0], negative_slope=0.5).numpy()
array([-5. , -2.5,  0. ,  5. , 10. ], dtype=float32)
>>> rt.keras.activations.get("mish")(rt.constant([1.0])).numpy().round(4)
array([0.8651], dtype=float32)
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _rustape as _rt
from . import ops

__all__ = [
    "celu",
    "deserialize",
    "elu",
    "exponential",
    "gelu",
    "get",
    "glu",
    "hard_shrink",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "leaky_relu",
    "linear",
    "log_sigmoid",
    "log_softmax",
    "mish",
    "relu",
    "relu6",
    "selu",
    "serialize",
    "sigmoid",
    "silu",
    "soft_shrink",
    "softmax",
    "softplus",
    "softsign",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "squareplus",
    "swish",
    "tanh",
    "tanh_shrink",
    "threshold",
]


def _tensor(x: Any) -> Any:
    return x if isinstance(x, (_rt.Tensor, _rt.Variable)) else ops.convert_to_tensor(x)


def _scalar(value: float, like: Any) -> Any:
    """A Python number in `like`'s dtype (not rounded through float32)."""
    return _rt.constant(value, dtype=like.dtype)


def relu(
    x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0
) -> Any:
    """Keras's `relu`: `max(x, 0)`; with `threshold`, `x` above it and 0 below; `max_value`
    caps the result; `negative_slope` adds `negative_slope * (x - threshold)` below the
    threshold.

    >>> import rustape as rt
    >>> rt.keras.activations.relu([-10.0, -5.0, 0.0, 5.0, 10.0], threshold=5.0).numpy()
    array([ 0.,  0.,  0.,  0., 10.], dtype=float32)
    >>> rt.keras.activations.relu([-1.0, 3.0, 9.0], max_value=5.0).numpy()
    array([0., 3., 5.], dtype=float32)
    """
    x = _tensor(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return _rt.relu(x)
    if negative_slope != 0.0 and max_value is None and threshold == 0:
        return ops.leaky_relu(x, negative_slope=negative_slope)
    negative_part = None
    if negative_slope != 0.0:
        shifted = _rt.negative(x) if threshold == 0 else _scalar(threshold, x) - x
        negative_part = _rt.relu(shifted)
    clip = max_value is not None
    if threshold != 0:
        x = _rt.where(_rt.greater(x, _scalar(threshold, x)), x, _scalar(0.0, x))
    elif max_value == 6:
        x, clip = ops.relu6(x), False
    else:
        x = _rt.relu(x)
    if clip:
        x = ops.clip(x, _scalar(0.0, x), _scalar(float(max_value), x))  # type: ignore[arg-type]
    if negative_part is not None:
        x = x - _scalar(negative_slope, x) * negative_part
    return x


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    """`x` where positive, else `negative_slope * x`.

    >>> import rustape as rt
    >>> rt.keras.activations.leaky_relu([-1.0, 2.0]).numpy()
    array([-0.2,  2. ], dtype=float32)
    """
    return ops.leaky_relu(_tensor(x), negative_slope=negative_slope)


def relu6(x: Any) -> Any:
    """`min(max(x, 0), 6)`.

    >>> import rustape as rt
    >>> rt.keras.activations.relu6([-1.0, 3.0, 9.0]).numpy()
    array([0., 3., 6.], dtype=float32)
    """
    return ops.relu6(_tensor(x))


def softmax(x: Any, axis: int = -1) -> Any:
    """`exp(x) / sum(exp(x))` along `axis`.

    >>> import rustape as rt
    >>> rt.keras.activations.softmax([[0.0, 0.0]]).numpy()
    array([[0.5, 0.5]], dtype=float32)
    """
    return ops.softmax(_tensor(x), axis=axis)


def elu(x: Any, alpha: float = 1.0) -> Any:
    """`x` where positive, else `alpha * (exp(x) - 1)`.

    >>> import rustape as rt
    >>> rt.keras.activations.elu([-1.0, 2.0]).numpy().round(4)
    array([-0.6321,  2.    ], dtype=float32)
    """
    return ops.elu(_tensor(x), alpha=alpha)


def selu(x: Any) -> Any:
    """`scale * elu(x, alpha)` with Klambauer et al.'s constants.

    >>> import rustape as rt
    >>> rt.keras.activations.selu([1.0]).numpy().round(4)
    array([1.0507], dtype=float32)
    """
    return ops.selu(_tensor(x))


def softplus(x: Any) -> Any:
    """`log(exp(x) + 1)`.

    >>> import rustape as rt
    >>> rt.keras.activations.softplus([0.0]).numpy().round(4)
    array([0.6931], dtype=float32)
    """
    return ops.softplus(_tensor(x))


def softsign(x: Any) -> Any:
    """`x / (abs(x) + 1)`.

    >>> import rustape as rt
    >>> rt.keras.activations.softsign([1.0, -3.0]).numpy()
    array([ 0.5 , -0.75], dtype=float32)
    """
    return ops.softsign(_tensor(x))


def soft_shrink(x: Any, threshold: float = 0.5) -> Any:
    """`x - threshold` above `threshold`, `x + threshold` below `-threshold`, else 0.

    >>> import rustape as rt
    >>> rt.keras.activations.soft_shrink([-1.0, 0.2, 1.0]).numpy()
    array([-0.5,  0. ,  0.5], dtype=float32)
    """
    return ops.soft_shrink(_tensor(x), threshold=threshold)


def sparse_plus(x: Any) -> Any:
    """0 below -1, `(x + 1)^2 / 4` on [-1, 1], `x` above 1.

    >>> import rustape as rt
    >>> rt.keras.activations.sparse_plus([-2.0, 0.0, 2.0]).numpy()
    array([0.  , 0.25, 2.  ], dtype=float32)
    """
    return ops.sparse_plus(_tensor(x))


def silu(x: Any) -> Any:
    """`x * sigmoid(x)` (also `swish`).

    >>> import rustape as rt
    >>> rt.keras.activations.silu([0.0, 1.0]).numpy().round(4)
    array([0.    , 0.7311], dtype=float32)
    """
    return ops.silu(_tensor(x))


swish = silu


def squareplus(x: Any, b: float = 4) -> Any:
    """`(x + sqrt(x^2 + b)) / 2`.

    >>> import rustape as rt
    >>> rt.keras.activations.squareplus([0.0]).numpy()
    array([1.], dtype=float32)
    """
    return ops.squareplus(_tensor(x), b=b)


def gelu(x: Any, approximate: bool = False) -> Any:
    """`x * P(X <= x)` for a standard normal `X` (the erf form unless `approximate`).

    >>> import rustape as rt
    >>> rt.keras.activations.gelu([1.0]).numpy().round(4)
    array([0.8413], dtype=float32)
    """
    return ops.gelu(_tensor(x), approximate=approximate)


def celu(x: Any, alpha: float = 1.0) -> Any:
    """`max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.

    >>> import rustape as rt
    >>> rt.keras.activations.celu([-1.0, 2.0]).numpy().round(4)
    array([-0.6321,  2.    ], dtype=float32)
    """
    return ops.celu(_tensor(x), alpha=alpha)


def glu(x: Any, axis: int = -1) -> Any:
    """The first half of `axis` gated by the sigmoid of the second half.

    >>> import rustape as rt
    >>> rt.keras.activations.glu([2.0, 0.0]).numpy()
    array([1.], dtype=float32)
    """
    return ops.glu(_tensor(x), axis=axis)


def tanh(x: Any) -> Any:
    """The hyperbolic tangent.

    >>> import rustape as rt
    >>> rt.keras.activations.tanh([0.0]).numpy()
    array([0.], dtype=float32)
    """
    return _rt.tanh(_tensor(x))


def tanh_shrink(x: Any) -> Any:
    """`x - tanh(x)`.

    >>> import rustape as rt
    >>> rt.keras.activations.tanh_shrink([1.0]).numpy().round(4)
    array([0.2384], dtype=float32)
    """
    return ops.tanh_shrink(_tensor(x))


def hard_tanh(x: Any) -> Any:
    """`x` clipped to [-1, 1].

    >>> import rustape as rt
    >>> rt.keras.activations.hard_tanh([-2.0, 0.5, 2.0]).numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return ops.hard_tanh(_tensor(x))


def hard_shrink(x: Any, threshold: float = 0.5) -> Any:
    """`x` where `abs(x) > threshold`, else 0.

    >>> import rustape as rt
    >>> rt.keras.activations.hard_shrink([-1.0, 0.2, 1.0]).numpy()
    array([-1.,  0.,  1.], dtype=float32)
    """
    return ops.hard_shrink(_tensor(x), threshold=threshold)


def threshold(x: Any, threshold: float, default_value: float) -> Any:
    """`x` where `x > threshold`, else `default_value`.

    >>> import rustape as rt
    >>> rt.keras.activations.threshold([-1.0, 2.0], 0.0, -5.0).numpy()
    array([-5.,  2.], dtype=float32)
    """
    return ops.threshold(_tensor(x), threshold, default_value)


def sigmoid(x: Any) -> Any:
    """`1 / (1 + exp(-x))`.

    >>> import rustape as rt
    >>> rt.keras.activations.sigmoid([0.0]).numpy()
    array([0.5], dtype=float32)
    """
    return _rt.sigmoid(_tensor(x))


def exponential(x: Any) -> Any:
    """`exp(x)`.

    >>> import rustape as rt
    >>> rt.keras.activations.exponential([0.0]).numpy()
    array([1.], dtype=float32)
    """
    return _rt.exp(_tensor(x))


def hard_sigmoid(x: Any) -> Any:
    """`relu6(x + 3) / 6`.

    >>> import rustape as rt
    >>> rt.keras.activations.hard_sigmoid([-4.0, 0.0, 4.0]).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    return ops.hard_sigmoid(_tensor(x))


def log_sigmoid(x: Any) -> Any:
    """`log(sigmoid(x))`, computed without overflow.

    >>> import rustape as rt
    >>> rt.keras.activations.log_sigmoid([0.0]).numpy().round(4)
    array([-0.6931], dtype=float32)
    """
    return ops.log_sigmoid(_tensor(x))


def sparse_sigmoid(x: Any) -> Any:
    """0 below -1, `(x + 1) / 2` on [-1, 1], 1 above.

    >>> import rustape as rt
    >>> rt.keras.activations.sparse_sigmoid([-2.0, 0.0, 2.0]).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    return ops.sparse_sigmoid(_tensor(x))


def hard_silu(x: Any) -> Any:
    """`x * hard_sigmoid(x)` (also `hard_swish`).

    >>> import rustape as rt
    >>> rt.keras.activations.hard_silu([-4.0, 0.0, 4.0]).numpy()
    array([-0.,  0.,  4.], dtype=float32)
    """
    return ops.hard_silu(_tensor(x))


hard_swish = hard_silu


def linear(x: Any) -> Any:
    """`x`, unchanged.

    >>> import rustape as rt
    >>> rt.keras.activations.linear(rt.constant([-1.0])).numpy()
    array([-1.], dtype=float32)
    """
    return x


def mish(x: Any) -> Any:
    """`x * tanh(softplus(x))`.

    >>> import rustape as rt
    >>> rt.keras.activations.mish([0.0, 1.0]).numpy().round(4)
    array([0.    , 0.8651], dtype=float32)
    """
    x = _tensor(x)
    return x * _rt.tanh(_rt.softplus(x))


def log_softmax(x: Any, axis: int = -1) -> Any:
    """`x - logsumexp(x)` along `axis`.

    >>> import rustape as rt
    >>> rt.keras.activations.log_softmax([[0.0, 0.0]]).numpy().round(4)
    array([[-0.6931, -0.6931]], dtype=float32)
    """
    return ops.log_softmax(_tensor(x), axis=axis)


def sparsemax(x: Any, axis: int = -1) -> Any:
    """The Euclidean projection of `x` onto the probability simplex along `axis`.

    >>> import rustape as rt
    >>> rt.keras.activations.sparsemax([[1.0, 0.0]]).numpy()
    array([[1., 0.]], dtype=float32)
    """
    return ops.sparsemax(_tensor(x), axis=axis)


#: Every activation by its Keras name (`swish` and `hard_swish` are aliases).
_ACTIVATIONS: dict[str, Callable] = {
    name: globals()[name] for name in __all__ if name not in ("deserialize", "get", "serialize")
}


def serialize(activation: Callable) -> Any:
    """The name Keras saves for one of its activations (a registered custom function: its
    registered config).

    >>> import rustape as rt
    >>> rt.keras.activations.serialize(rt.keras.activations.gelu)
    'gelu'
    """
    for name, fn in _ACTIVATIONS.items():
        if fn is activation and name not in ("swish", "hard_swish"):
            return name
    from .saving import serialize_keras_object

    return serialize_keras_object(activation)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Callable:
    """The activation a name or a serialized config stands for.

    >>> import rustape as rt
    >>> rt.keras.activations.deserialize("relu") is rt.keras.activations.relu
    True
    """
    if isinstance(config, str):
        if custom_objects and config in custom_objects:
            return custom_objects[config]
        return get(config)
    from .saving import deserialize_keras_object

    fn = deserialize_keras_object(config, custom_objects)
    if isinstance(fn, str):
        return get(fn)
    if not callable(fn):
        # Keras raises ValueError for every identifier it cannot interpret.
        raise ValueError(f"Could not interpret activation function identifier: {config!r}")  # noqa: TRY004
    return fn


def get(identifier: Any) -> Callable:
    """The activation function for `identifier`: None (linear), a callable, a Keras name
    ('relu', 'gelu', ...) or a serialized config.

    >>> import rustape as rt
    >>> rt.keras.activations.get("relu")(rt.constant([-1.0, 1.0])).numpy()
    array([0., 1.], dtype=float32)
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier in _ACTIVATIONS:
            return _ACTIVATIONS[identifier]
        raise ValueError(
            f"Could not interpret activation function identifier: {identifier!r}; expected a "
            f"callable or one of {sorted(_ACTIVATIONS)}"
        )
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


get_activation = get
