"""The datasets `Dataset`'s constructors and methods return: each says how its elements come
(`_elements`, a fresh iterator per pass) and how many there are (`_cardinality`)."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import _elements as E
from .dataset import INFINITE, UNKNOWN, Dataset, _seeds

#: The structure of arrays an index-driven dataset's elements are rows of, and a function
#: giving one pass's row indices: slices, then shuffles, takes, skips, repeats and shards of
#: them, batched by gathering rows at once.
Indexed = tuple[Any, Callable[[], Iterator[int]]]


def _rows(arrays: Any, index: Any) -> Any:
    """Row `index` (an int, or an array of them: a batch) of every array."""
    return E.map_structure(lambda a: np.asarray(a[index]), arrays)


class Slices(Dataset):
    def __init__(self, arrays: Any, count: int) -> None:
        self._arrays, self._count = arrays, count

    def _elements(self) -> Iterator[Any]:
        for i in range(self._count):
            yield _rows(self._arrays, i)

    def _cardinality(self) -> int:
        return self._count

    def _spec(self) -> Any:
        return E.map_structure(lambda a: E.TensorSpec(a.shape[1:], E.dtype_of(a)), self._arrays)

    def _indexed(self) -> Indexed | None:
        return self._arrays, lambda: iter(range(self._count))


class Tensors(Dataset):
    def __init__(self, element: Any) -> None:
        self._element = element

    def _elements(self) -> Iterator[Any]:
        yield self._element

    def _cardinality(self) -> int:
        return 1

    def _spec(self) -> Any:
        return E.spec(self._element)


class Range(Dataset):
    def __init__(self, start: int, stop: int, step: int, dtype: Any) -> None:
        self._start, self._stop, self._step, self._dtype = start, stop, step, dtype

    def _elements(self) -> Iterator[Any]:
        for value in range(self._start, self._stop, self._step):
            yield np.asarray(value, self._dtype)

    def _cardinality(self) -> int:
        return len(range(self._start, self._stop, self._step))

    def _spec(self) -> Any:
        return E.TensorSpec((), E.dtype_of(np.zeros((), self._dtype)))


class Generator(Dataset):
    def __init__(self, make: Callable[[], Any], signature: Any) -> None:
        self._make, self._signature = make, signature

    def _elements(self) -> Iterator[Any]:
        for item in self._make():
            if self._signature is None:
                yield E.to_element("from_generator", item, lists_are_tensors=True)
            else:
                yield _conform(self._signature, item, item)

    def _cardinality(self) -> int:
        return UNKNOWN

    def _spec(self) -> Any:
        return self._signature if self._signature is not None else super()._spec()


def _conform(signature: Any, value: Any, item: Any) -> Any:
    """A generator's `item` (here its part `value`) as the signature declares it: its
    structure, each tensor in the declared dtype and checked against the declared shape."""
    op = "rt.data.Dataset.from_generator"
    if isinstance(signature, dict):
        if not isinstance(value, dict) or set(value) != set(signature):
            raise ValueError(f"{op}: the generator yielded {item!r}, its signature is {signature}")
        return {k: _conform(s, value[k], item) for k, s in signature.items()}
    if isinstance(signature, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(signature):
            raise ValueError(f"{op}: the generator yielded {item!r}, its signature is {signature}")
        return tuple(_conform(s, v, item) for s, v in zip(signature, value))
    leaf = E.to_array("from_generator", value)
    if signature.dtype is not None and E.dtype_of(leaf) != signature.dtype:
        leaf = leaf.astype(_numpy_dtype(signature.dtype))
    if signature.shape is not None and (
        len(signature.shape) != leaf.ndim
        or any(d is not None and d != n for d, n in zip(signature.shape, leaf.shape))
    ):
        raise ValueError(
            f"{op}: the generator yielded a value of shape {tuple(leaf.shape)}, its signature "
            f"declares {signature.shape}"
        )
    return leaf


def _numpy_dtype(dtype: Any) -> Any:
    for numpy_dtype, rt_dtype in E._DTYPES.items():
        if rt_dtype == dtype:
            return numpy_dtype
    raise TypeError(f"rt.data.Dataset.from_generator: no NumPy dtype for {dtype}")


class Zip(Dataset):
    def __init__(self, datasets: Any) -> None:
        self._datasets = datasets

    def _elements(self) -> Iterator[Any]:
        iterators = [d._elements() for d in E.flatten(self._datasets)]
        for parts in zip(*iterators):
            yield E.pack_like(self._datasets, parts)

    def _cardinality(self) -> int:
        counts = [d._cardinality() for d in E.flatten(self._datasets)]
        known = [c for c in counts if c >= 0]
        if UNKNOWN in counts:
            return UNKNOWN if not known or min(known) > 0 else 0
        return min(known) if known else INFINITE

    def _spec(self) -> Any:
        return E.map_structure(lambda d: d.element_spec, self._datasets)


class Concatenate(Dataset):
    def __init__(self, first: Dataset, second: Dataset) -> None:
        self._first, self._second = first, second

    def _elements(self) -> Iterator[Any]:
        yield from self._first._elements()
        yield from self._second._elements()

    def _cardinality(self) -> int:
        a, b = self._first._cardinality(), self._second._cardinality()
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b

    def _spec(self) -> Any:
        def common(a: Any, b: Any) -> Any:
            if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
                return E.TensorSpec(None, a.dtype)
            return E.TensorSpec([x if x == y else None for x, y in zip(a.shape, b.shape)], a.dtype)

        first, second = self._first.element_spec, self._second.element_spec
        return E.pack_like(first, map(common, E.flatten(first), E.flatten(second)))


class _Unary(Dataset):
    """A dataset made from one other (`_parent`), with the same element spec unless it says."""

    def __init__(self, parent: Dataset) -> None:
        self._parent = parent

    def _cardinality(self) -> int:
        return self._parent._cardinality()

    def _spec(self) -> Any:
        return self._parent.element_spec


class Map(_Unary):
    def __init__(self, parent: Dataset, fn: Callable[..., Any]) -> None:
        super().__init__(parent)
        self._fn = fn

    def _elements(self) -> Iterator[Any]:
        for element in self._parent._elements():
            yield E.to_element("map", E.call(self._fn, element))

    def _spec(self) -> Any:
        return Dataset._spec(self)


def _predicate(op: str, fn: Callable[..., Any], element: Any) -> bool:
    result = E.to_element(op, E.call(fn, element))
    if not isinstance(result, np.ndarray) or result.dtype != np.bool_ or result.ndim != 0:
        raise ValueError(
            f"rt.data.Dataset.{op}: the predicate must return a bool scalar tensor, it "
            f"returned {E.describe(result)}"
        )
    return bool(result)


class Filter(_Unary):
    def __init__(self, parent: Dataset, predicate: Callable[..., Any]) -> None:
        super().__init__(parent)
        self._predicate = predicate

    def _elements(self) -> Iterator[Any]:
        for element in self._parent._elements():
            if _predicate("filter", self._predicate, element):
                yield element

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        return INFINITE if count == INFINITE else (0 if count == 0 else UNKNOWN)


class Unique(_Unary):
    def _elements(self) -> Iterator[Any]:
        seen: set[Any] = set()
        for element in self._parent._elements():
            if (
                not isinstance(element, np.ndarray)
                or element.ndim != 0
                or element.dtype.kind not in "iub"
            ):
                raise TypeError(
                    "rt.data.Dataset.unique: elements must be integer or bool scalars, got "
                    f"{E.describe(element)}"
                )
            key = element.item()
            if key not in seen:
                seen.add(key)
                yield element

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        return INFINITE if count == INFINITE else (0 if count == 0 else UNKNOWN)


class TakeWhile(Filter):
    def _elements(self) -> Iterator[Any]:
        for element in self._parent._elements():
            if not _predicate("take_while", self._predicate, element):
                return
            yield element

    def _cardinality(self) -> int:
        return 0 if self._parent._cardinality() == 0 else UNKNOWN


def _chunks(items: Iterator[Any], size: int, drop_remainder: bool) -> Iterator[list[Any]]:
    while True:
        chunk = list(itertools.islice(items, size))
        if not chunk or (drop_remainder and len(chunk) < size):
            return
        yield chunk


class Batch(_Unary):
    def __init__(self, parent: Dataset, size: int, drop_remainder: bool) -> None:
        super().__init__(parent)
        self._size, self._drop = size, drop_remainder

    def _elements(self) -> Iterator[Any]:
        indexed = self._parent._indexed()
        if indexed is not None:  # rows gathered at once
            arrays, indices = indexed
            for chunk in _chunks(indices(), self._size, self._drop):
                yield _rows(arrays, np.asarray(chunk, np.intp))
            return
        for chunk in _chunks(self._parent._elements(), self._size, self._drop):
            yield E.stack("batch", chunk)

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        if count < 0:
            return count
        return count // self._size if self._drop else -(-count // self._size)

    def _spec(self) -> Any:
        first = self._size if self._drop else None
        return E.map_structure(
            lambda s: E.TensorSpec(None if s.shape is None else (first, *s.shape), s.dtype),
            self._parent.element_spec,
        )


class PaddedBatch(Batch):
    def __init__(
        self, parent: Dataset, size: int, drop_remainder: bool, shapes: Any, values: Any
    ) -> None:
        super().__init__(parent, size, drop_remainder)
        self._shapes, self._values = shapes, values

    def _elements(self) -> Iterator[Any]:
        from ._args import per_component

        for chunk in _chunks(self._parent._elements(), self._size, self._drop):
            shapes = per_component("padded_shapes", chunk[0], self._shapes, shape=True)
            values = per_component("padding_values", chunk[0], self._values, shape=False)
            yield E.pad_stack("padded_batch", chunk, shapes, values)

    def _spec(self) -> Any:
        from ._args import per_component

        first = self._size if self._drop else None
        parent = self._parent.element_spec
        wanted_shapes = per_component("padded_shapes", parent, self._shapes, shape=True)
        out = []
        for s, wanted in zip(E.flatten(parent), wanted_shapes):
            if s.shape is None:
                out.append(E.TensorSpec(None, s.dtype))
                continue
            dims = [
                d if wanted is None else (None if wanted[a] is None else int(wanted[a]))
                for a, d in enumerate(s.shape)
            ]
            out.append(E.TensorSpec((first, *dims), s.dtype))
        return E.pack_like(parent, out)


class Unbatch(_Unary):
    def _elements(self) -> Iterator[Any]:
        for element in self._parent._elements():
            leaves = E.flatten(element)
            if any(leaf.ndim == 0 for leaf in leaves):
                raise ValueError("rt.data.Dataset.unbatch: an element has a scalar component")
            counts = {leaf.shape[0] for leaf in leaves}
            if len(counts) > 1:
                raise ValueError(
                    "rt.data.Dataset.unbatch: the components of an element have different "
                    f"leading dimensions ({E.describe(element)})"
                )
            for i in range(counts.pop()):
                yield _rows(element, i)

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        if count < 0 or count == 0:
            return count
        # Known when every element's leading dimension is (its spec says so).
        firsts = {
            None if s.shape is None or not s.shape else s.shape[0]
            for s in E.flatten(self._parent.element_spec)
        }
        first = firsts.pop() if len(firsts) == 1 else None
        return UNKNOWN if first is None else count * int(first)

    def _spec(self) -> Any:
        return E.map_structure(
            lambda s: E.TensorSpec(None if s.shape is None else s.shape[1:], s.dtype),
            self._parent.element_spec,
        )


class Shuffle(_Unary):
    def __init__(self, parent: Dataset, buffer_size: int, seed: Any, reshuffle: bool) -> None:
        super().__init__(parent)
        self._buffer, self._reshuffle = buffer_size, reshuffle
        self._seeds = _seeds(seed)
        self._passes = 0

    def _rng(self) -> np.random.Generator:
        """This pass's generator: a new order per pass unless `reshuffle_each_iteration` is
        False, the same sequence of orders for the same seeds."""
        pass_number = self._passes if self._reshuffle else 0
        self._passes += 1
        return np.random.default_rng([*self._seeds, pass_number])

    def _shuffled(self, items: Iterator[Any], rng: np.random.Generator) -> Iterator[Any]:
        """TensorFlow's buffer: the first `buffer_size` items, then each output one drawn
        uniformly from the buffer and replaced by the next item."""
        buffer = list(itertools.islice(items, self._buffer))
        for item in items:
            j = int(rng.integers(len(buffer)))
            yield buffer[j]
            buffer[j] = item
        while buffer:
            j = int(rng.integers(len(buffer)))
            buffer[j], buffer[-1] = buffer[-1], buffer[j]
            yield buffer.pop()

    def _elements(self) -> Iterator[Any]:
        rng = self._rng()
        count = self._parent._cardinality()
        if 0 <= count <= self._buffer:  # as the rows' order below, for the same seeds
            items = list(self._parent._elements())
            return iter([items[i] for i in rng.permutation(len(items)).tolist()])
        return self._shuffled(self._parent._elements(), rng)

    def _indexed(self) -> Indexed | None:
        indexed = self._parent._indexed()
        if indexed is None:
            return None
        arrays, indices = indexed
        count = self._parent._cardinality()

        def order() -> Iterator[int]:
            rng = self._rng()
            if 0 <= count <= self._buffer:  # the buffer holds everything: a permutation
                rows = list(indices())
                return iter([rows[i] for i in rng.permutation(len(rows)).tolist()])
            return self._shuffled(indices(), rng)

        return arrays, order


class Repeat(_Unary):
    def __init__(self, parent: Dataset, count: int) -> None:
        super().__init__(parent)
        self._count = count

    def _passes(self) -> Iterator[int]:
        return itertools.count() if self._count < 0 else iter(range(self._count))

    def _elements(self) -> Iterator[Any]:
        for _ in self._passes():
            empty = True
            for element in self._parent._elements():
                empty = False
                yield element
            if empty:  # an empty dataset repeated forever is empty
                return

    def _indexed(self) -> Indexed | None:
        indexed = self._parent._indexed()
        if indexed is None:
            return None
        arrays, indices = indexed

        def repeated() -> Iterator[int]:
            for _ in self._passes():
                empty = True
                for i in indices():
                    empty = False
                    yield i
                if empty:
                    return

        return arrays, repeated

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        if count == 0 or self._count == 0:
            return 0
        if self._count < 0:
            return INFINITE
        return count if count < 0 else count * self._count


class Take(_Unary):
    def __init__(self, parent: Dataset, count: int) -> None:
        super().__init__(parent)
        self._count = count

    def _cut(self, items: Iterator[Any]) -> Iterator[Any]:
        return items if self._count < 0 else itertools.islice(items, self._count)

    def _elements(self) -> Iterator[Any]:
        return self._cut(self._parent._elements())

    def _indexed(self) -> Indexed | None:
        indexed = self._parent._indexed()
        if indexed is None:
            return None
        arrays, indices = indexed
        return arrays, lambda: self._cut(indices())

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        if self._count < 0:
            return count
        if count == INFINITE:
            return self._count
        return UNKNOWN if count == UNKNOWN else min(count, self._count)


class Skip(Take):
    def _cut(self, items: Iterator[Any]) -> Iterator[Any]:
        if self._count < 0:
            return iter(())
        return itertools.islice(items, self._count, None)

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        if self._count < 0:
            return 0
        return count if count < 0 else max(count - self._count, 0)


class Shard(Take):
    def __init__(self, parent: Dataset, num_shards: int, index: int) -> None:
        super().__init__(parent, 0)
        self._shards, self._index = num_shards, index

    def _cut(self, items: Iterator[Any]) -> Iterator[Any]:
        return itertools.islice(items, self._index, None, self._shards)

    def _cardinality(self) -> int:
        count = self._parent._cardinality()
        if count < 0:
            return count
        return count // self._shards + (1 if self._index < count % self._shards else 0)


class Enumerate(_Unary):
    def __init__(self, parent: Dataset, start: int) -> None:
        super().__init__(parent)
        self._start = start

    def _elements(self) -> Iterator[Any]:
        for i, element in enumerate(self._parent._elements(), self._start):
            yield (np.asarray(i, np.int64), element)

    def _spec(self) -> Any:
        return (E.TensorSpec((), E.dtype_of(np.zeros((), np.int64))), self._parent.element_spec)


class Scan(_Unary):
    def __init__(self, parent: Dataset, initial_state: Any, fn: Callable[..., Any]) -> None:
        super().__init__(parent)
        self._initial, self._fn = E.to_element("scan", initial_state), fn

    def _elements(self) -> Iterator[Any]:
        state = self._initial
        for element in self._parent._elements():
            result = self._fn(E.tensors(state), E.tensors(element))
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise ValueError(
                    "rt.data.Dataset.scan: `scan_func` must return a pair (new_state, "
                    f"output_element), got {type(result).__name__}"
                )
            new_state = E.to_element("scan", result[0])
            if not E.same_structure(state, new_state) or any(
                a.shape != b.shape or a.dtype != b.dtype
                for a, b in zip(E.flatten(state), E.flatten(new_state))
            ):
                raise ValueError(
                    "rt.data.Dataset.scan: the new state must keep the initial state's "
                    f"structure, shapes and dtypes ({E.describe(state)}), got "
                    f"{E.describe(new_state)}"
                )
            state = new_state
            yield E.to_element("scan", result[1])

    def _spec(self) -> Any:
        return Dataset._spec(self)


class Cache(_Unary):
    """The parent's elements, kept after the first complete pass (in memory, or in a file
    when `filename` is given: NumPy arrays, read back without pickle)."""

    def __init__(self, parent: Dataset, filename: str) -> None:
        super().__init__(parent)
        self._filename = filename
        self._kept: list[Any] | None = None

    def _path(self) -> str:
        return self._filename + ".rustape-cache.npz"

    def _elements(self) -> Iterator[Any]:
        if self._kept is None and self._filename and os.path.exists(self._path()):
            self._kept = self._read()
        if self._kept is not None:
            yield from self._kept
            return
        seen = []
        for element in self._parent._elements():
            seen.append(element)
            yield element
        self._kept = seen
        if self._filename:
            self._write(seen)

    def _write(self, elements: list[Any]) -> None:
        arrays = {
            f"e{i}_{j}": leaf
            for i, element in enumerate(elements)
            for j, leaf in enumerate(E.flatten(element))
        }
        structure = _structure_text(elements[0] if elements else 0)
        with open(self._path(), "wb") as f:
            np.savez(f, count=np.asarray(len(elements)), structure=np.asarray(structure), **arrays)

    def _read(self) -> list[Any]:
        try:
            with np.load(self._path(), allow_pickle=False) as stored:
                count = int(stored["count"])
                structure = _structure_from_text(str(stored["structure"]))
                width = len(E.flatten(structure))
                elements = []
                for i in range(count):
                    leaves = [stored[f"e{i}_{j}"] for j in range(width)]
                    for leaf in leaves:
                        if leaf.dtype not in E._DTYPES:
                            raise ValueError(f"an array of dtype {leaf.dtype}")
                    elements.append(E.pack_like(structure, leaves))
        except (ValueError, KeyError, OSError) as e:
            raise ValueError(
                f"rt.data.Dataset.cache: cannot read the cache file {self._path()!r} ({e})"
            ) from None
        return elements


def _structure_text(element: Any) -> str:
    """An element's structure (tuples and dict keys; leaves as 0) as JSON."""

    def shape(value: Any) -> Any:
        if isinstance(value, dict):
            return {"dict": [[k, shape(v)] for k, v in value.items()]}
        if isinstance(value, tuple):
            return {"tuple": [shape(v) for v in value]}
        return 0

    return json.dumps(shape(element))


def _structure_from_text(text: str) -> Any:
    def build(value: Any) -> Any:
        if isinstance(value, dict) and "dict" in value:
            return {str(k): build(v) for k, v in value["dict"]}
        if isinstance(value, dict) and "tuple" in value:
            return tuple(build(v) for v in value["tuple"])
        if value == 0:
            return 0
        raise ValueError("a malformed structure")

    return build(json.loads(text))


class Choose(Dataset):
    """Elements of `datasets` in the order the choice dataset's indices (or random draws with
    `weights`) pick them."""

    def __init__(
        self,
        datasets: list[Dataset],
        choices: Callable[[], Iterator[int]],
        stop_on_empty: bool,
    ) -> None:
        self._datasets, self._choices, self._stop = datasets, choices, stop_on_empty

    def _elements(self) -> Iterator[Any]:
        iterators: list[Iterator[Any] | None] = [d._elements() for d in self._datasets]
        for choice in self._choices():
            if all(it is None for it in iterators):
                return
            if not 0 <= choice < len(iterators):
                raise ValueError(
                    f"rt.data.Dataset.choose_from_datasets: choice {choice} is not an index "
                    f"of the {len(iterators)} datasets"
                )
            current = iterators[choice]
            if current is None:
                continue
            try:
                yield next(current)
            except StopIteration:
                if self._stop:
                    return
                iterators[choice] = None

    def _cardinality(self) -> int:
        return UNKNOWN

    def _spec(self) -> Any:
        return self._datasets[0].element_spec


def sampled(datasets: list[Dataset], weights: Any, seed: Any, stop_on_empty: bool) -> Dataset:
    """`Dataset.sample_from_datasets`: random draws of the datasets by `weights`."""
    if not datasets:
        raise ValueError("rt.data.Dataset.sample_from_datasets: needs at least one dataset")
    n = len(datasets)
    p = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, np.float64)
    if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        raise ValueError(
            f"rt.data.Dataset.sample_from_datasets: `weights` must be {n} non-negative "
            f"numbers with a positive sum, got {weights!r}"
        )
    p = p / p.sum()
    seeds = _seeds(seed)
    passes = [0]

    def draws() -> Iterator[int]:
        rng = np.random.default_rng([*seeds, passes[0]])
        passes[0] += 1
        while True:
            yield from rng.choice(n, size=256, p=p).tolist()

    return Choose(list(datasets), draws, stop_on_empty)


def chosen(datasets: list[Dataset], choice_dataset: Dataset, stop_on_empty: bool) -> Dataset:
    """`Dataset.choose_from_datasets`: the datasets in the order the choices name them."""
    if not datasets:
        raise ValueError("rt.data.Dataset.choose_from_datasets: needs at least one dataset")

    def choices() -> Iterator[int]:
        for choice in choice_dataset._elements():
            if not isinstance(choice, np.ndarray) or choice.ndim != 0 or choice.dtype.kind != "i":
                raise TypeError(
                    "rt.data.Dataset.choose_from_datasets: `choice_dataset` must hold "
                    f"integer scalars, got {E.describe(choice)}"
                )
            yield int(choice)

    return Choose(list(datasets), choices, stop_on_empty)
