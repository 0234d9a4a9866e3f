"""Elements of a dataset as the pipeline carries them: nested tuples and dicts whose leaves are
NumPy arrays (0-d for scalars) in rustape's dtypes, or datasets (the windows of `window`).
Users see the leaves as `rt.Tensor`s; NumPy inside keeps slicing, stacking and padding cheap."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import _rustape as _rt
from .._module import TensorSpec

__all__ = ["TensorSpec"]  # used by the datasets' specs

#: The NumPy dtypes rustape's tensors have, and their rustape dtypes.
_DTYPES = {
    np.dtype(np.float32): _rt.float32,
    np.dtype(np.float64): _rt.float64,
    np.dtype(np.int32): _rt.int32,
    np.dtype(np.int64): _rt.int64,
    np.dtype(np.bool_): _rt.bool,
    np.dtype(np.complex64): _rt.complex64,
    np.dtype(np.complex128): _rt.complex128,
}


def is_structure(value: Any) -> bool:
    return isinstance(value, (tuple, dict))


def map_structure(fn: Callable[[Any], Any], element: Any) -> Any:
    """`element` with `fn` applied to every leaf (tuples, namedtuples and dicts kept)."""
    if isinstance(element, dict):
        return {k: map_structure(fn, v) for k, v in element.items()}
    if isinstance(element, tuple):
        items = [map_structure(fn, v) for v in element]
        return type(element)(*items) if hasattr(element, "_fields") else tuple(items)
    return fn(element)


def flatten(element: Any) -> list[Any]:
    """The leaves of `element`, in order."""
    if isinstance(element, dict):
        return [leaf for v in element.values() for leaf in flatten(v)]
    if isinstance(element, tuple):
        return [leaf for v in element for leaf in flatten(v)]
    return [element]


def pack_like(structure: Any, leaves: Iterable[Any]) -> Any:
    """`leaves` (in `flatten`'s order) arranged as `structure`."""
    it = iter(leaves)
    return map_structure(lambda _: next(it), structure)


def same_structure(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and list(a) == list(b)
            and all(same_structure(a[k], b[k]) for k in a)
        )
    if isinstance(a, tuple):
        return (
            isinstance(b, tuple)
            and len(a) == len(b)
            and all(same_structure(x, y) for x, y in zip(a, b))
        )
    return not is_structure(b)


def to_array(op: str, value: Any) -> Any:
    """One leaf as the pipeline carries it: a NumPy array in a rustape dtype (Python numbers
    and lists converted as `rt.constant` converts them: floats to float32, ints to int32), or
    a dataset unchanged."""
    from .dataset import Dataset

    if isinstance(value, Dataset):
        return value
    if isinstance(value, (_rt.Tensor, _rt.Variable)):
        return np.asarray(value.numpy())
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype in _DTYPES:
        return np.asarray(value)
    if value is None:
        raise TypeError(f"rt.data.Dataset.{op}: an element holds None; elements hold tensors")
    try:
        return np.asarray(_rt.constant(value).numpy())
    except (TypeError, ValueError) as e:
        described = getattr(value, "dtype", type(value).__name__)
        raise TypeError(
            f"rt.data.Dataset.{op}: cannot hold {described} values in a dataset ({e})"
        ) from None


def to_element(op: str, value: Any, lists_are_tensors: bool = False) -> Any:
    """A user's value (a function's result, a generator's item) as an element: tuples,
    namedtuples and dicts are structure; lists are structure too (as TensorFlow turns a
    function's list result into a tuple), except where TensorFlow reads them as one tensor
    (`from_tensor_slices`, `from_tensors`: `lists_are_tensors`)."""
    if isinstance(value, dict):
        return {k: to_element(op, v, lists_are_tensors) for k, v in value.items()}
    if isinstance(value, tuple):
        items = [to_element(op, v, lists_are_tensors) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list) and not lists_are_tensors:
        return tuple(to_element(op, v, lists_are_tensors) for v in value)
    return to_array(op, value)


def to_tensor(leaf: Any) -> Any:
    """A leaf as users see it: a tensor (datasets stay datasets)."""
    return _rt.constant(leaf) if isinstance(leaf, np.ndarray) else leaf


def to_numpy(leaf: Any) -> Any:
    """A leaf as `as_numpy_iterator` gives it: an array, a NumPy scalar for a scalar."""
    if isinstance(leaf, np.ndarray):
        return leaf[()] if leaf.ndim == 0 else leaf
    return leaf


def tensors(element: Any) -> Any:
    return map_structure(to_tensor, element)


def call(fn: Callable[..., Any], element: Any) -> Any:
    """`fn` on an element, as `map` and `filter` call it: a tuple's parts as separate
    arguments, anything else as one."""
    values = tensors(element)
    if isinstance(values, tuple) and not hasattr(values, "_fields"):
        return fn(*values)
    return fn(values)


def dtype_of(array: np.ndarray) -> Any:
    return _DTYPES[array.dtype]


def spec(element: Any) -> Any:
    """The `TensorSpec`s of an element (a window's datasets give their own element spec)."""
    from .dataset import Dataset

    def leaf_spec(leaf: Any) -> Any:
        if isinstance(leaf, Dataset):
            return leaf.element_spec
        return TensorSpec(leaf.shape, dtype_of(leaf))

    return map_structure(leaf_spec, element)


def describe(element: Any) -> str:
    return ", ".join(
        f"{tuple(leaf.shape)} {leaf.dtype}" if isinstance(leaf, np.ndarray) else "dataset"
        for leaf in flatten(element)
    )


def stack(op: str, elements: list[Any]) -> Any:
    """One batch of `elements` (each component stacked along a new first axis)."""
    first = elements[0]
    columns: list[list[Any]] = [[] for _ in flatten(first)]
    for i, element in enumerate(elements):
        leaves = flatten(element)
        if not same_structure(first, element):
            raise ValueError(
                f"rt.data.Dataset.{op}: element {i} has another structure than the first "
                f"({describe(element)} against {describe(first)})"
            )
        for column, leaf in zip(columns, leaves):
            column.append(leaf)
    stacked = []
    for c, column in enumerate(columns):
        head = column[0]
        if not isinstance(head, np.ndarray):
            raise TypeError(f"rt.data.Dataset.{op}: cannot batch datasets (component {c})")
        for i, leaf in enumerate(column):
            if leaf.shape != head.shape or leaf.dtype != head.dtype:
                raise ValueError(
                    f"rt.data.Dataset.{op}: cannot batch elements of different shapes or "
                    f"dtypes in component {c}: the batch's first element has shape "
                    f"{tuple(head.shape)} ({head.dtype}), element {i} has shape "
                    f"{tuple(leaf.shape)} ({leaf.dtype}); `padded_batch` pads them to one shape"
                )
        stacked.append(np.stack(column))
    return pack_like(first, stacked)


def pad_stack(
    op: str, elements: list[Any], padded_shapes: list[Any], padding_values: list[Any]
) -> Any:
    """One batch of `elements`, each component padded at the end of every axis to
    `padded_shapes` (None: the batch's longest) with `padding_values`."""
    first = elements[0]
    columns = [[flatten(e)[c] for e in elements] for c in range(len(flatten(first)))]
    out = []
    for c, column in enumerate(columns):
        rank = column[0].ndim
        for i, leaf in enumerate(column):
            if leaf.ndim != rank or leaf.dtype != column[0].dtype:
                raise ValueError(
                    f"rt.data.Dataset.{op}: component {c} of element {i} has shape "
                    f"{tuple(leaf.shape)} ({leaf.dtype}), the batch's first "
                    f"{tuple(column[0].shape)} ({column[0].dtype}): padding needs one rank "
                    "and dtype"
                )
        wanted = padded_shapes[c]
        longest = [max(leaf.shape[a] for leaf in column) for a in range(rank)]
        if wanted is None:
            shape = longest
        else:
            if len(wanted) != rank:
                raise ValueError(
                    f"rt.data.Dataset.{op}: padded shape {tuple(wanted)} of component {c} has "
                    f"another rank than its elements ({tuple(column[0].shape)})"
                )
            shape = [longest[a] if wanted[a] is None else int(wanted[a]) for a in range(rank)]
            for a in range(rank):
                if longest[a] > shape[a]:
                    raise ValueError(
                        f"rt.data.Dataset.{op}: component {c} has length {longest[a]} on axis "
                        f"{a}, longer than its padded shape {tuple(wanted)}"
                    )
        batch = np.full([len(column), *shape], padding_values[c], dtype=column[0].dtype)
        for i, leaf in enumerate(column):
            batch[i, ...][tuple(slice(0, n) for n in leaf.shape)] = leaf
        out.append(batch)
    return pack_like(first, out)
