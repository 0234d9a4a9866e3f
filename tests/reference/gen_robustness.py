"""TensorFlow's values and errors at the edges where a careless port differs: gradients
through `where` next to NaN or infinity, NaN in argmax/argmin, infinite logits, negative clip
norms, duplicate reduction axes, and bad integer arguments. Writes robustness.json beside itself:
{case: {"value": nested list (NaN/inf as JSON's NaN/Infinity)} or {"error": exception class}}.

TensorFlow's own kernels give the reference, not the oneDNN ones its x86 builds use by default
for float32: oneDNN's softmax of a lane holding +inf or NaN gives 0 for some finite elements
(softmax([1, 2, nan]) = [0, 0, nan]), while TensorFlow's kernel (and oneDNN for float64) gives
NaN for the whole lane, the only defensible value. So oneDNN is switched off here.

Run: /work/venv-tf/bin/python tests/reference/gen_robustness.py
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np
import tensorflow as tf

CASES: dict[str, Callable[[], Any]] = {}


def case(name: str) -> Callable[[Callable[[], Any]], Callable[[], Any]]:
    def register(f: Callable[[], Any]) -> Callable[[], Any]:
        CASES[name] = f
        return f

    return register


X = [-1.0, 0.0, 4.0]


def grad_of(
    fn: Callable[[tf.Tensor], tf.Tensor], x: Any, dtype: Any = tf.float32, seed: Any = None
) -> Any:
    v = tf.constant(x, dtype)
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = fn(v)
    seed = None if seed is None else seed(y)
    return tape.gradient(y, v, output_gradients=seed)


# -- gradients through `where`: the NaN trap --------------------------------------------------
@case("where_sqrt_grad")
def _() -> Any:
    return grad_of(lambda v: tf.where(v > 0, tf.sqrt(v), 0.0), X)


@case("where_sqrt_grad_f64")
def _() -> Any:
    return grad_of(lambda v: tf.where(v > 0, tf.sqrt(v), tf.zeros_like(v)), X, tf.float64)


@case("where_log_grad")
def _() -> Any:
    return grad_of(lambda v: tf.where(v > 0, tf.math.log(v), 0.0), X)


@case("where_div_grad")
def _() -> Any:
    return grad_of(lambda v: tf.where(v > 0, 1.0 / v, 0.0), X)


@case("where_safe_log_grad")
def _() -> Any:
    # The safe pattern: the unsafe branch never sees the bad input.
    return grad_of(lambda v: tf.where(v > 0, tf.math.log(tf.where(v > 0, v, 1.0)), 0.0), X)


for _name, _fn in {
    "sqrt": tf.sqrt,
    "log": tf.math.log,
    "div": lambda v: 1.0 / v,
    "pow_half": lambda v: tf.pow(v, 0.5),
    "square": tf.square,
    "tanh": tf.tanh,
    "sigmoid": tf.sigmoid,
}.items():
    CASES[f"zero_seed_grad_{_name}"] = lambda fn=_fn: grad_of(fn, X, seed=tf.zeros_like)


# -- NaN and infinities in selections and softmax ---------------------------------------------
ARG_INPUTS = {
    "nan_middle": [1.0, np.nan, 3.0],
    "nan_first": [np.nan, 5.0, 3.0],
    "all_nan": [np.nan, np.nan],
    "nan_neginf": [np.nan, -np.inf],
    "ties": [1.0, 3.0, 3.0, 0.0, 0.0],
    "nan_f64": [np.nan, 1.0, np.nan, 2.0],
}
for _name, _x in ARG_INPUTS.items():
    CASES[f"argmax_{_name}"] = lambda x=_x: tf.argmax(tf.constant(x, tf.float64))
    CASES[f"argmin_{_name}"] = lambda x=_x: tf.argmin(tf.constant(x, tf.float64))


@case("argmax_rows_nan")
def _() -> Any:
    return tf.argmax(tf.constant([[np.nan, 1.0], [2.0, np.nan], [1.0, 5.0]]), axis=1)


SOFTMAX_INPUTS = {
    "inf_one": [np.inf, 1.0],
    "nan_one": [np.nan, 1.0],
    "inf_inf_one": [np.inf, np.inf, 1.0],
    "neginf_one": [-np.inf, 1.0],
    "inf_neginf": [np.inf, -np.inf],
    "all_neginf": [-np.inf, -np.inf],
}
for _name, _x in SOFTMAX_INPUTS.items():
    CASES[f"softmax_{_name}"] = lambda x=_x: tf.nn.softmax(tf.constant(x))
    CASES[f"log_softmax_{_name}"] = lambda x=_x: tf.nn.log_softmax(tf.constant(x))
    CASES[f"logsumexp_{_name}"] = lambda x=_x: tf.reduce_logsumexp(tf.constant(x))


@case("softmax_inf_one_grad")
def _() -> Any:
    return grad_of(tf.nn.softmax, [np.inf, 1.0], seed=lambda y: tf.constant([1.0, 2.0]))


# -- clipping ------------------------------------------------------------------------------------
@case("clip_by_norm_negative")
def _() -> Any:
    return tf.clip_by_norm(tf.constant([3.0, 4.0]), -1.0)


@case("clip_by_norm_zero")
def _() -> Any:
    return tf.clip_by_norm(tf.constant([3.0, 4.0]), 0.0)


@case("clip_by_norm_negative_axes")
def _() -> Any:
    return tf.clip_by_norm(tf.constant([[3.0, 4.0], [1.0, 0.0]]), -2.0, axes=[1])


@case("clip_by_norm_negative_grad")
def _() -> Any:
    return grad_of(lambda v: tf.clip_by_norm(v, -1.0), [3.0, 4.0])


@case("clip_by_norm_zero_vector")
def _() -> Any:
    return tf.clip_by_norm(tf.constant([0.0, 0.0]), 1.0)


@case("clip_by_value_inverted_bounds")
def _() -> Any:
    return tf.clip_by_value(tf.constant([0.0, 5.0]), 3.0, 1.0)


# -- reductions ----------------------------------------------------------------------------------
@case("reduce_sum_duplicate_axes")
def _() -> Any:
    return tf.reduce_sum(tf.ones([2, 3]), axis=[0, 0])


@case("reduce_sum_duplicate_negative_axes")
def _() -> Any:
    return tf.reduce_sum(tf.ones([2, 3]), axis=[1, -1])


@case("reduce_max_duplicate_axes")
def _() -> Any:
    return tf.reduce_max(tf.ones([2, 3]), axis=[0, 0])


@case("reduce_mean_empty")
def _() -> Any:
    return tf.reduce_mean(tf.zeros([0]))


@case("reduce_max_empty")
def _() -> Any:
    return tf.reduce_max(tf.zeros([0]))


@case("reduce_max_nan")
def _() -> Any:
    return tf.reduce_max(tf.constant([1.0, np.nan, 3.0]))


# -- bad arguments -------------------------------------------------------------------------------
@case("tensordot_mismatched_contraction")
def _() -> Any:
    return tf.tensordot(tf.ones([2, 3]), tf.ones([4, 2]), axes=1)


@case("sparse_xent_label_out_of_range")
def _() -> Any:
    return tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([3]), logits=tf.ones([1, 3])
    )


@case("sparse_xent_label_negative")
def _() -> Any:
    return tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([-1]), logits=tf.ones([1, 3])
    )


@case("eye_negative")
def _() -> Any:
    return tf.eye(-3)


@case("linspace_negative_num")
def _() -> Any:
    return tf.linspace(0.0, 1.0, -1)


@case("one_hot_negative_depth")
def _() -> Any:
    return tf.one_hot([1], depth=-1)


@case("one_hot_huge_depth")
def _() -> Any:
    return tf.one_hot([1], depth=2**70)


@case("zeros_overflowing_shape")
def _() -> Any:
    return tf.zeros([2**32, 2**32])


@case("range_zero_delta")
def _() -> Any:
    return tf.range(0, 5, 0)


def _jacobian(parallel_iterations: int) -> Any:
    v = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    return tape.jacobian(y, v, parallel_iterations=parallel_iterations)


CASES["jacobian_parallel_iterations_negative"] = lambda: _jacobian(-1)
CASES["jacobian_parallel_iterations_zero"] = lambda: _jacobian(0)
CASES["jacobian_parallel_iterations_huge"] = lambda: _jacobian(10**6)


def main() -> None:
    out: dict[str, Any] = {}
    for name, f in CASES.items():
        try:
            value = f()
            out[name] = {"value": np.asarray(value).tolist()}
        except Exception as e:  # noqa: BLE001 - the exception class is the reference value
            out[name] = {"error": type(e).__name__}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "robustness.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
