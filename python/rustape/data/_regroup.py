"""Datasets that regroup their parent's elements: `interleave` / `flat_map` (datasets a
function makes, taken in turns), `window` (windows as datasets) and `group_by_window`
(groups by key, each reduced to a dataset)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import _rustape as _rt
from . import _elements as E
from ._nodes import Slices, _Unary
from .dataset import INFINITE, UNKNOWN, Dataset


class Interleave(_Unary):
    """Elements of the datasets `fn` makes from the parent's, `cycle_length` at a time, taking
    `block_length` from each in turn; a dataset that runs out is replaced by the next one
    (which gets its first turn on the next round)."""

    def __init__(
        self, op: str, parent: Dataset, fn: Callable[..., Any], cycle: int, block: int
    ) -> None:
        super().__init__(parent)
        self._op, self._fn, self._cycle, self._block = op, fn, cycle, block

    def _open(self, inputs: Iterator[Any]) -> Iterator[Any] | None:
        for element in inputs:
            made = E.call(self._fn, element)
            if not isinstance(made, Dataset):
                raise TypeError(
                    f"rt.data.Dataset.{self._op}: the function must return a Dataset, it "
                    f"returned {type(made).__name__}"
                )
            return made._elements()
        return None

    def _elements(self) -> Iterator[Any]:
        inputs = self._parent._elements()
        slots: list[Iterator[Any] | None] = []
        while len(slots) < self._cycle:
            opened = self._open(inputs)
            if opened is None:
                break
            slots.append(opened)
        slot = 0
        while any(s is not None for s in slots):
            current = slots[slot]
            if current is not None:
                for _ in range(self._block):
                    try:
                        yield next(current)
                    except StopIteration:
                        slots[slot] = self._open(inputs)
                        break
            slot = (slot + 1) % len(slots)

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        return 0 if count == 0 else UNKNOWN

    def _spec(self) -> Any:
        return Dataset._spec(self)


class Window(_Unary):
    def __init__(
        self, parent: Dataset, size: int, shift: int, stride: int, drop_remainder: bool
    ) -> None:
        super().__init__(parent)
        self._size, self._shift, self._stride = size, shift, stride
        self._drop = drop_remainder

    def _elements(self) -> Iterator[Any]:
        items = self._parent._elements()
        buffer: deque[Any] = deque()  # items from index `base` on
        base, start, done = 0, 0, False
        while True:
            last = start + (self._size - 1) * self._stride
            while not done and base + len(buffer) <= last:
                try:
                    buffer.append(next(items))
                except StopIteration:
                    done = True
            picks = [i for i in range(start, last + 1, self._stride) if i < base + len(buffer)]
            if not picks or (self._drop and len(picks) < self._size):
                return
            window = [buffer[i - base] for i in picks]
            yield E.pack_like(
                window[0],
                [
                    Slices(np.stack(column), len(column))
                    for column in zip(*(E.flatten(w) for w in window))
                ],
            )
            start += self._shift
            while buffer and base < start:
                buffer.popleft()
                base += 1
            while not done and base < start:  # a shift longer than the window
                try:
                    next(items)
                    base += 1
                except StopIteration:
                    done = True

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        if count < 0:
            return count
        if not self._drop:
            return -(-count // self._shift)
        span = (self._size - 1) * self._stride + 1
        return 0 if count < span else (count - span) // self._shift + 1

    def _spec(self) -> Any:
        return Dataset._spec(self)


class GroupByWindow(_Unary):
    """Elements grouped by an int64 key; a group that reaches its window size goes through
    `reduce_func(key, window)` and out at once; at the end the groups left go out in order
    of their keys (TensorFlow's order)."""

    def __init__(
        self,
        parent: Dataset,
        key_func: Callable[..., Any],
        reduce_func: Callable[[Any, Dataset], Any],
        window_size: Callable[[int], int],
    ) -> None:
        super().__init__(parent)
        self._key, self._reduce, self._window = key_func, reduce_func, window_size

    def _flush(self, key: int, group: list[Any]) -> Iterator[Any]:
        window = _Listed(group)
        out = self._reduce(E.to_tensor(np.asarray(key, np.int64)), window)
        if not isinstance(out, Dataset):
            raise TypeError(
                "rt.data.Dataset.group_by_window: `reduce_func` must return a Dataset, got "
                f"{type(out).__name__}"
            )
        yield from out._elements()

    def _elements(self) -> Iterator[Any]:
        groups: dict[int, list[Any]] = {}
        sizes: dict[int, int] = {}
        for element in self._parent._elements():
            key_value = E.to_element("group_by_window", E.call(self._key, element))
            if (
                not isinstance(key_value, np.ndarray)
                or key_value.ndim != 0
                or key_value.dtype != np.int64
            ):
                raise ValueError(
                    "rt.data.Dataset.group_by_window: `key_func` must return an int64 scalar, "
                    f"got {E.describe(key_value)}"
                )
            key = int(key_value)
            if key not in sizes:
                sizes[key] = int(self._window(key))
                if sizes[key] < 1:
                    raise ValueError(
                        f"rt.data.Dataset.group_by_window: window size {sizes[key]} for key "
                        f"{key}; it must be positive"
                    )
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._flush(key, group)
        for key in sorted(groups):
            yield from self._flush(key, groups[key])

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        return INFINITE if count == INFINITE else (0 if count == 0 else UNKNOWN)

    def _spec(self) -> Any:
        return Dataset._spec(self)


class _Listed(Dataset):
    """A dataset of elements already made (a window of `group_by_window`)."""

    def __init__(self, elements: list[Any]) -> None:
        self._list = elements

    def _elements(self) -> Iterator[Any]:
        return iter(self._list)

    def _cardinality(self) -> int:
        return len(self._list)

    def _spec(self) -> Any:
        return Dataset._spec(self)


def bucket_by_sequence_length(
    dataset: Dataset,
    element_length_func: Callable[..., Any],
    bucket_boundaries: list[int],
    bucket_batch_sizes: list[int],
    padded_shapes: Any,
    padding_values: Any,
    pad_to_bucket_boundary: bool,
    no_padding: bool,
    drop_remainder: bool,
) -> Dataset:
    """`Dataset.bucket_by_sequence_length`: `group_by_window` with a bucket per length range,
    each window batched (padded unless `no_padding`)."""
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(
            "rt.data.Dataset.bucket_by_sequence_length: `len(bucket_batch_sizes)` must "
            f"equal `len(bucket_boundaries) + 1`; got {len(sizes)} and {len(boundaries)}"
        )
    edges = [-(2**31)] + boundaries + [2**31 - 1]

    def bucket(*element: Any) -> Any:
        length = int(_rt.convert_to_tensor(element_length_func(*element)).numpy())
        for i in range(len(sizes)):
            if edges[i] <= length < edges[i + 1]:
                return _rt.constant(i, _rt.int64)
        raise ValueError(
            f"rt.data.Dataset.bucket_by_sequence_length: length {length} is in no bucket"
        )

    def batch(key: Any, window: Dataset) -> Dataset:
        i = int(key.numpy())
        if no_padding:
            return window.batch(sizes[i], drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            if i >= len(boundaries):
                raise ValueError(
                    "rt.data.Dataset.bucket_by_sequence_length: with pad_to_bucket_boundary, "
                    "elements must be shorter than max(bucket_boundaries)"
                )
            first = window._list[0]  # type: ignore[attr-defined]
            shapes = E.map_structure(
                lambda leaf: [boundaries[i] - 1] + [None] * (leaf.ndim - 1), first
            )
        return window.padded_batch(sizes[i], shapes, padding_values, drop_remainder=drop_remainder)

    return dataset.group_by_window(bucket, batch, window_size_func=lambda key: sizes[int(key)])
