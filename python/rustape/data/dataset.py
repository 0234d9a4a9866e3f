"""`rt.data.Dataset`: TensorFlow's input pipelines (`tf.data.Dataset`), run eagerly in Python.

A dataset describes how its elements come; every pass (a `for` loop, `Model.fit`'s epoch)
makes them anew. Elements are tensors, or tuples and dicts of them. Rows of arrays
(`from_tensor_slices`), shuffled, repeated and batched, are gathered a batch at a time; what
a Python function computes (`map`, `filter`, generators) runs once per element.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import _rustape as _rt
from . import _args
from . import _elements as E

#: `cardinality()` of a dataset without end (`repeat()`).
INFINITE = -1
#: `cardinality()` of a dataset whose length is known only by running it (`filter`).
UNKNOWN = -2


def _seeds(seed: Any) -> list[int]:
    """Seeds of a random transformation: the op seed when given, else two numbers drawn from
    rustape's global random stream (reproducible after `rt.random.set_seed`)."""
    if seed is not None:
        return [int(seed) & 0xFFFFFFFFFFFFFFFF]
    from .. import random

    drawn = random.uniform([2], 0, 2**31 - 1, dtype=_rt.int64).numpy()
    return [int(v) for v in drawn]


class Dataset:
    """A sequence of elements, TensorFlow's `tf.data.Dataset`.

    >>> import rustape as rt
    >>> ds = rt.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [0, 1, 0])).batch(2)
    >>> [(x.numpy().tolist(), y.numpy().tolist()) for x, y in ds]
    [([1.0, 2.0], [0, 1]), ([3.0], [0])]
    """

    # ---- what each kind of dataset defines (see _nodes.py)
    def _elements(self) -> Iterator[Any]:
        raise NotImplementedError

    def _cardinality(self) -> int:
        raise NotImplementedError

    def _spec(self) -> Any:
        """The element spec read off the first element (for datasets a function makes)."""
        for element in self._elements():
            return E.spec(element)
        raise ValueError(
            "rt.data.Dataset.element_spec: the dataset is empty, so its element spec is unknown"
        )

    def _indexed(self) -> Any:
        return None

    # ---- sources
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """The rows of `tensors` (a tensor, or tuples and dicts of them, all with the same
        first dimension) as elements. A list is one tensor, as in TensorFlow.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.from_tensor_slices([4, 5, 6])]
        [4, 5, 6]
        """
        from ._nodes import Slices

        arrays = E.to_element("from_tensor_slices", tensors, lists_are_tensors=True)
        leaves = E.flatten(arrays)
        if any(not isinstance(leaf, np.ndarray) for leaf in leaves):
            raise TypeError("rt.data.Dataset.from_tensor_slices: takes tensors, not datasets")
        if any(leaf.ndim == 0 for leaf in leaves):
            raise ValueError(
                "rt.data.Dataset.from_tensor_slices: slicing needs tensors of rank >= 1, got "
                f"{E.describe(arrays)}"
            )
        counts = {leaf.shape[0] for leaf in leaves}
        if len(counts) != 1:
            raise ValueError(
                "rt.data.Dataset.from_tensor_slices: the tensors have different first "
                f"dimensions ({E.describe(arrays)})"
            )
        return Slices(arrays, counts.pop())

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of one element, `tensors`.

        >>> import rustape as rt
        >>> [tuple(x.shape) for x in rt.data.Dataset.from_tensors([[1, 2], [3, 4]])]
        [(2, 2)]
        """
        from ._nodes import Tensors

        return Tensors(E.to_element("from_tensors", tensors, lists_are_tensors=True))

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """The items `generator(*args)` yields, called anew for every pass; converted to the
        dtypes and checked against the shapes of `output_signature` (a structure of
        `rt.TensorSpec`) or `output_types` / `output_shapes`.

        >>> import rustape as rt
        >>> def squares():
        ...     for i in range(3):
        ...         yield i * i
        >>> ds = rt.data.Dataset.from_generator(
        ...     squares, output_signature=rt.TensorSpec([], rt.int64))
        >>> [int(x) for x in ds]
        [0, 1, 4]
        """
        from .._module import TensorSpec
        from ._nodes import Generator

        if not callable(generator):
            raise TypeError(
                "rt.data.Dataset.from_generator: `generator` must be a callable that returns "
                f"an iterator, got {type(generator).__name__}"
            )
        signature = output_signature
        if signature is None and output_types is not None:
            types = E.flatten(output_types)
            shapes = (
                [None] * len(types)
                if output_shapes is None
                else [leaf.dims for leaf in E.flatten(_args.shapes_as(output_shapes))]
            )
            if len(shapes) != len(types):
                raise ValueError(
                    "rt.data.Dataset.from_generator: `output_shapes` does not match `output_types`"
                )
            signature = E.pack_like(
                output_types,
                [
                    TensorSpec(None if s is None else _args.dims(s), t)
                    for t, s in zip(types, shapes)
                ],
            )
        call_args = tuple(args) if args is not None else ()
        return Generator(lambda: generator(*call_args), signature)

    @staticmethod
    def range(*args: Any, output_type: Any = None, name: str | None = None) -> Dataset:
        """`range(stop)`, `range(start, stop)` or `range(start, stop, step)` as int64
        scalars (or `output_type`).

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(2, 10, 3)]
        [2, 5, 8]
        """
        from ._nodes import Range, _numpy_dtype

        if not 1 <= len(args) <= 3:
            raise TypeError(f"rt.data.Dataset.range: takes 1 to 3 positions, got {len(args)}")
        numbers = [_args.checked_int("range", "start/stop/step", a, -(2**62)) for a in args]
        start, stop, step = {1: [0, *numbers, 1], 2: [*numbers, 1], 3: numbers}[len(numbers)]
        if step == 0:
            raise ValueError("rt.data.Dataset.range: `step` must not be 0")
        dtype = np.int64 if output_type is None else _numpy_dtype(output_type)
        return Range(start, stop, step, dtype)

    @staticmethod
    def zip(*datasets: Any, name: str | None = None) -> Dataset:
        """Elements of several datasets side by side, as a tuple (or the structure given),
        as long as the shortest.

        >>> import rustape as rt
        >>> D = rt.data.Dataset
        >>> [(int(a), int(b)) for a, b in D.zip(D.range(3), D.range(10, 15))]
        [(0, 10), (1, 11), (2, 12)]
        """
        from ._nodes import Zip

        structure = datasets[0] if len(datasets) == 1 else tuple(datasets)
        if isinstance(structure, list):
            structure = tuple(structure)
        if not all(isinstance(d, Dataset) for d in E.flatten(structure)):
            raise TypeError("rt.data.Dataset.zip: takes datasets, or tuples and dicts of them")
        return Zip(structure)

    @staticmethod
    def sample_from_datasets(
        datasets: list[Dataset],
        weights: Any = None,
        seed: Any = None,
        stop_on_empty_dataset: bool = False,
        rerandomize_each_iteration: Any = None,
    ) -> Dataset:
        """Elements of `datasets` drawn at random, dataset `i` with probability `weights[i]`
        (uniform by default); without `stop_on_empty_dataset`, a dataset that runs out is
        left out of later draws.

        >>> import rustape as rt
        >>> D = rt.data.Dataset
        >>> mixed = D.sample_from_datasets([D.range(3), D.range(10, 13)], seed=0)
        >>> sorted(int(x) for x in mixed)
        [0, 1, 2, 10, 11, 12]
        """
        from ._nodes import sampled

        return sampled(datasets, weights, seed, stop_on_empty_dataset)

    @staticmethod
    def choose_from_datasets(
        datasets: list[Dataset], choice_dataset: Dataset, stop_on_empty_dataset: bool = True
    ) -> Dataset:
        """Elements of `datasets` in the order `choice_dataset`'s int64 scalars name them.

        >>> import rustape as rt
        >>> D = rt.data.Dataset
        >>> picks = D.from_tensor_slices(rt.constant([0, 1, 1, 0], rt.int64))
        >>> [int(x) for x in D.choose_from_datasets([D.range(3), D.range(10, 13)], picks)]
        [0, 10, 11, 1]
        """
        from ._nodes import chosen

        return chosen(datasets, choice_dataset, stop_on_empty_dataset)

    # ---- transformations
    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """`map_func` applied to every element (a tuple's parts as separate arguments). Runs
        in order in the calling thread whatever `num_parallel_calls` says.

        >>> import rustape as rt
        >>> ds = rt.data.Dataset.range(3).map(lambda x: x * 2)
        >>> [int(x) for x in ds]
        [0, 2, 4]
        """
        from ._nodes import Map

        return Map(self, _args.callable_("map", map_func))

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """The elements for which `predicate` returns a true bool scalar.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(10).filter(lambda x: x % 3 == 0)]
        [0, 3, 6, 9]
        """
        from ._nodes import Filter

        return Filter(self, _args.callable_("filter", predicate))

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """The elements up to the first for which `predicate` is false.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(10).take_while(lambda x: x < 3)]
        [0, 1, 2]
        """
        from ._nodes import TakeWhile

        return TakeWhile(self, _args.callable_("take_while", predicate))

    def batch(
        self,
        batch_size: Any,
        drop_remainder: bool = False,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Consecutive elements stacked `batch_size` at a time (the last batch shorter unless
        `drop_remainder`).

        >>> import rustape as rt
        >>> [b.numpy().tolist() for b in rt.data.Dataset.range(5).batch(2)]
        [[0, 1], [2, 3], [4]]
        """
        from ._nodes import Batch

        return Batch(
            self, _args.checked_int("batch", "batch_size", batch_size, 1), bool(drop_remainder)
        )

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Batches of elements padded at the end of every axis: to `padded_shapes` (None, or
        None in a dimension: the batch's longest), with `padding_values` (default 0).

        >>> import rustape as rt
        >>> ds = rt.data.Dataset.range(1, 4).map(lambda n: rt.fill([n], n))
        >>> [b.numpy().tolist() for b in ds.padded_batch(2)]
        [[[1, 0], [2, 2]], [[3, 3, 3]]]
        """
        from ._nodes import PaddedBatch

        size = _args.checked_int("padded_batch", "batch_size", batch_size, 1)
        return PaddedBatch(self, size, bool(drop_remainder), padded_shapes, padding_values)

    def unbatch(self, name: str | None = None) -> Dataset:
        """Every element split along its first axis into that many elements.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(5).batch(2).unbatch()]
        [0, 1, 2, 3, 4]
        """
        from ._nodes import Unbatch

        return Unbatch(self)

    def shuffle(
        self,
        buffer_size: Any,
        seed: Any = None,
        reshuffle_each_iteration: bool = True,
        name: str | None = None,
    ) -> Dataset:
        """Elements in random order, drawn from a buffer of the next `buffer_size` (a buffer
        as long as the dataset gives a uniform permutation). A new order every pass unless
        `reshuffle_each_iteration=False`. The orders are rustape's own, not TensorFlow's.

        >>> import rustape as rt
        >>> sorted(int(x) for x in rt.data.Dataset.range(5).shuffle(5, seed=1))
        [0, 1, 2, 3, 4]
        """
        from ._nodes import Shuffle

        size = _args.checked_int("shuffle", "buffer_size", buffer_size, -2)
        if size == UNKNOWN:  # TensorFlow's "the whole dataset"
            size = max(self._cardinality(), 1)
        if size < 1:
            raise ValueError(
                f"rt.data.Dataset.shuffle: `buffer_size` must be > 0, got {buffer_size!r}"
            )
        return Shuffle(self, size, seed, bool(reshuffle_each_iteration))

    def repeat(self, count: Any = None, name: str | None = None) -> Dataset:
        """The elements `count` times over (forever when None or -1).

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(2).repeat(3)]
        [0, 1, 0, 1, 0, 1]
        """
        from ._nodes import Repeat

        return Repeat(
            self, -1 if count is None else _args.checked_int("repeat", "count", count, -1)
        )

    def take(self, count: Any, name: str | None = None) -> Dataset:
        """The first `count` elements (all when -1).

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(10).take(3)]
        [0, 1, 2]
        """
        from ._nodes import Take

        return Take(self, _args.checked_int("take", "count", count, -1))

    def skip(self, count: Any, name: str | None = None) -> Dataset:
        """The elements after the first `count` (none when -1).

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(5).skip(3)]
        [3, 4]
        """
        from ._nodes import Skip

        return Skip(self, _args.checked_int("skip", "count", count, -1))

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> Dataset:
        """Every `num_shards`-th element, starting at `index`.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(10).shard(3, 1)]
        [1, 4, 7]
        """
        from ._nodes import Shard

        shards = _args.checked_int("shard", "num_shards", num_shards, 1)
        at = _args.checked_int("shard", "index", index, 0)
        if at >= shards:
            raise ValueError(
                f"rt.data.Dataset.shard: `index` must be below `num_shards` ({shards}), got {at}"
            )
        return Shard(self, shards, at)

    def enumerate(self, start: Any = 0, name: str | None = None) -> Dataset:
        """Pairs `(i, element)` with int64 `i` counting from `start`.

        >>> import rustape as rt
        >>> [(int(i), float(x)) for i, x in rt.data.Dataset.from_tensor_slices([5.0, 6.0]).enumerate(3)]
        [(3, 5.0), (4, 6.0)]
        """
        from ._nodes import Enumerate

        return Enumerate(self, _args.checked_int("enumerate", "start", start, -(2**62)))

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """This dataset's elements, then `dataset`'s (of the same structure and dtypes).

        >>> import rustape as rt
        >>> D = rt.data.Dataset
        >>> [int(x) for x in D.range(2).concatenate(D.range(5, 7))]
        [0, 1, 5, 6]
        """
        from ._nodes import Concatenate

        if not isinstance(dataset, Dataset):
            raise TypeError(
                f"rt.data.Dataset.concatenate: takes a Dataset, got {type(dataset).__name__}"
            )
        a, b = self.element_spec, dataset.element_spec
        if not E.same_structure(a, b) or any(
            x.dtype != y.dtype for x, y in zip(E.flatten(a), E.flatten(b))
        ):
            raise TypeError(
                "rt.data.Dataset.concatenate: the datasets' elements differ in structure or "
                f"dtype ({a} and {b})"
            )
        return Concatenate(self, dataset)

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> Dataset:
        """The elements of the datasets `map_func` makes from each element, one after another.

        >>> import rustape as rt
        >>> D = rt.data.Dataset
        >>> [int(x) for x in D.range(1, 4).flat_map(lambda n: D.range(n))]
        [0, 0, 1, 0, 1, 2]
        """
        from ._regroup import Interleave

        return Interleave("flat_map", self, _args.callable_("flat_map", map_func), 1, 1)

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: Any = None,
        block_length: Any = None,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Elements of the datasets `map_func` makes, `cycle_length` of them open at a time,
        `block_length` elements from each in turn (TensorFlow's order). `cycle_length`
        defaults to the number of CPU cores, as in TensorFlow.

        >>> import rustape as rt
        >>> D = rt.data.Dataset
        >>> ds = D.range(1, 3).interleave(lambda n: D.from_tensors(n).repeat(2), cycle_length=2)
        >>> [int(x) for x in ds]
        [1, 2, 1, 2]
        """
        from ._regroup import Interleave

        cycle = (
            os.cpu_count() or 1
            if cycle_length is None or _args.is_autotune(cycle_length)
            else _args.checked_int("interleave", "cycle_length", cycle_length, 1)
        )
        block = (
            1
            if block_length is None
            else _args.checked_int("interleave", "block_length", block_length, 1)
        )
        return Interleave("interleave", self, _args.callable_("interleave", map_func), cycle, block)

    def window(
        self,
        size: Any,
        shift: Any = None,
        stride: Any = 1,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Windows of `size` elements (every `stride`-th), a new window every `shift`
        elements; each window is a dataset (for tuple elements, a tuple of datasets).

        >>> import rustape as rt
        >>> windows = rt.data.Dataset.range(7).window(3, shift=2)
        >>> [w.numpy().tolist() for w in windows.flat_map(lambda w: w.batch(3))]
        [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
        """
        from ._regroup import Window

        n = _args.checked_int("window", "size", size, 1)
        step = n if shift is None else _args.checked_int("window", "shift", shift, 1)
        return Window(
            self, n, step, _args.checked_int("window", "stride", stride, 1), bool(drop_remainder)
        )

    def scan(
        self, initial_state: Any, scan_func: Callable[..., Any], name: str | None = None
    ) -> Dataset:
        """Outputs of `scan_func(state, element) -> (new_state, output)`, the state carried
        from element to element.

        >>> import rustape as rt
        >>> ds = rt.data.Dataset.range(5).scan(rt.constant(0, rt.int64), lambda s, x: (s + x, s + x))
        >>> [int(x) for x in ds]
        [0, 1, 3, 6, 10]
        """
        from ._nodes import Scan

        return Scan(self, initial_state, _args.callable_("scan", scan_func))

    def group_by_window(
        self,
        key_func: Callable[..., Any],
        reduce_func: Callable[[Any, Dataset], Dataset],
        window_size: Any = None,
        window_size_func: Callable[[Any], Any] | None = None,
        name: str | None = None,
    ) -> Dataset:
        """Elements grouped by `key_func` (an int64 scalar per element): each group of
        `window_size` (or `window_size_func(key)`) elements becomes the dataset
        `reduce_func(key, window)`; groups left at the end follow in order of their keys.

        >>> import rustape as rt
        >>> ds = rt.data.Dataset.range(7).group_by_window(
        ...     lambda x: x % 2, lambda key, window: window.batch(3), window_size=3)
        >>> [b.numpy().tolist() for b in ds]
        [[0, 2, 4], [1, 3, 5], [6]]
        """
        from ._regroup import GroupByWindow

        _args.callable_("group_by_window", key_func)
        _args.callable_("group_by_window", reduce_func)
        if (window_size is None) == (window_size_func is None):
            raise ValueError(
                "rt.data.Dataset.group_by_window: give exactly one of `window_size` and "
                "`window_size_func`"
            )
        if window_size is not None:
            size = _args.checked_int("group_by_window", "window_size", window_size, 1)

            def sizes(key: Any) -> int:
                return size

        else:
            func = _args.callable_("group_by_window", window_size_func)

            def sizes(key: Any) -> int:
                return _args.checked_int(
                    "group_by_window",
                    "window_size_func(key)",
                    func(_rt.constant(key, _rt.int64)),
                    1,
                )

        return GroupByWindow(self, key_func, reduce_func, sizes)

    def bucket_by_sequence_length(
        self,
        element_length_func: Callable[..., Any],
        bucket_boundaries: list[int],
        bucket_batch_sizes: list[int],
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Batches of elements of similar length: an element of length `n`
        (`element_length_func`) goes to the bucket `i` with `boundaries[i-1] <= n <
        boundaries[i]`, batched `bucket_batch_sizes[i]` at a time and padded (to the batch's
        longest, to `padded_shapes`, or with `pad_to_bucket_boundary` the first axis to the
        bucket's boundary less one).

        >>> import rustape as rt
        >>> ds = rt.data.Dataset.range(1, 6).map(lambda n: rt.fill([n], n))
        >>> batches = ds.bucket_by_sequence_length(lambda x: rt.shape(x)[0], [3], [2, 2])
        >>> [b.numpy().tolist() for b in batches]
        [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[5, 5, 5, 5, 5]]]
        """
        from ._regroup import bucket_by_sequence_length

        return bucket_by_sequence_length(
            self,
            element_length_func,
            bucket_boundaries,
            bucket_batch_sizes,
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """The elements kept after the first complete pass, so later passes do not compute
        them again: in memory, or in the file `filename + ".rustape-cache.npz"` (NumPy
        arrays, read back without pickle; reused by later datasets with the same file).

        >>> import rustape as rt
        >>> calls = []
        >>> ds = rt.data.Dataset.range(3).map(lambda x: calls.append(1) or x).cache()
        >>> _ = list(ds), list(ds)
        >>> len(calls)
        3
        """
        from ._nodes import Cache

        return Cache(self, os.fspath(filename))

    def prefetch(self, buffer_size: Any = None, name: str | None = None) -> Dataset:
        """The same dataset: rustape computes each element when it is asked for.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(2).prefetch(rt.data.AUTOTUNE)]
        [0, 1]
        """
        return self

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        """`transformation_func(self)`, which must return a dataset.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.range(4).apply(lambda ds: ds.skip(2))]
        [2, 3]
        """
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(
                "rt.data.Dataset.apply: `transformation_func` must return a Dataset, got "
                f"{type(result).__name__}"
            )
        return result

    def unique(self, name: str | None = None) -> Dataset:
        """The elements (int or bool scalars) without repeats, in order of first appearance.

        >>> import rustape as rt
        >>> [int(x) for x in rt.data.Dataset.from_tensor_slices([1, 3, 1, 2, 3]).unique()]
        [1, 3, 2]
        """
        from ._nodes import Unique

        return Unique(self)

    def with_options(self, options: Any, name: str | None = None) -> Dataset:
        """This dataset with `options` (an `rt.data.Options`) merged into its own.

        >>> import rustape as rt
        >>> options = rt.data.Options()
        >>> options.deterministic = True
        >>> rt.data.Dataset.range(2).with_options(options).options().deterministic
        True
        """
        from .options import Options

        if not isinstance(options, Options):
            raise TypeError(
                f"rt.data.Dataset.with_options: takes an rt.data.Options, got {options!r}"
            )
        other = copy.copy(self)  # a new dataset: this one keeps its options, as in TensorFlow
        vars(other)["_attached_options"] = self.options().merge(options)
        return other

    def options(self) -> Any:
        """The `rt.data.Options` attached with `with_options` (defaults otherwise).

        >>> import rustape as rt
        >>> rt.data.Dataset.range(2).options().deterministic is None
        True
        """
        from .options import Options

        return getattr(self, "_attached_options", None) or Options()

    # ---- reading
    def __iter__(self) -> Iterator[Any]:
        """An iterator over the elements as tensors (a new pass each time)."""
        return DatasetIterator(self)

    def as_numpy_iterator(self) -> Iterator[Any]:
        """The elements as NumPy arrays (NumPy scalars for scalars).

        >>> import rustape as rt
        >>> list(rt.data.Dataset.range(2).batch(2).as_numpy_iterator())[0].tolist()
        [0, 1]
        """
        for element in self._elements():
            yield E.map_structure(E.to_numpy, element)

    def reduce(self, initial_state: Any, reduce_func: Callable[[Any, Any], Any]) -> Any:
        """`reduce_func(state, element)` folded over the elements from `initial_state`.

        >>> import rustape as rt
        >>> ds = rt.data.Dataset.range(5)
        >>> int(ds.reduce(rt.constant(0, rt.int64), lambda total, x: total + x))
        10
        """
        _args.callable_("reduce", reduce_func)
        state = E.to_element("reduce", initial_state)
        for element in self._elements():
            state = E.to_element("reduce", reduce_func(E.tensors(state), E.tensors(element)))
        return E.tensors(state)

    def get_single_element(self, name: str | None = None) -> Any:
        """The dataset's only element (ValueError for none or several).

        >>> import rustape as rt
        >>> int(rt.data.Dataset.range(1).get_single_element())
        0
        """
        elements = self._elements()
        for first in elements:
            for _ in elements:
                raise ValueError(
                    "rt.data.Dataset.get_single_element: the dataset has more than one element"
                )
            return E.tensors(first)
        raise ValueError("rt.data.Dataset.get_single_element: the dataset is empty")

    def cardinality(self) -> Any:
        """The number of elements as an int64 scalar: `rt.data.INFINITE_CARDINALITY` (-1)
        without end, `rt.data.UNKNOWN_CARDINALITY` (-2) when only a pass can tell.

        >>> import rustape as rt
        >>> int(rt.data.Dataset.range(7).batch(3).cardinality())
        3
        """
        return _rt.constant(self._cardinality(), _rt.int64)

    def __len__(self) -> int:
        count = self._cardinality()
        if count == INFINITE:
            raise TypeError("The dataset is infinite.")
        if count == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return count

    def __bool__(self) -> bool:
        return True

    @property
    def element_spec(self) -> Any:
        """The structure of `rt.TensorSpec`s of the elements (None for a dimension that varies
        from element to element).

        >>> import rustape as rt
        >>> rt.data.Dataset.range(5).batch(2).element_spec
        TensorSpec(shape=(None,), dtype=rt.int64, name=None)
        """
        return self._spec()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}Dataset cardinality={self._cardinality()}>"


class DatasetIterator:
    """One pass over a dataset's elements, as tensors (`iter(dataset)`).

    >>> import rustape as rt
    >>> it = iter(rt.data.Dataset.range(3))
    >>> int(next(it)), int(it.get_next())
    (0, 1)
    """

    def __init__(self, dataset: Dataset) -> None:
        self._dataset = dataset
        self._elements = dataset._elements()

    def __iter__(self) -> DatasetIterator:
        return self

    def __next__(self) -> Any:
        return E.tensors(next(self._elements))

    def get_next(self) -> Any:
        """The next element (StopIteration at the end, as `next`)."""
        return self.__next__()

    @property
    def element_spec(self) -> Any:
        """The dataset's element spec."""
        return self._dataset.element_spec
