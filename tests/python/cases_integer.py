"""Op cases for the integer and saturating ops (see test_op_gradients.py): the bitwise ops as
FORWARD cases against NumPy, the segment products, `nextafter` and `saturate_cast` as
gradient cases (first and second order against central differences, float64)."""

from __future__ import annotations

from typing import Any

import numpy as np
import rustape as rt

rng = np.random.default_rng(2024)
I32 = rng.integers(-1000, 1000, size=(2, 3)).astype(np.int32)
I64 = rng.integers(-(2**40), 2**40, size=(3,)).astype(np.int64)
COUNTS = np.array([[0, 5, 31], [2, 9, 1]], np.int32)

CASES: dict[str, tuple[Any, list[np.ndarray]]] = {
    # at most one zero per segment: TensorFlow's formula (kept) zeroes the whole cotangent of a
    # segment with two zeros, whose second derivatives are not all zero
    "unsorted_segment_prod": (
        lambda x: rt.math.unsorted_segment_prod(x, [1, 0, 1, -1, 2, 1], 4),
        [np.array([[1.2, -0.7], [0.0, 1.5], [-1.1, 0.9], [2.0, 3.0], [0.6, 0.0], [0.8, -1.3]])],
    ),
    "segment_prod": (
        lambda x: rt.math.segment_prod(x, [0, 0, 1, 1, 1, 3]),
        [np.array([0.7, -1.4, 0.0, 1.1, 0.9, 1.6])],
    ),
    "nextafter": (
        lambda a, b: rt.math.nextafter(a, b) * a,
        [rng.uniform(-1, 1, size=(2, 3)), rng.uniform(-1, 1, size=(3,))],
    ),
    # float64 to float64 (clamped to its finite range; float32 rounding would swamp the
    # differences; the clamped gradients are TensorFlow's in test_int_ops.py)
    "saturate_cast": (
        lambda x: rt.saturate_cast(x, rt.float64) * x,
        [np.array([[-9.0, -0.5, 0.1], [0.4, 2.0, 7.5]])],
    ),
}

FORWARD: dict[str, tuple[Any, ...]] = {
    "bitwise_and": (rt.bitwise.bitwise_and, [I32, I32[:, ::-1].copy()], np.bitwise_and),
    "bitwise_or": (rt.bitwise.bitwise_or, [I32, I32[0]], np.bitwise_or),
    "bitwise_xor": (rt.bitwise.bitwise_xor, [I64, I64[::-1].copy()], np.bitwise_xor),
    "invert": (rt.bitwise.invert, [I32], np.invert),
    # counts inside [0, 31]: TensorFlow and NumPy agree there
    "left_shift": (rt.bitwise.left_shift, [I32, COUNTS], np.left_shift),
    "right_shift": (rt.bitwise.right_shift, [I32, COUNTS], np.right_shift),
}
