"""CIFAR-10: 60,000 32x32 colour images in 10 classes (Keras's `keras.datasets.cifar10`)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._common import channels_last, cifar_folder, read_cifar_batch

__all__ = ["load_data"]


def load_data() -> Any:
    """`(x_train, y_train), (x_test, y_test)`: uint8 images [50000, 32, 32, 3] and
    [10000, 32, 32, 3] and uint8 labels [N, 1] (0 airplane, 1 automobile, 2 bird, 3 cat,
    4 deer, 5 dog, 6 frog, 7 horse, 8 ship, 9 truck). The pickled batches are read with an
    unpickler that builds NumPy arrays and nothing else.

    >>> import rustape as rt
    >>> callable(rt.keras.datasets.cifar10.load_data)
    True
    """
    folder = cifar_folder(
        "cifar-10-python.tar.gz", "cifar-10-batches-py-target", "cifar-10-batches-py"
    )
    parts = [
        read_cifar_batch(os.path.join(folder, f"data_batch_{i}"), "labels") for i in range(1, 6)
    ]
    x_train = np.concatenate([p[0] for p in parts])
    y_train = np.concatenate([np.asarray(p[1], np.uint8) for p in parts]).reshape(-1, 1)
    x_test, labels = read_cifar_batch(os.path.join(folder, "test_batch"), "labels")
    y_test = np.asarray(labels, np.uint8).reshape(-1, 1)
    return (channels_last(x_train), y_train), (channels_last(x_test), y_test)
