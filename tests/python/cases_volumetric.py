"""Gradient-check cases for the volumetric ops of `rt.nn` (conv3d, conv3d_transpose, the 3-D
pools), in the
format of test_op_gradients.py (`CASES = {name: (fn, [numpy inputs])}`), checked first and second
order against central finite differences in float64 there. Values against TensorFlow are in
test_conv3d_reference.py."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import rustape as rt

rng = np.random.default_rng(3303)


def _u(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape)


def _distinct(*shape: int) -> np.ndarray:
    """No ties (max pooling's gradient is defined away from them)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) - n / 2) * (2.0 / n)


def _sq(f: Callable[..., Any]) -> Callable[..., Any]:
    """`f` times itself: curvature, so the second-order check is not of a linear map."""

    def g(*xs: Any) -> Any:
        y = f(*xs)
        return y * y

    return g


CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "conv3d_same": (
        _sq(lambda x, f: rt.nn.conv3d(x, f, 1, "SAME")),
        [_u(1, 3, 4, 3, 2), _u(2, 2, 2, 2, 2)],
    ),
    "conv3d_valid_strided": (
        _sq(lambda x, f: rt.nn.conv3d(x, f, [1, 2, 1, 2, 1], "VALID")),
        [_u(2, 3, 5, 4, 1), _u(2, 2, 1, 1, 2)],
    ),
    "conv3d_dilated_explicit": (
        _sq(
            lambda x, f: rt.nn.conv3d(
                x, f, 1, [[0, 0], [1, 0], [0, 1], [1, 1], [0, 0]], dilations=[2, 1, 1]
            )
        ),
        [_u(1, 4, 3, 3, 2), _u(2, 2, 1, 2, 1)],
    ),
    "conv3d_transpose": (
        _sq(lambda x, f: rt.nn.conv3d_transpose(x, f, [1, 4, 3, 5, 2], 2, "SAME")),
        [_u(1, 2, 2, 3, 3), _u(2, 2, 2, 2, 3)],
    ),
    "max_pool3d": (_sq(lambda x: rt.nn.max_pool3d(x, 2, 1, "SAME")), [_distinct(2, 3, 3, 2, 2)]),
    "avg_pool3d": (
        _sq(lambda x: rt.nn.avg_pool3d(x, [2, 3, 2], [1, 2, 1], "VALID")),
        [_u(1, 3, 5, 3, 2)],
    ),
    "max_pool_3d": (_sq(lambda x: rt.nn.max_pool(x, 2, 2, "VALID")), [_distinct(1, 4, 2, 4, 2)]),
    "avg_pool_3d": (_sq(lambda x: rt.nn.avg_pool(x, 2, 2, "SAME")), [_u(1, 3, 2, 3, 2)]),
}
