"""A whole Keras 3 training loop (TensorFlow 2.21) with fixed weights: the loss curve to match.

An MLP (8 -> 16 relu -> 16 tanh -> 3) on fixed data, sparse categorical cross-entropy from
logits, Adam(0.01), 20 steps of GradientTape + apply_gradients; then the same with SGD momentum
and a schedule, and a regression with MSE and RMSprop. Run with TensorFlow's venv (see
README.md); writes training.npz beside this file. `setup()` is imported by the test.
"""

from __future__ import annotations

import os

import numpy as np

STEPS = 20


def setup() -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Inputs, class labels, regression targets and the initial weights (kernel, bias, ...)."""
    rng = np.random.default_rng(42)
    x = rng.normal(size=(32, 8)).astype(np.float32)
    labels = rng.integers(0, 3, size=(32,)).astype(np.int32)
    targets = rng.normal(size=(32, 3)).astype(np.float32)
    shapes = [(8, 16), (16,), (16, 16), (16,), (16, 3), (3,)]
    weights = [
        (rng.normal(size=s) * (0.5 if len(s) == 2 else 0.1)).astype(np.float32) for s in shapes
    ]
    return x, labels, targets, weights


RUNS = ("adam_scce", "sgd_momentum_schedule_scce", "rmsprop_mse")


def main() -> None:
    import keras
    import tensorflow as tf

    x, labels, targets, weights = setup()
    out: dict[str, np.ndarray] = {}
    for run in RUNS:
        model = keras.Sequential(
            [
                keras.Input(shape=(8,)),
                keras.layers.Dense(16, activation="relu"),
                keras.layers.Dense(16, activation="tanh"),
                keras.layers.Dense(3),
            ]
        )
        model.set_weights(weights)
        if run == "adam_scce":
            opt = keras.optimizers.Adam(0.01)
            loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
            y = labels
        elif run == "sgd_momentum_schedule_scce":
            opt = keras.optimizers.SGD(
                keras.optimizers.schedules.ExponentialDecay(0.2, 5, 0.7), momentum=0.9
            )
            loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
            y = labels
        else:
            opt = keras.optimizers.RMSprop(0.005, momentum=0.2)
            loss_fn = keras.losses.MeanSquaredError()
            y = targets
        losses = []
        for _ in range(STEPS):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            losses.append(float(loss))
        out[f"{run}/losses"] = np.array(losses, np.float32)
        for k, w in enumerate(model.get_weights()):
            out[f"{run}/w{k}"] = w
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "training.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
