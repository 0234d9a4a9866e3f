"""Keras 3's `keras.ops` convolutions, pooling and `dot_product_attention`: `rt.nn`'s
channels-last kernels, with `data_format="channels_first"` transposed around them (as Keras's
TensorFlow backend does on the CPU)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from ... import linalg as _linalg
from ... import nn as _nn
from ._core import result_type, tensor

_FORMATS = ("channels_last", "channels_first")


def _format(data_format: str | None) -> str:
    fmt = "channels_last" if data_format is None else str(data_format).lower()
    if fmt not in _FORMATS:
        raise ValueError(
            f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
            f"Received: data_format={data_format}"
        )
    return fmt


def _spatial(inputs: Any, op: str, allowed: Sequence[int] = (1, 2, 3)) -> int:
    dims = len(inputs.shape) - 2
    if dims not in allowed:
        raise ValueError(
            f"{op}: inputs must have rank {', '.join(str(d + 2) for d in allowed)} (batch, "
            f"spatial axes, channels), got shape {tuple(inputs.shape)}"
        )
    return dims


def _last(x: Any) -> Any:
    """channels_first -> channels_last."""
    n = len(x.shape)
    return _rt.transpose(x, [0, *range(2, n), 1])


def _first(x: Any) -> Any:
    """channels_last -> channels_first."""
    n = len(x.shape)
    return _rt.transpose(x, [0, n - 1, *range(1, n - 1)])


def _tuple(value: Any, dims: int) -> list[int]:
    return [int(value)] * dims if isinstance(value, int) else [int(v) for v in value]


def _kernel_op(dims: int, op: str) -> Any:
    name = {1: "conv1d", 2: "conv2d", 3: "conv3d"}[dims]
    fn = getattr(_nn, name, None)
    if fn is None:
        raise NotImplementedError(f"{op}: {dims}-D convolution needs rt.nn.{name}")
    return fn


def _check_channels(inputs: Any, kernel: Any, fmt: str, op: str) -> None:
    channels = inputs.shape[-1] if fmt == "channels_last" else inputs.shape[1]
    if kernel.shape[-2] != channels:
        raise ValueError(
            f"{op}: the kernel's input channels ({kernel.shape[-2]}, kernel shape "
            f"{tuple(kernel.shape)}) must equal the inputs' ({channels}, inputs shape "
            f"{tuple(inputs.shape)}, data_format={fmt})"
        )


def conv(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.conv`: an N-D convolution (1-D or 2-D; 3-D with `rt.nn.conv3d`)
    of `inputs` `[batch, *spatial, channels]` (or channels first) with `kernel`
    `[*window, in_channels, out_channels]`; `padding` "valid" or "same".

    >>> import rustape as rt
    >>> x = rt.ones([1, 4, 1])
    >>> rt.keras.ops.conv(x, rt.ones([2, 1, 1])).numpy().ravel().tolist()
    [2.0, 2.0, 2.0]
    """
    fmt = _format(data_format)
    dtype = result_type(inputs, kernel)
    x, w = tensor(inputs, dtype), tensor(kernel, dtype)
    dims = _spatial(x, "conv")
    _check_channels(x, w, fmt, "conv")
    if fmt == "channels_first":
        x = _last(x)
    strides_, dilations = _tuple(strides, dims), _tuple(dilation_rate, dims)
    fn = _kernel_op(dims, "conv")
    step: Any = strides_[0] if dims == 1 else strides_
    y = fn(x, w, step, padding.upper(), dilations=dilations)
    if any(d == 0 for d in y.shape) and all(d > 0 for d in x.shape):
        raise ValueError(
            "The convolution operation resulted in an empty output. Output shape: "
            f"{tuple(y.shape)}. This can happen if the input is too small for the given kernel "
            "size, strides, dilation rate, and padding mode. Please check the input shape and "
            "convolution parameters."
        )
    return _first(y) if fmt == "channels_first" else y


def conv_transpose(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    output_padding: Any = None,
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.conv_transpose`: the transposed convolution (1-D, 2-D or 3-D) with
    `kernel` `[*window, out_channels, in_channels]`; output sizes by Keras's rule
    (`output_padding`, or the size that strides up the input).

    >>> import rustape as rt
    >>> y = rt.keras.ops.conv_transpose(rt.ones([1, 3, 1]), rt.ones([2, 1, 1]), strides=2)
    >>> y.numpy().ravel().tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    from ..layers._args import deconv_output_length

    fmt = _format(data_format)
    dtype = result_type(inputs, kernel)
    x, w = tensor(inputs, dtype), tensor(kernel, dtype)
    dims = _spatial(x, "conv_transpose")
    if fmt == "channels_first":
        x = _last(x)
    channels = x.shape[-1]
    if w.shape[-1] != channels:
        raise ValueError(
            f"conv_transpose: the kernel's input channels ({w.shape[-1]}, kernel shape "
            f"{tuple(w.shape)}) must equal the inputs' ({channels})"
        )
    strides_, dilations = _tuple(strides, dims), _tuple(dilation_rate, dims)
    pads = [None] * dims if output_padding is None else _tuple(output_padding, dims)
    mode = padding.lower()
    if mode not in ("valid", "same"):
        raise ValueError(f"conv_transpose: padding must be 'valid' or 'same', got {padding!r}")
    sizes = [
        deconv_output_length(n, k, mode, p, s, d)
        for n, k, p, s, d in zip(x.shape[1:-1], w.shape[:-2], pads, strides_, dilations)
    ]
    shape = [x.shape[0], *sizes, w.shape[-2]]
    if dims == 1:
        y = _nn.conv2d_transpose(
            _rt.expand_dims(x, 1),
            _rt.expand_dims(w, 0),
            [shape[0], 1, *shape[1:]],
            [1, strides_[0]],
            padding.upper(),
            dilations=[1, dilations[0]],
        )
        y = _rt.squeeze(y, 1)
    else:
        fn = _nn.conv2d_transpose if dims == 2 else getattr(_nn, "conv3d_transpose", None)
        if fn is None:
            raise NotImplementedError("conv_transpose: 3-D needs rt.nn.conv3d_transpose")
        y = fn(x, w, shape, strides_, padding.upper(), dilations=dilations)
    return _first(y) if fmt == "channels_first" else y


def depthwise_conv(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.depthwise_conv`: each input channel convolved with its own
    `channel_multiplier` filters; `kernel` `[*window, in_channels, channel_multiplier]`
    (1-D or 2-D).

    >>> import rustape as rt
    >>> y = rt.keras.ops.depthwise_conv(rt.ones([1, 3, 3, 2]), rt.ones([2, 2, 2, 1]))
    >>> tuple(y.shape), float(y[0, 0, 0, 0])
    ((1, 2, 2, 2), 4.0)
    """
    fmt = _format(data_format)
    dtype = result_type(inputs, kernel)
    x, w = tensor(inputs, dtype), tensor(kernel, dtype)
    dims = _spatial(x, "depthwise_conv", (1, 2))
    _check_channels(x, w, fmt, "depthwise_conv")
    if fmt == "channels_first":
        x = _last(x)
    strides_, dilations = _tuple(strides, dims), _tuple(dilation_rate, dims)
    if dims == 1:
        x, w = _rt.expand_dims(x, 1), _rt.expand_dims(w, 0)
        strides_, dilations = [1, *strides_], [1, *dilations]
    y = _nn.depthwise_conv2d(x, w, [1, *strides_, 1], padding.upper(), dilations=dilations)
    if dims == 1:
        y = _rt.squeeze(y, 1)
    return _first(y) if fmt == "channels_first" else y


def separable_conv(
    inputs: Any,
    depthwise_kernel: Any,
    pointwise_kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """Keras 3's `keras.ops.separable_conv`: a depthwise convolution followed by a pointwise
    (1x1) one with `pointwise_kernel` `[1, (1,) in_channels * multiplier, out_channels]`.

    >>> import rustape as rt
    >>> y = rt.keras.ops.separable_conv(rt.ones([1, 3, 2]), rt.ones([2, 2, 1]), rt.ones([1, 2, 4]))
    >>> tuple(y.shape), float(y[0, 0, 0])
    ((1, 2, 4), 4.0)
    """
    fmt = _format(data_format)
    depthwise = depthwise_conv(inputs, depthwise_kernel, strides, padding, fmt, dilation_rate)
    return conv(depthwise, pointwise_kernel, 1, "valid", fmt, 1)


def _pool(
    inputs: Any, pool_size: Any, strides: Any, padding: str, data_format: str | None, op: str
) -> Any:
    fmt = _format(data_format)
    x = tensor(inputs)
    dims = _spatial(x, op)
    if fmt == "channels_first":
        x = _last(x)
    window = _tuple(pool_size, dims)
    step = window if strides is None else _tuple(strides, dims)
    fn = _nn.max_pool if op == "max_pool" else _nn.avg_pool
    y = fn(x, window, step, padding.upper())
    return _first(y) if fmt == "channels_first" else y


def max_pool(
    inputs: Any,
    pool_size: Any,
    strides: Any = None,
    padding: str = "valid",
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.max_pool`: the maximum of each window (strides default to the
    window).

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
    >>> rt.keras.ops.max_pool(x, 2).numpy().ravel().tolist()
    [1.0, 3.0]
    """
    return _pool(inputs, pool_size, strides, padding, data_format, "max_pool")


def average_pool(
    inputs: Any,
    pool_size: Any,
    strides: Any = None,
    padding: str = "valid",
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.average_pool`: the mean of each window (strides default to the
    window; "same" padding averages over the window's part inside the input).

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
    >>> rt.keras.ops.average_pool(x, 2).numpy().ravel().tolist()
    [0.5, 2.5]
    """
    return _pool(inputs, pool_size, strides, padding, data_format, "average_pool")


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    scale: float | None = None,
    is_causal: bool = False,
    flash_attention: bool | None = None,
    attn_logits_soft_cap: float | None = None,
) -> Any:
    """Keras 3's `keras.ops.dot_product_attention` on `[batch, seq, heads, head_dim]` inputs:
    `softmax(q k^T * scale + bias)` (masked by `mask` and, with `is_causal`, to earlier
    positions) times `value`; fewer key/value heads are repeated for grouped-query attention.

    >>> import rustape as rt
    >>> q = rt.ones([1, 2, 1, 4])
    >>> tuple(rt.keras.ops.dot_product_attention(q, q, q).shape)
    (1, 2, 1, 4)
    """
    if flash_attention:
        raise ValueError("Flash attention is not supported in tensorflow backend.")
    q, k, v = tensor(query), tensor(key), tensor(value)
    if len(q.shape) != 4:
        raise ValueError(
            "`dot_product_attention` only supports 4D inputs. Received: "
            f"query.shape={tuple(q.shape)}, key.shape={tuple(k.shape)}, "
            f"value.shape={tuple(v.shape)}."
        )
    dtype = result_type(q, k, v)
    q, k, v = (_rt.cast(t, dtype) for t in (q, k, v))
    heads, kv_heads = q.shape[2], k.shape[2]
    if heads > kv_heads > 1:
        k = _rt.repeat(k, heads // kv_heads, axis=2)
        v = _rt.repeat(v, heads // kv_heads, axis=2)
    if scale is None:
        scale_t = _rt.cast(1.0 / _rt.sqrt(_rt.cast(k.shape[-1], "float32")), dtype)
    else:
        scale_t = _rt.constant(scale, dtype=dtype)
    logits = _rt.einsum("BTNH,BSNH->BNTS", q, k) * scale_t
    if bias is not None:
        logits = logits + tensor(bias, dtype)
    if mask is not None or is_causal:
        keep = _rt.ones(logits.shape, dtype="bool")
        if mask is not None:
            keep = _rt.logical_and(keep, tensor(mask, "bool"))
        if is_causal:
            t, s = logits.shape[2], logits.shape[3]
            causal = _linalg.band_part(_rt.ones([t, s], dtype="bool"), -1, 0)
            keep = _rt.logical_and(keep, causal[None, None])
        large_negative = _rt.constant(3.38953e38 * -0.7, dtype=dtype)
        logits = _rt.where(keep, logits, large_negative)
    probs = _nn.softmax(logits, axis=-1)
    return _rt.einsum("BNTS,BSNH->BTNH", probs, v)
