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
from .._tape import GradientTape as _GradientTape
from ._util import _snake, _unique_name, check_number
from .functional import (
    Input,
    InputLayer,
    KerasTensor,
    _accepts,
    _flatten,
    _map,
    _Node,
    is_symbolic,
    symbolic_call,
)
from .layers.base import Layer

__all__ = ["Input", "InputLayer", "KerasTensor", "Model", "Sequential"]


def _count(variables: Sequence[Any]) -> int:
    total = 0
    for v in variables:
        n = 1
        for d in v.shape:
            n *= int(d)
        total += n
    return total


def _batch_size(method: str, batch_size: Any) -> int:
    """`batch_size` as a positive int (None: Keras's 32)."""
    if batch_size is None:
        return 32
    return int(check_number(f"Model.{method}", "batch_size", batch_size, low=1, integer=True))


def _samples(method: str, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """`x` and `y` as arrays with a batch axis of the same length (ValueError otherwise)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(
            f"Model.{method}: `x` and `y` need a batch axis, got shapes {x.shape} and {y.shape}"
        )
    if len(x) != len(y):
        raise ValueError(
            f"Model.{method}: `x` and `y` hold different numbers of samples: {len(x)} (shape "
            f"{x.shape}) and {len(y)} (shape {y.shape})"
        )
    return x, y


class Model(Layer):
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
            for x in _flatten(node.inputs):
                if not getattr(x, "_keras_symbolic", False):
                    continue
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
            values[id(s)] = r
        for node in nodes:
            args = _map(
                node.inputs, lambda x: values[id(x)] if getattr(x, "_keras_symbolic", False) else x
            )
            kwargs = dict(node.kwargs)
            if training is not None and _accepts(node.layer.call, "training"):
                kwargs["training"] = training
            out = node.layer(args, *node.args, **kwargs)
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
        if not self.built:
            if type(self).build is not Model.build:
                first = _flatten(inputs)[0]
                self.build(tuple(getattr(first, "shape", np.shape(first))))
            self.built = True
        if training is not None and _accepts(self.call, "training"):
            kwargs["training"] = training
        return self.call(inputs, *args, **kwargs)

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
            out += [node.layer for node in self._functional[2]]
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
        """Writes every variable to `filepath` in NumPy's `.npz` format (no pickled objects)."""
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f"save_weights: {filepath} exists and overwrite=False")
        arrays = {f"{i:05d}:{v.name}": np.asarray(v.numpy()) for i, v in enumerate(self.variables)}
        with open(filepath, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]

    def load_weights(self, filepath: str) -> None:
        """Reads weights written by `save_weights` (with `allow_pickle=False`: nothing in the file
        can run code), matching variables by position and checking shapes."""
        with np.load(filepath, allow_pickle=False) as data:
            keys = sorted(data.files)
            self.set_weights([data[k] for k in keys])

    # -- compile / fit (a minimal Keras loop over NumPy arrays) ------------------------------
    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, metrics: Any = None) -> None:
        """Sets the optimizer, loss and metrics `fit` and `evaluate` use (names or objects)."""
        from . import losses as _losses
        from . import optimizers as _optimizers

        self.optimizer = _optimizers.get(optimizer)
        if loss is None:
            raise ValueError("compile: give a `loss` (a name, a function or a Loss)")
        fn = _losses.get(loss)
        self.loss = fn if isinstance(fn, _losses.Loss) else _losses.LossFunctionWrapper(fn)
        self._metric_specs = list(metrics or [])
        self._metrics_built: list[Any] = []

    def _make_metrics(self, y: np.ndarray, y_pred: Any) -> list[Any]:
        from . import metrics as _metrics

        out = []
        for spec in self._metric_specs:
            if isinstance(spec, str) and spec.lower() in ("accuracy", "acc"):
                width = int(y_pred.shape[-1]) if len(y_pred.shape) else 1
                if width == 1:
                    out.append(_metrics.BinaryAccuracy(name="accuracy"))
                elif np.issubdtype(y.dtype, np.integer) or y.ndim < len(y_pred.shape):
                    out.append(_metrics.SparseCategoricalAccuracy(name="accuracy"))
                else:
                    out.append(_metrics.CategoricalAccuracy(name="accuracy"))
            else:
                out.append(_metrics.get(spec))
        return out

    def _batches(self, n: int, batch_size: int, shuffle: bool, seed: int) -> list[np.ndarray]:
        order = np.random.default_rng(seed).permutation(n) if shuffle else np.arange(n)
        return [order[i : i + batch_size] for i in range(0, n, batch_size)]

    def train_step(self, x: Any, y: Any) -> Any:
        """One optimizer step on a batch; returns the batch's loss and predictions."""
        with _GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.loss(y, y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return loss, y_pred

    def fit(
        self,
        x: Any,
        y: Any,
        batch_size: int = 32,
        epochs: int = 1,
        verbose: int = 0,
        callbacks: Any = None,
        shuffle: bool = True,
        validation_data: Any = None,
        validation_split: float = 0.0,
    ) -> Any:
        """Trains for `epochs` passes over `(x, y)` (NumPy arrays) in batches; returns a History
        whose `history` maps "loss", each metric and their "val_" forms to per-epoch values.
        `callbacks` (`rt.keras.callbacks.Callback`s) are called around epochs and batches.
        `validation_split` (in `[0, 1)`) holds out the last fraction of the samples for
        validation, as Keras does, unless `validation_data` is given.

        >>> import numpy as np, rustape as rt
        >>> rt.random.set_seed(0)
        >>> model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)])
        >>> model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
        >>> x = np.random.default_rng(0).normal(size=(64, 2)).astype(np.float32)
        >>> h = model.fit(x, x.sum(1, keepdims=True), epochs=20, shuffle=False)
        >>> h.history["loss"][-1] < 0.01 * h.history["loss"][0]
        True
        >>> model.predict(x[:3]).shape
        (3, 1)
        """
        from . import callbacks as _callbacks
        from . import metrics as _metrics

        if not hasattr(self, "loss"):
            raise RuntimeError("You must call `compile()` before `fit()`.")
        x, y = _samples("fit", x, y)
        batch_size = _batch_size("fit", batch_size)
        epochs = check_number("Model.fit", "epochs", epochs, low=0, integer=True)
        split = check_number("Model.fit", "validation_split", validation_split, low=0.0)
        if split >= 1:
            raise ValueError(
                f"Model.fit: `validation_split` must be in [0, 1), got {validation_split!r}"
            )
        if split and validation_data is None:
            # Keras's rule: the last samples, before any shuffling.
            kept = int(len(x) * (1.0 - split))
            validation_data = (x[kept:], y[kept:])
            x, y = x[:kept], y[:kept]
        history = _callbacks.History()
        hooks = [*(callbacks or []), history]
        params = {"epochs": epochs, "steps": -(-len(x) // batch_size), "verbose": verbose}
        for cb in hooks:
            cb.set_model(self)
            cb.set_params(params)
        self.stop_training = False
        for cb in hooks:
            cb.on_train_begin()
        logs: dict[str, float] = {}
        for epoch in range(epochs):
            for cb in hooks:
                cb.on_epoch_begin(epoch)
            mean_loss = _metrics.Mean()
            metrics: list[Any] | None = None
            for step, idx in enumerate(self._batches(len(x), batch_size, shuffle, epoch)):
                for cb in hooks:
                    cb.on_train_batch_begin(step)
                loss, y_pred = self.train_step(x[idx], y[idx])
                mean_loss.update_state(loss, sample_weight=float(len(idx)))
                if metrics is None:
                    metrics = self._make_metrics(y, y_pred)
                for m in metrics:
                    m.update_state(y[idx], y_pred)
                if len(hooks) > 1:  # the running logs, only when a callback can read them
                    batch_logs = {"loss": float(mean_loss.result())}
                    batch_logs.update({m.name: float(m.result()) for m in metrics})
                    for cb in hooks:
                        cb.on_train_batch_end(step, batch_logs)
            logs = {"loss": float(mean_loss.result())}
            logs.update({m.name: float(m.result()) for m in metrics or []})
            if validation_data is not None:
                val_x, val_y = validation_data
                val = self.evaluate(val_x, val_y, batch_size=batch_size, return_dict=True)
                logs.update({f"val_{k}": v for k, v in val.items()})
            for cb in hooks:
                cb.on_epoch_end(epoch, logs)
            if verbose:
                print(
                    f"Epoch {epoch + 1}/{epochs} - "
                    + " - ".join(f"{k}: {v:.4f}" for k, v in logs.items())
                )
            if self.stop_training:
                break
        for cb in hooks:
            cb.on_train_end(logs)
        return history

    def evaluate(
        self, x: Any, y: Any, batch_size: int = 32, verbose: int = 0, return_dict: bool = False
    ) -> Any:
        """The loss (and metrics) over `(x, y)`, batch by batch, without training."""
        from . import metrics as _metrics

        x, y = _samples("evaluate", x, y)
        batch_size = _batch_size("evaluate", batch_size)
        mean_loss = _metrics.Mean()
        metrics: list[Any] | None = None
        for idx in self._batches(len(x), batch_size, False, 0):
            y_pred = self(x[idx], training=False)
            mean_loss.update_state(self.loss(y[idx], y_pred), sample_weight=float(len(idx)))
            if metrics is None:
                metrics = self._make_metrics(y, y_pred)
            for m in metrics:
                m.update_state(y[idx], y_pred)
        logs = {"loss": float(mean_loss.result())}
        logs.update({m.name: float(m.result()) for m in metrics or []})
        if verbose:
            print(" - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
        return logs if return_dict else (list(logs.values()) if len(logs) > 1 else logs["loss"])

    def predict(self, x: Any, batch_size: Any = 32, verbose: int = 0) -> np.ndarray:
        """The model's outputs for `x`, batch by batch, as one NumPy array."""
        x = np.asarray(x)
        if x.ndim == 0:
            raise ValueError(f"Model.predict: `x` must have a batch axis, got a scalar {x!r}")
        batch_size = _batch_size("predict", batch_size)
        # An empty `x` is still called once: the result keeps the model's output shape.
        parts = [
            np.asarray(self(x[i : i + batch_size], training=False).numpy())
            for i in range(0, max(len(x), 1), batch_size)
        ]
        return np.concatenate(parts, axis=0)

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
                    v for k, v in item.__dict__.items() if k != "_variables"
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
        self.built = True
        return self.call(inputs, training=training)
