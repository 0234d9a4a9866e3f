"""What `fit`, `evaluate` and `predict` iterate over: batches cut from arrays (shuffled per
epoch, class weights turned into sample weights), or batches a generator, an iterable or a
`keras.utils.PyDataset` yields (Keras 3's data adapters, for the kinds of data rustape
takes)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import _rustape as _rt
from ._util import check_number


def _batch_size(method: str, batch_size: Any) -> int:
    """`batch_size` as a positive int (None: Keras's 32)."""
    if batch_size is None:
        return 32
    return int(check_number(f"Model.{method}", "batch_size", batch_size, low=1, integer=True))


def _arrays(structure: Any) -> Any:
    """`structure` (an array, or lists, tuples and dicts of them) with NumPy arrays as leaves."""
    if isinstance(structure, dict):
        return {k: _arrays(v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_arrays(v) for v in structure)
    if isinstance(structure, _rt.Tensor):
        return np.asarray(structure.numpy())
    return np.asarray(structure)


def _leaves(structure: Any) -> list[np.ndarray]:
    if isinstance(structure, dict):
        return [leaf for v in structure.values() for leaf in _leaves(v)]
    if isinstance(structure, (list, tuple)):
        return [leaf for v in structure for leaf in _leaves(v)]
    return [structure]


def _take(structure: Any, idx: Any) -> Any:
    """The samples `idx` of every array in `structure`."""
    if isinstance(structure, dict):
        return {k: _take(v, idx) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_take(v, idx) for v in structure)
    return structure[idx]


def _samples(method: str, *parts: Any) -> int:
    """The number of samples every array of `parts` (None skipped) holds (ValueError else)."""
    counts = []
    for name, part in zip(("x", "y", "sample_weight"), parts):
        if part is None:
            continue
        for leaf in _leaves(part):
            if leaf.ndim == 0:
                raise ValueError(
                    f"Model.{method}: `{name}` needs a batch axis, got a scalar of shape "
                    f"{leaf.shape} (`x` and `y` need a batch axis)"
                )
            counts.append((name, len(leaf), leaf.shape))
    if counts and any(n != counts[0][1] for _, n, _ in counts):
        described = ", ".join(f"`{name}` {n} (shape {shape})" for name, n, shape in counts)
        raise ValueError(
            f"Model.{method}: `x` and `y` hold different numbers of samples: {described}"
        )
    return counts[0][1] if counts else 0


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """What a step receives, as Keras packs it: `x` alone, `(x, y)` or `(x, y, sample_weight)`.

    >>> pack_x_y_sample_weight(1, 2)
    (1, 2)
    """
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """`(x, y, sample_weight)` from a step's `data` (missing parts None).

    >>> unpack_x_y_sample_weight((1, 2))
    (1, 2, None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(
        f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
        f"found a tuple of {len(data)} elements"
    )


def _floats(logs: Any) -> dict[str, Any]:
    """A step's logs with tensors as Python floats (a non-dict result is logged as "loss")."""
    if not isinstance(logs, dict):
        logs = {"loss": logs}
    out: dict[str, Any] = {}
    for k, v in logs.items():
        if isinstance(v, dict):
            out.update(_floats(v))
            continue
        value = v.numpy() if isinstance(v, _rt.Tensor) else v
        out[k] = float(value) if np.ndim(value) == 0 else value
    return out


def is_batch_source(x: Any) -> bool:
    """Whether `x` yields whole batches (a PyDataset, a generator or iterator, or another
    iterable) rather than being the data (arrays, tensors, and lists or dicts of them)."""
    from .utils import PyDataset

    if isinstance(x, PyDataset):
        return True
    if x is None or isinstance(x, (list, tuple, dict, np.ndarray, np.generic, str, bytes)):
        return False
    if isinstance(x, (_rt.Tensor, _rt.Variable)):
        return False
    return hasattr(x, "__next__") or hasattr(x, "__iter__")


def class_weights(y: Any, class_weight: dict[Any, float]) -> np.ndarray:
    """Keras's sample weights for `class_weight`: each sample's class (its label, the arg-max
    of a one-hot row, or a rounded single column) looked up, 1 for classes not listed."""
    if isinstance(y, (list, tuple, dict)):
        raise ValueError(  # noqa: TRY004  (Keras raises ValueError)
            "`class_weight` is only supported for Models with a single output."
        )
    labels = np.asarray(y.numpy() if isinstance(y, _rt.Tensor) else y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else labels[..., 0]
    labels = np.round(labels).astype(np.int64)
    weights = {int(k): float(v) for k, v in class_weight.items()}
    return np.array([weights.get(int(c), 1.0) for c in labels.reshape(-1)], np.float32)


class Batches:
    """One pass's batches (`epoch(e)` yields each step's packed data) and how many there are
    (`steps`, None when a generator decides)."""

    steps: int | None = None

    def start(self) -> None:
        """Called once as a fit or an evaluation starts."""

    def epoch(self, epoch: int) -> Iterator[Any]:
        raise NotImplementedError


class ArrayBatches(Batches):
    """Batches of `batch_size` samples cut from arrays, in a new order each epoch with
    `shuffle` (seeded by the epoch)."""

    def __init__(
        self,
        method: str,
        x: Any,
        y: Any,
        sample_weight: Any,
        batch_size: Any,
        shuffle: bool,
        class_weight: Any = None,
        steps: Any = None,
    ) -> None:
        self.x, self.y, self.sample_weight = (
            None if v is None else _arrays(v) for v in (x, y, sample_weight)
        )
        self.n = _samples(method, self.x, self.y, self.sample_weight)
        if class_weight is not None:
            if self.sample_weight is not None:
                raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
            if self.y is None:
                raise ValueError(f"Model.{method}: `class_weight` needs `y`")
            self.sample_weight = class_weights(self.y, class_weight)
        self.batch_size = _batch_size(method, batch_size)
        self.shuffle = shuffle
        self.steps = -(-self.n // self.batch_size)
        if steps is not None:
            self.steps = min(
                self.steps,
                int(check_number(f"Model.{method}", "steps", steps, low=1, integer=True)),
            )

    def split(self, fraction: float) -> tuple[Any, Any, Any]:
        """Keras's `validation_split`: the last samples (before any shuffling) leave these
        batches and are returned as `(x, y, sample_weight)`."""
        kept = int(self.n * (1.0 - fraction))
        head, tail = np.arange(kept), np.arange(kept, self.n)
        parts = (self.x, self.y, self.sample_weight)
        held = tuple(None if v is None else _take(v, tail) for v in parts)
        self.x, self.y, self.sample_weight = (None if v is None else _take(v, head) for v in parts)
        self.n = kept
        self.steps = -(-kept // self.batch_size)
        return held  # type: ignore[return-value]

    def epoch(self, epoch: int) -> Iterator[Any]:
        order = (
            np.random.default_rng(epoch).permutation(self.n) if self.shuffle else np.arange(self.n)
        )
        for step in range(self.steps or 0):
            idx = order[step * self.batch_size : (step + 1) * self.batch_size]
            yield pack_x_y_sample_weight(
                _take(self.x, idx),
                None if self.y is None else _take(self.y, idx),
                None if self.sample_weight is None else _take(self.sample_weight, idx),
            )


class SourceBatches(Batches):
    """Batches a source yields, each `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`: a
    PyDataset (its batches by index, shuffled with `shuffle`, `on_epoch_end` after each
    epoch), an iterable (iterated afresh every epoch), or a generator (one stream: each epoch
    takes `steps` batches, or runs it out)."""

    def __init__(
        self, method: str, source: Any, steps: Any, shuffle: bool, class_weight: Any = None
    ) -> None:
        from .utils import PyDataset

        self.method = method
        self.source = source
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.dataset = source if isinstance(source, PyDataset) else None
        self.stream = iter(source) if self.dataset is None and hasattr(source, "__next__") else None
        limit = (
            None
            if steps is None
            else int(check_number(f"Model.{method}", "steps", steps, low=1, integer=True))
        )
        if self.dataset is not None:
            count = len(self.dataset)
            self.steps = count if limit is None else min(limit, count)
        else:
            self.steps = limit
        self.ran_out = False

    def _batch(self, item: Any) -> Any:
        x, y, sample_weight = unpack_x_y_sample_weight(item)
        if self.class_weight is not None and y is not None:
            if sample_weight is not None:
                raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
            sample_weight = class_weights(y, self.class_weight)
        return pack_x_y_sample_weight(x, y, sample_weight)

    def start(self) -> None:
        # Keras resets a PyDataset as fit or evaluate starts, which calls its on_epoch_end.
        if self.dataset is not None:
            self.dataset.on_epoch_end()

    def epoch(self, epoch: int) -> Iterator[Any]:
        if self.dataset is not None:
            self.dataset.on_epoch_begin()
            count = len(self.dataset)
            order = (
                np.random.default_rng(epoch).permutation(count)
                if self.shuffle
                else np.arange(count)
            )
            for index in order[: self.steps]:
                yield self._batch(self.dataset[int(index)])
            self.dataset.on_epoch_end()
            return
        items = self.stream if self.stream is not None else iter(self.source)
        produced = 0
        while self.steps is None or produced < self.steps:
            try:
                item = next(items)
            except StopIteration:
                if self.stream is not None and (produced == 0 or self.steps is not None):
                    self.ran_out = True
                    warnings.warn(
                        "Your input ran out of data; interrupting training. Make sure that your "
                        "dataset or generator can generate at least `steps_per_epoch * epochs` "
                        "batches.",
                        stacklevel=3,
                    )
                return
            produced += 1
            yield self._batch(item)


class DatasetBatches(SourceBatches):
    """Batches an `rt.data.Dataset` yields, as Keras reads a `tf.data` dataset: a new pass
    every epoch; with `steps` (`steps_per_epoch`), one pass carried on from epoch to epoch,
    started again once it has given all its batches (or ran out)."""

    def __init__(self, method: str, source: Any, steps: Any, class_weight: Any = None) -> None:
        from ..data import INFINITE_CARDINALITY

        super().__init__(method, source, steps, False, class_weight)
        count = source._cardinality()
        if count == INFINITE_CARDINALITY and self.steps is None:
            described = "steps_per_epoch" if method == "fit" else "steps"
            raise ValueError(
                f"Model.{method}: the dataset repeats forever (its cardinality is infinite); "
                f"give `{described}` to say how many batches make an epoch"
            )
        self.count = count if count >= 0 else None
        self.passing: Iterator[Any] | None = None
        self.seen = 0
        if self.steps is None:
            self.steps = self.count

    def epoch(self, epoch: int) -> Iterator[Any]:
        steps = self.steps or -1
        if self.passing is None or steps < 0 or self.count is not None and self.steps is None:
            self.passing, self.seen = iter(self.source), 0
        produced = 0
        while steps < 0 or produced < steps:
            if self.count is not None and self.seen >= self.count:
                self._ran_out()
                break
            try:
                item = next(self.passing)
            except StopIteration:
                if steps >= 0:
                    self._ran_out()
                self.passing = None
                return
            self.seen += 1
            produced += 1
            yield self._batch(item)
        if self.count is not None and self.seen >= self.count:
            self.passing, self.seen = None, 0

    def _ran_out(self) -> None:
        if self.steps is not None and self.steps != self.count:
            warnings.warn(
                "Your input ran out of data; interrupting training. Make sure that your "
                "dataset or generator can generate at least `steps_per_epoch * epochs` "
                "batches. You may need to use the `.repeat()` function when building your "
                "dataset.",
                stacklevel=4,
            )


def data_batch_size(data: Batches) -> int | None:
    """The batch size of array batches (validation data uses it by default)."""
    return data.batch_size if isinstance(data, ArrayBatches) else None


def batches(
    method: str,
    x: Any,
    y: Any = None,
    sample_weight: Any = None,
    batch_size: Any = None,
    shuffle: bool = False,
    steps: Any = None,
    class_weight: Any = None,
) -> Batches:
    """The batches of `x` (arrays, or a source of batches) for `Model.<method>`."""
    if is_batch_source(x):
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None:
                raise ValueError(
                    f"Model.{method}: `{name}` is not supported when `x` is a generator, an "
                    "iterable or a PyDataset (its batches hold `y` and `sample_weight`)"
                )
        if batch_size is not None:
            raise ValueError(
                f"Model.{method}: do not give `batch_size` when `x` is a generator, an iterable "
                "or a PyDataset (its batches have their own size)"
            )
        from ..data import Dataset

        if isinstance(x, Dataset):
            return DatasetBatches(method, x, steps, class_weight)
        return SourceBatches(method, x, steps, shuffle, class_weight)
    return ArrayBatches(method, x, y, sample_weight, batch_size, shuffle, class_weight, steps)
