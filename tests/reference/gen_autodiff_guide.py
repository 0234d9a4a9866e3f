"""The code examples of TensorFlow's guide "Introduction to gradients and automatic
differentiation", run by TensorFlow 2.21 itself; tests/python/test_guide_autodiff.py runs the
same code with `tf.` replaced by `rt.` and compares.

Run with TensorFlow's own venv: `python tests/reference/gen_autodiff_guide.py`; writes
`autodiff_guide.json` beside itself. Random initial values of the guide are replaced by the
fixed arrays below (the same in the test) so that values, not only shapes, compare.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT: dict[str, Any] = {}

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


def gradient_tapes() -> None:
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2
    OUT["x_squared"] = value(tape.gradient(y, x))

    w = tf.Variable(tf.constant(W0), name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    dl_dw, dl_db = tape.gradient(loss, [w, b])
    OUT["dense_by_hand"] = {"dl_dw": value(dl_dw), "dl_db": value(dl_db)}
    my_vars = {"w": w, "b": b}
    OUT["dense_by_hand_dict"] = value(tape.gradient(loss, my_vars))


def gradients_of_a_model() -> None:
    layer = tf.keras.layers.Dense(2, activation="relu")
    x = tf.constant([[1.0, 2.0, 3.0]])
    layer.build(x.shape)
    layer.set_weights([np.array(KERNEL0, np.float32), np.array(BIAS0, np.float32)])
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_mean(y**2)
    grad = tape.gradient(loss, layer.trainable_variables)
    OUT["model_gradients"] = {
        "shapes": [list(g.shape) for g in grad],
        "values": value(grad),
    }


def controlling_what_is_watched() -> None:
    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2 = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    OUT["watch_mixed"] = value(tape.gradient(y, [x0, x1, x2, x3]))
    OUT["watched_names"] = [var.name for var in tape.watched_variables()]

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    OUT["watch_constant"] = value(tape.gradient(y, x))

    x0 = tf.Variable(0.0)
    x1 = tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.softplus(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)
    OUT["watch_accessed_false"] = value(tape.gradient(ys, {"x0": x0, "x1": x1}))


def intermediate_results() -> None:
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    OUT["intermediate"] = value(tape.gradient(z, y))

    x = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    OUT["persistent"] = [value(tape.gradient(z, x)), value(tape.gradient(y, x))]


def non_scalar_targets() -> None:
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x
    OUT["two_targets"] = [value(tape.gradient(y0, x)), value(tape.gradient(y1, x))]

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y0 = x**2
        y1 = 1 / x
    OUT["dict_target"] = value(tape.gradient({"y0": y0, "y1": y1}, x))

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * [3.0, 4.0]
    OUT["vector_target"] = value(tape.gradient(y, x))

    x = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sigmoid(x)
    OUT["sigmoid"] = value(tape.gradient(y, x))


def control_flow() -> None:
    x = tf.constant(1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    OUT["control_flow"] = {
        "dv0": value(dv0),
        "dv1": value(dv1),
        "dx": value(tape.gradient(result, x)),
    }


def none_gradients() -> None:
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y * y
    OUT["unconnected"] = value(tape.gradient(z, x))

    x = tf.Variable(2.0)
    found = []
    for _epoch in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        found.append(value(tape.gradient(y, x)))
        x = x + 1
    OUT["replaced_variable"] = found

    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)
        y = tf.reduce_mean(y, axis=0)
    OUT["numpy_in_between"] = value(tape.gradient(y, x))

    x = tf.constant(10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tf.GradientTape() as g:
            g.watch(x)
            y = x * x
    OUT["integer"] = value(g.gradient(y, x))

    x0 = tf.Variable(3.0)
    x1 = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        x1.assign_add(x0)
        y = x1**2
    OUT["stateful"] = value(tape.gradient(y, x0))


def zeros_instead_of_none() -> None:
    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y**2
    OUT["zeros"] = value(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))


def main() -> None:
    gradient_tapes()
    gradients_of_a_model()
    controlling_what_is_watched()
    intermediate_results()
    non_scalar_targets()
    control_flow()
    none_gradients()
    zeros_instead_of_none()
    OUT["tensorflow_version"] = tf.__version__
    with open(os.path.join(HERE, "autodiff_guide.json"), "w") as f:
        json.dump(OUT, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
