"""`rt.cond`, `rt.case`, `rt.switch_case`, `rt.while_loop`, `rt.map_fn`, `rt.scan`,
`rt.foldl`, `rt.foldr` and `keras.ops`' control flow against TensorFlow 2.21 / Keras 3
(tests/reference/gen_control_flow.py): values and tape gradients through them; second-order
gradients and float64 finite differences; errors."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_control_flow

REF = np.load(os.path.join(HERE, "..", "reference", "control_flow.npz"), allow_pickle=False)
OURS = gen_control_flow.run(rt, rt.keras.ops)


@pytest.mark.parametrize("key", sorted(REF.files))
def test_matches_tensorflow(key: str) -> None:
    np.testing.assert_allclose(OURS[key], REF[key], rtol=2e-5, atol=1e-6, err_msg=key)


def test_every_result_has_a_reference() -> None:
    assert sorted(OURS) == sorted(REF.files)


def test_gradients_through_loops_match_finite_differences() -> None:
    def f(x: Any, w: Any) -> Any:
        _, y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, rt.tanh(y @ w)), [0, x])
        z = rt.scan(lambda acc, row: acc * 0.5 + rt.sin(row), y)
        return rt.map_fn(lambda r: rt.reduce_sum(r * r), z)

    rng = np.random.default_rng(1)
    check_gradients(f, [rng.normal(size=(3, 2)), rng.normal(size=(2, 2))])


def test_second_order_through_cond_and_associative_scan() -> None:
    x = rt.Variable(np.array([0.3, -0.2, 0.5]))
    with rt.GradientTape() as outer:
        with rt.GradientTape() as inner:
            y = rt.cond(
                rt.reduce_sum(x) > 0,
                lambda: rt.keras.ops.associative_scan(lambda a, b: a * b, x),
                lambda: x,
            )
            loss = rt.reduce_sum(y)
        g = inner.gradient(loss, x)
    h = outer.jacobian(g, x).numpy()
    a, b, c = 0.3, -0.2, 0.5  # loss = a + ab + abc
    expected = np.array([[0, 1 + c, b], [1 + c, 0, a], [b, a, 0]])
    np.testing.assert_allclose(h, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: rt.cond(rt.constant([True, False]), lambda: 1, lambda: 2),
            TypeError,
            "bool scalar",
        ),
        (lambda: rt.cond(True, 1, lambda: 2), TypeError, "callable"),
        (
            lambda: rt.while_loop(lambda x: x < 3, lambda x: (x, x), [rt.constant(0)]),
            ValueError,
            "structure",
        ),
        (lambda: rt.while_loop(lambda x: x < 3, lambda x: x + 1, []), ValueError, "loop_vars"),
        (lambda: rt.switch_case(rt.constant(1.0), [lambda: 1]), TypeError, "int32"),
        (
            lambda: rt.case(
                [(True, lambda: 1), (True, lambda: 2)], default=lambda: 3, exclusive=True
            ),
            ValueError,
            "exclusive",
        ),
        (lambda: rt.map_fn(lambda x: x, rt.constant(3.0)), ValueError, "first dimension"),
        (
            lambda: rt.map_fn(lambda x: x, (rt.zeros([2]), rt.zeros([3]))),
            ValueError,
            "different first",
        ),
        (lambda: rt.foldl(lambda a, x: a + x, rt.zeros([0])), ValueError, "initializer"),
        (lambda: rt.keras.ops.scan(lambda c, x: (c, x), 0), ValueError, "length"),
        (
            lambda: rt.keras.ops.associative_scan(
                lambda a, b: a + b, (rt.zeros([2]), rt.zeros([3]))
            ),
            ValueError,
            "same length",
        ),
    ],
)
def test_errors(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()
