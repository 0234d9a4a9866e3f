"""The configs of `Sequential` and functional models (their layers and graph) for
`saving.py`, and rebuilding a model from one."""

from __future__ import annotations

from typing import Any

from .. import _rustape as _rt
from .functional import _flatten, _map


def input_spec(x: Any) -> dict[str, Any]:
    """A symbolic input as JSON: its per-sample shape, batch size, dtype and name."""
    return {
        "shape": list(x.shape[1:]),
        "batch_size": x.shape[0],
        "dtype": str(x.dtype.name),
        "name": x.name,
    }


def make_input(spec: dict[str, Any]) -> Any:
    """The `rt.keras.Input` an `input_spec` describes."""
    from .functional import Input

    return Input(
        shape=tuple(spec["shape"]),
        batch_size=spec.get("batch_size"),
        dtype=spec.get("dtype"),
        name=spec.get("name"),
    )


def sequential_config(model: Any) -> dict[str, Any]:
    """A Sequential's name, layers and first Input (None when it starts without one)."""
    from .saving import serialize_keras_object

    return {
        "name": model.name,
        "trainable": model.trainable,
        "input": None if model._input is None else input_spec(model._input),
        "layers": [serialize_keras_object(layer) for layer in model.layers],
    }


def functional_config(model: Any) -> dict[str, Any]:
    """A functional model's graph: its inputs, its layers (each once, shared ones too), one
    entry per layer call naming the tensors it reads, and its outputs."""
    from .saving import serialize_keras_object

    inputs, outputs, nodes = model._functional
    refs: dict[int, list[int]] = {id(x): [-1, k] for k, x in enumerate(_flatten(inputs))}
    layer_index: dict[int, int] = {}
    layers: list[Any] = []
    for node in nodes:
        if id(node.layer) not in layer_index:
            layer_index[id(node.layer)] = len(layers)
            layers.append(node.layer)

    def encode(value: Any) -> Any:
        def leaf(x: Any) -> Any:
            if getattr(x, "_keras_symbolic", False):
                return {"class_name": "__tensor__", "config": {"ref": refs[id(x)]}}
            return serialize_keras_object(x)

        return _map(value, leaf)

    entries = []
    for n, node in enumerate(nodes):
        entries.append(
            {
                "layer": layer_index[id(node.layer)],
                "inputs": encode(node.inputs),
                "args": encode(list(node.args)),
                "kwargs": encode(dict(node.kwargs)),
            }
        )
        for j, out in enumerate(node.outputs):
            refs[id(out)] = [n, j]
    return {
        "name": model.name,
        "trainable": model.trainable,
        "inputs": _map(inputs, input_spec),
        "layers": [serialize_keras_object(layer) for layer in layers],
        "nodes": entries,
        "outputs": encode(outputs),
    }


def _is_spec(value: Any) -> bool:
    return (
        isinstance(value, dict) and {"shape", "dtype"} <= set(value) and "class_name" not in value
    )


def _map_specs(structure: Any, fn: Any) -> Any:
    if _is_spec(structure):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _map_specs(v, fn) for k, v in structure.items()}
    if isinstance(structure, list):
        return [_map_specs(v, fn) for v in structure]
    return structure


def model_from_config(cls: Any, config: dict[str, Any], custom_objects: Any) -> Any:
    """A Sequential or functional model rebuilt from its config (weights fresh)."""
    from .models import Model, Sequential
    from .saving import deserialize_keras_object

    if cls is Sequential:
        model = Sequential(name=config.get("name"), trainable=config.get("trainable", True))
        if config.get("input") is not None:
            model.add(make_input(config["input"]))
        for layer in config.get("layers", []):
            model.add(deserialize_keras_object(layer, custom_objects))
        return model
    inputs = _map_specs(config["inputs"], make_input)
    layers = [deserialize_keras_object(layer, custom_objects) for layer in config["layers"]]
    flat_inputs = _flatten(inputs)
    produced: list[list[Any]] = []

    def decode(value: Any) -> Any:
        if isinstance(value, dict) and value.get("class_name") == "__tensor__":
            node, k = value["config"]["ref"]
            return flat_inputs[k] if node == -1 else produced[node][k]
        if isinstance(value, dict) and "class_name" in value:
            return deserialize_keras_object(value, custom_objects)
        if isinstance(value, dict):
            return {key: decode(v) for key, v in value.items()}
        if isinstance(value, list):
            return [decode(v) for v in value]
        return value

    for entry in config["nodes"]:
        layer = layers[entry["layer"]]
        out = layer(decode(entry["inputs"]), *decode(entry["args"]), **decode(entry["kwargs"]))
        produced.append(_flatten(out))
    return Model(
        inputs=inputs,
        outputs=decode(config["outputs"]),
        name=config.get("name"),
        trainable=config.get("trainable", True),
    )


def build_spec(inputs: Any) -> Any:
    """What a model's first call took, as JSON: the shape and dtype of each input."""

    def spec(x: Any) -> dict[str, Any]:
        t = x if isinstance(x, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(x)
        return {"shape": list(t.shape), "dtype": str(t.dtype.name)}

    return _map(inputs, spec)


def build_from(model: Any, spec: Any) -> None:
    """Builds `model` by calling it once on zeros shaped like its first inputs (one row)."""
    if getattr(model, "built", False) and getattr(model, "variables", None):
        return

    def zeros(s: dict[str, Any]) -> Any:
        shape = [int(d) for d in s["shape"]]
        if shape:
            shape[0] = 1
        return _rt.zeros(shape, dtype=str(s["dtype"]))

    model(_map_specs(spec, zeros))
