"""`TruePositives` ... `Precision` and `Recall` against Keras 3 (tests/reference/gen_confusion.py),
and their errors."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_confusion

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "confusion.npz"),
    allow_pickle=False,
)


def _compare(ours: dict[str, np.ndarray], prefix: str, rtol: float = 1e-6) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and set(ours) == expected
    for key in sorted(expected):
        np.testing.assert_allclose(ours[key], REF[key], rtol=rtol, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", gen_confusion.CASES)
def test_confusion_metrics_match_keras(name: str) -> None:
    # After each of three batches (the last two weighted) and after reset_state; one value
    # per threshold when given a list, a scalar otherwise.
    _compare(gen_confusion._case(rt.keras, name), f"{name}/")


def test_fit_logs_precision_and_recall_like_keras() -> None:
    _compare(gen_confusion._fit(rt.keras), "fit/", rtol=1e-5)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="top_k"):
        rt.keras.metrics.Precision(top_k=0)
    with pytest.raises(ValueError, match="thresholds"):
        rt.keras.metrics.Recall(thresholds=float("nan"))
    with pytest.raises(ValueError, match="class_id 5"):
        rt.keras.metrics.Precision(class_id=5).update_state([[1, 0]], [[0.9, 0.1]])
    assert rt.keras.metrics.get("precision").get_config() == {
        "name": "precision",
        "thresholds": 0.5,
        "top_k": None,
        "class_id": None,
    }
