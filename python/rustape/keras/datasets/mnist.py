"""MNIST: 60,000 28x28 grayscale digits for training and 10,000 for testing (Keras's
`keras.datasets.mnist`)."""

from __future__ import annotations

from typing import Any

from ._common import fetch, read_npz

__all__ = ["load_data"]


def load_data(path: str = "mnist.npz") -> Any:
    """`(x_train, y_train), (x_test, y_test)`: uint8 images [60000, 28, 28] and [10000, 28, 28]
    (0-255) and uint8 labels 0-9, downloaded once into `~/.keras/datasets/path`.

    >>> import rustape as rt
    >>> callable(rt.keras.datasets.mnist.load_data)
    True
    """
    with_arrays = read_npz(fetch(path, "mnist.npz"))
    return (with_arrays["x_train"], with_arrays["y_train"]), (
        with_arrays["x_test"],
        with_arrays["y_test"],
    )
