"""Keras 3's `keras.ops` activations beyond the classic ones (`celu`, `glu`, `sparsemax`,
shrinkage functions, ...), normalizations (`batch_normalization`, `layer_normalization`,
`rms_normalization`) and `psnr`: each Keras's formula in rustape's differentiable ops."""

from __future__ import annotations

import warnings
from typing import Any

from ... import _rustape as _rt
from ... import math as _math
from ... import nn as _nn
from ._core import floating, normalize_axis, tensor
from ._math import _hard_sigmoid


def _const(value: float, like: Any) -> Any:
    """A Python number in `like`'s dtype (not through float32)."""
    return _rt.constant(value, dtype=like.dtype)


def celu(x: Any, alpha: float = 1.0) -> Any:
    """Keras 3's `keras.ops.celu`: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.

    >>> import rustape as rt
    >>> [round(v, 4) for v in rt.keras.ops.celu([-1.0, 2.0]).numpy().tolist()]
    [-0.6321, 2.0]
    """
    x = floating(x)
    zero = _const(0.0, x)
    negative = _math.expm1(_rt.minimum(x, zero) / _const(alpha, x))
    return _rt.maximum(x, zero) + _const(alpha, x) * negative


def glu(x: Any, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.glu`: the first half of `axis` gated by the sigmoid of the second.

    >>> import rustape as rt
    >>> rt.keras.ops.glu([2.0, 0.0]).numpy().tolist()
    [1.0]
    """
    x = floating(x)
    if x.shape[axis] % 2 != 0:
        raise ValueError(
            f"axis size must be divisible by 2. Received: x.shape={tuple(x.shape)} with axis={axis}"
        )
    first, second = _rt.split(x, 2, axis=axis)
    return first * _rt.sigmoid(second)


def hard_shrink(x: Any, threshold: float = 0.5) -> Any:
    """Keras 3's `keras.ops.hard_shrink`: `x` where `|x| > threshold`, else 0.

    >>> import rustape as rt
    >>> rt.keras.ops.hard_shrink([-1.0, 0.2, 0.75]).numpy().tolist()
    [-1.0, 0.0, 0.75]
    """
    x = floating(x)
    return _rt.where(_rt.abs(x) > threshold, x, _rt.zeros_like(x))


def hard_silu(x: Any) -> Any:
    """Keras 3's `keras.ops.hard_silu` (also `hard_swish`): `x * hard_sigmoid(x)`.

    >>> import rustape as rt
    >>> rt.keras.ops.hard_silu([-4.0, 0.0, 3.0]).numpy().tolist()
    [-0.0, 0.0, 3.0]
    """
    x = floating(x)
    return x * _hard_sigmoid(x)


hard_swish = hard_silu


def hard_tanh(x: Any) -> Any:
    """Keras 3's `keras.ops.hard_tanh`: `x` clipped to `[-1, 1]`.

    >>> import rustape as rt
    >>> rt.keras.ops.hard_tanh([-3.0, 0.5, 2.0]).numpy().tolist()
    [-1.0, 0.5, 1.0]
    """
    x = floating(x)
    return _rt.clip_by_value(x, _const(-1.0, x), _const(1.0, x))


def soft_shrink(x: Any, threshold: float = 0.5) -> Any:
    """Keras 3's `keras.ops.soft_shrink`: `x` moved `threshold` towards 0, 0 within it.

    >>> import rustape as rt
    >>> rt.keras.ops.soft_shrink([-1.0, 0.2, 0.75]).numpy().tolist()
    [-0.5, 0.0, 0.25]
    """
    x = floating(x)
    t = _const(threshold, x)
    inner = _rt.where(x < -t, x + t, _rt.zeros_like(x))
    return _rt.where(x > t, x - t, inner)


def sparse_plus(x: Any) -> Any:
    """Keras 3's `keras.ops.sparse_plus`: 0 up to -1, `(x + 1)^2 / 4` on `(-1, 1)`, then `x`.

    >>> import rustape as rt
    >>> rt.keras.ops.sparse_plus([-2.0, 0.0, 2.0]).numpy().tolist()
    [0.0, 0.25, 2.0]
    """
    x = floating(x)
    middle = _const(0.25, x) * _rt.square(x + _const(1.0, x))
    return _rt.where(x <= -1.0, _rt.zeros_like(x), _rt.where(x < 1.0, middle, x))


def sparse_sigmoid(x: Any) -> Any:
    """Keras 3's `keras.ops.sparse_sigmoid`: 0 up to -1, `(x + 1) / 2` on `(-1, 1)`, then 1.

    >>> import rustape as rt
    >>> rt.keras.ops.sparse_sigmoid([-2.0, 0.0, 2.0]).numpy().tolist()
    [0.0, 0.5, 1.0]
    """
    x = floating(x)
    middle = _const(0.5, x) * (x + _const(1.0, x))
    upper = _rt.where(x >= 1.0, _rt.ones_like(x), middle)
    return _rt.where(x <= -1.0, _rt.zeros_like(x), upper)


def sparsemax(x: Any, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.sparsemax`, as Keras 3.15 computes it: the logits minus a
    threshold from their sorted cumulative sums, floored at 0.

    >>> import rustape as rt
    >>> rt.keras.ops.sparsemax([2.0, 0.0, -1.0]).numpy().tolist()
    [1.0, 0.0, 0.0]
    """
    logits = floating(x)
    ax = normalize_axis(axis, len(logits.shape))
    ordered = _rt.sort(logits, axis=ax, direction="DESCENDING")
    cumulative = _math.cumsum(ordered, axis=ax)
    n = logits.shape[ax]
    shape = [1] * len(logits.shape)
    shape[ax] = n
    r = _rt.reshape(_rt.range(1, n + 1, dtype=logits.dtype), shape)
    support = ordered - (cumulative - 1.0) / r > 0.0
    kept = _rt.where(support, cumulative, _rt.zeros_like(cumulative))
    k = _rt.reduce_sum(_rt.cast(support, logits.dtype), axis=ax, keepdims=True)
    tau = (_rt.reduce_sum(kept, axis=ax, keepdims=True) - 1.0) / k
    return _rt.maximum(logits - tau, _const(0.0, logits))


def squareplus(x: Any, b: float = 4) -> Any:
    """Keras 3's `keras.ops.squareplus`: `(x + sqrt(x^2 + b)) / 2`.

    >>> import rustape as rt
    >>> rt.keras.ops.squareplus([0.0, 2.0], b=5).numpy().tolist()
    [1.1180340051651, 2.5]
    """
    x = floating(x)
    return (x + _rt.sqrt(_rt.square(x) + _const(b, x))) / _const(2.0, x)


def tanh_shrink(x: Any) -> Any:
    """Keras 3's `keras.ops.tanh_shrink`: `x - tanh(x)`.

    >>> import rustape as rt
    >>> round(float(rt.keras.ops.tanh_shrink(1.0)), 4)
    0.2384
    """
    x = floating(x)
    return x - _rt.tanh(x)


def threshold(x: Any, threshold: float, default_value: float) -> Any:
    """Keras 3's `keras.ops.threshold`: `x` where `x > threshold`, else `default_value`.

    >>> import rustape as rt
    >>> rt.keras.ops.threshold([0.5, 2.0], 1.0, -1.0).numpy().tolist()
    [-1.0, 2.0]
    """
    x = floating(x)
    return _rt.where(x > threshold, x, _rt.fill(x.shape, _const(default_value, x)))


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    axis: int,
    offset: Any = None,
    scale: Any = None,
    epsilon: float = 1e-3,
) -> Any:
    """Keras 3's `keras.ops.batch_normalization`: `(x - mean) / sqrt(variance + epsilon) *
    scale + offset`, the 1-D statistics along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.batch_normalization([[1.0, 4.0]], [1.0, 2.0], [1.0, 4.0], axis=-1,
    ...                                  epsilon=0.0).numpy().tolist()
    [[0.0, 1.0]]
    """
    x = floating(x)
    parts = [
        None if v is None else tensor(v, x.dtype.name) for v in (mean, variance, offset, scale)
    ]
    if axis not in (-1, len(x.shape) - 1):
        shape = [1] * len(x.shape)
        shape[axis] = tensor(mean).shape[0]
        parts = [None if v is None else _rt.reshape(v, shape) for v in parts]
    mean, variance, offset, scale = parts
    return _nn.batch_normalization(x, mean, variance, offset, scale, epsilon)


def _compute(x: Any) -> tuple[Any, str]:
    x = floating(x)
    return x, x.dtype.name


def layer_normalization(
    x: Any,
    gamma: Any = None,
    beta: Any = None,
    axis: Any = -1,
    epsilon: float | None = None,
    rms_scaling: bool = False,
) -> Any:
    """Keras 3's `keras.ops.layer_normalization`: `x` standardised over `axis` (an int or a
    list), times `gamma`, plus `beta` (`epsilon` defaults to Keras's `backend.epsilon()`,
    1e-7); `rms_scaling` divides by the standard deviation only.

    >>> import rustape as rt
    >>> rt.keras.ops.layer_normalization([[1.0, 3.0]], epsilon=0.0).numpy().tolist()
    [[-1.0, 1.0]]
    """
    x, dtype = _compute(x)
    eps = 1e-7 if epsilon is None else epsilon
    ndims = len(x.shape)
    dims = sorted(normalize_axis(a, ndims) for a in ([axis] if isinstance(axis, int) else axis))
    shape = [1] * ndims
    for d in dims:
        shape[d] = x.shape[d]

    def broadcast(v: Any) -> Any:
        if v is None:
            return None
        v = tensor(v, dtype)
        if len(v.shape) != ndims and dims != [ndims - 1]:
            return _rt.reshape(v, shape)
        return v

    gamma, beta = broadcast(gamma), broadcast(beta)
    if rms_scaling:
        warnings.warn(
            "You passed `rms_scaling=True`, which is deprecated. This argument incorrectly "
            "scales the input by the variance, not the root mean square. To correctly use RMS "
            "Normalization, please use `keras.ops.rms_normalization` instead.",
            stacklevel=2,
        )
        _, variance = _nn.moments(x, axes=dims, keepdims=True)
        out = x * _math.rsqrt(variance + _const(eps, x))
        return out * gamma if gamma is not None else out
    mean, variance = _nn.moments(x, axes=dims, keepdims=True)
    inv = _math.rsqrt(variance + _const(eps, x))
    if gamma is not None:
        inv = inv * gamma
    res = -mean * inv
    if beta is not None:
        res = res + beta
    return x * inv + res


def rms_normalization(
    x: Any, scale: Any = None, axis: Any = -1, epsilon: float | None = None
) -> Any:
    """Keras 3's `keras.ops.rms_normalization`: `x / sqrt(mean(x^2) + epsilon)` over `axis`,
    times `scale`.

    >>> import rustape as rt
    >>> [round(v, 4) for v in rt.keras.ops.rms_normalization([3.0, 4.0], epsilon=0.0).numpy().tolist()]
    [0.8485, 1.1314]
    """
    x, dtype = _compute(x)
    eps = 1e-7 if epsilon is None else epsilon
    if len(x.shape) == 0:
        x = _rt.expand_dims(x, 0)
    dims = sorted(axis) if isinstance(axis, (list, tuple)) else axis
    mean_square = _rt.reduce_mean(_rt.square(x), axis=dims, keepdims=True)
    out = x * _math.rsqrt(mean_square + _const(eps, x))
    return out * tensor(scale, dtype) if scale is not None else out


def psnr(x1: Any, x2: Any, max_val: Any) -> Any:
    """Keras 3's `keras.ops.psnr`: the peak signal-to-noise ratio
    `20 log10(max_val) - 10 log10(mean((x1 - x2)^2))`.

    >>> import rustape as rt
    >>> round(float(rt.keras.ops.psnr([0.0, 1.0], [0.0, 0.9], 1.0)), 3)
    23.01
    """
    x1, x2 = floating(x1), floating(x2)
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(
            f"Input shapes {tuple(x1.shape)} and {tuple(x2.shape)} must match for PSNR "
            "calculation. "
        )
    ten = _const(10.0, x2)
    peak = tensor(max_val, x2.dtype.name)
    mse = _rt.reduce_mean(_rt.square(x1 - x2))
    log_ten = _math.log(ten)
    return _const(20.0, x2) * (_math.log(peak) / log_ten) - ten * (_math.log(mse) / log_ten)
