"""Keras 3's training callbacks (TensorFlow 2.21) on a fixed model and data: the `fit` history
(with the logged learning rate), when training stopped and the final weights, to match.

`run(keras, name)` is imported by the test and runs the same code on rustape. Run with
TensorFlow's venv (see README.md); writes callbacks.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

EPOCHS = 12


def setup() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(11)
    x = rng.normal(size=(48, 4)).astype(np.float32)
    y = (np.tanh(x @ rng.normal(size=(4, 1))) + 0.3 * rng.normal(size=(48, 1))).astype(np.float32)
    shapes = [(4, 6), (6,), (6, 1), (1,)]
    weights = [(rng.normal(size=s) * 0.5).astype(np.float32) for s in shapes]
    return x, y, weights


RUNS = ("early_stopping", "early_stopping_val_mae", "reduce_lr", "scheduler")


def callbacks(keras: Any, name: str) -> list[Any]:
    cb = keras.callbacks
    if name == "early_stopping":
        return [cb.EarlyStopping(monitor="loss", min_delta=0.05, patience=1)]
    if name == "early_stopping_val_mae":
        return [
            cb.EarlyStopping(
                monitor="val_mae", patience=2, restore_best_weights=True, start_from_epoch=1
            )
        ]
    if name == "reduce_lr":
        return [
            cb.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=0.06, cooldown=1)
        ]
    return [cb.LearningRateScheduler(lambda epoch, lr: lr if epoch < 2 else lr * 0.7)]


def run(keras: Any, name: str) -> dict[str, np.ndarray]:
    x, y, weights = setup()
    model = keras.Sequential(
        [keras.Input(shape=(4,)), keras.layers.Dense(6, activation="tanh"), keras.layers.Dense(1)]
    )
    model.set_weights(weights)
    lr = 0.3 if name == "early_stopping_val_mae" else 0.05
    model.compile(optimizer=keras.optimizers.SGD(lr, momentum=0.5), loss="mse", metrics=["mae"])
    history = model.fit(
        x[:36],
        y[:36],
        batch_size=12,
        epochs=EPOCHS,
        shuffle=False,
        verbose=0,
        validation_data=(x[36:], y[36:]),
        callbacks=callbacks(keras, name),
    )
    out = {f"{name}/history/{k}": np.array(v, np.float32) for k, v in history.history.items()}
    out[f"{name}/epochs"] = np.array(len(history.epoch))
    for k, w in enumerate(model.get_weights()):
        out[f"{name}/w{k}"] = np.asarray(w)
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name in RUNS:
        out.update(run(keras, name))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "callbacks.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
