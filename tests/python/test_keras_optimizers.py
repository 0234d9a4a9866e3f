"""rt.keras.optimizers against Keras 3 in TensorFlow 2.21: every optimizer and option over 120
steps (tests/reference/gen_optimizers.py), the schedules, and the optimizer's bookkeeping."""

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
import gen_optimizers as gen

REF = np.load(os.path.join(HERE, "..", "reference", "optimizers.npz"), allow_pickle=False)
SCHEDULES = rt.keras.optimizers.schedules


def make_optimizer(name: str) -> Any:
    cls, kwargs, _ = gen.CONFIGS[name]
    kwargs = dict(kwargs)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        lr = dict(lr)
        kwargs["learning_rate"] = getattr(SCHEDULES, lr.pop("schedule"))(**lr)
    return getattr(rt.keras.optimizers, cls)(**kwargs)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place of float32 (or float64)."""
    a, b = np.asarray(a), np.asarray(b)
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    return np.abs(a - b) / spacing


@pytest.mark.parametrize("name", sorted(gen.CONFIGS))
def test_trajectory_matches_keras(name: str) -> None:
    _, _, dtype_name = gen.CONFIGS[name]
    dtype = np.dtype(dtype_name)
    opt = make_optimizer(name)
    inits, _, _, _ = gen.problem(dtype)
    variables = [rt.Variable(w, name=f"w{k}") for k, w in enumerate(inits)]
    saved = 0
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
                assert got.dtype == want.dtype
                # Elementwise arithmetic in Keras's order gives TensorFlow's bits exactly; norm
                # clipping sums squares in another order than TensorFlow's reduction (a few
                # units in the last place, measured at most 20 over the 120 steps).
                worst = float(np.max(ulps(got, want)))
                allowed = 32 if "clipnorm" in name else 0
                assert worst <= allowed, f"{name} step {step + 1} w{k}: {worst} ulps\n{got}\n{want}"
            saved += 1
    assert int(opt.iterations.numpy()) == int(REF[f"{name}/iterations"])
    np.testing.assert_allclose(
        float(np.asarray(opt.learning_rate)), float(REF[f"{name}/learning_rate"]), rtol=1e-6
    )


@pytest.mark.parametrize("name", sorted(gen.SCHEDULES))
def test_schedule_matches_keras(name: str) -> None:
    spec = dict(gen.SCHEDULES[name])
    schedule = getattr(SCHEDULES, spec.pop("schedule"))(**spec)
    got = np.array([float(schedule(s)) for s in range(gen.SCHEDULE_STEPS)], np.float32)
    want = REF[f"schedule/{name}"]
    assert float(np.max(ulps(got, want))) <= 2, (got, want)


def test_none_gradient_warns_and_skips() -> None:
    a, b = rt.Variable([1.0]), rt.Variable([2.0])
    opt = rt.keras.optimizers.Adam(0.1)
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        opt.apply_gradients([(rt.constant([1.0]), a), (None, b)])
    assert b.numpy().tolist() == [2.0]
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, a), (None, b)])


def test_variables_in_keras_order() -> None:
    w, b = rt.Variable(np.ones((2, 3), np.float32), name="w"), rt.Variable([0.0], name="b")
    opt = rt.keras.optimizers.Adam(amsgrad=True)
    opt.build([w, b])
    names = [v.name for v in opt.variables]
    assert names == [
        "iteration:0",
        "learning_rate:0",
        "adam/w_momentum:0",
        "adam/w_velocity:0",
        "adam/b_momentum:0",
        "adam/b_velocity:0",
        "adam/w_velocity_hat:0",
        "adam/b_velocity_hat:0",
    ]
    assert opt.get_slot(w, "momentum").shape == (2, 3)


def test_learning_rate_forms() -> None:
    w = rt.Variable([0.0])
    lr = rt.Variable(0.5)
    opt = rt.keras.optimizers.SGD(learning_rate=lr)
    opt.apply_gradients([(rt.constant([1.0]), w)])
    lr.assign(0.25)
    opt.apply_gradients([(rt.constant([1.0]), w)])
    assert w.numpy().tolist() == [-0.75]
    opt.learning_rate = 1.0
    opt.apply_gradients([(rt.constant([1.0]), w)])
    assert w.numpy().tolist() == [-1.75]
    calls = rt.keras.optimizers.SGD(learning_rate=lambda: 2.0)
    calls.apply_gradients([(rt.constant([1.0]), w)])
    assert w.numpy().tolist() == [-3.75]

    class Halving(SCHEDULES.LearningRateSchedule):
        def __call__(self, step: Any) -> Any:
            return 1.0 / 2 ** int(step)

    custom = rt.keras.optimizers.SGD(learning_rate=Halving())
    for _ in range(3):
        custom.apply_gradients([(rt.constant([1.0]), w)])
    assert w.numpy().tolist() == [-5.5]
    with pytest.raises(ValueError, match="learning_rate"):
        rt.keras.optimizers.SGD(learning_rate="fast")


def test_minimize_and_errors() -> None:
    w = rt.Variable([3.0])
    opt = rt.keras.optimizers.SGD(0.25)
    opt.minimize(lambda: rt.reduce_sum(w * w), [w])
    assert w.numpy().tolist() == [1.5]
    with pytest.raises(ValueError, match="Only one of"):
        rt.keras.optimizers.SGD(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="momentum"):
        rt.keras.optimizers.SGD(momentum=2.0)
    with pytest.raises(ValueError, match="shape"):
        opt.apply_gradients([(rt.constant([1.0, 2.0]), w)])
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(rt.constant([1.0]), rt.Variable([1.0]))])
    with pytest.raises(TypeError):
        opt.apply_gradients([(rt.constant([1.0]), rt.constant([1.0]))])


def test_weight_decay_exclusion() -> None:
    w, bias = rt.Variable([1.0], name="kernel"), rt.Variable([1.0], name="bias")
    opt = rt.keras.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    zero = rt.constant([0.0])
    opt.apply_gradients([(zero, w), (zero, bias)])
    assert w.numpy().tolist() == [0.949999988079071] and bias.numpy().tolist() == [1.0]
    with pytest.raises(ValueError, match="before the optimizer is built"):
        opt.exclude_from_weight_decay(var_names=["kernel"])


def test_update_is_not_recorded() -> None:
    w = rt.Variable(np.arange(6, dtype=np.float32))
    opt = rt.keras.optimizers.Adam(0.1)
    with rt.GradientTape(persistent=True) as tape:
        y = rt.reduce_sum(w * w)
    grads = tape.gradient(y, [w])
    with rt.GradientTape() as recording:
        recording.watch(w)
        opt.apply_gradients(zip(grads, [w]))
    assert len(recording) == 0
    # A gradient of what was recorded before the update still sees the old value.
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), 2 * np.arange(6))
