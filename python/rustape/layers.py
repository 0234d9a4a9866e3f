"""Keras-style layers: `rt.layers.Dense` and `rt.layers.BatchNormalization` (also `rt.keras.layers`).

Layers are built lazily on their first call, from the shape of the input, with Keras's
defaults: `dense.variables` is `[]` until then. Variables are `rt.Variable`s, so a tape
watches the trainable ones as they are read.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional

from . import _rustape as _rt
from . import random as _random

__all__ = ["Layer", "Dense", "BatchNormalization", "get_activation", "get_initializer"]

_name_counts: Dict[str, int] = {}


def _unique_name(base: str) -> str:
    n = _name_counts.get(base, 0)
    _name_counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _as_dtype(dtype: Any) -> Any:
    if dtype is None:
        return _rt.float32
    if isinstance(dtype, str):
        try:
            return getattr(_rt, dtype)
        except AttributeError:
            raise TypeError(f"unknown dtype {dtype!r}") from None
    return dtype


# -- activations ----------------------------------------------------------------------------
def _linear(x: Any) -> Any:
    return x


def _swish(x: Any) -> Any:
    return _rt.multiply(x, _rt.sigmoid(x))


def _softmax(x: Any) -> Any:
    return _rt.softmax(x, axis=-1)


_ACTIVATIONS: Dict[str, Callable] = {
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
}


def get_activation(activation: Any) -> Callable:
    """A callable for `activation`: None (linear), a callable, or a Keras name ('relu', ...)."""
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


# -- initializers ---------------------------------------------------------------------------
def _fans(shape: tuple) -> tuple:
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


def _uniform(shape: tuple, dtype: Any, limit: float) -> Any:
    return _random.uniform(list(shape), minval=-limit, maxval=limit, dtype=dtype)


def _zeros(shape: tuple, dtype: Any = None) -> Any:
    return _rt.zeros(list(shape), dtype=_as_dtype(dtype))


def _ones(shape: tuple, dtype: Any = None) -> Any:
    return _rt.ones(list(shape), dtype=_as_dtype(dtype))


def _glorot_uniform(shape: tuple, dtype: Any = None) -> Any:
    fan_in, fan_out = _fans(shape)
    return _uniform(shape, _as_dtype(dtype), (6.0 / max(1.0, fan_in + fan_out)) ** 0.5)


def _he_uniform(shape: tuple, dtype: Any = None) -> Any:
    fan_in, _ = _fans(shape)
    return _uniform(shape, _as_dtype(dtype), (6.0 / max(1.0, fan_in)) ** 0.5)


def _lecun_uniform(shape: tuple, dtype: Any = None) -> Any:
    fan_in, _ = _fans(shape)
    return _uniform(shape, _as_dtype(dtype), (3.0 / max(1.0, fan_in)) ** 0.5)


def _random_uniform(shape: tuple, dtype: Any = None) -> Any:
    return _uniform(shape, _as_dtype(dtype), 0.05)


def _random_normal(shape: tuple, dtype: Any = None) -> Any:
    return _random.normal(list(shape), mean=0.0, stddev=0.05, dtype=_as_dtype(dtype))


_INITIALIZERS: Dict[str, Callable] = {
    "zeros": _zeros,
    "ones": _ones,
    "glorot_uniform": _glorot_uniform,
    "he_uniform": _he_uniform,
    "lecun_uniform": _lecun_uniform,
    "random_uniform": _random_uniform,
    "random_normal": _random_normal,
}


def get_initializer(initializer: Any) -> Callable:
    """A callable `init(shape, dtype)` for a Keras initializer name or a callable."""
    if callable(initializer):
        return initializer
    if isinstance(initializer, str) and initializer in _INITIALIZERS:
        return _INITIALIZERS[initializer]
    raise ValueError(
        f"Unknown initializer: {initializer!r}; expected a callable init(shape, dtype) or one of "
        f"{sorted(_INITIALIZERS)}"
    )


# -- layers ---------------------------------------------------------------------------------
class Layer:
    """Base class: lazy `build(input_shape)` on the first call, then `call(inputs, ...)`.

    Floating inputs are cast to the layer's dtype (float32 unless given), as Keras does.
    """

    def __init__(self, name: Optional[str] = None, dtype: Any = None, trainable: bool = True) -> None:
        self.name = name if name is not None else _unique_name(_snake(type(self).__name__))
        self.dtype = _as_dtype(dtype)
        self.trainable = trainable
        self.built = False
        self._variables: List[Any] = []

    def add_weight(self, name: str, shape: tuple, initializer: Any, trainable: bool = True) -> Any:
        value = get_initializer(initializer)(tuple(shape), self.dtype)
        var = _rt.Variable(value, trainable=trainable, name=f"{self.name}/{name}")
        self._variables.append(var)
        return var

    @property
    def variables(self) -> List[Any]:
        """Every variable of the layer ([] before the first call)."""
        return list(self._variables)

    @property
    def weights(self) -> List[Any]:
        return self.variables

    @property
    def trainable_variables(self) -> List[Any]:
        if not self.trainable:
            return []
        return [v for v in self._variables if v.trainable]

    @property
    def trainable_weights(self) -> List[Any]:
        return self.trainable_variables

    @property
    def non_trainable_variables(self) -> List[Any]:
        if not self.trainable:
            return list(self._variables)
        return [v for v in self._variables if not v.trainable]

    @property
    def non_trainable_weights(self) -> List[Any]:
        return self.non_trainable_variables

    def build(self, input_shape: tuple) -> None:
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def _convert_input(self, x: Any) -> Any:
        if isinstance(x, _rt.Variable):
            x = x.value()
        elif not isinstance(x, _rt.Tensor):
            x = _rt.convert_to_tensor(x)
        if x.dtype.is_floating and x.dtype != self.dtype:
            x = _rt.cast(x, self.dtype)
        return x

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        inputs = self._convert_input(inputs)
        if not self.built:
            self.build(tuple(inputs.shape))
            self.built = True
        return self.call(inputs, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<rt.layers.{type(self).__name__} name={self.name!r} built={self.built}>"


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
        name: Optional[str] = None,
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
        self.kernel = None
        self.bias = None

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

    def call(self, inputs: Any) -> Any:
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


class BatchNormalization(Layer):
    """Normalises over every axis but `axis` (Keras's `BatchNormalization`).

    `training=True` uses the batch's mean and (biased) variance and moves the moving statistics
    towards them (`moving = moving * momentum + batch * (1 - momentum)`, an `assign` that is not
    recorded); `training=False` (the default) uses the moving statistics.
    """

    def __init__(
        self,
        axis: Any = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        name: Optional[str] = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(f"BatchNormalization got unexpected keyword arguments: {sorted(kwargs)}")
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = get_initializer(beta_initializer)
        self.gamma_initializer = get_initializer(gamma_initializer)
        self.moving_mean_initializer = get_initializer(moving_mean_initializer)
        self.moving_variance_initializer = get_initializer(moving_variance_initializer)
        self.gamma = None
        self.beta = None
        self.moving_mean = None
        self.moving_variance = None

    def build(self, input_shape: tuple) -> None:
        ndim = len(input_shape)
        axes = []
        for a in self.axis:
            a = int(a)
            if not -ndim <= a < ndim:
                raise ValueError(
                    f"BatchNormalization {self.name}: axis {a} is out of range for inputs of rank {ndim}"
                )
            axes.append(a % ndim)
        self.axis = sorted(set(axes))
        self._ndim = ndim
        param_shape = tuple(int(input_shape[a]) for a in self.axis)
        self._param_shape = param_shape
        if self.scale:
            self.gamma = self.add_weight("gamma", param_shape, self.gamma_initializer)
        if self.center:
            self.beta = self.add_weight("beta", param_shape, self.beta_initializer)
        self.moving_mean = self.add_weight(
            "moving_mean", param_shape, self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance", param_shape, self.moving_variance_initializer, trainable=False
        )
        self.built = True

    def _broadcastable(self, t: Any, input_shape: tuple) -> Any:
        """A parameter of shape `param_shape` reshaped to broadcast against the inputs."""
        if self.axis == [self._ndim - 1]:
            return t
        shape = [int(input_shape[i]) if i in self.axis else 1 for i in range(self._ndim)]
        return _rt.reshape(t, shape)

    def call(self, inputs: Any, training: Any = False) -> Any:
        if isinstance(training, _rt.Tensor):
            training = bool(training.numpy())
        shape = tuple(inputs.shape)
        if len(shape) != self._ndim:
            raise ValueError(
                f"BatchNormalization {self.name}: built for inputs of rank {self._ndim}, got shape "
                f"{list(shape)}"
            )
        reduction_axes = [i for i in range(self._ndim) if i not in self.axis]
        # gamma is read before beta, as tf.nn.batch_normalization does (watch order).
        gamma = self._broadcastable(self.gamma.value(), shape) if self.scale else None
        beta = self._broadcastable(self.beta.value(), shape) if self.center else None
        if training:
            mean, variance = _rt.moments(inputs, reduction_axes, keepdims=True)
            # Update the moving statistics: not part of the differentiated computation.
            _rt.pause_all_tapes()
            try:
                self._move(self.moving_mean, mean)
                self._move(self.moving_variance, variance)
            finally:
                _rt.resume_all_tapes()
        else:
            mean = self._broadcastable(self.moving_mean, shape)
            variance = self._broadcastable(self.moving_variance, shape)
        return _rt.batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)

    def _move(self, moving: Any, batch_value: Any) -> None:
        value = _rt.reshape(_rt.stop_gradient(batch_value), list(self._param_shape))
        decay = 1.0 - self.momentum
        moving.assign_sub(_rt.multiply(_rt.subtract(moving.value(), value), decay))
