"""`rt.keras.layers.Normalization` against Keras 3 (tests/reference/gen_preprocessing.py):
`adapt` on arrays, tensors and batches over several axes, given statistics, `invert`, and
the "Basic regression" tutorial's model trained with `fit`; and its errors."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_preprocessing

REF = np.load(
    os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "reference", "preprocessing.npz"
    ),
    allow_pickle=False,
)


def _compare(ours: dict[str, np.ndarray], prefix: str, rtol: float = 1e-5) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and set(ours) == expected
    for key in sorted(expected):
        np.testing.assert_allclose(ours[key], REF[key], rtol=rtol, atol=1e-5, err_msg=key)


@pytest.mark.parametrize("name", gen_preprocessing.CASES)
def test_normalization_matches_keras(name: str) -> None:
    # The outputs and the weights (mean, variance, count) after adapt.
    _compare(gen_preprocessing._case(rt.keras, rt, name), f"{name}/")


def test_regression_tutorial_fit_matches_keras() -> None:
    _compare(gen_preprocessing._regression(rt.keras), "regression/", rtol=1e-4)


def test_normalization_errors() -> None:
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        rt.keras.layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="same shape"):
        rt.keras.layers.Normalization(mean=[1.0, 2.0], variance=[1.0])
    # Before adapt, the mean is 0 and the variance 1 (Keras's).
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(rt.keras.layers.Normalization()(x).numpy(), x)
    layer = rt.keras.layers.Normalization()
    layer.adapt(np.ones((4, 3)))
    with pytest.raises(ValueError, match="incompatible|built with"):
        layer.adapt(np.ones((4, 5)))
    with pytest.raises(ValueError, match="range"):
        rt.keras.layers.Normalization(axis=3).adapt(np.ones((2, 3)))
