"""Keras 3's F-score and IoU metrics (TensorFlow 2.21): `FBetaScore` / `F1Score` with each
`average`, thresholds and sample weights; `IoU`, `MeanIoU`, `BinaryIoU`, `OneHotIoU`,
`OneHotMeanIoU` with target classes, `ignore_class`, out-of-range labels, weights and dense
inputs; results after two batches, and the docstring examples.

`run(keras)` is imported by the test and runs the same code on rustape's Keras. Run with
TensorFlow's venv (see README.md); writes scores.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def _batches(seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(2):
        y_true = (rng.uniform(size=(6, 4)) > 0.6).astype(np.float32)
        y_pred = rng.uniform(size=(6, 4)).astype(np.float32)
        weight = rng.uniform(0.5, 2.0, size=(6,)).astype(np.float32)
        out.append((y_true, y_pred, weight))
    return out


def _fscores(keras: Any) -> dict[str, np.ndarray]:
    M = keras.metrics
    out: dict[str, np.ndarray] = {}
    for average in (None, "micro", "macro", "weighted"):
        for name, make in (
            ("f1", lambda a: M.F1Score(average=a)),
            ("f1_threshold", lambda a: M.F1Score(average=a, threshold=0.5)),
            ("fbeta", lambda a: M.FBetaScore(average=a, beta=2.0, threshold=0.4)),
        ):
            for weighted in (False, True):
                metric = make(average)
                for y_true, y_pred, weight in _batches(1):
                    metric.update_state(y_true, y_pred, sample_weight=weight if weighted else None)
                key = f"fscore/{name}/{average}/{'weighted' if weighted else 'plain'}"
                out[key] = np.asarray(metric.result())
    return out


def _ious(keras: Any) -> dict[str, np.ndarray]:
    M = keras.metrics
    rng = np.random.default_rng(2)
    labels = [rng.integers(0, 4, size=(3, 5)) for _ in range(2)]
    preds = [rng.integers(0, 4, size=(3, 5)) for _ in range(2)]
    labels[0][0, 0], preds[1][2, 4] = 7, -1  # out of range: left out
    weights = [rng.integers(0, 3, size=(3, 5)).astype(np.float32) for _ in range(2)]
    out: dict[str, np.ndarray] = {}
    cases = {
        "iou": lambda: M.IoU(num_classes=4, target_class_ids=[0, 2]),
        "iou_ignore": lambda: M.IoU(num_classes=4, target_class_ids=[1, 3], ignore_class=0),
        "mean": lambda: M.MeanIoU(num_classes=4),
        "mean_float": lambda: M.MeanIoU(num_classes=4, dtype="float32"),
    }
    for name, make in cases.items():
        for weighted in (False, True):
            metric = make()
            for y, p, w in zip(labels, preds, weights):
                metric.update_state(y, p, sample_weight=w if weighted else None)
            out[f"iou/{name}/{'weighted' if weighted else 'plain'}"] = np.asarray(metric.result())
    binary = M.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
    onehot = M.OneHotIoU(num_classes=4, target_class_ids=[1, 2])
    onehot_mean = M.OneHotMeanIoU(num_classes=4)
    for y_true, y_pred, _ in _batches(3):
        binary.update_state(y_true[:, 0], y_pred[:, 0])
        onehot.update_state(np.eye(4, dtype=np.float32)[np.argmax(y_true, -1)], y_pred)
        onehot_mean.update_state(np.eye(4, dtype=np.float32)[np.argmax(y_true, -1)], y_pred)
    out["iou/binary"] = np.asarray(binary.result())
    out["iou/onehot"] = np.asarray(onehot.result())
    out["iou/onehot_mean"] = np.asarray(onehot_mean.result())
    return out


def _examples(keras: Any) -> dict[str, np.ndarray]:
    """The docstring examples' values."""
    M = keras.metrics
    out: dict[str, np.ndarray] = {}
    m = M.FBetaScore(beta=2.0, threshold=0.5)
    m.update_state(
        np.array([[1, 0], [1, 1]], np.float32), np.array([[0.9, 0.2], [0.4, 0.7]], np.float32)
    )
    out["example/fbeta"] = np.asarray(m.result())
    m = M.F1Score(average="macro")
    m.update_state(
        np.array([[1, 0, 0], [0, 1, 0]], np.float32),
        np.array([[0.7, 0.2, 0.1], [0.6, 0.3, 0.1]], np.float32),
    )
    out["example/f1"] = np.asarray(m.result())
    m = M.IoU(num_classes=2, target_class_ids=[0])
    m.update_state(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))
    out["example/iou"] = np.asarray(m.result())
    m = M.MeanIoU(num_classes=2)
    m.update_state(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))
    out["example/mean_iou"] = np.asarray(m.result())
    m = M.BinaryIoU(target_class_ids=[1], threshold=0.5)
    m.update_state(np.array([0, 1, 1]), np.array([0.2, 0.7, 0.4], np.float32))
    out["example/binary_iou"] = np.asarray(m.result())
    onehot = np.array([[1, 0], [0, 1]], np.float32)
    scores = np.array([[0.2, 0.8], [0.3, 0.7]], np.float32)
    m = M.OneHotIoU(num_classes=2, target_class_ids=[1])
    m.update_state(onehot, scores)
    out["example/onehot_iou"] = np.asarray(m.result())
    m = M.OneHotMeanIoU(num_classes=2)
    m.update_state(onehot, scores)
    out["example/onehot_mean_iou"] = np.asarray(m.result())
    return out


def run(keras: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras` (Keras 3, or rustape's `rt.keras`)."""
    out = _fscores(keras)
    out.update(_ious(keras))
    out.update(_examples(keras))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scores.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
