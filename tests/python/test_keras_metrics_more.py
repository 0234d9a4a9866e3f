"""Keras 3's loss-valued, correlation and R2 metrics and `tf.math.in_top_k` against Keras
and TensorFlow (tests/reference/gen_metrics_more.py): results after each of three batches
(the last weighted), the metric functions' values, `in_top_k` with ties, non-finite rows and
out-of-range targets; names, configs and resets."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_metrics_more as gen

REF = np.load(os.path.join(HERE, "..", "reference", "metrics_more.npz"), allow_pickle=False)
M = rt.keras.metrics


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_metric_results_match_keras(name):
    cls, kwargs, data = gen.CASES[name]
    metric = getattr(M, cls)(**kwargs)
    results = []
    for y_true, y_pred, weight in gen.batches(data):
        metric.update_state(y_true, y_pred, sample_weight=weight)
        results.append(np.asarray(metric.result().numpy()))
    np.testing.assert_allclose(np.stack(results), REF[f"{name}/results"], rtol=2e-5, atol=2e-6)
    metric.reset_state()
    y_true, y_pred, _ = gen.batches(data)[0]
    metric.update_state(y_true, y_pred)
    np.testing.assert_allclose(metric.result().numpy(), REF[f"{name}/results"][0], rtol=2e-5,
                               atol=2e-6)


@pytest.mark.parametrize("name", sorted(gen.FUNCTIONS))
def test_metric_functions_match_keras(name):
    fn, kwargs, data = gen.FUNCTIONS[name]
    y_true, y_pred = gen._DATA[data][0]
    got = getattr(M, fn)(y_true, y_pred, **kwargs)
    np.testing.assert_allclose(np.asarray(got), REF[f"fn/{name}"], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(gen.IN_TOP_K))
def test_in_top_k_matches_tensorflow(name):
    targets, predictions, k = gen.IN_TOP_K[name]
    np.testing.assert_array_equal(rt.math.in_top_k(targets, predictions, k).numpy(),
                                  REF[f"in_top_k/{name}"])
    np.testing.assert_array_equal(rt.nn.in_top_k(targets, predictions, k).numpy(),
                                  REF[f"in_top_k/{name}"])


def test_in_top_k_rejects_bad_shapes_and_dtypes():
    with pytest.raises(ValueError, match="in_top_k"):
        rt.math.in_top_k([0, 1], [[0.1, 0.2]], 1)
    with pytest.raises(TypeError, match="int32 or int64"):
        rt.math.in_top_k([0.0], [[0.1, 0.2]], 1)


def test_names_configs_and_compile_strings():
    assert type(M.get("binary_crossentropy")) is M.BinaryCrossentropy
    assert type(M.get("r2_score")) is M.R2Score and type(M.get("msle")) is M.MeanSquaredLogarithmicError
    assert M.binary_crossentropy is rt.keras.losses.binary_crossentropy
    for metric in [M.SparseTopKCategoricalAccuracy(k=3), M.CosineSimilarity(axis=0),
                   M.BinaryCrossentropy(from_logits=True), M.R2Score(num_regressors=1)]:
        again = M.deserialize(M.serialize(metric))
        assert type(again) is type(metric) and again.get_config() == metric.get_config()
    model = rt.keras.Sequential([rt.keras.Input((3,)), rt.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["msle", "logcosh", M.R2Score()])
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    logs = model.evaluate(x, x[:, :1], verbose=0, return_dict=True)
    assert {"msle", "logcosh", "r2_score"} <= set(logs)  # named as compile was given them


def test_r2_score_checks_its_arguments_and_inputs():
    with pytest.raises(ValueError, match="class_aggregation"):
        M.R2Score(class_aggregation="median")
    with pytest.raises(ValueError, match="num_regressors"):
        M.R2Score(num_regressors=-1)
    with pytest.raises(ValueError, match="2D inputs"):
        M.R2Score().update_state([[[1.0]]], [[[1.0]]])
    m = M.R2Score(num_regressors=5)
    m.update_state([[1.0], [2.0]], [[1.0], [2.5]])
    with pytest.warns(UserWarning, match="More independent predictors"):
        m.result()
