"""Keras 3's confusion-count metrics (TensorFlow 2.21): `TruePositives`, `FalsePositives`,
`TrueNegatives`, `FalseNegatives`, `Precision` and `Recall` with default and several
thresholds, sample weights, `top_k` and `class_id`, over several `update_state` calls; and
`fit` logging them by name.

`run(keras)` is imported by the test and runs the same code on rustape. Run with TensorFlow's
venv (see README.md); writes confusion.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

#: name -> (class name, constructor arguments, multi-class data?)
CASES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "tp": ("TruePositives", {}, False),
    "fp_thresholds": ("FalsePositives", {"thresholds": [0.1, 0.5, 0.9]}, False),
    "tn": ("TrueNegatives", {"thresholds": 0.3}, False),
    "fn_thresholds": ("FalseNegatives", {"thresholds": [0.2, 0.7]}, False),
    "precision": ("Precision", {}, False),
    "precision_thresholds": ("Precision", {"thresholds": [0.25, 0.5, 0.75]}, False),
    "recall": ("Recall", {}, False),
    "recall_threshold": ("Recall", {"thresholds": 0.35}, False),
    "precision_top_k": ("Precision", {"top_k": 2}, True),
    "recall_top_k": ("Recall", {"top_k": 1}, True),
    "precision_class": ("Precision", {"class_id": 2}, True),
    "recall_class_threshold": ("Recall", {"class_id": 1, "thresholds": 0.4}, True),
}


def _batches(multi: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    rng = np.random.default_rng(61)
    out = []
    for k in range(3):
        if multi:
            y_true = (rng.random((6, 4)) > 0.6).astype(np.float32)
            y_pred = rng.random((6, 4)).astype(np.float32)
        else:
            y_true = (rng.random(8) > 0.5).astype(np.float32)
            y_pred = rng.random(8).astype(np.float32)
        weight = None if k == 0 else rng.random(y_true.shape[0]).astype(np.float32)
        out.append((y_true, y_pred, weight))
    return out


def _case(keras: Any, name: str) -> dict[str, np.ndarray]:
    cls, kwargs, multi = CASES[name]
    metric = getattr(keras.metrics, cls)(**kwargs)
    results = []
    for y_true, y_pred, weight in _batches(multi):
        metric.update_state(y_true, y_pred, sample_weight=weight)
        results.append(np.asarray(metric.result(), np.float32))
    metric.reset_state()
    results.append(np.asarray(metric.result(), np.float32))
    return {f"{name}/{k}": r for k, r in enumerate(results)}


def _fit(keras: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(67)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5]) > 0).astype(np.float32)[:, None]
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="sigmoid")])
    model.set_weights([np.array([[0.2], [0.1], [-0.3]], np.float32), np.zeros(1, np.float32)])
    model.compile(
        optimizer=keras.optimizers.SGD(0.5),
        loss="binary_crossentropy",
        metrics=[
            keras.metrics.Precision(name="prec"),
            keras.metrics.Recall(name="rec"),
            "accuracy",
        ],
    )
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    return {f"fit/{k}": np.array(v, np.float32) for k, v in history.history.items()}


def run(keras: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras`."""
    out: dict[str, np.ndarray] = {}
    for name in CASES:
        out.update(_case(keras, name))
    out.update(_fit(keras))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "confusion.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
