"""Whole-model files: `Model.save("model.keras")` and `load_model`, in Keras 3's `.keras`
format: a zip of `config.json` (Keras's config, with `compile_config`), `metadata.json` and
`model.weights.h5` (the weights and the optimizer's state, HDF5, at Keras's paths). Keras 3
loads what `save` writes (same outputs; `fit` resumes from the optimizer's state), and
`load_model` reads what Keras 3 saved: Sequential, functional and subclassed models, custom
classes through `custom_objects` or `register_keras_serializable`. `model.save_weights` /
`load_weights` on a `.weights.h5` name use Keras's weights layout too.

HDF5 goes through h5py (`pip install rustape[h5]`). Without it `save` writes rustape's
earlier format (the weights as NumPy `.npz` arrays; Keras cannot read it), which `load_model`
still reads. A file rustape writes also holds `rustape.json`, rustape's own config (every
constructor argument as given, rustape's functions), which rustape prefers when loading.

Loading runs no code from the file: classes are found by name among rustape's own Keras
classes, those registered with `register_keras_serializable`, and `custom_objects`; a
`Lambda` layer (Python bytecode in Keras's config) is refused, naming the layer; HDF5 links to
other files are refused; a dataset is read only once its shape equals its variable's; `.npz`
arrays are read with `allow_pickle=False`. A layer's config is the arguments its constructor
was called with (`Layer.get_config`), so custom layers save without writing `get_config`.

>>> import os, tempfile
>>> import numpy as np, rustape as rt
>>> model = rt.keras.Sequential([rt.keras.Input(shape=(3,)), rt.keras.layers.Dense(2)])
>>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
>>> model.save(path)
>>> again = rt.keras.models.load_model(path)
>>> x = np.ones((1, 3), np.float32)
>>> bool(np.array_equal(again(x).numpy(), model(x).numpy()))
True
"""

from __future__ import annotations

import io
import json
import os
import warnings
import zipfile
from typing import Any

import numpy as np

from .. import _rustape as _rt

__all__ = [
    "deserialize_keras_object",
    "get_registered_name",
    "load_model",
    "register_keras_serializable",
    "save_model",
    "serialize_keras_object",
]

#: The format's name and version, written in every file.
FORMAT = "rustape.keras"
VERSION = 1
#: The largest config a file may hold (a config is small; a huge one is not a model).
_MAX_CONFIG_BYTES = 64 * 2**20

_registered: dict[str, Any] = {}


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Any:
    """A decorator that makes a class (or function) loadable by name: `"package>Name"`
    (Keras's).

    >>> import rustape as rt
    >>> @rt.keras.saving.register_keras_serializable(package="demo")
    ... class Twice(rt.keras.layers.Layer):
    ...     def call(self, x):
    ...         return 2 * x
    >>> rt.keras.saving.get_registered_name(Twice)
    'demo>Twice'
    """

    def register(obj: Any) -> Any:
        key = f"{package}>{name or obj.__name__}"
        _registered[key] = obj
        obj._registered_name = key
        return obj

    return register


def get_registered_name(obj: Any) -> str:
    """The name `obj`'s class (or `obj`, a class or function) is saved under.

    >>> import rustape as rt
    >>> rt.keras.saving.get_registered_name(rt.keras.layers.Dense)
    'Dense'
    """
    is_class_or_function = isinstance(obj, type) or (
        callable(obj) and not hasattr(obj, "get_config")
    )
    target = obj if is_class_or_function else type(obj)
    return str(target.__dict__.get("_registered_name", target.__name__))


# -- what a config may name ----------------------------------------------------------------


def _modules() -> dict[str, Any]:
    """rustape's Keras modules whose classes a config may name, by their Keras module name."""
    from . import (
        constraints,
        initializers,
        layers,
        losses,
        metrics,
        models,
        optimizers,
        regularizers,
    )
    from .optimizers import schedules

    return {
        "keras.layers": layers,
        "keras.initializers": initializers,
        "keras.regularizers": regularizers,
        "keras.constraints": constraints,
        "keras.losses": losses,
        "keras.metrics": metrics,
        "keras.optimizers": optimizers,
        "keras.optimizers.schedules": schedules,
        "keras.models": models,
    }


def _module_classes(module: Any) -> dict[str, Any]:
    return {
        name: getattr(module, name)
        for name in getattr(module, "__all__", [])
        if isinstance(getattr(module, name, None), type)
    }


def _classes(custom_objects: dict[str, Any] | None) -> dict[str, Any]:
    """Every class a config may name: rustape's Keras classes, registered ones, then
    `custom_objects` (which win). A name in two modules (`Identity`, `MeanSquaredError`)
    means the later module's class here; configs name the module of such a class."""
    from . import models

    known: dict[str, Any] = {}
    for module in _modules().values():
        known.update(_module_classes(module))
    known["Functional"] = models.Model
    known.update(_registered)
    known.update(custom_objects or {})
    return known


def _ambiguous_module(cls: type) -> str | None:
    """The Keras module of one of rustape's classes whose name another module also uses
    (a config must say which), else None."""
    homes = [
        module_name
        for module_name, module in _modules().items()
        if cls.__name__ in _module_classes(module)
    ]
    if len(homes) < 2:
        return None
    for module_name in homes:
        if _module_classes(_modules()[module_name]).get(cls.__name__) is cls:
            return module_name
    return None


def _function_namespaces() -> list[tuple[str, Any]]:
    import rustape

    from .. import math as _math
    from .. import nn as _nn
    from . import activations, losses

    return [
        ("keras.activations", activations),
        ("keras.losses", losses),
        ("nn", _nn),
        ("math", _math),
        ("rt", rustape),
    ]


def _function_name(fn: Any) -> str:
    for prefix, module in _function_namespaces():
        for name in getattr(module, "__all__", dir(module)):
            if not name.startswith("_") and getattr(module, name, None) is fn:
                return f"{prefix}.{name}"
    from .activations import _ACTIVATIONS

    for name, known in _ACTIVATIONS.items():
        if known is fn:
            return f"keras.activations.{name}"
    registered = getattr(fn, "_registered_name", None)
    if registered in _registered:
        return str(registered)
    raise ValueError(
        f"save: cannot save the function {getattr(fn, '__name__', fn)!r}: it is not one of "
        "rustape's; decorate it with rt.keras.saving.register_keras_serializable() (and pass "
        "it in custom_objects when loading), or give its name as a string"
    )


def _function(name: str, custom_objects: dict[str, Any] | None) -> Any:
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in _registered:
        return _registered[name]
    prefix, _, attr = name.rpartition(".")
    for known_prefix, module in _function_namespaces():
        if prefix == known_prefix and not attr.startswith("_"):
            from .activations import _ACTIVATIONS

            fn = getattr(module, attr, None)
            if fn is None and known_prefix == "keras.activations":
                fn = _ACTIVATIONS.get(attr)
            if callable(fn):
                return fn
    raise ValueError(f"load_model: unknown function {name!r} (pass it in custom_objects)")


# -- configs -------------------------------------------------------------------------------


def serialize_keras_object(obj: Any) -> Any:
    """`obj` as JSON-able data: numbers, strings, lists, dicts; a Keras object as
    `{"class_name": ..., "config": ...}`; an array as its values and dtype.

    >>> import rustape as rt
    >>> rt.keras.saving.serialize_keras_object(rt.keras.regularizers.L2(0.5))
    {'class_name': 'L2', 'config': {'l2': 0.5}}
    """
    from .layers.base import Layer

    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, (np.generic,)):
        return obj.item()
    if isinstance(obj, (np.ndarray, _rt.Tensor, _rt.Variable)):
        array = np.asarray(obj.numpy() if not isinstance(obj, np.ndarray) else obj)
        return {
            "class_name": "__ndarray__",
            "config": {"value": array.tolist(), "dtype": str(array.dtype)},
        }
    if isinstance(obj, _rt.DType):
        return str(obj.name)
    if isinstance(obj, Layer) or (hasattr(obj, "get_config") and not isinstance(obj, type)):
        config: dict[str, Any] = {"class_name": get_registered_name(obj)}
        module = _ambiguous_module(type(obj))
        if module is not None:
            config["module"] = module
        config["config"] = serialize_keras_object(obj.get_config())
        build = obj.__dict__.get("_build_inputs") if isinstance(obj, Layer) else None
        if build is not None:
            config["build_inputs"] = build
        return config
    if callable(obj):
        return {"class_name": "__function__", "config": {"name": _function_name(obj)}}
    raise TypeError(f"save: cannot save {type(obj).__name__} {obj!r} in a model's config")


def deserialize_keras_object(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The object `serialize_keras_object` described; classes only from rustape's Keras
    classes, registered ones and `custom_objects`.

    >>> import rustape as rt
    >>> rt.keras.saving.deserialize_keras_object({"class_name": "L2", "config": {"l2": 0.5}})
    L2(l2=0.5)
    """
    if isinstance(config, list):
        return [deserialize_keras_object(v, custom_objects) for v in config]
    if not isinstance(config, dict):
        return config
    if (
        set(config) - {"class_name", "module", "config", "build_inputs"}
        or "class_name" not in config
    ):
        return {k: deserialize_keras_object(v, custom_objects) for k, v in config.items()}
    name = config["class_name"]
    inner = config.get("config") or {}
    if name == "__ndarray__":
        dtype = np.dtype(str(inner["dtype"]))
        if dtype.kind not in "biuf":
            raise ValueError(f"load_model: an array of dtype {dtype} in the config")
        return np.asarray(inner["value"], dtype=dtype)
    if name == "__function__":
        return _function(str(inner["name"]), custom_objects)
    known = _classes(custom_objects)
    module = config.get("module")
    if isinstance(module, str) and module in _modules() and name not in (custom_objects or {}):
        known = {**known, **_module_classes(_modules()[module])}
    if name not in known:
        raise ValueError(
            f"load_model: unknown class {name!r}: pass it in custom_objects, or register it "
            "with rt.keras.saving.register_keras_serializable()"
        )
    cls = known[name]
    from .models import Model, Sequential

    if cls is Sequential or (cls is Model and "nodes" in inner):
        from ._model_config import model_from_config

        obj = model_from_config(cls, inner, custom_objects)
    else:
        arguments = deserialize_keras_object(inner, custom_objects)
        obj = cls.from_config(arguments) if hasattr(cls, "from_config") else cls(**arguments)
    build = config.get("build_inputs")
    if build is not None:
        from ._model_config import build_from

        build_from(obj, build)
    return obj


# -- files -----------------------------------------------------------------------------------


def _arrays(values: list[Any]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{f"{i:05d}": np.asarray(v.numpy()) for i, v in enumerate(values)})  # type: ignore[arg-type]
    return buffer.getvalue()


def _read_arrays(archive: zipfile.ZipFile, member: str) -> list[np.ndarray]:
    with np.load(io.BytesIO(archive.read(member)), allow_pickle=False) as data:
        return [data[k] for k in sorted(data.files)]


def _assign(what: str, variables: list[Any], arrays: list[np.ndarray]) -> None:
    if len(variables) != len(arrays):
        raise ValueError(
            f"load_model: the file holds {len(arrays)} {what} arrays, the rebuilt model has "
            f"{len(variables)} variables"
        )
    for v, a in zip(variables, arrays):
        if tuple(v.shape) != a.shape:
            raise ValueError(
                f"load_model: {what} {v.name} has shape {list(v.shape)}, the file's array "
                f"{list(a.shape)}"
            )
        v.assign(a)


def save_model(model: Any, filepath: str | os.PathLike[str], overwrite: bool = True) -> None:
    """Writes `model` to `filepath` (a `.keras` file): its config, weights and, when compiled,
    its optimizer, loss and metrics with the optimizer's state.

    >>> import os, tempfile
    >>> import rustape as rt
    >>> model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)])
    >>> rt.keras.saving.save_model(model, os.path.join(tempfile.mkdtemp(), "m.keras"))
    """
    path = os.fspath(filepath)
    if not path.endswith(".keras"):
        raise ValueError(
            f"save: the file name must end in .keras (got {path!r}); for weights alone use "
            "model.save_weights"
        )
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"save: {path} exists and overwrite=False")
    config: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "model": serialize_keras_object(model),
        "compile": None,
    }
    compiled = model.__dict__.get("_compile_arguments")
    optimizer = getattr(model, "optimizer", None) if compiled is not None else None
    if compiled is not None:
        config["compile"] = serialize_keras_object(compiled)
    try:
        from ._keras_format import h5py_module
        from ._keras_writer import write_keras_file

        h5py_module()
    except ImportError:
        warnings.warn(
            "save: h5py is not installed, so the file holds the weights as NumPy arrays "
            "(rustape reads it, Keras does not); pip install rustape[h5] for Keras's format",
            stacklevel=2,
        )
    else:
        write_keras_file(model, path, config)
        return
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", json.dumps(config))
        archive.writestr("model.weights.npz", _arrays(model.variables))
        if optimizer is not None and optimizer.built:
            archive.writestr("optimizer.weights.npz", _arrays(optimizer.variables))


def load_model(
    filepath: str | os.PathLike[str],
    custom_objects: dict[str, Any] | None = None,
    compile: bool = True,
    safe_mode: bool = True,
) -> Any:
    """Reads a model `save` wrote: the same layers and weights, compiled as it was (with the
    optimizer's state) unless `compile=False`. Classes come only from rustape,
    `register_keras_serializable` and `custom_objects`; nothing in the file runs.

    >>> import os, tempfile
    >>> import rustape as rt
    >>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
    >>> rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)]).save(path)
    >>> [w.shape for w in rt.keras.models.load_model(path).weights]
    [(2, 1), (1,)]
    """
    path = os.fspath(filepath)
    if not zipfile.is_zipfile(path):
        raise ValueError(f"load_model: {path} is not a .keras file (a zip)")
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        h5 = "model.weights.h5" in names
        if h5 and "rustape.json" not in names and "config.json" in names:
            from ._keras_format import read_keras_file

            return read_keras_file(archive, path, custom_objects, compile)
        config_member = "rustape.json" if h5 else "config.json"
        if not h5 and ("config.json" not in names or "model.weights.npz" not in names):
            raise ValueError(
                f"load_model: {path} has no config.json with model.weights.npz (rustape's "
                "files) or model.weights.h5 (Keras's)"
            )
        if archive.getinfo(config_member).file_size > _MAX_CONFIG_BYTES:
            raise ValueError(f"load_model: the config in {path} is over 64 MiB")
        config = json.loads(archive.read(config_member))
        if not isinstance(config, dict) or config.get("format") != FORMAT:
            raise ValueError(f"load_model: {path} is not a rustape model file")
        if config.get("version") != VERSION:
            raise ValueError(
                f"load_model: {path} has format version {config.get('version')!r}; this "
                f"rustape reads version {VERSION}"
            )
        model = deserialize_keras_object(config["model"], custom_objects)
        compiled = compile and config.get("compile") is not None
        if compiled:
            arguments = deserialize_keras_object(config["compile"], custom_objects)
            model.compile(**arguments)
        if h5:
            from ._keras_format import read_weights_member

            read_weights_member(archive, path, model, compiled)
            return model
        _assign("weight", model.variables, _read_arrays(archive, "model.weights.npz"))
        if compiled and "optimizer.weights.npz" in names:
            model.optimizer.build(model.trainable_variables)
            _assign(
                "optimizer variable",
                model.optimizer.variables,
                _read_arrays(archive, "optimizer.weights.npz"),
            )
    return model


def save_training_state(model: Any, path: str) -> None:
    """Writes the model's variables and its optimizer's (when built) to one `.npz` file,
    atomically (a temporary file renamed over `path`)."""
    arrays = {f"model/{i:05d}": np.asarray(v.numpy()) for i, v in enumerate(model.variables)}
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and optimizer.built:
        for i, v in enumerate(optimizer.variables):
            arrays[f"optimizer/{i:05d}"] = np.asarray(v.numpy())
    partial = f"{path}.partial"
    with open(partial, "wb") as f:
        np.savez(f, **arrays)  # type: ignore[arg-type]
    os.replace(partial, path)


def load_training_state(model: Any, path: str) -> None:
    """Reads `save_training_state`'s file back into the model and its optimizer (built on the
    model's trainable variables first), checking every shape."""
    with np.load(path, allow_pickle=False) as data:
        parts: dict[str, list[np.ndarray]] = {"model": [], "optimizer": []}
        for key in sorted(data.files):
            part = key.split("/", 1)[0]
            if part not in parts:
                raise ValueError(f"{path}: unexpected array {key!r}")
            parts[part].append(data[key])
    _assign("weight", model.variables, parts["model"])
    if parts["optimizer"]:
        optimizer = model.optimizer
        if not optimizer.built:
            optimizer.build(model.trainable_variables)
        _assign("optimizer variable", optimizer.variables, parts["optimizer"])
