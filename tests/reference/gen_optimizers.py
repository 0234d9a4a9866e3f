"""Reference trajectories of every Keras 3 optimizer (TensorFlow 2.21) on one problem.

Run with TensorFlow's venv (see README.md); writes optimizers.npz beside this file.

The problem: three variables `w0 [7, 5]`, `w1 [5]`, `w2 [3, 2]` and, at step `t`, the gradient
`a * (w - c) + noise[t]` computed in the variables' dtype with NumPy (elementwise and exactly
rounded, so the test computes the same gradients bit for bit). `w2` gets no gradient (None) on
every third step. Each configuration runs `STEPS` steps of `apply_gradients`; the variables are
stored after the steps in `SAVED` (1-based: every one of the first ten, then every tenth), with
the optimizer's `iterations` and its learning rate at the end.
`problem()` is imported by the test, so both sides build the same arrays.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

STEPS = 120
SAVED = list(range(1, 11)) + list(range(20, STEPS + 1, 10))
SHAPES = [(7, 5), (5,), (3, 2)]


def problem(
    dtype: Any = np.float32,
    shapes: list[tuple[int, ...]] = SHAPES,
    seed: int = 1234,
    steps: int = STEPS,
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Initial values, scales `a`, centres `c`, and per-step noise (flattened per variable) of
    variables of `shapes` (gen_optimizers2.py asks for its own shapes and seed)."""
    rng = np.random.default_rng(seed)
    inits = [np.asarray(rng.normal(size=s)).astype(dtype) for s in shapes]
    scales = [np.asarray(rng.uniform(0.5, 2.0, size=s)).astype(dtype) for s in shapes]
    centres = [np.asarray(rng.normal(size=s)).astype(dtype) for s in shapes]
    total = sum(int(np.prod(s)) for s in shapes)
    noise = (0.1 * rng.normal(size=(steps, total))).astype(dtype)
    return inits, scales, centres, noise


def gradients(
    step: int,
    values: list[np.ndarray],
    dtype: Any = np.float32,
    shapes: list[tuple[int, ...]] = SHAPES,
    seed: int = 1234,
    steps: int = STEPS,
) -> list[Any]:
    """The gradients at `step` (0-based) for the current `values`; None for w2 every third step."""
    _, scales, centres, noise = problem(dtype, shapes, seed, steps)
    out: list[Any] = []
    at = 0
    for k, (w, a, c) in enumerate(zip(values, scales, centres)):
        n = noise[step, at : at + w.size].reshape(w.shape)
        at += w.size
        if k == 2 and step % 3 == 2:
            out.append(None)
            continue
        out.append(np.asarray(a * (w - c) + n, dtype))
    return out


# name -> (optimizer class name, constructor arguments, dtype); schedules are given as
# {"schedule": class name, ...arguments} in place of learning_rate.
CONFIGS: dict[str, tuple[str, dict[str, Any], str]] = {
    "sgd": ("SGD", {"learning_rate": 0.1}, "float32"),
    "sgd_momentum": ("SGD", {"learning_rate": 0.05, "momentum": 0.9}, "float32"),
    "sgd_nesterov": ("SGD", {"learning_rate": 0.05, "momentum": 0.9, "nesterov": True}, "float32"),
    "sgd_clipvalue": ("SGD", {"learning_rate": 0.1, "clipvalue": 0.2}, "float32"),
    "sgd_weight_decay": ("SGD", {"learning_rate": 0.1, "weight_decay": 0.05}, "float32"),
    "sgd_float64": ("SGD", {"learning_rate": 0.05, "momentum": 0.9}, "float64"),
    "adam": ("Adam", {"learning_rate": 0.01}, "float32"),
    "adam_amsgrad": ("Adam", {"learning_rate": 0.02, "amsgrad": True}, "float32"),
    "adam_clipnorm": ("Adam", {"learning_rate": 0.01, "clipnorm": 0.5}, "float32"),
    "adam_global_clipnorm": ("Adam", {"learning_rate": 0.01, "global_clipnorm": 1.0}, "float32"),
    "adam_betas": (
        "Adam",
        {"learning_rate": 0.005, "beta_1": 0.8, "beta_2": 0.95, "epsilon": 1e-5},
        "float32",
    ),
    "adam_float64": ("Adam", {"learning_rate": 0.01}, "float64"),
    "adamw": ("AdamW", {"learning_rate": 0.01}, "float32"),
    "adamw_amsgrad": (
        "AdamW",
        {"learning_rate": 0.01, "weight_decay": 0.1, "amsgrad": True},
        "float32",
    ),
    "rmsprop": ("RMSprop", {"learning_rate": 0.01}, "float32"),
    "rmsprop_momentum": ("RMSprop", {"learning_rate": 0.005, "momentum": 0.5}, "float32"),
    "rmsprop_centered": ("RMSprop", {"learning_rate": 0.005, "centered": True}, "float32"),
    "rmsprop_centered_momentum": (
        "RMSprop",
        {"learning_rate": 0.005, "rho": 0.8, "momentum": 0.3, "centered": True},
        "float32",
    ),
    "rmsprop_weight_decay": ("RMSprop", {"learning_rate": 0.01, "weight_decay": 0.2}, "float32"),
    "adagrad": ("Adagrad", {"learning_rate": 0.1}, "float32"),
    "adagrad_initial": (
        "Adagrad",
        {"learning_rate": 0.05, "initial_accumulator_value": 0.5},
        "float32",
    ),
    "adadelta": ("Adadelta", {"learning_rate": 1.0}, "float32"),
    "adadelta_rho": ("Adadelta", {"learning_rate": 0.5, "rho": 0.9, "epsilon": 1e-6}, "float32"),
    "nadam": ("Nadam", {"learning_rate": 0.01}, "float32"),
    "nadam_float64": ("Nadam", {"learning_rate": 0.01}, "float64"),
    "adamax": ("Adamax", {"learning_rate": 0.02}, "float32"),
    "lion": ("Lion", {"learning_rate": 0.003}, "float32"),
    "lion_betas": (
        "Lion",
        {"learning_rate": 0.002, "beta_1": 0.8, "beta_2": 0.9, "weight_decay": 0.1},
        "float32",
    ),
    "sgd_exponential_decay": (
        "SGD",
        {
            "learning_rate": {
                "schedule": "ExponentialDecay",
                "initial_learning_rate": 0.1,
                "decay_steps": 10,
                "decay_rate": 0.8,
            }
        },
        "float32",
    ),
    "sgd_exponential_staircase": (
        "SGD",
        {
            "learning_rate": {
                "schedule": "ExponentialDecay",
                "initial_learning_rate": 0.1,
                "decay_steps": 7,
                "decay_rate": 0.5,
                "staircase": True,
            },
            "momentum": 0.5,
        },
        "float32",
    ),
    "sgd_piecewise": (
        "SGD",
        {
            "learning_rate": {
                "schedule": "PiecewiseConstantDecay",
                "boundaries": [10, 50],
                "values": [0.1, 0.05, 0.01],
            }
        },
        "float32",
    ),
    "adam_cosine": (
        "Adam",
        {
            "learning_rate": {
                "schedule": "CosineDecay",
                "initial_learning_rate": 0.02,
                "decay_steps": 80,
                "alpha": 0.1,
            }
        },
        "float32",
    ),
    "adam_cosine_warmup": (
        "Adam",
        {
            "learning_rate": {
                "schedule": "CosineDecay",
                "initial_learning_rate": 0.0,
                "decay_steps": 60,
                "warmup_target": 0.03,
                "warmup_steps": 20,
            }
        },
        "float32",
    ),
    "sgd_inverse_time": (
        "SGD",
        {
            "learning_rate": {
                "schedule": "InverseTimeDecay",
                "initial_learning_rate": 0.1,
                "decay_steps": 5,
                "decay_rate": 0.5,
            }
        },
        "float32",
    ),
    "sgd_inverse_time_staircase": (
        "SGD",
        {
            "learning_rate": {
                "schedule": "InverseTimeDecay",
                "initial_learning_rate": 0.1,
                "decay_steps": 5,
                "decay_rate": 0.5,
                "staircase": True,
            }
        },
        "float32",
    ),
    "sgd_polynomial": (
        "SGD",
        {
            "learning_rate": {
                "schedule": "PolynomialDecay",
                "initial_learning_rate": 0.1,
                "decay_steps": 90,
                "end_learning_rate": 0.01,
                "power": 2.0,
            }
        },
        "float32",
    ),
    "sgd_polynomial_cycle": (
        "SGD",
        {
            "learning_rate": {
                "schedule": "PolynomialDecay",
                "initial_learning_rate": 0.1,
                "decay_steps": 25,
                "power": 0.5,
                "cycle": True,
            }
        },
        "float32",
    ),
}


def run(tf: Any, keras: Any, name: str) -> dict[str, np.ndarray]:
    cls, kwargs, dtype_name = CONFIGS[name]
    dtype = np.dtype(dtype_name)
    kwargs = dict(kwargs)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        lr = dict(lr)
        kwargs["learning_rate"] = getattr(keras.optimizers.schedules, lr.pop("schedule"))(**lr)
    opt = getattr(keras.optimizers, cls)(**kwargs)
    inits, _, _, _ = problem(dtype)
    variables = [tf.Variable(w, name=f"w{k}") for k, w in enumerate(inits)]
    history = [[] for _ in variables]
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
    out[f"{name}/learning_rate"] = np.array(float(np.asarray(opt.learning_rate)), np.float32)
    return out


SCHEDULES: dict[str, dict[str, Any]] = {
    "exponential": {
        "schedule": "ExponentialDecay",
        "initial_learning_rate": 0.3,
        "decay_steps": 9,
        "decay_rate": 0.7,
    },
    "exponential_staircase": {
        "schedule": "ExponentialDecay",
        "initial_learning_rate": 0.3,
        "decay_steps": 9,
        "decay_rate": 0.7,
        "staircase": True,
    },
    "piecewise": {
        "schedule": "PiecewiseConstantDecay",
        "boundaries": [3, 10, 40],
        "values": [1.0, 0.5, 0.25, 0.125],
    },
    "cosine": {"schedule": "CosineDecay", "initial_learning_rate": 0.1, "decay_steps": 70},
    "cosine_alpha": {
        "schedule": "CosineDecay",
        "initial_learning_rate": 0.1,
        "decay_steps": 70,
        "alpha": 0.25,
    },
    "cosine_warmup": {
        "schedule": "CosineDecay",
        "initial_learning_rate": 0.01,
        "decay_steps": 50,
        "alpha": 0.1,
        "warmup_target": 0.2,
        "warmup_steps": 30,
    },
    "inverse_time": {
        "schedule": "InverseTimeDecay",
        "initial_learning_rate": 0.2,
        "decay_steps": 3,
        "decay_rate": 0.3,
    },
    "inverse_time_staircase": {
        "schedule": "InverseTimeDecay",
        "initial_learning_rate": 0.2,
        "decay_steps": 3,
        "decay_rate": 0.3,
        "staircase": True,
    },
    "polynomial": {"schedule": "PolynomialDecay", "initial_learning_rate": 0.2, "decay_steps": 60},
    "polynomial_power": {
        "schedule": "PolynomialDecay",
        "initial_learning_rate": 0.2,
        "decay_steps": 60,
        "end_learning_rate": 0.02,
        "power": 3.0,
    },
    "polynomial_cycle": {
        "schedule": "PolynomialDecay",
        "initial_learning_rate": 0.2,
        "decay_steps": 17,
        "end_learning_rate": 0.001,
        "power": 1.5,
        "cycle": True,
    },
}
SCHEDULE_STEPS = 150


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name in CONFIGS:
        out.update(run(tf, keras, name))
    for name, spec in SCHEDULES.items():
        spec = dict(spec)
        schedule = getattr(keras.optimizers.schedules, spec.pop("schedule"))(**spec)
        out[f"schedule/{name}"] = np.array(
            [float(schedule(tf.constant(s, tf.int64))) for s in range(SCHEDULE_STEPS)], np.float32
        )
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optimizers.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
