"""`rt.keras.datasets`: Keras's small datasets, downloaded once into `~/.keras/datasets` (or
`$KERAS_HOME/datasets`) from where Keras downloads them, checked against Keras's digests, and
returned as the NumPy arrays Keras returns (same order, same shuffles). No file is read in a
way that could run code: pickled parts rebuild NumPy arrays and plain values only."""

from . import (
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)

__all__ = [
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "fashion_mnist",
    "imdb",
    "mnist",
    "reuters",
]
