"""Normalisation layers (Keras 3): `BatchNormalization`, `LayerNormalization`,
`GroupNormalization`, `UnitNormalization`, `RMSNormalization`."""

from __future__ import annotations

from typing import Any

from ... import _ops
from ... import _rustape as _rt
from .._util import check_number
from ..initializers import get_initializer
from ._args import weight_options
from .base import Layer

__all__ = [
    "BatchNormalization",
    "GroupNormalization",
    "LayerNormalization",
    "RMSNormalization",
    "UnitNormalization",
]


def _axes(owner: str, axis: Any) -> list[int]:
    """`axis` (an int or a sequence of ints) as a list of ints (ranges are checked at build)."""
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    return [check_number(owner, "axis", a, integer=True) for a in axes]


def _scale_or_offset(layer: Layer, name: str, shape: tuple[int, ...]) -> Any:
    """`gamma` or `beta` with the layer's initializer, regularizer and constraint for it."""
    return layer.add_weight(
        name,
        shape,
        getattr(layer, f"{name}_initializer"),
        regularizer=getattr(layer, f"{name}_regularizer"),
        constraint=getattr(layer, f"{name}_constraint"),
    )


class BatchNormalization(Layer):
    """Normalises over every axis but `axis` (Keras's `BatchNormalization`).

    `training=True` (on a trainable layer) uses the batch's mean and (biased) variance and moves
    the moving statistics towards them (`moving = moving * momentum + batch * (1 - momentum)`,
    Keras 3's expression, an `assign` that is not recorded); otherwise (the default) it uses the
    moving statistics.

    >>> import rustape as rt
    >>> bn = rt.keras.layers.BatchNormalization()
    >>> bn(rt.ones([4, 3]), training=True).shape
    (4, 3)
    >>> [round(float(v), 4) for v in bn.moving_mean.numpy()]
    [0.01, 0.01, 0.01]
    """

    supports_masking = True

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
        options = weight_options(kwargs, ("beta", "gamma"))
        if kwargs:
            raise TypeError(
                f"BatchNormalization got unexpected keyword arguments: {sorted(kwargs)}"
            )
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        owner = "BatchNormalization"
        self.axis = _axes(owner, axis)
        self.momentum = check_number(owner, "momentum", momentum)
        self.epsilon = check_number(owner, "epsilon", epsilon, low=0.0)
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
        """Creates `gamma`, `beta` and the moving mean and variance for the last axis."""
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
            self.gamma = _scale_or_offset(self, "gamma", param_shape)
        if self.center:
            self.beta = _scale_or_offset(self, "beta", param_shape)
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
        """Normalises with the batch's statistics when `training` (updating the moving ones), else with the moving ones."""
        if isinstance(training, _rt.Tensor):
            training = bool(training.numpy())
        shape = tuple(inputs.shape)
        if len(shape) != self._ndim:
            raise ValueError(
                f"BatchNormalization {self.name}: built for inputs of rank {self._ndim}, got shape "
                f"{list(shape)}"
            )
        sizes = tuple(int(shape[a]) for a in self.axis)
        if sizes != self._param_shape:
            # Broadcasting would pass (a size 1 against the parameters' size) and be wrong.
            raise ValueError(
                f"BatchNormalization {self.name}: built for size {self._param_shape} along axis "
                f"{self.axis}, got inputs of shape {list(shape)}"
            )
        reduction_axes = [i for i in range(self._ndim) if i not in self.axis]
        # gamma is read before beta, as tf.nn.batch_normalization does (watch order).
        gamma = self._broadcastable(self.gamma.value(), shape) if self.scale else None
        beta = self._broadcastable(self.beta.value(), shape) if self.center else None
        if training and self.trainable:
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
        moving.assign(
            _rt.add(
                _rt.multiply(moving.value(), self.momentum),
                _rt.multiply(value, 1.0 - self.momentum),
            )
        )

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        """The input shape."""
        return tuple(input_shape)


class LayerNormalization(Layer):
    """Normalises each sample over `axis` (Keras 3's `LayerNormalization`: epsilon 1e-3,
    `x * inv + (beta - mean * inv)` with `inv = gamma / sqrt(variance + epsilon)`;
    `rms_scaling=True` divides by the root mean square instead, without centring).

    >>> import rustape as rt
    >>> ln = rt.keras.layers.LayerNormalization()
    >>> y = ln(rt.constant([[1.0, 2.0, 3.0]]))
    >>> [round(float(v), 3) for v in y.numpy()[0]]
    [-1.224, 0.0, 1.224]
    """

    supports_masking = True

    def __init__(
        self,
        axis: Any = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        rms_scaling: bool = False,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        options = weight_options(kwargs, ("beta", "gamma"))
        for key in ("input_shape", "batch_size"):
            if key in kwargs and kwargs[key] is None:
                del kwargs[key]
        if kwargs:
            raise TypeError(
                f"LayerNormalization got unexpected keyword arguments: {sorted(kwargs)}"
            )
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        self.axis = _axes("LayerNormalization", axis)
        self.epsilon = check_number("LayerNormalization", "epsilon", epsilon, low=0.0)
        self.rms_scaling = bool(rms_scaling)
        self.center = bool(center) and not self.rms_scaling
        self.scale = bool(scale)
        self.beta_initializer = get_initializer(beta_initializer)
        self.gamma_initializer = get_initializer(gamma_initializer)
        self.gamma: Any = None
        self.beta: Any = None

    def _axes(self, ndim: int) -> list:
        axes = []
        for a in self.axis:
            a = int(a)
            if not -ndim <= a < ndim:
                raise ValueError(
                    f"LayerNormalization {self.name}: axis {a} is out of bounds for "
                    f"inputs of rank {ndim}"
                )
            axes.append(a % ndim)
        return sorted(set(axes))

    def build(self, input_shape: tuple) -> None:
        self.axis = self._axes(len(input_shape))
        shape = tuple(int(input_shape[a]) for a in self.axis)
        self._param_shape = shape
        if self.scale:
            self.gamma = _scale_or_offset(self, "gamma", shape)
        if self.center:
            self.beta = _scale_or_offset(self, "beta", shape)
        self.built = True

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        shape = tuple(inputs.shape)
        ndim = len(shape)
        axes = self._axes(ndim)
        sizes = tuple(int(shape[a]) for a in axes)
        if (self.scale or self.center) and sizes != self._param_shape:
            # Broadcasting would pass (a size 1 against the parameters' size) and be wrong.
            raise ValueError(
                f"LayerNormalization {self.name}: built for size {self._param_shape} along axis "
                f"{axes}, got inputs of shape {list(shape)}"
            )

        def broadcast(v: Any) -> Any:
            if v is None or axes == [ndim - 1]:
                return v
            return _rt.reshape(v, [int(shape[i]) if i in axes else 1 for i in range(ndim)])

        gamma = broadcast(self.gamma.value()) if self.scale else None
        if self.rms_scaling:
            mean = _rt.reduce_mean(inputs, axis=axes, keepdims=True)
            variance = _rt.reduce_mean(
                _rt.square(_rt.subtract(inputs, mean)), axis=axes, keepdims=True
            )
            out = _rt.multiply(inputs, _ops.rsqrt(_rt.add(variance, self.epsilon)))
            return out if gamma is None else _rt.multiply(out, gamma)
        beta = broadcast(self.beta.value()) if self.center else None
        mean, variance = _rt.moments(inputs, axes, keepdims=True)
        inv = _ops.rsqrt(_rt.add(variance, self.epsilon))
        if gamma is not None:
            inv = _rt.multiply(inv, gamma)
        res = _rt.multiply(_rt.negative(mean), inv)
        if beta is not None:
            res = _rt.add(res, beta)
        return _rt.add(_rt.multiply(inputs, inv), res)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        """The input shape."""
        self._axes(len(tuple(input_shape)))
        return tuple(input_shape)


class GroupNormalization(Layer):
    """Normalises each sample over groups of channels (Keras 3's `GroupNormalization`): the
    `axis` channels split into `groups` (-1: one per channel, instance normalization), each
    group standardised over its channels and every other non-batch axis, then scaled by
    `gamma` and shifted by `beta` per channel.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.GroupNormalization(groups=2)
    >>> y = layer(rt.reshape(rt.range(16.0), [1, 2, 2, 4]))
    >>> y.shape, tuple(layer.gamma.shape)
    ((1, 2, 2, 4), (4,))
    """

    supports_masking = True
    beta_regularizer: Any
    beta_constraint: Any
    gamma_regularizer: Any
    gamma_constraint: Any

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        options = weight_options(kwargs, ("beta", "gamma"))
        for key in ("input_shape", "batch_size"):
            if key in kwargs and kwargs[key] is None:
                del kwargs[key]
        if kwargs:
            raise TypeError(
                f"GroupNormalization got unexpected keyword arguments: {sorted(kwargs)}"
            )
        owner = "GroupNormalization"
        groups = check_number(owner, "groups", groups, low=-1, integer=True)
        if groups == 0:
            raise ValueError(
                "Received an invalid value for argument `groups`, expected a positive integer "
                f"(or `-1` for instance normalization). Received: groups={groups}"
            )
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        self.groups = groups
        self.axis = check_number(owner, "axis", axis, integer=True)
        self.epsilon = check_number(owner, "epsilon", epsilon, low=0.0)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = get_initializer(beta_initializer)
        self.gamma_initializer = get_initializer(gamma_initializer)
        self.gamma: Any = None
        self.beta: Any = None

    def build(self, input_shape: tuple) -> None:
        ndim = len(input_shape)
        if not -ndim <= self.axis < ndim:
            raise ValueError(
                f"GroupNormalization {self.name}: axis {self.axis} is out of range for inputs "
                f"of rank {ndim}"
            )
        self.axis %= ndim
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                f"received an input with shape {tuple(input_shape)}."
            )
        if self.groups == -1:
            self.groups = int(dim)
        if dim < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number of channels "
                f"({dim})."
            )
        if dim % self.groups != 0:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                f"({dim})."
            )
        if self.scale:
            self.gamma = _scale_or_offset(self, "gamma", (int(dim),))
        if self.center:
            self.beta = _scale_or_offset(self, "beta", (int(dim),))

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        shape = [int(d) for d in inputs.shape]
        grouped_shape = list(shape)
        grouped_shape[self.axis] = shape[self.axis] // self.groups
        grouped_shape.insert(self.axis, self.groups)
        grouped = _rt.reshape(inputs, grouped_shape)
        # Over everything but the batch and the group axis.
        axes = [a for a in range(1, len(grouped_shape)) if a != self.axis]
        mean = _rt.reduce_mean(grouped, axis=axes, keepdims=True)
        variance = _ops.reduce_variance(grouped, axis=axes, keepdims=True)
        inv = _ops.rsqrt(variance + _rt.cast(self.epsilon, grouped.dtype))
        per_channel = [1] * len(grouped_shape)
        per_channel[self.axis] = self.groups
        per_channel[self.axis + 1] = shape[self.axis] // self.groups
        if self.scale:
            inv = inv * _rt.reshape(self.gamma, per_channel)
        offset = -mean * inv
        if self.center:
            offset = offset + _rt.reshape(self.beta, per_channel)
        return _rt.reshape(grouped * inv + offset, shape)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        """The input shape."""
        return tuple(input_shape)


def _checked_axes(owner: str, name: str, axes: list[int], ndim: int) -> list[int]:
    """`axes` within a rank-`ndim` input, non-negative and sorted."""
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{owner} {name}: axis {a} is out of bounds for inputs of rank {ndim}")
    return sorted({a % ndim for a in axes})


class UnitNormalization(Layer):
    """Scales each sample to unit L2 norm over `axis` (Keras 3's `UnitNormalization`:
    `keras.ops.normalize` with epsilon 1e-12).

    >>> import rustape as rt
    >>> rt.keras.layers.UnitNormalization()(rt.constant([[3.0, 4.0]])).numpy()
    array([[0.6, 0.8]], dtype=float32)
    """

    supports_masking = True

    def __init__(
        self, axis: Any = -1, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        from ._args import reject_options

        reject_options("UnitNormalization", kwargs, ("input_shape", "batch_size"))
        if not isinstance(axis, (int, list, tuple)) or isinstance(axis, bool):
            raise TypeError(
                f"UnitNormalization: `axis` must be an int or a list/tuple of ints, got {axis!r}"
            )
        super().__init__(name=name, dtype=dtype)
        self.axis = list(_axes("UnitNormalization", axis)) if not isinstance(axis, int) else axis

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        from .. import ops

        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = _checked_axes("UnitNormalization", self.name, axes, len(inputs.shape))
        return ops.normalize(inputs, axis=axes, order=2, epsilon=1e-12)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input shape."""
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        _checked_axes("UnitNormalization", self.name, axes, len(input_shape))
        return tuple(input_shape)


class RMSNormalization(Layer):
    """Divides each sample by its root mean square over `axis` and multiplies by a learned
    `scale` (Keras 3's `RMSNormalization`: `x * rsqrt(mean(x^2) + epsilon) * scale`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RMSNormalization(epsilon=0.0)
    >>> [round(v, 4) for v in layer(rt.constant([[3.0, 4.0]])).numpy()[0].tolist()]
    [0.8485, 1.1314]
    """

    supports_masking = True

    def __init__(
        self,
        axis: Any = -1,
        epsilon: float = 1e-6,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        from ._args import reject_options

        reject_options("RMSNormalization", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.axis = axis if isinstance(axis, int) else list(_axes("RMSNormalization", axis))
        self.epsilon = check_number("RMSNormalization", "epsilon", epsilon, low=0.0)
        self.scale: Any = None

    def build(self, input_shape: tuple) -> None:
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = _checked_axes("RMSNormalization", self.name, axes, len(input_shape))
        self._axes = axes
        shape = tuple(int(input_shape[a]) for a in axes)
        self.scale = self.add_weight("scale", shape, get_initializer("ones"))
        self.built = True

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        from .. import ops

        return ops.rms_normalization(
            inputs, scale=self.scale, axis=self._axes, epsilon=self.epsilon
        )

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input shape."""
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        _checked_axes("RMSNormalization", self.name, axes, len(input_shape))
        return tuple(input_shape)
