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


D6 = rng.normal(size=(6, 3))
POS = rng.uniform(0.5, 3.0, size=(3, 4))
SEQ4 = rng.normal(size=(2, 4, 4, 3))
SEG = np.array([0, 0, 2, 2, 2, 5], np.int32)

CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "segment_max": (lambda d: rt.math.segment_max(d, SEG), [D6]),
    "segment_min": (lambda d: rt.math.segment_min(d, SEG), [D6]),
    "segment_mean": (lambda d: rt.math.segment_mean(d, SEG), [D6]),
    # Every segment non-empty: an empty one holds the dtype's largest value, beyond finite
    # differences.
    "unsorted_segment_min": (
        lambda d: rt.math.unsorted_segment_min(d, [3, 0, 3, 1, 0, 2], 4),
        [D6],
    ),
    "unsorted_segment_sqrt_n": (
        lambda d: rt.math.unsorted_segment_sqrt_n(d, [3, 0, 3, 1, 0, 3], 5),
        [D6],
    ),
    "reciprocal_no_nan": (rt.math.reciprocal_no_nan, [POS - 1.9]),
    "xlog1py": (rt.math.xlog1py, [POS - 1.0, POS]),
    "lbeta": (rt.math.lbeta, [POS]),
    "polyval": (lambda x, a: rt.math.polyval([a[0, 0], 2.0, a[1, 1]], x), [POS, POS]),
    "crelu": (rt.nn.crelu, [POS - 1.7]),
    "weighted_cross_entropy_with_logits": (
        lambda z, x: rt.nn.weighted_cross_entropy_with_logits(z, x, 2.5),
        [POS / 3.0, POS - 1.5],
    ),
    "log_poisson_loss": (
        lambda z, c: rt.nn.log_poisson_loss(z, c, compute_full_loss=True),
        [POS, POS - 1.0],
    ),
    "compute_average_loss": (
        lambda l, w: rt.nn.compute_average_loss(l, sample_weight=w),
        [POS[:, 0], POS[:, 1]],
    ),
    "scale_regularization_loss": (rt.nn.scale_regularization_loss, [POS]),
    "sufficient_statistics": (
        lambda x: rt.nn.sufficient_statistics(x, [0, 1], shift=0.5)[2],
        [SEQ4],
    ),
    "normalize_moments": (
        lambda m, v: rt.nn.normalize_moments(3.0, m, v, 0.5)[1],
        [POS, POS * 4.0],
    ),
    # The mean: the variance stops its gradient through the mean (as TensorFlow), so its
    # second derivative is not the function's; test_tf_more checks it against TensorFlow.
    "weighted_moments": (lambda x, w: rt.nn.weighted_moments(x, [1], w)[0], [POS, POS[:, :1]]),
    "local_response_normalization": (
        lambda x: rt.nn.local_response_normalization(x, 1, 0.5, 0.3, 0.75),
        [SEQ4],
    ),
    "convolution": (
        lambda x, f: rt.nn.convolution(x, f, padding="SAME"),
        [SEQ4, SEQ4[0, :2, :2, :, None]],
    ),
    "conv1d_transpose": (
        lambda x, f: rt.nn.conv1d_transpose(x, f, [2, 8, 2], 2),
        [rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 2, 3))],
    ),
    "conv_transpose": (
        lambda x, f: rt.nn.conv_transpose(x, f, [2, 8, 8, 2], [2, 2]),
        [SEQ4, rng.normal(size=(2, 2, 2, 3))],
    ),
    "separable_conv2d": (
        lambda x, d, p: rt.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME"),
        [SEQ4, rng.normal(size=(2, 2, 3, 1)), rng.normal(size=(1, 1, 3, 2))],
    ),
    "atrous_conv2d": (
        lambda x, f: rt.nn.atrous_conv2d(x, f, 2, "SAME"),
        [SEQ4, rng.normal(size=(2, 2, 3, 1))],
    ),
    "atrous_conv2d_transpose": (
        lambda x, f: rt.nn.atrous_conv2d_transpose(x, f, [2, 4, 4, 1], 2, "VALID"),
        [rng.normal(size=(2, 2, 2, 3)), rng.normal(size=(2, 2, 1, 3))],
    ),
    "pool": (lambda x: rt.nn.pool(x, [2, 2], "AVG", strides=[2, 2]), [SEQ4]),
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
    "confusion_matrix": (
        lambda a, b: rt.math.confusion_matrix(a, b, num_classes=3),
        [np.array([0, 2, 2, 1]), np.array([2, 2, 0, 1])],
        lambda a, b: np.histogram2d(a, b, bins=3, range=[[0, 3], [0, 3]])[0].astype(np.int32),
    ),
    "invert_permutation": (
        rt.math.invert_permutation,
        [np.array([3, 0, 2, 1], np.int32)],
        np.argsort,
    ),
    "is_non_decreasing": (
        rt.math.is_non_decreasing,
        [np.array([1.0, 2.0, 2.0])],
        lambda x: np.all(np.diff(x) >= 0),
    ),
    "is_strictly_increasing": (
        rt.math.is_strictly_increasing,
        [np.array([1.0, 2.0, 2.0])],
        lambda x: np.all(np.diff(x) > 0),
    ),
    "zero_fraction": (
        rt.math.zero_fraction,
        [np.array([0.0, 1.0, 0.0, 3.0])],
        lambda x: np.float32(np.mean(x == 0)),
    ),
    "logical_xor": (
        rt.math.logical_xor,
        [np.array([True, True, False, False]), np.array([True, False, True, False])],
        np.logical_xor,
    ),
}
