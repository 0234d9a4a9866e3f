"""CIFAR-100: 60,000 32x32 colour images in 100 fine or 20 coarse classes (Keras's
`keras.datasets.cifar100`)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._common import channels_last, cifar_folder, read_cifar_batch

__all__ = ["load_data"]


def load_data(label_mode: str = "fine") -> Any:
    """`(x_train, y_train), (x_test, y_test)`: uint8 images [50000, 32, 32, 3] and
    [10000, 32, 32, 3] and int64 labels [N, 1], the 100 "fine" classes or the 20 "coarse"
    superclasses.

    >>> import rustape as rt
    >>> rt.keras.datasets.cifar100.load_data(label_mode="medium")
    Traceback (most recent call last):
    ValueError: cifar100.load_data: label_mode must be "fine" or "coarse", not 'medium'
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError(
            f'cifar100.load_data: label_mode must be "fine" or "coarse", not {label_mode!r}'
        )
    folder = cifar_folder("cifar-100-python.tar.gz", "cifar-100-python-target", "cifar-100-python")
    key = f"{label_mode}_labels"
    x_train, y_train = read_cifar_batch(os.path.join(folder, "train"), key)
    x_test, y_test = read_cifar_batch(os.path.join(folder, "test"), key)
    return (channels_last(x_train), np.reshape(y_train, (-1, 1))), (
        channels_last(x_test),
        np.reshape(y_test, (-1, 1)),
    )
