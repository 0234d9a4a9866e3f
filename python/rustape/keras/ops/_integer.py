"""Keras 3's integer `keras.ops` (bitwise ops and shifts, `gcd`, `lcm`), `nextafter`,
`saturate_cast`, `argpartition` and `segment_prod`, over rustape's Rust kernels."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _rustape as _rt
from ... import bitwise as _bitwise
from ... import math as _math
from ._core import promoted, result_type, tensor

_INTS = ("int32", "int64")


def _integers(op: str, *values: Any) -> list[Any]:
    """The arguments promoted to their common dtype, which must be an integer one."""
    out = promoted(*values)
    if out[0].dtype.name not in _INTS:
        raise TypeError(
            f"keras.ops.{op}: arguments must be integers, got "
            f"{', '.join(str(t.dtype.name) for t in out)}"
        )
    return out


def bitwise_and(x: Any, y: Any) -> Any:
    """Keras 3's `keras.ops.bitwise_and(x, y)`: the bits set in both (integers, promoted).

    >>> import rustape as rt
    >>> rt.keras.ops.bitwise_and([12, 7], [10, 2]).numpy()
    array([8, 2], dtype=int32)
    """
    return _bitwise.bitwise_and(*_integers("bitwise_and", x, y))


def bitwise_or(x: Any, y: Any) -> Any:
    """Keras 3's `keras.ops.bitwise_or(x, y)`: the bits set in either (integers, promoted).

    >>> import rustape as rt
    >>> rt.keras.ops.bitwise_or([12, 7], [10, 2]).numpy()
    array([14,  7], dtype=int32)
    """
    return _bitwise.bitwise_or(*_integers("bitwise_or", x, y))


def bitwise_xor(x: Any, y: Any) -> Any:
    """Keras 3's `keras.ops.bitwise_xor(x, y)`: the bits set in exactly one.

    >>> import rustape as rt
    >>> rt.keras.ops.bitwise_xor([12, 7], [10, 2]).numpy()
    array([6, 5], dtype=int32)
    """
    return _bitwise.bitwise_xor(*_integers("bitwise_xor", x, y))


def bitwise_invert(x: Any) -> Any:
    """Keras 3's `keras.ops.bitwise_invert(x)`: every bit flipped (`-x - 1`).

    >>> import rustape as rt
    >>> rt.keras.ops.bitwise_invert([0, 5]).numpy()
    array([-1, -6], dtype=int32)
    """
    return _bitwise.invert(tensor(x))


def bitwise_not(x: Any) -> Any:
    """Keras 3's `keras.ops.bitwise_not(x)`: `bitwise_invert`.

    >>> import rustape as rt
    >>> rt.keras.ops.bitwise_not([0, -1]).numpy()
    array([-1,  0], dtype=int32)
    """
    return bitwise_invert(x)


def _shift_operands(op: str, x: Any, y: Any) -> list[Any]:
    # Keras keeps x's dtype for a Python int count, else promotes both.
    if isinstance(y, int) and not isinstance(y, bool):
        t = tensor(x)
        return [t, _rt.constant(y, dtype=t.dtype.name) if t.dtype.name in _INTS else y]
    return _integers(op, x, y)


def bitwise_left_shift(x: Any, y: Any) -> Any:
    """Keras 3's `keras.ops.bitwise_left_shift(x, y)`: `x << y` (TensorFlow's clamped counts).

    >>> import rustape as rt
    >>> rt.keras.ops.bitwise_left_shift([1, 3], 2).numpy()
    array([ 4, 12], dtype=int32)
    """
    return _bitwise.left_shift(*_shift_operands("bitwise_left_shift", x, y))


def bitwise_right_shift(x: Any, y: Any) -> Any:
    """Keras 3's `keras.ops.bitwise_right_shift(x, y)`: `x >> y`, arithmetic.

    >>> import rustape as rt
    >>> rt.keras.ops.bitwise_right_shift([16, -16], 2).numpy()
    array([ 4, -4], dtype=int32)
    """
    return _bitwise.right_shift(*_shift_operands("bitwise_right_shift", x, y))


def left_shift(x: Any, y: Any) -> Any:
    """Keras 3's `keras.ops.left_shift(x, y)`: `bitwise_left_shift`.

    >>> import rustape as rt
    >>> rt.keras.ops.left_shift([1], [5]).numpy()
    array([32], dtype=int32)
    """
    return bitwise_left_shift(x, y)


def right_shift(x: Any, y: Any) -> Any:
    """Keras 3's `keras.ops.right_shift(x, y)`: `bitwise_right_shift`.

    >>> import rustape as rt
    >>> rt.keras.ops.right_shift([32], [5]).numpy()
    array([1], dtype=int32)
    """
    return bitwise_right_shift(x, y)


def gcd(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.gcd(x1, x2)`: the greatest common divisor of `|x1|` and `|x2|`
    (integers, promoted; 0 for two zeros).

    >>> import rustape as rt
    >>> rt.keras.ops.gcd([12, 0], [18, 0]).numpy()
    array([6, 0], dtype=int32)
    """
    return _rt.gcd(*_integers("gcd", x1, x2))


def lcm(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.lcm(x1, x2)`: the least common multiple of `|x1|` and `|x2|`
    (integers, promoted; 0 when either is 0).

    >>> import rustape as rt
    >>> rt.keras.ops.lcm([4, 3], [6, 0]).numpy()
    array([12,  0], dtype=int32)
    """
    return _rt.lcm(*_integers("lcm", x1, x2))


def nextafter(x1: Any, x2: Any) -> Any:
    """Keras 3's `keras.ops.nextafter(x1, x2)`: the next float64 after `x1` toward `x2`, cast
    to the arguments' float dtype (as Keras computes it: for float32 arguments the step is
    usually rounded away, so the result is `x1`).

    >>> import rustape as rt
    >>> float(rt.keras.ops.nextafter(rt.constant(1.0, rt.float64), 2.0)) - 1.0
    2.220446049250313e-16
    """
    dtype = result_type(x1, x2, 1.0)
    a, b = tensor(x1, "float64"), tensor(x2, "float64")
    return _rt.cast(_math.nextafter(a, b), dtype)


def saturate_cast(x: Any, dtype: Any) -> Any:
    """Keras 3's `keras.ops.saturate_cast(x, dtype)`: `x` clamped to the range of `dtype`,
    then cast (`rt.saturate_cast`; to bool, clamped to `[0, 1]` as Keras does).

    >>> import rustape as rt
    >>> rt.keras.ops.saturate_cast([-1e10, 3.7, 1e10], "int32").numpy()
    array([-2147483648,           3,  2147483520], dtype=int32)
    """
    t = tensor(x)
    name = _rt.as_dtype(dtype).name
    if name == "bool" or t.dtype.name == "bool":
        if name != "bool" and t.dtype.name == "bool":
            return _rt.cast(t, name)
        if t.dtype.is_complex:
            t = _rt.real(t)
        zero, one = _rt.constant(0, dtype=t.dtype.name), _rt.constant(1, dtype=t.dtype.name)
        return _rt.cast(_rt.clip_by_value(t, zero, one), "bool")
    return _rt.saturate_cast(t, name)


def argpartition(x: Any, kth: int, axis: int | None = -1) -> Any:
    """Keras 3's `keras.ops.argpartition(x, kth, axis=-1)`: positions (int32) that put the
    `kth` smallest element of each lane at `kth`, the smaller ones before it (ascending) and
    the larger after it (descending); `axis=None` partitions the flattened `x`. rustape
    partitions by the values (NumPy's definition); Keras's TensorFlow backend casts them to
    int32 first.

    >>> import rustape as rt
    >>> rt.keras.ops.argpartition([3.5, 1.0, 2.0, 0.5], 1).numpy()
    array([3, 1, 0, 2], dtype=int32)
    """
    t = tensor(x)
    if axis is None:
        t, axis = _rt.reshape(t, [-1]), 0
    return _rt.argpartition(t, kth, axis)


def segment_prod(
    data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False
) -> Any:
    """Keras 3's `keras.ops.segment_prod`: the rows of `data` multiplied per segment id (1 for
    an empty segment); `sorted=True` takes sorted ids (`rt.math.segment_prod`, and then no
    `num_segments`, as Keras's TensorFlow backend).

    >>> import rustape as rt
    >>> rt.keras.ops.segment_prod([1.0, 2.0, 3.0], [0, 0, 1]).numpy()
    array([2., 3.], dtype=float32)
    """
    ids = _rt.cast(tensor(segment_ids), "int32")
    if sorted:
        if num_segments is not None:
            raise ValueError(
                "keras.ops.segment_prod: num_segments cannot be set when sorted is True, "
                f"got num_segments={num_segments}"
            )
        return _math.segment_prod(tensor(data), ids)
    if num_segments is None:
        num_segments = int(np.max(ids.numpy())) + 1 if ids.shape[0] else 0
    return _math.unsorted_segment_prod(tensor(data), ids, num_segments)
