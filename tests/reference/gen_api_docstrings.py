"""The examples of TensorFlow 2.21's API docstrings that use GradientTape (outside Keras
training): `tf.custom_gradient`, `tf.recompute_grad`, `GradientTape.stop_recording`, run by
TensorFlow itself; tests/python/test_guide_docstrings.py runs them with `tf.` replaced by `rt.`.

Run with TensorFlow's own venv: `python tests/reference/gen_api_docstrings.py`; writes
`api_docstrings.json` beside itself. The docstrings' `tf.print("running")` is counted with a
Python counter (how many times the function body ran), which is what the printed lines show.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT: dict[str, Any] = {}


def value(t: Any) -> Any:
    if t is None:
        return None
    if isinstance(t, (list, tuple)):
        return [value(x) for x in t]
    return np.asarray(t).tolist()


def custom_gradient() -> None:
    @tf.custom_gradient
    def bar(x: Any, y: Any) -> Any:
        def grad(upstream: Any) -> Any:
            dz_dx = y
            dz_dy = x
            return upstream * dz_dx, upstream * dz_dy

        z = x * y
        return z, grad

    x = tf.constant(2.0, dtype=tf.float32)
    y = tf.constant(3.0, dtype=tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(y)
        z = bar(x, y)
    OUT["custom_gradient_bar"] = [value(z), value(tape.gradient(z, x)), value(tape.gradient(z, y))]

    weights = tf.Variable(tf.ones([2]))

    @tf.custom_gradient
    def linear_poly(x: Any) -> Any:
        poly = weights[1] * x + weights[0]

        def grad_fn(dpoly: Any, variables: Any) -> Any:
            grad_xs = dpoly * weights[1]
            grad_vars = []
            assert variables is not None
            assert len(variables) == 1
            assert variables[0] is weights
            dy_dw = dpoly * tf.stack([x**1, x**0])
            grad_vars.append(tf.reduce_sum(tf.reshape(dy_dw, [2, -1]), axis=1))
            return grad_xs, grad_vars

        return poly, grad_fn

    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        poly = linear_poly(x)
    OUT["custom_gradient_linear_poly"] = [
        value(poly),
        value(tape.gradient(poly, x)),
        value(tape.gradient(poly, weights)),
    ]


def recompute_grad() -> None:
    y = tf.Variable(1.0)
    runs = {"n": 0}

    def my_function(x: Any) -> Any:
        runs["n"] += 1
        z = x * y
        return z

    my_function_recompute = tf.recompute_grad(my_function)
    with tf.GradientTape() as tape:
        r = tf.constant(1.0)
        for _ in range(4):
            r = my_function_recompute(r)
    forward = runs["n"]
    grad = tape.gradient(r, [y])
    OUT["recompute_grad"] = {
        "forward_runs": forward,
        "backward_runs": runs["n"] - forward,
        "grad": value(grad),
    }

    runs["n"] = 0
    with tf.GradientTape() as tape:
        r = tf.constant(1.0)
        for _ in range(4):
            r = my_function(r)
    forward = runs["n"]
    grad = tape.gradient(r, [y])
    OUT["plain_function"] = {
        "forward_runs": forward,
        "backward_runs": runs["n"] - forward,
        "grad": value(grad),
    }


def stop_recording() -> None:
    x = tf.constant(4.0)
    with tf.GradientTape() as tape, tape.stop_recording():
        y = x**2
    OUT["stop_recording"] = value(tape.gradient(y, x))


def main() -> None:
    custom_gradient()
    recompute_grad()
    stop_recording()
    OUT["tensorflow_version"] = tf.__version__
    with open(os.path.join(HERE, "api_docstrings.json"), "w") as f:
        json.dump(OUT, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
