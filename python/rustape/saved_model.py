"""`rt.saved_model.save` / `load`, so that programs written against `tf.saved_model` run.

rustape has no graphs to serialise: `save` pickles the object with its variables' and
tensors' values (as NumPy arrays) into `export_dir`, and `load` unpickles it. Unlike
TensorFlow's SavedModel, the object's class and functions (custom gradients included) are
stored by reference, so the code that defines them must be importable where the model is
loaded. Loaded variables are new variables holding the saved values.
"""
from __future__ import annotations

import io
import os
import pickle
from typing import Any

import numpy as _np

from . import _rustape as _rt

__all__ = ["LoadOptions", "SaveOptions", "load", "save"]

_FILE = "rustape_object.pkl"


class SaveOptions:
    """Accepted for compatibility; rustape stores custom gradients by reference anyway."""

    def __init__(self, experimental_custom_gradients: bool = True, **kwargs: Any) -> None:
        self.experimental_custom_gradients = experimental_custom_gradients
        self.options = kwargs


class LoadOptions:
    def __init__(self, **kwargs: Any) -> None:
        self.options = kwargs


def _restore_tensor(array: Any, dtype: str) -> Any:
    return _rt.constant(array, dtype=getattr(_rt, dtype))


def _restore_variable(array: Any, dtype: str, trainable: bool, name: str) -> Any:
    name = name.removesuffix(":0")
    return _rt.Variable(_rt.constant(array, dtype=getattr(_rt, dtype)), trainable=trainable, name=name)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, _rt.Variable):
            return _restore_variable, (_np.array(obj.numpy()), obj.dtype.name, bool(obj.trainable), str(obj.name))
        if isinstance(obj, _rt.Tensor):
            return _restore_tensor, (_np.array(obj.numpy()), obj.dtype.name)
        return NotImplemented


def save(obj: Any, export_dir: str, signatures: Any = None, options: SaveOptions | None = None) -> None:
    """Writes `obj` (with its variables' values) to the directory `export_dir`."""
    os.makedirs(export_dir, exist_ok=True)
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    with open(os.path.join(export_dir, _FILE), "wb") as fh:
        fh.write(buffer.getvalue())


def load(export_dir: str, tags: Any = None, options: LoadOptions | None = None) -> Any:
    """The object saved in `export_dir` by `save`."""
    path = os.path.join(export_dir, _FILE)
    if not os.path.exists(path):
        raise OSError(f"SavedModel file does not exist at: {export_dir} (no {_FILE}; was it written by rt.saved_model.save?)")
    with open(path, "rb") as fh:
        return pickle.load(fh)
