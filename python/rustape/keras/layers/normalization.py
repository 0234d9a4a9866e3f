"""`BatchNormalization`."""
from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from ..initializers import get_initializer
from .base import Layer

__all__ = ["BatchNormalization"]


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
        name: str | None = None,
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
        self.gamma: Any = None
        self.beta: Any = None
        self.moving_mean: Any = None
        self.moving_variance: Any = None

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

    def call(self, inputs: Any, training: Any = False) -> Any:  # type: ignore[override]  # as Keras
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
