"""`keras.utils`: batches from Python (`PyDataset`), labels as one-hot rows
(`to_categorical`), padded sequences (`pad_sequences`), datasets cut from arrays
(`timeseries_dataset_from_array`, `split_dataset`), seeds, and the step data helpers.

>>> import numpy as np, rustape as rt
>>> rt.keras.utils.to_categorical([0, 2], num_classes=3)
array([[1., 0., 0.],
       [0., 0., 1.]], dtype=float32)
"""

from __future__ import annotations

import random
from collections.abc import Sequence as _Sequence
from typing import Any

import numpy as np

from ._data import pack_x_y_sample_weight, unpack_x_y_sample_weight
from ._dataset_utils import split_dataset, timeseries_dataset_from_array
from ._files import get_file
from ._image_files import (
    array_to_img,
    image_dataset_from_directory,
    img_to_array,
    load_img,
    save_img,
)
from .saving import (  # Keras exports its registry under keras.utils too
    deserialize_keras_object,
    get_registered_name,
    register_keras_serializable,
    serialize_keras_object,
)

__all__ = [
    "PyDataset",
    "Sequence",
    "array_to_img",
    "clear_session",
    "deserialize_keras_object",
    "get_file",
    "get_registered_name",
    "image_dataset_from_directory",
    "img_to_array",
    "is_keras_tensor",
    "load_img",
    "normalize",
    "pack_x_y_sample_weight",
    "pad_sequences",
    "register_keras_serializable",
    "save_img",
    "serialize_keras_object",
    "set_random_seed",
    "split_dataset",
    "standardize_dtype",
    "timeseries_dataset_from_array",
    "to_categorical",
    "unpack_x_y_sample_weight",
]


class PyDataset:
    """Batches computed in Python, by index (Keras 3's `PyDataset`): define `__len__` (the
    number of batches) and `__getitem__(index)` returning `x`, `(x, y)` or
    `(x, y, sample_weight)`; `on_epoch_begin` and `on_epoch_end` run around each epoch. `fit`, `evaluate` and
    `predict` take one as `x` (`fit(shuffle=True)` visits the batches in a new order each
    epoch). `workers`, `use_multiprocessing` and `max_queue_size` are accepted; batches are
    made one at a time in the calling thread.

    >>> import numpy as np, rustape as rt
    >>> class Squares(rt.keras.utils.PyDataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, index):
    ...         x = np.full((8, 1), index, np.float32)
    ...         return x, x**2
    >>> model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> len(model.fit(Squares(), epochs=2).history["loss"])
    2
    """

    def __init__(
        self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10
    ) -> None:
        self.workers = workers
        self.use_multiprocessing = use_multiprocessing
        self.max_queue_size = max_queue_size

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def on_epoch_begin(self) -> None:
        """Called before each epoch."""

    def on_epoch_end(self) -> None:
        """Called after each epoch, and once as `fit` or `evaluate` starts, as Keras does
        (override it to reshuffle your samples, say)."""

    @property
    def num_batches(self) -> int:
        """The number of batches (`len(self)`)."""
        return len(self)


#: Keras's older name for `PyDataset`.
Sequence = PyDataset


def to_categorical(x: Any, num_classes: int | None = None) -> np.ndarray:
    """Integer labels as one-hot float32 rows (a new last axis of `num_classes`, the largest
    label plus one by default); a trailing axis of 1 is replaced.

    >>> import rustape as rt
    >>> rt.keras.utils.to_categorical([[1], [0]]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    labels = np.asarray(x.numpy() if hasattr(x, "numpy") else x).astype(np.int64)
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    if labels.size and labels.min() < 0:
        raise ValueError(f"to_categorical: labels must not be negative, got {labels.min()}")
    count = int(labels.max()) + 1 if num_classes is None and labels.size else int(num_classes or 0)
    if labels.size and labels.max() >= count:
        raise ValueError(
            f"to_categorical: label {labels.max()} is out of range for num_classes={count}"
        )
    out = np.zeros((*labels.shape, count), np.float32)
    np.put_along_axis(out, labels[..., None], 1.0, axis=-1)
    return out


def pad_sequences(
    sequences: _Sequence[Any],
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    """Sequences of different lengths as one `[count, maxlen]` array (Keras's): padded with
    `value` and cut to `maxlen`, both at the start (`"pre"`) or the end (`"post"`).

    >>> import rustape as rt
    >>> rt.keras.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2, padding="post")
    array([[2, 3],
           [4, 0]], dtype=int32)
    """
    for name, where in (("padding", padding), ("truncating", truncating)):
        if where not in ("pre", "post"):
            raise ValueError(f'pad_sequences: `{name}` must be "pre" or "post", got {where!r}')
    rows = [np.asarray(s) for s in sequences]
    lengths = [len(r) for r in rows]
    length = int(maxlen) if maxlen is not None else (max(lengths) if lengths else 0)
    tail = next((r.shape[1:] for r in rows if len(r)), ())
    out = np.full((len(rows), length, *tail), value, dtype=dtype)
    for i, row in enumerate(rows):
        if not len(row) or not length:
            continue
        kept = row[-length:] if truncating == "pre" else row[:length]
        if padding == "post":
            out[i, : len(kept)] = kept
        else:
            out[i, -len(kept) :] = kept
    return out


def set_random_seed(seed: int) -> None:
    """Seeds Python's, NumPy's and rustape's random numbers (Keras's).

    >>> import rustape as rt
    >>> rt.keras.utils.set_random_seed(0)
    """
    from ..random import set_seed
    from .random import _reset_global_generator

    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(  # noqa: TRY004  (Keras's error)
            "Expected `seed` argument to be an integer. "
            f"Received: seed={seed} (of type {type(seed)})"
        )
    # Keras forgets its global SeedGenerator; the next one takes a seed from `random`.
    _reset_global_generator()
    random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)


def normalize(x: Any, axis: int = -1, order: int = 2) -> Any:
    """`x` divided by its `order`-norm along `axis` (Keras 3's `keras.utils.normalize`: a
    NumPy array stays one, a zero norm leaves the values as they are).

    >>> import rustape as rt
    >>> rt.keras.utils.normalize(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    from .. import _rustape as _rt

    if isinstance(x, (_rt.Tensor, _rt.Variable)):
        from . import ops

        return ops.normalize(x, axis=axis, order=order)
    array = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(array, order, axis))
    norm[norm == 0] = 1
    return array / np.expand_dims(norm, axis)


def clear_session(free_memory: bool = True) -> None:
    """Resets Keras's global state: layer names count from the start again (the next
    `Dense` is "dense"); with `free_memory`, Python's garbage collector runs.

    >>> import rustape as rt
    >>> rt.keras.utils.clear_session()
    >>> rt.keras.layers.Dense(2).name
    'dense'
    """
    import gc

    from ._util import _name_counts

    _name_counts.clear()
    if free_memory:
        gc.collect()


def is_keras_tensor(x: Any) -> bool:
    """Whether `x` is a symbolic input of the functional API (`keras.Input(...)` and what
    layers make of it), not a tensor with values.

    >>> import rustape as rt
    >>> rt.keras.utils.is_keras_tensor(rt.keras.Input((3,))), rt.keras.utils.is_keras_tensor(rt.ones([3]))
    (True, False)
    """
    from .functional import KerasTensor

    return isinstance(x, KerasTensor)


def standardize_dtype(dtype: Any) -> str:
    """A dtype's name, as Keras spells it ("float32", "int64", ...; None gives "float32").

    >>> import rustape as rt
    >>> rt.keras.utils.standardize_dtype(rt.float64), rt.keras.utils.standardize_dtype(np.int32)
    ('float64', 'int32')
    """
    from .. import _rustape as _rt

    if dtype is None:
        return "float32"
    if isinstance(dtype, _rt.DType):
        return str(dtype.name)
    if isinstance(dtype, str) and dtype in ("float", "int"):
        return {"float": "float32", "int": "int64"}[dtype]
    try:
        return str(np.dtype(dtype).name)
    except TypeError:
        pass
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    raise ValueError(f"Invalid dtype: {dtype!r}")
