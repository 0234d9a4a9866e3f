"""`keras.utils.timeseries_dataset_from_array` and `keras.utils.split_dataset`: datasets
(`rt.data.Dataset`) cut from arrays, with Keras 3's arguments and rules."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from .. import _rustape as _rt
from ..data import Dataset


def _positive(name: str, value: Any, data_length: int) -> int:
    if value <= 0:
        raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
    if value >= data_length:
        raise ValueError(
            f"`{name}` must be lower than the length of the data. Received: {name}={value}, "
            f"for data of length {data_length}"
        )
    return int(value)


def timeseries_dataset_from_array(
    data: Any,
    targets: Any,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: int | None = 128,
    shuffle: bool = False,
    seed: int | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
) -> Dataset:
    """Sliding windows over the timesteps of `data` as a dataset of batches (Keras 3's
    `keras.utils.timeseries_dataset_from_array`): window `i` holds the timesteps
    `start + i * sequence_stride + j * sampling_rate` for `j < sequence_length`, paired with
    `targets[start + i * sequence_stride]` when `targets` is given. With `shuffle`, the windows'
    order is drawn from `seed` (and shuffled again locally, in rustape's own order).

    >>> import numpy as np, rustape as rt
    >>> ds = rt.keras.utils.timeseries_dataset_from_array(
    ...     np.arange(10), None, sequence_length=3, sequence_stride=2, batch_size=2)
    >>> [b.numpy().tolist() for b in ds]
    [[[0, 1, 2], [2, 3, 4]], [[4, 5, 6], [6, 7, 8]]]
    """
    values = np.asarray(data.numpy() if isinstance(data, _rt.Tensor) else data)
    length = len(values)
    if start_index:
        if start_index < 0:
            raise ValueError(
                f"`start_index` must be 0 or greater. Received: start_index={start_index}"
            )
        if start_index >= length:
            raise ValueError(
                "`start_index` must be lower than the length of the data. Received: "
                f"start_index={start_index}, for data of length {length}"
            )
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(
                "`end_index` must be higher than `start_index`. Received: "
                f"start_index={start_index}, and end_index={end_index}"
            )
        if end_index >= length:
            raise ValueError(
                "`end_index` must be lower than the length of the data. Received: "
                f"end_index={end_index}, for data of length {length}"
            )
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    rate = _positive("sampling_rate", sampling_rate, length)
    stride = _positive("sequence_stride", sequence_stride, length)
    start = start_index or 0
    end = end_index if end_index is not None else length
    count = end - start - (int(sequence_length) - 1) * rate
    labels = None
    if targets is not None:
        labels = np.asarray(targets.numpy() if isinstance(targets, _rt.Tensor) else targets)
        count = min(count, len(labels))
    positions = np.arange(0, max(count, 0), stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = int(np.random.randint(1_000_000))
        np.random.RandomState(seed).shuffle(positions)
    steps = np.arange(int(sequence_length), dtype=np.int64) * rate
    window_data = _rt.constant(values[start:end])
    window_targets = None if labels is None else _rt.constant(labels[start:end])

    def windows(position: Any) -> Any:
        # Every window (a batch of them at once) gathered from the data in one op.
        sequences = _rt.gather(window_data, position[..., None] + steps)
        if window_targets is None:
            return sequences
        return sequences, _rt.gather(window_targets, position)

    dataset = Dataset.from_tensor_slices(positions)
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(batch_size * 8, seed=seed)
        return dataset.batch(batch_size).map(windows)
    if shuffle:
        dataset = dataset.shuffle(1024, seed=seed)
    return dataset.map(windows)


def _split_sizes(left_size: Any, right_size: Any, total: int) -> tuple[int, int]:
    """Keras's split sizes: ints are counts, floats fractions of `total` (rounded)."""
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if size is not None and type(size) not in (int, float):
            raise TypeError(
                f"Invalid `{name}` Type. Expected: int or float or None, Received: "
                f"type({name})={type(size)}."
            )
    if left_size == 0 and right_size == 0:
        raise ValueError(
            "Both `left_size` and `right_size` are zero. At least one of the split sizes "
            "must be non-zero."
        )
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if (type(size) is int and (size <= 0 or size >= total)) or (
            type(size) is float and (size <= 0 or size >= 1)
        ):
            raise ValueError(
                f"`{name}` should be either a positive integer smaller than {total}, or a "
                f"float within the range `[0, 1]`. Received: {name}={size}"
            )
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError(
            "The sum of `left_size` and `right_size` is greater than 1. It must be less than "
            "or equal to 1."
        )
    left = round(left_size * total) if type(left_size) is float else left_size
    right = round(right_size * total) if type(right_size) is float else right_size
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError(
            f"The sum of `left_size` and `right_size` should be smaller than the {total}. "
            f"Received: left_size + right_size = {left + right} and total_length = {total}"
        )
    for size, side in ((left, "left"), (right, "right")):
        if size == 0:
            raise ValueError(
                f"With `dataset` of length={total}, `left_size`={left} and "
                f"`right_size`={right}. Resulting {side} side dataset split will be empty. "
                "Adjust any of the aforementioned parameters"
            )
    return int(left), int(right)


def _samples(dataset: Any) -> tuple[list[Any], int | None]:
    """The samples of `dataset` (arrays' rows, tuples of rows, a dataset's unbatched
    elements) as NumPy values, and the batch size of a batched dataset."""
    from ..data._nodes import Batch

    if isinstance(dataset, (tuple, list)):
        if not dataset:
            raise ValueError("split_dataset: received an empty list or tuple of arrays")
        for i, element in enumerate(dataset):
            if not isinstance(element, np.ndarray):
                raise TypeError(
                    f"split_dataset: expected a {type(dataset).__name__} of NumPy arrays, got "
                    f"{type(element).__name__} at index {i}"
                )
            if len(element) != len(dataset[0]):
                raise ValueError(
                    f"split_dataset: the arrays have different lengths ({len(dataset[0])} and "
                    f"{len(element)} at index {i})"
                )
        return list(zip(*dataset)), None
    if isinstance(dataset, np.ndarray):
        return list(dataset), None
    if isinstance(dataset, Dataset):
        batch = dataset._size if isinstance(dataset, Batch) else None
        source = dataset.unbatch() if batch is not None else dataset
        return list(source.as_numpy_iterator()), batch
    raise TypeError(
        "split_dataset: `dataset` must be an rt.data.Dataset, a NumPy array, or a list or "
        f"tuple of arrays; got {type(dataset).__name__}"
    )


def _stacked(samples: list[Any]) -> Any:
    first = samples[0]
    if isinstance(first, dict):
        return {k: _stacked([s[k] for s in samples]) for k in first}
    if isinstance(first, (tuple, list)):
        return tuple(_stacked([s[i] for s in samples]) for i in range(len(first)))
    return np.array(samples)


def split_dataset(
    dataset: Any,
    left_size: Any = None,
    right_size: Any = None,
    shuffle: bool = False,
    seed: int | None = None,
    preferred_backend: str | None = None,
) -> tuple[Dataset, Dataset]:
    """Splits the samples of `dataset` (an `rt.data.Dataset`, a NumPy array, or a list or
    tuple of arrays) into two datasets, as Keras 3's `keras.utils.split_dataset`: sizes are
    counts (int) or fractions (float); `shuffle` orders the samples with Python's `random`
    seeded by `seed` first (the same order as Keras); a batched dataset's splits are
    batched alike.

    >>> import numpy as np, rustape as rt
    >>> left, right = rt.keras.utils.split_dataset(np.arange(10), left_size=0.8)
    >>> int(left.cardinality()), [int(x) for x in right]
    (8, [8, 9])
    """
    if left_size is None and right_size is None:
        raise ValueError(
            "At least one of the `left_size` or `right_size` must be specified. Received: "
            "left_size=None and right_size=None"
        )
    samples, batch = _samples(dataset)
    if not samples:
        raise ValueError("split_dataset: received an empty dataset")
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    left, right = _split_sizes(left_size, right_size, len(samples))
    splits = []
    for part in (samples[:left], samples[-right:]):
        stacked = _stacked(part)
        if isinstance(dataset, np.ndarray) and stacked.dtype == np.int64:
            # Keras slices the array's rows as a list, which TensorFlow reads as int32.
            stacked = stacked.astype(np.int32)
        split = Dataset.from_tensor_slices(stacked)
        splits.append(split.batch(batch) if batch is not None else split)
    return splits[0], splits[1]
