"""The functional form's symbolic side: `rt.keras.Input`, `KerasTensor`, and how a layer called
on symbolic tensors records a node of the graph `Model(inputs, outputs)` later runs.

>>> import rustape as rt
>>> x = rt.keras.Input(shape=(3,))
>>> y = rt.keras.layers.Dense(2)(x)
>>> y.shape
(None, 2)
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from .. import _rustape as _rt
from ._util import _as_dtype, _unique_name
from .layers.base import _parameters

__all__ = ["Input", "InputLayer", "KerasTensor"]


class KerasTensor:
    """A symbolic tensor: the shape and dtype a layer will see, before any data flows.

    >>> x = Input(shape=(28, 28, 1))
    >>> x.shape
    (None, 28, 28, 1)
    """

    _keras_symbolic = True

    def __init__(
        self, shape: tuple[Any, ...], dtype: Any, node: _Node | None = None, name: str | None = None
    ) -> None:
        self.shape = tuple(shape)
        self.dtype = dtype
        self.node = node
        self.name = name

    @property
    def ndim(self) -> int:
        """The number of axes (the batch axis included)."""
        return len(self.shape)

    def __repr__(self) -> str:
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, name={self.name}>"


class _Node:
    """One layer call in a functional graph: the layer, its (symbolic) inputs and arguments."""

    def __init__(
        self, layer: Any, inputs: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        self.layer = layer
        self.inputs = inputs
        self.args = args
        self.kwargs = kwargs
        self.outputs: list[KerasTensor] = []

    def symbols(self) -> list[Any]:
        """The symbolic tensors the call reads: in its inputs, and in its other arguments
        (`MultiHeadAttention(query, value)`)."""
        leaves = _flatten([self.inputs, list(self.args), list(self.kwargs.values())])
        return [x for x in leaves if getattr(x, "_keras_symbolic", False)]


def _flatten(structure: Any) -> list[Any]:
    """The leaves of nested lists/tuples/dicts, in order (explicit stack)."""
    out: list[Any] = []
    stack = [structure]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def _map(structure: Any, fn: Any) -> Any:
    if isinstance(structure, dict):
        return {k: _map(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map(v, fn) for v in structure)
    return fn(structure)


def is_symbolic(inputs: Any) -> bool:
    """Whether `inputs` (or any leaf of it) is a `KerasTensor`."""
    if getattr(inputs, "_keras_symbolic", False):
        return True
    if isinstance(inputs, (list, tuple, dict)):
        return any(getattr(x, "_keras_symbolic", False) for x in _flatten(inputs))
    return False


def _accepts(fn: Any, name: str) -> bool:
    # The signature of a layer's `call` is looked up once per function (a Sequential model
    # asks for every layer on every call): a bound method by its function, which keeps no
    # layer alive in the cache.
    func = getattr(fn, "__func__", fn)
    try:
        params = _parameters(func)
    except TypeError:  # an unhashable callable object
        try:
            params = tuple(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return False
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in params)


def symbolic_call(layer: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
    """Calls `layer` on symbolic inputs: builds it by running it once on a batch of zeros, and
    returns symbolic outputs of the shapes it produced (the batch axis unknown)."""

    def probe(x: Any) -> Any:
        if not getattr(x, "_keras_symbolic", False):
            return x
        shape = [1 if d is None else int(d) for d in x.shape]
        return _rt.zeros(shape, dtype=x.dtype)

    concrete = _map(inputs, probe)
    real_args = _map(args, probe)
    real_kwargs = {k: _map(v, probe) for k, v in kwargs.items() if k != "training"}
    outputs = layer(concrete, *real_args, **real_kwargs)
    node = _Node(layer, inputs, args, kwargs)
    first = _flatten(inputs)[0]
    batch = first.shape[0] if getattr(first, "_keras_symbolic", False) and first.shape else None

    def symbolic(t: Any) -> KerasTensor:
        shape = tuple(t.shape)
        if shape:
            shape = (batch,) + shape[1:]
        return KerasTensor(shape, t.dtype, node, name=getattr(layer, "name", None))

    result = _map(outputs, symbolic)
    node.outputs = _flatten(result)
    return result


class InputLayer:
    """The input of a `Sequential` model (`rt.keras.Input` makes its tensor).

    >>> InputLayer(input_shape=(3,)).output.shape
    (None, 3)
    """

    def __init__(
        self,
        input_shape: Sequence[Any] | None = None,
        batch_size: int | None = None,
        dtype: Any = None,
        name: str | None = None,
        shape: Sequence[Any] | None = None,
    ) -> None:
        shape = shape if shape is not None else input_shape
        if shape is None:
            raise ValueError("InputLayer: give `shape` (the shape of one sample)")
        self.name = name if name is not None else _unique_name("input_layer")
        self.output = KerasTensor((batch_size,) + tuple(shape), _as_dtype(dtype), None, self.name)
        self.output._input_layer = self  # type: ignore[attr-defined]


def Input(
    shape: Sequence[Any] | None = None,
    batch_size: int | None = None,
    dtype: Any = None,
    name: str | None = None,
    batch_shape: Sequence[Any] | None = None,
) -> KerasTensor:
    """A symbolic input of `shape` per sample (the batch axis is `batch_size`, None by default).

    >>> Input(shape=(3,), batch_size=8).shape
    (8, 3)
    """
    if batch_shape is not None:
        batch_size, shape = batch_shape[0], tuple(batch_shape[1:])
    return InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, name=name).output


def keras_layer_order(nodes: list[_Node], outputs: Any) -> list[Any]:
    """The layers of a functional graph in the order Keras lists them (`model.layers`, and so
    `model.weights` and the position-matched legacy weight files): farthest from the outputs
    first, ties broken by when a depth-first walk from the outputs (each call's inputs in
    order) first reaches the layer."""
    consumers: dict[int, list[_Node]] = {id(n): [] for n in nodes}
    for n in nodes:
        for x in n.symbols():
            if x.node is not None and id(x.node) in consumers:
                consumers[id(x.node)].append(n)
    # First-visit (preorder) index of each layer, walking from the outputs.
    first: dict[int, int] = {}
    seen: set[int] = set()
    stack = [x.node for x in reversed(_flatten(outputs)) if getattr(x, "node", None) is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        first.setdefault(id(node.layer), len(first))
        stack.extend(x.node for x in reversed(node.symbols()) if x.node is not None)
    # Depth: the longest path to an output; `nodes` runs inputs-first, so walk it backwards.
    depth: dict[int, int] = {}
    layer_depth: dict[int, int] = {}
    for node in reversed(nodes):
        d = max([depth[id(c)] + 1 for c in consumers[id(node)]], default=0)
        d = max(d, layer_depth.get(id(node.layer), 0))
        depth[id(node)] = d
        layer_depth[id(node.layer)] = max(layer_depth.get(id(node.layer), 0), d)
    layers: dict[int, Any] = {}
    for node in nodes:
        layers.setdefault(id(node.layer), node.layer)
    return sorted(
        layers.values(), key=lambda lay: (-layer_depth[id(lay)], first.get(id(lay), 1 << 60))
    )
