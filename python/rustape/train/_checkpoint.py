"""`rt.train.Checkpoint`: saves and restores objects in TensorFlow's checkpoint format."""

from __future__ import annotations

import os
from collections import deque
from typing import Any

import numpy as np

from .. import _rustape
from .._rustape import Variable
from . import _graph
from ._state import latest_checkpoint, update_state

GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


class _Reader:
    """A checkpoint's tensors and object graph, read once."""

    def __init__(self, path: str) -> None:
        prefix = _prefix(path)
        self.prefix = prefix
        self.rows = {k: (c, s, d) for k, c, s, d in _rustape.checkpoint_read_bundle(prefix)}
        graph = self.rows.get(GRAPH_KEY)
        if graph is None or graph[0] != _graph.DT_STRING or len(graph[2]) != 1:
            raise ValueError(
                f"checkpoint {prefix!r} has no object graph: it was not written by "
                "tf.train.Checkpoint (read it with rt.train.load_checkpoint)"
            )
        self.nodes = _rustape.checkpoint_decode_graph(graph[2][0])
        if not self.nodes:
            raise ValueError(f"checkpoint {prefix!r}: empty object graph")

    def array(self, key: str) -> Any:
        if key not in self.rows:
            raise ValueError(
                f"checkpoint {self.prefix!r}: the object graph names {key!r}, "
                "which the file does not hold"
            )
        return _graph.to_array(key, *self.rows[key])


def _prefix(path: Any) -> str:
    path = os.fspath(path)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"no checkpoint in directory {path!r}")
        return latest
    return path


class CheckpointLoadStatus:
    """What a `Checkpoint.restore` matched, with TensorFlow's assertions.

    >>> v = rt.Variable(1.0)
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> p = rt.train.Checkpoint(v=v).write(os.path.join(d, "c"))
    >>> rt.train.Checkpoint(v=v).restore(p).assert_consumed() is not None
    True
    """

    def __init__(self, root: Any, reader: _Reader, matched: dict[int, Any]) -> None:
        self._root = root
        self._reader = reader
        self._matched = matched

    def _unmatched_values(self) -> list[str]:
        return [
            a[2]
            for i, node in enumerate(self._reader.nodes)
            if i not in self._matched
            for a in node[1]
        ]

    def _unmatched_objects(self) -> list[str]:
        matched = {id(o) for o in self._matched.values()}
        _nodes, values = _graph.build(self._root)
        return [key for key, var in values if id(var) not in matched]

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Raises AssertionError unless every value of the checkpoint found an object and every
        variable under the root found a value."""
        missing = self._unmatched_values()
        if missing:
            raise AssertionError(f"Unresolved values in the checkpoint: {missing}")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Raises AssertionError unless every variable under the root found a value."""
        extra = self._unmatched_objects()
        if extra:
            raise AssertionError(f"Objects without a value in the checkpoint: {extra}")
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Raises AssertionError unless something besides the root matched."""
        if len(self._matched) <= 1:
            raise AssertionError("Nothing except the root object matched the checkpoint.")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Silences warnings about unmatched values (rustape gives none)."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """A no-op (values are restored eagerly)."""


def _assign(var: Any, value: Any, key: str) -> None:
    want = tuple(var.shape)
    if tuple(value.shape) != want:
        raise ValueError(
            f"checkpoint value {key!r} has shape {tuple(value.shape)}, the variable "
            f"{var.name!r} {want}"
        )
    dtype = np.dtype(var.dtype.name)
    if value.dtype != dtype:
        raise TypeError(
            f"checkpoint value {key!r} has dtype {value.dtype}, the variable {var.name!r} {dtype}"
        )
    var.assign(value)


def restore_into(root: Any, reader: _Reader) -> dict[int, Any]:
    """Matches the checkpoint's graph to the objects under `root` by child names, breadth
    first, and assigns every matched variable its value; returns node id -> object."""
    from ..keras.optimizers import Optimizer

    matched: dict[int, Any] = {0: root}
    pending: list[tuple[int, Any]] = []
    queue = deque([(0, root)])
    while queue:
        node_id, obj = queue.popleft()
        children, attributes, _slots, _has = reader.nodes[node_id]
        if isinstance(obj, Variable):
            for name, _full, key in attributes:
                if name == _graph.VALUE:
                    _assign(obj, reader.array(key), key)
        if isinstance(obj, Optimizer) and not obj.built:
            pending.append((node_id, obj))
        mine = dict(_graph.children(obj))
        for child_id, name in children:
            child = mine.get(name)
            if child is None and name.startswith("_"):
                child = mine.get(name[1:])
            if child is None or child_id in matched:
                continue
            matched[child_id] = child
            queue.append((child_id, child))
    for node_id, opt in pending:
        # An optimizer without slots yet: build it on the variables the checkpoint's
        # `_trainable_variables` name (matched elsewhere, as TensorFlow defers the restore).
        names = {n: c for c, n in reader.nodes[node_id][0]}
        listed = names.get("_trainable_variables")
        if listed is None:
            continue
        var_list = [matched.get(c) for c, _ in reader.nodes[listed][0]]
        if not var_list or not all(isinstance(v, Variable) for v in var_list):
            continue
        opt.build(var_list)
        del matched[node_id]
        sub = _SubRoot(opt)
        for k, v in restore_into_node(sub, reader, node_id, matched).items():
            matched[k] = v
    return matched


class _SubRoot:
    def __init__(self, obj: Any) -> None:
        self.obj = obj


def restore_into_node(sub: _SubRoot, reader: _Reader, node_id: int, done: dict) -> dict:
    """`restore_into` from node `node_id` matched to `sub.obj` (nodes in `done` skipped)."""
    out: dict[int, Any] = {node_id: sub.obj}
    queue = deque([(node_id, sub.obj)])
    while queue:
        nid, obj = queue.popleft()
        children, attributes, _slots, _has = reader.nodes[nid]
        if isinstance(obj, Variable):
            for name, _full, key in attributes:
                if name == _graph.VALUE:
                    _assign(obj, reader.array(key), key)
        mine = dict(_graph.children(obj))
        for child_id, name in children:
            child = mine.get(name)
            if child is None or child_id in out or (child_id in done and done[child_id] is child):
                continue
            out[child_id] = child
            queue.append((child_id, child))
    return out


class Checkpoint:
    """Saves and restores variables, modules, Keras models and optimizers (and lists and dicts
    of them) in TensorFlow's checkpoint format: `tf.train.Checkpoint` reads what this writes,
    and this reads what it writes, objects matched by their names in the object graph.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> v = rt.Variable([1.0, 2.0])
    >>> ckpt = rt.train.Checkpoint(v=v)
    >>> path = ckpt.save(os.path.join(d, "ckpt"))
    >>> os.path.basename(path)
    'ckpt-1'
    >>> _ = v.assign([0.0, 0.0])
    >>> _ = ckpt.restore(path)
    >>> v.numpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        if root is not None:
            kwargs = {**dict(_graph.children(root)), **kwargs}
        for name, value in kwargs.items():
            if not _graph._is_trackable(value):
                raise ValueError(
                    f"rt.train.Checkpoint: {name}={type(value).__name__} holds nothing to save "
                    "(give variables, modules, layers, models, optimizers or lists/dicts of them)"
                )
        self._children = dict(kwargs)
        self._save_counter: Any = None

    def __getattr__(self, name: str) -> Any:
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        raise AttributeError(name)

    def _checkpoint_children(self) -> list[tuple[str, Any]]:
        out = list(self._children.items())
        if self._save_counter is not None:
            out.append(("save_counter", self._save_counter))
        return out

    @property
    def save_counter(self) -> Any:
        """An int64 variable counting `save` calls (created on first use)."""
        if self._save_counter is None:
            self._save_counter = Variable(0, dtype=_int64(), trainable=False, name="save_counter")
        return self._save_counter

    def write(self, file_prefix: Any, options: Any = None) -> str:
        """Writes the objects to `file_prefix` (`.index` and `.data-00000-of-00001`), without
        touching `save_counter` or the `checkpoint` file; returns the prefix."""
        prefix = os.fspath(file_prefix)
        directory = os.path.dirname(prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        nodes, values = _graph.build(self)
        rows: list[tuple] = [_graph.to_row(key, var.numpy()) for key, var in values]
        rows.append((GRAPH_KEY, _graph.DT_STRING, (), [_rustape.checkpoint_encode_graph(nodes)]))
        _rustape.checkpoint_write_bundle(prefix, rows)
        return prefix

    def save(self, file_prefix: Any, options: Any = None) -> str:
        """Adds one to `save_counter`, writes `file_prefix-N` and records it in the directory's
        `checkpoint` file; returns the path written."""
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}")
        update_state(os.path.dirname(path) or ".", path, [path])
        return path

    def read(self, save_path: Any, options: Any = None) -> CheckpointLoadStatus:
        """Restores the values at `save_path` (as `restore`, kept for TensorFlow's name)."""
        return self.restore(save_path)

    def restore(self, save_path: Any, options: Any = None) -> CheckpointLoadStatus:
        """Assigns the saved values to the matching objects; `save_path` is a prefix or a
        directory (its latest checkpoint). Returns a `CheckpointLoadStatus`."""
        if save_path is None:
            return CheckpointLoadStatus(self, _EmptyReader(), {0: self})
        reader = _Reader(save_path)
        if self._save_counter is None and any(n == "save_counter" for _c, n in reader.nodes[0][0]):
            _ = self.save_counter
        return CheckpointLoadStatus(self, reader, restore_into(self, reader))


class _EmptyReader(_Reader):
    def __init__(self) -> None:
        self.prefix = ""
        self.rows = {}
        self.nodes = [([], [], [], None)]


def _int64() -> Any:
    from .. import int64

    return int64
