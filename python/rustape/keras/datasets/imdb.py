"""IMDB: 50,000 movie reviews as lists of word indices, labelled positive (1) or negative (0)
(Keras's `keras.datasets.imdb`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import cap_words, drop_long, fetch, index_words, object_array, read_json, read_npz

__all__ = ["get_word_index", "load_data"]


def load_data(
    path: str = "imdb.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> Any:
    """`(x_train, y_train), (x_test, y_test)`: 25,000 reviews each as object arrays of word-index
    lists (indices shifted by `index_from`, `start_char` in front; words ranked below
    `skip_top` or at or above `num_words` become `oov_char`, or are dropped when it is None;
    reviews of `maxlen` words or more dropped) and int64 labels, shuffled as Keras shuffles them
    (NumPy's `RandomState(seed)`). The file's object arrays are unpickled with an unpickler that
    builds arrays and lists only.

    >>> import rustape as rt
    >>> callable(rt.keras.datasets.imdb.load_data)
    True
    """
    if kwargs:
        raise TypeError(f"imdb.load_data: unexpected arguments {sorted(kwargs)}")
    arrays = read_npz(fetch(path, "imdb.npz"))
    rng = np.random.RandomState(seed)
    parts = []
    for xk, yk in (("x_train", "y_train"), ("x_test", "y_test")):
        order = np.arange(len(arrays[xk]))
        rng.shuffle(order)
        parts.append((arrays[xk][order], arrays[yk][order]))
    (x_train, y_train), (x_test, y_test) = parts
    x_train, x_test = (
        index_words(x_train, start_char, index_from),
        index_words(x_test, start_char, index_from),
    )
    if maxlen:
        x_train, y_train = drop_long(maxlen, x_train, y_train)
        x_test, y_test = drop_long(maxlen, x_test, y_test)
        if not x_train or not x_test:
            raise ValueError(
                f"imdb.load_data: no review is shorter than maxlen={maxlen}; increase maxlen"
            )
    xs = cap_words(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([np.asarray(y_train), np.asarray(y_test)])
    cut = len(x_train)
    return (object_array(xs[:cut]), labels[:cut]), (object_array(xs[cut:]), labels[cut:])


def get_word_index(path: str = "imdb_word_index.json") -> dict[str, int]:
    """The word -> index dictionary of `load_data`'s reviews (before the `index_from` shift).

    >>> import rustape as rt
    >>> callable(rt.keras.datasets.imdb.get_word_index)
    True
    """
    return read_json(fetch(path, "imdb_word_index.json"))
