"""`rt.keras.Model`, `Sequential` and `Input`: containers of layers, with Keras 3's three forms.

- Subclassing: layers (and variables) assigned to attributes, in lists, tuples and dicts to any
  depth, are found; `call(inputs, training=...)` is yours.
- `Sequential([layers])`, optionally starting with `rt.keras.Input(shape=...)`.
- Functional: `Model(inputs, outputs)` over symbolic tensors from `rt.keras.Input`.

Weights save to `.npz` (`save_weights`), read back with `allow_pickle=False`: loading never runs
code.

>>> import rustape as rt
>>> model = rt.keras.Sequential([rt.keras.Input(shape=(3,)), rt.keras.layers.Dense(2)])
>>> model(rt.ones([4, 3])).shape
(4, 2)
>>> sum(int(w.size) for w in model.get_weights())
8
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .. import _rustape as _rt
from ._model_config import build_spec, functional_config, sequential_config
from ._util import _snake, _unique_name
from .functional import (
    Input,
    InputLayer,
    KerasTensor,
    _accepts,
    _flatten,
    _map,
    _Node,
    is_symbolic,
    keras_layer_order,
    symbolic_call,
)
from .layers.base import Layer
from .trainer import Trainer

__all__ = ["Input", "InputLayer", "KerasTensor", "Model", "Sequential", "load_model"]


def _count(variables: Sequence[Any]) -> int:
    total = 0
    for v in variables:
        n = 1
        for d in v.shape:
            n *= int(d)
        total += n
    return total


class Model(Trainer, Layer):
    """A model: subclass it (layers in attributes, your own `call`), or build it functionally
    with `Model(inputs, outputs)`.

    >>> import rustape as rt
    >>> class Net(rt.keras.Model):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.blocks = [rt.keras.layers.Dense(4), {"head": rt.keras.layers.Dense(1)}]
    ...     def call(self, x):
    ...         return self.blocks[1]["head"](self.blocks[0](x))
    >>> net = Net()
    >>> net(rt.ones([2, 3])).shape
    (2, 1)
    >>> len(net.trainable_variables)
    4
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        name = kwargs.pop("name", None)
        trainable = kwargs.pop("trainable", True)
        dtype = kwargs.pop("dtype", None)
        if kwargs:
            raise TypeError(f"Model got unexpected keyword arguments: {sorted(kwargs)}")
        super().__init__(
            name=name if name is not None else _unique_name(_snake(type(self).__name__)),
            dtype=dtype,
            trainable=trainable,
        )
        self._functional: tuple[Any, Any, list[_Node]] | None = None
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("Model(inputs, outputs): give both, or neither to subclass")
            self._functional = (inputs, outputs, self._graph(inputs, outputs))
            self.built = True

    # -- the functional graph --------------------------------------------------------------
    @staticmethod
    def _graph(inputs: Any, outputs: Any) -> list[_Node]:
        """The nodes from `inputs` to `outputs`, each after the nodes it reads (explicit stack)."""
        input_ids = {id(x) for x in _flatten(inputs)}
        for x in _flatten(inputs):
            if not getattr(x, "_keras_symbolic", False):
                raise TypeError(
                    f"Model inputs must come from rt.keras.Input, got {type(x).__name__}"
                )
        order: list[_Node] = []
        state: dict[int, int] = {}
        stack: list[tuple[_Node, bool]] = []
        for out in _flatten(outputs):
            if not getattr(out, "_keras_symbolic", False):
                raise TypeError(f"Model outputs must be symbolic tensors, got {type(out).__name__}")
            if out.node is None:
                if id(out) not in input_ids:
                    raise ValueError(f"Model output {out} is not connected to the inputs")
                continue
            stack.append((out.node, False))
        while stack:
            node, expanded = stack.pop()
            key = id(node)
            if expanded:
                if state.get(key) != 2:
                    state[key] = 2
                    order.append(node)
                continue
            if state.get(key):
                continue
            state[key] = 1
            stack.append((node, True))
            for x in node.symbols():
                if x.node is None:
                    if id(x) not in input_ids:
                        raise ValueError(
                            f"Model: the graph needs input {x.name!r}, which is not among the "
                            "model's inputs"
                        )
                    continue
                if not state.get(id(x.node)):
                    stack.append((x.node, False))
        return order

    def _run_graph(self, inputs: Any, training: Any) -> Any:
        sym_inputs, sym_outputs, nodes = self._functional  # type: ignore[misc]
        values: dict[int, Any] = {}
        sym_flat = _flatten(sym_inputs)
        if isinstance(sym_inputs, dict) and isinstance(inputs, dict):
            real_flat = [inputs[k] for k in sym_inputs]
        else:
            real_flat = _flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(real_flat) != len(sym_flat):
            raise ValueError(
                f"Model {self.name}: expected {len(sym_flat)} inputs, got {len(real_flat)}"
            )
        for s, r in zip(sym_flat, real_flat):
            # As tensors: a layer given a list of inputs (Add) takes a list of tensors.
            values[id(s)] = (
                r if isinstance(r, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(r)
            )

        def value_of(x: Any) -> Any:
            return values[id(x)] if getattr(x, "_keras_symbolic", False) else x

        for node in nodes:
            kwargs = {k: _map(v, value_of) for k, v in node.kwargs.items()}
            if training is not None and _accepts(node.layer.call, "training"):
                kwargs["training"] = training
            out = node.layer(_map(node.inputs, value_of), *_map(node.args, value_of), **kwargs)
            # Outputs are matched to the node's symbolic outputs by position.
            for sym, real in zip(node.outputs, _flatten(out)):
                values[id(sym)] = real
        return _map(sym_outputs, lambda x: values[id(x)])

    # -- calling -----------------------------------------------------------------------------
    def __call__(self, inputs: Any, *args: Any, training: Any = None, **kwargs: Any) -> Any:
        if is_symbolic(inputs):
            if training is not None:
                kwargs["training"] = training
            return symbolic_call(self, inputs, *args, **kwargs)
        if isinstance(training, _rt.Tensor):
            training = bool(training.numpy())
        self._remember_inputs(inputs)
        if not self.built:
            if type(self).build is not Model.build:
                first = _flatten(inputs)[0]
                self.build(tuple(getattr(first, "shape", np.shape(first))))
            self.built = True
        if training is not None and _accepts(self.call, "training"):
            kwargs["training"] = training
        return self.call(inputs, *args, **kwargs)

    def _remember_inputs(self, inputs: Any) -> None:
        # What the first call took: a loaded model is built by a call on inputs like it.
        if "_build_inputs" not in self.__dict__:
            self.__dict__["_build_inputs"] = build_spec(inputs)

    def get_config(self) -> dict[str, Any]:
        """A functional model's graph (its inputs, layers, calls and outputs); for a subclass,
        its constructor arguments (as `Layer.get_config`).

        >>> import rustape as rt
        >>> x = rt.keras.Input(shape=(3,))
        >>> config = rt.keras.Model(x, rt.keras.layers.Dense(2)(x)).get_config()
        >>> len(config["layers"]), len(config["nodes"])
        (1, 1)
        """
        if self._functional is not None and type(self) is Model:
            return functional_config(self)
        return super().get_config()

    def save(self, filepath: Any, overwrite: bool = True, **kwargs: Any) -> None:
        """Writes the whole model to a `.keras` file: config, weights and, when compiled, the
        optimizer with its state (`rt.keras.models.load_model` reads it back; see
        `rt.keras.saving`)."""
        from .saving import save_model

        save_model(self, filepath, overwrite=overwrite)

    def call(self, inputs: Any, training: Any = None, **kwargs: Any) -> Any:
        """The forward pass (override it when subclassing)."""
        if self._functional is None:
            raise NotImplementedError(f"Model {self.name}: subclasses define call(inputs, ...)")
        return self._run_graph(inputs, training)

    def build(self, input_shape: Any) -> None:
        """Creates the weights for `input_shape` (override when subclassing)."""
        self.built = True

    # -- tracking ----------------------------------------------------------------------------
    def _tracked(self) -> Iterator[tuple[Any, bool]]:
        """Every layer and variable reachable from this model (any depth), with whether it is
        trainable given its owners."""
        return _walk([(x, self.trainable) for x, _ in self._direct()], {id(self)})

    def _direct(self) -> list[tuple[Any, bool]]:
        """What `_tracked` visits first: the graph's layers, attributes, own weights."""
        out: list[Any] = []
        if self._functional is not None:
            out += keras_layer_order(self._functional[2], self._functional[1])
        out += [v for k, v in self.__dict__.items() if k not in ("_variables", "_functional")]
        out += list(self._variables)
        return [(x, True) for x in out]

    @property
    def layers(self) -> list[Any]:
        """The direct sublayers, in the order they were assigned (or called, functionally)."""
        found: list[Any] = []
        seen = set()
        for item, _ in self._direct():
            for x in _flatten(item) if isinstance(item, (list, tuple, dict)) else [item]:
                if isinstance(x, Layer) and id(x) not in seen:
                    seen.add(id(x))
                    found.append(x)
        return found

    @property
    def input_shape(self) -> Any:
        """The shape of the symbolic input(s), batch axis first (None when not fixed)."""
        return _map(self._symbolic_ends("input_shape")[0], lambda x: x.shape)

    @property
    def output_shape(self) -> Any:
        """The shape of the symbolic output(s), batch axis first (None when not fixed).

        >>> import rustape as rt
        >>> x = rt.keras.Input(shape=(3,))
        >>> rt.keras.Model(x, rt.keras.layers.Dense(2)(x)).output_shape
        (None, 2)
        """
        return _map(self._symbolic_ends("output_shape")[1], lambda x: x.shape)

    def _symbolic_ends(self, what: str) -> tuple[Any, Any]:
        if self._functional is None:
            raise AttributeError(
                f"{type(self).__name__} '{self.name}' has no {what}: only a model built on "
                "rt.keras.Input (functional, or a Sequential starting with an Input or a layer "
                "given input_shape=) has symbolic inputs and outputs"
            )
        return self._functional[0], self._functional[1]

    @property
    def variables(self) -> list[Any]:
        """Every variable of the model and its layers (each once)."""
        return [v for v, _ in self._tracked() if isinstance(v, _rt.Variable)]

    @property
    def trainable_variables(self) -> list[Any]:
        """The variables a tape should watch and an optimizer update."""
        return [v for v, t in self._tracked() if isinstance(v, _rt.Variable) and t]

    @property
    def non_trainable_variables(self) -> list[Any]:
        """Variables not trained (moving statistics, frozen layers)."""
        return [v for v, t in self._tracked() if isinstance(v, _rt.Variable) and not t]

    @property
    def weights(self) -> list[Any]:
        return self.variables

    @property
    def trainable_weights(self) -> list[Any]:
        return self.trainable_variables

    @property
    def non_trainable_weights(self) -> list[Any]:
        return self.non_trainable_variables

    # -- weights -----------------------------------------------------------------------------
    def get_weights(self) -> list[np.ndarray]:
        """Every variable's value as a NumPy array, in `variables` order."""
        return [np.array(v.numpy()) for v in self.variables]

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Assigns `weights` (arrays in `variables` order; shapes must match)."""
        variables = self.variables
        weights = list(weights)
        if len(weights) != len(variables):
            raise ValueError(
                f"Model {self.name}: set_weights got {len(weights)} arrays for "
                f"{len(variables)} variables"
            )
        for v, w in zip(variables, weights):
            w = np.asarray(w)
            if tuple(w.shape) != tuple(v.shape):
                raise ValueError(
                    f"Model {self.name}: variable {v.name} has shape {tuple(v.shape)}, the weight "
                    f"given {tuple(w.shape)}"
                )
            v.assign(w.astype(np.dtype(v.dtype.name)))

    def save_weights(self, filepath: str, overwrite: bool = True) -> None:
        """Writes every variable to `filepath`: Keras's HDF5 layout for a name ending in `.h5`
        (`model.weights.h5`, which Keras 3's `load_weights` reads, optimizer state included;
        needs `pip install rustape[h5]`), otherwise NumPy's `.npz` format (no pickled
        objects)."""
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f"save_weights: {filepath} exists and overwrite=False")
        if os.fspath(filepath).endswith(".h5"):
            from ._keras_format import keras_layout, optimizer_layout, write_weights

            write_weights(filepath, keras_layout(self) + optimizer_layout(self))
            return
        arrays = {f"{i:05d}:{v.name}": np.asarray(v.numpy()) for i, v in enumerate(self.variables)}
        with open(filepath, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]

    def load_weights(self, filepath: str, skip_mismatch: bool = False) -> None:
        """Reads weights written by `save_weights` or by Keras 3 (a `.weights.h5` file, by
        Keras's layout: each variable at its layer's path, shapes checked, the optimizer's
        state too when the model is compiled; needs `pip install rustape[h5]`), tf.keras 2's
        legacy `.h5` weights (the pretrained `keras.applications` files: layers by position;
        `skip_mismatch=True` leaves layers whose shapes differ as they are), or a `.npz`
        file (with `allow_pickle=False`: nothing in the file can run code), matching variables
        by position and checking shapes."""
        if os.fspath(filepath).endswith(".h5"):
            from ._keras_format import WeightStore, load_weights_from

            store = WeightStore(os.fspath(filepath), f"load_weights: {filepath}")
            try:
                from ._legacy_h5 import load_legacy_weights, weights_root

                if weights_root(store) is not None:  # tf.keras 2's layout (pretrained files)
                    load_legacy_weights(store, self, skip_mismatch=skip_mismatch)
                    return
                compiled = getattr(self, "optimizer", None) is not None
                load_weights_from(store, self, optimizer=compiled)
            finally:
                store.close()
            return
        with np.load(filepath, allow_pickle=False) as data:
            keys = sorted(data.files)
            self.set_weights([data[k] for k in keys])

    # -- summary -----------------------------------------------------------------------------
    def _layer_rows(self) -> list[tuple[str, str, int]]:
        rows = []
        shapes: dict[int, Any] = {}
        if self._functional is not None:
            for node in self._functional[2]:
                outs = node.outputs
                if outs:
                    shapes[id(node.layer)] = (
                        outs[0].shape if len(outs) == 1 else [o.shape for o in outs]
                    )
        shapes.update(getattr(self, "_output_shapes", {}))
        for layer in self.layers:
            params = (
                _count(layer.variables)
                if isinstance(layer, Model)
                else _count([v for v, _ in _layer_vars(layer)])
            )
            shape = shapes.get(id(layer), "?")
            rows.append((f"{layer.name} ({type(layer).__name__})", str(shape), params))
        return rows

    def summary(self, line_length: int = 80, print_fn: Any = None) -> None:
        """Prints Keras's table: each layer, its output shape and parameter count, then totals."""
        emit = print_fn if print_fn is not None else print
        widths = [int(line_length * 0.45), int(line_length * 0.33)]
        widths.append(line_length - sum(widths) - 4)

        def row(cells: Sequence[str], left: str, mid: str, right: str) -> str:
            parts = []
            for i, (c, w) in enumerate(zip(cells, widths)):
                parts.append(f" {c:>{w - 2}} " if i == 2 else f" {c:<{w - 2}} ")
            return left + mid.join(parts) + right

        def rule(left: str, mid: str, right: str, fill: str) -> str:
            return left + mid.join(fill * w for w in widths) + right

        lines = [
            f'Model: "{self.name}"',
            rule("┏", "┳", "┓", "━"),
            row(["Layer (type)", "Output Shape", "Param #"], "┃", "┃", "┃"),
            rule("┡", "╇", "┩", "━"),
        ]
        rows = self._layer_rows()
        for i, (name, shape, params) in enumerate(rows):
            lines.append(row([name, shape, f"{params:,}"], "│", "│", "│"))
            if i + 1 < len(rows):
                lines.append(rule("├", "┼", "┤", "─"))
        lines.append(rule("└", "┴", "┘", "─"))
        trainable = _count(self.trainable_variables)
        non_trainable = _count(self.non_trainable_variables)

        def size(n: int) -> str:
            b = 4 * n
            return (
                f"{b:,} B"
                if b < 1024
                else f"{b / 1024:.2f} KB"
                if b < 1024**2
                else f"{b / 1024**2:.2f} MB"
            )

        total = trainable + non_trainable
        lines += [
            f" Total params: {total:,} ({size(total)})",
            f" Trainable params: {trainable:,} ({size(trainable)})",
            f" Non-trainable params: {non_trainable:,} ({size(non_trainable)})",
        ]
        for line in lines:
            emit(line)

    def __repr__(self) -> str:
        return f"<rt.keras.{type(self).__name__} name={self.name!r} built={self.built}>"


def _walk(roots: list[tuple[Any, bool]], seen: set) -> Iterator[tuple[Any, bool]]:
    """Layers and variables reachable from `roots` through attributes, lists, tuples and dicts
    (explicit stack; each object once), with whether each is trainable given its owners."""
    stack = list(reversed(roots))
    while stack:
        item, trainable = stack.pop()
        if isinstance(item, (Layer, _rt.Variable, list, tuple, dict)):
            # Each object once: shared layers count once, and cycles end.
            if id(item) in seen:
                continue
            seen.add(id(item))
        if isinstance(item, _rt.Variable):
            yield item, trainable and item.trainable
        elif isinstance(item, Layer):
            inner = trainable and item.trainable
            yield item, inner
            if isinstance(item, Model):
                children = [x for x, _ in item._direct()]
            else:
                children = list(item._variables) + [
                    v
                    for k, v in item.__dict__.items()
                    if k != "_variables" and k not in item._untracked
                ]
            stack.extend((c, inner) for c in reversed(children))
        elif isinstance(item, dict):
            stack.extend((v, trainable) for v in reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, trainable) for v in reversed(item))


def _layer_vars(layer: Any) -> list[tuple[Any, bool]]:
    """A plain layer's variables, its sublayers' included."""
    return [(v, t) for v, t in _walk([(layer, True)], set()) if isinstance(v, _rt.Variable)]


class Sequential(Model):
    """A stack of layers, each called on the previous one's output.

    >>> import rustape as rt
    >>> model = rt.keras.Sequential([rt.keras.layers.Dense(4, activation="relu")])
    >>> model.add(rt.keras.layers.Dense(1))
    >>> model(rt.ones([2, 3])).shape
    (2, 1)
    """

    def __init__(
        self, layers: Sequence[Any] | None = None, name: str | None = None, trainable: bool = True
    ) -> None:
        super().__init__(
            name=name if name is not None else _unique_name("sequential"), trainable=trainable
        )
        self._layers: list[Any] = []
        self._input: KerasTensor | None = None
        self._symbolic: KerasTensor | None = None
        self._output_shapes: dict[int, Any] = {}
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Any) -> None:
        """Appends a layer (or `rt.keras.Input(...)` / an `InputLayer` as the first element)."""
        if isinstance(layer, InputLayer):
            layer = layer.output
        if getattr(layer, "_keras_symbolic", False):
            if self._layers or self._input is not None:
                raise ValueError("Sequential: an Input may only come first")
            self._input = self._symbolic = layer
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add: expected a Layer, got {type(layer).__name__}")
        shape = layer.__dict__.get("_input_shape_arg")
        if shape is not None and not self._layers and self._input is None:
            # Keras: a first layer given input_shape= starts the model with that Input.
            self.add(Input(batch_shape=shape, dtype=layer.dtype))
        self._layers.append(layer)
        if self._symbolic is not None:
            self._symbolic = layer(self._symbolic)
            self._output_shapes[id(layer)] = self._symbolic.shape
            self.built = True

    def pop(self) -> Any:
        """Removes and returns the last layer."""
        if not self._layers:
            raise TypeError("Sequential.pop: there are no layers")
        layer = self._layers.pop()
        self._output_shapes.pop(id(layer), None)
        return layer

    @property
    def layers(self) -> list[Any]:
        return list(self._layers)

    def _symbolic_ends(self, what: str) -> tuple[Any, Any]:
        if self._input is None or self._symbolic is None:
            raise AttributeError(
                f"Sequential '{self.name}' has no {what}: start it with rt.keras.Input(shape=...)"
                " or give its first layer input_shape="
            )
        return self._input, self._symbolic

    def _direct(self) -> list[tuple[Any, bool]]:
        return [(layer, True) for layer in self._layers]

    def call(self, inputs: Any, training: Any = None, **kwargs: Any) -> Any:
        x = inputs
        for layer in self._layers:
            if training is not None and _accepts(layer.call, "training"):
                x = layer(x, training=training)
            else:
                x = layer(x)
            if self._input is None:
                self._output_shapes[id(layer)] = (None,) + tuple(x.shape)[1:]
        return x

    def __call__(self, inputs: Any, *args: Any, training: Any = None, **kwargs: Any) -> Any:
        if is_symbolic(inputs):
            return symbolic_call(self, inputs, *args, **kwargs)
        if isinstance(training, _rt.Tensor):
            training = bool(training.numpy())
        self._remember_inputs(inputs)
        self.built = True
        return self.call(inputs, training=training)

    def get_config(self) -> dict[str, Any]:
        """The model's name, its first Input (if any) and each layer's config.

        >>> import rustape as rt
        >>> model = rt.keras.Sequential([rt.keras.Input(shape=(3,)), rt.keras.layers.Dense(2)])
        >>> [layer["class_name"] for layer in model.get_config()["layers"]]
        ['Dense']
        """
        return sequential_config(self)


def load_model(
    filepath: Any,
    custom_objects: dict[str, Any] | None = None,
    compile: bool = True,
    safe_mode: bool = True,
) -> Any:
    """Reads a model `Model.save` wrote (see `rt.keras.saving.load_model`).

    >>> import os, tempfile
    >>> import rustape as rt
    >>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
    >>> rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)]).save(path)
    >>> rt.keras.models.load_model(path).output_shape
    (None, 1)
    """
    from .saving import load_model as load

    return load(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)
