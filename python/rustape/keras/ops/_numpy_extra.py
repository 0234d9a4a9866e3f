"""Keras 3's NumPy-style elementwise `keras.ops` beyond the basic set (cbrt, hypot, fmod,
heaviside, ...): each a thin composition of rustape's differentiable ops, with Keras's
result dtypes (integers become floats where Keras makes them floats)."""

from __future__ import annotations

import math
from typing import Any

from ... import _rustape as _rt
from ... import math as _math
from ._core import result_type, tensor

_SMALL_INTS = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32")


def _float_wide(x: Any) -> Any:
    """`x` as a float tensor the way Keras's cbrt/deg2rad/hypot do it: int64 becomes
    float64, smaller integers and bools float32, floats stay."""
    t = tensor(x)
    name = t.dtype.name
    if name == "int64":
        return _rt.cast(t, "float64")
    if name in _SMALL_INTS:
        return _rt.cast(t, "float32")
    return t


def _float_narrow(x: Any) -> Any:
    """`x` as a float tensor with every integer and bool cast to float32 (Keras's exp2,
    fabs, sinc)."""
    t = tensor(x)
    return t if t.dtype.is_floating or t.dtype.is_complex else _rt.cast(t, "float32")


def _float_pair(x1: Any, x2: Any, wide: bool = True) -> tuple[Any, Any]:
    """Both arguments in their promoted dtype, integers made floats (int64 as float64 when
    `wide`, else float32)."""
    dtype = result_type(x1, x2)
    if dtype == "int64":
        dtype = "float64" if wide else "float32"
    elif dtype in _SMALL_INTS:
        dtype = "float32"
    return tensor(x1, dtype), tensor(x2, dtype)


def _const(value: float, like: Any) -> Any:
    """`value` in `like`'s dtype (a constant, not a cast: casting a Python float rounds it
    through float32)."""
    return _rt.constant(value, dtype=like.dtype)


def cbrt(x: Any) -> Any:
    """Keras 3's `keras.ops.cbrt(x)`: the real cube root, elementwise (negative inputs
    give negative roots; int64 becomes float64, other integers float32).

    >>> import rustape as rt
    >>> rt.keras.ops.cbrt([8.0, -27.0]).numpy().round(4)
    array([ 2., -3.], dtype=float32)
    """
    t = _float_wide(x)
    return _rt.multiply(_rt.sign(t), _rt.pow(_rt.abs(t), _const(1.0 / 3.0, t)))


def deg2rad(x: Any) -> Any:
    """Keras 3's `keras.ops.deg2rad(x)`: degrees to radians.

    >>> import rustape as rt
    >>> rt.keras.ops.deg2rad([180.0, 90.0]).numpy().round(4)
    array([3.1416, 1.5708], dtype=float32)
    """
    t = _float_wide(x)
    return _rt.multiply(t, _const(math.pi / 180.0, t))


def rad2deg(x: Any) -> Any:
    """Keras 3's `keras.ops.rad2deg(x)`: radians to degrees.

    >>> import rustape as rt
    >>> rt.keras.ops.rad2deg([3.141592653589793]).numpy().round(3)
    array([180.], dtype=float32)
    """
    t = _float_wide(x)
    return _rt.multiply(t, _const(180.0 / math.pi, t))


def exp2(x: Any) -> Any:
    """Keras 3's `keras.ops.exp2(x)`: `2 ** x`, elementwise (integers as float32).

    >>> import rustape as rt
    >>> rt.keras.ops.exp2([3, -1]).numpy()
    array([8. , 0.5], dtype=float32)
    """
    t = _float_narrow(x)
    return _rt.pow(_const(2.0, t), t)


def fabs(x: Any) -> Any:
    """Keras 3's `keras.ops.fabs(x)`: the absolute value as a float (integers as float32).

    >>> import rustape as rt
    >>> rt.keras.ops.fabs([-2, 3]).numpy()
    array([2., 3.], dtype=float32)
    """
    return _rt.abs(_float_narrow(x))


def _nan_aware(fn: Any, x1: Any, x2: Any) -> Any:
    dtype = result_type(x1, x2)
    a, b = tensor(x1, dtype), tensor(x2, dtype)
    out = fn(a, b)
    if not a.dtype.is_floating:
        return out
    nan_a, nan_b = _math.is_nan(a), _math.is_nan(b)
    out = _rt.where(_rt.logical_and(nan_a, _rt.logical_not(nan_b)), b, out)
    return _rt.where(_rt.logical_and(nan_b, _rt.logical_not(nan_a)), a, out)


def fmax(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.fmax(x1, x2)`: the elementwise maximum, ignoring a NaN when the
    other argument is a number.

    >>> import rustape as rt
    >>> rt.keras.ops.fmax([1.0, float("nan")], [0.0, 2.0]).numpy()
    array([1., 2.], dtype=float32)
    """
    return _nan_aware(_rt.maximum, x1, x2)


def fmin(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.fmin(x1, x2)`: the elementwise minimum, ignoring a NaN when the
    other argument is a number.

    >>> import rustape as rt
    >>> rt.keras.ops.fmin([1.0, float("nan")], [0.0, 2.0]).numpy()
    array([0., 2.], dtype=float32)
    """
    return _nan_aware(_rt.minimum, x1, x2)


def fmod(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.fmod(x1, x2)`: the remainder of truncated division (its sign is
    `x1`'s, unlike `mod`).

    >>> import rustape as rt
    >>> rt.keras.ops.fmod([7, -7], 3).numpy()
    array([ 1, -1], dtype=int32)
    """
    dtype = result_type(x1, x2)
    if dtype == "bool":
        dtype = "int32"
    a, b = tensor(x1, dtype), tensor(x2, dtype)
    return _rt.multiply(_rt.sign(a), _rt.floormod(_rt.abs(a), _rt.abs(b)))


def heaviside(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.heaviside(x1, x2)`: 0 where `x1 < 0`, 1 where `x1 > 0`, `x2`
    where `x1 == 0`.

    >>> import rustape as rt
    >>> rt.keras.ops.heaviside([-1.0, 0.0, 2.0], 0.5).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    a, b = _float_pair(x1, x2)
    b = _rt.add(b, _rt.zeros_like(a))
    inner = _rt.where(_rt.greater(a, _const(0.0, a)), _rt.ones_like(a), b)
    return _rt.where(_rt.less(a, _const(0.0, a)), _rt.zeros_like(a), inner)


def hypot(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.hypot(x1, x2)`: `sqrt(x1**2 + x2**2)` without overflow.

    >>> import rustape as rt
    >>> rt.keras.ops.hypot([3.0, 5.0], [4.0, 12.0]).numpy()
    array([ 5., 13.], dtype=float32)
    """
    a, b = _float_pair(x1, x2)
    a, b = _rt.abs(a), _rt.abs(b)
    high, low = _rt.maximum(a, b), _rt.minimum(a, b)
    ratio = _math.divide_no_nan(low, high)
    return _rt.multiply(high, _rt.sqrt(_rt.add(_const(1.0, ratio), _rt.square(ratio))))


def _infinite(x: Any, value: float) -> Any:
    t = tensor(x)
    if not t.dtype.is_floating:
        return _rt.cast(_rt.zeros_like(t), "bool")
    return _rt.equal(t, _const(value, t))


def isneginf(x: Any) -> Any:
    """Keras 3's `keras.ops.isneginf(x)`: True where `x` is negative infinity.

    >>> import rustape as rt
    >>> rt.keras.ops.isneginf([float("-inf"), 1.0, float("inf")]).numpy()
    array([ True, False, False])
    """
    return _infinite(x, float("-inf"))


def isposinf(x: Any) -> Any:
    """Keras 3's `keras.ops.isposinf(x)`: True where `x` is positive infinity.

    >>> import rustape as rt
    >>> rt.keras.ops.isposinf([float("-inf"), 1.0, float("inf")]).numpy()
    array([False, False,  True])
    """
    return _infinite(x, float("inf"))


def isreal(x: Any) -> Any:
    """Keras 3's `keras.ops.isreal(x)`: True where the imaginary part is zero (everywhere
    for real dtypes).

    >>> import rustape as rt
    >>> rt.keras.ops.isreal([1.0, 2.0]).numpy()
    array([ True,  True])
    """
    t = tensor(x)
    if t.dtype.is_complex:
        imag = _rt.imag(t)
        return _rt.equal(imag, _const(0.0, imag))
    return _rt.cast(_rt.ones_like(t), "bool")


def ldexp(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.ldexp(x1, x2)`: `x1 * 2**x2`, the exponent `x2` an integer.

    >>> import rustape as rt
    >>> rt.keras.ops.ldexp([1.0, 3.0], [2, -1]).numpy()
    array([4. , 1.5], dtype=float32)
    """
    exponent = tensor(x2)
    if not exponent.dtype.is_integer:
        raise TypeError(
            f"ldexp: the exponent x2 must have an integer dtype, got {exponent.dtype.name}"
        )
    dtype = result_type(x1, exponent, 1.0)
    mantissa = tensor(x1, dtype)
    scaled = _rt.multiply(mantissa, _rt.pow(_const(2.0, mantissa), _rt.cast(exponent, dtype)))
    keep = _rt.logical_or(_math.is_inf(mantissa), _rt.equal(mantissa, _const(0.0, mantissa)))
    return _rt.where(keep, _rt.add(mantissa, _rt.zeros_like(scaled)), scaled)


def logaddexp2(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.logaddexp2(x1, x2)`: `log2(2**x1 + 2**x2)` without overflow.

    >>> import rustape as rt
    >>> rt.keras.ops.logaddexp2([1.0, 100.0], [1.0, 100.0]).numpy()
    array([  2., 101.], dtype=float32)
    """
    dtype = result_type(x1, x2, 1.0)
    a, b = tensor(x1, dtype), tensor(x2, dtype)
    delta = _rt.subtract(a, b)
    ln2 = _const(math.log(2.0), a)
    tail = _rt.divide(_rt.log1p(_rt.exp(_rt.multiply(_rt.negative(_rt.abs(delta)), ln2))), ln2)
    return _rt.where(_math.is_nan(delta), _rt.add(a, b), _rt.add(_rt.maximum(a, b), tail))


def signbit(x: Any) -> Any:
    """Keras 3's `keras.ops.signbit(x)`: True where the sign bit is set (negative numbers
    and negative zero).

    >>> import rustape as rt
    >>> rt.keras.ops.signbit([-1.0, -0.0, 0.0, 2.0]).numpy()
    array([ True,  True, False, False])
    """
    t = tensor(x)
    if t.dtype.name == "bool":
        return _rt.cast(_rt.zeros_like(t), "bool")
    if not t.dtype.is_floating:
        return _rt.less(t, _rt.cast(0, t.dtype))
    zero = _const(0.0, t)
    # -0.0 has its sign bit set: 1 / -0.0 is -inf.
    negative_zero = _rt.logical_and(
        _rt.equal(t, zero), _rt.less(_rt.divide(_const(1.0, t), t), zero)
    )
    return _rt.logical_or(_rt.less(t, zero), negative_zero)


def sinc(x: Any) -> Any:
    """Keras 3's `keras.ops.sinc(x)`: the normalised sinc, `sin(pi x) / (pi x)`, 1 at 0.

    >>> import rustape as rt
    >>> rt.keras.ops.sinc([0.0, 0.5, 2.5]).numpy().round(4)
    array([1.    , 0.6366, 0.1273], dtype=float32)
    """
    t = _float_narrow(x)
    zero = _rt.equal(t, _const(0.0, t))
    # The masked denominator keeps the gradient at 0 finite.
    safe = _rt.where(zero, _rt.ones_like(t), t)
    pi_x = _rt.multiply(safe, _const(math.pi, t))
    return _rt.where(zero, _rt.ones_like(t), _rt.divide(_rt.sin(pi_x), pi_x))
