"""Reference values of Keras 3's newer losses (TensorFlow 2.21 backend): the functions'
per-sample values and the classes' reduced values (with and without `sample_weight`, each
reduction), and the gradients of the reduced loss with respect to `y_pred` (TensorFlow's
tape), in float32 and float64.

Run with TensorFlow's venv (see README.md); writes losses_more.npz beside this file.
`CASES` and `inputs` are imported by the test.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_rng = np.random.default_rng(21)
_PROBS = _rng.uniform(0.02, 0.98, size=(4, 5))
_BINARY = (_rng.uniform(size=(4, 5)) > 0.5).astype(np.float64)
_ONE_HOT = np.eye(5)[[1, 3, 0, 4]]
_SOFT = _PROBS / _PROBS.sum(-1, keepdims=True)
_LOGITS = _rng.normal(size=(4, 5)) * 2
_POSITIVE = _rng.uniform(0.0, 3.0, size=(4, 5))
_EMBED = _rng.normal(size=(6, 3))
_EMBED = _EMBED / np.linalg.norm(_EMBED, axis=1, keepdims=True)
_WEIGHTS = np.array([0.5, 1.0, 0.0, 2.0])

# name -> (class, constructor arguments, function, function arguments, y_true, y_pred)
CASES: dict[str, tuple[str, dict[str, Any], str, dict[str, Any], Any, Any]] = {
    "msle": (
        "MeanSquaredLogarithmicError",
        {},
        "mean_squared_logarithmic_error",
        {},
        _POSITIVE[::-1].copy(),
        _POSITIVE,
    ),
    "msle_negative": (
        "MeanSquaredLogarithmicError",
        {},
        "mean_squared_logarithmic_error",
        {},
        _POSITIVE - 1.0,
        _LOGITS,
    ),
    "bfce": ("BinaryFocalCrossentropy", {}, "binary_focal_crossentropy", {}, _BINARY, _PROBS),
    "bfce_balanced": (
        "BinaryFocalCrossentropy",
        {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5},
        "binary_focal_crossentropy",
        {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5},
        _BINARY,
        _PROBS,
    ),
    "bfce_logits_smooth": (
        "BinaryFocalCrossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        "binary_focal_crossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        _BINARY,
        _LOGITS,
    ),
    "bfce_axis0": (
        "BinaryFocalCrossentropy",
        {"axis": 0},
        "binary_focal_crossentropy",
        {"axis": 0},
        _BINARY,
        _PROBS,
    ),
    "cfce": (
        "CategoricalFocalCrossentropy",
        {},
        "categorical_focal_crossentropy",
        {},
        _ONE_HOT,
        _SOFT,
    ),
    "cfce_logits": (
        "CategoricalFocalCrossentropy",
        {"from_logits": True, "alpha": 0.5, "gamma": 3.0},
        "categorical_focal_crossentropy",
        {"from_logits": True, "alpha": 0.5, "gamma": 3.0},
        _ONE_HOT,
        _LOGITS,
    ),
    "cfce_smooth_unnormalised": (
        "CategoricalFocalCrossentropy",
        {"label_smoothing": 0.2},
        "categorical_focal_crossentropy",
        {"label_smoothing": 0.2},
        _ONE_HOT,
        _PROBS,
    ),
    "gce": (
        "CategoricalGeneralizedCrossEntropy",
        {},
        "categorical_generalized_cross_entropy",
        {"q": 0.5},
        np.array([1, 3, 0, 4]),
        _SOFT,
    ),
    "gce_q0.2": (
        "CategoricalGeneralizedCrossEntropy",
        {"q": 0.2},
        "categorical_generalized_cross_entropy",
        {"q": 0.2},
        np.array([[2], [2], [1], [0]]),
        _SOFT,
    ),
    "dice": ("Dice", {}, "dice", {}, _BINARY, _PROBS),
    "dice_axis1": ("Dice", {"axis": 1}, "dice", {"axis": 1}, _BINARY, _PROBS),
    "dice_axes": (
        "Dice",
        {"axis": (1, 2)},
        "dice",
        {"axis": (1, 2)},
        _BINARY.reshape(4, 5, 1),
        _PROBS.reshape(4, 5, 1),
    ),
    "tversky": ("Tversky", {}, "tversky", {}, _BINARY, _PROBS),
    "tversky_ab_axis1": (
        "Tversky",
        {"alpha": 0.7, "beta": 0.3, "axis": 1},
        "tversky",
        {"alpha": 0.7, "beta": 0.3, "axis": 1},
        _BINARY,
        _PROBS,
    ),
    "circle": ("Circle", {}, "circle", {}, np.array([0, 0, 1, 1, 2, 0]), _EMBED),
    "circle_margin": (
        "Circle",
        {"gamma": 20.0, "margin": 0.25, "remove_diagonal": False},
        "circle",
        {"gamma": 20.0, "margin": 0.25, "remove_diagonal": False},
        np.array([1, 0, 1, 0, 1, 0]),
        _EMBED,
    ),
}
REDUCTIONS = ["sum_over_batch_size", "sum", "mean_with_sample_weight", None]


def inputs(name: str, dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _, _, _, _, y_true, y_pred = CASES[name]
    true = y_true if y_true.dtype.kind == "i" else y_true.astype(dtype)
    weights = _WEIGHTS if len(y_pred) == 4 else np.linspace(0.0, 1.5, len(y_pred))
    return true, y_pred.astype(dtype), weights.astype(dtype)


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name, (cls, kwargs, fn, fn_kwargs, _, _) in CASES.items():
        for dtype in ("float32", "float64"):
            y_true, y_pred, weights = inputs(name, dtype)
            out[f"{name}/{dtype}/fn"] = np.asarray(
                getattr(keras.losses, fn)(y_true, y_pred, **fn_kwargs)
            )
            per_sample = out[f"{name}/{dtype}/fn"].shape
            for reduction in REDUCTIONS:
                # Weights need one value per sample (axis=0 reductions have none).
                for weighted in (False, True) if per_sample[:1] == weights.shape else (False,):
                    loss = getattr(keras.losses, cls)(reduction=reduction, dtype=dtype, **kwargs)
                    x = tf.Variable(y_pred)
                    with tf.GradientTape() as tape:
                        value = loss(y_true, x, sample_weight=weights if weighted else None)
                        total = tf.reduce_sum(value)
                    key = f"{name}/{dtype}/{reduction}/{'weighted' if weighted else 'plain'}"
                    out[key] = value.numpy()
                    out[key + "/grad"] = tape.gradient(total, x).numpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "losses_more.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
