"""Reference values of Keras 3's metrics (TensorFlow 2.21) on edge cases.

Run with TensorFlow's venv (see README.md); writes metrics.json beside this file: each case's
inputs (every `update_state` call), the result after each call, the result after
`reset_state`, and the state's variables after the last call (AUC's confusion counts, Mean's
total and count); and the metric functions' per-sample values. The tests (Rust and Python)
read the inputs from the file, so they never import this script or TensorFlow.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

rng = np.random.default_rng(11)
F = np.float32
I = np.int32

# Binary labels and scores with ties (0.5 twice, exact thresholds 0, 0.25, 1.0).
bin_true = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 0], F)
bin_score = np.array([0.9, 0.5, 0.5, 0.25, 0.0, 1.0, 0.75, 0.3, 0.3, 0.6], F)
bin_weight = np.array([1.0, 2.0, 0.0, 0.5, 1.0, 0.0, 3.0, 1.0, 1.0, 0.25], F)
# Scores on the default thresholds (i / 199 rounded to float32) and outside [0, 1].
on_grid = (np.array([0, 1, 50, 99, 100, 150, 198, 199]) / 199.0).astype(F)
grid_true = np.array([0, 1, 0, 1, 1, 0, 1, 1], F)
outside = np.array([-0.5, 1.5, 0.2, -0.01, 1.01, 0.8], F)
outside_true = np.array([0, 1, 0, 1, 0, 1], F)
# Multi-label: 6 samples, 3 labels (the third all positive).
ml_true = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 1, 1], [1, 0, 1], [0, 0, 1]], F)
ml_score = rng.uniform(0, 1, size=(6, 3)).astype(F)
ml_score[0, 0] = ml_score[1, 0] = 0.5  # a tie across classes of one label
ml_weight = np.array([1.0, 0.0, 2.0, 1.0, 0.5, 1.0], F)
logits = np.array([-3.0, 0.2, 1.5, -0.7, 4.0, 0.0, -1.1, 2.2], F)
logit_true = np.array([0, 1, 1, 0, 1, 0, 1, 0], F)
# Multiclass scores with ties for the accuracy family.
probs = rng.uniform(0, 1, size=(5, 4)).astype(F)
probs[1] = [0.3, 0.3, 0.2, 0.2]  # tie at the top
probs[2] = [0.1, 0.4, 0.4, 0.1]  # tie at the top, label the second
probs[3] = [0.25, 0.25, 0.25, 0.25]  # all tied
onehot = np.eye(4, dtype=F)[[0, 1, 2, 3, 2]]
sparse = np.array([0, 1, 2, 3, 2], I)
seq_scores = rng.uniform(0, 1, size=(2, 3, 4)).astype(F)
seq_labels = np.array([[0, 1, 3], [2, 2, 0]], I)
reg_true = rng.normal(size=(4, 3)).astype(F)
reg_pred = rng.normal(size=(4, 3)).astype(F)
weights4 = np.array([1.0, 0.0, 2.5, 0.5], F)
weights5 = np.array([1.0, 0.0, 2.0, 0.5, 1.0], F)

# name -> (class, constructor kwargs, list of update_state argument tuples; a third element,
# when present, is the sample weight).
CASES: dict[str, tuple[str, dict[str, Any], list[tuple[Any, ...]]]] = {
    "mean_scalar_and_weights": (
        "Mean",
        {},
        [
            (np.array(3.0, F),),
            (np.array([1.0, 2.0, 4.0], F), np.array([0.0, 1.0, 2.0], F)),
            (reg_pred, weights4),
            (reg_pred, weights4.reshape(4, 1)),
        ],
    ),
    "mean_zero_weights": ("Mean", {}, [(np.array([5.0, 7.0], F), np.array([0.0, 0.0], F))]),
    "mean_3d_2d_weights": ("Mean", {}, [(seq_scores, rng.uniform(0, 2, size=(2, 3)).astype(F))]),
    "sum_3d": ("Sum", {}, [(seq_scores,), (seq_scores, np.array([2.0, 0.0], F))]),
    "accuracy_int_float": (
        "Accuracy",
        {},
        [
            (sparse, np.array([0, 1, 1, 3, 0], I)),
            (sparse.astype(F).reshape(5, 1), np.array([0.0, 1.0, 2.0, 3.0, 2.5], F), weights5),
        ],
    ),
    "binary_accuracy_ties": (
        "BinaryAccuracy",
        {},
        [(bin_true, bin_score), (bin_true, bin_score, bin_weight)],
    ),
    "binary_accuracy_threshold": (
        "BinaryAccuracy",
        {"threshold": 0.3},
        [
            (bin_true.reshape(5, 2), bin_score.reshape(5, 2)),
            (bin_true.reshape(5, 2), bin_score.reshape(5, 2), weights5),
        ],
    ),
    "categorical_accuracy_ties": (
        "CategoricalAccuracy",
        {},
        [(onehot, probs), (onehot, probs, weights5)],
    ),
    "sparse_categorical_accuracy_ties": (
        "SparseCategoricalAccuracy",
        {},
        [(sparse, probs), (sparse.reshape(5, 1).astype(F), probs, weights5)],
    ),
    "sparse_categorical_accuracy_sequence": (
        "SparseCategoricalAccuracy",
        {},
        [(seq_labels, seq_scores), (seq_labels, seq_scores, np.array([1.0, 3.0], F))],
    ),
    "top_k_ties": (
        "TopKCategoricalAccuracy",
        {"k": 1},
        [(onehot, probs), (onehot, probs, weights5)],
    ),
    "top_k_2": ("TopKCategoricalAccuracy", {"k": 2}, [(onehot, probs)]),
    "top_k_beyond_classes": ("TopKCategoricalAccuracy", {"k": 7}, [(onehot, probs)]),
    "mse_weighted": (
        "MeanSquaredError",
        {},
        [(reg_true, reg_pred), (reg_true, reg_pred * 2, weights4)],
    ),
    "auc_ties": ("AUC", {}, [(bin_true, bin_score)]),
    "auc_weights_with_zeros": (
        "AUC",
        {},
        [(bin_true, bin_score, bin_weight), (bin_true[::-1].copy(), bin_score)],
    ),
    "auc_three_thresholds": ("AUC", {"num_thresholds": 3}, [(bin_true, bin_score, bin_weight)]),
    "auc_on_grid": ("AUC", {}, [(grid_true, on_grid)]),
    "auc_outside_01": ("AUC", {}, [(outside_true, outside)]),
    "auc_thresholds_list": (
        "AUC",
        {"thresholds": [0.8, 0.3, 0.5]},
        [(bin_true, bin_score), (outside_true, outside)],
    ),
    "auc_thresholds_even_list": (
        "AUC",
        {"thresholds": [0.25, 0.5, 0.75]},
        [(bin_true, bin_score, bin_weight)],
    ),
    "auc_all_positive": ("AUC", {}, [(np.ones(6, F), bin_score[:6])]),
    "auc_all_negative": ("AUC", {"curve": "PR"}, [(np.zeros(6, F), bin_score[:6])]),
    "auc_pr": ("AUC", {"curve": "PR"}, [(bin_true, bin_score), (bin_true, bin_score, bin_weight)]),
    "auc_pr_thresholds_list": (
        "AUC",
        {"curve": "PR", "thresholds": [0.1, 0.45, 0.55, 0.7]},
        [(bin_true, bin_score)],
    ),
    "auc_pr_minoring": (
        "AUC",
        {"curve": "PR", "summation_method": "minoring"},
        [(bin_true, bin_score)],
    ),
    "auc_pr_majoring": (
        "AUC",
        {"curve": "PR", "summation_method": "majoring"},
        [(bin_true, bin_score, bin_weight)],
    ),
    "auc_roc_majoring": (
        "AUC",
        {"summation_method": "majoring", "num_thresholds": 11},
        [(bin_true, bin_score)],
    ),
    "auc_roc_minoring": (
        "AUC",
        {"summation_method": "minoring", "num_thresholds": 11},
        [(bin_true, bin_score)],
    ),
    "auc_from_logits": ("AUC", {"from_logits": True}, [(logit_true, logits)]),
    "auc_flattened_label_weights": (
        "AUC",
        {"label_weights": [1.0, 0.5, 2.0]},
        [(ml_true, ml_score), (ml_true, ml_score, ml_weight)],
    ),
    "auc_multi_label": (
        "AUC",
        {"multi_label": True},
        [(ml_true, ml_score), (ml_true, ml_score, ml_weight)],
    ),
    "auc_multi_label_weights": (
        "AUC",
        {"multi_label": True, "num_labels": 3, "label_weights": [1.0, 0.0, 3.0]},
        [(ml_true, ml_score, ml_weight)],
    ),
    "auc_multi_label_pr": (
        "AUC",
        {"multi_label": True, "curve": "PR", "label_weights": [0.5, 1.0, 1.0]},
        [(ml_true, ml_score)],
    ),
    "auc_multi_label_2d_weights": (
        "AUC",
        {"multi_label": True, "num_thresholds": 5},
        [(ml_true, ml_score, rng.uniform(0, 1, size=(6, 3)).astype(F))],
    ),
}

# name -> (function, kwargs, y_true, y_pred)
FUNCTIONS: dict[str, tuple[str, dict[str, Any], np.ndarray, np.ndarray]] = {
    "accuracy": ("accuracy", {}, sparse.reshape(5, 1), np.array([0, 1, 1, 3, 0], I)),
    "binary_accuracy": ("binary_accuracy", {"threshold": 0.5}, bin_true, bin_score),
    "categorical_accuracy": ("categorical_accuracy", {}, onehot, probs),
    "sparse_categorical_accuracy": ("sparse_categorical_accuracy", {}, seq_labels, seq_scores),
    "top_k_categorical_accuracy": ("top_k_categorical_accuracy", {"k": 2}, onehot, probs),
}


def encode(a: Any) -> dict[str, Any]:
    """An array as JSON: dtype, shape and row-major values."""
    a = np.asarray(a)
    values = a.reshape(-1).tolist()
    if a.dtype == np.float32:  # the shortest decimal that reads back as the same float32
        values = [float(str(np.float32(v))) for v in values]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": values}


def main() -> None:
    import keras
    import tensorflow as tf
    from keras.src.metrics import accuracy_metrics

    cases = []
    for name, (cls, kwargs, updates) in CASES.items():
        metric = getattr(keras.metrics, cls)(**kwargs)
        results = []
        for args in updates:
            tensors = [tf.constant(a) for a in args]
            if len(args) == 3:
                metric.update_state(tensors[0], tensors[1], sample_weight=tensors[2])
            else:
                metric.update_state(*tensors)
            results.append(float(metric.result()))
        variables = {v.path.split("/")[-1]: encode(np.asarray(v)) for v in metric.variables}
        metric.reset_state()
        cases.append(
            {
                "name": name,
                "metric": cls,
                "kwargs": kwargs,
                "updates": [[encode(a) for a in args] for args in updates],
                "results": results,
                "variables": variables,
                "reset": float(metric.result()),
            }
        )
    functions = []
    for name, (fn, kwargs, y_true, y_pred) in FUNCTIONS.items():
        values = getattr(accuracy_metrics, fn)(tf.constant(y_true), tf.constant(y_pred), **kwargs)
        functions.append(
            {
                "name": name,
                "function": fn,
                "kwargs": kwargs,
                "y_true": encode(y_true),
                "y_pred": encode(y_pred),
                "values": encode(np.asarray(values)),
            }
        )
    out = {
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "cases": cases,
        "functions": functions,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(
        f"wrote {path}: {len(cases)} cases, {len(functions)} functions, "
        f"tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
