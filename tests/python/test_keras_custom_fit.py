"""Keras 3's "Customizing what happens in fit()" guide on rustape: the same model classes
(tests/reference/gen_custom_fit.py builds them for either library) give Keras's per-epoch logs
and final weights; plus the step protocol's edges (data packing, metric resets, errors)."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_custom_fit as gen

REF = np.load(os.path.join(HERE, "..", "reference", "custom_fit.npz"), allow_pickle=False)
keras = rt.keras


@pytest.mark.parametrize("name", gen.RUNS)
def test_guide_runs_match_keras(name: str) -> None:
    out = gen.run(rt.keras, rt, name)
    expected = {k for k in REF.files if k.startswith(f"{name}/")}
    assert set(out) == expected
    for key in sorted(expected):
        # Matmul sums in another order than TensorFlow's: a few float32 ulps per step.
        np.testing.assert_allclose(out[key], REF[key], rtol=1e-4, atol=1e-5, err_msg=key)


def test_steps_receive_keras_data_and_metrics_reset_each_epoch() -> None:
    seen: list[Any] = []

    class Probe(keras.Model):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.dense = keras.layers.Dense(1)
            self.count = keras.metrics.Sum(name="count")

        def call(self, x: Any) -> Any:
            return self.dense(x)

        def train_step(self, data: Any) -> Any:
            seen.append(data)
            x = data[0] if isinstance(data, tuple) else data
            self.count.update_state(float(len(x)))
            return {"count": self.count.result()}

    model = Probe()
    model.compile(optimizer="sgd")
    x = np.ones((10, 3), np.float32)
    history = model.fit(x, batch_size=4, epochs=2, shuffle=False)
    # No y: x alone (Keras does not wrap a single array); the count restarts every epoch.
    assert all(isinstance(d, np.ndarray) for d in seen)
    assert [len(d) for d in seen] == [4, 4, 2, 4, 4, 2]
    assert history.history["count"] == [10.0, 10.0]
    seen.clear()
    model.fit(x, np.zeros((10, 1), np.float32), sample_weight=np.ones(10), batch_size=5)
    assert [len(d) for d in seen] == [3, 3]  # (x, y, sample_weight)


def test_compile_without_loss_and_default_steps() -> None:
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    with pytest.raises(RuntimeError, match="compile"):
        model.evaluate(x, x[:, :1])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    assert model.metrics_names == ["loss", "compile_metrics"]  # as Keras names them
    logs = model.evaluate(x, x[:, :1], batch_size=4, return_dict=True)
    assert set(logs) == {"loss", "mae"}
    loss, mae = model.evaluate(x, x[:, :1], batch_size=16)
    pred = model.predict(x)
    assert abs(loss - float(np.mean((pred - x[:, :1]) ** 2))) < 1e-5
    assert abs(mae - float(np.mean(np.abs(pred - x[:, :1])))) < 1e-5
    with pytest.raises(ValueError, match="found a tuple of 4"):
        model.train_step((x, x, x, x))
