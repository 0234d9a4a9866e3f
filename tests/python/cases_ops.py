"""Gradient-check cases for the scan, sort, segment, scatter, rearranging, special-function,
activation, cross-entropy and contraction ops, in the format of test_op_gradients.py
(`CASES = {name: (fn, [numpy inputs])}`), checked first and second order against central
finite differences in float64 by the test below. Forward values and gradients against
TensorFlow are in test_ops_reference.py."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

rng = np.random.default_rng(2021)


def _u(*shape: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return rng.uniform(lo, hi, size=shape)


def _distinct(*shape: int) -> np.ndarray:
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.37 - 1.0) + rng.uniform(0, 0.01, size=shape)


A34 = _u(3, 4)
WIDE = _u(3, 4, lo=-2.5, hi=2.5)
POS = _u(3, 4, lo=0.3, hi=2.5)
PROBS = rng.uniform(0.1, 1.0, size=(3, 4))
PROBS = PROBS / PROBS.sum(axis=-1, keepdims=True)

CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    # elementwise
    "asin": (lambda x: rt.asin(x), [_u(3, 4, lo=-0.8, hi=0.8)]),
    "acos": (lambda x: rt.acos(x), [_u(3, 4, lo=-0.8, hi=0.8)]),
    "atan": (lambda x: rt.atan(x), [WIDE]),
    "sinh": (lambda x: rt.sinh(x), [WIDE]),
    "cosh": (lambda x: rt.cosh(x), [WIDE]),
    "asinh": (lambda x: rt.asinh(x), [WIDE]),
    "acosh": (lambda x: rt.acosh(x), [_u(3, 4, lo=1.2, hi=4.0)]),
    "atanh": (lambda x: rt.atanh(x), [_u(3, 4, lo=-0.8, hi=0.8)]),
    "expm1": (lambda x: rt.math.expm1(x), [WIDE]),
    "erf": (lambda x: rt.math.erf(x), [WIDE]),
    "erfc": (lambda x: rt.math.erfc(x), [WIDE]),
    "erfinv": (lambda x: rt.math.erfinv(x), [_u(3, 4, lo=-0.9, hi=0.9)]),
    "lgamma": (lambda x: rt.math.lgamma(x), [_u(3, 4, lo=0.2, hi=6.0)]),
    "digamma": (lambda x: rt.math.digamma(x), [_u(3, 4, lo=0.2, hi=6.0)]),
    "polygamma": (lambda x: rt.math.polygamma(2.0, x), [_u(3, 4, lo=0.5, hi=4.0)]),
    "log_sigmoid": (lambda x: rt.math.log_sigmoid(x), [WIDE]),
    "softsign": (lambda x: rt.nn.softsign(x), [WIDE]),
    "selu": (lambda x: rt.nn.selu(x), [WIDE]),
    "gelu": (lambda x: rt.nn.gelu(x), [WIDE]),
    "gelu_tanh": (lambda x: rt.nn.gelu(x, approximate=True), [WIDE]),
    "atan2": (lambda y, x: rt.atan2(y, x), [WIDE, POS]),
    "xlogy": (lambda x, y: rt.math.xlogy(x, y), [WIDE, POS]),
    "xdivy": (lambda x, y: rt.math.xdivy(x, y), [WIDE, POS]),
    "divide_no_nan": (lambda x, y: rt.math.divide_no_nan(x, y), [WIDE, _u(4, lo=0.5, hi=2.0)]),
    "scalar_mul": (lambda s, x: rt.scalar_mul(s, x), [np.array(1.7), A34]),
    # reductions and cross-entropies
    "reduce_euclidean_norm": (lambda x: rt.math.reduce_euclidean_norm(x, axis=1), [A34]),
    "softmax_cross_entropy_with_logits": (
        lambda z, x: rt.nn.softmax_cross_entropy_with_logits(z, x),
        [PROBS, WIDE],
    ),
    "sparse_softmax_cross_entropy_with_logits": (
        lambda x: rt.nn.sparse_softmax_cross_entropy_with_logits(rt.constant([3, 0, 1]), x),
        [WIDE],
    ),
    "sigmoid_cross_entropy_with_logits": (
        lambda z, x: rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
        [PROBS, WIDE],
    ),
    # scans and sorting
    "cumsum": (lambda x: rt.cumsum(x, axis=1, exclusive=True), [A34]),
    "cumprod": (lambda x: rt.math.cumprod(x, axis=0, reverse=True), [A34]),
    "cumprod_zeros": (
        lambda x: rt.math.cumprod(x, axis=1),
        [np.array([[0.5, 0.0, 1.3], [0.0, 0.0, 2.0]])],
    ),
    "top_k": (lambda x: rt.math.top_k(x, k=2).values, [_distinct(3, 4)]),
    "sort": (lambda x: rt.sort(x, axis=0, direction="DESCENDING"), [_distinct(3, 4)]),
    # segments
    "unsorted_segment_sum": (lambda x: rt.math.unsorted_segment_sum(x, [1, -1, 1], 2), [A34]),
    "unsorted_segment_mean": (lambda x: rt.math.unsorted_segment_mean(x, [1, 0, 1], 3), [A34]),
    "unsorted_segment_max": (
        lambda x: rt.math.unsorted_segment_max(x, [1, 0, 1], 2),
        [_distinct(3, 4)],
    ),
    "segment_sum": (lambda x: rt.math.segment_sum(x, [0, 0, 2]), [A34]),
    # gathers and scatters
    "gather_batch_dims": (
        lambda x: rt.gather(x, [[0, 3], [2, 2], [1, 0]], axis=1, batch_dims=1),
        [A34],
    ),
    "gather_nd": (lambda x: rt.gather_nd(x, [[0, 1], [2, 3], [0, 1]]), [A34]),
    "scatter_nd": (lambda u: rt.scatter_nd([[1], [3], [1]], u, [4, 2]), [_u(3, 2)]),
    "tensor_scatter_nd_add": (
        lambda t, u: rt.tensor_scatter_nd_add(t, [[2], [0]], u),
        [A34, _u(2, 4)],
    ),
    "tensor_scatter_nd_update": (
        lambda t, u: rt.tensor_scatter_nd_update(t, [[2, 1], [0, 3]], u),
        [A34, _u(2)],
    ),
    # rearranging
    "split": (lambda x: rt.split(x, [1, -1], axis=1)[1] * 2.0, [A34]),
    "boolean_mask": (lambda x: rt.boolean_mask(x, [True, False, True]), [A34]),
    "reverse": (lambda x: rt.reverse(x, [0, 1]), [A34]),
    "roll": (lambda x: rt.roll(x, shift=[1, -1], axis=[0, 1]), [A34]),
    "repeat": (lambda x: rt.repeat(x, [2, 0, 1], axis=0), [A34]),
    "meshgrid": (lambda a, b: rt.meshgrid(a, b)[0] * rt.meshgrid(a, b)[1], [_u(3), _u(2)]),
    # contractions
    "tensordot": (lambda a, b: rt.tensordot(a, b, axes=[[1], [0]]), [A34, _u(4, 2)]),
    "diag_part": (lambda x: rt.linalg.diag_part(x), [A34]),
    "trace": (lambda x: rt.linalg.trace(x), [_u(2, 3, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name: str) -> None:
    f, inputs = CASES[name]
    check_gradients(f, inputs)
