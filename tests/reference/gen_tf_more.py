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
        "strided_slice", [_X, [1, 3, 1], [2, 0, 4], [1, -1, 2]],
        {"begin_mask": 2, "end_mask": 6, "shrink_axis_mask": 1}, True,
    ),
    "strided_slice_new_axis_ellipsis": (
        "strided_slice", [_X, [0, 0, 1], [0, 0, 3], [1, 1, 1]],
        {"new_axis_mask": 1, "ellipsis_mask": 2}, True,
    ),
    "sequence_mask": ("sequence_mask", [np.array([[1, 4], [0, 2]], np.int32), 5], {}, False),
    "sequence_mask_float_nomax": ("sequence_mask", [np.array([3, 1, 2], np.int64)],
                                  {"dtype": "float32"}, False),
    "reverse_sequence": ("reverse_sequence", [_SEQ, np.array([2, 5, 0], np.int64)],
                         {"seq_axis": 1, "batch_axis": 0}, True),
    "reverse_sequence_batch1": ("reverse_sequence",
                                [np.transpose(_SEQ, (1, 0, 2)), np.array([3, 1, 4], np.int32)],
                                {"seq_axis": 0, "batch_axis": 1}, True),
    "unravel_index": ("unravel_index", [np.array([0, 5, 11, 7], np.int32),
                                        np.array([3, 4], np.int32)], {}, False),
    "realdiv": ("realdiv", [_X, _X[::-1] + 3.0], {}, True),
    "truncatediv_int": ("truncatediv", [_INTS, _DIVS], {}, False),
    "truncatemod_int": ("truncatemod", [_INTS, _DIVS], {}, False),
    "truncatediv_float": ("truncatediv", [_INTS.astype(np.float64) + 0.5,
                                          _DIVS.astype(np.float64)], {}, False),
    "truncatemod_float": ("truncatemod", [_INTS.astype(np.float64) + 0.5,
                                          _DIVS.astype(np.float64)], {}, False),
    "depth_to_space": ("nn.depth_to_space", [_IMG, 2], {}, True),
    "space_to_depth": ("nn.space_to_depth", [_IMG, 2], {}, True),
    "dynamic_partition": ("dynamic_partition",
                          [_X, np.array([2, 0, 2], np.int32), 3], {}, True),
    "dynamic_partition_2d": ("dynamic_partition",
                             [_X, np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1]]), 2],
                             {}, True),
    "scatter_sub": ("tensor_scatter_nd_sub",
                    [_X, np.array([[0, 1], [2, 3], [0, 1]]), _rng.normal(size=(3, 5))], {}, True),
    "scatter_max": ("tensor_scatter_nd_max",
                    [_X, np.array([[0, 1, 2], [2, 3, 4], [0, 1, 2]]), np.array([5.0, -9.0, 7.0])],
                    {}, True),
    "scatter_min_slices": ("tensor_scatter_nd_min",
                           [_X, np.array([[1], [1], [0]]), _rng.normal(size=(3, 4, 5)) - 1.0],
                           {}, True),
    "scatter_max_int": ("tensor_scatter_nd_max",
                        [np.array([1, 5, -3], np.int32), np.array([[0], [2], [0]]),
                         np.array([4, 2, 9], np.int32)], {}, False),
    "ceil": ("math.ceil", [np.array([-1.5, -0.0, 0.2, 2.0, 1e10 + 0.5])], {}, False),
    "count_nonzero": ("math.count_nonzero", [np.array([[0.0, 1.0, 2.0], [0.0, 0.0, -3.0]])],
                      {"axis": 1, "keepdims": True}, False),
    "logical_xor": ("math.logical_xor", [np.array([True, True, False, False]),
                                         np.array([True, False, True, False])], {}, False),
}


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
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_more.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
