"""TensorFlow's values and gradients for the ops of src/ops/{scan,sort,segment,scatter,arrange,
special,contract}.rs and the elementwise, activation, cross-entropy and reduction additions,
written to ops.json beside this file (see README.md).

Every case: the op (a rustape name), its parameters, its inputs, TensorFlow's outputs and the
gradients of `sum_k sum(output_k * w_k)` (fixed weights `w = 1 + 0.1 * arange`) with respect
to its floating inputs. The inputs sit on the edges where TensorFlow defines a convention: ties
in top_k/sort/segment max, poles of lgamma/digamma, zeros in divide_no_nan/xlogy/xdivy, atan2
at the origin, domain edges of the inverse functions, empty segments, int and bool dtypes.

Run with TensorFlow 2.21: `python tests/reference/gen_ops.py`.
"""

import json
import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf

CASES = []


def number(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def encode(t):
    a = np.asarray(t)
    return {
        "dtype": a.dtype.name,
        "shape": list(a.shape),
        "values": [number(v) if a.dtype.kind == "f" else int(v) for v in a.reshape(-1)],
    }


def weights(t):
    n = int(np.prod(t.shape))
    return tf.reshape(tf.cast(1.0 + 0.1 * np.arange(n), t.dtype), t.shape)


def add(op, fn, inputs, params=None, grad=True):
    """Runs `fn(*inputs)` (a tensor or a list of them) under a tape and stores the case."""
    tensors = [tf.constant(x) for x in inputs]
    floats = [t for t in tensors if t.dtype.is_floating]
    with tf.GradientTape() as tape:
        tape.watch(floats)
        out = fn(*tensors)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        loss = tf.add_n(
            [tf.reduce_sum(o * weights(o)) for o in outs if o.dtype.is_floating]
            or [tf.constant(0.0)]
        )
    grads = None
    if grad and floats:
        grads = [
            None if g is None else encode(tf.convert_to_tensor(g))
            for g in tape.gradient(loss, floats)
        ]
    CASES.append(
        {
            "op": op,
            "params": params or {},
            "inputs": [encode(t) for t in tensors],
            "outputs": [encode(o) for o in outs],
            "grads": grads,
        }
    )


f64 = np.float64
f32 = np.float32


def vec(values, dtype=f64):
    return np.array(values, dtype=dtype)


# -- elementwise ------------------------------------------------------------------------------
UNARY = {
    "asin": (tf.math.asin, [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5]),
    "acos": (tf.math.acos, [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5]),
    "atan": (tf.math.atan, [-3.0, -0.5, 0.0, 0.5, 30.0]),
    "sinh": (tf.math.sinh, [-3.0, -0.5, 0.0, 0.5, 2.0]),
    "cosh": (tf.math.cosh, [-3.0, -0.5, 0.0, 0.5, 2.0]),
    "asinh": (tf.math.asinh, [-3.0, -0.5, 0.0, 0.5, 200.0]),
    "acosh": (tf.math.acosh, [0.5, 1.0, 1.5, 3.0, 100.0]),
    "atanh": (tf.math.atanh, [-1.0, -0.5, 0.0, 0.9, 1.0, 1.5]),
    "expm1": (tf.math.expm1, [-3.0, -1e-8, 0.0, 1e-6, 2.0]),
    "erf": (tf.math.erf, [-3.0, -0.5, 0.0, 0.5, 1.0, 6.0]),
    "erfc": (tf.math.erfc, [-3.0, -0.5, 0.0, 0.5, 1.0, 6.0]),
    "lgamma": (tf.math.lgamma, [-2.0, -1.5, -1.0, 0.0, 0.5, 1.0, 2.5, 10.0, 150.0]),
    "digamma": (tf.math.digamma, [-2.0, -1.5, -1.0, 0.0, 0.5, 1.0, 2.5, 10.0, 150.0]),
    "log_sigmoid": (tf.math.log_sigmoid, [-50.0, -1.0, 0.0, 1.0, 50.0]),
    "softsign": (tf.nn.softsign, [-2.0, -0.5, 0.0, 0.5, 2.0]),
    "selu": (tf.nn.selu, [-2.0, -0.5, 0.0, 0.5, 2.0]),
    "gelu": (lambda x: tf.nn.gelu(x, approximate=False), [-3.0, -1.0, 0.0, 0.5, 2.0]),
    "gelu_tanh": (lambda x: tf.nn.gelu(x, approximate=True), [-3.0, -1.0, 0.0, 0.5, 2.0]),
    "is_nan": (tf.math.is_nan, [0.0, float("nan"), float("inf"), -float("inf"), 1.0]),
    "is_inf": (tf.math.is_inf, [0.0, float("nan"), float("inf"), -float("inf"), 1.0]),
    "is_finite": (tf.math.is_finite, [0.0, float("nan"), float("inf"), -float("inf"), 1.0]),
}
for name, (fn, values) in UNARY.items():
    add(name, fn, [vec(values)])
    if name in ("erf", "lgamma", "digamma", "gelu", "gelu_tanh", "selu", "log_sigmoid", "asinh"):
        add(name, fn, [vec(values, f32)])

pairs = {
    "atan2": (tf.math.atan2, [0.0, 1.0, -1.0, 0.0, 2.0, -0.0], [0.0, 0.0, -1.0, -2.0, 3.0, -1.0]),
    "xlogy": (tf.math.xlogy, [0.0, 0.0, 2.0, 1.0, 0.5, 0.0], [0.0, 1.0, 0.0, 2.0, 3.0, -1.0]),
    "xdivy": (tf.math.xdivy, [0.0, 0.0, 2.0, 1.0, 0.5, -3.0], [0.0, 1.0, 0.0, 2.0, 3.0, -1.5]),
    "divide_no_nan": (tf.math.divide_no_nan, [1.0, 0.0, 2.0, -3.0, 0.0], [0.0, 0.0, 4.0, 2.0, 5.0]),
}
for name, (fn, a, b) in pairs.items():
    add(name, fn, [vec(a), vec(b)])
add("divide_no_nan", tf.math.divide_no_nan, [vec([[1.0, 2.0], [3.0, -4.0]]), vec([0.0, 2.0])])
add("scalar_mul", tf.math.scalar_mul, [f64(2.5), vec([[1.0, -2.0], [0.5, 3.0]])])

# -- reductions and cross-entropies -----------------------------------------------------------
add(
    "reduce_euclidean_norm",
    lambda x: tf.math.reduce_euclidean_norm(x, axis=1),
    [vec([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0]])],
    {"axis": [1]},
)
add(
    "reduce_euclidean_norm",
    lambda x: tf.math.reduce_euclidean_norm(x, keepdims=True),
    [vec([[3.0, 4.0], [1.0, -2.0]])],
    {"axis": None, "keepdims": True},
)
add(
    "reduce_euclidean_norm",
    lambda x: tf.math.reduce_euclidean_norm(x),
    [np.array([3, 4, 1], np.int32)],
    {"axis": None},
)
bools = np.array([[True, False, True], [True, True, True]])
add("reduce_all", lambda x: tf.math.reduce_all(x, axis=1), [bools], {"axis": [1]})
add(
    "reduce_any",
    lambda x: tf.math.reduce_any(x, axis=0, keepdims=True),
    [bools],
    {"axis": [0], "keepdims": True},
)

labels = vec([[0.1, 0.6, 0.3], [1.0, 0.0, 0.0]])
logits = vec([[2.0, -1.0, 0.5], [100.0, -100.0, 3.0]])
add(
    "softmax_cross_entropy_with_logits",
    lambda z, x: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
    [labels, logits],
    {"axis": -1},
)
add(
    "softmax_cross_entropy_with_logits",
    lambda z, x: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x, axis=0),
    [labels.T.copy(), logits.T.copy()],
    {"axis": 0},
)
add(
    "sparse_softmax_cross_entropy_with_logits",
    lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x),
    [np.array([1, 0], np.int32), logits],
)
add(
    "sigmoid_cross_entropy_with_logits",
    lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
    [vec([0.3, 1.0, 0.0, 0.5, 0.9]), vec([0.0, -100.0, 100.0, 2.0, -1.5])],
)
add(
    "sigmoid_cross_entropy_with_logits",
    lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
    [vec([0.3, 1.0, 0.0], f32), vec([0.0, -30.0, 30.0], f32)],
)

# -- scans ------------------------------------------------------------------------------------
m = vec([[1.5, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 2.0]])
for exclusive in (False, True):
    for reverse in (False, True):
        p = {"axis": 1, "exclusive": exclusive, "reverse": reverse}
        add("cumsum", lambda x, p=p: tf.math.cumsum(x, **p), [m], p)
        add("cumprod", lambda x, p=p: tf.math.cumprod(x, **p), [m], p)
        q = dict(p, axis=0)
        add("cumsum", lambda x, q=q: tf.math.cumsum(x, **q), [m], q)
add(
    "cumsum",
    lambda x: tf.math.cumsum(x, axis=0),
    [np.array([[1, 2], [3, 4]], np.int32)],
    {"axis": 0},
)
add(
    "cumprod",
    lambda x: tf.math.cumprod(x, axis=1, exclusive=True),
    [np.array([[1, 2, 3], [4, -5, 6]], np.int64)],
    {"axis": 1, "exclusive": True},
)
# With zeros TensorFlow's gradient (div_no_nan) is not the derivative: forward values only.
add(
    "cumprod",
    lambda x: tf.math.cumprod(x, axis=0),
    [vec([2.0, 0.0, 3.0, 0.0, 5.0])],
    {"axis": 0},
    grad=False,
)

# -- sorting (ties keep their order) ----------------------------------------------------------
ties = vec([3.0, 1.0, 3.0, 2.0, 1.0])
add("top_k", lambda x: tf.math.top_k(x, k=3), [ties], {"k": 3})
add("top_k", lambda x: tf.math.top_k(x, k=2), [vec([[1.0, 5.0, 5.0], [2.0, 2.0, 2.0]])], {"k": 2})
add("top_k", lambda x: tf.math.top_k(x, k=2), [np.array([4, 9, 9, 1], np.int32)], {"k": 2})
for direction in ("ASCENDING", "DESCENDING"):
    p = {"axis": -1, "descending": direction == "DESCENDING"}
    add("sort", lambda x, d=direction: tf.sort(x, direction=d), [ties], p)
    add("argsort", lambda x, d=direction: tf.argsort(x, direction=d, stable=True), [ties], p)
    add("sort", lambda x, d=direction: tf.sort(x, axis=0, direction=d), [m], dict(p, axis=0))
    add(
        "argsort",
        lambda x, d=direction: tf.argsort(x, axis=0, direction=d, stable=True),
        [m],
        dict(p, axis=0),
    )
add(
    "sort",
    lambda x: tf.sort(x),
    [np.array([3, -1, 2, -1], np.int32)],
    {"axis": -1, "descending": False},
)

# -- segments ---------------------------------------------------------------------------------
seg_data = vec([[1.0, 2.0], [1.0, 5.0], [0.0, 2.0], [7.0, -1.0]])
seg_ids = np.array([0, 0, 1, -1], np.int32)
add(
    "unsorted_segment_max",
    lambda d, i: tf.math.unsorted_segment_max(d, i, 3),
    [seg_data, seg_ids],
    {"num_segments": 3},
)
add(
    "unsorted_segment_sum",
    lambda d, i: tf.math.unsorted_segment_sum(d, i, 3),
    [seg_data, seg_ids],
    {"num_segments": 3},
)
add(
    "unsorted_segment_mean",
    lambda d, i: tf.math.unsorted_segment_mean(d, i, 3),
    [seg_data, seg_ids],
    {"num_segments": 3},
)
add(
    "unsorted_segment_max",
    lambda d, i: tf.math.unsorted_segment_max(d, i, 2),
    [np.array([3, 8, 8, 1], np.int32), np.array([1, 1, 0, 0], np.int64)],
    {"num_segments": 2},
)
add(
    "unsorted_segment_sum",
    lambda d, i: tf.math.unsorted_segment_sum(d, i, 3),
    [vec([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), np.array([[0, 2, 0], [-1, 1, 2]], np.int64)],
    {"num_segments": 3},
)
add(
    "segment_sum",
    lambda d, i: tf.math.segment_sum(d, i),
    [seg_data, np.array([0, 0, 2, 2], np.int32)],
)

# -- gathers and scatters ---------------------------------------------------------------------
cube = np.arange(24, dtype=f64).reshape(2, 3, 4) / 7.0
add(
    "gather",
    lambda p, i: tf.gather(p, i, axis=2, batch_dims=1),
    [cube, np.array([[0, 3, 3], [2, 1, 0]], np.int32)],
    {"axis": 2, "batch_dims": 1},
)
add(
    "gather_nd",
    lambda p, i: tf.gather_nd(p, i),
    [cube, np.array([[0, 1], [1, 2], [0, 1]], np.int64)],
    {"batch_dims": 0},
)
add(
    "gather_nd",
    lambda p, i: tf.gather_nd(p, i, batch_dims=1),
    [cube, np.array([[[2, 3]], [[0, 0]]], np.int32)],
    {"batch_dims": 1},
)
add(
    "gather_nd",
    lambda p, i: tf.gather_nd(p, i),
    [np.arange(6, dtype=np.int32).reshape(2, 3), np.array([[1, 2], [0, 0]])],
    {"batch_dims": 0},
)
add(
    "scatter_nd",
    lambda i, u: tf.scatter_nd(i, u, [4, 2]),
    [np.array([[1], [3], [1]], np.int32), vec([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])],
    {"shape": [4, 2]},
)
add(
    "tensor_scatter_nd_add",
    tf.tensor_scatter_nd_add,
    [
        vec([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
        np.array([[0, 1], [2, 0], [0, 1]], np.int32),
        vec([10.0, 20.0, 30.0]),
    ],
)
add(
    "tensor_scatter_nd_update",
    tf.tensor_scatter_nd_update,
    [
        vec([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
        np.array([[2], [0]], np.int32),
        vec([[7.0, 8.0], [9.0, 10.0]]),
    ],
)

# -- rearranging ------------------------------------------------------------------------------
add("split", lambda x: tf.split(x, [1, -1, 2], axis=1), [m], {"sizes": [1, -1, 2], "axis": 1})
add("split", lambda x: tf.split(x, 2, axis=0), [m], {"num": 2, "axis": 0})
add("reverse", lambda x: tf.reverse(x, [1, 0]), [m], {"axis": [1, 0]})
add(
    "roll",
    lambda x: tf.roll(x, shift=[1, -3, 1], axis=[0, 1, 1]),
    [m],
    {"shift": [1, -3, 1], "axis": [0, 1, 1]},
)
add(
    "repeat",
    lambda x: tf.repeat(x, [2, 0, 1, 3], axis=1),
    [m],
    {"repeats": [2, 0, 1, 3], "axis": 1},
)
add("repeat", lambda x: tf.repeat(x, 2), [m], {"repeats": [2], "axis": None})
add(
    "meshgrid",
    lambda a, b: tf.meshgrid(a, b),
    [vec([1.0, 2.0, 3.0]), vec([-1.0, 0.5])],
    {"indexing": "xy"},
)
add(
    "meshgrid",
    lambda a, b: tf.meshgrid(a, b, indexing="ij"),
    [vec([1.0, 2.0, 3.0]), vec([-1.0, 0.5])],
    {"indexing": "ij"},
)
add(
    "boolean_mask",
    lambda x, k: tf.boolean_mask(x, k, axis=1),
    [m, np.array([True, False, True, True])],
    {"axis": 1},
)
add(
    "boolean_mask",
    lambda x, k: tf.boolean_mask(x, k),
    [m, np.array([[True, False, True, True], [False, False, True, False]])],
    {"axis": 0},
)
add("where", lambda c: tf.where(c), [np.array([[True, False], [False, True], [True, True]])])

# -- contractions -----------------------------------------------------------------------------
add(
    "tensordot",
    lambda a, b: tf.tensordot(a, b, axes=[[1, 2], [1, 0]]),
    [cube, np.arange(24, dtype=f64).reshape(4, 3, 2) / 5.0],
    {"axes_a": [1, 2], "axes_b": [1, 0]},
)
add(
    "tensordot",
    lambda a, b: tf.tensordot(a, b, axes=1),
    [m, vec([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [1.0, 1.0]])],
    {"n": 1},
)
add("diag_part", tf.linalg.diag_part, [cube])
add("trace", tf.linalg.trace, [np.arange(18, dtype=f64).reshape(2, 3, 3)])
add("trace", tf.linalg.trace, [cube])

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
print(f"{len(CASES)} cases")
