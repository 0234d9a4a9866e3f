"""rt.keras.optimizers' Ftrl, Lamb and Adafactor against Keras 3 in TensorFlow 2.21: 30 steps
on variables of ranks 0 to 3 in float32 and float64, with schedules, weight decay and each
clipping (tests/reference/gen_optimizers2.py), `fit` with each optimizer, and their bookkeeping
(variables in Keras's order, config round trip, string names, bad arguments)."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_optimizers2 as gen

REF = np.load(os.path.join(HERE, "..", "reference", "optimizers2.npz"), allow_pickle=False)
OPT = rt.keras.optimizers


def tolerance(dtype: np.dtype) -> float:
    """Relative tolerance, to each variable's largest magnitude: elementwise steps agree to the
    bit; norms and means sum in another order than TensorFlow's reductions (a few units in the
    last place, compounding over the steps)."""
    return 1e-6 if dtype == np.float32 else 1e-12


@pytest.mark.parametrize("name", sorted(gen.CONFIGS))
def test_trajectory_matches_keras(name: str) -> None:
    dtype = np.dtype(gen.CONFIGS[name][2])
    opt = gen.make_optimizer(OPT, name)
    inits, _, _, _ = gen.problem(dtype)
    variables = [rt.Variable(w, name=f"w{k}") for k, w in enumerate(inits)]
    saved = 0
    rtol = tolerance(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(gen.STEPS):
            grads = gen.gradients(step, [v.numpy() for v in variables], dtype)
            opt.apply_gradients(
                [(None if g is None else rt.constant(g), v) for g, v in zip(grads, variables)]
            )
            if step + 1 not in gen.SAVED:
                continue
            for k, v in enumerate(variables):
                want = REF[f"{name}/w{k}"][saved]
                got = v.numpy()
                assert got.dtype == want.dtype and got.shape == want.shape
                scale = float(np.max(np.abs(want)))
                np.testing.assert_allclose(
                    got, want, rtol=rtol, atol=rtol * scale, err_msg=f"{name} step {step + 1} w{k}"
                )
            saved += 1
    assert int(opt.iterations.numpy()) == int(REF[f"{name}/iterations"])


@pytest.mark.parametrize("name", sorted(gen.FIT_RUNS))
def test_fit_by_name_matches_keras(name: str) -> None:
    x, y, weights = gen.fit_setup()
    model = rt.keras.Sequential(
        [
            rt.keras.Input(shape=(6,)),
            rt.keras.layers.Dense(8, activation="tanh"),
            rt.keras.layers.Dense(2),
        ]
    )
    model.set_weights(weights)
    spec = gen.FIT_RUNS[name]
    optimizer = spec if spec.islower() else getattr(OPT, spec)()
    model.compile(optimizer=optimizer, loss="mse")
    history = model.fit(
        x, y, batch_size=gen.FIT_BATCH, epochs=gen.FIT_EPOCHS, shuffle=False, verbose=0
    ).history
    np.testing.assert_allclose(history["loss"], REF[f"{name}/loss"], rtol=1e-5)
    for k, w in enumerate(model.get_weights()):
        np.testing.assert_allclose(w, REF[f"{name}/w{k}"], rtol=1e-5, atol=1e-7)


def test_variables_in_keras_order() -> None:
    shapes = [(), (3,), (2, 3), (2, 3, 4)]
    names = "abcd"
    vs = [rt.Variable(np.ones(s, np.float32), name=n) for n, s in zip(names, shapes)]
    vs[2] = rt.Variable(np.ones((2, 3)), name="c")  # float64
    ada = OPT.Adafactor()
    ada.build(vs)
    got = [(v.name.split(":")[0], tuple(v.shape), v.dtype.name) for v in ada.variables]
    assert got == [
        ("iteration", (), "int64"),
        ("learning_rate", (), "float32"),
        ("a", (), "int32"),
        ("a", (), "int32"),
        ("adafactor/a_velocity", (), "float32"),
        ("b", (), "int32"),
        ("b", (), "int32"),
        ("adafactor/b_velocity", (3,), "float32"),
        ("adafactor/c", (2,), "float64"),
        ("adafactor/c", (3,), "float64"),
        ("adafactor/c_velocity", (2, 3), "float64"),
        ("adafactor/d", (2, 3), "float32"),
        ("adafactor/d", (2, 4), "float32"),
        ("adafactor/d_velocity", (2, 3, 4), "float32"),
    ]
    ftrl = OPT.Ftrl(initial_accumulator_value=0.25)
    ftrl.build(vs[:2])
    assert [v.name.split(":")[0] for v in ftrl.variables] == [
        "iteration",
        "learning_rate",
        "ftrl/a_accumulator",
        "ftrl/a_linear",
        "ftrl/b_accumulator",
        "ftrl/b_linear",
    ]
    assert ftrl.get_slot(vs[1], "accumulator").numpy().tolist() == [0.25] * 3
    lamb = OPT.Lamb()
    lamb.build(vs[:2])
    assert [v.name.split(":")[0] for v in lamb.variables][2:] == [
        "lamb/a_momentum",
        "lamb/a_velocity",
        "lamb/b_momentum",
        "lamb/b_velocity",
    ]


CONFIG_KEYS = {
    "Ftrl": [
        "learning_rate_power",
        "initial_accumulator_value",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "l2_shrinkage_regularization_strength",
        "beta",
    ],
    "Lamb": ["beta_1", "beta_2", "epsilon"],
    "Adafactor": ["beta_2_decay", "epsilon_1", "epsilon_2", "clip_threshold", "relative_step"],
}


@pytest.mark.parametrize("cls", sorted(CONFIG_KEYS))
def test_config_round_trip(cls: str) -> None:
    opt = getattr(OPT, cls)(learning_rate=0.25, clipnorm=2.0, name="mine")
    config = opt.get_config()
    for key in CONFIG_KEYS[cls] + ["learning_rate", "clipnorm", "weight_decay", "name"]:
        assert key in config, key
    again = type(opt).from_config(config)
    assert again.get_config() == config
    assert again.name == "mine" and float(again.learning_rate) == 0.25


def test_string_names() -> None:
    assert type(OPT.get("ftrl")).__name__ == "Ftrl"
    assert type(OPT.get("Adafactor")).__name__ == "Adafactor"
    # Keras 3.15 registers no string name for Lamb.
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        OPT.get("lamb")


@pytest.mark.parametrize(
    ("cls", "kwargs", "match"),
    [
        ("Ftrl", {"learning_rate_power": 0.5}, "Ftrl.*learning_rate_power"),
        ("Ftrl", {"initial_accumulator_value": -1.0}, "Ftrl.*initial_accumulator_value"),
        ("Ftrl", {"l1_regularization_strength": -0.1}, "Ftrl.*l1_regularization_strength"),
        ("Ftrl", {"l2_regularization_strength": -0.1}, "Ftrl.*l2_regularization_strength"),
        (
            "Ftrl",
            {"l2_shrinkage_regularization_strength": -0.1},
            "Ftrl.*l2_shrinkage_regularization_strength",
        ),
        ("Lamb", {"epsilon": float("nan")}, "Lamb.*epsilon"),
        ("Lamb", {"beta_1": float("inf")}, "Lamb.*beta_1"),
        ("Adafactor", {"clip_threshold": 0.0}, "Adafactor.*clip_threshold"),
        ("Adafactor", {"epsilon_2": float("nan")}, "Adafactor.*epsilon_2"),
        ("Lamb", {"clipnorm": 1.0, "clipvalue": 1.0}, "Only one of"),
        ("Adafactor", {"use_ema": True}, "Adafactor.*use_ema"),
    ],
)
def test_bad_arguments(cls: str, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        getattr(OPT, cls)(**kwargs)


def test_non_number_argument_is_a_type_error() -> None:
    with pytest.raises((TypeError, ValueError), match="Lamb.*beta_2"):
        OPT.Lamb(beta_2="high")


def test_loss_scale_optimizer_matches_keras() -> None:
    opt = OPT.LossScaleOptimizer(
        OPT.Adam(0.01),
        initial_scale=gen.LOSS_SCALE_INITIAL,
        dynamic_growth_steps=gen.LOSS_SCALE_GROWTH,
    )
    inits, _, _, _ = gen.problem(np.float32)
    variables = [rt.Variable(w, name=f"w{k}") for k, w in enumerate(inits)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(gen.LOSS_SCALE_STEPS):
            scale = float(opt.dynamic_scale.numpy()) if opt.built else gen.LOSS_SCALE_INITIAL
            grads = gen.loss_scale_gradients(step, [v.numpy() for v in variables], scale)
            opt.apply_gradients(
                [(None if g is None else rt.constant(g), v) for g, v in zip(grads, variables)]
            )
            for k, v in enumerate(variables):
                want = REF[f"loss_scale/w{k}"][step]
                scale_of_w = float(np.max(np.abs(want)))
                np.testing.assert_allclose(v.numpy(), want, rtol=1e-6, atol=1e-6 * scale_of_w)
            assert float(opt.dynamic_scale.numpy()) == REF["loss_scale/scale"][step]
            assert int(opt.step_counter.numpy()) == REF["loss_scale/step_counter"][step]
    assert int(opt.iterations.numpy()) == int(REF["loss_scale/iterations"])
    ranks = [len(v.shape) for v in opt.variables]
    assert ranks == REF["loss_scale/variable_shapes"].tolist()


def test_loss_scale_optimizer_in_fit_trains_as_its_inner_optimizer() -> None:
    x, y, weights = gen.fit_setup()
    results = []
    for optimizer in (OPT.SGD(0.1), OPT.LossScaleOptimizer(OPT.SGD(0.1), initial_scale=64.0)):
        model = rt.keras.Sequential(
            [
                rt.keras.Input(shape=(6,)),
                rt.keras.layers.Dense(8, activation="tanh"),
                rt.keras.layers.Dense(2),
            ]
        )
        model.set_weights(weights)
        model.compile(optimizer=optimizer, loss="mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history
        results.append((history["loss"], model.get_weights()))
    # Scaling by a power of two and back is exact.
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_array_equal(a, b)


def test_loss_scale_optimizer_config_and_errors() -> None:
    opt = OPT.LossScaleOptimizer(OPT.Lamb(0.02), initial_scale=128.0, dynamic_growth_steps=5)
    again = OPT.LossScaleOptimizer.from_config(opt.get_config())
    assert again.get_config() == opt.get_config()
    assert isinstance(again.inner_optimizer, OPT.Lamb)
    assert float(again.learning_rate.numpy()) == pytest.approx(0.02)
    with pytest.raises(ValueError, match="LossScaleOptimizer does not support `clipnorm`"):
        OPT.LossScaleOptimizer(OPT.SGD(), clipnorm=1.0)
    with pytest.raises(ValueError, match="dynamic=False"):
        OPT.LossScaleOptimizer(OPT.SGD(), dynamic=False)
    with pytest.raises(ValueError, match="LossScaleOptimizer.*initial_scale"):
        OPT.LossScaleOptimizer(OPT.SGD(), initial_scale=0.0)
    with pytest.raises(TypeError, match="inner_optimizer"):
        OPT.LossScaleOptimizer("sgd")
