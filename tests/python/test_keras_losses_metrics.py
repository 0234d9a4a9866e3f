"""rt.keras.losses and rt.keras.metrics against Keras 3 in TensorFlow 2.21 on edge cases
(tests/reference/gen_losses.py): values, gradients with respect to y_pred, reductions,
sample weights, ±1e4 logits."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_losses as gen

REF = np.load(os.path.join(HERE, "..", "reference", "losses.npz"), allow_pickle=False)


@pytest.mark.parametrize("name", sorted(gen.LOSS_CASES))
def test_loss_matches_keras(name: str) -> None:
    cls, kwargs, y_true, y_pred, weight = gen.LOSS_CASES[name]
    loss = getattr(rt.keras.losses, cls)(**kwargs)
    value = loss(y_true, y_pred, sample_weight=weight)
    want = REF[f"loss/{name}"]
    got = value.numpy()
    assert got.shape == want.shape
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    x = rt.Variable(y_pred)
    with rt.GradientTape() as tape:
        total = rt.reduce_sum(loss(y_true, x, sample_weight=weight))
    grad = tape.gradient(total, x).numpy()
    assert np.all(np.isfinite(grad))
    np.testing.assert_allclose(grad, REF[f"grad/{name}"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(gen.METRIC_CASES))
def test_metric_matches_keras(name: str) -> None:
    cls, kwargs, updates = gen.METRIC_CASES[name]
    metric = getattr(rt.keras.metrics, cls)(**kwargs)
    results = []
    for args in updates:
        if len(args) == 3:
            metric.update_state(args[0], args[1], sample_weight=args[2])
        else:
            metric.update_state(*args)
        results.append(float(metric.result()))
    np.testing.assert_allclose(results, REF[f"metric/{name}"], rtol=1e-5, atol=1e-6)
    metric.reset_state()
    assert float(metric.result()) == float(REF[f"metric_reset/{name}"])


def test_functions_and_second_order() -> None:
    logits = rt.Variable(np.array([[2.0, -1.0, 0.5]], np.float64))
    with rt.GradientTape() as outer:
        with rt.GradientTape() as inner:
            loss = rt.reduce_sum(
                rt.keras.losses.categorical_crossentropy(
                    np.array([[0.0, 1.0, 0.0]]), logits, from_logits=True
                )
            )
        g = inner.gradient(loss, logits)
        gsum = rt.reduce_sum(g * g)
    h = outer.gradient(gsum, logits)
    # d/dx sum((softmax - y)^2) = 2 (J_softmax (p - y)).
    x = np.array([2.0, -1.0, 0.5])
    p = np.exp(x) / np.exp(x).sum()
    jac = np.diag(p) - np.outer(p, p)
    np.testing.assert_allclose(h.numpy()[0], 2 * jac @ (p - np.array([0, 1, 0])), rtol=1e-10)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="reduction"):
        rt.keras.losses.MeanSquaredError(reduction="avg")
    with pytest.raises(ValueError, match="same shape"):
        rt.keras.losses.categorical_crossentropy(
            np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)
        )
    with pytest.raises(TypeError):
        rt.keras.losses.Huber(gamma=1.0)
    assert rt.keras.losses.get("mse") is rt.keras.losses.mean_squared_error
    assert isinstance(rt.keras.metrics.get("accuracy"), rt.keras.metrics.Accuracy)


def test_huge_logits_stay_finite() -> None:
    y = np.array([[1.0, 0.0]], np.float32)
    for logits in ([[1e4, -1e4]], [[-1e4, 1e4]]):
        x: Any = rt.Variable(np.array(logits, np.float32))
        with rt.GradientTape() as tape:
            loss = rt.keras.losses.BinaryCrossentropy(from_logits=True)(
                y, x
            ) + rt.keras.losses.CategoricalCrossentropy(from_logits=True)(y, x)
        assert np.isfinite(float(loss))
        assert np.all(np.isfinite(tape.gradient(loss, x).numpy()))


# The gradient checks of the losses (first and second order) live in cases_keras_losses.py.
from cases_keras_losses import test_loss_gradients  # noqa: F401
