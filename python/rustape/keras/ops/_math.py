"""Keras 3's elementwise `keras.ops`: one table row per function (its rustape op and the
docstring's example)."""

from __future__ import annotations

from typing import Any

from ... import _ops
from ... import _rustape as _rt
from ... import math as _math
from ... import nn as _nn
from ._core import binary, floating, promoted, scalar, tensor, unary


def _log_base(base: float) -> Any:
    return lambda x: _rt.divide(_rt.log(x), _rt.log(_rt.constant(base, dtype=x.dtype)))


def _ceil(x: Any) -> Any:
    return _rt.negative(_rt.floor(_rt.negative(x)))


def _trunc(x: Any) -> Any:
    return _rt.where(_rt.less(x, 0), _ceil(x), _rt.floor(x))


def _hard_sigmoid(x: Any) -> Any:
    return _rt.divide(_nn.relu6(_rt.add(x, _rt.cast(3.0, x.dtype))), _rt.cast(6.0, x.dtype))


def _logical(fn: Any) -> Any:
    return lambda a, b: fn(_rt.cast(a, "bool"), _rt.cast(b, "bool"))


def _divide(a: Any, b: Any) -> Any:
    if not (a.dtype.is_floating or a.dtype.is_complex):  # Keras: integers divide as floats
        a, b = _rt.cast(a, "float32"), _rt.cast(b, "float32")
    return _rt.divide(a, b)


def _logaddexp(a: Any, b: Any) -> Any:
    # log(e^a + e^b) without overflow: the larger plus log1p of the smaller's share.
    return _rt.add(_rt.maximum(a, b), _rt.log1p(_rt.exp(_rt.negative(_rt.abs(_rt.subtract(a, b))))))


_F = "[0.5, -2.0]"
_POS = "[0.5, 4.0]"
_UNIT = "[0.5, -0.5]"

# Each: the function's name, its rustape op, and the docstring's example and its result.
abs = unary("abs", _rt.abs, _F, "array([0.5, 2. ], dtype=float32)", cast_ints=False)
absolute = unary("absolute", _rt.abs, _F, "array([0.5, 2. ], dtype=float32)", cast_ints=False)
negative = unary(
    "negative", _rt.negative, _F, "array([-0.5,  2. ], dtype=float32)", cast_ints=False
)
square = unary("square", _rt.square, _F, "array([0.25, 4.  ], dtype=float32)", cast_ints=False)
sign = unary("sign", _rt.sign, _F, "array([ 1., -1.], dtype=float32)", cast_ints=False)
exp = unary("exp", _rt.exp, _F, "array([1.6487, 0.1353], dtype=float32)")
expm1 = unary("expm1", _math.expm1, _F, "array([ 0.6487, -0.8647], dtype=float32)")
log = unary("log", _rt.log, _POS, "array([-0.6931,  1.3863], dtype=float32)")
log1p = unary("log1p", _rt.log1p, _POS, "array([0.4055, 1.6094], dtype=float32)")
log2 = unary("log2", _log_base(2.0), _POS, "array([-1.,  2.], dtype=float32)")
log10 = unary("log10", _log_base(10.0), _POS, "array([-0.301 ,  0.6021], dtype=float32)")
sqrt = unary("sqrt", _rt.sqrt, _POS, "array([0.7071, 2.    ], dtype=float32)")
rsqrt = unary("rsqrt", _ops.rsqrt, _POS, "array([1.4142, 0.5   ], dtype=float32)")
reciprocal = unary("reciprocal", _ops.reciprocal, _POS, "array([2.  , 0.25], dtype=float32)")
sin = unary("sin", _rt.sin, _F, "array([ 0.4794, -0.9093], dtype=float32)")
cos = unary("cos", _rt.cos, _F, "array([ 0.8776, -0.4161], dtype=float32)")
tan = unary("tan", _rt.tan, _F, "array([0.5463, 2.185 ], dtype=float32)")
sinh = unary("sinh", _rt.sinh, _F, "array([ 0.5211, -3.6269], dtype=float32)")
cosh = unary("cosh", _rt.cosh, _F, "array([1.1276, 3.7622], dtype=float32)")
tanh = unary("tanh", _rt.tanh, _F, "array([ 0.4621, -0.964 ], dtype=float32)")
arcsin = unary("arcsin", _rt.asin, _UNIT, "array([ 0.5236, -0.5236], dtype=float32)")
arccos = unary("arccos", _rt.acos, _UNIT, "array([1.0472, 2.0944], dtype=float32)")
arctan = unary("arctan", _rt.atan, _F, "array([ 0.4636, -1.1071], dtype=float32)")
arcsinh = unary("arcsinh", _rt.asinh, _F, "array([ 0.4812, -1.4436], dtype=float32)")
arccosh = unary("arccosh", _rt.acosh, "[1.5, 2.0]", "array([0.9624, 1.317 ], dtype=float32)")
arctanh = unary("arctanh", _rt.atanh, _UNIT, "array([ 0.5493, -0.5493], dtype=float32)")
floor = unary("floor", _rt.floor, "[1.5, -1.5]", "array([ 1., -2.], dtype=float32)")
ceil = unary("ceil", _ceil, "[1.5, -1.5]", "array([ 2., -1.], dtype=float32)")
round = unary("round", _rt.round, "[1.5, 2.5]", "array([2., 2.], dtype=float32)")
trunc = unary("trunc", _trunc, "[1.5, -1.5]", "array([ 1., -1.], dtype=float32)")
erf = unary("erf", _math.erf, _F, "array([ 0.5205, -0.9953], dtype=float32)")
erfc = unary("erfc", _math.erfc, _F, "array([0.4795, 1.9953], dtype=float32)")
sigmoid = unary("sigmoid", _rt.sigmoid, _F, "array([0.6225, 0.1192], dtype=float32)")
relu = unary("relu", _rt.relu, _F, "array([0.5, 0. ], dtype=float32)", cast_ints=False)
relu6 = unary("relu6", _nn.relu6, "[7.0, -2.0]", "array([6., 0.], dtype=float32)", cast_ints=False)
selu = unary("selu", _nn.selu, _F, "array([ 0.5254, -1.5202], dtype=float32)")
silu = unary("silu", _nn.silu, _F, "array([ 0.3112, -0.2384], dtype=float32)")
swish = unary("swish", _nn.silu, _F, "array([ 0.3112, -0.2384], dtype=float32)")
softplus = unary("softplus", _rt.softplus, _F, "array([0.9741, 0.1269], dtype=float32)")
softsign = unary("softsign", _math.softsign, _F, "array([ 0.3333, -0.6667], dtype=float32)")
log_sigmoid = unary(
    "log_sigmoid", _math.log_sigmoid, _F, "array([-0.4741, -2.1269], dtype=float32)"
)
hard_sigmoid = unary("hard_sigmoid", _hard_sigmoid, _F, "array([0.5833, 0.1667], dtype=float32)")
isnan = unary("isnan", _math.is_nan, "[1.0, float('nan')]", "array([False,  True])")
isinf = unary("isinf", _math.is_inf, "[1.0, float('inf')]", "array([False,  True])")
isfinite = unary("isfinite", _math.is_finite, "[1.0, float('inf')]", "array([ True, False])")
stop_gradient = unary(
    "stop_gradient", _rt.stop_gradient, _F, "array([ 0.5, -2. ], dtype=float32)", cast_ints=False
)
copy = unary("copy", _ops.identity, _F, "array([ 0.5, -2. ], dtype=float32)", cast_ints=False)
ravel = unary(
    "ravel",
    lambda x: _rt.reshape(x, [-1]),
    "[[1, 2], [3, 4]]",
    "array([1, 2, 3, 4], dtype=int32)",
    cast_ints=False,
)
real = unary("real", _math.real, _F, "array([ 0.5, -2. ], dtype=float32)", cast_ints=False)
imag = unary("imag", _math.imag, _F, "array([0., 0.], dtype=float32)", cast_ints=False)
conj = unary("conj", _math.conj, _F, "array([ 0.5, -2. ], dtype=float32)", cast_ints=False)
conjugate = unary(
    "conjugate", _math.conj, _F, "array([ 0.5, -2. ], dtype=float32)", cast_ints=False
)
add = binary("add", _rt.add, "[1, 2], 0.5", "array([1.5, 2.5], dtype=float32)")
subtract = binary(
    "subtract", _rt.subtract, "[1.0, 2.0], [3.0, 1.0]", "array([-2.,  1.], dtype=float32)"
)
multiply = binary("multiply", _rt.multiply, "[1.0, 2.0], 3", "array([3., 6.], dtype=float32)")
divide = binary("divide", _divide, "[1, 3], [2, 2]", "array([0.5, 1.5], dtype=float32)")
true_divide = binary("true_divide", _divide, "[1, 3], [2, 2]", "array([0.5, 1.5], dtype=float32)")
divide_no_nan = binary(
    "divide_no_nan",
    _math.divide_no_nan,
    "[1.0, 3.0], [0.0, 2.0]",
    "array([0. , 1.5], dtype=float32)",
)
floor_divide = binary("floor_divide", _rt.floordiv, "[7, -7], 2", "array([ 3, -4], dtype=int32)")
mod = binary("mod", _rt.floormod, "[7, -7], 3", "array([1, 2], dtype=int32)")
power = binary("power", _rt.pow, "[2.0, 3.0], 2", "array([4., 9.], dtype=float32)")
maximum = binary("maximum", _rt.maximum, "[1.0, 5.0], [3.0, 2.0]", "array([3., 5.], dtype=float32)")
minimum = binary("minimum", _rt.minimum, "[1.0, 5.0], [3.0, 2.0]", "array([1., 2.], dtype=float32)")
arctan2 = binary(
    "arctan2", _rt.atan2, "[1.0, -1.0], [1.0, 1.0]", "array([ 0.7854, -0.7854], dtype=float32)"
)
logaddexp = binary(
    "logaddexp",
    _logaddexp,
    "[0.0, 100.0], [0.0, 100.0]",
    "array([  0.6931, 100.6931], dtype=float32)",
)
equal = binary("equal", _rt.equal, "[1, 2], [1, 3]", "array([ True, False])")
not_equal = binary("not_equal", _rt.not_equal, "[1, 2], [1, 3]", "array([False,  True])")
less = binary("less", _rt.less, "[1, 2], [1, 3]", "array([False,  True])")
less_equal = binary("less_equal", _rt.less_equal, "[1, 2], [1, 3]", "array([ True,  True])")
greater = binary("greater", _rt.greater, "[1, 2], [1, 3]", "array([False, False])")
greater_equal = binary(
    "greater_equal", _rt.greater_equal, "[1, 2], [1, 3]", "array([ True, False])"
)
logical_and = binary(
    "logical_and", _logical(_rt.logical_and), "[True, False], True", "array([ True, False])"
)
logical_or = binary(
    "logical_or", _logical(_rt.logical_or), "[True, False], False", "array([ True, False])"
)
logical_xor = binary(
    "logical_xor", _logical(_rt.not_equal), "[True, False], True", "array([False,  True])"
)


def logical_not(x: Any) -> Any:
    """Keras 3's `keras.ops.logical_not(x)`: True where `x` is False or zero.

    >>> import rustape as rt
    >>> rt.keras.ops.logical_not([True, False]).numpy()
    array([False,  True])
    """
    return _rt.logical_not(_rt.cast(tensor(x), "bool"))


def gelu(x: Any, approximate: bool = True) -> Any:
    """Keras 3's `keras.ops.gelu(x, approximate=True)`: the tanh approximation by default,
    the exact erf form with `approximate=False`.

    >>> import rustape as rt
    >>> rt.keras.ops.gelu([0.5, -2.0]).numpy().round(4)
    array([ 0.3457, -0.0454], dtype=float32)
    """
    return _nn.gelu(floating(x), approximate=approximate)


def elu(x: Any, alpha: float = 1.0) -> Any:
    """Keras 3's `keras.ops.elu(x, alpha=1.0)`: `x` where positive, else
    `alpha * (exp(x) - 1)`.

    >>> import rustape as rt
    >>> rt.keras.ops.elu([0.5, -2.0], alpha=0.5).numpy().round(4)
    array([ 0.5   , -0.4323], dtype=float32)
    """
    x = floating(x)
    out = _nn.elu(x)
    if alpha == 1.0:
        return out
    return _rt.where(_rt.greater(x, 0), x, _rt.multiply(out, scalar(alpha, x.dtype)))


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    """Keras 3's `keras.ops.leaky_relu(x, negative_slope=0.2)`.

    >>> import rustape as rt
    >>> rt.keras.ops.leaky_relu([0.5, -2.0]).numpy()
    array([ 0.5, -0.4], dtype=float32)
    """
    return _nn.leaky_relu(floating(x), alpha=negative_slope)


def clip(x: Any, x_min: Any, x_max: Any) -> Any:
    """Keras 3's `keras.ops.clip(x, x_min, x_max)`: every element within `[x_min, x_max]`
    (integers stay integers).

    >>> import rustape as rt
    >>> rt.keras.ops.clip([-2.0, 0.5, 3.0], -1.0, 1.0).numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    """
    t = tensor(x)
    if t.dtype.name == "bool":
        t = _rt.cast(t, "int32")
    return _rt.clip_by_value(t, scalar(x_min, t.dtype), scalar(x_max, t.dtype))


def where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    """Keras 3's `keras.ops.where(condition, x1, x2)`: `x1` where `condition`, else `x2`
    (broadcast, promoted to one dtype); with only `condition`, the indices of its true
    elements, one int32 tensor per axis.

    >>> import rustape as rt
    >>> rt.keras.ops.where([True, False], [1.0, 2.0], 0.0).numpy()
    array([1., 0.], dtype=float32)
    >>> rt.keras.ops.where([[True, False], [False, True]])[1].numpy()
    array([0, 1], dtype=int32)
    """
    condition = _rt.cast(tensor(condition), "bool")
    if x1 is None and x2 is None:
        coordinates = _rt.cast(_rt.where(condition), "int32")
        return tuple(_rt.unstack(coordinates, num=len(condition.shape), axis=1))
    if x1 is None or x2 is None:
        raise ValueError("where: give both `x1` and `x2`, or neither")
    a, b = promoted(x1, x2)
    return _rt.where(condition, a, b)


def nan_to_num(
    x: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Any:
    """Keras 3's `keras.ops.nan_to_num`: NaN as `nan`, infinities as `posinf` / `neginf`
    (the dtype's largest and lowest finite values by default).

    >>> import rustape as rt
    >>> rt.keras.ops.nan_to_num([float("nan"), 1.0, float("-inf")]).numpy()
    array([ 0.0000000e+00,  1.0000000e+00, -3.4028235e+38], dtype=float32)
    """
    import numpy as np

    t = tensor(x)
    if not t.dtype.is_floating:
        return t
    info = np.finfo(t.dtype.name)
    high = _rt.cast(float(info.max) if posinf is None else posinf, t.dtype)
    low = _rt.cast(float(info.min) if neginf is None else neginf, t.dtype)
    t = _rt.where(_math.is_nan(t), scalar(nan, t.dtype), t)
    t = _rt.where(_rt.equal(t, _rt.cast(float("inf"), t.dtype)), high, t)
    return _rt.where(_rt.equal(t, _rt.cast(float("-inf"), t.dtype)), low, t)


def isclose(
    x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
) -> Any:
    """Keras 3's `keras.ops.isclose`: `|x1 - x2| <= atol + rtol * |x2|`, elementwise.

    >>> import rustape as rt
    >>> rt.keras.ops.isclose([1.0, 2.0], [1.0, 2.1]).numpy()
    array([ True, False])
    """
    a, b = promoted(x1, x2)
    if not a.dtype.is_floating:
        a, b = _rt.cast(a, "float32"), _rt.cast(b, "float32")
    close = _rt.less_equal(
        _rt.abs(_rt.subtract(a, b)),
        _rt.add(scalar(atol, a.dtype), _rt.multiply(scalar(rtol, a.dtype), _rt.abs(b))),
    )
    if equal_nan:
        close = _rt.logical_or(close, _rt.logical_and(_math.is_nan(a), _math.is_nan(b)))
    return close


def allclose(
    x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
) -> Any:
    """Keras 3's `keras.ops.allclose`: whether `isclose` holds everywhere (a bool scalar).

    >>> import rustape as rt
    >>> bool(rt.keras.ops.allclose([1.0, 2.0], [1.0, 2.0 + 1e-7]))
    True
    """
    return _rt.reduce_all(isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan))
