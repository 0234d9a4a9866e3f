"""F-score and IoU metrics against Keras 3 (tests/reference/gen_scores.py): every `average`,
thresholds, sample weights, target classes, ignored and out-of-range labels, dense inputs;
in `compile`; and the errors."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest
import rustape as rt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_scores

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "scores.npz"),
    allow_pickle=False,
)


def _compare(ours: dict[str, np.ndarray], prefix: str) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and set(ours) == expected
    for key in sorted(expected):
        assert ours[key].dtype == REF[key].dtype, key
        np.testing.assert_allclose(ours[key], REF[key], rtol=1e-6, atol=1e-7, err_msg=key)


def test_fscores_match_keras() -> None:
    _compare(gen_scores._fscores(rt.keras), "fscore/")


def test_ious_match_keras() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float weights into int counts: Keras warns too
        _compare(gen_scores._ious(rt.keras), "iou/")


def test_docstring_values_match_keras() -> None:
    _compare(gen_scores._examples(rt.keras), "example/")


def test_scores_in_compile_and_reset() -> None:
    model = rt.keras.Sequential([rt.keras.Input(shape=(3,)), rt.keras.layers.Dense(2, "softmax")])
    model.compile(
        optimizer="sgd",
        loss="categorical_crossentropy",
        metrics=[rt.keras.metrics.F1Score(average="macro"), rt.keras.metrics.OneHotMeanIoU(2)],
    )
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = np.eye(2, dtype=np.float32)[np.arange(8) % 2]
    logs = model.evaluate(x, y, return_dict=True)
    assert set(logs) == {"loss", "f1_score", "one_hot_mean_io_u"}
    assert 0.0 <= logs["f1_score"] <= 1.0 and 0.0 <= logs["one_hot_mean_io_u"] <= 1.0
    metric = rt.keras.metrics.MeanIoU(num_classes=3)
    metric.update_state([0, 1], [0, 1])
    metric.reset_state()
    assert float(metric.result()) == 0.0
    with pytest.warns(UserWarning, match="weight as `float`"):
        metric.update_state([0], [0], sample_weight=np.array([0.5], np.float32))


def test_score_errors() -> None:
    with pytest.raises(ValueError, match="Invalid `average`"):
        rt.keras.metrics.F1Score(average="mean")
    with pytest.raises(ValueError, match="threshold"):
        rt.keras.metrics.F1Score(threshold=1.5)
    with pytest.raises(ValueError, match="beta"):
        rt.keras.metrics.FBetaScore(beta=0.0)
    with pytest.raises(ValueError, match="2D inputs"):
        rt.keras.metrics.F1Score().update_state([1.0, 0.0], [0.3, 0.7])
    with pytest.raises(ValueError, match="Target class id 3 is out of range"):
        rt.keras.metrics.IoU(num_classes=3, target_class_ids=[3])
