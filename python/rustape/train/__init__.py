"""`rt.train`: TensorFlow's checkpoints. `Checkpoint` saves and restores variables, modules,
Keras models and optimizers in TensorFlow's own format (a `.index` table and a data file, with
the object graph `tf.train.Checkpoint` matches by), so checkpoints move between TensorFlow and
rustape both ways; `CheckpointManager` keeps numbered ones; `load_checkpoint`,
`list_variables` and `load_variable` read any TensorFlow checkpoint."""

from __future__ import annotations

import os
from typing import Any

from ._checkpoint import Checkpoint, CheckpointLoadStatus, _prefix
from ._manager import CheckpointManager
from ._state import latest_checkpoint


class CheckpointReader:
    """The tensors of a TensorFlow checkpoint (`tf.train.load_checkpoint`'s reader), read
    once and checked: every key, shape, dtype and value.

    >>> import tempfile, os
    >>> p = rt.train.Checkpoint(w=rt.Variable([1, 2])).write(os.path.join(tempfile.mkdtemp(), "c"))
    >>> r = rt.train.load_checkpoint(p)
    >>> r.get_tensor("w/.ATTRIBUTES/VARIABLE_VALUE")
    array([1, 2], dtype=int32)
    """

    def __init__(self, path: Any) -> None:
        from .. import _rustape
        from ._graph import to_array

        self._prefix = _prefix(path)
        self._values = {
            key: to_array(key, code, shape, data)
            for key, code, shape, data in _rustape.checkpoint_read_bundle(self._prefix)
        }

    def has_tensor(self, key: str) -> bool:
        """Whether the checkpoint holds `key`."""
        return key in self._values

    def get_tensor(self, key: str) -> Any:
        """The value of `key` as a NumPy array (a 0-d array of bytes for a scalar string)."""
        if key not in self._values:
            raise ValueError(f"Key {key} not found in checkpoint")
        value = self._values[key]
        if value.dtype == object and value.ndim == 0:
            return value.item()
        return value.copy()

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """Key -> shape."""
        return {k: list(v.shape) for k, v in self._values.items()}

    def get_variable_to_dtype_map(self) -> dict[str, Any]:
        """Key -> rustape dtype (`rt.string` for strings)."""
        from .. import as_dtype

        return {
            k: as_dtype("string" if v.dtype == object else v.dtype.name)
            for k, v in self._values.items()
        }


def load_checkpoint(ckpt_dir_or_file: Any) -> CheckpointReader:
    """A `CheckpointReader` over a checkpoint prefix or a directory's latest checkpoint.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> _ = rt.train.Checkpoint(x=rt.Variable(3.0)).save(os.path.join(d, "c"))
    >>> float(rt.train.load_checkpoint(d).get_tensor("x/.ATTRIBUTES/VARIABLE_VALUE"))
    3.0
    """
    return CheckpointReader(ckpt_dir_or_file)


def list_variables(ckpt_dir_or_file: Any) -> list[tuple[str, list[int]]]:
    """`(key, shape)` of every tensor in a checkpoint, sorted by key.

    >>> import tempfile, os
    >>> p = rt.train.Checkpoint(x=rt.Variable([1.0])).write(os.path.join(tempfile.mkdtemp(), "c"))
    >>> rt.train.list_variables(p)
    [('_CHECKPOINTABLE_OBJECT_GRAPH', []), ('x/.ATTRIBUTES/VARIABLE_VALUE', [1])]
    """
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return sorted(shapes.items())


def load_variable(ckpt_dir_or_file: Any, name: str) -> Any:
    """The value of tensor `name` in a checkpoint (a `:0` suffix is ignored).

    >>> import tempfile, os
    >>> p = rt.train.Checkpoint(x=rt.Variable(2.0)).write(os.path.join(tempfile.mkdtemp(), "c"))
    >>> float(rt.train.load_variable(p, "x/.ATTRIBUTES/VARIABLE_VALUE"))
    2.0
    """
    name = name.removesuffix(":0")
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


__all__ = [
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "CheckpointReader",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]
_ = os
