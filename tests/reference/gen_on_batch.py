"""Reference values of Keras 3's `train_on_batch`, `test_on_batch` and `predict_on_batch`
(TensorFlow 2.21 backend): a Dense model with fixed weights, SGD, three training calls (each
reports its own batch), one with class weights, two test calls, a prediction.

Run with TensorFlow's venv (see README.md); writes on_batch.npz beside this file. `X`, `Y`,
`KERNEL`, `BIAS` and `CLASS_WEIGHT` are imported by the test.
"""

from __future__ import annotations

import os

import numpy as np

_rng = np.random.default_rng(8)
X = _rng.normal(size=(3, 6, 4)).astype(np.float32)
Y = (_rng.uniform(size=(3, 6, 1)) > 0.5).astype(np.float32)
KERNEL = _rng.normal(size=(4, 1)).astype(np.float32) * 0.5
BIAS = np.array([0.1], np.float32)
CLASS_WEIGHT = {0: 0.5, 1: 2.0}


def main() -> None:
    import keras

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="binary_crossentropy", metrics=["mae"])
    model.layers[0].kernel.assign(KERNEL)
    model.layers[0].bias.assign(BIAS)
    out: dict[str, np.ndarray] = {}
    for i in range(2):
        out[f"train{i}"] = np.array(model.train_on_batch(X[i], Y[i]), np.float64)
    logs = model.train_on_batch(X[2], Y[2], class_weight=CLASS_WEIGHT, return_dict=True)
    out["train2"] = np.array([logs["loss"], logs["mae"]], np.float64)
    out["kernel"] = model.layers[0].kernel.numpy()
    model.reset_metrics()
    for i in range(2):
        out[f"test{i}"] = np.array(model.test_on_batch(X[i], Y[i]), np.float64)
    out["predict"] = model.predict_on_batch(X[0])
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "on_batch.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
