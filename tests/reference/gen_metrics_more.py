"""Reference values of Keras 3's metrics that rustape added after gen_metrics.py (TensorFlow
2.21 backend): each metric's result after each of three batches (the last one weighted), for
several configurations, the metric functions' per-sample values, and `tf.math.in_top_k`.

Run with TensorFlow's venv (see README.md); writes metrics_more.npz beside this file.
`CASES`, `FUNCTIONS`, `batches` and `IN_TOP_K` are imported by the test.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_rng = np.random.default_rng(31)


def _probs(shape: tuple[int, ...]) -> np.ndarray:
    p = _rng.uniform(0.05, 1.0, size=shape)
    return (p / p.sum(-1, keepdims=True)).astype(np.float32)


_DATA: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {
    "binary": [
        (
            (_rng.uniform(size=(4, 3)) > 0.5).astype(np.float32),
            _rng.uniform(0.05, 0.95, size=(4, 3)).astype(np.float32),
        )
        for _ in range(3)
    ],
    "logits": [
        (
            (_rng.uniform(size=(4, 3)) > 0.5).astype(np.float32),
            _rng.normal(size=(4, 3)).astype(np.float32) * 3,
        )
        for _ in range(3)
    ],
    "onehot": [
        (np.eye(5, dtype=np.float32)[_rng.integers(0, 5, 4)], _probs((4, 5))) for _ in range(3)
    ],
    "sparse": [(_rng.integers(0, 5, 4).astype(np.int32), _probs((4, 5))) for _ in range(3)],
    "sparse_ties": [
        (
            np.array([0, 1, 2, 4], np.int32),
            np.array(
                [
                    [0.3, 0.3, 0.2, 0.1, 0.1],
                    [0.2, 0.2, 0.2, 0.2, 0.2],
                    [0.1, 0.5, 0.2, 0.2, 0.0],
                    [0.0, 0.1, 0.2, 0.3, 0.4],
                ],
                np.float32,
            ),
        )
        for _ in range(3)
    ],
    "regression": [
        (_rng.normal(size=(4, 3)).astype(np.float32), _rng.normal(size=(4, 3)).astype(np.float32))
        for _ in range(3)
    ],
    "positive": [
        (
            _rng.uniform(0.1, 3.0, size=(4, 3)).astype(np.float32),
            _rng.uniform(0.1, 3.0, size=(4, 3)).astype(np.float32),
        )
        for _ in range(3)
    ],
    "signed": [
        (
            np.where(_rng.uniform(size=(4, 3)) > 0.5, 1.0, -1.0).astype(np.float32),
            _rng.normal(size=(4, 3)).astype(np.float32),
        )
        for _ in range(3)
    ],
    "correlated": [
        (
            y := _rng.normal(size=(4, 6)).astype(np.float32),
            (y + 0.5 * _rng.normal(size=(4, 6))).astype(np.float32),
        )
        for _ in range(3)
    ],
}
_WEIGHTS = np.array([0.5, 2.0, 0.0, 1.0], np.float32)

# name -> (class, constructor arguments, data)
CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "bce": ("BinaryCrossentropy", {}, "binary"),
    "bce_logits_smooth": (
        "BinaryCrossentropy",
        {"from_logits": True, "label_smoothing": 0.2},
        "logits",
    ),
    "cce": ("CategoricalCrossentropy", {}, "onehot"),
    "cce_smooth": ("CategoricalCrossentropy", {"label_smoothing": 0.1}, "onehot"),
    "scce": ("SparseCategoricalCrossentropy", {}, "sparse"),
    "scce_ignore": ("SparseCategoricalCrossentropy", {"ignore_class": 2}, "sparse"),
    "hinge": ("Hinge", {}, "signed"),
    "squared_hinge": ("SquaredHinge", {}, "binary"),
    "categorical_hinge": ("CategoricalHinge", {}, "onehot"),
    "kld": ("KLDivergence", {}, "onehot"),
    "poisson": ("Poisson", {}, "positive"),
    "logcosh": ("LogCoshError", {}, "regression"),
    "mape": ("MeanAbsolutePercentageError", {}, "positive"),
    "msle": ("MeanSquaredLogarithmicError", {}, "positive"),
    "cosine": ("CosineSimilarity", {}, "regression"),
    "sparse_top2": ("SparseTopKCategoricalAccuracy", {"k": 2}, "sparse"),
    "sparse_top1_ties": ("SparseTopKCategoricalAccuracy", {"k": 1}, "sparse_ties"),
    "sparse_top3_ties": ("SparseTopKCategoricalAccuracy", {"k": 3}, "sparse_ties"),
    "pearson": ("PearsonCorrelation", {}, "correlated"),
    "concordance": ("ConcordanceCorrelation", {}, "correlated"),
    "r2": ("R2Score", {}, "regression"),
    "r2_variance": ("R2Score", {"class_aggregation": "variance_weighted_average"}, "regression"),
    "r2_raw": ("R2Score", {"class_aggregation": None}, "regression"),
    "r2_adjusted": ("R2Score", {"num_regressors": 2}, "regression"),
}
# name -> (function, keyword arguments, data)
FUNCTIONS: dict[str, tuple[str, dict[str, Any], str]] = {
    "sparse_top_k_categorical_accuracy": ("sparse_top_k_categorical_accuracy", {"k": 2}, "sparse"),
    "sparse_top_k_sorted_ids": (
        "sparse_top_k_categorical_accuracy",
        {"k": 2, "from_sorted_ids": True},
        "sorted_ids",
    ),
    "pearson_correlation": ("pearson_correlation", {}, "correlated"),
    "concordance_correlation": ("concordance_correlation", {}, "correlated"),
    "concordance_axis0": ("concordance_correlation", {"axis": 0}, "correlated"),
}
_DATA["sorted_ids"] = [
    (
        np.array([3, 1, 0, 2], np.int32),
        np.array([[3, 1, 2], [0, 2, 1], [2, 1, 0], [1, 0, 3]], np.float32),
    )
]

# in_top_k: (targets, predictions, k), with ties, a non-finite row and out-of-range targets.
IN_TOP_K = {
    "plain": (np.array([1, 0, 3], np.int32), _rng.normal(size=(3, 4)).astype(np.float32), 2),
    "ties": (np.array([0, 1, 2, 4], np.int32), _DATA["sparse_ties"][0][1], 1),
    "nonfinite": (
        np.array([0, 1], np.int32),
        np.array([[1.0, np.inf, 0.0], [np.nan, 2.0, 1.0]], np.float32),
        2,
    ),
    "out_of_range": (
        np.array([-1, 3, 2], np.int64),
        np.array([[0.1, 0.2, 0.3]] * 3, np.float32),
        3,
    ),
    "float64_k3": (np.array([4, 0], np.int32), _rng.normal(size=(2, 6)), 3),
}


def batches(data: str) -> list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """The three batches of `data`, the last weighted."""
    out = _DATA[data]
    return [(t, p, _WEIGHTS if i == 2 else None) for i, (t, p) in enumerate(out)]


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name, (cls, kwargs, data) in CASES.items():
        metric = getattr(keras.metrics, cls)(**kwargs)
        results = []
        for y_true, y_pred, weight in batches(data):
            metric.update_state(y_true, y_pred, sample_weight=weight)
            results.append(np.asarray(metric.result()))
        out[f"{name}/results"] = np.stack(results)
    for name, (fn, kwargs, data) in FUNCTIONS.items():
        y_true, y_pred = _DATA[data][0]
        out[f"fn/{name}"] = np.asarray(getattr(keras.metrics, fn)(y_true, y_pred, **kwargs))
    for name, (targets, predictions, k) in IN_TOP_K.items():
        out[f"in_top_k/{name}"] = tf.math.in_top_k(targets, predictions, k).numpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics_more.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
