"""The code examples of TensorFlow's guide "Introduction to gradients and automatic
differentiation" with `tf.` replaced by `rt.`, against what TensorFlow 2.21 computed for the same
code (tests/reference/gen_autodiff_guide.py -> autodiff_guide.json). The guide's random initial
values are the generator's fixed arrays. Not ported: the "no gradient registered" example
(`tf.image.adjust_contrast`, which rustape does not have).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest
import rustape as rt

REF = json.loads(
    (pathlib.Path(__file__).parents[1] / "reference" / "autodiff_guide.json").read_text()
)

W0 = [[0.5, -1.0], [0.25, 2.0], [-0.75, 0.1]]
KERNEL0 = [[0.3, -0.2], [0.1, 0.4], [-0.5, 0.6]]
BIAS0 = [0.05, -0.1]


def value(t: Any) -> Any:
    if t is None:
        return None
    if isinstance(t, (list, tuple)):
        return [value(x) for x in t]
    if isinstance(t, dict):
        return {k: value(v) for k, v in t.items()}
    return np.asarray(t).tolist()


def same(got: Any, want: Any) -> None:
    """Equal structure, None in the same places, values to float32 rounding."""
    if want is None or got is None:
        assert got is None and want is None, (got, want)
    elif isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for k in want:
            same(got[k], want[k])
    elif isinstance(want, list) and (not want or isinstance(want[0], (list, dict)) or None in want):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


def test_gradient_tapes() -> None:
    x = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        y = x**2
    same(value(tape.gradient(y, x)), REF["x_squared"])

    w = rt.Variable(rt.constant(W0), name="w")
    b = rt.Variable(rt.zeros(2, dtype=rt.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with rt.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = rt.reduce_mean(y**2)
    dl_dw, dl_db = tape.gradient(loss, [w, b])
    assert w.shape == dl_dw.shape == (3, 2)
    same({"dl_dw": value(dl_dw), "dl_db": value(dl_db)}, REF["dense_by_hand"])
    my_vars = {"w": w, "b": b}
    same(value(tape.gradient(loss, my_vars)), REF["dense_by_hand_dict"])


def test_gradients_with_respect_to_a_model() -> None:
    layer = rt.keras.layers.Dense(2, activation="relu")
    x = rt.constant([[1.0, 2.0, 3.0]])
    layer.build(x.shape)
    layer.set_weights([np.array(KERNEL0, np.float32), np.array(BIAS0, np.float32)])
    with rt.GradientTape() as tape:
        y = layer(x)
        loss = rt.reduce_mean(y**2)
    grad = tape.gradient(loss, layer.trainable_variables)
    assert [list(g.shape) for g in grad] == REF["model_gradients"]["shapes"]
    same(value(grad), REF["model_gradients"]["values"])


def test_controlling_what_the_tape_watches() -> None:
    x0 = rt.Variable(3.0, name="x0")
    x1 = rt.Variable(3.0, name="x1", trainable=False)
    x2 = rt.Variable(2.0, name="x2") + 1.0
    x3 = rt.constant(3.0, name="x3")
    with rt.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    same(value(tape.gradient(y, [x0, x1, x2, x3])), REF["watch_mixed"])
    assert [var.name for var in tape.watched_variables()] == REF["watched_names"]

    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    same(value(tape.gradient(y, x)), REF["watch_constant"])

    x0 = rt.Variable(0.0)
    x1 = rt.Variable(10.0)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = rt.math.sin(x0)
        y1 = rt.nn.softplus(x1)
        y = y0 + y1
        ys = rt.reduce_sum(y)
    same(value(tape.gradient(ys, {"x0": x0, "x1": x1})), REF["watch_accessed_false"])


def test_intermediate_results() -> None:
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    same(value(tape.gradient(z, y)), REF["intermediate"])

    x = rt.constant([1, 3.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    same([value(tape.gradient(z, x)), value(tape.gradient(y, x))], REF["persistent"])
    del tape


def test_gradients_of_non_scalar_targets() -> None:
    x = rt.Variable(2.0)
    with rt.GradientTape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x
    same([value(tape.gradient(y0, x)), value(tape.gradient(y1, x))], REF["two_targets"])

    x = rt.Variable(2.0)
    with rt.GradientTape() as tape:
        y0 = x**2
        y1 = 1 / x
    same(value(tape.gradient({"y0": y0, "y1": y1}, x)), REF["dict_target"])

    x = rt.Variable(2.0)
    with rt.GradientTape() as tape:
        y = x * [3.0, 4.0]
    same(value(tape.gradient(y, x)), REF["vector_target"])

    x = rt.linspace(-10.0, 10.0, 200 + 1)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.nn.sigmoid(x)
    same(value(tape.gradient(y, x)), REF["sigmoid"])


def test_control_flow() -> None:
    x = rt.constant(1.0)
    v0 = rt.Variable(2.0)
    v1 = rt.Variable(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    got = {"dv0": value(dv0), "dv1": value(dv1), "dx": value(tape.gradient(result, x))}
    same(got, REF["control_flow"])


def test_cases_where_gradient_returns_none() -> None:
    x = rt.Variable(2.0)
    y = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        z = y * y
    same(value(tape.gradient(z, x)), REF["unconnected"])

    x = rt.Variable(2.0)
    found = []
    for _epoch in range(2):
        with rt.GradientTape() as tape:
            y = x + 1
        found.append(value(tape.gradient(y, x)))
        x = x + 1
    same(found, REF["replaced_variable"])

    x = rt.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=rt.float32)
    with rt.GradientTape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)
        y = rt.reduce_mean(y, axis=0)
    same(value(tape.gradient(y, x)), REF["numpy_in_between"])

    x = rt.constant(10)
    with rt.GradientTape() as g:
        with pytest.warns(UserWarning, match="floating"):
            g.watch(x)
        y = x * x
    same(value(g.gradient(y, x)), REF["integer"])

    x0 = rt.Variable(3.0)
    x1 = rt.Variable(0.0)
    with rt.GradientTape() as tape:
        x1.assign_add(x0)
        y = x1**2
    same(value(tape.gradient(y, x0)), REF["stateful"])


def test_zeros_instead_of_none() -> None:
    x = rt.Variable([2.0, 2.0])
    y = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        z = y**2
    same(
        value(tape.gradient(z, x, unconnected_gradients=rt.UnconnectedGradients.ZERO)), REF["zeros"]
    )
