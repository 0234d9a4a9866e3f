"""Gradient-check cases for complex numbers, in the format of test_op_gradients.py (`CASES =
{name: (fn, [numpy inputs])}`), checked first and second order by the test below against
central finite differences in the real and the imaginary direction of every complex input
(conftest.check_gradients, complex128). TensorFlow's values are in test_complex_reference.py."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

rng = np.random.default_rng(314)


def _c(*shape: int, scale: float = 1.0) -> np.ndarray:
    return scale * (rng.uniform(-1.0, 1.0, size=shape) + 1j * rng.uniform(-1.0, 1.0, size=shape))


def _away(*shape: int) -> np.ndarray:
    # Modulus in [0.5, 1.5), argument in (-2.5, 2.5): off zero and the negative real axis.
    return rng.uniform(0.5, 1.5, size=shape) * np.exp(1j * rng.uniform(-2.5, 2.5, size=shape))


def _r(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape)


Z23 = _c(2, 3)
W23 = _c(2, 3)
SQ = _c(3, 3) + 2.5 * np.eye(3)

CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "add": (lambda a, b: rt.add(a, b) * a, [Z23, _c(3)]),
    "subtract": (lambda a, b: rt.subtract(a, b) * b, [_c(2, 1), _c(1, 3)]),
    "multiply": (lambda a, b: rt.multiply(a, b), [Z23, _c(1, 3)]),
    "divide": (lambda a, b: rt.divide(a, b), [Z23, _away(2, 1)]),
    "pow": (lambda a, b: rt.pow(a, b), [_away(2, 3), _c(3, scale=0.8)]),
    "operators": (
        lambda a, b: (a + b) * (a - b) / (b * b + 1.0) - 2.0 * a + a**2 - (1 + 2j) * b,
        [Z23, W23],
    ),
    "reciprocal": (lambda a: rt.math.reciprocal(a), [_away(2, 3)]),
    "square": (lambda a: rt.square(a), [Z23]),
    "sqrt": (lambda a: rt.sqrt(a), [_away(2, 3)]),
    "rsqrt": (lambda a: rt.math.rsqrt(a), [_away(2, 3)]),
    "exp": (lambda a: rt.exp(a), [Z23]),
    "log": (lambda a: rt.math.log(a), [_away(2, 3)]),
    "sin": (lambda a: rt.sin(a), [Z23]),
    "cos": (lambda a: rt.cos(a), [Z23]),
    "tan": (lambda a: rt.tan(a), [_c(2, 3, scale=0.7)]),
    "tanh": (lambda a: rt.tanh(a), [_c(2, 3, scale=0.7)]),
    "sinh": (lambda a: rt.math.sinh(a), [Z23]),
    "cosh": (lambda a: rt.math.cosh(a), [Z23]),
    "abs": (lambda a: rt.abs(a), [_away(2, 3)]),
    "abs_operator": (lambda a: abs(a) * abs(a * a), [_away(2, 3)]),
    "angle": (lambda a: rt.math.angle(a), [_away(2, 3)]),
    "real_imag_conj": (
        lambda a: rt.math.real(a * a) * rt.math.imag(a) + rt.math.real(rt.math.conj(a) * a),
        [Z23],
    ),
    "complex": (lambda x, y: rt.square(rt.complex(x, y)), [_r(2, 3), _r(3)]),
    "cast_real_to_complex": (lambda x: rt.exp(rt.cast(x, rt.complex128)), [_r(2, 3)]),
    "cast_complex_to_real": (lambda a: rt.cast(rt.exp(a), rt.float64), [Z23]),
    "reduce_sum": (lambda a: rt.reduce_sum(a * a, axis=1), [Z23]),
    "reduce_mean": (lambda a: rt.reduce_mean(a * a, axis=0, keepdims=True), [Z23]),
    "reduce_prod": (lambda a: rt.reduce_prod(a, axis=1), [Z23]),
    "reshape_transpose": (lambda a: rt.reshape(a, [3, 2]) * rt.transpose(a), [Z23]),
    "getitem": (lambda a: a[:, 1:] * a[::-1, ::2][:, :2], [Z23]),
    "concat_stack": (
        lambda a, b: rt.stack([rt.concat([a, b], axis=1), rt.concat([b, a * b], axis=1)]),
        [Z23, W23],
    ),
    "where": (
        lambda a, b: rt.where(
            rt.constant([[True, False, True], [False, True, True]]), a * b, a - b
        ),
        [Z23, W23],
    ),
    "gather_pad_tile": (
        lambda a: rt.pad(rt.tile(rt.gather(a, [2, 0], axis=1), [2, 1]), [[1, 0], [0, 1]]),
        [Z23],
    ),
    "matmul": (lambda a, b: rt.matmul(a, b), [Z23, _c(3, 4)]),
    "matmul_adjoint": (
        lambda a, b: rt.matmul(a, b, adjoint_a=True, adjoint_b=True),
        [_c(3, 2), _c(4, 3)],
    ),
    "matmul_operator": (lambda a, b: (a @ b) @ b, [_c(3, 3), _c(3, 3)]),
    "matvec": (lambda a, v: rt.linalg.matvec(a, v, adjoint_a=True), [_c(3, 2), _c(3)]),
    "einsum": (lambda a, b: rt.einsum("bij,bkj->bik", a, b), [_c(2, 2, 3), _c(2, 4, 3)]),
    "tensordot": (lambda a, b: rt.tensordot(a, b, axes=[[1], [0]]), [Z23, _c(3, 2)]),
    "adjoint": (lambda a: rt.linalg.adjoint(a) @ a, [_c(3, 2)]),
    "solve": (lambda a, b: rt.linalg.solve(a, b), [SQ, _c(3, 2)]),
    "solve_adjoint": (lambda a, b: rt.linalg.solve(a, b, adjoint=True), [SQ, _c(3, 2)]),
    "inv": (lambda a: rt.linalg.inv(a), [SQ]),
    "inv_adjoint": (lambda a: rt.linalg.inv(a, adjoint=True), [SQ]),
    "det": (lambda a: rt.linalg.det(a), [SQ]),
    "det_batched": (lambda a, b: rt.linalg.det(a) * b, [np.stack([SQ, SQ.T]), _c(2)]),
}


@pytest.mark.filterwarnings("ignore:You are casting an input of type complex")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name: str) -> None:
    f, inputs = CASES[name]
    check_gradients(f, inputs)
