"""rt.keras.metrics' PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity and
SpecificityAtSensitivity against Keras 3 in TensorFlow 2.21 (tests/reference/gen_metrics2.py):
results after each of several batches, with and without class_id and sample weights, the
counts, names, config and bad arguments."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_metrics2 as gen

REF = np.load(os.path.join(HERE, "..", "reference", "metrics2.npz"), allow_pickle=False)
METRICS = rt.keras.metrics
KINDS = ("true_positives", "false_positives", "true_negatives", "false_negatives")


@pytest.mark.parametrize("name", sorted(gen.CONFIGS))
def test_matches_keras_batch_by_batch(name: str) -> None:
    cls, target, kwargs, _ = gen.CONFIGS[name]
    metric = getattr(METRICS, cls)(target, **kwargs)
    results = []
    for y_true, y_pred, weight in gen.batches(name):
        metric.update_state(y_true, y_pred, sample_weight=weight)
        results.append(float(metric.result()))
    np.testing.assert_allclose(results, REF[f"{name}/results"], rtol=1e-6)
    for kind in KINDS:
        # Weighted counts are float32 totals minus running sums (Keras sums in another order):
        # equal to 1e-6 of the largest count.
        want = REF[f"{name}/{kind}"]
        scale = float(np.max(np.abs(want)))
        np.testing.assert_allclose(getattr(metric, kind), want, rtol=1e-6, atol=1e-6 * scale)
    # Keras numbers the names of later instances in one process (`_1`, `_2`, ...).
    assert str(REF[f"{name}/name"]).startswith(metric.name)
    metric.reset_state()
    assert float(metric.result()) == 0.0
    assert all(not np.any(getattr(metric, kind)) for kind in KINDS)


@pytest.mark.parametrize(
    ("cls", "target"),
    [
        ("PrecisionAtRecall", "recall"),
        ("RecallAtPrecision", "precision"),
        ("SensitivityAtSpecificity", "specificity"),
        ("SpecificityAtSensitivity", "sensitivity"),
    ],
)
def test_config_and_bad_arguments(cls: str, target: str) -> None:
    metric = getattr(METRICS, cls)(0.25, num_thresholds=7, class_id=1, name="mine")
    config = metric.get_config()
    assert config[target] == 0.25 and config["num_thresholds"] == 7 and config["class_id"] == 1
    again = type(metric).from_config(config)
    assert again.get_config() == config and len(again.thresholds) == 7
    with pytest.raises(ValueError, match=f"{cls}.*{target}"):
        getattr(METRICS, cls)(1.5)
    with pytest.raises(ValueError, match=f"{cls}.*num_thresholds"):
        getattr(METRICS, cls)(0.5, num_thresholds=0)
    with pytest.raises(ValueError, match="class_id"):
        getattr(METRICS, cls)(0.5, class_id=4).update_state([[1, 0]], [[0.2, 0.7]])


def test_in_compile_and_fit() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    model = rt.keras.Sequential(
        [rt.keras.Input(shape=(4,)), rt.keras.layers.Dense(1, activation="sigmoid")]
    )
    metric: Any = METRICS.PrecisionAtRecall(0.5)
    model.compile(optimizer="adafactor", loss="binary_crossentropy", metrics=[metric])
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0).history
    assert "precision_at_recall" in history
    assert all(0.0 <= v <= 1.0 for v in history["precision_at_recall"])
