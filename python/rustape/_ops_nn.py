"""TensorFlow's `tf.nn` functions written as compositions of rustape's ops: `crelu`, the
weighted and Poisson losses, the distributed-training loss helpers, the moment helpers, local
response normalization and the convolution dispatchers (`convolution`, `conv_transpose`,
`conv1d_transpose`, `separable_conv2d`, `atrous_conv2d`, `pool`). Their gradients, of any
order, come from the ops they are made of.

`@export(...)` above a function is its row in the binding table (see `_export.py`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from . import _ops
from . import _rustape as _rt
from ._export import export
from ._ops_array import _ints, int_arg
from ._rustape import Tensor
from ._typing import TensorLike


def _tensor(x: TensorLike, like: Tensor | None = None) -> Tensor:
    if isinstance(x, _rt.Variable):
        x = x.value()
    if isinstance(x, _rt.Tensor):
        return x if like is None or x.dtype == like.dtype else _rt.cast(x, like.dtype)
    if like is not None:
        return _rt.convert_to_tensor(x, dtype=like.dtype)
    return _rt.convert_to_tensor(x)


def _scalar(value: float, like: Tensor) -> Tensor:
    return _rt.constant(float(value), dtype=like.dtype)


@export("nn")
def crelu(features: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """`concat([relu(x), relu(-x)], axis)`: both signs' activations, twice the channels.

    >>> rt.nn.crelu([-1.0, 2.0]).numpy()
    array([0., 2., 1., 0.], dtype=float32)
    """
    t = _tensor(features)
    return _rt.concat([_rt.relu(t), _rt.relu(_rt.negative(t))], axis=int_arg(axis, "crelu", "axis"))


@export("nn")
def weighted_cross_entropy_with_logits(
    labels: TensorLike, logits: TensorLike, pos_weight: Any, name: str | None = None
) -> Tensor:
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`:
    `(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + relu(-x))` (stable for any
    logit).

    >>> round(float(rt.nn.weighted_cross_entropy_with_logits([1.0], [0.0], 2.0)[0]), 4)
    1.3863
    """
    x = _tensor(logits)
    z = _tensor(labels, x)
    q = _tensor(pos_weight, x)
    one = _scalar(1.0, x)
    log_weight = one + (q - one) * z
    stable = _rt.log1p(_rt.exp(_rt.negative(_rt.abs(x)))) + _rt.relu(_rt.negative(x))
    return (one - z) * x + log_weight * stable


@export("nn")
def log_poisson_loss(
    targets: TensorLike,
    log_input: TensorLike,
    compute_full_loss: bool = False,
    name: str | None = None,
) -> Tensor:
    """The Poisson negative log-likelihood `exp(c) - z * c` of targets `z` and log-rates `c`;
    `compute_full_loss` adds Stirling's approximation of `log(z!)` for `z > 1`.

    >>> round(float(rt.nn.log_poisson_loss([2.0], [0.5])[0]), 4)
    0.6487
    """
    c = _tensor(log_input)
    z = _tensor(targets, c)
    if tuple(z.shape) != tuple(c.shape):
        raise ValueError(
            f"log_poisson_loss: log_input shape {list(c.shape)} and targets shape "
            f"{list(z.shape)} must be equal"
        )
    result = _rt.exp(c) - c * z
    if compute_full_loss:
        # z log z - z + log(2 pi z) / 2, zero for 0 <= z <= 1 (where Stirling's form is
        # not used); z is kept away from 0 inside the unused branch.
        small = _rt.logical_and(
            _rt.greater_equal(z, _scalar(0.0, z)), _rt.less_equal(z, _scalar(1.0, z))
        )
        safe = _rt.where(small, _rt.ones_like(z), z)
        stirling = (
            safe * _rt.log(safe) - safe + _scalar(0.5, z) * _rt.log(_scalar(2 * math.pi, z) * safe)
        )
        result = result + _rt.where(small, _rt.zeros_like(z), stirling)
    return result


@export("nn")
def compute_average_loss(
    per_example_loss: TensorLike,
    sample_weight: TensorLike | None = None,
    global_batch_size: Any = None,
    name: str | None = None,
) -> Tensor:
    """The sum of the (weighted) per-example losses divided by the global batch size (this
    batch's size, rustape running on one replica), 0 for an empty batch.

    >>> float(rt.nn.compute_average_loss([1.0, 2.0, 3.0], global_batch_size=6))
    1.0
    """
    loss = _tensor(per_example_loss)
    if not loss.dtype.is_floating:
        raise TypeError(f"compute_average_loss: needs a floating loss, got {loss.dtype.name}")
    if len(loss.shape) < 1:
        raise ValueError(
            "compute_average_loss: per_example_loss must have rank >= 1 (one loss per example)"
        )
    if sample_weight is not None:
        loss = loss * _tensor(sample_weight, loss)
    size = int(loss.shape[0]) if global_batch_size is None else global_batch_size
    if isinstance(size, bool) or not isinstance(size, (int, float, _rt.Tensor)):
        size = int_arg(size, "compute_average_loss", "global_batch_size")
    divisor = _tensor(size, loss) if isinstance(size, _rt.Tensor) else _scalar(size, loss)
    return _rt.divide_no_nan(_rt.reduce_sum(loss), divisor)


@export("nn")
def scale_regularization_loss(regularization_loss: TensorLike, name: str | None = None) -> Tensor:
    """The summed regularization loss divided by the number of replicas (one).

    >>> float(rt.nn.scale_regularization_loss([0.5, 0.25]))
    0.75
    """
    return _rt.reduce_sum(_tensor(regularization_loss))


@export("nn")
def sufficient_statistics(
    x: TensorLike,
    axes: Sequence[int],
    shift: TensorLike | None = None,
    keepdims: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
    """`(count, sum(x - shift), sum((x - shift)^2), shift)` over `axes`: what
    `normalize_moments` turns into a mean and variance.

    >>> [float(v) for v in rt.nn.sufficient_statistics([1.0, 2.0, 3.0], [0])[:3]]
    [3.0, 6.0, 14.0]
    """
    t = _tensor(x)
    dims = [a % max(len(t.shape), 1) for a in _ints("sufficient_statistics", "axes", axes)]
    count = _scalar(math.prod(int(t.shape[a]) for a in dims), t)
    shifted = t if shift is None else t - _tensor(shift, t)
    m_ss = _rt.reduce_sum(shifted, axis=dims, keepdims=keepdims)
    v_ss = _rt.reduce_sum(_rt.square(shifted), axis=dims, keepdims=keepdims)
    return count, m_ss, v_ss, None if shift is None else _tensor(shift, t)


@export("nn")
def normalize_moments(
    counts: TensorLike,
    mean_ss: TensorLike,
    variance_ss: TensorLike,
    shift: TensorLike | None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean and variance from `sufficient_statistics`' sums.

    >>> [round(float(v), 4) for v in rt.nn.normalize_moments(3.0, 6.0, 14.0, None)]
    [2.0, 0.6667]
    """
    m = _tensor(mean_ss)
    divisor = _ops.reciprocal(_tensor(counts, m))
    shifted_mean = m * divisor
    mean = shifted_mean if shift is None else shifted_mean + _tensor(shift, m)
    variance = _tensor(variance_ss, m) * divisor - _rt.square(shifted_mean)
    return mean, variance


@export("nn")
def weighted_moments(
    x: TensorLike,
    axes: Sequence[int],
    frequency_weights: TensorLike,
    keepdims: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean and variance of `x` over `axes`, each element counted `frequency_weights`
    times (TensorFlow's: the variance's gradient does not flow through the mean).

    >>> [float(v) for v in rt.nn.weighted_moments([1.0, 3.0], [0], [3.0, 1.0])]
    [1.5, 0.75]
    """
    t = _tensor(x)
    w = _tensor(frequency_weights, t)
    dims = [a % max(len(t.shape), 1) for a in _ints("weighted_moments", "axes", axes)]
    weighted_sum = _rt.reduce_sum(w * t, axis=dims, keepdims=True)
    total_weight = _rt.reduce_sum(w * _rt.ones_like(t), axis=dims, keepdims=True)
    from ._ops_math import reciprocal_no_nan

    divisor = reciprocal_no_nan(total_weight)
    mean = weighted_sum * divisor
    spread = _rt.square(t - _rt.stop_gradient(mean))
    variance = _rt.reduce_sum(w * spread, axis=dims, keepdims=True) * divisor
    if not keepdims:
        mean = _rt.squeeze(mean, dims)
        variance = _rt.squeeze(variance, dims)
    return mean, variance


@export("nn")
def local_response_normalization(
    input: TensorLike,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """`x / (bias + alpha * sum of x^2 over 2 * depth_radius + 1 neighbouring channels) ^
    beta`, on a rank-4 input (AlexNet's normalization; also `rt.nn.lrn`).

    >>> rt.nn.local_response_normalization(rt.ones([1, 1, 1, 3]), 1, 0.0, 1.0, 0.5).numpy()
    array([[[[0.70710677, 0.57735026, 0.70710677]]]], dtype=float32)
    """
    t = _tensor(input)
    if len(t.shape) != 4 or not t.dtype.is_floating:
        raise ValueError(
            f"local_response_normalization: needs a rank-4 floating input, got shape "
            f"{list(t.shape)} and dtype {t.dtype.name}"
        )
    radius = int_arg(depth_radius, "local_response_normalization", "depth_radius")
    if radius < 0:
        raise ValueError(f"local_response_normalization: depth_radius must be >= 0, got {radius}")
    channels = int(t.shape[-1])
    squares = _rt.pad(_rt.square(t), [[0, 0], [0, 0], [0, 0], [radius, radius]])
    window = squares[..., 0:channels]
    for k in range(1, 2 * radius + 1):
        window = window + squares[..., k : k + channels]
    denominator = _scalar(bias, t) + _scalar(alpha, t) * window
    return t / _rt.pow(denominator, _scalar(beta, t))


lrn = export("nn", name="lrn")(local_response_normalization)


def _rank_of(op: str, t: Tensor, data_format: str | None) -> int:
    rank = len(t.shape) - 2
    if rank not in (1, 2, 3):
        raise ValueError(f"{op}: needs an input of rank 3, 4 or 5, got shape {list(t.shape)}")
    return rank


_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _format(op: str, rank: int, data_format: str | None) -> str:
    last, first = _FORMATS[rank]
    if data_format is None:
        return last
    if data_format not in (last, first):
        raise ValueError(f"{op}: data_format must be {last!r} or {first!r}, got {data_format!r}")
    return data_format


@export("nn")
def convolution(
    input: TensorLike,
    filters: TensorLike,
    strides: Any = None,
    padding: str = "VALID",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The 1-, 2- or 3-D convolution the input's rank asks for (`conv1d`, `conv2d`,
    `conv3d`).

    >>> rt.nn.convolution(rt.ones([1, 5, 5, 2]), rt.ones([3, 3, 2, 4])).shape
    (1, 3, 3, 4)
    """
    t = _tensor(input)
    rank = _rank_of("convolution", t, data_format)
    fmt = _format("convolution", rank, data_format)
    step = [1] * rank if strides is None else strides
    if rank == 1:
        stride = step if isinstance(step, int) else _ints("convolution", "strides", step)[0]
        dilation = (
            dilations
            if dilations is None or isinstance(dilations, int)
            else (_ints("convolution", "dilations", dilations)[0])
        )
        return _rt.conv1d(t, filters, stride, padding, data_format=fmt, dilations=dilation)
    conv = _rt.conv2d if rank == 2 else _rt.conv3d
    return conv(t, filters, step, padding, data_format=fmt, dilations=dilations)


def _spatial(op: str, what: str, value: Any, data_format: str) -> int:
    """A 1-D convolution's stride or dilation: an int, or a list of 1 or 3 (N, W, C order)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    values = _ints(op, what, value)
    if len(values) == 1:
        return values[0]
    if len(values) == 3:
        return values[1] if data_format == "NWC" else values[2]
    raise ValueError(f"{op}: {what} must be an int or a list of 1 or 3 ints, got {values}")


@export("nn")
def conv1d_transpose(
    input: TensorLike,
    filters: TensorLike,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of `conv1d` with respect to its input: `[n, w, c_in]` to `output_shape`
    with filters `[k, c_out, c_in]`.

    >>> rt.nn.conv1d_transpose(rt.ones([1, 3, 2]), rt.ones([2, 4, 2]), [1, 6, 4], 2).shape
    (1, 6, 4)
    """
    t = _tensor(input)
    if data_format not in ("NWC", "NCW") or len(t.shape) != 3:
        raise ValueError(
            f"conv1d_transpose: needs a rank-3 NWC or NCW input, got shape {list(t.shape)}"
        )
    shape = _ints("conv1d_transpose", "output_shape", output_shape)
    stride = _spatial("conv1d_transpose", "strides", strides, data_format)
    rate = (
        1
        if dilations is None
        else _spatial("conv1d_transpose", "dilations", dilations, data_format)
    )
    if data_format == "NCW":
        t = _rt.transpose(t, [0, 2, 1])
        shape = [shape[0], shape[2], shape[1]]
    y = _rt.conv2d_transpose(
        _rt.expand_dims(t, 1),
        _rt.expand_dims(_tensor(filters), 0),
        [shape[0], 1, shape[1], shape[2]],
        [1, stride],
        padding,
        dilations=[1, rate],
    )
    y = _rt.squeeze(y, [1])
    return _rt.transpose(y, [0, 2, 1]) if data_format == "NCW" else y


@export("nn")
def conv_transpose(
    input: TensorLike,
    filters: TensorLike,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The 1-, 2- or 3-D transposed convolution the input's rank asks for.

    >>> rt.nn.conv_transpose(rt.ones([1, 2, 2, 3]), rt.ones([2, 2, 4, 3]), [1, 4, 4, 4], 2).shape
    (1, 4, 4, 4)
    """
    t = _tensor(input)
    rank = _rank_of("conv_transpose", t, data_format)
    fmt = _format("conv_transpose", rank, data_format)
    if rank == 1:
        return conv1d_transpose(t, filters, output_shape, strides, padding, fmt, dilations)
    conv = _rt.conv2d_transpose if rank == 2 else _rt.conv3d_transpose
    return conv(t, filters, output_shape, strides, padding, data_format=fmt, dilations=dilations)


@export("nn")
def separable_conv2d(
    input: TensorLike,
    depthwise_filter: TensorLike,
    pointwise_filter: TensorLike,
    strides: Any,
    padding: str,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """A depthwise 2-D convolution, then a 1x1 convolution mixing its channels.

    >>> rt.nn.separable_conv2d(rt.ones([1, 4, 4, 2]), rt.ones([3, 3, 2, 2]),
    ...                        rt.ones([1, 1, 4, 5]), [1, 1, 1, 1], "VALID").shape
    (1, 2, 2, 5)
    """
    fmt = data_format or "NHWC"
    depthwise = _rt.depthwise_conv2d(
        input, depthwise_filter, strides, padding, data_format=fmt, dilations=dilations
    )
    return _rt.conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format=fmt)


@export("nn")
def atrous_conv2d(
    value: TensorLike, filters: TensorLike, rate: int, padding: str, name: str | None = None
) -> Tensor:
    """A 2-D convolution with the filters dilated by `rate` (NHWC, stride 1).

    >>> rt.nn.atrous_conv2d(rt.ones([1, 5, 5, 1]), rt.ones([2, 2, 1, 1]), 2, "VALID").shape
    (1, 3, 3, 1)
    """
    r = int_arg(rate, "atrous_conv2d", "rate")
    if r < 1:
        raise ValueError(f"atrous_conv2d: rate must be >= 1, got {r}")
    return _rt.conv2d(value, filters, [1, 1], padding, dilations=[r, r])


@export("nn")
def atrous_conv2d_transpose(
    value: TensorLike,
    filters: TensorLike,
    output_shape: Any,
    rate: int,
    padding: str,
    name: str | None = None,
) -> Tensor:
    """The transpose of `atrous_conv2d` (the gradient of its input).

    >>> rt.nn.atrous_conv2d_transpose(rt.ones([1, 3, 3, 1]), rt.ones([2, 2, 1, 1]),
    ...                               [1, 5, 5, 1], 2, "VALID").shape
    (1, 5, 5, 1)
    """
    r = int_arg(rate, "atrous_conv2d_transpose", "rate")
    if r < 1:
        raise ValueError(f"atrous_conv2d_transpose: rate must be >= 1, got {r}")
    return _rt.conv2d_transpose(value, filters, output_shape, [1, 1], padding, dilations=[r, r])


@export("nn")
def pool(
    input: TensorLike,
    window_shape: Any,
    pooling_type: str,
    strides: Any = None,
    padding: str = "VALID",
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Max or average pooling (`pooling_type` "MAX" or "AVG") over 1, 2 or 3 spatial axes.

    >>> rt.nn.pool(rt.ones([1, 4, 4, 1]), [2, 2], "AVG", strides=[2, 2]).shape
    (1, 2, 2, 1)
    """
    t = _tensor(input)
    rank = _rank_of("pool", t, data_format)
    window = _ints("pool", "window_shape", window_shape)
    step = [1] * rank if strides is None else _ints("pool", "strides", strides)
    if len(window) != rank or len(step) != rank:
        raise ValueError(f"pool: window_shape and strides need {rank} entries each")
    if dilations is not None and any(d != 1 for d in _ints("pool", "dilations", dilations)):
        raise ValueError("pool: dilations other than 1 are not supported")
    kind = str(pooling_type).upper()
    if kind not in ("MAX", "AVG"):
        raise ValueError(f"pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    fmt = _format("pool", rank, data_format)
    f = _rt.max_pool if kind == "MAX" else _rt.avg_pool
    return f(t, window, step, padding, data_format=fmt)
