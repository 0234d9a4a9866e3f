"""Reference values of TensorFlow 2.21 functions rustape composes in `_ops_array.py` and
`_ops_math.py` (slices, sequence masks and reversals, the truncating divisions, global-norm
clipping, depth/space rearrangements, partitions, scatter max/min/sub, ceil, count_nonzero):
outputs, and for the differentiable ones the gradient of `sum(output * weights)` with respect
to the first input (TensorFlow's tape).

Run with TensorFlow's venv (see README.md); writes tf_more.npz beside this file. `CASES` is
imported by the test: name -> (function, inputs, keyword arguments, differentiable).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_rng = np.random.default_rng(77)
_X = _rng.normal(size=(3, 4, 5))
_IMG = _rng.normal(size=(2, 4, 6, 8))
_SEQ = _rng.normal(size=(3, 5, 2))
_INTS = np.array([-7, -6, -1, 0, 5, 7, 9], np.int64)
_DIVS = np.array([2, -2, 3, -3, 2, -4, 5], np.int64)

CASES: dict[str, tuple[str, list[Any], dict[str, Any], bool]] = {
    "slice": ("slice", [_X, [1, 0, 2], [2, -1, 3]], {}, True),
    "strided_slice": ("strided_slice", [_X, [0, 1, 4], [3, 4, 0], [2, 1, -1]], {}, True),
    "strided_slice_masks": (
        "strided_slice",
        [_X, [1, 3, 1], [2, 0, 4], [1, -1, 2]],
        {"begin_mask": 2, "end_mask": 6, "shrink_axis_mask": 1},
        True,
    ),
    "strided_slice_new_axis_ellipsis": (
        "strided_slice",
        [_X, [0, 0, 1], [0, 0, 3], [1, 1, 1]],
        {"new_axis_mask": 1, "ellipsis_mask": 2},
        True,
    ),
    "sequence_mask": ("sequence_mask", [np.array([[1, 4], [0, 2]], np.int32), 5], {}, False),
    "sequence_mask_float_nomax": (
        "sequence_mask",
        [np.array([3, 1, 2], np.int64)],
        {"dtype": "float32"},
        False,
    ),
    "reverse_sequence": (
        "reverse_sequence",
        [_SEQ, np.array([2, 5, 0], np.int64)],
        {"seq_axis": 1, "batch_axis": 0},
        True,
    ),
    "reverse_sequence_batch1": (
        "reverse_sequence",
        [np.transpose(_SEQ, (1, 0, 2)), np.array([3, 1, 4], np.int32)],
        {"seq_axis": 0, "batch_axis": 1},
        True,
    ),
    "unravel_index": (
        "unravel_index",
        [np.array([0, 5, 11, 7], np.int32), np.array([3, 4], np.int32)],
        {},
        False,
    ),
    "realdiv": ("realdiv", [_X, _X[::-1] + 3.0], {}, True),
    "truncatediv_int": ("truncatediv", [_INTS, _DIVS], {}, False),
    "truncatemod_int": ("truncatemod", [_INTS, _DIVS], {}, False),
    "truncatediv_float": (
        "truncatediv",
        [_INTS.astype(np.float64) + 0.5, _DIVS.astype(np.float64)],
        {},
        False,
    ),
    "truncatemod_float": (
        "truncatemod",
        [_INTS.astype(np.float64) + 0.5, _DIVS.astype(np.float64)],
        {},
        False,
    ),
    "depth_to_space": ("nn.depth_to_space", [_IMG, 2], {}, True),
    "space_to_depth": ("nn.space_to_depth", [_IMG, 2], {}, True),
    "dynamic_partition": ("dynamic_partition", [_X, np.array([2, 0, 2], np.int32), 3], {}, True),
    "dynamic_partition_2d": (
        "dynamic_partition",
        [_X, np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1]]), 2],
        {},
        True,
    ),
    "scatter_sub": (
        "tensor_scatter_nd_sub",
        [_X, np.array([[0, 1], [2, 3], [0, 1]]), _rng.normal(size=(3, 5))],
        {},
        True,
    ),
    "scatter_max": (
        "tensor_scatter_nd_max",
        [_X, np.array([[0, 1, 2], [2, 3, 4], [0, 1, 2]]), np.array([5.0, -9.0, 7.0])],
        {},
        True,
    ),
    "scatter_min_slices": (
        "tensor_scatter_nd_min",
        [_X, np.array([[1], [1], [0]]), _rng.normal(size=(3, 4, 5)) - 1.0],
        {},
        True,
    ),
    "scatter_max_int": (
        "tensor_scatter_nd_max",
        [np.array([1, 5, -3], np.int32), np.array([[0], [2], [0]]), np.array([4, 2, 9], np.int32)],
        {},
        False,
    ),
    "ceil": ("math.ceil", [np.array([-1.5, -0.0, 0.2, 2.0, 1e10 + 0.5])], {}, False),
    "count_nonzero": (
        "math.count_nonzero",
        [np.array([[0.0, 1.0, 2.0], [0.0, 0.0, -3.0]])],
        {"axis": 1, "keepdims": True},
        False,
    ),
    "logical_xor": (
        "math.logical_xor",
        [np.array([True, True, False, False]), np.array([True, False, True, False])],
        {},
        False,
    ),
}

_SEG = np.array([0, 0, 2, 2, 2, 5], np.int32)
_D6 = _rng.normal(size=(6, 3))
_POS = _rng.uniform(0.5, 3.0, size=(3, 4))
_SEQ4 = _rng.normal(size=(2, 3, 3, 6))
# The math and nn compositions: name -> (function, inputs, keyword arguments, differentiable).
MORE: dict[str, tuple[str, list[Any], dict[str, Any], bool]] = {
    "segment_max": ("math.segment_max", [_D6, _SEG], {}, True),
    "segment_min": ("math.segment_min", [_D6, _SEG], {}, True),
    "segment_mean": ("math.segment_mean", [_D6, _SEG], {}, True),
    "segment_max_int": (
        "math.segment_max",
        [np.array([3, -2, 7, 1], np.int32), np.array([0, 0, 1, 3])],
        {},
        False,
    ),
    "unsorted_segment_min": (
        "math.unsorted_segment_min",
        [_D6, np.array([3, 0, 3, 1, 0, 3]), 5],
        {},
        True,
    ),
    "unsorted_segment_min_int": (
        "math.unsorted_segment_min",
        [np.array([5, -9, 2], np.int64), np.array([1, 1, 3]), 4],
        {},
        False,
    ),
    "unsorted_segment_sqrt_n": (
        "math.unsorted_segment_sqrt_n",
        [_D6, np.array([3, 0, 3, 1, 0, 3]), 5],
        {},
        True,
    ),
    "reciprocal_no_nan": ("math.reciprocal_no_nan", [np.array([2.0, 0.0, -0.5, 4.0])], {}, True),
    "xlog1py": (
        "math.xlog1py",
        [np.array([0.0, 2.0, -1.5, 0.0]), np.array([-1.0, 0.5, 3.0, 2.0])],
        {},
        True,
    ),
    "lbeta": ("math.lbeta", [_POS], {}, True),
    "lbeta_empty": ("math.lbeta", [np.zeros((2, 0))], {}, False),
    "polyval": (
        "math.polyval",
        [[np.float64(1.5), np.float64(-2.0), np.float64(0.25)], np.array([0.5, -1.0, 2.0])],
        {},
        False,
    ),
    "zero_fraction": ("math.zero_fraction", [np.array([[0.0, 1.0], [0.0, 0.0]])], {}, False),
    "is_non_decreasing": ("math.is_non_decreasing", [np.array([[1, 2], [2, 5]])], {}, False),
    "is_strictly_increasing": (
        "math.is_strictly_increasing",
        [np.array([1.0, 2.0, 2.0])],
        {},
        False,
    ),
    "invert_permutation": (
        "math.invert_permutation",
        [np.array([3, 4, 0, 2, 1], np.int32)],
        {},
        False,
    ),
    "confusion_matrix": (
        "math.confusion_matrix",
        [np.array([1, 2, 4, 2]), np.array([2, 2, 4, 0])],
        {},
        False,
    ),
    "confusion_matrix_weighted": (
        "math.confusion_matrix",
        [np.array([0, 1, 1]), np.array([1, 1, 0])],
        {"num_classes": 3, "weights": np.array([0.5, 2.0, 1.0]), "dtype": "float32"},
        False,
    ),
    "crelu": ("nn.crelu", [_POS - 1.5], {}, True),
    "crelu_axis0": ("nn.crelu", [_POS - 1.5], {"axis": 0}, True),
    "weighted_ce": (
        "nn.weighted_cross_entropy_with_logits",
        [(_POS > 1.5).astype(np.float64), (_POS - 1.5) * 4, 2.5],
        {},
        False,
    ),
    "log_poisson": ("nn.log_poisson_loss", [np.round(_POS * 2), _POS - 1.0], {}, False),
    "log_poisson_full": (
        "nn.log_poisson_loss",
        [np.array([[0.0, 0.5, 1.0, 3.0]] * 3), _POS - 1.0],
        {"compute_full_loss": True},
        False,
    ),
    "compute_average_loss": ("nn.compute_average_loss", [_POS[:, 0]], {}, True),
    "compute_average_loss_weighted": (
        "nn.compute_average_loss",
        [_POS[:, 0]],
        {"sample_weight": np.array([1.0, 0.0, 2.0]), "global_batch_size": 8},
        True,
    ),
    "scale_regularization_loss": ("nn.scale_regularization_loss", [_POS], {}, True),
    "lrn": (
        "nn.local_response_normalization",
        [_SEQ4.astype(np.float32)],
        {"depth_radius": 2, "bias": 0.5, "alpha": 0.3, "beta": 0.75},
        True,
    ),
    "lrn_defaults": ("nn.lrn", [_SEQ4.astype(np.float32)], {}, True),  # TF's LRN: float32
    "convolution_1d": (
        "nn.convolution",
        [_SEQ4[0], _rng.normal(size=(2, 6, 4))],
        {"padding": "SAME", "strides": [2]},
        True,
    ),
    "convolution_2d": (
        "nn.convolution",
        [_SEQ4, _rng.normal(size=(2, 2, 6, 3))],
        {"dilations": [1, 2]},
        True,
    ),
    "conv1d_transpose": (
        "nn.conv1d_transpose",
        [_SEQ4[0], _rng.normal(size=(2, 4, 6)), [3, 6, 4], 2],
        {},
        True,
    ),
    "conv_transpose_2d": (
        "nn.conv_transpose",
        [_SEQ4, _rng.normal(size=(2, 2, 5, 6)), [2, 6, 6, 5], [2, 2]],
        {"padding": "SAME"},
        True,
    ),
    "separable_conv2d": (
        "nn.separable_conv2d",
        [
            _SEQ4,
            _rng.normal(size=(2, 2, 6, 2)),
            _rng.normal(size=(1, 1, 12, 4)),
            [1, 1, 1, 1],
            "SAME",
        ],
        {},
        True,
    ),
    "atrous_conv2d": (
        "nn.atrous_conv2d",
        [_rng.normal(size=(2, 4, 4, 6)), _rng.normal(size=(2, 2, 6, 3)), 2, "SAME"],
        {},
        True,
    ),
    "atrous_conv2d_transpose": (
        "nn.atrous_conv2d_transpose",
        [_rng.normal(size=(2, 2, 2, 6)), _rng.normal(size=(2, 2, 3, 6)), [2, 4, 4, 3], 2, "VALID"],
        {},
        True,
    ),
    "pool_max": ("nn.pool", [_SEQ4, [2, 2], "MAX"], {"strides": [1, 2], "padding": "SAME"}, True),
    "pool_avg_1d": ("nn.pool", [_SEQ4[0], [2], "AVG"], {"strides": [1]}, True),
}
CASES.update(MORE)


def _resolve(tf: Any, name: str) -> Any:
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def main() -> None:
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name, (fn, args, kwargs, differentiable) in CASES.items():
        f = _resolve(tf, fn)
        if differentiable:
            x = tf.Variable(args[0])
            with tf.GradientTape() as tape:
                result = f(x, *args[1:], **kwargs)
                parts = result if isinstance(result, list) else [result]
                total = tf.add_n([tf.reduce_sum(p * (k + 1.5)) for k, p in enumerate(parts)])
            out[f"{name}/grad"] = tape.gradient(total, x).numpy()
        else:
            result = f(*args, **kwargs)
        parts = result if isinstance(result, list) else [result]
        for k, p in enumerate(parts):
            out[f"{name}/out{k}"] = p.numpy()
    # clip_by_global_norm: values, the norm, gradients; a non-finite norm gives NaNs.
    ts = [tf.Variable(_X), tf.Variable(_IMG[0, 0])]
    with tf.GradientTape() as tape:
        clipped, norm = tf.clip_by_global_norm([ts[0], None, ts[1]], 2.5)
        total = tf.reduce_sum(clipped[0] * 1.5) + tf.reduce_sum(clipped[2] * -0.5)
    out["clip/out0"], out["clip/out2"] = clipped[0].numpy(), clipped[2].numpy()
    out["clip/norm"] = norm.numpy()
    out["clip/grad0"], out["clip/grad1"] = (g.numpy() for g in tape.gradient(total, ts))
    clipped, norm = tf.clip_by_global_norm([np.array([1.0, np.inf])], 1.0)
    out["clip_inf/out0"], out["clip_inf/norm"] = clipped[0].numpy(), norm.numpy()
    out["global_norm"] = tf.linalg.global_norm([_X, _IMG]).numpy()
    # sufficient_statistics -> normalize_moments, and weighted_moments (with gradients).
    x = tf.Variable(_SEQ4)
    with tf.GradientTape() as tape:
        stats = tf.nn.sufficient_statistics(x, [0, 1, 2], shift=np.float64(0.25))
        mean, var = tf.nn.normalize_moments(*stats)
        wmean, wvar = tf.nn.weighted_moments(x, [1, 2], _SEQ4[..., :1] ** 2, keepdims=True)
        total = (
            tf.reduce_sum(mean * 2.0)
            + tf.reduce_sum(var)
            + tf.reduce_sum(wmean)
            + tf.reduce_sum(wvar * 3.0)
        )
    out["moments/count"], out["moments/m_ss"], out["moments/v_ss"] = (
        stats[0].numpy(),
        stats[1].numpy(),
        stats[2].numpy(),
    )
    out["moments/mean"], out["moments/var"] = mean.numpy(), var.numpy()
    out["moments/wmean"], out["moments/wvar"] = wmean.numpy(), wvar.numpy()
    out["moments/grad"] = tape.gradient(total, x).numpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_more.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
