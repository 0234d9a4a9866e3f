"""What Keras's dataset loaders share: where the files come from, their hashes, the seeded
train/test split and the word-index sequence filters of IMDB and Reuters."""

from __future__ import annotations

import gzip
import json
import os
from typing import Any

import numpy as np

from .._files import get_file, load_npz, restricted_load

#: Where Keras's own copies of the datasets live.
ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
CIFAR_ORIGIN = "https://www.cs.toronto.edu/~kriz/"

#: The digests Keras checks each download against.
HASHES = {
    "mnist.npz": "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
    "boston_housing.npz": "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
    "california_housing.npz": "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f",
    "imdb.npz": "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
    "imdb_word_index.json": "bfafd718b763782e994055a2d397834f",
    "reuters.npz": "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
    "reuters_word_index.json": "4d44cc38712099c9e383dc6e5f11a921",
    "cifar-10-python.tar.gz": "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
    "cifar-100-python.tar.gz": "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
}


def fetch(path: str, remote: str, **kwargs: Any) -> str:
    """`get_file` of Keras's copy `remote`, cached as `path`, checked against its digest."""
    return get_file(path, origin=ORIGIN + remote, file_hash=HASHES.get(remote), **kwargs)


def read_npz(path: str) -> dict[str, Any]:
    return load_npz(path)


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_idx(path: str, header: int) -> np.ndarray:
    """The uint8 payload of a gzipped IDX file (MNIST's format) after its header."""
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=header)


def read_cifar_batch(path: str, label_key: str) -> tuple[np.ndarray, list[int]]:
    """One pickled CIFAR batch: images [N, 3, 32, 32] uint8 and their labels."""
    with open(path, "rb") as f:
        batch = restricted_load(f, encoding="bytes")
    if not isinstance(batch, dict):
        raise TypeError(f"{path}: not a CIFAR batch (a pickled dict)")
    batch = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in batch.items()}
    data = np.asarray(batch["data"])
    if data.dtype != np.uint8:
        raise ValueError(f"{path}: CIFAR images must be uint8, not {data.dtype}")
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def channels_last(x: np.ndarray) -> np.ndarray:
    return x.transpose(0, 2, 3, 1)


def shuffled_split(
    x: np.ndarray, y: np.ndarray, test_split: float, seed: int
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Keras's split: shuffle with NumPy's `RandomState(seed)`, the first `1 - test_split`
    for training."""
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be in [0, 1), got {test_split}")
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))


def drop_long(maxlen: int, xs: list, labels: Any) -> tuple[list, list]:
    keep = [i for i, x in enumerate(xs) if len(x) < maxlen]
    return [xs[i] for i in keep], [labels[i] for i in keep]


def index_words(xs: Any, start_char: int | None, index_from: int) -> list[list[int]]:
    """Shift word indices by `index_from` and put `start_char` in front (Keras's encoding)."""
    head = [] if start_char is None else [start_char]
    return [head + [int(w) + index_from for w in x] for x in xs]


def cap_words(
    xs: list[list[int]], num_words: int | None, skip_top: int, oov_char: int | None
) -> list[list[int]]:
    """Words outside [skip_top, num_words) become `oov_char` (or are dropped without one)."""
    if not num_words:
        num_words = max(max(x) for x in xs if x)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def object_array(rows: list[list[int]]) -> np.ndarray:
    out = np.empty(len(rows), dtype=object)
    for i, row in enumerate(rows):
        out[i] = row
    return out


def cifar_folder(archive: str, name: str, inner: str) -> str:
    """Download and extract a CIFAR archive (cached as Keras caches it); its batches' folder."""
    folder = get_file(name, origin=CIFAR_ORIGIN + archive, extract=True, file_hash=HASHES[archive])
    return os.path.join(folder, inner)
