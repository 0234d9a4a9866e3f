"""Reference values of Keras 3's losses and metrics (TensorFlow 2.21) on edge cases.

Run with TensorFlow's venv (see README.md); writes losses.npz beside this file. `LOSS_CASES` and
`METRIC_CASES` are imported by the tests, which rebuild the same inputs.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

rng = np.random.default_rng(7)
F = np.float32

probs = rng.uniform(0.01, 1.0, size=(4, 5)).astype(F)
probs /= probs.sum(-1, keepdims=True)
onehot = np.eye(5, dtype=F)[[0, 3, 1, 4]]
labels = np.array([0, 3, 1, 4], np.int32)
logits = rng.normal(size=(4, 5)).astype(F) * 3
huge_logits = np.array(
    [
        [1e4, -1e4, 0.0, 5.0, -3.0],
        [-1e4, 1e4, 1e4, 0.0, 2.0],
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [-1e4, -1e4, -1e4, -1e4, 1e4],
    ],
    F,
)
binary_true = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0]], F)
binary_prob = np.array([[0.9, 0.1, 0.6], [0.0, 0.3, 1.0], [1.0, 0.7, 0.2], [0.4, 0.5, 1e-9]], F)
binary_logits = np.array(
    [[1e4, -1e4, 2.0], [-3.0, 0.0, 1e4], [-1e4, 0.5, 7.0], [0.1, -0.1, -1e4]], F
)
reg_true = rng.normal(size=(4, 3)).astype(F)
reg_pred = rng.normal(size=(4, 3)).astype(F)
reg_true_zero = reg_true.copy()
reg_true_zero[0, 0] = 0.0
positive_pred = rng.uniform(0.1, 3.0, size=(4, 3)).astype(F)
counts = rng.integers(0, 5, size=(4, 3)).astype(F)
weights = np.array([1.0, 0.5, 0.0, 2.0], F)
weights_2d = rng.uniform(0.0, 2.0, size=(4, 3)).astype(F)
hinge_true = np.array([[1, -1, 1], [-1, -1, 1], [1, 1, -1], [-1, 1, -1]], F)
seq_logits = rng.normal(size=(2, 3, 5)).astype(F)
seq_labels = np.array([[1, 0, 4], [2, 2, 3]], np.int32)

# name -> (class, constructor kwargs, y_true, y_pred, sample_weight or None)
LOSS_CASES: dict[str, tuple[str, dict[str, Any], np.ndarray, np.ndarray, Any]] = {
    "mse": ("MeanSquaredError", {}, reg_true, reg_pred, None),
    "mse_weighted": ("MeanSquaredError", {}, reg_true, reg_pred, weights),
    "mse_sum": ("MeanSquaredError", {"reduction": "sum"}, reg_true, reg_pred, weights),
    "mse_none": ("MeanSquaredError", {"reduction": None}, reg_true, reg_pred, None),
    "mse_mean_with_sample_weight": (
        "MeanSquaredError",
        {"reduction": "mean_with_sample_weight"},
        reg_true,
        reg_pred,
        weights,
    ),
    "mse_rank1": ("MeanSquaredError", {}, reg_true[:, 0], reg_pred[:, :1], None),
    "mae": ("MeanAbsoluteError", {}, reg_true, reg_pred, None),
    "mae_weighted": ("MeanAbsoluteError", {}, reg_true, reg_pred, weights),
    "mape": ("MeanAbsolutePercentageError", {}, reg_true_zero, reg_pred, None),
    "huber": ("Huber", {}, reg_true, reg_pred * 3, None),
    "huber_delta": ("Huber", {"delta": 0.3}, reg_true, reg_pred, weights),
    "log_cosh": ("LogCosh", {}, reg_true, reg_pred * 40, None),
    "bce": ("BinaryCrossentropy", {}, binary_true, binary_prob, None),
    "bce_smoothing": (
        "BinaryCrossentropy",
        {"label_smoothing": 0.2},
        binary_true,
        binary_prob,
        weights,
    ),
    "bce_logits": ("BinaryCrossentropy", {"from_logits": True}, binary_true, binary_logits, None),
    "bce_logits_smoothing": (
        "BinaryCrossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        binary_true,
        binary_logits,
        None,
    ),
    "cce": ("CategoricalCrossentropy", {}, onehot, probs, None),
    "cce_unnormalised": ("CategoricalCrossentropy", {}, onehot, probs * 3, weights),
    "cce_smoothing": ("CategoricalCrossentropy", {"label_smoothing": 0.1}, onehot, probs, None),
    "cce_logits": ("CategoricalCrossentropy", {"from_logits": True}, onehot, logits, None),
    "cce_huge_logits": (
        "CategoricalCrossentropy",
        {"from_logits": True},
        onehot,
        huge_logits,
        None,
    ),
    "cce_huge_logits_smoothing": (
        "CategoricalCrossentropy",
        {"from_logits": True, "label_smoothing": 0.2},
        onehot,
        huge_logits,
        None,
    ),
    "cce_axis0": (
        "CategoricalCrossentropy",
        {"from_logits": True, "axis": 0},
        onehot.T.copy(),
        logits.T.copy(),
        None,
    ),
    "scce": ("SparseCategoricalCrossentropy", {}, labels, probs, None),
    "scce_logits": (
        "SparseCategoricalCrossentropy",
        {"from_logits": True},
        labels,
        logits,
        weights,
    ),
    "scce_huge_logits": (
        "SparseCategoricalCrossentropy",
        {"from_logits": True},
        labels,
        huge_logits,
        None,
    ),
    "scce_column_labels": (
        "SparseCategoricalCrossentropy",
        {"from_logits": True},
        labels.reshape(4, 1),
        logits,
        None,
    ),
    "scce_sequence": (
        "SparseCategoricalCrossentropy",
        {"from_logits": True},
        seq_labels,
        seq_logits,
        None,
    ),
    "scce_ignore_class": (
        "SparseCategoricalCrossentropy",
        {"from_logits": True, "ignore_class": 4},
        labels,
        logits,
        None,
    ),
    "kld": ("KLDivergence", {}, probs[::-1].copy(), probs, None),
    "poisson": ("Poisson", {}, counts, positive_pred, weights),
    "cosine": ("CosineSimilarity", {}, reg_true, reg_pred, None),
    "cosine_axis0": ("CosineSimilarity", {"axis": 0}, reg_true, reg_pred, None),
    "hinge": ("Hinge", {}, hinge_true, reg_pred, None),
    "hinge_binary_labels": ("Hinge", {}, binary_true, reg_pred, weights),
    "squared_hinge": ("SquaredHinge", {}, hinge_true, reg_pred, None),
    "squared_hinge_binary_labels": ("SquaredHinge", {}, binary_true, reg_pred, weights),
    "categorical_hinge": ("CategoricalHinge", {}, onehot, logits, weights),
}

metric_true_bin = np.array([1, 0, 1, 1, 0, 0, 1, 0], F)
metric_score = np.array([0.9, 0.2, 0.4, 0.6, 0.7, 0.1, 0.5, 0.5], F)
metric_weights = np.array([1, 2, 0.5, 1, 1, 0, 3, 1], F)
# name -> (class, kwargs, list of update_state argument tuples)
METRIC_CASES: dict[str, tuple[str, dict[str, Any], list[tuple[Any, ...]]]] = {
    "mean": (
        "Mean",
        {},
        [(np.array([1.0, 2.0, 4.0], F),), (np.array([10.0], F), np.array([0.5], F))],
    ),
    "sum": ("Sum", {}, [(np.array([1.0, 2.0, 4.0], F),), (reg_pred, weights_2d)]),
    "accuracy": (
        "Accuracy",
        {},
        [(labels, np.array([0, 3, 2, 4], np.int32)), (labels, labels, weights)],
    ),
    "binary_accuracy": (
        "BinaryAccuracy",
        {},
        [(metric_true_bin, metric_score), (metric_true_bin, metric_score, metric_weights)],
    ),
    "binary_accuracy_threshold": (
        "BinaryAccuracy",
        {"threshold": 0.65},
        [(metric_true_bin.reshape(4, 2), metric_score.reshape(4, 2))],
    ),
    "categorical_accuracy": (
        "CategoricalAccuracy",
        {},
        [(onehot, probs), (onehot, logits, weights)],
    ),
    "sparse_categorical_accuracy": (
        "SparseCategoricalAccuracy",
        {},
        [(labels, probs), (labels.reshape(4, 1), logits, weights)],
    ),
    "top_k": ("TopKCategoricalAccuracy", {"k": 2}, [(onehot, probs), (onehot, logits, weights)]),
    "top_k_3": ("TopKCategoricalAccuracy", {"k": 3}, [(onehot, logits)]),
    "mse_metric": (
        "MeanSquaredError",
        {},
        [(reg_true, reg_pred), (reg_true, reg_pred * 2, weights)],
    ),
    "mae_metric": (
        "MeanAbsoluteError",
        {},
        [(reg_true, reg_pred), (reg_true, reg_pred * 2, weights)],
    ),
    "rmse_metric": (
        "RootMeanSquaredError",
        {},
        [(reg_true, reg_pred), (reg_true, reg_pred * 2, weights)],
    ),
    "auc": ("AUC", {}, [(metric_true_bin, metric_score)]),
    "auc_weighted": (
        "AUC",
        {},
        [
            (metric_true_bin, metric_score, metric_weights),
            (metric_true_bin[::-1].copy(), metric_score),
        ],
    ),
    "auc_pr": ("AUC", {"curve": "PR"}, [(metric_true_bin, metric_score)]),
    "auc_thresholds": ("AUC", {"num_thresholds": 7}, [(metric_true_bin, metric_score)]),
    "auc_minoring": ("AUC", {"summation_method": "minoring"}, [(metric_true_bin, metric_score)]),
}


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name, (cls, kwargs, y_true, y_pred, weight) in LOSS_CASES.items():
        loss = getattr(keras.losses, cls)(**kwargs)
        args = [tf.constant(y_true), tf.constant(y_pred)]
        value = loss(*args, sample_weight=None if weight is None else tf.constant(weight))
        out[f"loss/{name}"] = np.asarray(value)
        # The gradient with respect to y_pred.
        x = tf.Variable(y_pred)
        with tf.GradientTape() as tape:
            total = tf.reduce_sum(
                loss(args[0], x, sample_weight=None if weight is None else tf.constant(weight))
            )
        out[f"grad/{name}"] = np.asarray(tape.gradient(total, x))
    for name, (cls, kwargs, updates) in METRIC_CASES.items():
        metric = getattr(keras.metrics, cls)(**kwargs)
        results = []
        for args in updates:
            if len(args) == 3:
                metric.update_state(args[0], args[1], sample_weight=args[2])
            else:
                metric.update_state(*args)
            results.append(float(metric.result()))
        out[f"metric/{name}"] = np.array(results, F)
        metric.reset_state()
        out[f"metric_reset/{name}"] = np.array(float(metric.result()), F)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "losses.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
