"""Nested structures, as `tf.nest` sees them.

A structure is a list, a tuple, a namedtuple or a mapping (dict, OrderedDict, ...) whose
elements are structures or leaves. Everything else is a leaf, `None` included; Tensors and
Variables are leaves. Mappings are flattened in sorted-key order (as `tf.nest` does); packing
gives back the mapping's own type and key order.
"""

from __future__ import annotations

import collections as _collections
import collections.abc as _abc
from typing import Any, Callable

__all__ = [
    "assert_same_structure",
    "flatten",
    "flatten_up_to",
    "is_nested",
    "map_structure",
    "pack_sequence_as",
]


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x: Any) -> bool:
    """True for a list, tuple or mapping (the containers `flatten` descends into).

    >>> rt.nest.is_nested([1]), rt.nest.is_nested(rt.constant(1.0))
    (True, False)
    """
    return isinstance(x, (list, tuple, _abc.Mapping))


def _sorted_keys(mapping: _abc.Mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError as e:
        raise TypeError(
            f"nest only supports dicts with sortable keys, got keys {list(mapping)!r}"
        ) from e


def _children(x: Any) -> list:
    if isinstance(x, _abc.Mapping):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def flatten(structure: Any) -> list[Any]:
    """The leaves of `structure`, depth first, mappings in sorted-key order.

    A leaf on its own flattens to `[leaf]` (and `None` to `[None]`).

    >>> rt.nest.flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]
    """
    out: list[Any] = []
    # Explicit stack of iterators: deep structures do not hit the recursion limit. The
    # containers on the current path are remembered: one that holds itself is an error, not
    # an endless walk.
    if not is_nested(structure):
        return [structure]
    stack = [iter(_children(structure))]
    path = [id(structure)]
    while stack:
        try:
            item = next(stack[-1])
        except StopIteration:
            stack.pop()
            path.pop()
            continue
        if is_nested(item):
            _check_not_on_path(item, path)
            stack.append(iter(_children(item)))
            path.append(id(item))
        else:
            out.append(item)
    return out


def _check_not_on_path(item: Any, path: list[int]) -> None:
    if id(item) in path:
        raise ValueError(
            f"the nested structure contains itself (a {type(item).__name__} inside itself): "
            "it has no finite list of leaves"
        )


def flatten_up_to(shallow: Any, deep: Any) -> list[Any]:
    """`deep` flattened only as far as `shallow` nests: one item (itself possibly a structure)
    per leaf of `shallow`. ValueError when `deep` does not nest like `shallow` down to there.

    >>> rt.nest.flatten_up_to([0, 0], [[1, 2], 3])
    [[1, 2], 3]
    """
    out: list[Any] = []
    stack = [(shallow, deep)]
    flatten(shallow)  # a ValueError for a structure that holds itself (the walk is then finite)
    while stack:
        s, d = stack.pop()
        if not is_nested(s):
            out.append(d)
            continue
        if isinstance(s, _abc.Mapping):
            if not isinstance(d, _abc.Mapping) or set(s) != set(d):
                raise ValueError(
                    f"flatten_up_to: expected a mapping with keys {sorted(s)}, got {d!r}"
                )
            keys = _sorted_keys(s)
            stack.extend((s[k], d[k]) for k in reversed(keys))
        else:
            if not isinstance(d, (list, tuple)) or len(d) != len(s):
                raise ValueError(
                    f"flatten_up_to: expected a sequence of length {len(s)}, got {d!r}"
                )
            stack.extend(reversed(list(zip(s, d))))
    return out


def _count_leaves(structure: Any) -> int:
    return len(flatten(structure))


def _rebuild(like: Any, values: list) -> Any:
    """A container of `like`'s type holding `values` (given in flatten order)."""
    if isinstance(like, _abc.Mapping):
        by_key = dict(zip(_sorted_keys(like), values))
        items = [(k, by_key[k]) for k in like]
        if isinstance(like, _collections.defaultdict):
            result = type(like)(like.default_factory)
            result.update(items)
            return result
        try:
            factory: Any = type(like)
            return factory(items)
        except TypeError:
            return dict(items)
    if _is_namedtuple(like):
        return type(like)(*values)
    if isinstance(like, tuple):
        try:
            return type(like)(values)
        except TypeError:
            return tuple(values)
    if isinstance(like, list):
        if type(like) is list:
            return list(values)
        try:
            return type(like)(values)
        except TypeError:
            return list(values)
    raise TypeError(f"not a structure: {type(like).__name__}")


def pack_sequence_as(structure: Any, flat_sequence: Any) -> Any:
    """`flat_sequence` arranged like `structure` (the inverse of `flatten`).

    >>> rt.nest.pack_sequence_as({"a": 0, "b": [0, 0]}, [1, 2, 3])
    {'a': 1, 'b': [2, 3]}
    """
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(
                f"pack_sequence_as: the structure is a single leaf but {len(flat)} values were given"
            )
        return flat[0]
    expected = _count_leaves(structure)
    if expected != len(flat):
        raise ValueError(
            f"pack_sequence_as: the structure has {expected} leaves but {len(flat)} values were given"
        )
    pos = 0

    # Explicit stack: each frame is (container, children, index, packed values so far).
    root_children = _children(structure)
    stack: list[Any] = [(structure, root_children, 0, [])]
    while True:
        container, children, i, packed = stack[-1]
        if i == len(children):
            stack.pop()
            built = _rebuild(container, packed)
            if not stack:
                return built
            parent = stack[-1]
            parent[3].append(built)
            stack[-1] = (parent[0], parent[1], parent[2] + 1, parent[3])
            continue
        child = children[i]
        if is_nested(child):
            stack.append((child, _children(child), 0, []))
        else:
            packed.append(flat[pos])
            pos += 1
            stack[-1] = (container, children, i + 1, packed)


def map_structure(func: Callable, *structures: Any) -> Any:
    """`func` applied to the leaves of the structures (which must share one structure).

    >>> rt.nest.map_structure(lambda v: v * 2, {"a": [1, 2], "b": 3})
    {'a': [2, 4], 'b': 6}
    """
    if not structures:
        raise ValueError("map_structure needs at least one structure")
    flats = [flatten(s) for s in structures]  # first: a ValueError for one that holds itself
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])


def _shape_signature(structure: Any) -> Any:
    """A hashable description of the nesting (container kinds and sizes), leaves as '.'."""
    if not is_nested(structure):
        return "."
    if isinstance(structure, _abc.Mapping):
        keys = _sorted_keys(structure)
        return ("map", tuple(keys), tuple(_shape_signature(structure[k]) for k in keys))
    kind = "seq"
    return (kind, tuple(_shape_signature(c) for c in structure))


def assert_same_structure(a: Any, b: Any) -> None:
    """ValueError unless `a` and `b` nest the same way (container types may differ).

    >>> rt.nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    """
    flatten(a), flatten(b)  # a ValueError for a structure that holds itself
    if _shape_signature(a) != _shape_signature(b):
        raise ValueError(
            f"The two structures don't have the same nested structure: {a!r} and {b!r}"
        )
