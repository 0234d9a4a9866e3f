"""Keras 3's `fit` / `evaluate` / `predict` on data other than plain arrays (TensorFlow 2.21):
`class_weight` (integer, one-hot and single-column labels), a `keras.utils.PyDataset`, an
endless Python generator with `steps_per_epoch`, PyDataset validation data with
`validation_steps`, `validation_freq`; and `keras.utils.to_categorical` / `pad_sequences`.

`run(keras)` is imported by the test and runs the same code on rustape's Keras. Run with
TensorFlow's venv (see README.md); writes fit_data.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def _data(seed: int, n: int = 24) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    labels = (np.abs(x[:, 0] * 2 + x[:, 1]) * 1.3).astype(np.int32) % 3
    return x, labels


def _model(keras: Any, units: int, activation: str | None, seed: int) -> Any:
    model = keras.Sequential(
        [
            keras.Input(shape=(4,)),
            keras.layers.Dense(5, activation="tanh"),
            keras.layers.Dense(units, activation=activation),
        ]
    )
    rng = np.random.default_rng(seed)
    model.set_weights([(rng.normal(size=w.shape) * 0.5).astype(np.float32) for w in model.weights])
    return model


def _record(prefix: str, model: Any, history: Any) -> dict[str, np.ndarray]:
    out = {f"{prefix}/{k}": np.array(v, np.float32) for k, v in history.history.items()}
    for k, w in enumerate(model.get_weights()):
        out[f"{prefix}/w{k}"] = np.asarray(w)
    return out


def _class_weights(keras: Any) -> dict[str, np.ndarray]:
    x, labels = _data(1)
    weights = {0: 1.0, 1: 4.0, 2: 0.5}
    out: dict[str, np.ndarray] = {}
    cases = (
        ("sparse", 3, "softmax", "sparse_categorical_crossentropy", labels),
        ("onehot", 3, "softmax", "categorical_crossentropy", np.eye(3, dtype=np.float32)[labels]),
        ("binary", 1, "sigmoid", "binary_crossentropy", (labels == 1).astype(np.float32)[:, None]),
    )
    for name, units, activation, loss, y in cases:
        model = _model(keras, units, activation, 2)
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss=loss, metrics=["accuracy"])
        history = model.fit(
            x, y, batch_size=8, epochs=2, shuffle=False, class_weight=weights, verbose=0
        )
        out.update(_record(f"class_weight/{name}", model, history))
    return out


def _dataset_class(keras: Any) -> Any:
    class Batches(keras.utils.PyDataset):
        def __init__(self, x: np.ndarray, y: np.ndarray, size: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.x, self.y, self.size = x, y, size
            self.epochs_ended = 0

        def __len__(self) -> int:
            return (len(self.x) + self.size - 1) // self.size

        def __getitem__(self, index: int) -> Any:
            part = slice(index * self.size, (index + 1) * self.size)
            return self.x[part], self.y[part]

        def on_epoch_end(self) -> None:
            self.epochs_ended += 1

    return Batches


def _sources(keras: Any) -> dict[str, np.ndarray]:
    x, labels = _data(3, 20)
    y = labels.astype(np.float32)[:, None]
    out: dict[str, np.ndarray] = {}

    dataset = _dataset_class(keras)(x, y, 6)
    model = _model(keras, 1, None, 4)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    history = model.fit(dataset, epochs=3, shuffle=False, verbose=0)
    out.update(_record("dataset", model, history))
    out["dataset/epochs_ended"] = np.array(dataset.epochs_ended)
    out["dataset/evaluate"] = np.array(model.evaluate(dataset, verbose=0), np.float32)
    out["dataset/predict"] = np.asarray(model.predict(dataset, verbose=0))

    def endless() -> Any:
        k = 0
        while True:
            rows = np.arange(k, k + 5) % len(x)
            yield x[rows], y[rows]
            k += 5

    model = _model(keras, 1, None, 5)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(
        endless(),
        steps_per_epoch=3,
        epochs=4,
        validation_data=(x[:9], y[:9]),
        validation_freq=2,
        verbose=0,
    )
    out.update(_record("generator", model, history))
    out["generator/evaluate"] = np.array(model.evaluate(endless(), steps=2, verbose=0), np.float32)
    model = _model(keras, 1, None, 6)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(
        x,
        y,
        batch_size=5,
        epochs=2,
        shuffle=False,
        validation_data=_dataset_class(keras)(x[::-1].copy(), y[::-1].copy(), 7),
        validation_steps=2,
        verbose=0,
    )
    out.update(_record("generator_validation", model, history))
    return out


def _utils(keras: Any) -> dict[str, np.ndarray]:
    U = keras.utils
    sequences = [[1, 2, 3, 4], [5], [6, 7], []]
    out = {
        "utils/categorical": U.to_categorical(np.array([2, 0, 1, 2])),
        "utils/categorical_classes": U.to_categorical(np.array([[1], [0]]), num_classes=4),
        "utils/pad": U.pad_sequences(sequences),
        "utils/pad_post": U.pad_sequences(sequences, maxlen=3, padding="post", truncating="post"),
        "utils/pad_value": U.pad_sequences(sequences, maxlen=2, value=-1, dtype="float32"),
    }
    return {k: np.asarray(v) for k, v in out.items()}


def run(keras: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras` (Keras 3, or rustape's `rt.keras`)."""
    out = _class_weights(keras)
    out.update(_sources(keras))
    out.update(_utils(keras))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fit_data.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
