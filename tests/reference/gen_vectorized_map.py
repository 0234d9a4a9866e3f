"""Reference values for `rt.vectorized_map` from TensorFlow's `tf.vectorized_map`.

Run with TensorFlow 2.21 (see README.md): writes vectorized_map.npz beside this file. Each case
stores its inputs, TF's result and, where the case is differentiable, TF's gradient of
`sum(result * seed)` with respect to the first input (seed fixed below); the weights the
functions share are stored under `params/`.
"""

from pathlib import Path

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(10)
x = rng.normal(size=(5, 3))
w = rng.normal(size=(3, 4))
mats = rng.normal(size=(5, 2, 3))
v = np.array([0.5, -1.0, 2.0])


def tape_inside(r):
    with tf.GradientTape() as t:
        t.watch(r)
        y = tf.reduce_sum(tf.sin(r) * r)
    return t.gradient(y, r)


def shared_weight_gradient(r):
    # The gradient with respect to a weight every row shares: one per row in TensorFlow.
    wv = tf.constant(v)
    with tf.GradientTape() as t:
        t.watch(wv)
        y = tf.reduce_sum(r * wv) ** 2
    return t.gradient(y, wv)


CASES = {
    "mlp": (lambda r: tf.nn.relu(tf.linalg.matvec(w, r, transpose_a=True)), [x]),
    "softmax": (lambda r: tf.nn.softmax(r * 2.0), [x]),
    "gram": (lambda a: tf.matmul(a, a, transpose_b=True), [mats]),
    "inner_mean": (lambda a: tf.reduce_mean(tf.exp(a), axis=-1), [mats]),
    "tape_inside": (tape_inside, [x]),
    "shared_weight_gradient": (shared_weight_gradient, [x]),
    "pair": (lambda t: t[0] * tf.reduce_sum(t[1]), [x, x[:, ::-1].copy()]),
    "constant": (lambda r: tf.constant([1.0, 2.0], tf.float64), [x]),
    "empty": (lambda r: tf.reduce_sum(r), [np.zeros((0, 3))]),
}


def main() -> None:
    out = {"params/w": w, "params/v": v}
    for name, (fn, inputs) in CASES.items():
        ts = [tf.constant(a, tf.float64) for a in inputs]
        elems = ts[0] if len(ts) == 1 else tuple(ts)
        with tf.GradientTape() as tape:
            tape.watch(ts[0])
            y = tf.vectorized_map(fn, elems)
        seed = np.linspace(-1.0, 1.0, int(np.prod(y.shape))).reshape(y.shape)
        with tape:
            loss = tf.reduce_sum(y * seed)
        g = tape.gradient(loss, ts[0])
        for i, a in enumerate(inputs):
            out[f"{name}/x{i}"] = a
        out[f"{name}/y"] = y.numpy()
        out[f"{name}/seed"] = seed
        if g is not None:
            out[f"{name}/grad"] = g.numpy()
    np.savez(Path(__file__).with_name("vectorized_map.npz"), **out)


if __name__ == "__main__":
    main()
