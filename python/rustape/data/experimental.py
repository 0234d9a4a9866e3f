"""`rt.data.experimental`: TensorFlow's older names for parts of `rt.data`."""

from __future__ import annotations

import enum
from typing import Any

from ._args import AUTOTUNE
from .dataset import INFINITE, UNKNOWN, Dataset

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "cardinality",
    "choose_from_datasets",
    "sample_from_datasets",
]

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


class AutoShardPolicy(enum.IntEnum):
    """How a distributed pipeline would be sharded (kept for programs that set it).

    >>> import rustape as rt
    >>> int(rt.data.experimental.AutoShardPolicy.OFF)
    -1
    """

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


def cardinality(dataset: Dataset) -> Any:
    """`dataset.cardinality()`.

    >>> import rustape as rt
    >>> int(rt.data.experimental.cardinality(rt.data.Dataset.range(4).repeat()))
    -1
    """
    return dataset.cardinality()


def sample_from_datasets(
    datasets: list[Dataset],
    weights: Any = None,
    seed: Any = None,
    stop_on_empty_dataset: bool = False,
) -> Dataset:
    """`rt.data.Dataset.sample_from_datasets`.

    >>> import rustape as rt
    >>> D = rt.data.Dataset
    >>> len(list(rt.data.experimental.sample_from_datasets([D.range(2), D.range(3)], seed=1)))
    5
    """
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(
    datasets: list[Dataset], choice_dataset: Dataset, stop_on_empty_dataset: bool = True
) -> Dataset:
    """`rt.data.Dataset.choose_from_datasets`.

    >>> import rustape as rt
    >>> D = rt.data.Dataset
    >>> picks = D.from_tensor_slices(rt.constant([1, 0], rt.int64))
    >>> [int(x) for x in rt.data.experimental.choose_from_datasets([D.range(2), D.range(5, 7)], picks)]
    [5, 0]
    """
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)
