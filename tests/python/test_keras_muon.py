"""rt.keras.optimizers.Muon against Keras 3 in TensorFlow 2.21 (tests/reference/gen_muon.py):
20 steps on a vector, a tall and a wide matrix, a rank-3 variable and an embedding matrix with
Nesterov and plain momentum, weight decays, excluded layers, a schedule and clipping; `fit` by
name; which variables take the AdamW step and the optimizer's variables in Keras's order.
float64 (which Keras's Muon step cannot run) against a NumPy transcription of Keras's formulas."""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_muon as gen

REF = np.load(os.path.join(HERE, "..", "reference", "muon.npz"), allow_pickle=False)
OPT = rt.keras.optimizers


def variables(dtype: Any) -> list[Any]:
    inits, _, _, _ = gen.problem(dtype)
    return [rt.Variable(w, name=n) for n, w in zip(gen.NAMES, inits)]


def step(opt: Any, vs: list[Any], t: int, dtype: Any) -> None:
    grads = gen.gradients(t, [v.numpy() for v in vs], dtype)
    pairs = [(rt.constant(g), v) for g, v in zip(grads, vs) if g is not None]
    opt.apply_gradients(pairs)


@pytest.mark.parametrize("name", sorted(gen.CONFIGS))
def test_trajectory_matches_keras(name: str) -> None:
    opt = gen.make_optimizer(OPT, name)
    vs = variables(np.float32)
    saved = 0
    for t in range(gen.STEPS):
        step(opt, vs, t, np.float32)
        if t + 1 not in gen.SAVED:
            continue
        for k, v in enumerate(vs):
            want = REF[f"{name}/w{k}"][saved]
            got = v.numpy()
            assert got.dtype == want.dtype and got.shape == want.shape
            # The Newton-Schulz products sum in another order than TensorFlow's matmul: a few
            # units in the last place per step, compounding over 20 steps (worst 1.7e-7).
            scale = float(np.max(np.abs(want)))
            np.testing.assert_allclose(
                got, want, rtol=1e-6, atol=1e-6 * scale, err_msg=f"{name} step {t + 1} w{k}"
            )
        saved += 1
    assert int(opt.iterations.numpy()) == int(REF[f"{name}/iterations"])
    velocity = [opt.get_slot(v, "velocity") is not None for v in vs]
    assert velocity == REF[f"{name}/velocity"].tolist()
    strip = lambda n: str(n).split(":")[0].split("/", 1)[-1]
    assert [strip(v.name) for v in opt.variables] == [
        strip(n) for n in REF[f"{name}/variable_names"]
    ]


@pytest.mark.parametrize("name", sorted(gen.FIT_RUNS))
def test_fit_by_name_matches_keras(name: str) -> None:
    x, y, weights = gen.gen_optimizers2.fit_setup()
    model = rt.keras.Sequential(
        [
            rt.keras.Input(shape=(6,)),
            rt.keras.layers.Dense(8, activation="tanh"),
            rt.keras.layers.Dense(2),
        ]
    )
    model.set_weights(weights)
    model.compile(optimizer=gen.FIT_RUNS[name], loss="mse")
    assert type(model.optimizer).__name__ == "Muon"
    history = model.fit(
        x,
        y,
        batch_size=gen.gen_optimizers2.FIT_BATCH,
        epochs=gen.gen_optimizers2.FIT_EPOCHS,
        shuffle=False,
        verbose=0,
    ).history
    np.testing.assert_allclose(history["loss"], REF[f"{name}/loss"], rtol=1e-5)
    for k, w in enumerate(model.get_weights()):
        np.testing.assert_allclose(w, REF[f"{name}/w{k}"], rtol=2e-5, atol=1e-6)


def f32(x: float) -> float:
    return float(np.float32(x))


class NumpyMuon:
    """Keras 3's Muon transcribed in NumPy float64 (constant learning rate, no clipping). Where
    Keras writes `ops.cast(number, dtype)` the number becomes float32 first (`f32`)."""

    def __init__(self, lr: float, **kw: Any) -> None:
        self.lr = lr
        self.kw = {
            "adam_beta_1": 0.9,
            "adam_beta_2": 0.999,
            "adam_weight_decay": 0.004,
            "epsilon": 1e-7,
            "weight_decay": 0.004,
            "exclude_layers": [],
            "exclude_embeddings": True,
            "muon_a": 3.4445,
            "muon_b": -4.7750,
            "muon_c": 2.0315,
            "adam_lr_ratio": 1,
            "momentum": 0.95,
            "ns_steps": 5,
            "nesterov": True,
            "rms_rate": 0.2,
        }
        self.kw.update(kw)
        self.m: dict[str, np.ndarray] = {}
        self.v: dict[str, np.ndarray] = {}
        self.t = 0

    def adamw(self, name: str, w: np.ndarray) -> bool:
        k = self.kw
        if w.ndim != 2:
            return True
        if k["exclude_embeddings"] and "embedding" in name.lower():
            return True
        return any(re.search(p, name) for p in k["exclude_layers"])

    def ns(self, x: np.ndarray) -> np.ndarray:
        k = self.kw
        tall = x.shape[0] > x.shape[1]
        if tall:
            x = x.T
        x = x / (np.sqrt(np.sum(x * x)) + 1e-7)
        for _ in range(k["ns_steps"]):
            a = x @ x.T
            b = k["muon_b"] * a + (k["muon_c"] * a) @ a
            x = k["muon_a"] * x + b @ x
        return x.T if tall else x

    def apply(self, pairs: list[tuple[str, np.ndarray, np.ndarray]]) -> None:
        k = self.kw
        t = self.t + 1
        for name, g, w in pairs:
            m = self.m.setdefault(name, np.zeros_like(w))
            adamw = self.adamw(name, w)
            wd = k["adam_weight_decay"] if adamw else k["weight_decay"]
            if wd is not None:
                w -= w * f32(wd) * self.lr
            if adamw:
                v = self.v.setdefault(name, np.zeros_like(w))
                # The float32 rate times the ratio, in float32.
                lr = f32(self.lr * f32(k["adam_lr_ratio"]))
                b1, b2 = k["adam_beta_1"], k["adam_beta_2"]
                alpha = lr * np.sqrt(1 - f32(b2) ** t) / (1 - f32(b1) ** t)
                m += (g - m) * (1 - b1)
                v += (g * g - v) * (1 - b2)
                w -= (m * alpha) / (np.sqrt(v) + k["epsilon"])
            else:
                m += g + m * (k["momentum"] - 1)
                d = g + k["momentum"] * m if k["nesterov"] else m
                u = self.lr * self.ns(d)
                if k["rms_rate"] is not None:
                    u = u * np.sqrt(max(w.shape)) * k["rms_rate"]
                w -= u
        self.t = t


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"nesterov": False, "rms_rate": None, "weight_decay": None, "ns_steps": 2},
        {"exclude_layers": ["ta"], "exclude_embeddings": False, "adam_lr_ratio": 0.3},
    ],
)
def test_float64_follows_kerass_formulas(kw: dict[str, Any]) -> None:
    lr = 0.05
    opt = OPT.Muon(learning_rate=lr, **kw)
    ref = NumpyMuon(float(np.float32(lr)), **kw)
    vs = variables(np.float64)
    ws = [v.numpy().copy() for v in vs]
    for t in range(8):
        grads = gen.gradients(t, ws, np.float64)
        opt.apply_gradients([(rt.constant(g), v) for g, v in zip(grads, vs) if g is not None])
        ref.apply([(n, g, w) for n, g, w in zip(gen.NAMES, grads, ws) if g is not None])
        for n, v, w in zip(gen.NAMES, vs, ws):
            assert v.numpy().dtype == np.float64
            np.testing.assert_allclose(v.numpy(), w, rtol=1e-11, atol=1e-12, err_msg=n)


def test_the_update_of_a_matrix_is_nearly_orthogonal() -> None:
    # With many iterations the Muon step of a matrix is U V^T of its momentum's SVD, scaled:
    # its singular values all come out (nearly) equal, whatever the gradient's were.
    rng = np.random.default_rng(3)
    w0 = rng.normal(size=(6, 4))
    g = rng.normal(size=(6, 4)) @ np.diag([10.0, 3.0, 1.0, 0.3])
    w = rt.Variable(w0, name="w")
    opt = OPT.Muon(learning_rate=1.0, weight_decay=None, rms_rate=None, nesterov=False)
    opt.apply_gradients([(rt.constant(g), w)])
    s = np.linalg.svd(w0 - w.numpy(), compute_uv=False)
    assert np.all(s > 0.6) and np.all(s < 1.25), s


def test_config_round_trip_and_string_name() -> None:
    opt = OPT.Muon(
        learning_rate=0.01, exclude_layers=["out"], rms_rate=None, ns_steps=3, nesterov=False
    )
    config = opt.get_config()
    assert config["exclude_layers"] == ["out"] and config["rms_rate"] is None
    assert config["ns_steps"] == 3 and config["nesterov"] is False
    again = OPT.Muon.from_config(config)
    assert again.get_config() == config
    assert type(OPT.get("muon")).__name__ == "Muon"


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"ns_steps": 2.5}, TypeError, "ns_steps"),
        ({"ns_steps": -1}, ValueError, "ns_steps"),
        ({"momentum": float("nan")}, ValueError, "momentum"),
        ({"exclude_layers": [3]}, TypeError, "exclude_layers"),
        ({"exclude_layers": ["("]}, ValueError, "regular expression"),
        ({"muon_a": "x"}, TypeError, "muon_a"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        OPT.Muon(**kwargs)


def test_choosing_adamw_variables_after_build_is_refused() -> None:
    opt = OPT.Muon()
    w = rt.Variable(np.ones((2, 2)), name="w")
    opt.build([w])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.build([w])  # a second build does nothing, as in Keras
    with pytest.raises(ValueError, match="before the optimizer is built"):
        opt._core.use_adamw_for([w])
