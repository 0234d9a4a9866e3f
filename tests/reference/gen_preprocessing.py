"""Keras 3's `Normalization` layer (TensorFlow 2.21): `adapt` on arrays, tensors and lists of
batches over several `axis` choices, given means and variances, `invert`; and the "Basic
regression" tutorial's model (a Normalization adapted to the features, then Dense layers)
trained with `fit`.

`run(keras, lib)` is imported by the test and runs the same code on rustape (`lib` is
tensorflow or rustape). Run with TensorFlow's venv (see README.md); writes preprocessing.npz
beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def _data() -> np.ndarray:
    rng = np.random.default_rng(83)
    return (rng.normal(size=(12, 3, 4)) * np.array([1.0, 10.0, 0.1, 5.0]) + 3.0).astype(np.float32)


#: name -> (constructor arguments, how adapt sees the data: "array", "tensor", "batches", None)
CASES: dict[str, tuple[dict[str, Any], str | None]] = {
    "last_axis": ({}, "array"),
    "no_axis": ({"axis": None}, "array"),
    "two_axes": ({"axis": (1, 2)}, "array"),
    "tensor": ({"axis": 1}, "tensor"),
    "batches": ({}, "batches"),
    "given": ({"mean": [1.0, 2.0, 3.0, 4.0], "variance": [1.0, 4.0, 0.25, 9.0]}, None),
    "given_scalar": ({"axis": None, "mean": 2.0, "variance": 9.0}, None),
    "invert": ({"invert": True}, "array"),
}


def _case(keras: Any, lib: Any, name: str) -> dict[str, np.ndarray]:
    kwargs, source = CASES[name]
    layer = keras.layers.Normalization(**kwargs)
    data = _data()
    if source == "array":
        layer.adapt(data)
    elif source == "tensor":
        layer.adapt(lib.constant(data))
    elif source == "batches":
        layer.adapt([data[:5], data[5:9], data[9:]])
    x = (_data()[:4] * 0.5).astype(np.float32)
    out = {f"{name}/y": np.asarray(layer(x))}
    for k, w in enumerate(layer.get_weights()):
        out[f"{name}/w{k}"] = np.asarray(w)
    return out


def _regression(keras: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(89)
    features = (rng.normal(size=(40, 5)) * np.array([1.0, 50.0, 0.2, 8.0, 3.0]) + 10).astype(
        np.float32
    )
    labels = (features @ np.array([0.5, 0.02, -3.0, 0.1, 1.0]) + rng.normal(size=40)).astype(
        np.float32
    )
    normalizer = keras.layers.Normalization(axis=-1)
    normalizer.adapt(features)
    model = keras.Sequential(
        [
            keras.Input(shape=(5,)),
            normalizer,
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(1),
        ]
    )
    trainable = [
        (rng.normal(size=w.shape) * 0.4).astype(np.float32) for w in model.trainable_weights
    ]
    for v, w in zip(model.trainable_weights, trainable):
        v.assign(w)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mean_absolute_error")
    history = model.fit(
        features, labels, batch_size=10, epochs=3, shuffle=False, verbose=0, validation_split=0.2
    )
    out = {f"regression/{k}": np.array(v, np.float32) for k, v in history.history.items()}
    out["regression/mean"] = np.asarray(normalizer.mean)
    for k, w in enumerate(model.get_weights()):
        out[f"regression/w{k}"] = np.asarray(w)
    return out


def run(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras` over `lib` (tensorflow or rustape)."""
    out: dict[str, np.ndarray] = {}
    for name in CASES:
        out.update(_case(keras, lib, name))
    out.update(_regression(keras))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras, tf)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "preprocessing.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
