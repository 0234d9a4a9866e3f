"""rustape models as Keras 3's files: `config.json` in Keras's spelling (module, class name,
config, registered name, build and compile configs), `metadata.json`, and the weights at
Keras's paths (`_keras_format.keras_layout`). Keras 3 loads what this writes
(tests/reference/check_keras_reads_rustape.py); rustape's own config goes beside it in
`rustape.json`.
"""

from __future__ import annotations

import io
import json
from typing import Any

from ._keras_format import keras_layout, optimizer_layout, write_weights

#: The zip member holding rustape's own config (exact round trips of what Keras's config
#: cannot say: rustape's functions, every argument as given).
RUSTAPE_CONFIG = "rustape.json"

_MODULES = (
    ("layers", "keras.layers"),
    ("initializers", "keras.initializers"),
    ("regularizers", "keras.regularizers"),
    ("constraints", "keras.constraints"),
    ("losses", "keras.losses"),
    ("metrics", "keras.metrics"),
    ("schedules", "keras.optimizers.schedules"),
    ("optimizers", "keras.optimizers"),
)


def _policy(dtype: str) -> dict[str, Any]:
    return {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": dtype},
        "registered_name": None,
    }


def _keras_module(obj: Any) -> str | None:
    module = type(obj).__module__
    if not module.startswith("rustape.keras"):
        return None
    for part, keras_module in _MODULES:
        if f".{part}" in module:
            return keras_module
    return "keras"


def _module_of_name(name: str) -> str:
    """The Keras module of the rustape Keras class called `name`."""
    import importlib

    for part, keras_module in _MODULES:
        module = importlib.import_module(
            f"rustape.keras.optimizers.{part}" if part == "schedules" else f"rustape.keras.{part}"
        )
        if name in getattr(module, "__all__", ()):
            return keras_module
    return "keras"


def keras_value(value: Any) -> Any:
    """rustape's serialized config (`serialize_keras_object`'s) in Keras's spelling."""
    if isinstance(value, list):
        return [keras_value(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "class_name" not in value or set(value) - {"class_name", "config", "build_inputs"}:
        return {k: keras_value(v) for k, v in value.items()}
    name = value["class_name"]
    inner = value.get("config") or {}
    if name == "__ndarray__":
        return {"class_name": "__numpy__", "config": dict(inner)}
    if name == "__function__":
        full = str(inner["name"])
        prefix, _, short = full.rpartition(".")
        if prefix in ("keras.activations", "keras.losses"):
            return short
        return {
            "module": "builtins",
            "class_name": "function",
            "config": full,
            "registered_name": "function",
        }
    return {
        "module": None if ">" in name else _module_of_name(name),
        "class_name": name.rpartition(">")[2],
        "config": {k: keras_value(v) for k, v in inner.items()},
        "registered_name": name if ">" in name else None,
    }


def _object_config(obj: Any) -> dict[str, Any]:
    """A layer, or anything with `get_config`, as Keras serializes it."""
    from .models import Model, Sequential
    from .saving import get_registered_name, serialize_keras_object

    graph = isinstance(obj, Sequential) or (isinstance(obj, Model) and obj._functional is not None)
    if graph and type(obj) in (Sequential, Model):
        return keras_model_config(obj)
    name = get_registered_name(obj)
    config = keras_value(serialize_keras_object(obj.get_config()))
    if isinstance(config, dict) and isinstance(config.get("dtype"), str):
        config["dtype"] = _policy(config["dtype"])
    out: dict[str, Any] = {
        "module": _keras_module(obj) if ">" not in name else None,
        "class_name": name.rpartition(">")[2],
        "config": config,
        "registered_name": name if ">" in name else None,
    }
    build = obj.__dict__.get("_build_inputs")
    if build is not None:
        out["build_config"] = {"input_shape": _build_shape(build)}
    return out


def _build_shape(spec: Any) -> Any:
    if isinstance(spec, dict) and "shape" in spec:
        return [None] + list(spec["shape"])[1:]
    if isinstance(spec, (list, tuple)):
        return [_build_shape(s) for s in spec]
    return None


def _input_entry(x: Any, name: str) -> dict[str, Any]:
    return {
        "module": "keras.layers",
        "class_name": "InputLayer",
        "config": {
            "batch_shape": list(x.shape),
            "dtype": str(x.dtype.name),
            "sparse": False,
            "ragged": False,
            "name": name,
        },
        "registered_name": None,
        "name": name,
        "inbound_nodes": [],
    }


def keras_model_config(model: Any) -> dict[str, Any]:
    """A Sequential or functional rustape model as Keras 3's config."""
    from .functional import _flatten, _map
    from .models import Sequential

    if isinstance(model, Sequential):
        layers = []
        if model._input is not None:
            layers.append(_input_entry(model._input, model._input.name or "input_layer"))
        layers += [_object_config(layer) for layer in model.layers]
        config: dict[str, Any] = {
            "name": model.name,
            "trainable": model.trainable,
            "dtype": _policy("float32"),
            "layers": layers,
        }
        out: dict[str, Any] = {
            "module": "keras",
            "class_name": "Sequential",
            "config": config,
            "registered_name": None,
        }
        if model._input is not None:
            config["build_input_shape"] = list(model._input.shape)
            out["build_config"] = {"input_shape": list(model._input.shape)}
        elif model.__dict__.get("_build_inputs") is not None:
            shape = _build_shape(model.__dict__["_build_inputs"])
            config["build_input_shape"] = shape
            out["build_config"] = {"input_shape": shape}
        return out

    inputs, outputs, nodes = model._functional
    refs: dict[int, list[Any]] = {}
    entries: list[dict[str, Any]] = []
    for k, x in enumerate(_flatten(inputs)):
        name = x.name or ("input_layer" if k == 0 else f"input_layer_{k}")
        refs[id(x)] = [name, 0, 0]
        entries.append(_input_entry(x, name))
    by_layer: dict[int, dict[str, Any]] = {}
    for node in nodes:
        layer = node.layer
        if id(layer) not in by_layer:
            entry = _object_config(layer)
            entry["name"] = layer.name
            entry["inbound_nodes"] = []
            by_layer[id(layer)] = entry
            entries.append(entry)
        entry = by_layer[id(layer)]

        def encode(value: Any) -> Any:
            def leaf(x: Any) -> Any:
                if getattr(x, "_keras_symbolic", False):
                    return {
                        "class_name": "__keras_tensor__",
                        "config": {
                            "shape": list(x.shape),
                            "dtype": str(x.dtype.name),
                            "keras_history": refs[id(x)],
                        },
                    }
                from .saving import serialize_keras_object

                return keras_value(serialize_keras_object(x))

            return _map(value, leaf)

        index = len(entry["inbound_nodes"])
        entry["inbound_nodes"].append(
            {
                "args": [encode(node.inputs)] + [encode(a) for a in node.args],
                "kwargs": encode(dict(node.kwargs)),
            }
        )
        for j, out_tensor in enumerate(node.outputs):
            refs[id(out_tensor)] = [layer.name, index, j]

    def ends(value: Any) -> Any:
        return _map(value, lambda x: refs[id(x)])

    return {
        "module": "keras.src.models.functional",
        "class_name": "Functional",
        "config": {
            "name": model.name,
            "trainable": model.trainable,
            "layers": entries,
            "input_layers": ends(inputs),
            "output_layers": ends(outputs),
        },
        "registered_name": "Functional",
        "build_config": {"input_shape": None},
    }


def keras_compile_config(model: Any) -> dict[str, Any] | None:
    """`compile`'s arguments as Keras's `compile_config` (None when not compiled)."""
    from .saving import serialize_keras_object

    compiled = model.__dict__.get("_compile_arguments")
    if compiled is None:
        return None
    out: dict[str, Any] = {
        "loss_weights": None,
        "metrics": None,
        "weighted_metrics": None,
        "run_eagerly": False,
        "steps_per_execution": 1,
        "jit_compile": False,
    }
    for key, value in compiled.items():
        if key == "optimizer":
            out[key] = _object_config(value)
        else:
            out[key] = _compile_value(serialize_keras_object(value))
    return out


def _compile_value(value: Any) -> Any:
    """A loss or metric: names stay names; objects get Keras's module."""
    converted = keras_value(value)
    if isinstance(converted, dict) and converted.get("module") == "keras":
        name = converted["class_name"]
        from . import losses, metrics

        if hasattr(losses, name) and isinstance(getattr(losses, name), type):
            converted["module"] = "keras.losses"
        elif hasattr(metrics, name):
            converted["module"] = "keras.metrics"
    elif isinstance(converted, list):
        return [_compile_value(v) for v in value]
    return converted


def write_keras_file(model: Any, path: str, rustape_config: dict[str, Any]) -> None:
    """Writes `model` as Keras 3's `.keras` zip, with rustape's own config beside it."""
    import datetime
    import zipfile

    from .. import __version__

    keras_config = _object_config(model)
    compile_config = keras_compile_config(model)
    if compile_config is not None:
        keras_config["compile_config"] = compile_config
    metadata = {
        "keras_version": "3.15.0",
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
        "rustape_version": __version__,
    }
    weights = io.BytesIO()
    write_weights(weights, keras_layout(model) + optimizer_layout(model))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("metadata.json", json.dumps(metadata))
        archive.writestr("config.json", json.dumps(keras_config))
        archive.writestr(RUSTAPE_CONFIG, json.dumps(rustape_config))
        archive.writestr("model.weights.h5", weights.getvalue())
