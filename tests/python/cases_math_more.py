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


CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {}

FORWARD: dict[str, tuple[Any, ...]] = {
    "in_top_k": (lambda t, p: rt.math.in_top_k(t, p, 2), [LABELS, SCORES], _in_top_2),
    "ceil": (rt.math.ceil, [FLOATS], np.ceil),
    "count_nonzero": (
        lambda x: rt.math.count_nonzero(x, axis=0),
        [np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]])],
        lambda x: np.count_nonzero(x, axis=0),
    ),
    "logical_xor": (
        rt.math.logical_xor,
        [np.array([True, True, False, False]), np.array([True, False, True, False])],
        np.logical_xor,
    ),
}
