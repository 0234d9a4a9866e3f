"""The examples of TensorFlow's API docstrings that use GradientTape (outside Keras training),
with `tf.` replaced by `rt.`, against what TensorFlow 2.21 computed for them
(tests/reference/gen_api_docstrings.py -> api_docstrings.json). Not ported: the ragged-tensor
example of `GradientTape.gradient` (rustape has no ragged tensors) and `recompute_grad`'s
second example (a `keras.Sequential` with a `Lambda` layer, recomputed as a whole).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import rustape as rt

REF = json.loads(
    (pathlib.Path(__file__).parents[1] / "reference" / "api_docstrings.json").read_text()
)


def value(t: Any) -> Any:
    if t is None:
        return None
    if isinstance(t, (list, tuple)):
        return [value(x) for x in t]
    return np.asarray(t).tolist()


def test_custom_gradient_docstring() -> None:
    @rt.custom_gradient
    def bar(x: Any, y: Any) -> Any:
        def grad(upstream: Any) -> Any:
            dz_dx = y
            dz_dy = x
            return upstream * dz_dx, upstream * dz_dy

        z = x * y
        return z, grad

    x = rt.constant(2.0, dtype=rt.float32)
    y = rt.constant(3.0, dtype=rt.float32)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(y)
        z = bar(x, y)
    got = [value(z), value(tape.gradient(z, x)), value(tape.gradient(z, y))]
    assert got == REF["custom_gradient_bar"]

    weights = rt.Variable(rt.ones([2]))

    @rt.custom_gradient
    def linear_poly(x: Any) -> Any:
        poly = weights[1] * x + weights[0]

        def grad_fn(dpoly: Any, variables: Any) -> Any:
            grad_xs = dpoly * weights[1]
            grad_vars = []
            assert variables is not None
            assert len(variables) == 1
            assert variables[0] is weights
            dy_dw = dpoly * rt.stack([x**1, x**0])
            grad_vars.append(rt.reduce_sum(rt.reshape(dy_dw, [2, -1]), axis=1))
            return grad_xs, grad_vars

        return poly, grad_fn

    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        poly = linear_poly(x)
    got = [value(poly), value(tape.gradient(poly, x)), value(tape.gradient(poly, weights))]
    assert got == REF["custom_gradient_linear_poly"]


def test_recompute_grad_docstring() -> None:
    y = rt.Variable(1.0)
    runs = {"n": 0}

    def my_function(x: Any) -> Any:
        runs["n"] += 1
        z = x * y
        return z

    my_function_recompute = rt.recompute_grad(my_function)
    with rt.GradientTape() as tape:
        r = rt.constant(1.0)
        for _ in range(4):
            r = my_function_recompute(r)
    forward = runs["n"]
    grad = tape.gradient(r, [y])
    got = {"forward_runs": forward, "backward_runs": runs["n"] - forward, "grad": value(grad)}
    assert got == REF["recompute_grad"]

    runs["n"] = 0
    with rt.GradientTape() as tape:
        r = rt.constant(1.0)
        for _ in range(4):
            r = my_function(r)
    forward = runs["n"]
    grad = tape.gradient(r, [y])
    got = {"forward_runs": forward, "backward_runs": runs["n"] - forward, "grad": value(grad)}
    assert got == REF["plain_function"]


def test_stop_recording_docstring() -> None:
    x = rt.constant(4.0)
    with rt.GradientTape() as tape, tape.stop_recording():
        y = x**2
    assert value(tape.gradient(y, x)) == REF["stop_recording"]
