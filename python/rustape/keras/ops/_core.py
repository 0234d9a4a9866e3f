"""What every `keras.ops` wrapper shares: conversion of arguments to tensors under Keras 3's
dtype promotion, axes, and the factories for elementwise functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _rustape as _rt

_FLOATS = ("float32", "float64")
_INTS = ("int32", "int64")


def dtype_name(x: Any) -> str | None:
    """The dtype of a tensor, variable or NumPy array; None for a Python number (weakly
    typed: it takes the other arguments' dtype, as in Keras)."""
    if isinstance(x, (_rt.Tensor, _rt.Variable)):
        return str(x.dtype.name)
    if isinstance(x, (np.ndarray, np.generic)):
        name = str(x.dtype)
        if name.startswith(("int", "uint")):
            return "int64" if name in ("int64", "uint32", "uint64") else "int32"
        if name.startswith("float"):
            return "float64" if name == "float64" else "float32"
        return name
    if isinstance(x, (list, tuple)):  # Keras: Python floats become float32, ints int32
        kind = np.asarray(x).dtype.kind
        return {"f": "float32", "i": "int32", "u": "int32", "b": "bool"}.get(kind, "float32")
    return None


def result_type(*values: Any) -> str:
    """Keras 3's result dtype: the widest typed argument (bool < ints < floats); a Python
    float with integers gives float32; Python numbers alone give int32 or float32."""
    typed = [d for d in (dtype_name(v) for v in values) if d is not None]
    weak_float = any(isinstance(v, float) for v in values)
    weak_int = any(isinstance(v, int) and not isinstance(v, bool) for v in values)
    complexes = [d for d in typed if d.startswith("complex")]
    if complexes:
        return "complex128" if "complex128" in complexes or "float64" in typed else "complex64"
    floats = [d for d in typed if d in _FLOATS]
    if floats:
        return "float64" if "float64" in floats else "float32"
    ints = [d for d in typed if d in _INTS]
    if weak_float:
        return "float32"
    if ints:
        return "int64" if "int64" in ints else "int32"
    if weak_int or not typed:
        return "int32" if weak_int or not weak_float else "float32"
    return "bool"


def scalar(value: Any, dtype: Any) -> Any:
    """`value` in `dtype`: a Python number directly (as Keras converts it; `rt.cast` would
    round a float through float32 first, as `tf.cast` does), a tensor cast."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _rt.constant(value, dtype=dtype)
    return _rt.cast(value, dtype)


def tensor(x: Any, dtype: str | None = None) -> Any:
    """`x` as a tensor (a variable's value), cast to `dtype` when given."""
    if isinstance(x, _rt.Variable):
        x = x.value()
    if not isinstance(x, _rt.Tensor):
        x = _rt.convert_to_tensor(np.asarray(x, dtype=dtype) if dtype is not None else x)
    if dtype is not None and x.dtype.name != dtype:
        x = _rt.cast(x, dtype)
    return x


def promoted(*values: Any) -> list[Any]:
    """The arguments as tensors of their common (Keras-promoted) dtype."""
    dtype = result_type(*values)
    return [tensor(v, dtype) for v in values]


def floating(x: Any) -> Any:
    """`x` as a tensor, integers and bools cast to float32 (Keras's transcendental ops)."""
    t = tensor(x)
    return t if t.dtype.name in _FLOATS or t.dtype.is_complex else _rt.cast(t, "float32")


def axes(axis: Any) -> Any:
    """An int, a tuple of ints, or None (every axis), as rustape takes it."""
    if axis is None or isinstance(axis, int):
        return axis
    return [int(a) for a in axis]


def normalize_axis(axis: int, rank: int) -> int:
    """`axis` within `[0, rank)` (negative axes count from the end)."""
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for an array of rank {rank}")
    return axis % rank


def unary(
    name: str, fn: Callable[[Any], Any], example: str, result: str, cast_ints: bool = True
) -> Any:
    """Keras's elementwise `ops.<name>(x)`: `fn` of `x` (integers cast to float32 first with
    `cast_ints`, as Keras does for transcendental functions). `example` and `result` make
    the docstring's example."""

    def op(x: Any) -> Any:
        return fn(floating(x) if cast_ints else tensor(x))

    op.__name__ = op.__qualname__ = name
    note = " (integers are cast to float32 first)" if cast_ints else ""
    op.__doc__ = (
        f"Keras 3's `keras.ops.{name}(x)`, elementwise{note}.\n\n"
        f">>> import rustape as rt\n"
        f">>> rt.keras.ops.{name}({example}).numpy(){_rounded(result)}\n"
        f"{result}\n"
    )
    return op


def _rounded(result: str) -> str:
    """How a docstring's example prints a float result: to 4 decimals."""
    return ".round(4)" if "float" in result else ""


def binary(name: str, fn: Callable[[Any, Any], Any], example: str, result: str) -> Any:
    """Keras's elementwise `ops.<name>(x1, x2)` with broadcasting and dtype promotion."""

    def op(x1: Any, x2: Any) -> Any:
        a, b = promoted(x1, x2)
        return fn(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Keras 3's `keras.ops.{name}(x1, x2)`, elementwise with broadcasting; the arguments "
        f"are promoted to a common dtype as in Keras (ints with floats give floats).\n\n"
        f">>> import rustape as rt\n"
        f">>> rt.keras.ops.{name}({example}).numpy(){_rounded(result)}\n"
        f"{result}\n"
    )
    return op
