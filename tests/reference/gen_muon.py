"""Reference trajectories of Keras 3's Muon (TensorFlow 2.21), `fit` with it, and its list of
variables.

Run with TensorFlow's venv (see README.md); writes muon.npz beside this file.

The problem (gen_optimizers.py's, on this file's shapes and seed): five variables named
`NAMES`, a vector, a tall and a wide matrix, a rank-3 variable and a square matrix named
"embedding" (Muon steps the two middle matrices itself, the others with AdamW unless a
configuration says otherwise); at step `t` the gradient `a * (w - c) + noise[t]` computed with
NumPy (the test computes the same gradients bit for bit); the tall matrix gets no gradient on
every third step. Each configuration runs `STEPS` steps of `apply_gradients` on
`keras.Variable`s (Muon reads their `path`); the variables are stored after the steps in `SAVED`
(1-based). `FIT_RUNS`: gen_optimizers2.py's regression model compiled with Muon.
`problem()` is imported by the test, so both sides build the same arrays. Keras's Muon step
multiplies a float32 learning rate into the update, so float64 matrices fail in TensorFlow
(InvalidArgumentError): all configurations are float32 (the test checks float64 against its
own NumPy transcription of Keras's formulas).
"""

from __future__ import annotations

import os
from typing import Any

import gen_optimizers
import gen_optimizers2
import numpy as np

STEPS = 20
SAVED = [1, 2, 3, 5, 10, 15, 20]
SHAPES: list[tuple[int, ...]] = [(5,), (6, 3), (3, 5), (2, 3, 4), (4, 4)]
NAMES = ["bias", "tall", "wide", "cube", "embedding"]


def problem(
    dtype: Any = np.float32,
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], np.ndarray]:
    """gen_optimizers.py's problem on this file's shapes, seed and steps."""
    return gen_optimizers.problem(dtype, SHAPES, 4242, STEPS)


def gradients(step: int, values: list[np.ndarray], dtype: Any = np.float32) -> list[Any]:
    """gen_optimizers.py's gradients on this file's problem."""
    return gen_optimizers.gradients(step, values, dtype, SHAPES, 4242, STEPS)


# name -> (constructor arguments, dtype); a schedule is given as {"schedule": class name,
# ...arguments} in place of learning_rate.
CONFIGS: dict[str, tuple[dict[str, Any], str]] = {
    "muon": ({"learning_rate": 0.05}, "float32"),
    "muon_plain": (
        {
            "learning_rate": 0.1,
            "nesterov": False,
            "rms_rate": None,
            "weight_decay": None,
            "adam_weight_decay": None,
            "ns_steps": 3,
            "momentum": 0.8,
        },
        "float32",
    ),
    "muon_exclude": (
        {
            "learning_rate": 0.02,
            "exclude_layers": ["wid"],
            "exclude_embeddings": False,
            "adam_lr_ratio": 0.5,
            "adam_beta_1": 0.8,
            "adam_beta_2": 0.99,
            "weight_decay": 0.1,
            "adam_weight_decay": 0.02,
        },
        "float32",
    ),
    "muon_schedule_clip": (
        {
            "learning_rate": {
                "schedule": "ExponentialDecay",
                "initial_learning_rate": 0.1,
                "decay_steps": 5,
                "decay_rate": 0.5,
            },
            "clipnorm": 0.5,
            "muon_a": 2.0,
            "muon_b": -1.5,
            "muon_c": 0.5,
            "rms_rate": 0.3,
        },
        "float32",
    ),
}


def make_optimizer(module: Any, name: str) -> Any:
    """Configuration `name` built from `module` (`keras.optimizers` or rustape's)."""
    kwargs = dict(CONFIGS[name][0])
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        lr = dict(lr)
        kwargs["learning_rate"] = getattr(module.schedules, lr.pop("schedule"))(**lr)
    return module.Muon(**kwargs)


def run(keras: Any, name: str) -> dict[str, np.ndarray]:
    dtype = np.dtype(CONFIGS[name][1])
    opt = make_optimizer(keras.optimizers, name)
    inits, _, _, _ = problem(dtype)
    variables = [keras.Variable(w, name=n, dtype=dtype.name) for n, w in zip(NAMES, inits)]
    history: list[list[np.ndarray]] = [[] for _ in variables]
    for step in range(STEPS):
        grads = gradients(step, [np.asarray(v.numpy()) for v in variables], dtype)
        pairs = [(g, v) for g, v in zip(grads, variables) if g is not None]
        opt.apply_gradients([(keras.ops.convert_to_tensor(g), v) for g, v in pairs])
        if step + 1 in SAVED:
            for k, v in enumerate(variables):
                history[k].append(np.asarray(v.numpy()))
    out = {f"{name}/w{k}": np.stack(h) for k, h in enumerate(history)}
    out[f"{name}/iterations"] = np.array(int(opt.iterations.numpy()))
    # Which variables got a velocity (the AdamW ones), in Keras's order of variables.
    out[f"{name}/velocity"] = np.array(
        [opt.adam_velocities[opt._get_variable_index(v)] is not None for v in variables]
    )
    out[f"{name}/variable_names"] = np.array([v.path for v in opt.variables])
    return out


FIT_RUNS = {"fit_muon": "muon"}


def fit(keras: Any, name: str) -> dict[str, np.ndarray]:
    x, y, weights = gen_optimizers2.fit_setup()
    model = keras.Sequential(
        [
            keras.Input(shape=(6,)),
            keras.layers.Dense(8, activation="tanh"),
            keras.layers.Dense(2),
        ]
    )
    model.set_weights(weights)
    model.compile(optimizer=FIT_RUNS[name], loss="mse")
    history = model.fit(
        x,
        y,
        batch_size=gen_optimizers2.FIT_BATCH,
        epochs=gen_optimizers2.FIT_EPOCHS,
        shuffle=False,
        verbose=0,
    ).history
    out = {f"{name}/loss": np.array(history["loss"], np.float64)}
    for k, w in enumerate(model.get_weights()):
        out[f"{name}/w{k}"] = w
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name in CONFIGS:
        out.update(run(keras, name))
    for name in FIT_RUNS:
        out.update(fit(keras, name))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "muon.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
