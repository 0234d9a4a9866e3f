"""Reference trajectories of Keras 3's Ftrl, Lamb and Adafactor (TensorFlow 2.21), and `fit`
with each of them.

Run with TensorFlow's venv (see README.md); writes optimizers2.npz beside this file.

The problem: four variables of ranks 0 to 3, `w0 []`, `w1 [5]`, `w2 [4, 3]`, `w3 [2, 3, 4]`
(Adafactor factors ranks 2 and 3), and at step `t` the gradient `a * (w - c) + noise[t]`
computed in the variables' dtype with NumPy (elementwise and exactly rounded, so the test
computes the same gradients bit for bit). `w2` gets no gradient (None) on every third step.
Each configuration runs `STEPS` steps of `apply_gradients`, in float32 or float64; the
variables are stored after the steps in `SAVED` (1-based), with `iterations` at the end.
Then `FIT_RUNS`: a small regression model compiled with each optimizer (by its string name
where Keras has one) and fitted for two epochs, its losses and final weights.
`problem()` and `fit_setup()` are imported by the test, so both sides build the same arrays.
"""

from __future__ import annotations

import os
from typing import Any

import gen_optimizers
import numpy as np

STEPS = 30
SAVED = list(range(1, 11)) + [15, 20, 25, 30]
SHAPES: list[tuple[int, ...]] = [(), (5,), (4, 3), (2, 3, 4)]


def problem(
    dtype: Any = np.float32,
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], np.ndarray]:
    """gen_optimizers.py's problem on this file's shapes, seed and steps."""
    return gen_optimizers.problem(dtype, SHAPES, 2024, STEPS)


def gradients(step: int, values: list[np.ndarray], dtype: Any = np.float32) -> list[Any]:
    """gen_optimizers.py's gradients on this file's problem."""
    return gen_optimizers.gradients(step, values, dtype, SHAPES, 2024, STEPS)


EXPONENTIAL = {
    "schedule": "ExponentialDecay",
    "initial_learning_rate": 0.2,
    "decay_steps": 6,
    "decay_rate": 0.7,
}

# name -> (optimizer class name, constructor arguments, dtype); a schedule is given as
# {"schedule": class name, ...arguments} in place of learning_rate.
CONFIGS: dict[str, tuple[str, dict[str, Any], str]] = {
    "ftrl": ("Ftrl", {"learning_rate": 0.1}, "float32"),
    "ftrl_float64": ("Ftrl", {"learning_rate": 0.1}, "float64"),
    "ftrl_regularized": (
        "Ftrl",
        {
            "learning_rate": 0.2,
            "learning_rate_power": -0.7,
            "initial_accumulator_value": 0.3,
            "l1_regularization_strength": 0.05,
            "l2_regularization_strength": 0.1,
            "l2_shrinkage_regularization_strength": 0.02,
            "beta": 0.5,
        },
        "float32",
    ),
    "ftrl_regularized_float64": (
        "Ftrl",
        {
            "learning_rate": 0.2,
            "learning_rate_power": -0.7,
            "initial_accumulator_value": 0.3,
            "l1_regularization_strength": 0.05,
            "l2_regularization_strength": 0.1,
            "l2_shrinkage_regularization_strength": 0.02,
            "beta": 0.5,
        },
        "float64",
    ),
    "ftrl_fixed_rate_clipvalue": (
        "Ftrl",
        {"learning_rate": 0.05, "learning_rate_power": 0.0, "clipvalue": 0.3},
        "float32",
    ),
    "ftrl_schedule_weight_decay": (
        "Ftrl",
        {"learning_rate": EXPONENTIAL, "weight_decay": 0.05},
        "float32",
    ),
    "lamb": ("Lamb", {"learning_rate": 0.05}, "float32"),
    "lamb_float64": ("Lamb", {"learning_rate": 0.05}, "float64"),
    "lamb_betas_clipnorm": (
        "Lamb",
        {"learning_rate": 0.03, "beta_1": 0.8, "beta_2": 0.95, "epsilon": 1e-5, "clipnorm": 0.7},
        "float32",
    ),
    "lamb_weight_decay_global_clipnorm": (
        "Lamb",
        {"learning_rate": 0.05, "weight_decay": 0.1, "global_clipnorm": 1.5},
        "float32",
    ),
    "lamb_schedule_float64": (
        "Lamb",
        {"learning_rate": EXPONENTIAL, "weight_decay": 0.02, "clipvalue": 0.5},
        "float64",
    ),
    "adafactor": ("Adafactor", {"learning_rate": 0.1}, "float32"),
    "adafactor_float64": ("Adafactor", {"learning_rate": 0.1}, "float64"),
    "adafactor_arguments": (
        "Adafactor",
        {
            "learning_rate": 0.5,
            "beta_2_decay": -0.5,
            "epsilon_1": 1e-20,
            "epsilon_2": 0.01,
            "clip_threshold": 0.5,
            "relative_step": False,
        },
        "float32",
    ),
    "adafactor_arguments_float64": (
        "Adafactor",
        {
            "learning_rate": 0.5,
            "beta_2_decay": -0.5,
            "epsilon_1": 1e-20,
            "epsilon_2": 0.01,
            "clip_threshold": 0.5,
            "relative_step": False,
        },
        "float64",
    ),
    "adafactor_schedule_weight_decay_clipnorm": (
        "Adafactor",
        {"learning_rate": EXPONENTIAL, "weight_decay": 0.1, "clipnorm": 1.0},
        "float32",
    ),
    "adafactor_global_clipnorm_float64": (
        "Adafactor",
        {"learning_rate": 0.3, "global_clipnorm": 2.0, "weight_decay": 0.05},
        "float64",
    ),
}


def make_optimizer(module: Any, name: str) -> Any:
    """Configuration `name` built from `module` (`keras.optimizers` or rustape's)."""
    cls, kwargs, _ = CONFIGS[name]
    kwargs = dict(kwargs)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        lr = dict(lr)
        kwargs["learning_rate"] = getattr(module.schedules, lr.pop("schedule"))(**lr)
    return getattr(module, cls)(**kwargs)


def run(tf: Any, keras: Any, name: str) -> dict[str, np.ndarray]:
    dtype = np.dtype(CONFIGS[name][2])
    opt = make_optimizer(keras.optimizers, name)
    inits, _, _, _ = problem(dtype)
    variables = [tf.Variable(w, name=f"w{k}") for k, w in enumerate(inits)]
    history: list[list[np.ndarray]] = [[] for _ in variables]
    for step in range(STEPS):
        grads = gradients(step, [v.numpy() for v in variables], dtype)
        opt.apply_gradients(
            [(None if g is None else tf.constant(g), v) for g, v in zip(grads, variables)]
        )
        if step + 1 in SAVED:
            for k, v in enumerate(variables):
                history[k].append(v.numpy())
    out = {f"{name}/w{k}": np.stack(h) for k, h in enumerate(history)}
    out[f"{name}/iterations"] = np.array(int(opt.iterations.numpy()))
    return out


# name -> the `optimizer` argument of compile: a string name, or a class name to construct
# with its defaults (Keras 3 has no string name for Lamb).
FIT_RUNS: dict[str, str] = {
    "fit_ftrl": "ftrl",
    "fit_adafactor": "adafactor",
    "fit_lamb": "Lamb",
}
FIT_EPOCHS = 2
FIT_BATCH = 8


def fit_setup() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Inputs, targets and the initial weights of a 6 -> 8 (tanh) -> 2 regression model."""
    rng = np.random.default_rng(77)
    x = rng.normal(size=(32, 6)).astype(np.float32)
    y = rng.normal(size=(32, 2)).astype(np.float32)
    shapes = [(6, 8), (8,), (8, 2), (2,)]
    weights = [(rng.normal(size=s) * 0.5).astype(np.float32) for s in shapes]
    return x, y, weights


def fit(keras: Any, name: str) -> dict[str, np.ndarray]:
    x, y, weights = fit_setup()
    model = keras.Sequential(
        [
            keras.Input(shape=(6,)),
            keras.layers.Dense(8, activation="tanh"),
            keras.layers.Dense(2),
        ]
    )
    model.set_weights(weights)
    spec = FIT_RUNS[name]
    optimizer = spec if spec.islower() else getattr(keras.optimizers, spec)()
    model.compile(optimizer=optimizer, loss="mse")
    history = model.fit(
        x, y, batch_size=FIT_BATCH, epochs=FIT_EPOCHS, shuffle=False, verbose=0
    ).history
    out = {f"{name}/loss": np.array(history["loss"], np.float64)}
    for k, w in enumerate(model.get_weights()):
        out[f"{name}/w{k}"] = w
    return out


LOSS_SCALE_STEPS = 12
LOSS_SCALE_INITIAL = 8.0
LOSS_SCALE_GROWTH = 3
#: Steps (0-based) whose gradients hold an infinity (skipped, the scale halved).
LOSS_SCALE_NONFINITE = (4, 8)


def loss_scale_gradients(step: int, values: list[np.ndarray], scale: float) -> list[Any]:
    """The problem's gradients times the loss scale `scale` (as a scaled loss gives), in
    float32; an infinity in w1's on the steps of LOSS_SCALE_NONFINITE."""
    grads = gradients(step, values, np.float32)
    out: list[Any] = []
    for k, g in enumerate(grads):
        if g is None:
            out.append(None)
            continue
        g = np.asarray(g * np.float32(scale), np.float32)
        if k == 1 and step in LOSS_SCALE_NONFINITE:
            g = g.copy()
            g[0] = np.inf
        out.append(g)
    return out


def loss_scale(tf: Any, keras: Any) -> dict[str, np.ndarray]:
    """LossScaleOptimizer around Adam(0.01): variables, scale and counter after each step."""
    opt = keras.optimizers.LossScaleOptimizer(
        keras.optimizers.Adam(0.01),
        initial_scale=LOSS_SCALE_INITIAL,
        dynamic_growth_steps=LOSS_SCALE_GROWTH,
    )
    inits, _, _, _ = problem(np.float32)
    variables = [tf.Variable(w, name=f"w{k}") for k, w in enumerate(inits)]
    history: list[list[np.ndarray]] = [[] for _ in variables]
    scales, counters = [], []
    for step in range(LOSS_SCALE_STEPS):
        scale = float(opt.dynamic_scale.numpy()) if opt.built else LOSS_SCALE_INITIAL
        grads = loss_scale_gradients(step, [v.numpy() for v in variables], scale)
        opt.apply_gradients(
            [(None if g is None else tf.constant(g), v) for g, v in zip(grads, variables)]
        )
        for k, v in enumerate(variables):
            history[k].append(v.numpy())
        scales.append(float(opt.dynamic_scale.numpy()))
        counters.append(int(opt.step_counter.numpy()))
    out = {f"loss_scale/w{k}": np.stack(h) for k, h in enumerate(history)}
    out["loss_scale/scale"] = np.array(scales, np.float32)
    out["loss_scale/step_counter"] = np.array(counters, np.int64)
    out["loss_scale/iterations"] = np.array(int(opt.iterations.numpy()))
    out["loss_scale/variable_shapes"] = np.array([len(v.shape) for v in opt.variables])
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name in CONFIGS:
        out.update(run(tf, keras, name))
    for name in FIT_RUNS:
        out.update(fit(keras, name))
    out.update(loss_scale(tf, keras))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optimizers2.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
