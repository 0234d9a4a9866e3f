"""`rt.data`: TensorFlow's input pipelines (`tf.data`), run eagerly.

    ds = rt.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)
    model.fit(ds, epochs=3)

The elements are tensors, or tuples and dicts of them; every pass makes them anew. Shuffles
draw rustape's own random orders (reproducible with `seed` or `rt.random.set_seed`), not
TensorFlow's. Strings are not tensors in rustape, so text pipelines do not port.
"""

from __future__ import annotations

from . import experimental
from ._args import AUTOTUNE
from .dataset import INFINITE, UNKNOWN, Dataset, DatasetIterator
from .options import Options

#: `cardinality()` of a dataset without end.
INFINITE_CARDINALITY = INFINITE
#: `cardinality()` of a dataset whose length only a pass can tell.
UNKNOWN_CARDINALITY = UNKNOWN

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetIterator",
    "Options",
    "experimental",
]
