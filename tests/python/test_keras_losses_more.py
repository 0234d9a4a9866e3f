"""Keras 3's newer losses against Keras (tests/reference/gen_losses_more.py): MSLE, the focal
cross-entropies, generalized cross-entropy, Dice, Tversky and Circle: per-sample values,
every reduction with and without sample weights, gradients with respect to `y_pred`, in
float32 and float64; float64 central differences; names, configs and bad arguments."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_losses_more as gen

REF = np.load(os.path.join(HERE, "..", "reference", "losses_more.npz"), allow_pickle=False)
L = rt.keras.losses
TOLERANCE = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_function_matches_keras(name, dtype):
    _, _, fn, fn_kwargs, _, _ = gen.CASES[name]
    y_true, y_pred, _ = gen.inputs(name, dtype)
    got = getattr(L, fn)(y_true, y_pred, **fn_kwargs)
    np.testing.assert_allclose(got.numpy(), REF[f"{name}/{dtype}/fn"], **TOLERANCE[dtype])


@pytest.mark.parametrize("reduction", gen.REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_class_matches_keras(name, dtype, reduction):
    cls, kwargs, _, _, _, _ = gen.CASES[name]
    y_true, y_pred, weights = gen.inputs(name, dtype)
    for weighted in ("plain", "weighted"):
        key = f"{name}/{dtype}/{reduction}/{weighted}"
        if key not in REF.files:
            continue
        loss = getattr(L, cls)(reduction=reduction, dtype=dtype, **kwargs)
        x = rt.Variable(y_pred)
        with rt.GradientTape() as tape:
            value = loss(y_true, x, sample_weight=weights if weighted == "weighted" else None)
            total = rt.reduce_sum(value)
        np.testing.assert_allclose(value.numpy(), REF[key], **TOLERANCE[dtype])
        np.testing.assert_allclose(
            tape.gradient(total, x).numpy(), REF[key + "/grad"], **TOLERANCE[dtype]
        )


@pytest.mark.parametrize("name", ["msle", "bfce_balanced", "bfce_logits_smooth", "cfce",
                                  "cfce_logits", "gce", "dice_axis1", "tversky_ab_axis1"])
def test_gradients_match_central_differences(name):
    cls, kwargs, _, _, _, _ = gen.CASES[name]
    y_true, y_pred, weights = gen.inputs(name, "float64")
    loss = getattr(L, cls)(dtype="float64", **kwargs)
    assert rt.test.gradcheck(lambda p: loss(y_true, p, sample_weight=weights), [y_pred])


def test_names_resolve_and_configs_round_trip():
    assert L.get("binary_focal_crossentropy") is L.binary_focal_crossentropy
    assert L.msle is L.MSLE is L.mean_squared_logarithmic_error
    for loss in [L.Tversky(alpha=0.7, beta=0.3, axis=1), L.CategoricalGeneralizedCrossEntropy(q=0.3),
                 L.Circle(gamma=10.0), L.BinaryFocalCrossentropy(gamma=1.0, from_logits=True),
                 L.Dice(axis=(1, 2))]:
        again = L.deserialize(L.serialize(loss))
        assert type(again) is type(loss) and again.get_config() == loss.get_config()


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match=r"q must be in the interval \(0, 1\)"):
        L.CategoricalGeneralizedCrossEntropy(q=1.5)
    with pytest.raises(ValueError, match="axis"):
        L.categorical_focal_crossentropy([[0.0, 1.0]], [[0.4, 0.6]], axis=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        L.BinaryFocalCrossentropy(beta=2.0)
