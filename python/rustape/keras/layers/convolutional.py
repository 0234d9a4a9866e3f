"""`Conv1D`, `Conv2D`, `Conv3D`, their transposes, the depthwise and separable convolutions in
1-D and 2-D: Keras 3's arguments,
defaults, weight shapes and numbers, over `rt.nn`'s convolutions."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from .. import constraints, regularizers
from .._util import check_number
from ..activations import get_activation
from ..initializers import get_initializer
from ._args import (
    WEIGHT_OPTIONS,
    conv_output_length,
    deconv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    reject_options,
    to_channels_first,
    to_channels_last,
    weight_options,
)
from .base import Layer

__all__ = [
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "SeparableConv1D",
    "SeparableConv2D",
]


class _Conv(Layer):
    """A convolution over `rank` spatial axes with a kernel `kernel_size + (in // groups,
    filters)`, then the bias and the activation."""

    _rank = 2

    kernel_regularizer: Any
    kernel_constraint: Any
    bias_regularizer: Any
    bias_constraint: Any

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        cls = type(self).__name__
        options = weight_options(kwargs, ("kernel", "bias"))
        reject_options(cls, kwargs, WEIGHT_OPTIONS)
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        rank = self._rank
        self.filters = check_number(cls, "filters", filters, low=1, integer=True)
        self.groups = check_number(cls, "groups", groups, low=1, integer=True)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size", owner=cls)
        self.strides = normalize_tuple(strides, rank, "strides", owner=cls)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate", owner=cls)
        self.padding = normalize_padding(padding, allow_causal=rank == 1)
        self.data_format = normalize_data_format(data_format)
        self.activation = get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        if self.filters <= 0:
            raise ValueError(
                f"{cls}: invalid value for argument `filters`: expected a strictly "
                f"positive value, got filters={filters}"
            )
        if self.groups <= 0 or self.filters % self.groups != 0:
            raise ValueError(
                f"{cls}: the number of filters ({self.filters}) must be evenly "
                f"divisible by a positive number of groups (groups={groups})"
            )
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{cls}: `strides > 1` not supported in conjunction with "
                f"`dilation_rate > 1`. Received: strides={self.strides} and "
                f"dilation_rate={self.dilation_rate}"
            )
        self.kernel: Any = None
        self.bias: Any = None

    def _channels(self, input_shape: tuple[Any, ...]) -> int:
        if len(input_shape) != self._rank + 2:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs of rank "
                f"{self._rank + 2}, got shape {list(input_shape)}"
            )
        c = input_shape[-1] if self.data_format == "channels_last" else input_shape[1]
        if c is None:
            raise ValueError(
                f"{type(self).__name__} {self.name}: the channel dimension of the "
                f"inputs must be known, got shape {list(input_shape)}"
            )
        return int(c)

    def _kernel_shape(self, channels: int) -> tuple[int, ...]:
        if channels % self.groups != 0:
            raise ValueError(
                f"{type(self).__name__} {self.name}: the number of input channels "
                f"({channels}) must be divisible by groups={self.groups}"
            )
        return self.kernel_size + (channels // self.groups, self.filters)

    def build(self, input_shape: tuple[Any, ...]) -> None:
        shape = self._kernel_shape(self._channels(input_shape))
        self.kernel = self.add_weight(
            "kernel",
            shape,
            self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.filters,),
                self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def _convolve(self, x: Any) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = inputs if self.data_format == "channels_last" else to_channels_last(inputs)
        y = self._convolve(x)
        if self.use_bias:
            y = _rt.bias_add(y, self.bias)
        if self.data_format == "channels_first":
            y = to_channels_first(y)
        return self.activation(y)

    def _spatial_output(self, spatial: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(
            conv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The output shape for inputs of `input_shape` (None for unknown dimensions)."""
        input_shape = tuple(input_shape)
        self._channels(input_shape)
        if self.data_format == "channels_last":
            return (input_shape[0], *self._spatial_output(input_shape[1:-1]), self.filters)
        return (input_shape[0], self.filters, *self._spatial_output(input_shape[2:]))


class Conv1D(_Conv):
    """1-D convolution over `[batch, steps, channels]` (Keras 3's `Conv1D`; padding 'valid',
    'same' or 'causal').

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Conv1D(4, 3, padding="causal")
    >>> layer(rt.ones([2, 10, 3])).shape
    (2, 10, 4)
    >>> layer.kernel.shape
    (3, 3, 4)
    """

    _rank = 1

    def _convolve(self, x: Any) -> Any:
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = _rt.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        return _rt.conv1d(
            x, self.kernel, self.strides[0], padding.upper(), dilations=self.dilation_rate[0]
        )


class Conv2D(_Conv):
    """2-D convolution over `[batch, height, width, channels]` (Keras 3's `Conv2D`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")
    >>> layer(rt.ones([1, 28, 28, 1])).shape
    (1, 14, 14, 8)
    >>> layer.kernel.shape, layer.bias.shape
    ((3, 3, 1, 8), (8,))
    """

    _rank = 2

    def _convolve(self, x: Any) -> Any:
        return _rt.conv2d(
            x,
            self.kernel,
            list(self.strides),
            self.padding.upper(),
            dilations=list(self.dilation_rate),
        )


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution (Keras 3's `Conv2DTranspose`): kernel
    `kernel_size + (filters, in_channels)`, output sizes by Keras' rule (`output_padding`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Conv2DTranspose(3, 3, strides=2, padding="same")
    >>> layer(rt.ones([1, 7, 7, 8])).shape
    (1, 14, 14, 3)
    >>> layer.kernel.shape
    (3, 3, 3, 8)
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            name=name,
            dtype=dtype,
            trainable=trainable,
            **kwargs,
        )
        self.output_padding: tuple[int, ...] | None = None
        if output_padding is not None:
            owner = type(self).__name__
            self.output_padding = normalize_tuple(
                output_padding, self._rank, "output_padding", allow_zero=True, owner=owner
            )
            for p, s in zip(self.output_padding, self.strides):
                if p >= s:
                    raise ValueError(
                        f"{owner}: strides {self.strides} must be greater "
                        f"than output padding {self.output_padding}"
                    )

    def _kernel_shape(self, channels: int) -> tuple[int, ...]:
        return self.kernel_size + (self.filters, channels)

    def _spatial_output(self, spatial: tuple[Any, ...]) -> tuple[Any, ...]:
        pads = self.output_padding or (None,) * self._rank
        return tuple(
            deconv_output_length(n, k, self.padding, p, s, d)
            for n, k, p, s, d in zip(
                spatial, self.kernel_size, pads, self.strides, self.dilation_rate
            )
        )

    def _convolve(self, x: Any) -> Any:
        n, h, w, _ = x.shape
        oh, ow = self._spatial_output((h, w))
        return _rt.conv2d_transpose(
            x,
            self.kernel,
            [n, oh, ow, self.filters],
            list(self.strides),
            self.padding.upper(),
            dilations=list(self.dilation_rate),
        )


class Conv3D(_Conv):
    """3-D convolution over `[batch, depth, height, width, channels]` (Keras 3's `Conv3D`;
    kernel `kernel_size + (in_channels // groups, filters)`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Conv3D(4, 3, strides=(1, 2, 2), padding="same")
    >>> layer(rt.ones([1, 6, 8, 8, 2])).shape
    (1, 6, 4, 4, 4)
    >>> layer.kernel.shape
    (3, 3, 3, 2, 4)
    """

    _rank = 3

    def _convolve(self, x: Any) -> Any:
        return _rt.conv3d(
            x,
            self.kernel,
            list(self.strides),
            self.padding.upper(),
            dilations=list(self.dilation_rate),
        )


class Conv3DTranspose(Conv2DTranspose):
    """Transposed 3-D convolution (Keras 3's `Conv3DTranspose`): kernel
    `kernel_size + (filters, in_channels)`, output sizes by Keras' rule (`output_padding`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Conv3DTranspose(3, 2, strides=2)
    >>> layer(rt.ones([1, 2, 3, 4, 5])).shape
    (1, 4, 6, 8, 3)
    >>> layer.kernel.shape
    (2, 2, 2, 3, 5)
    """

    _rank = 3

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        output_padding: Any = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        # Keras 3 orders `data_format` before `output_padding` here (after it in 2-D).
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            output_padding=output_padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            name=name,
            dtype=dtype,
            trainable=trainable,
            **kwargs,
        )

    def _convolve(self, x: Any) -> Any:
        n, d, h, w, _ = x.shape
        return _rt.conv3d_transpose(
            x,
            self.kernel,
            [n, *self._spatial_output((d, h, w)), self.filters],
            list(self.strides),
            self.padding.upper(),
            dilations=list(self.dilation_rate),
        )


class Conv1DTranspose(Conv2DTranspose):
    """Transposed 1-D convolution over `[batch, steps, channels]` (Keras 3's
    `Conv1DTranspose`): kernel `(kernel_size, filters, in_channels)`; the 2-D op over one row.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Conv1DTranspose(3, 4, strides=2)
    >>> layer(rt.ones([2, 5, 6])).shape
    (2, 12, 3)
    >>> layer.kernel.shape
    (4, 3, 6)
    """

    _rank = 1

    def _convolve(self, x: Any) -> Any:
        n, length, _ = x.shape
        (out_length,) = self._spatial_output((length,))
        y = _rt.conv2d_transpose(
            _rt.expand_dims(x, 1),
            _rt.expand_dims(self.kernel, 0),
            [n, 1, out_length, self.filters],
            [1, self.strides[0]],
            self.padding.upper(),
            dilations=[1, self.dilation_rate[0]],
        )
        return _rt.squeeze(y, axis=[1])


class DepthwiseConv2D(_Conv):
    """Depthwise 2-D convolution (Keras 3's `DepthwiseConv2D`): each input channel convolved
    with `depth_multiplier` filters of its own; kernel `kernel_size + (in, depth_multiplier)`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    >>> layer(rt.ones([1, 5, 5, 3])).shape
    (1, 5, 5, 6)
    >>> layer.kernel.shape, layer.bias.shape
    ((3, 3, 3, 2), (6,))
    """

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        # The depthwise kernel is `kernel` here: its options are the kernel's.
        for option in ("regularizer", "constraint"):
            if f"depthwise_{option}" in kwargs:
                kwargs[f"kernel_{option}"] = kwargs.pop(f"depthwise_{option}")
        self.depth_multiplier = check_number(
            "DepthwiseConv2D", "depth_multiplier", depth_multiplier, low=1, integer=True
        )
        if self.depth_multiplier <= 0:
            raise ValueError(
                f"DepthwiseConv2D: depth_multiplier must be positive, got {depth_multiplier}"
            )
        super().__init__(
            self.depth_multiplier,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=depthwise_initializer,
            bias_initializer=bias_initializer,
            name=name,
            dtype=dtype,
            trainable=trainable,
            **kwargs,
        )

    def build(self, input_shape: tuple[Any, ...]) -> None:
        channels = self._channels(input_shape)
        self.filters = channels * self.depth_multiplier
        self.kernel = self.add_weight(
            "kernel",
            self.kernel_size + (channels, self.depth_multiplier),
            self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.filters,),
                self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    @property
    def depthwise_kernel(self) -> Any:
        """Keras' name of the kernel."""
        return self.kernel

    def _convolve(self, x: Any) -> Any:
        s = self.strides
        return _rt.depthwise_conv2d(
            x,
            self.kernel,
            [1, s[0], s[1], 1],
            self.padding.upper(),
            dilations=list(self.dilation_rate),
        )

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The output shape for inputs of `input_shape` (None for unknown dimensions)."""
        self.filters = self._channels(tuple(input_shape)) * self.depth_multiplier
        return super().compute_output_shape(input_shape)


class SeparableConv2D(_Conv):
    """A depthwise convolution (`depth_multiplier` filters per input channel) then a 1x1
    convolution to `filters` channels, then the bias and activation (Keras 3's
    `SeparableConv2D`; weights `depthwise_kernel`, `pointwise_kernel`, `bias`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.SeparableConv2D(4, 3, depth_multiplier=2, padding="same")
    >>> layer(rt.ones([1, 5, 5, 3])).shape
    (1, 5, 5, 4)
    >>> tuple(layer.depthwise_kernel.shape), tuple(layer.pointwise_kernel.shape)
    ((3, 3, 3, 2), (1, 1, 6, 4))
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        pointwise = {k: kwargs.pop(f"pointwise_{k}", None) for k in ("regularizer", "constraint")}
        # The depthwise kernel takes the kernel's options.
        for option in ("regularizer", "constraint"):
            if f"depthwise_{option}" in kwargs:
                kwargs[f"kernel_{option}"] = kwargs.pop(f"depthwise_{option}")
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=depthwise_initializer,
            bias_initializer=bias_initializer,
            name=name,
            dtype=dtype,
            trainable=trainable,
            **kwargs,
        )
        self.depth_multiplier = check_number(
            "SeparableConv2D", "depth_multiplier", depth_multiplier, low=1, integer=True
        )
        self.pointwise_initializer = get_initializer(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise["regularizer"])
        self.pointwise_constraint = constraints.get(pointwise["constraint"])
        self.depthwise_kernel: Any = None
        self.pointwise_kernel: Any = None

    def build(self, input_shape: tuple[Any, ...]) -> None:
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            self.kernel_size + (channels, self.depth_multiplier),
            self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            (1,) * self._rank + (channels * self.depth_multiplier, self.filters),
            self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.filters,),
                self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def _convolve(self, x: Any) -> Any:
        s = self.strides
        depthwise = _rt.depthwise_conv2d(
            x,
            self.depthwise_kernel,
            [1, s[0], s[1], 1],
            self.padding.upper(),
            dilations=list(self.dilation_rate),
        )
        return _rt.conv2d(depthwise, self.pointwise_kernel, [1, 1], "VALID")


def _as_2d(x: Any) -> Any:
    """`[batch, steps, channels]` as `[batch, 1, steps, channels]` (a 1-D convolution run as a
    2-D one of height 1)."""
    return _rt.expand_dims(x, 1)


class DepthwiseConv1D(DepthwiseConv2D):
    """Depthwise 1-D convolution (Keras 3's `DepthwiseConv1D`): each input channel of
    `[batch, steps, channels]` convolved with `depth_multiplier` filters of its own; kernel
    `(kernel_size, in, depth_multiplier)`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.DepthwiseConv1D(3, depth_multiplier=2, padding="same")
    >>> layer(rt.ones([1, 7, 3])).shape
    (1, 7, 6)
    """

    _rank = 1

    def _convolve(self, x: Any) -> Any:
        y = _rt.depthwise_conv2d(
            _as_2d(x),
            _rt.expand_dims(self.kernel, 0),
            [1, 1, self.strides[0], 1],
            self.padding.upper(),
            dilations=[1, self.dilation_rate[0]],
        )
        return _rt.squeeze(y, axis=[1])


class SeparableConv1D(SeparableConv2D):
    """A depthwise 1-D convolution then a pointwise one to `filters` channels, then the bias
    and activation (Keras 3's `SeparableConv1D`; kernels `(kernel_size, in,
    depth_multiplier)` and `(1, in * depth_multiplier, filters)`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.SeparableConv1D(4, 3, depth_multiplier=2)
    >>> layer(rt.ones([1, 7, 3])).shape
    (1, 5, 4)
    >>> tuple(layer.pointwise_kernel.shape)
    (1, 6, 4)
    """

    _rank = 1

    def _convolve(self, x: Any) -> Any:
        depthwise = _rt.depthwise_conv2d(
            _as_2d(x),
            _rt.expand_dims(self.depthwise_kernel, 0),
            [1, 1, self.strides[0], 1],
            self.padding.upper(),
            dilations=[1, self.dilation_rate[0]],
        )
        return _rt.conv1d(_rt.squeeze(depthwise, axis=[1]), self.pointwise_kernel, 1, "VALID")
