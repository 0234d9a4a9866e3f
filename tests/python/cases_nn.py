"""Gradient-check cases for the convolution, pooling and layer ops of `rt.nn` (and the fused RNN
steps under the Keras layers), in the format of test_op_gradients.py (`CASES = {name: (fn,
[numpy inputs])}`), checked first and second order against central finite differences in
float64 by the test below. Values against TensorFlow are in test_nn_reference.py."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients
from rustape import _rustape

rng = np.random.default_rng(4242)


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


def _sequence_times_last(hs: Any, last: Any) -> Any:
    return hs * rt.reshape(last, [1, 2, 2])


def _mask(x: Any) -> Any:
    rt.random.set_seed(11)  # the same mask at every call of the finite differences
    return rt.nn.dropout(x, 0.4, seed=3)


IDS = np.array([[2, 0, 2], [1, 3, 2]], dtype=np.int32)

CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "conv2d_same": (
        _sq(lambda x, f: rt.nn.conv2d(x, f, 1, "SAME")),
        [_u(2, 4, 5, 2), _u(2, 3, 2, 3)],
    ),
    "conv2d_valid_strided": (
        _sq(lambda x, f: rt.nn.conv2d(x, f, [2, 1], "VALID")),
        [_u(1, 5, 4, 2), _u(3, 2, 2, 2)],
    ),
    "conv2d_dilated_explicit": (
        _sq(lambda x, f: rt.nn.conv2d(x, f, 1, [[0, 0], [1, 0], [0, 1], [0, 0]], dilations=[2, 1])),
        [_u(1, 5, 4, 2), _u(2, 2, 2, 2)],
    ),
    "conv2d_grouped": (
        _sq(lambda x, f: rt.nn.conv2d(x, f, 1, "SAME")),
        [_u(1, 3, 3, 4), _u(2, 2, 2, 2)],
    ),
    "conv1d": (_sq(lambda x, f: rt.nn.conv1d(x, f, 2, "SAME")), [_u(2, 7, 2), _u(3, 2, 3)]),
    "conv2d_transpose": (
        _sq(lambda x, f: rt.nn.conv2d_transpose(x, f, [1, 5, 4, 2], 2, "SAME")),
        [_u(1, 3, 2, 3), _u(3, 2, 2, 3)],
    ),
    "depthwise_conv2d": (
        _sq(lambda x, f: rt.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME")),
        [_u(1, 4, 3, 2), _u(2, 2, 2, 2)],
    ),
    "max_pool2d": (_sq(lambda x: rt.nn.max_pool2d(x, 2, 1, "SAME")), [_distinct(2, 4, 3, 2)]),
    "avg_pool2d": (_sq(lambda x: rt.nn.avg_pool2d(x, [3, 2], [2, 1], "VALID")), [_u(1, 5, 4, 2)]),
    "max_pool_1d": (_sq(lambda x: rt.nn.max_pool(x, 3, 2, "VALID")), [_distinct(2, 7, 2)]),
    "avg_pool_1d": (_sq(lambda x: rt.nn.avg_pool(x, 2, 2, "SAME")), [_u(2, 5, 2)]),
    "bias_add": (_sq(lambda x, b: rt.nn.bias_add(x, b)), [_u(2, 3, 4), _u(4)]),
    "bias_add_nchw": (
        _sq(lambda x, b: rt.nn.bias_add(x, b, data_format="NCHW")),
        [_u(2, 3, 4), _u(3)],
    ),
    "embedding_lookup": (_sq(lambda p: rt.nn.embedding_lookup(p, IDS)), [_u(4, 3)]),
    "embedding_lookup_max_norm": (
        lambda p: rt.nn.embedding_lookup(p, IDS, max_norm=0.7),
        [_u(4, 3)],
    ),
    "dropout": (_sq(_mask), [_u(3, 4)]),
    "lstm_cell": (
        lambda z, c: _rustape.lstm_cell(z, c)[0] * _rustape.lstm_cell(z, c)[1],
        [_u(2, 8), _u(2, 2)],
    ),
    "gru_cell": (lambda x, h, p: _rustape.gru_cell(x, h, p), [_u(2, 6), _u(2, 6), _u(2, 2)]),
    # Every step's h times the last c: both outputs carry a gradient.
    "lstm_sequence": (
        lambda x, u, h, c: _sequence_times_last(*_rustape.lstm_sequence(x, u, h, c)),
        [_u(3, 2, 8), _u(2, 8), _u(2, 2), _u(2, 2)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name: str) -> None:
    f, inputs = CASES[name]
    check_gradients(f, inputs, second_order=True)
