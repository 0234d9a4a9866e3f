"""`rt.saved_model.save` / `load`: an object and its tensors and variables, in a format that
holds data only. Loading never runs code from the file.

A saved model is a directory holding `saved_model.json` (the object graph: containers,
numbers, strings, and references to classes and functions by name) and `variables.npz` (every
array, read back with NumPy's `allow_pickle=False`). Loading rebuilds:

- tensors, variables (new variables holding the saved values; one per saved variable, however
  often it is referenced), NumPy arrays and scalars, dtypes;
- lists, tuples, dicts, sets, strings, bytes and numbers, with sharing and cycles as saved;
- instances of rustape's classes (layers, models, `rt.Module`, ...) and of your subclasses of
  them that the loading program has already defined: created without calling `__init__`,
  their attributes set from the file (a module is never imported to find a class);
- rustape's functions (`rt.nn.relu`, Keras activations by name, ...) by name.

Anything else needs your say-so when loading: pass the classes and functions in
`custom_objects` (a list, or a dict from the saved `"module:qualname"` to the object), or save
with `SaveOptions(allow_pickle=True)` (pickles what has no safe form) and load with
`LoadOptions(allow_pickle=True)` -- which runs code from the file: only for files you trust.

Unlike TensorFlow's SavedModel no graphs are stored: a restored object's methods are its
class's, so the class must be defined where the model is loaded.

>>> import tempfile, os
>>> class Scale(rt.Module):
...     def __init__(self):
...         super().__init__()
...         self.w = rt.Variable([2.0, 3.0])
...     def __call__(self, x):
...         return x * self.w
>>> path = os.path.join(tempfile.mkdtemp(), "scale")
>>> rt.saved_model.save(Scale(), path)
>>> rt.saved_model.load(path)(rt.constant([1.0, 1.0])).numpy().tolist()
[2.0, 3.0]
"""

from __future__ import annotations

import base64
import enum
import inspect
import io
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Iterable, Mapping
from typing import Any, Callable

import numpy as _np

from . import _rustape as _rt

__all__ = ["LoadOptions", "SaveOptions", "load", "save"]

MANIFEST = "saved_model.json"
ARRAYS = "variables.npz"
_FORMAT = "rustape.saved_model"
_VERSION = 1
_LEGACY_PICKLE = "rustape_object.pkl"


class SaveOptions:
    """Options for `save`.

    `allow_pickle=True` stores objects that have no safe form (your own functions, lambdas,
    classes rustape does not know) as pickles; loading such a model then needs
    `LoadOptions(allow_pickle=True)`. `experimental_custom_gradients` is accepted for
    TensorFlow compatibility (custom gradients are the class's code, never stored).

    >>> rt.saved_model.SaveOptions(allow_pickle=True).allow_pickle
    True
    """

    def __init__(
        self, experimental_custom_gradients: bool = True, allow_pickle: bool = False, **kwargs: Any
    ) -> None:
        self.experimental_custom_gradients = experimental_custom_gradients
        self.allow_pickle = bool(allow_pickle)
        self.options = kwargs


class LoadOptions:
    """Options for `load`.

    `allow_pickle=True` unpickles the objects a model saved with `SaveOptions(allow_pickle=True)`
    holds, which runs code the file chooses: only for files you trust. `custom_objects` names
    classes and functions beyond rustape's that the model may refer to (also a keyword of
    `load`).

    >>> rt.saved_model.LoadOptions().allow_pickle
    False
    """

    def __init__(
        self, allow_pickle: bool = False, custom_objects: Any = None, **kwargs: Any
    ) -> None:
        self.allow_pickle = bool(allow_pickle)
        self.custom_objects = custom_objects
        self.options = kwargs


# -- names of classes and functions ---------------------------------------------------------


def _name_of(obj: Any) -> str:
    return f"{getattr(obj, '__module__', None)}:{getattr(obj, '__qualname__', None)}"


def _is_rustape_module(name: str) -> bool:
    return name == "rustape" or name.startswith("rustape.")


def _rustape_functions() -> dict[int, str]:
    """Every function rustape's loaded modules hold (as attributes, or as values of their
    module-level dicts: Keras activations by name), by id, with the name it is saved under."""
    found: dict[int, str] = {}
    for module_name, module in sorted(sys.modules.items()):
        if not _is_rustape_module(module_name) or module is None:
            continue
        for attr, value in sorted(vars(module).items()):
            if callable(value) and not isinstance(value, type):
                found.setdefault(id(value), f"{module_name}:{attr}")
            elif isinstance(value, dict) and not attr.startswith("__"):
                for key, item in value.items():
                    if isinstance(key, str) and callable(item) and not isinstance(item, type):
                        found.setdefault(id(item), f"{module_name}:{attr}[{key}]")
    return found


def _resolve_rustape_function(name: str) -> Any:
    module_name, _, path = name.partition(":")
    module = sys.modules.get(module_name) if _is_rustape_module(module_name) else None
    if module is None:
        return None
    if path.endswith("]") and "[" in path:
        table, _, key = path[:-1].partition("[")
        value = vars(module).get(table)
        item = value.get(key) if isinstance(value, dict) else None
        return item if callable(item) else None
    value = vars(module).get(path)
    return value if callable(value) and not isinstance(value, type) else None


def _rustape_bases() -> tuple[type, ...]:
    """rustape's classes: they and the program's own subclasses of them may be restored."""
    return tuple(
        value
        for module_name, module in list(sys.modules.items())
        if _is_rustape_module(module_name) and module is not None
        for value in vars(module).values()
        if isinstance(value, type) and _is_rustape_module(getattr(value, "__module__", ""))
    )


def _find_class(name: str) -> type | None:
    """The class `module:qualname` if the running program has defined it (no import)."""
    module_name, _, qualname = name.partition(":")
    obj: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        if obj is None or part == "<locals>":
            return None
        obj = vars(obj).get(part) if hasattr(obj, "__dict__") else None
    return obj if isinstance(obj, type) else None


# -- saving ---------------------------------------------------------------------------------


class _Encoder:
    def __init__(self, allow_pickle: bool) -> None:
        self.allow_pickle = allow_pickle
        self.arrays: dict[str, _np.ndarray] = {}
        self.objects: list[Any] = []
        self.memo: dict[int, int] = {}
        self.keep: list[Any] = []  # objects whose ids are memo keys stay alive while saving
        self.functions = _rustape_functions()

    def array(self, value: _np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        if value.dtype.kind not in "biufc":
            raise TypeError(
                f"saved_model.save: cannot store an array of dtype {value.dtype} safely"
            )
        self.arrays[key] = _np.ascontiguousarray(value)
        return key

    def encode(self, value: Any, depth: int = 0) -> Any:
        if depth > 500:
            raise ValueError("saved_model.save: the object is nested more than 500 levels deep")
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return value if abs(value) < 2**53 else {"kind": "int", "text": str(value)}
        if isinstance(value, float):
            return {"kind": "float", "hex": value.hex()}
        if id(value) in self.memo:
            return {"ref": self.memo[id(value)]}
        index = len(self.objects)
        self.memo[id(value)] = index
        self.keep.append(value)
        self.objects.append(None)
        self.objects[index] = self.describe(value, depth)
        return {"ref": index}

    def describe(self, value: Any, depth: int) -> dict[str, Any]:
        enc = lambda v: self.encode(v, depth + 1)
        if isinstance(value, _rt.Variable):
            return {
                "kind": "variable",
                "array": self.array(_np.array(value.numpy())),
                "dtype": value.dtype.name,
                "trainable": bool(value.trainable),
                "name": str(value.name),
            }
        if isinstance(value, _rt.Tensor):
            return {
                "kind": "tensor",
                "array": self.array(_np.array(value.numpy())),
                "dtype": value.dtype.name,
            }
        if isinstance(value, _rt.DType):
            return {"kind": "dtype", "name": value.name}
        if isinstance(value, _np.ndarray):
            return {"kind": "ndarray", "array": self.array(value)}
        if isinstance(value, _np.generic):
            return {"kind": "npscalar", "array": self.array(_np.asarray(value))}
        if isinstance(value, complex):
            return {"kind": "complex", "real": enc(value.real), "imag": enc(value.imag)}
        if isinstance(value, bytes):
            return {"kind": "bytes", "base64": base64.b64encode(value).decode("ascii")}
        if type(value) in (list, tuple, set, frozenset):
            return {"kind": type(value).__name__, "items": [enc(v) for v in value]}
        if type(value) is dict:
            return {"kind": "dict", "items": [[enc(k), enc(v)] for k, v in value.items()]}
        if isinstance(value, type):
            return {"kind": "class", "name": _name_of(value)}
        if isinstance(value, enum.Enum):
            return {"kind": "enum", "class": _name_of(type(value)), "name": value.name}
        if inspect.ismethod(value):
            return {"kind": "method", "self": enc(value.__self__), "name": value.__func__.__name__}
        if inspect.isfunction(value) or inspect.isbuiltin(value):
            return self.function(value)
        state = getattr(value, "__dict__", None)
        if isinstance(state, dict) and _plain_state(type(value)):
            return {
                "kind": "object",
                "class": _name_of(type(value)),
                "state": [[name, enc(v)] for name, v in state.items()],
            }
        return self.pickled(value, "its state is not its attribute dictionary")

    def function(self, value: Any) -> dict[str, Any]:
        name = self.functions.get(id(value))
        if name is not None:
            return {"kind": "function", "name": name}
        qualname = getattr(value, "__qualname__", "")
        module = getattr(value, "__module__", None)
        if module and qualname and "<" not in qualname:
            # The program's own function, by name: loading needs it in custom_objects.
            return {"kind": "function", "name": f"{module}:{qualname}"}
        return self.pickled(value, "a lambda or nested function has no name to store")

    def pickled(self, value: Any, why: str) -> dict[str, Any]:
        if not self.allow_pickle:
            raise TypeError(
                f"saved_model.save: cannot store {type(value).__name__} {_short(value)} safely ({why}); "
                "save it with options=rt.saved_model.SaveOptions(allow_pickle=True) (loading then "
                "needs LoadOptions(allow_pickle=True), which runs code from the file)"
            )
        buffer = io.BytesIO()
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        return {"kind": "pickle", "base64": base64.b64encode(buffer.getvalue()).decode("ascii")}


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def _plain_state(cls: type) -> bool:
    """Whether an instance's state is its `__dict__` and nothing else: a class defined in
    Python, without slots or its own pickling protocol."""
    return (
        bool(cls.__flags__ & _HEAP_TYPE)
        and not any("__slots__" in vars(c) for c in cls.__mro__[:-1])
        and all(
            getattr(cls, name, None) is getattr(object, name, None)
            for name in ("__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")
        )
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


class _Pickler(pickle.Pickler):
    """Pickles tensors and variables by value (only with `allow_pickle`)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, _rt.Variable):
            return _restore_variable, (
                _np.array(obj.numpy()),
                obj.dtype.name,
                bool(obj.trainable),
                str(obj.name),
            )
        if isinstance(obj, _rt.Tensor):
            return _restore_tensor, (_np.array(obj.numpy()), obj.dtype.name)
        return NotImplemented


def _restore_tensor(array: Any, dtype: str) -> Any:
    return _rt.constant(array, dtype=_rt.as_dtype(dtype))


def _restore_variable(array: Any, dtype: str, trainable: bool, name: str) -> Any:
    name = name.removesuffix(":0")
    return _rt.Variable(_restore_tensor(array, dtype), trainable=trainable, name=name)


def _check_not_a_link(path: str) -> None:
    if os.path.islink(path):
        raise OSError(f"saved_model.save: {path!r} is a symbolic link; save does not follow links")


def _write_atomically(directory: str, name: str, write: Callable[[Any], None]) -> None:
    """Writes `directory/name` through a fresh temporary file renamed over it: a symbolic link
    planted at the name is replaced, never followed."""
    target = os.path.join(directory, name)
    _check_not_a_link(target)
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def save(
    obj: Any, export_dir: str, signatures: Any = None, options: SaveOptions | None = None
) -> None:
    """Writes `obj` with its tensors' and variables' values to the directory `export_dir`.

    A TypeError names the first object with no safe form (see the module's documentation)
    unless `options=SaveOptions(allow_pickle=True)`. A symbolic link at `export_dir` or at a
    file inside it is refused (OSError), never followed.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m")
    >>> rt.saved_model.save({"w": rt.Variable([1.0])}, path)
    >>> sorted(os.listdir(path))
    ['saved_model.json', 'variables.npz']
    """
    options = options or SaveOptions()
    export_dir = os.fspath(export_dir)
    _check_not_a_link(export_dir)
    encoder = _Encoder(options.allow_pickle)
    root = encoder.encode(obj)
    manifest = {"format": _FORMAT, "version": _VERSION, "root": root, "objects": encoder.objects}
    text = json.dumps(manifest, allow_nan=False, separators=(",", ":"))
    os.makedirs(export_dir, exist_ok=True)
    _check_not_a_link(export_dir)
    buffer = io.BytesIO()
    arrays: dict[str, Any] = encoder.arrays
    _np.savez(buffer, **arrays)
    _write_atomically(export_dir, ARRAYS, lambda fh: fh.write(buffer.getvalue()))
    _write_atomically(export_dir, MANIFEST, lambda fh: fh.write(text.encode("utf-8")))
    legacy = os.path.join(export_dir, _LEGACY_PICKLE)
    if os.path.lexists(legacy):
        os.unlink(legacy)


# -- loading --------------------------------------------------------------------------------


def _custom_table(custom_objects: Any) -> dict[str, Any]:
    if custom_objects is None:
        return {}
    if isinstance(custom_objects, Mapping):
        return {str(k): v for k, v in custom_objects.items()}
    if isinstance(custom_objects, Iterable) and not isinstance(custom_objects, (str, bytes)):
        return {_name_of(v): v for v in custom_objects}
    raise TypeError(
        "saved_model.load: custom_objects must be a list of classes and functions, or a dict"
    )


class _Decoder:
    def __init__(
        self, manifest: dict[str, Any], arrays: Any, options: LoadOptions, custom: dict[str, Any]
    ) -> None:
        self.objects = manifest["objects"]
        self.arrays = arrays
        self.options = options
        self.custom = custom
        self.done: dict[int, Any] = {}
        self.bases: tuple[type, ...] | None = None

    def bad(self, message: str) -> ValueError:
        return ValueError(f"saved_model.load: {message}")

    def decode(self, value: Any, depth: int = 0) -> Any:
        if depth > 600:
            raise self.bad("the saved object is nested too deeply")
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return value
        if not isinstance(value, dict):
            raise self.bad(f"unexpected entry {_short(value)}")
        kind = value.get("kind")
        if kind == "int":
            return int(str(value["text"]))
        if kind == "float":
            return float.fromhex(str(value["hex"]))
        if "ref" in value:
            index = value["ref"]
            if not isinstance(index, int) or not 0 <= index < len(self.objects):
                raise self.bad(f"reference {index!r} out of range")
            if index not in self.done:
                self.build(index, depth)
            return self.done[index]
        raise self.bad(f"unexpected entry {_short(value)}")

    def array(self, key: Any) -> _np.ndarray:
        if not isinstance(key, str) or key not in self.arrays.files:
            raise self.bad(f"missing array {key!r}")
        return self.arrays[key]

    def dtype(self, name: Any) -> Any:
        try:
            return _rt.as_dtype(str(name))
        except (TypeError, ValueError) as e:
            raise self.bad(f"unknown dtype {name!r}") from e

    def build(self, index: int, depth: int) -> None:
        entry = self.objects[index]
        if not isinstance(entry, dict):
            raise self.bad(f"object {index} is not a mapping")
        kind = entry.get("kind")
        dec = lambda v: self.decode(v, depth + 1)
        done = self.done
        if kind == "tensor":
            done[index] = _rt.constant(self.array(entry["array"]), dtype=self.dtype(entry["dtype"]))
        elif kind == "variable":
            name = str(entry.get("name", "Variable"))
            name = name.removesuffix(":0")
            value = _rt.constant(self.array(entry["array"]), dtype=self.dtype(entry["dtype"]))
            done[index] = _rt.Variable(
                value, trainable=bool(entry.get("trainable", True)), name=name
            )
        elif kind == "dtype":
            done[index] = self.dtype(entry["name"])
        elif kind == "ndarray":
            done[index] = _np.array(self.array(entry["array"]))
        elif kind == "npscalar":
            done[index] = self.array(entry["array"])[()]
        elif kind == "complex":
            done[index] = complex(float(dec(entry["real"])), float(dec(entry["imag"])))
        elif kind == "bytes":
            done[index] = base64.b64decode(str(entry["base64"]))
        elif kind == "list":
            items: list[Any] = []
            done[index] = items
            items.extend(dec(v) for v in entry["items"])
        elif kind == "dict":
            table: dict[Any, Any] = {}
            done[index] = table
            for pair in entry["items"]:
                key, item = pair
                table[dec(key)] = dec(item)
        elif kind in ("tuple", "set", "frozenset"):
            contents = [dec(v) for v in entry["items"]]
            done[index] = {"tuple": tuple, "set": set, "frozenset": frozenset}[kind](contents)
        elif kind == "class":
            done[index] = self.cls(str(entry["name"]))
        elif kind == "function":
            done[index] = self.function(str(entry["name"]))
        elif kind == "method":
            owner = dec(entry["self"])
            done[index] = getattr(owner, str(entry["name"]))
        elif kind == "enum":
            member = getattr(self.cls(str(entry["class"])), str(entry["name"]), None)
            if not isinstance(member, enum.Enum):
                raise self.bad(f"{entry['name']!r} is not a member of {entry['class']!r}")
            done[index] = member
        elif kind == "object":
            made: Any = self.cls(str(entry["class"]))
            obj = object.__new__(made) if made.__new__ is object.__new__ else made.__new__(made)
            done[index] = obj
            state = {str(name): dec(v) for name, v in entry["state"]}
            obj.__dict__.update(state)
        elif kind == "pickle":
            if not self.options.allow_pickle:
                raise self.bad(
                    "this model holds pickled Python objects, and unpickling runs code the file "
                    "chooses; load it with options=rt.saved_model.LoadOptions(allow_pickle=True) "
                    "only if you trust the file"
                )
            done[index] = pickle.loads(base64.b64decode(str(entry["base64"])))
        else:
            raise self.bad(f"unknown object kind {kind!r}")

    def cls(self, name: str) -> type:
        if name in self.custom and isinstance(self.custom[name], type):
            return self.custom[name]
        cls = _find_class(name)
        if cls is not None:
            if self.bases is None:
                self.bases = _rustape_bases()
            if _is_rustape_module(cls.__module__) or issubclass(cls, self.bases):
                return cls
        raise self.bad(
            f"the model refers to the class {name!r}, which is neither rustape's nor a subclass "
            "of one that this program defines; pass it in custom_objects to allow it"
        )

    def function(self, name: str) -> Any:
        if name in self.custom and callable(self.custom[name]):
            return self.custom[name]
        found = _resolve_rustape_function(name)
        if found is not None:
            return found
        raise self.bad(
            f"the model refers to the function {name!r}, which is not rustape's; pass it in "
            "custom_objects to allow it"
        )


def load(
    export_dir: str,
    tags: Any = None,
    options: LoadOptions | None = None,
    custom_objects: Any = None,
) -> Any:
    """The object saved in `export_dir` by `save`. Runs no code from the file (see the module's
    documentation for what it restores and how to allow more).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m")
    >>> rt.saved_model.save({"w": rt.Variable([1.0], name="w")}, path)
    >>> rt.saved_model.load(path)["w"].numpy().tolist()
    [1.0]
    """
    options = options or LoadOptions()
    custom = _custom_table(options.custom_objects)
    custom.update(_custom_table(custom_objects))
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, MANIFEST)
    if not os.path.exists(path):
        if os.path.exists(os.path.join(export_dir, _LEGACY_PICKLE)):
            return _load_legacy(export_dir, options)
        raise OSError(
            f"SavedModel file does not exist at: {export_dir} (no {MANIFEST}; was it written by "
            "rt.saved_model.save?)"
        )
    try:
        with open(path, "rb") as fh:
            manifest = json.loads(fh.read().decode("utf-8"))
    except (ValueError, RecursionError, UnicodeDecodeError) as e:
        raise ValueError(
            f"saved_model.load: {path} is not a rustape SavedModel manifest ({e})"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        raise ValueError(f"saved_model.load: {path} is not a rustape SavedModel manifest")
    if manifest.get("version") != _VERSION or not isinstance(manifest.get("objects"), list):
        raise ValueError(
            f"saved_model.load: unsupported SavedModel version {manifest.get('version')!r}"
        )
    with _np.load(os.path.join(export_dir, ARRAYS), allow_pickle=False) as arrays:
        decoder = _Decoder(manifest, arrays, options, custom)
        try:
            return decoder.decode(manifest.get("root"))
        except RecursionError:
            raise ValueError("saved_model.load: the saved object is nested too deeply") from None
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError(
                f"saved_model.load: a malformed manifest ({type(e).__name__}: {e})"
            ) from None


def _load_legacy(export_dir: str, options: LoadOptions) -> Any:
    if not options.allow_pickle:
        raise ValueError(
            f"saved_model.load: {export_dir} was written by an earlier rustape as a pickle, and "
            "unpickling runs code the file chooses; load it with "
            "options=rt.saved_model.LoadOptions(allow_pickle=True) only if you trust the file"
        )
    with open(os.path.join(export_dir, _LEGACY_PICKLE), "rb") as fh:
        return pickle.load(fh)
