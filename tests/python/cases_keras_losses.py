"""Gradient checks of rt.keras.losses (float64, first and second order, central differences):
each loss class with its options, differentiated with respect to the predictions and, for the
soft-label losses, the labels too."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

L = rt.keras.losses
rng = np.random.default_rng(2024)
F64 = {"dtype": "float64"}

PRED = rng.normal(size=(3, 4))
TRUE = rng.normal(size=(3, 4))
PROBS = rng.uniform(0.1, 1.0, size=(3, 4))
PROBS /= PROBS.sum(-1, keepdims=True)
SOFT = rng.uniform(0.1, 1.0, size=(3, 4))
SOFT /= SOFT.sum(-1, keepdims=True)
BINARY = rng.uniform(0.05, 0.95, size=(3, 4))
WEIGHTS = np.array([0.5, 1.0, 2.0])
SPARSE = np.array([0, 3, 1], np.int32)

CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "mse": (lambda p: L.MeanSquaredError(**F64)(TRUE, p), [PRED]),
    "mse_weighted_sum": (
        lambda p: L.MeanSquaredError(reduction="sum", **F64)(TRUE, p, WEIGHTS),
        [PRED],
    ),
    "mae": (lambda p: L.MeanAbsoluteError(**F64)(TRUE, p), [PRED]),
    "mape": (lambda p: L.MeanAbsolutePercentageError(**F64)(TRUE, p), [PRED]),
    "huber": (lambda p: L.Huber(delta=0.7, **F64)(TRUE, p), [PRED]),
    "log_cosh": (lambda p: L.LogCosh(**F64)(TRUE, p), [PRED]),
    "bce": (lambda p: L.BinaryCrossentropy(**F64)(BINARY, p), [BINARY[::-1].copy()]),
    "bce_logits_smoothing": (
        lambda p, y: L.BinaryCrossentropy(from_logits=True, label_smoothing=0.1, **F64)(y, p),
        [PRED, BINARY],
    ),
    "cce": (lambda p: L.CategoricalCrossentropy(**F64)(SOFT, p), [PROBS]),
    "cce_logits": (
        lambda p, y: L.CategoricalCrossentropy(from_logits=True, **F64)(y, p),
        [PRED, SOFT],
    ),
    "cce_logits_axis0": (
        lambda p: L.CategoricalCrossentropy(from_logits=True, axis=0, **F64)(SOFT.T.copy(), p),
        [PRED.T.copy()],
    ),
    "scce_logits": (
        lambda p: L.SparseCategoricalCrossentropy(from_logits=True, **F64)(SPARSE, p),
        [PRED],
    ),
    "scce_probs": (lambda p: L.SparseCategoricalCrossentropy(**F64)(SPARSE, p, WEIGHTS), [PROBS]),
    "kld": (lambda p: L.KLDivergence(**F64)(SOFT, p), [PROBS]),
    "poisson": (lambda p: L.Poisson(**F64)(np.abs(TRUE), p), [np.abs(PRED) + 0.5]),
    "cosine": (lambda p, y: L.CosineSimilarity(**F64)(y, p), [PRED, TRUE]),
    "hinge": (lambda p: L.Hinge(**F64)(np.sign(TRUE), p), [PRED * 0.3]),
    "squared_hinge": (lambda p: L.SquaredHinge(**F64)(np.sign(TRUE), p), [PRED * 0.3]),
    "categorical_hinge": (
        lambda p: L.CategoricalHinge(**F64)(np.eye(4)[SPARSE], p),
        [PRED * 0.3],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_gradients(name: str) -> None:
    fn, inputs = CASES[name]
    check_gradients(fn, inputs)
