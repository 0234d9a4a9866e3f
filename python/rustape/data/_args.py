"""Checking and arranging the arguments of `Dataset`'s methods."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _rustape as _rt
from . import _elements as E

#: "Let the runtime choose" (`num_parallel_calls`, `cycle_length`, `buffer_size`).
AUTOTUNE = -1


def checked_int(op: str, name: str, value: Any, low: int) -> int:
    """`value` (an int or an integer scalar tensor) checked against `low`."""
    if isinstance(value, (_rt.Tensor, _rt.Variable)):
        value = value.numpy()
    integer_array = isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind == "i"
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))) and not (
        integer_array
    ):
        raise TypeError(f"rt.data.Dataset.{op}: `{name}` must be an int, got {value!r}")
    number = int(value)
    if number < low:
        raise ValueError(f"rt.data.Dataset.{op}: `{name}` must be >= {low}, got {number}")
    return number


def callable_(op: str, fn: Any) -> Callable[..., Any]:
    if not callable(fn):
        raise TypeError(f"rt.data.Dataset.{op}: needs a function, got {type(fn).__name__}")
    return fn  # type: ignore[no-any-return]


def is_autotune(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and int(value) == AUTOTUNE


def dims(shape: Any) -> tuple[Any, ...]:
    return tuple(shape.as_list() if hasattr(shape, "as_list") else shape)


def _is_shape(value: Any) -> bool:
    """Whether `value` is one shape (None, a TensorShape, or a list or tuple of ints and
    Nones) rather than a structure of shapes."""
    if value is None or hasattr(value, "as_list"):
        return True
    return isinstance(value, (list, tuple)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in value
    )


def shapes_as(shapes: Any) -> Any:
    """`output_shapes` / `padded_shapes` with each shape as one leaf."""
    if isinstance(shapes, dict):
        return {k: shapes_as(v) for k, v in shapes.items()}
    if _is_shape(shapes):
        return _ShapeLeaf(shapes)
    return tuple(shapes_as(s) for s in shapes)


class _ShapeLeaf:
    """A shape standing as one leaf while shapes are arranged like the elements."""

    def __init__(self, dims: Any) -> None:
        self.dims = dims


def per_component(argument: str, element: Any, given: Any, *, shape: bool) -> list[Any]:
    """`padded_shapes` or `padding_values` as one entry per component of `element`."""
    width = len(E.flatten(element))
    spec = element
    if given is None:
        return [None if shape else 0 for _ in range(width)]
    if shape:
        arranged = E.flatten(shapes_as(given)) if E.is_structure(spec) else [_ShapeLeaf(given)]
        entries = [None if s.dims is None else list(dims(s.dims)) for s in arranged]
    else:
        entries = [
            (v.numpy() if isinstance(v, (_rt.Tensor, _rt.Variable)) else v)
            for v in (E.flatten(given) if E.is_structure(spec) else [given])
        ]
    if len(entries) != width:
        raise ValueError(
            f"rt.data.Dataset.padded_batch: `{argument}` has {len(entries)} entries for "
            f"elements of {width} components"
        )
    return entries
