"""Reference values from TensorFlow 2.21 / Keras 3.15 for `rt.linalg.lu` and its helpers
(`lu_solve`, `lu_matrix_inverse`, `lu_reconstruct`, Keras's `lu_factor`), Keras's `unfold` /
`fold`, the adaptive pools (ops and layers), `angle`, `view` and `vectorize`.

Run under TensorFlow (see README.md); writes `linalg_more.npz` beside itself, read by
tests/python/test_linalg_more.py. Each gradient `NAME_grad_K` is d sum(w * out) / d input K
with the weights `NAME_w` stored beside it.
"""

from __future__ import annotations

import os

import keras
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(20261125)
out: dict[str, np.ndarray] = {}


def rand(*shape: int, dtype: str = "float64") -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def store_grads(name: str, fn, inputs: list[np.ndarray]) -> None:
    """`name`'s output, weights and the gradient of sum(w * fn(*inputs)) for each input."""
    xs = [tf.Variable(x) for x in inputs]
    with tf.GradientTape() as tape:
        y = fn(*xs)
        w = tf.constant(rand(*y.shape, dtype=y.dtype.name))
        loss = tf.reduce_sum(w * y)
    grads = tape.gradient(loss, xs)
    for k, x in enumerate(inputs):
        out[f"{name}_in_{k}"] = x
    out[f"{name}_out"] = y.numpy()
    out[f"{name}_w"] = w.numpy()
    for k, g in enumerate(grads):
        out[f"{name}_grad_{k}"] = g.numpy()


# --- LU -----------------------------------------------------------------------------------
lu_inputs = {
    "lu_f64": rand(3, 4, 4),
    "lu_f32": rand(2, 5, 5, dtype="float32"),
    "lu_c128": rand(2, 3, 3) + 1j * rand(2, 3, 3),
    # Ties in magnitude: Eigen takes the first of equal pivots.
    "lu_ties": np.array([[1.0, 2.0, 3.0], [-1.0, 5.0, 6.0], [1.0, 0.0, 2.0]]),
    # Ill-conditioned (Hilbert 6x6, condition ~1.5e7).
    "lu_hilbert": 1.0 / (np.arange(6)[:, None] + np.arange(6)[None, :] + 1.0),
    "lu_single_f32": rand(1, 1, dtype="float32") + 2.0,
}
for name, x in lu_inputs.items():
    lu, p = tf.linalg.lu(x)
    out[f"{name}_in"] = x
    out[f"{name}_lu"] = lu.numpy()
    out[f"{name}_p"] = p.numpy()
lu64, p64 = tf.linalg.lu(tf.constant(rand(1, 4, 4)), output_idx_type=tf.int64)
out["lu_int64_p"] = p64.numpy()

for dtype in ("float64", "float32"):
    a = rand(2, 4, 4, dtype=dtype) + 4 * np.eye(4, dtype=dtype)
    lu, p = tf.linalg.lu(a)
    out[f"lu_helpers_{dtype}_a"] = a
    out[f"lu_helpers_{dtype}_p"] = p.numpy()
    store_grads(
        f"lu_reconstruct_{dtype}", lambda m, p=p: tf.linalg.lu_reconstruct(m, p), [lu.numpy()]
    )
    rhs = rand(3, 1, 4, 2, dtype=dtype)  # broadcast against the batch of 2
    store_grads(
        f"lu_solve_{dtype}", lambda m, b, p=p: tf.linalg.lu_solve(m, p, b), [lu.numpy(), rhs]
    )
    store_grads(
        f"lu_matrix_inverse_{dtype}", lambda m, p=p: tf.linalg.lu_matrix_inverse(m, p), [lu.numpy()]
    )
lu1, p1 = tf.linalg.lu(rand(3, 3) + 3 * np.eye(3))
out["lu_solve_single_p"] = p1.numpy()
store_grads("lu_solve_single", lambda m, b: tf.linalg.lu_solve(m, p1, b), [lu1.numpy(), rand(3, 2)])

kx = rand(4, 4, dtype="float32")
klu, kp = keras.ops.lu_factor(kx)
out["lu_factor_in"], out["lu_factor_lu"], out["lu_factor_pivots"] = (
    kx,
    np.asarray(klu),
    np.asarray(kp),
)

# --- unfold / fold ------------------------------------------------------------------------
blocks = {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}
for dtype in ("float64", "float32"):
    store_grads(
        f"unfold_{dtype}",
        lambda x: keras.ops.unfold(x, **blocks),
        [rand(2, 3, 7, 6, dtype=dtype)],
    )
    n_blocks = out[f"unfold_{dtype}_out"].shape[-1]
    store_grads(
        f"fold_{dtype}",
        lambda x: keras.ops.fold(x, (7, 6), **blocks),
        [rand(2, 18, n_blocks, dtype=dtype)],
    )
store_grads("unfold_plain", lambda x: keras.ops.unfold(x, 3), [rand(1, 2, 5, 5)])
store_grads("fold_plain", lambda x: keras.ops.fold(x, 5, 3), [rand(1, 18, 9)])

# --- adaptive pools -----------------------------------------------------------------------
# (shape, output_size, data_format). Keras 3.15's TensorFlow backend transposes a 1-D
# channels_first input twice (a no-op) before its average pool, so 1-D channels_first
# average pooling is left out here; the test checks it against channels_last.
pools = [
    ("1d", (2, 10, 3), 4, "channels_last"),
    ("1d_up", (1, 3, 2), 5, "channels_last"),
    ("1d_first", (2, 3, 10), 4, "channels_first"),
    ("2d", (2, 7, 9, 3), (3, 4), "channels_last"),
    ("2d_first", (2, 3, 7, 9), (3, 4), "channels_first"),
    ("2d_odd", (1, 11, 5, 2), (4, 3), "channels_last"),
    ("3d", (1, 5, 6, 7, 2), (2, 3, 4), "channels_last"),
    ("3d_first", (1, 2, 5, 6, 7), (2, 3, 4), "channels_first"),
]
for tag, shape, size, fmt in pools:
    for kind in ("average", "max"):
        if tag == "1d_first" and kind == "average":
            continue
        op = getattr(keras.ops, f"adaptive_{kind}_pool")
        # TensorFlow's CPU kernels for 3-D pools are float32 only.
        for dtype in ("float32",) if tag.startswith("3d") else ("float64", "float32"):
            store_grads(
                f"adaptive_{kind}_{tag}_{dtype}",
                lambda x, op=op, size=size, fmt=fmt: op(x, size, data_format=fmt),
                [rand(*shape, dtype=dtype)],
            )
layer_in = rand(2, 7, 9, 3, dtype="float32")
out["layer_in"] = layer_in
out["layer_avg2d"] = keras.layers.AdaptiveAveragePooling2D((3, 4))(layer_in).numpy()
out["layer_max3d_in"] = rand(1, 5, 4, 3, 2, dtype="float32")
out["layer_max3d"] = keras.layers.AdaptiveMaxPooling3D(2)(out["layer_max3d_in"]).numpy()
out["layer_avg1d_in"] = rand(2, 9, 4, dtype="float32")
out["layer_avg1d"] = keras.layers.AdaptiveAveragePooling1D(4)(out["layer_avg1d_in"]).numpy()

# --- angle, view, vectorize ---------------------------------------------------------------
out["angle_f32_in"] = np.array([-1.5, 0.0, 2.0, -0.0], np.float32)
out["angle_f32"] = keras.ops.angle(out["angle_f32_in"]).numpy()
out["angle_i32"] = keras.ops.angle(np.array([-3, 0, 4], np.int32)).numpy()
out["angle_c64_in"] = (rand(5) + 1j * rand(5)).astype(np.complex64)
out["angle_c64"] = keras.ops.angle(out["angle_c64_in"]).numpy()
out["view_in"] = rand(2, 4, dtype="float32")
out["view_i32"] = keras.ops.view(out["view_in"], "int32").numpy()
out["view_f64"] = keras.ops.view(out["view_in"], "float64").numpy()
out["view_i64_in"] = np.arange(6, dtype=np.int64).reshape(2, 3)
out["view_i64_f32"] = keras.ops.view(out["view_i64_in"], "float32").numpy()
out["vectorize_a"] = rand(3, 1, 4, dtype="float32")
out["vectorize_b"] = rand(2, 4, dtype="float32")
# Keras 3.15's TensorFlow backend refuses `vectorize` over the loop axes it builds
# (`in_axes != 0`), so its values here are NumPy's (`np.vectorize`, the semantics Keras
# documents).
out["vectorize_dot"] = np.vectorize(np.dot, signature="(n),(n)->()")(
    out["vectorize_a"], out["vectorize_b"]
).astype(np.float32)
out["vectorize_plain"] = np.vectorize(lambda a: a * a + np.float32(1.0))(out["vectorize_b"])

np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_more.npz"), **out)
print(f"wrote {len(out)} arrays")
