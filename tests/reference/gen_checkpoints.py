"""Keras 3's file-writing callbacks (TensorFlow 2.21) on a fixed model and data: which
`ModelCheckpoint` files are written (every epoch, the best by `val_loss`, every 3 batches),
the weights read back from the best one, and `CSVLogger`'s header and rows.

`run(keras, folder)` is imported by the test and runs the same code on rustape. Run with
TensorFlow's venv (see README.md); writes checkpoints.npz beside this file.
"""

from __future__ import annotations

import csv
import os
import tempfile
from typing import Any

import numpy as np


def run(keras: Any, folder: str) -> dict[str, np.ndarray]:
    """Every array, computed with `keras`, its files written in `folder`."""
    rng = np.random.default_rng(71)
    x = rng.normal(size=(30, 3)).astype(np.float32)
    y = (np.sin(x @ np.array([1.0, -1.0, 0.5])) + 0.1 * rng.normal(size=30)).astype(np.float32)
    model = keras.Sequential(
        [keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)]
    )
    weights = [(rng.normal(size=w.shape) * 0.5).astype(np.float32) for w in model.weights]
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.SGD(0.3, momentum=0.8), loss="mse", metrics=["mae"])
    callbacks = [
        keras.callbacks.CSVLogger(os.path.join(folder, "log.csv")),
        keras.callbacks.ModelCheckpoint(
            os.path.join(folder, "best-{epoch:02d}-{val_loss:.2f}.weights.h5"),
            save_weights_only=True,
            save_best_only=True,
        ),
        keras.callbacks.ModelCheckpoint(
            os.path.join(folder, "last.weights.h5"), save_weights_only=True
        ),
        keras.callbacks.ModelCheckpoint(
            os.path.join(folder, "steps", "e{epoch}-b{batch}.weights.h5"),
            save_weights_only=True,
            save_freq=3,
        ),
    ]
    model.fit(
        x[:24],
        y[:24, None],
        batch_size=4,
        epochs=6,
        shuffle=False,
        verbose=0,
        validation_data=(x[24:], y[24:, None]),
        callbacks=callbacks,
    )
    names = sorted(os.listdir(folder)) + sorted(os.listdir(os.path.join(folder, "steps")))
    out: dict[str, np.ndarray] = {"files": np.array(names)}
    best = max(n for n in names if n.startswith("best-"))
    model.load_weights(os.path.join(folder, best))
    for k, w in enumerate(model.get_weights()):
        out[f"best/w{k}"] = np.asarray(w)
    with open(os.path.join(folder, "log.csv"), newline="") as f:
        rows = list(csv.reader(f))
    out["csv/header"] = np.array(rows[0])
    out["csv/values"] = np.array(rows[1:], dtype=np.float64)
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    with tempfile.TemporaryDirectory() as folder:
        out = run(keras, folder)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
