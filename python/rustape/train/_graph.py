"""The object graph of `rt.train.Checkpoint`: which objects hang under which names, as
TensorFlow's tracking names them for the same program (so checkpoints written by TensorFlow
for a Keras 3 model, a Keras optimizer or a `tf.Module` match rustape's objects, and back)."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from .._rustape import Variable

#: `tensorflow.DataType` codes by NumPy dtype name.
DTYPE_CODES = {
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 5,
    "int8": 6,
    "complex64": 8,
    "int64": 9,
    "bool": 10,
    "uint16": 17,
    "complex128": 18,
    "float16": 19,
    "uint32": 22,
    "uint64": 23,
}
NUMPY_DTYPES = {code: np.dtype(name) for name, code in DTYPE_CODES.items()}
DT_STRING = 7
VALUE = "VARIABLE_VALUE"

#: Attributes Keras 3 keeps under another name than rustape (its LoRA-ready layers).
_RENAMES = {
    "Dense": {"kernel": "_kernel"},
    "EinsumDense": {"kernel": "_kernel"},
    "Embedding": {"embeddings": "_embeddings"},
}
#: rustape's own lists of a layer's weights and sublayers (Keras tracks the attributes).
_LAYER_BOOKKEEPING = ("_variables", "_losses", "_regularizers", "_functional", "_layers")
#: Keras 3's attribute for each optimizer slot list, by rustape's slot name.
_SLOT_LISTS = {
    "momentum": "_momentums",
    "velocity": "_velocities",
    "velocity_hat": "_velocity_hats",
}


class _Node:
    """A node that exists in Keras's graph but holds nothing in rustape (a Sequential's inner
    functional, an InputLayer)."""

    def __init__(self, children: list[tuple[str, Any]] | None = None) -> None:
        self.children = children or []


def _is_trackable(value: Any) -> bool:
    from .._module import Module
    from ..keras.layers.base import Layer
    from ..keras.optimizers import Optimizer

    if isinstance(value, (Variable, Module, Layer, Optimizer, _Node)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_is_trackable(v) for v in value)
    if isinstance(value, dict):
        return any(_is_trackable(v) for v in value.values())
    return hasattr(value, "_checkpoint_children")


def _optimizer_children(opt: Any) -> list[tuple[str, Any]]:
    if not opt.built:
        return []
    built_with = list(opt.variables_built_with)
    out: list[tuple[str, Any]] = [
        ("_variables", list(opt.variables)),
        ("_trainable_variables", built_with),
        ("_iterations", opt.iterations),
    ]
    rate = opt._core.learning_rate_variable
    if rate is not None:
        out.append(("_learning_rate", rate))
    for slot, name in _SLOT_LISTS.items():
        slots = [opt.get_slot(v, slot) for v in built_with] if built_with else []
        if slots and all(s is not None for s in slots):
            out.append((name, slots))
    return out


def _attribute_children(obj: Any) -> list[tuple[str, Any]]:
    from ..keras.layers.base import Layer

    renames = _RENAMES.get(type(obj).__name__, {})
    skip = _LAYER_BOOKKEEPING if isinstance(obj, Layer) else ()
    return [
        (renames.get(name, name), value)
        for name, value in vars(obj).items()
        if not name.startswith("__") and name not in skip and _is_trackable(value)
    ]


def children(obj: Any) -> list[tuple[str, Any]]:
    """`obj`'s named children in TensorFlow's order of tracking."""
    from .._module import Module
    from ..keras.layers.base import Layer
    from ..keras.models import Sequential
    from ..keras.optimizers import Optimizer

    if isinstance(obj, Variable):
        return []
    if isinstance(obj, _Node):
        return obj.children
    if hasattr(obj, "_checkpoint_children"):
        return list(obj._checkpoint_children())
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _is_trackable(v)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if _is_trackable(v)]
    if isinstance(obj, Optimizer):
        return _optimizer_children(obj)
    if isinstance(obj, Sequential):
        return [("_functional", _Node([("_operations", [_Node(), *obj.layers])]))]
    if isinstance(obj, (Module, Layer)) or hasattr(obj, "__dict__"):
        return _attribute_children(obj)
    return []


def escape(name: str) -> str:
    """TensorFlow's escaping of a local name inside a checkpoint key."""
    return name.replace(".", "..").replace("/", ".S")


def build(root: Any) -> tuple[list[tuple], list[tuple[str, Any]]]:
    """The graph under `root` as `checkpoint_encode_graph` nodes, and the `(key, variable)`
    pairs to save: nodes numbered breadth first, a variable saved under its first path."""
    ids: dict[int, int] = {id(root): 0}
    objects: list[Any] = [root]
    paths: list[str] = [""]
    queue = deque([root])
    edges: list[list[tuple[int, str]]] = [[]]
    while queue:
        obj = queue.popleft()
        me = ids[id(obj)]
        for name, child in children(obj):
            if id(child) not in ids:
                ids[id(child)] = len(objects)
                objects.append(child)
                path = escape(name) if me == 0 else f"{paths[me]}/{escape(name)}"
                paths.append(path)
                edges.append([])
                queue.append(child)
            edges[me].append((ids[id(child)], name))
    values: list[tuple[str, Any]] = []
    attributes: list[list[tuple[str, str, str]]] = []
    for obj, path in zip(objects, paths):
        if isinstance(obj, Variable):
            key = f"{path}/.ATTRIBUTES/{VALUE}"
            name = obj.name.removesuffix(":0")
            attributes.append([(VALUE, name, key)])
            values.append((key, obj))
        else:
            attributes.append([])
    has = [bool(a) for a in attributes]
    for i in range(len(objects) - 1, -1, -1):
        has[i] = has[i] or any(has[c] for c, _ in edges[i] if c != i)
    # A child numbered before its parent (a shared object) was settled first; one more pass
    # covers a parent whose only values come through such a child.
    for i in range(len(objects) - 1, -1, -1):
        has[i] = has[i] or any(has[c] for c, _ in edges[i])
    nodes: list[tuple] = [(edges[i], attributes[i], [], has[i]) for i in range(len(objects))]
    return nodes, values


def to_row(key: str, value: Any) -> tuple[str, int, tuple[int, ...], bytes]:
    """A variable or array as a `checkpoint_write_bundle` row."""
    array = np.array(value, order="C", copy=True)
    code = DTYPE_CODES.get(array.dtype.name)
    if code is None:
        raise TypeError(f"rt.train.Checkpoint: cannot save {key!r} of dtype {array.dtype}")
    return (
        key,
        code,
        tuple(int(d) for d in array.shape),
        array.astype(array.dtype.newbyteorder("<")).tobytes(),
    )


def to_array(key: str, code: int, shape: Any, data: Any) -> Any:
    """A `checkpoint_read_bundle` row's value as a NumPy array (bytes objects for strings)."""
    if code == DT_STRING:
        return np.array(data, dtype=object).reshape(tuple(shape))
    dtype = NUMPY_DTYPES.get(code)
    if dtype is None:
        raise TypeError(f"checkpoint: {key!r} has dtype code {code}, which rustape cannot read")
    return np.frombuffer(data, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(tuple(shape))
