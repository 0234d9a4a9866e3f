"""Keras 3's "Customizing what happens in fit()" guide (TensorFlow backend), with fixed weights and
data: the per-epoch logs `fit` returns and the final weights, to match.

The guide's models are built here by functions that take the library (`keras, tf` or
`rt.keras, rt`), so the test runs the very same code on rustape. Runs:
- `custom_train_step`: a `train_step` override with `compute_loss`, `optimizer.apply` and the
  metrics loop; compiled with a loss and `metrics=["mae"]`.
- `lower_level`: no compiled loss; the model's own `Mean` and `MeanAbsoluteError` trackers,
  listed in an overridden `metrics` (reset by `fit` at each epoch).
- `sample_weight`: the default `train_step` with `fit(..., sample_weight=...)`, `metrics` (which
  ignore the weights) and `weighted_metrics` (which apply them).
- `test_step`: an overridden `test_step` run by `evaluate`.

Run with TensorFlow's venv (see README.md); writes custom_fit.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

EPOCHS = 4
BATCH = 8


def setup() -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Inputs, targets, sample weights and the initial weights (kernel, bias, kernel, bias)."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(40, 5)).astype(np.float32)
    y = (x @ rng.normal(size=(5, 2)) + 0.1 * rng.normal(size=(40, 2))).astype(np.float32)
    sample_weight = rng.uniform(0.2, 2.0, size=(40,)).astype(np.float32)
    shapes = [(5, 8), (8,), (8, 2), (2,)]
    weights = [(rng.normal(size=s) * 0.4).astype(np.float32) for s in shapes]
    return x, y, sample_weight, weights


def make_models(keras: Any, tf: Any) -> dict[str, Any]:
    """The guide's model classes, written against `keras` and `tf` (TensorFlow's or rustape's)."""

    class Base(keras.Model):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.hidden = keras.layers.Dense(8, activation="tanh")
            self.out = keras.layers.Dense(2)

        def call(self, x: Any) -> Any:
            return self.out(self.hidden(x))

    class CustomModel(Base):
        def train_step(self, data: Any) -> Any:
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply(gradients, trainable_vars)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    class LowerLevel(Base):
        def __init__(self) -> None:
            super().__init__()
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
            self.loss_fn = keras.losses.MeanSquaredError()

        def train_step(self, data: Any) -> Any:
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.loss_fn(y, y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply(gradients, trainable_vars)
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        @property
        def metrics(self) -> list[Any]:
            return [self.loss_tracker, self.mae_metric]

    class TestStep(Base):
        def test_step(self, data: Any) -> Any:
            x, y = data
            y_pred = self(x, training=False)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    return {
        "custom_train_step": CustomModel,
        "lower_level": LowerLevel,
        "sample_weight": Base,
        "test_step": TestStep,
    }


RUNS = ("custom_train_step", "lower_level", "sample_weight", "test_step")


def run(keras: Any, tf: Any, name: str) -> dict[str, np.ndarray]:
    """One run of the guide on `keras`/`tf`: its logs per epoch and final weights."""
    x, y, sample_weight, weights = setup()
    model = make_models(keras, tf)[name]()
    model(x[:1])
    model.set_weights(weights)
    if name == "lower_level":
        model.compile(optimizer=keras.optimizers.SGD(0.05))
    elif name == "sample_weight":
        model.compile(
            optimizer=keras.optimizers.Adam(0.02),
            loss="mse",
            metrics=["mae"],
            weighted_metrics=["mae", "mse"],
        )
    else:
        model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse", metrics=["mae"])
    out: dict[str, np.ndarray] = {}
    if name == "test_step":
        logs = model.evaluate(x, y, batch_size=BATCH, return_dict=True, verbose=0)
        for k, v in logs.items():
            out[f"{name}/evaluate/{k}"] = np.array(v, np.float32)
        return out
    extra = {"sample_weight": sample_weight} if name == "sample_weight" else {}
    history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0, **extra)
    for k, v in history.history.items():
        out[f"{name}/history/{k}"] = np.array(v, np.float32)
    for k, w in enumerate(model.get_weights()):
        out[f"{name}/w{k}"] = np.asarray(w)
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name in RUNS:
        out.update(run(keras, tf, name))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_fit.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
