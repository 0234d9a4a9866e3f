"""`rt.keras.regularizers` and `rt.keras.constraints`: values, layer `losses` and training
runs against Keras 3 (tests/reference/gen_regularizers.py), gradients against finite
differences, and the errors for bad arguments."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_regularizers

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "regularizers.npz"),
    allow_pickle=False,
)


@pytest.fixture(scope="module")
def ours() -> dict[str, np.ndarray]:
    return gen_regularizers.run(rt.keras, rt)


def _compare(ours: dict[str, np.ndarray], prefix: str, rtol: float = 1e-5) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and {k for k in ours if k.startswith(prefix)} == expected
    for key in sorted(expected):
        np.testing.assert_allclose(ours[key], REF[key], rtol=rtol, atol=1e-6, err_msg=key)


def test_regularizer_and_constraint_values_match_keras(ours: dict[str, np.ndarray]) -> None:
    # L1, L2, L1L2, the string defaults, OrthogonalRegularizer by rows and columns; MaxNorm
    # (one axis and a kernel's three), NonNeg, UnitNorm, MinMaxNorm with a rate.
    _compare(ours, "reg/")
    _compare(ours, "con/")


@pytest.mark.parametrize("name", gen_regularizers.LAYERS)
def test_layer_losses_match_keras(ours: dict[str, np.ndarray], name: str) -> None:
    # Weight penalties (kernel, recurrent, bias, embeddings, gamma/beta, alpha, depthwise)
    # and the activity penalty divided by the batch size, in Keras's order.
    _compare(ours, f"{name}/")


def test_fit_adds_penalties_and_applies_constraints_like_keras(
    ours: dict[str, np.ndarray],
) -> None:
    # Four epochs of SGD with momentum: the logged loss includes the penalties, and the
    # MaxNorm / NonNeg / MinMaxNorm constraints project the weights after every step.
    _compare(ours, "fit/", rtol=1e-4)
    assert (ours["fit/w2"] >= 0).all()


def test_tape_loop_with_model_losses_matches_keras(ours: dict[str, np.ndarray]) -> None:
    # A GradientTape loop adding `model.losses` to the loss; Adam applies the constraints.
    _compare(ours, "tape/", rtol=1e-4)


@pytest.mark.parametrize(
    "regularizer",
    [
        rt.keras.regularizers.L1L2(l1=0.3, l2=0.2),
        rt.keras.regularizers.OrthogonalRegularizer(0.4),
        rt.keras.regularizers.OrthogonalRegularizer(0.4, mode="columns"),
    ],
    ids=["l1l2", "orthogonal_rows", "orthogonal_columns"],
)
def test_regularizer_gradients_match_finite_differences(regularizer: Any) -> None:
    # Away from 0, where |x| is smooth, and from orthogonal pairs (|dot| is not smooth there).
    x = np.random.default_rng(2).uniform(0.2, 1.0, size=(4, 3)) * np.array([1, -1, 1])
    check_gradients(lambda t: regularizer(t), [x])


@pytest.mark.parametrize(
    "constraint",
    [
        rt.keras.constraints.MaxNorm(0.8),
        rt.keras.constraints.UnitNorm(axis=1),
        rt.keras.constraints.MinMaxNorm(1.5, 2.0, rate=0.5),
    ],
    ids=["max_norm", "unit_norm", "min_max_norm"],
)
def test_constraint_gradients_match_finite_differences(constraint: Any) -> None:
    x = np.random.default_rng(3).uniform(0.2, 1.0, size=(3, 4))
    check_gradients(lambda t: constraint(t), [x], second_order=False)


def test_losses_are_recomputed_from_the_current_weights() -> None:
    layer = rt.keras.layers.Dense(
        2,
        kernel_initializer="ones",
        use_bias=False,
        kernel_regularizer=rt.keras.regularizers.L2(1.0),
    )
    layer(rt.ones([1, 3]))
    assert [float(v) for v in layer.losses] == [6.0]
    layer.kernel.assign(rt.fill([3, 2], 2.0))
    assert [float(v) for v in layer.losses] == [24.0]
    # A frozen layer's weights are not trainable: no penalty (Keras counts trainable ones).
    layer.trainable = False
    assert layer.losses == []


def test_penalty_gradient_reaches_the_kernel() -> None:
    layer = rt.keras.layers.Dense(
        1,
        kernel_initializer="ones",
        use_bias=False,
        kernel_regularizer=rt.keras.regularizers.L2(0.5),
    )
    layer(rt.ones([1, 2]))
    with rt.GradientTape() as tape:
        penalty = rt.add_n(layer.losses)
    np.testing.assert_allclose(tape.gradient(penalty, layer.kernel).numpy(), [[1.0], [1.0]])


def test_nested_layers_count_each_penalty_once() -> None:
    inner = rt.keras.layers.Dense(2, kernel_regularizer="l2", kernel_initializer="ones")

    class Outer(rt.keras.layers.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.a = inner
            self.b = [inner]

        def call(self, x: Any) -> Any:
            return self.a(x)

    outer = Outer()
    outer(rt.ones([1, 3]))
    assert len(outer.losses) == 1
    np.testing.assert_allclose(float(outer.losses[0]), 0.06, rtol=1e-6)


def test_constraints_apply_only_to_updated_variables() -> None:
    constrained = rt.Variable([-1.0, 2.0])
    rt.keras.constraints.attach(constrained, rt.keras.constraints.NonNeg())
    other = rt.Variable([-1.0])
    opt = rt.keras.optimizers.SGD(1.0)
    opt.apply_gradients([(rt.constant([1.0, 1.0]), constrained), (rt.constant([1.0]), other)])
    assert constrained.numpy().tolist() == [0.0, 1.0]
    assert other.numpy().tolist() == [-2.0]  # no constraint attached
    rt.keras.constraints.attach(constrained, None)
    opt.apply_gradients([(rt.constant([1.0, 1.0]), constrained)])
    assert constrained.numpy().tolist() == [-1.0, 0.0]


def test_identifiers_and_serialization() -> None:
    reg, con = rt.keras.regularizers, rt.keras.constraints
    assert isinstance(reg.get("l1"), reg.L1) and reg.get("l1").l1 == 0.01
    assert reg.get("L1L2").get_config() == {"l1": 0.0, "l2": 0.0}
    assert isinstance(reg.get(reg.L2), reg.L2)
    assert reg.get(None) is None
    r = reg.deserialize(reg.serialize(reg.OrthogonalRegularizer(0.2, "columns")))
    assert r.get_config() == {"factor": 0.2, "mode": "columns"}
    c = con.get({"class_name": "MinMaxNorm", "config": {"min_value": 1.0}})
    assert c.get_config() == {"min_value": 1.0, "max_value": 1.0, "rate": 1.0, "axis": 0}
    assert reg.l1_l2 is reg.L1L2 and con.max_norm is con.MaxNorm

    def penalty(x: Any) -> Any:
        return rt.reduce_sum(x)

    assert reg.get(penalty) is penalty


def test_bad_arguments_raise_clear_errors() -> None:
    reg, con = rt.keras.regularizers, rt.keras.constraints
    with pytest.raises(ValueError, match="non-negative float.*l2=-1"):
        reg.L2(-1)
    with pytest.raises(ValueError, match="non-negative float.*l1=nan"):
        reg.L1(float("nan"))
    with pytest.raises(ValueError, match="mode"):
        reg.OrthogonalRegularizer(mode="diagonal")
    with pytest.raises(ValueError, match="rank 2"):
        reg.OrthogonalRegularizer()(rt.ones([2, 2, 2]))
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier"):
        rt.keras.layers.Dense(2, kernel_regularizer="l3")
    with pytest.raises(ValueError, match="Could not interpret constraint identifier"):
        rt.keras.layers.Dense(2, bias_constraint="positive")
    with pytest.raises(ValueError, match="Could not interpret constraint config"):
        con.deserialize({"class_name": "Nope"})
    with pytest.raises(TypeError, match="unexpected"):
        rt.keras.layers.Dense(2, kernel_regulariser="l2")
