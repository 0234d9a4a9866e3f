"""Keras's legacy HDF5 weights layout (tf.keras 2's `save_weights("x.h5")`, and the pretrained
`keras.applications` files): a `layer_names` list on the root (or on a `model_weights` group in
a whole-model file), one group per layer listing its `weight_names`. Keras loads such a file by
position: the n-th layer with weights in the file goes to the model's n-th layer with weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._keras_format import WeightStore


def _text(value: Any) -> str:
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def weights_root(store: WeightStore) -> tuple[Any, str] | None:
    """The group holding `layer_names` and its path prefix, or None for another layout."""
    root = store.file
    if "layer_names" in root.attrs:
        return root, ""
    group = root.get("model_weights")
    if group is not None and "layer_names" in group.attrs:
        return group, "model_weights/"
    return None


def load_legacy_weights(store: WeightStore, model: Any, skip_mismatch: bool = False) -> None:
    """Assign `model`'s layers from a legacy-layout file, in order, shapes checked."""
    found = weights_root(store)
    assert found is not None
    root, prefix = found
    file_layers = []
    for name in (_text(n) for n in root.attrs["layer_names"]):
        group = root.get(name)
        names = [] if group is None else [_text(w) for w in group.attrs.get("weight_names", [])]
        if names:
            file_layers.append((name, [f"{prefix}{name}/{w}" for w in names]))
    layers = [layer for layer in model.layers if layer.weights]
    if len(file_layers) != len(layers):
        raise ValueError(
            f"{store.what}: the file has weights for {len(file_layers)} layers, the model "
            f"{model.name!r} has {len(layers)} layers with weights"
        )
    assignments = []
    for layer, (name, paths) in zip(layers, file_layers):
        if len(paths) != len(layer.weights):
            raise ValueError(
                f"{store.what}: layer {name!r} has {len(paths)} weights in the file, the "
                f"model's layer {layer.name!r} has {len(layer.weights)}"
            )
        arrays: list[np.ndarray] = []
        mismatched = False
        for path, variable in zip(paths, layer.weights):
            if path not in store.datasets:
                raise ValueError(f"{store.what}: {path!r} is not a dataset in the file")
            data = store.datasets[path]
            want = tuple(variable.shape)
            if tuple(data.shape) != want:
                if skip_mismatch:
                    mismatched = True
                    break
                raise ValueError(
                    f"{store.what}: {path!r} has shape {tuple(data.shape)}, the model's "
                    f"{layer.name!r} weight has {want}"
                )
            if data.dtype.kind not in "fiub":
                raise ValueError(f"{store.what}: {path!r} holds {data.dtype}, not numbers")
            arrays.append(np.asarray(data[()]))
        if not mismatched:
            assignments.append((layer, arrays))
    for layer, arrays in assignments:
        layer.set_weights(arrays)
