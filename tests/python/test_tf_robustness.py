"""rustape against TensorFlow 2.21 at the edges: gradients through `where` next to NaN and
infinity, NaN in argmax/argmin, infinite logits, negative clip norms, duplicate reduction axes
and bad arguments. Values and error classes come from tests/reference/gen_robustness.py
(robustness.json); TensorFlow's InvalidArgumentError is rustape's ValueError."""

from __future__ import annotations

import json
import os
from typing import Any, Callable

import numpy as np
import pytest
import rustape as rt

with open(os.path.join(os.path.dirname(__file__), "..", "reference", "robustness.json")) as _fh:
    REFERENCE: dict[str, dict[str, Any]] = json.load(_fh)

X = [-1.0, 0.0, 4.0]


def grad_of(fn: Callable[[Any], Any], x: Any, dtype: Any = rt.float32, seed: Any = None) -> Any:
    v = rt.constant(x, dtype=dtype)
    with rt.GradientTape() as tape:
        tape.watch(v)
        y = fn(v)
    seeds = None if seed is None else seed(y)
    return tape.gradient(y, v, output_gradients=seeds)


CASES: dict[str, Callable[[], Any]] = {
    "where_sqrt_grad": lambda: grad_of(lambda v: rt.where(v > 0, rt.sqrt(v), 0.0), X),
    "where_sqrt_grad_f64": lambda: grad_of(
        lambda v: rt.where(v > 0, rt.sqrt(v), rt.zeros_like(v)), X, rt.float64
    ),
    "where_log_grad": lambda: grad_of(lambda v: rt.where(v > 0, rt.math.log(v), 0.0), X),
    "where_div_grad": lambda: grad_of(lambda v: rt.where(v > 0, 1.0 / v, 0.0), X),
    "where_safe_log_grad": lambda: grad_of(
        lambda v: rt.where(v > 0, rt.math.log(rt.where(v > 0, v, 1.0)), 0.0), X
    ),
    "argmax_rows_nan": lambda: rt.argmax(
        rt.constant([[np.nan, 1.0], [2.0, np.nan], [1.0, 5.0]]), axis=1
    ),
    "softmax_inf_one_grad": lambda: grad_of(
        rt.nn.softmax, [np.inf, 1.0], seed=lambda y: rt.constant([1.0, 2.0])
    ),
    "clip_by_norm_negative": lambda: rt.clip_by_norm(rt.constant([3.0, 4.0]), -1.0),
    "clip_by_norm_zero": lambda: rt.clip_by_norm(rt.constant([3.0, 4.0]), 0.0),
    "clip_by_norm_negative_axes": lambda: rt.clip_by_norm(
        rt.constant([[3.0, 4.0], [1.0, 0.0]]), -2.0, axes=[1]
    ),
    "clip_by_norm_negative_grad": lambda: grad_of(lambda v: rt.clip_by_norm(v, -1.0), [3.0, 4.0]),
    "clip_by_norm_zero_vector": lambda: rt.clip_by_norm(rt.constant([0.0, 0.0]), 1.0),
    "clip_by_value_inverted_bounds": lambda: rt.clip_by_value(rt.constant([0.0, 5.0]), 3.0, 1.0),
    "reduce_sum_duplicate_axes": lambda: rt.reduce_sum(rt.ones([2, 3]), axis=[0, 0]),
    "reduce_sum_duplicate_negative_axes": lambda: rt.reduce_sum(rt.ones([2, 3]), axis=[1, -1]),
    "reduce_max_duplicate_axes": lambda: rt.reduce_max(rt.ones([2, 3]), axis=[0, 0]),
    "reduce_mean_empty": lambda: rt.reduce_mean(rt.zeros([0])),
    "reduce_max_empty": lambda: rt.reduce_max(rt.zeros([0])),
    "reduce_max_nan": lambda: rt.reduce_max(rt.constant([1.0, np.nan, 3.0])),
    "tensordot_mismatched_contraction": lambda: rt.tensordot(
        rt.ones([2, 3]), rt.ones([4, 2]), axes=1
    ),
    "sparse_xent_label_out_of_range": lambda: rt.nn.sparse_softmax_cross_entropy_with_logits(
        labels=rt.constant([3]), logits=rt.ones([1, 3])
    ),
    "sparse_xent_label_negative": lambda: rt.nn.sparse_softmax_cross_entropy_with_logits(
        labels=rt.constant([-1]), logits=rt.ones([1, 3])
    ),
    "eye_negative": lambda: rt.eye(-3),
    "linspace_negative_num": lambda: rt.linspace(0.0, 1.0, -1),
    "one_hot_negative_depth": lambda: rt.one_hot([1], depth=-1),
    "one_hot_huge_depth": lambda: rt.one_hot([1], depth=2**70),
    "zeros_overflowing_shape": lambda: rt.zeros([2**32, 2**32]),
    "range_zero_delta": lambda: rt.range(0, 5, 0),
}

for _name, _fn in {
    "sqrt": rt.sqrt,
    "log": rt.math.log,
    "div": lambda v: 1.0 / v,
    "pow_half": lambda v: rt.pow(v, 0.5),
    "square": rt.square,
    "tanh": rt.tanh,
    "sigmoid": rt.sigmoid,
}.items():
    CASES[f"zero_seed_grad_{_name}"] = lambda fn=_fn: grad_of(fn, X, seed=rt.zeros_like)

for _name, _x in {
    "nan_middle": [1.0, np.nan, 3.0],
    "nan_first": [np.nan, 5.0, 3.0],
    "all_nan": [np.nan, np.nan],
    "nan_neginf": [np.nan, -np.inf],
    "ties": [1.0, 3.0, 3.0, 0.0, 0.0],
    "nan_f64": [np.nan, 1.0, np.nan, 2.0],
}.items():
    CASES[f"argmax_{_name}"] = lambda x=_x: rt.argmax(rt.constant(x, dtype=rt.float64))
    CASES[f"argmin_{_name}"] = lambda x=_x: rt.argmin(rt.constant(x, dtype=rt.float64))

for _name, _x in {
    "inf_one": [np.inf, 1.0],
    "nan_one": [np.nan, 1.0],
    "inf_inf_one": [np.inf, np.inf, 1.0],
    "neginf_one": [-np.inf, 1.0],
    "inf_neginf": [np.inf, -np.inf],
    "all_neginf": [-np.inf, -np.inf],
}.items():
    CASES[f"softmax_{_name}"] = lambda x=_x: rt.nn.softmax(rt.constant(x))
    CASES[f"log_softmax_{_name}"] = lambda x=_x: rt.nn.log_softmax(rt.constant(x))
    CASES[f"logsumexp_{_name}"] = lambda x=_x: rt.reduce_logsumexp(rt.constant(x))


def _jacobian(parallel_iterations: int) -> Any:
    v = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    return tape.jacobian(y, v, parallel_iterations=parallel_iterations)


CASES["jacobian_parallel_iterations_negative"] = lambda: _jacobian(-1)
CASES["jacobian_parallel_iterations_zero"] = lambda: _jacobian(0)
CASES["jacobian_parallel_iterations_huge"] = lambda: _jacobian(10**6)

# TensorFlow's exception classes and the rustape exception each stands for.
ERRORS = {"InvalidArgumentError": ValueError, "ValueError": ValueError, "TypeError": TypeError}


def test_every_reference_case_is_checked() -> None:
    assert sorted(CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_matches_tensorflow(name: str) -> None:
    expected = REFERENCE[name]
    if "error" in expected:
        with pytest.raises(ERRORS[expected["error"]]):
            CASES[name]()
        return
    got = np.asarray(CASES[name]())
    want = np.asarray(expected["value"], dtype=got.dtype if got.dtype.kind == "f" else None)
    assert got.shape == want.shape, f"{name}: shape {got.shape}, TensorFlow {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, equal_nan=True, err_msg=name)
