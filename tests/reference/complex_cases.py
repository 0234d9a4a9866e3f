"""Complex-number cases shared by gen_complex.py (run under TensorFlow) and
tests/python/test_complex_reference.py (run under rustape).

Each case is `(function, inputs)`: the function takes the module (`tf` or `rt`, whose names
agree) and one tensor per input. Inputs are fixed NumPy arrays (a seeded generator, in a fixed
order), stored by the generator beside TensorFlow's results so the tests read them back rather
than regenerate them. Imports neither TensorFlow nor rustape.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

_rng = np.random.default_rng(20240514)


def _c(*shape: int, scale: float = 1.0) -> np.ndarray:
    """complex128 values with both parts in [-scale, scale)."""
    re = _rng.uniform(-scale, scale, size=shape)
    im = _rng.uniform(-scale, scale, size=shape)
    return re + 1j * im


def _away(*shape: int) -> np.ndarray:
    """complex128 values of modulus in [0.5, 1.5), off the negative real axis (log's cut)."""
    r = _rng.uniform(0.5, 1.5, size=shape)
    phi = _rng.uniform(-2.5, 2.5, size=shape)
    return r * np.exp(1j * phi)


def _r(*shape: int) -> np.ndarray:
    return _rng.uniform(-1.0, 1.0, size=shape)


def _well_conditioned(n: int, batch: tuple[int, ...] = ()) -> np.ndarray:
    return _c(*batch, n, n) + 2.5 * np.eye(n)


Case = tuple[Callable[..., Any], list[np.ndarray]]

Z23 = _c(2, 3)
W23 = _c(2, 3)

CASES: dict[str, Case] = {
    # arithmetic, broadcasting
    "add": (lambda m, a, b: m.add(a, b), [Z23, _c(3)]),
    "subtract": (lambda m, a, b: m.subtract(a, b), [_c(2, 1), _c(1, 3)]),
    "multiply": (lambda m, a, b: m.multiply(a, b), [Z23, _c(1, 3)]),
    "divide": (lambda m, a, b: m.divide(a, b), [Z23, _away(2, 1)]),
    "pow": (lambda m, a, b: m.pow(a, b), [_away(2, 3), _c(3, scale=0.8)]),
    "pow_real_exponent": (lambda m, a: m.pow(a, m.constant(3.0 + 0.0j, a.dtype)), [Z23]),
    "negative": (lambda m, a: m.negative(a), [Z23]),
    "reciprocal": (lambda m, a: m.math.reciprocal(a), [_away(2, 3)]),
    "operators": (lambda m, a, b: (a + b) * (a - b) / (b * b + 1.0) - 2.0 * a + a**2, [Z23, W23]),
    # unary math
    "square": (lambda m, a: m.square(a), [Z23]),
    "sqrt": (lambda m, a: m.sqrt(a), [_away(2, 3)]),
    "exp": (lambda m, a: m.exp(a), [Z23]),
    "log": (lambda m, a: m.math.log(a), [_away(2, 3)]),
    "sin": (lambda m, a: m.sin(a), [Z23]),
    "cos": (lambda m, a: m.cos(a), [Z23]),
    "tan": (lambda m, a: m.tan(a), [_c(2, 3, scale=0.7)]),
    "tanh": (lambda m, a: m.tanh(a), [_c(2, 3, scale=0.7)]),
    "sinh": (lambda m, a: m.math.sinh(a), [Z23]),
    "cosh": (lambda m, a: m.math.cosh(a), [Z23]),
    "holomorphic_chain": (lambda m, a: m.exp(m.sin(a) * a) / (a * a + 2.0), [Z23]),
    # complex <-> real
    "abs": (lambda m, a: m.abs(a), [_away(2, 3)]),
    "angle": (lambda m, a: m.math.angle(a), [_away(2, 3)]),
    "real": (lambda m, a: m.math.real(a), [Z23]),
    "imag": (lambda m, a: m.math.imag(a), [Z23]),
    "conj": (lambda m, a: m.math.conj(a), [Z23]),
    "complex": (lambda m, x, y: m.complex(x, y), [_r(2, 3), _r(3)]),
    "cast_real_to_complex": (lambda m, x: m.cast(x, m.complex128) * (1.5 - 0.5j), [_r(2, 3)]),
    "cast_complex_to_real": (lambda m, a: m.cast(a * a, m.float64), [Z23]),
    "real_loss": (
        lambda m, a: m.math.real(a * m.math.conj(a)) + m.abs(a) * m.math.imag(a),
        [_away(2, 3)],
    ),
    "real_source_through_complex": (
        lambda m, x, y: (
            m.abs(m.exp(m.complex(x, y)) * (0.5 + 1.0j)) + m.math.real(m.complex(x, y) ** 2)
        ),
        [_r(2, 3), _r(2, 3)],
    ),
    # reductions
    "reduce_sum": (lambda m, a: m.reduce_sum(a * a, axis=1), [Z23]),
    "reduce_sum_all": (lambda m, a: m.reduce_sum(a), [Z23]),
    "reduce_mean": (lambda m, a: m.reduce_mean(a * a, axis=0), [Z23]),
    "reduce_prod": (lambda m, a: m.reduce_prod(a, axis=1), [Z23]),
    "reduce_prod_keepdims": (lambda m, a: m.reduce_prod(a, axis=0, keepdims=True) * a, [Z23]),
    # shape ops and slicing
    "reshape": (lambda m, a: m.reshape(a * a, [3, 2]), [Z23]),
    "transpose": (lambda m, a: m.transpose(a, [1, 0]) * m.transpose(a), [Z23]),
    "slice": (lambda m, a: a[:, 1:] * a[::-1, ::2][:, :2], [Z23]),
    "concat": (lambda m, a, b: m.concat([a, b * a], axis=0), [Z23, W23]),
    "stack": (lambda m, a, b: m.stack([a, b, a * b], axis=1), [Z23, W23]),
    "unstack": (
        lambda m, a: m.stack(m.unstack(a, axis=1)[::-1], axis=0) * m.unstack(a, axis=1)[0],
        [Z23],
    ),
    "expand_squeeze": (lambda m, a: m.squeeze(m.expand_dims(a, 0) * 2.0, axis=0), [Z23]),
    "tile": (lambda m, a: m.tile(a, [2, 1]), [Z23]),
    "broadcast_to": (lambda m, a: m.broadcast_to(a, [2, 2, 3]) * 1.5, [Z23]),
    "gather": (lambda m, a: m.gather(a, [2, 0, 2], axis=1), [Z23]),
    "pad": (lambda m, a: m.pad(a, [[1, 0], [0, 2]]), [Z23]),
    "where": (
        lambda m, a, b: m.where(
            m.constant([[True, False, True], [False, True, True]]), a * b, a - b
        ),
        [Z23, W23],
    ),
    # linear algebra
    "matmul": (lambda m, a, b: m.matmul(a, b), [_c(2, 3), _c(3, 4)]),
    "matmul_batched": (lambda m, a, b: m.matmul(a, b), [_c(2, 2, 3), _c(3, 2)]),
    "matmul_transpose": (
        lambda m, a, b: m.matmul(a, b, transpose_a=True, transpose_b=True),
        [_c(3, 2), _c(4, 3)],
    ),
    "matmul_adjoint": (
        lambda m, a, b: m.matmul(a, b, adjoint_a=True, adjoint_b=True),
        [_c(3, 2), _c(4, 3)],
    ),
    "einsum": (lambda m, a, b: m.einsum("bij,bkj->bik", a, b), [_c(2, 2, 3), _c(2, 4, 3)]),
    "einsum_trace": (lambda m, a: m.einsum("ii->", a * a), [_c(3, 3)]),
    "tensordot": (lambda m, a, b: m.tensordot(a, b, axes=[[1], [0]]), [_c(2, 3), _c(3, 2)]),
    "adjoint": (lambda m, a: m.linalg.adjoint(a) * 2.0, [_c(2, 3, 2)]),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), [_well_conditioned(3), _c(3, 2)]),
    "solve_batched": (
        lambda m, a, b: m.linalg.solve(a, b),
        [_well_conditioned(3, (2,)), _c(2, 3, 1)],
    ),
    "inv": (lambda m, a: m.linalg.inv(a), [_well_conditioned(3)]),
    "det": (lambda m, a: m.linalg.det(a), [_well_conditioned(3)]),
    "det_batched": (lambda m, a: m.linalg.det(a), [_well_conditioned(3, (2,))]),
}

# Where TensorFlow's numbers break its own convention, and why. The tests check rustape there
# against central differences of TensorFlow's first-order gradient (which rustape matches),
# stored by the generator, and that TensorFlow's own value is off.
TF_DEVIATIONS = {
    "reduce_prod/second": "TensorFlow's Cumprod gradient, which Prod's gradient uses, does not "
    "conjugate for complex inputs, so its second derivative of a complex reduce_prod is not "
    "the derivative of its first",
    "det/grad": "TensorFlow's MatrixDeterminant gradient is det * A^-H for complex inputs, where "
    "its convention (and central differences of its own det) give conj(det) * A^-H",
    "det_batched/grad": "as det/grad",
}

# Cases also checked at second order (the gradient of a projection of the gradient).
SECOND_ORDER = [
    "multiply",
    "divide",
    "pow",
    "square",
    "sqrt",
    "exp",
    "log",
    "sin",
    "tanh",
    "abs",
    "angle",
    "real_loss",
    "holomorphic_chain",
    "reduce_prod",
    "matmul",
    "solve",
    "inv",
]

# Cases whose Jacobian (and, rank permitting, batch Jacobian) is stored too.
JACOBIAN = ["multiply", "exp", "abs", "complex", "matmul", "reduce_prod", "cast_real_to_complex"]

# Cases rerun in complex64 (inputs cast down) for the forward value and first-order gradient.
COMPLEX64 = [
    "multiply",
    "divide",
    "exp",
    "log",
    "sin",
    "tanh",
    "abs",
    "matmul",
    "reduce_sum",
    "solve",
]
