"""rt.keras.metrics against Keras 3 in TensorFlow 2.21 (tests/reference/metrics.json, written by
tests/reference/gen_metrics.py): results after each batch, the state's variables, the result
after a reset, the metric functions' values; and the arguments the metrics refuse."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "reference", "metrics.json")) as f:
    REF = json.load(f)
CASES = {case["name"]: case for case in REF["cases"]}
FUNCTIONS = {f["name"]: f for f in REF["functions"]}


def decode(v: dict[str, Any]) -> np.ndarray:
    return np.array(v["values"], dtype=v["dtype"]).reshape(v["shape"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_metric_matches_keras(name: str) -> None:
    case = CASES[name]
    metric = getattr(rt.keras.metrics, case["metric"])(**case["kwargs"])
    results = []
    for update in case["updates"]:
        args = [decode(a) for a in update]
        if case["metric"] in ("Mean", "Sum"):
            metric.update_state(*args)
        else:
            metric.update_state(args[0], args[1], sample_weight=args[2] if len(args) == 3 else None)
        result = metric.result()
        assert result.dtype == rt.float32
        results.append(float(result))
    np.testing.assert_allclose(results, case["results"], rtol=2e-6, atol=2e-6)
    for variable, value in case["variables"].items():
        got = np.asarray(getattr(metric, variable))
        want = decode(value)
        assert got.shape == want.shape, variable
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=variable)
    metric.reset_state()
    assert float(metric.result()) == case["reset"]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_matches_keras(name: str) -> None:
    f = FUNCTIONS[name]
    got = getattr(rt.keras.metrics, f["function"])(
        decode(f["y_true"]), decode(f["y_pred"]), **f["kwargs"]
    )
    want = decode(f["values"])
    assert got.shape == want.shape
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_tensors_and_python_functions_are_accepted() -> None:
    m = rt.keras.metrics.Mean()
    m.update_state(rt.constant([1.0, 2.0]), sample_weight=rt.constant([1.0, 3.0]))
    assert float(m.result()) == 1.75
    assert (float(m.total), float(m.count)) == (7.0, 4.0)
    # Any function of (y_true, y_pred) is averaged; Keras's own run in the engine.
    w = rt.keras.metrics.MeanMetricWrapper(lambda t, p: rt.abs(rt.constant(t) - p))
    w.update_state([1.0, 2.0], rt.constant([0.0, 4.0]))
    assert float(w.result()) == 1.5
    auc = rt.keras.metrics.AUC(num_thresholds=3, from_logits=True)
    auc.update_state(rt.constant([0.0, 1.0]), rt.constant([-2.0, 3.0]))
    assert float(auc.result()) == 1.0
    assert auc.get_config()["num_thresholds"] == 3


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_thresholds"):
        rt.keras.metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="curve"):
        rt.keras.metrics.AUC(curve="PRGAIN")
    with pytest.raises(ValueError, match="summation_method"):
        rt.keras.metrics.AUC(summation_method="trapezoid")
    with pytest.raises(ValueError, match="num_labels"):
        rt.keras.metrics.AUC(num_labels=3)
    with pytest.raises(ValueError, match="label_weights"):
        rt.keras.metrics.AUC(multi_label=True, num_labels=3, label_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"AUC.*\[2\].*\[3\]"):
        rt.keras.metrics.AUC().update_state([1.0, 0.0], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="rank 2"):
        rt.keras.metrics.AUC(multi_label=True).update_state([1.0], [0.5])
    with pytest.raises(ValueError, match=r"Mean.*sample_weight"):
        rt.keras.metrics.Mean().update_state([1.0, 2.0], sample_weight=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="sparse_categorical_accuracy"):
        rt.keras.metrics.SparseCategoricalAccuracy().update_state([1], np.zeros((1, 0), np.float32))
    with pytest.raises(TypeError):
        rt.keras.metrics.BinaryAccuracy(thresh=0.2)
