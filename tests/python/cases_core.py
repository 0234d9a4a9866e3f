"""Entries of the table over every op (test_op_gradients.py) for core ops that had none:
gradient cases (`CASES = {name: (fn, [numpy inputs])}`, first and second order against finite
differences in float64) and, for ops with no gradient, forward cases
(`FORWARD = {name: (fn, [inputs], numpy_reference[, tolerances])}`: ndarray inputs become
tensors; the result must equal the reference's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import rustape as rt

rng = np.random.default_rng(777)
A23 = rng.uniform(-1.0, 1.0, size=(2, 3))
B23 = rng.uniform(-1.0, 1.0, size=(2, 3))
POS23 = rng.uniform(0.5, 2.0, size=(2, 3))
# Away from relu6's kinks at 0 and 6 (after scaling by 4).
KINKLESS = np.array([[-0.8, 0.3, 1.2], [1.7, -0.2, 0.9]])
MIXED = np.array([[1.5, -np.inf, 0.0], [np.nan, 2.0, -3.5]])
FLOATS = np.array([[-1.5, 2.5, 0.5], [3.7, -2.2, 1.0]])

CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "adjoint": (lambda a: rt.linalg.adjoint(a * a), [rng.uniform(-1, 1, size=(2, 3, 4))]),
    "reciprocal": (lambda x: rt.math.reciprocal(x), [POS23]),
    "truediv": (lambda a, b: rt.math.truediv(a, b), [A23, POS23]),
    "l2_loss": (lambda x: rt.nn.l2_loss(x), [A23]),
    "relu6": (lambda x: rt.nn.relu6(x * 4.0) * x, [KINKLESS]),
    "silu": (lambda x: rt.nn.silu(x), [A23 * 3.0]),
    "cast": (lambda x: rt.cast(x, rt.float64) * x, [A23]),
    "identity": (lambda x: rt.identity(x) * x, [A23]),
    "convert_to_tensor": (lambda x: rt.convert_to_tensor(x) * x, [A23]),
    "fill": (lambda v: rt.fill([2, 3], v) * v, [np.array(0.7)]),
    # distinct values 0.1 apart: no ties within a window for the finite differences to straddle
    "max_pool1d": (
        lambda x: rt.nn.max_pool1d(x, 2, 2, "VALID"),
        [rng.permutation(12).reshape(1, 6, 2) * 0.1],
    ),
    "avg_pool1d": (
        lambda x: rt.nn.avg_pool1d(x, 3, 1, "SAME"),
        [rng.uniform(-1, 1, size=(2, 5, 3))],
    ),
}


FORWARD: dict[str, tuple[Any, ...]] = {
    # comparisons and logic (bool results, no gradient)
    "equal": (rt.math.equal, [A23, np.where(A23 > 0, A23, B23)], np.equal),
    "not_equal": (rt.math.not_equal, [A23, np.where(A23 > 0, A23, B23)], np.not_equal),
    "greater": (rt.math.greater, [A23, B23], np.greater),
    "greater_equal": (rt.math.greater_equal, [A23, B23], np.greater_equal),
    "less": (rt.math.less, [A23, B23], np.less),
    "less_equal": (rt.math.less_equal, [A23, B23], np.less_equal),
    "logical_and": (rt.math.logical_and, [A23 > 0, B23 > 0], np.logical_and),
    "logical_or": (rt.math.logical_or, [A23 > 0, B23 > 0], np.logical_or),
    "logical_not": (rt.math.logical_not, [A23 > 0], np.logical_not),
    "is_finite": (rt.math.is_finite, [MIXED], np.isfinite),
    "is_inf": (rt.math.is_inf, [MIXED], np.isinf),
    "is_nan": (rt.math.is_nan, [MIXED], np.isnan),
    "reduce_all": (
        lambda x: rt.math.reduce_all(x, axis=1),
        [A23 > -0.5],
        lambda x: np.all(x, axis=1),
    ),
    "reduce_any": (
        lambda x: rt.math.reduce_any(x, axis=0),
        [A23 > 0.5],
        lambda x: np.any(x, axis=0),
    ),
    # piecewise constant (TensorFlow registers no gradient)
    "floor": (rt.math.floor, [FLOATS], np.floor),
    "round": (rt.math.round, [FLOATS], np.round),  # half to even, as TensorFlow
    "floordiv": (rt.math.floordiv, [FLOATS, np.full((2, 3), 0.7)], np.floor_divide),
    "argmax": (lambda x: rt.math.argmax(x, axis=1), [A23], lambda x: np.argmax(x, axis=1)),
    "argmin": (lambda x: rt.math.argmin(x, axis=0), [A23], lambda x: np.argmin(x, axis=0)),
    "argsort": (lambda x: rt.argsort(x, axis=-1), [A23], lambda x: np.argsort(x, axis=-1)),
    # searching and counting (positions and counts)
    "searchsorted": (
        lambda a, v: rt.searchsorted(a, v, side="right"),
        [np.sort(FLOATS.ravel()), A23.ravel()],
        lambda a, v: np.searchsorted(a, v, side="right"),
    ),
    "bincount": (
        lambda x: rt.math.bincount(x, minlength=6),
        [np.array([0, 3, 3, 1, 5, 3], np.int32)],
        lambda x: np.bincount(x, minlength=6),
    ),
    "unique": (
        lambda x: rt.unique(x).y,
        [np.array([2, 0, 2, 5, 0], np.int32)],
        lambda x: np.array([2, 0, 5]),
    ),
    "unique_with_counts": (
        lambda x: rt.unique_with_counts(x).count,
        [np.array([2, 0, 2, 5, 0], np.int32)],
        lambda x: np.array([2, 2, 1]),
    ),
    "histogram_fixed_width": (
        lambda x: rt.histogram_fixed_width(x, [-1.0, 1.0], nbins=4),
        [A23],
        lambda x: np.histogram(np.clip(x, -1.0, 1.0), bins=4, range=(-1.0, 1.0))[0],
    ),
    "histogram_fixed_width_bins": (
        lambda x: rt.histogram_fixed_width_bins(x, [-1.0, 1.0], nbins=4),
        [A23],
        lambda x: np.clip(np.floor((x + 1.0) / 2.0 * 4), 0, 3),
    ),
    "stop_gradient": (rt.stop_gradient, [A23], lambda x: x),
    # shapes of things
    "rank": (rt.rank, [A23], np.ndim),
    "shape": (rt.shape, [A23], lambda x: np.array(x.shape, dtype=np.int32)),
    "size": (rt.size, [A23], np.size),
    # creation
    "zeros": (lambda: rt.zeros([2, 3]), [], lambda: np.zeros((2, 3), np.float32)),
    "ones": (lambda: rt.ones([3], dtype=rt.int64), [], lambda: np.ones(3, np.int64)),
    "zeros_like": (rt.zeros_like, [A23], np.zeros_like),
    "ones_like": (rt.ones_like, [A23], np.ones_like),
    "linspace": (
        lambda: rt.linspace(-1.0, 2.0, 7),
        [],
        lambda: np.linspace(-1.0, 2.0, 7, dtype=np.float32),
    ),
    "range": (lambda: rt.range(2, 11, 3), [], lambda: np.arange(2, 11, 3, dtype=np.int32)),
    "one_hot": (
        lambda: rt.one_hot([2, 0, -1], 3),
        [],
        lambda: np.eye(3, dtype=np.float32)[[2, 0]].tolist() + [[0.0, 0.0, 0.0]],
    ),
    # random: seeded, checked by what the distribution must give
    "random.shuffle": (
        lambda x: rt.sort(rt.random.shuffle(x, seed=5), axis=0),
        [np.arange(12.0).reshape(6, 2)],
        lambda x: np.sort(x, axis=0),
    ),
    "random.normal": (
        lambda: rt.reduce_mean(rt.random.normal([40_000], seed=3, dtype=rt.float64)),
        [],
        lambda: np.float64(0.0),
        {"atol": 0.03},
    ),
    "random.uniform": (
        lambda: rt.reduce_mean(rt.random.uniform([40_000], seed=3, dtype=rt.float64)),
        [],
        lambda: np.float64(0.5),
        {"atol": 0.01},
    ),
    "random.truncated_normal": (
        lambda: rt.reduce_all(rt.abs(rt.random.truncated_normal([10_000], seed=3)) <= 2.0),
        [],
        lambda: np.True_,
    ),
    "random.stateless_normal": (
        lambda: rt.reduce_mean(rt.random.stateless_normal([40_000], [3, 4], dtype=rt.float64)),
        [],
        lambda: np.float64(0.0),
        {"atol": 0.03},
    ),
    "random.stateless_uniform": (
        lambda: rt.reduce_mean(rt.random.stateless_uniform([40_000], [3, 4], dtype=rt.float64)),
        [],
        lambda: np.float64(0.5),
        {"atol": 0.01},
    ),
    "random.stateless_truncated_normal": (
        lambda: rt.reduce_all(rt.abs(rt.random.stateless_truncated_normal([10_000], [3, 4])) <= 2),
        [],
        lambda: np.True_,
    ),
    # the mean of Gamma(alpha, rate beta) is alpha / beta (values: test_random_tf.py)
    "random.gamma": (
        lambda: rt.reduce_mean(rt.random.gamma([40_000], 3.0, 2.0, dtype=rt.float64, seed=3)),
        [],
        lambda: np.float64(1.5),
        {"atol": 0.03},
    ),
    "random.stateless_gamma": (
        lambda: rt.reduce_mean(rt.random.stateless_gamma([40_000], [3, 4], 0.5, dtype=rt.float64)),
        [],
        lambda: np.float64(0.5),
        {"atol": 0.02},
    ),
    # a new seed pair per row, of the seed's dtype
    "random.split": (
        lambda: rt.shape(rt.random.split(rt.constant([1, 2], dtype=rt.int64), 3)),
        [],
        lambda: np.array([3, 2], np.int32),
    ),
    # the second word of the new pair is the data
    "random.fold_in": (
        lambda: rt.random.fold_in([1, 2], 7)[1],
        [],
        lambda: np.int32(7),
    ),
    # P(class 1) = softmax([0, log 3])[1] = 0.75
    "random.categorical": (
        lambda: rt.reduce_mean(
            rt.cast(
                rt.random.categorical(np.array([[0.0, np.log(3.0)]], np.float32), 40_000, seed=3),
                rt.float64,
            )
        ),
        [],
        lambda: np.float64(0.75),
        {"atol": 0.01},
    ),
    "random.stateless_categorical": (
        lambda: rt.reduce_mean(
            rt.cast(
                rt.random.stateless_categorical(
                    np.array([[0.0, np.log(3.0)]], np.float32), 40_000, [3, 4]
                ),
                rt.float64,
            )
        ),
        [],
        lambda: np.float64(0.75),
        {"atol": 0.01},
    ),
}
