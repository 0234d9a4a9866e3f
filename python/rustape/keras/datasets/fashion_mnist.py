"""Fashion-MNIST: 70,000 28x28 grayscale images of 10 kinds of clothing (Keras's
`keras.datasets.fashion_mnist`)."""

from __future__ import annotations

import os
from typing import Any

from ._common import fetch, read_idx

__all__ = ["load_data"]

_FILES = (
    "train-labels-idx1-ubyte.gz",
    "train-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
)


def load_data() -> Any:
    """`(x_train, y_train), (x_test, y_test)`: uint8 images [60000, 28, 28] and [10000, 28, 28]
    and uint8 labels 0-9 (0 T-shirt/top, 1 trouser, 2 pullover, 3 dress, 4 coat, 5 sandal,
    6 shirt, 7 sneaker, 8 bag, 9 ankle boot), cached in `~/.keras/datasets/fashion-mnist`.

    >>> import rustape as rt
    >>> callable(rt.keras.datasets.fashion_mnist.load_data)
    True
    """
    sub = os.path.join("datasets", "fashion-mnist")
    paths = [fetch(name, name, cache_subdir=sub) for name in _FILES]
    y_train, y_test = read_idx(paths[0], 8), read_idx(paths[2], 8)
    x_train = read_idx(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = read_idx(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
