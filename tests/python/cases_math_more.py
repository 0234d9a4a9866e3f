"""Entries of the table over every op (test_op_gradients.py) for the `tf.math` / `tf.nn`
compositions of `_ops_math.py`: forward cases against NumPy for those with no gradient
(`FORWARD = {name: (fn, [inputs], numpy_reference)}`) and gradient cases for the others
(`CASES = {name: (fn, [numpy inputs])}`, against float64 finite differences)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import rustape as rt

rng = np.random.default_rng(4242)
SCORES = rng.normal(size=(5, 4))
LABELS = np.array([0, 3, 1, 2, 3], np.int32)
FLOATS = np.array([[-1.5, 2.5, 0.5], [3.7, -2.2, 1.0]])


def _in_top_2(targets: np.ndarray, scores: np.ndarray) -> np.ndarray:
    target = scores[np.arange(len(targets)), targets]
    return (scores > target[:, None]).sum(1) < 2


X345 = rng.normal(size=(3, 4, 5))
IMG = rng.normal(size=(1, 2, 4, 4))


def _reverse_prefix(x: np.ndarray, lengths: list[int]) -> np.ndarray:
    out = x.copy()
    for b, n in enumerate(lengths):
        out[b, :n] = x[b, :n][::-1]
    return out


CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "slice": (lambda x: rt.slice(x, [1, 0, 2], [2, -1, 3]), [X345]),
    "strided_slice": (
        lambda x: rt.strided_slice(x, [0, 1, 4], [3, 4, 0], [2, 1, -1], shrink_axis_mask=0),
        [X345],
    ),
    "reverse_sequence": (lambda x: rt.reverse_sequence(x, [2, 4, 0], seq_axis=1), [X345]),
    "identity_n": (
        lambda x, y: rt.identity_n([x, y])[0] * rt.identity_n([x, y])[1],
        [X345, X345 + 1],
    ),
    "ensure_shape": (lambda x: rt.ensure_shape(x, [None, 4, 5]) * x, [X345]),
    "realdiv": (rt.realdiv, [X345, np.abs(X345) + 1.0]),
    "global_norm": (lambda x, y: rt.linalg.global_norm([x, y]), [X345, X345[:1] * 2]),
    "clip_by_global_norm": (lambda x: rt.clip_by_global_norm([x], 1.5)[0][0], [X345]),
    "depth_to_space": (lambda x: rt.nn.depth_to_space(x, 2), [rng.normal(size=(1, 2, 3, 8))]),
    "space_to_depth": (lambda x: rt.nn.space_to_depth(x, 2), [IMG]),
    "dynamic_partition": (lambda x: rt.dynamic_partition(x, [1, 0, 1], 2)[1], [X345]),
    "tensor_scatter_nd_sub": (
        lambda x, u: rt.tensor_scatter_nd_sub(x, [[0, 1], [2, 3], [0, 1]], u),
        [X345, rng.normal(size=(3, 5))],
    ),
    "tensor_scatter_nd_max": (
        lambda x, u: rt.tensor_scatter_nd_max(x, [[0, 1], [2, 3]], u),
        [X345, X345[:2, 0] + 0.5],
    ),
    "tensor_scatter_nd_min": (
        lambda x, u: rt.tensor_scatter_nd_min(x, [[1], [2]], u),
        [X345, X345[:2] - 0.5],
    ),
}

FORWARD: dict[str, tuple[Any, ...]] = {
    "in_top_k": (lambda t, p: rt.math.in_top_k(t, p, 2), [LABELS, SCORES], _in_top_2),
    "ceil": (rt.math.ceil, [FLOATS], np.ceil),
    "count_nonzero": (
        lambda x: rt.math.count_nonzero(x, axis=0),
        [np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]])],
        lambda x: np.count_nonzero(x, axis=0),
    ),
    "sequence_mask": (
        lambda n: rt.sequence_mask(n, 4),
        [np.array([1, 3, 0], np.int32)],
        lambda n: np.arange(4)[None, :] < n[:, None],
    ),
    "unravel_index": (
        lambda i: rt.unravel_index(i, [3, 4]),
        [np.array([0, 5, 11], np.int32)],
        lambda i: np.stack(np.unravel_index(i, (3, 4))),
    ),
    "shape_n": (lambda x: rt.shape_n([x, x[0]])[1], [X345], lambda x: np.array([4, 5], np.int32)),
    "truncatediv": (
        rt.truncatediv,
        [np.array([-7, 7, -6, 5], np.int32), np.array([2, -2, 4, 3], np.int32)],
        lambda a, b: np.trunc(a / b).astype(np.int32),
    ),
    "truncatemod": (
        rt.truncatemod,
        [np.array([-7, 7, -6, 5], np.int32), np.array([2, -2, 4, 3], np.int32)],
        np.fmod,
    ),
    "logical_xor": (
        rt.math.logical_xor,
        [np.array([True, True, False, False]), np.array([True, False, True, False])],
        np.logical_xor,
    ),
}
