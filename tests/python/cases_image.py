"""Gradient-check cases for `rt.image` (format of test_op_gradients.py: `CASES = {name: (fn,
[numpy inputs])}`, checked first and second order against central finite differences in
float64). Values against TensorFlow are in test_image_reference.py."""

from __future__ import annotations

import numpy as np
import rustape as rt

rng = np.random.default_rng(5151)


def _u(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape)


CASES = {
    "image.resize bilinear": (lambda x: rt.image.resize(x, [5, 3]) ** 2, [_u(3, 4, 2)]),
    "image.resize nearest": (
        lambda x: rt.image.resize(x, [2, 5], method="nearest") ** 2,
        [_u(2, 4, 3, 1)],
    ),
    "image.resize bicubic": (
        lambda x: rt.image.resize(x, [4, 4], method="bicubic") ** 2,
        [_u(1, 3, 3, 2)],
    ),
    "image.resize area": (lambda x: rt.image.resize(x, [3, 2], method="area") ** 2, [_u(5, 5, 1)]),
    "image.resize_adjoint": (
        lambda g: rt.image.resize_adjoint(g, [3, 4], method="bicubic") ** 2,
        [_u(2, 5, 3, 1)],
    ),
}
