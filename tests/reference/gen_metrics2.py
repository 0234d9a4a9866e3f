"""Reference values of Keras 3's PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity
and SpecificityAtSensitivity (TensorFlow 2.21) over several batches.

Run with TensorFlow's venv (see README.md); writes metrics2.npz beside this file.

Each configuration sees `BATCHES` batches of binary labels and predictions in [0, 1] (some
exactly 0, 0.5 and 1, on the thresholds), 1-D or, with `class_id`, [samples, 3]; with
`weighted`, per-sample weights. Stored: the result after each batch, and the four counts
after the last. `batches()` is imported by the test, so both sides see the same arrays.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

BATCHES = 4

# name -> (class name, target, constructor arguments, weighted)
CONFIGS: dict[str, tuple[str, float, dict[str, Any], bool]] = {
    "precision_at_recall": ("PrecisionAtRecall", 0.6, {}, False),
    "precision_at_recall_weighted_class": (
        "PrecisionAtRecall",
        0.4,
        {"class_id": 1, "num_thresholds": 50},
        True,
    ),
    "recall_at_precision": ("RecallAtPrecision", 0.7, {}, False),
    "recall_at_precision_weighted": ("RecallAtPrecision", 0.55, {"num_thresholds": 17}, True),
    "recall_at_precision_class": ("RecallAtPrecision", 0.5, {"class_id": 2}, False),
    "sensitivity_at_specificity": ("SensitivityAtSpecificity", 0.7, {}, False),
    "sensitivity_at_specificity_weighted_class": (
        "SensitivityAtSpecificity",
        0.5,
        {"class_id": 0, "num_thresholds": 3},
        True,
    ),
    "specificity_at_sensitivity": ("SpecificityAtSensitivity", 0.8, {}, False),
    "specificity_at_sensitivity_weighted": (
        "SpecificityAtSensitivity",
        0.3,
        {"num_thresholds": 1},
        True,
    ),
    "specificity_at_sensitivity_class": (
        "SpecificityAtSensitivity",
        0.9,
        {"class_id": 1, "num_thresholds": 101},
        False,
    ),
}


def batches(name: str) -> list[tuple[np.ndarray, np.ndarray, Any]]:
    """`(y_true, y_pred, sample_weight or None)` for each batch of configuration `name`."""
    _, _, kwargs, weighted = CONFIGS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    out = []
    for b in range(BATCHES):
        n = 12 + 3 * b
        shape = (n, 3) if "class_id" in kwargs else (n,)
        y_true = (rng.uniform(size=shape) < 0.45).astype(np.float32)
        # Predictions that lean towards the labels, with ties on thresholds.
        y_pred = np.clip(0.35 * y_true + rng.uniform(0.0, 0.75, size=shape), 0.0, 1.0)
        y_pred = y_pred.astype(np.float32)
        flat = y_pred.reshape(-1)
        flat[:3] = [0.0, 0.5, 1.0]
        weight = rng.uniform(0.0, 2.0, size=(n,)).astype(np.float32) if weighted else None
        out.append((y_true, y_pred, weight))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name, (cls, target, kwargs, _) in CONFIGS.items():
        metric = getattr(keras.metrics, cls)(target, **kwargs)
        results = []
        for y_true, y_pred, weight in batches(name):
            metric.update_state(y_true, y_pred, sample_weight=weight)
            results.append(float(metric.result()))
        out[f"{name}/results"] = np.array(results, np.float32)
        for kind in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            out[f"{name}/{kind}"] = np.asarray(getattr(metric, kind).numpy(), np.float32)
        out[f"{name}/name"] = np.array(metric.name)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics2.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
