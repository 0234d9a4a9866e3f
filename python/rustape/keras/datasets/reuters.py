"""Reuters newswires: 11,228 articles as lists of word indices in 46 topics (Keras's
`keras.datasets.reuters`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import cap_words, drop_long, fetch, index_words, object_array, read_json, read_npz

__all__ = ["get_label_names", "get_word_index", "load_data"]


def load_data(
    path: str = "reuters.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    test_split: float = 0.2,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
) -> Any:
    """`(x_train, y_train), (x_test, y_test)`: the articles shuffled with NumPy's
    `RandomState(seed)`, encoded as `imdb.load_data` encodes reviews, the last `test_split`
    of them for testing; labels are topic indices into `get_label_names()`.

    >>> import rustape as rt
    >>> callable(rt.keras.datasets.reuters.load_data)
    True
    """
    arrays = read_npz(fetch(path, "reuters.npz"))
    xs, labels = arrays["x"], arrays["y"]
    order = np.arange(len(xs))
    np.random.RandomState(seed).shuffle(order)
    xs, labels = index_words(xs[order], start_char, index_from), labels[order]
    if maxlen:
        xs, labels = drop_long(maxlen, xs, labels)
    xs = cap_words(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return (object_array(xs[:cut]), np.array(labels[:cut])), (
        object_array(xs[cut:]),
        np.array(labels[cut:]),
    )


def get_word_index(path: str = "reuters_word_index.json") -> dict[str, int]:
    """The word -> index dictionary of `load_data`'s articles (before the `index_from` shift).

    >>> import rustape as rt
    >>> callable(rt.keras.datasets.reuters.get_word_index)
    True
    """
    return read_json(fetch(path, "reuters_word_index.json"))


_LABELS = [
    "cocoa",
    "grain",
    "veg-oil",
    "earn",
    "acq",
    "wheat",
    "copper",
    "housing",
    "money-supply",
    "coffee",
    "sugar",
    "trade",
    "reserves",
    "ship",
    "cotton",
    "carcass",
    "crude",
    "nat-gas",
    "cpi",
    "money-fx",
    "interest",
    "gnp",
    "meal-feed",
    "alum",
    "oilseed",
    "gold",
    "tin",
    "strategic-metal",
    "livestock",
    "retail",
    "ipi",
    "iron-steel",
    "rubber",
    "heat",
    "jobs",
    "lei",
    "bop",
    "zinc",
    "orange",
    "pet-chem",
    "dlr",
    "gas",
    "silver",
    "wpi",
    "hog",
    "lead",
]


def get_label_names() -> tuple[str, ...]:
    """The 46 topic names, indexed by label.

    >>> import rustape as rt
    >>> rt.keras.datasets.reuters.get_label_names()[:3]
    ('cocoa', 'grain', 'veg-oil')
    """
    return tuple(_LABELS)
