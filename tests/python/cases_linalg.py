"""Gradient cases for `rt.linalg`'s factorisations and matrix functions: each a function of
float64 tensors and its inputs, checked against central finite differences, first and second
order (`conftest.check_gradients`). Ops that read one triangle of a symmetric matrix get a
symmetrised input (their gradients, TensorFlow's, are those with respect to a symmetric one);
eigenvectors and singular vectors enter as they are (their sign convention holds under small
perturbations)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

rng = np.random.default_rng(20261123)


def _u(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape)


def _spd(*shape: int) -> np.ndarray:
    a = _u(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _lower(*shape: int) -> np.ndarray:
    return np.tril(_u(*shape)) + 2.0 * np.eye(shape[-1])


def _sym(x: Any) -> Any:
    return (x + rt.linalg.matrix_transpose(x)) * 0.5


def _flat(*parts: Any) -> Any:
    return rt.concat([rt.reshape(p, [-1]) for p in parts], axis=0)


CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "cholesky": (lambda a: rt.linalg.cholesky(_sym(a)), [_spd(2, 3, 3)]),
    "logdet": (lambda a: rt.linalg.logdet(_sym(a)), [_spd(3, 3)]),
    "triangular_solve": (lambda a, b: rt.linalg.triangular_solve(a, b), [_lower(3, 3), _u(3, 2)]),
    "triangular_solve_upper_adjoint": (
        lambda a, b: rt.linalg.triangular_solve(a, b, lower=False, adjoint=True),
        [np.swapaxes(_lower(2, 3, 3), -1, -2), _u(3, 1)],
    ),
    "cholesky_solve": (lambda c, b: rt.linalg.cholesky_solve(c, b), [_lower(3, 3), _u(3, 2)]),
    "det": (lambda a: rt.linalg.det(a), [_u(2, 3, 3) + 3 * np.eye(3)]),
    "slogdet": (lambda a: rt.linalg.slogdet(a)[1], [_u(3, 3)]),
    "qr": (lambda a: _flat(*rt.linalg.qr(a)), [_u(4, 3)]),
    "qr_wide": (lambda a: _flat(*rt.linalg.qr(a)), [_u(2, 3)]),
    "eigh": (lambda a: _flat(*rt.linalg.eigh(_sym(a))), [_spd(3, 3)]),
    "eigvalsh": (lambda a: rt.linalg.eigvalsh(_sym(a)), [_u(2, 3, 3)]),
    "svd": (lambda a: _flat(*rt.linalg.svd(a)), [_u(3, 2)]),
    "svd_values": (lambda a: rt.linalg.svd(a, compute_uv=False), [_u(2, 4)]),
    "lstsq": (lambda a, b: rt.linalg.lstsq(a, b), [_u(4, 2), _u(4, 1)]),
    "lstsq_l2_under": (
        lambda a, b: rt.linalg.lstsq(a, b, l2_regularizer=0.2),
        [_u(2, 3), _u(2, 1)],
    ),
    "lstsq_min_norm": (lambda a, b: rt.linalg.lstsq(a, b, fast=False), [_u(4, 2), _u(4, 1)]),
    "pinv": (lambda a: rt.linalg.pinv(a), [_u(3, 2)]),
    "expm": (lambda a: rt.linalg.expm(a), [_u(3, 3)]),
    "expm_scaled": (lambda a: rt.linalg.expm(a * 4.0), [_u(2, 2)]),
    "band_part": (lambda a: rt.linalg.band_part(a, 1, 0), [_u(3, 4)]),
    "diag": (lambda d: rt.linalg.diag(d, k=1, padding_value=2.0), [_u(2, 3)]),
    "set_diag": (lambda a, d: rt.linalg.set_diag(a, d, k=-1), [_u(3, 3), _u(2)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_gradient_matches_finite_differences(name: str) -> None:
    f, inputs = CASES[name]
    check_gradients(f, inputs, second_order=True)


_LU_A = _u(2, 3, 3) + 3.0 * np.eye(3)
_LU, _PERM = (t.numpy() for t in rt.linalg.lu(_LU_A))

LU_CASES: dict[str, tuple[Callable[..., Any], list[np.ndarray]]] = {
    "lu_solve": (lambda m, b: rt.linalg.lu_solve(m, _PERM, b), [_LU, _u(2, 3, 2)]),
    "lu_matrix_inverse": (lambda m: rt.linalg.lu_matrix_inverse(m, _PERM), [_LU]),
    "lu_reconstruct": (lambda m: rt.linalg.lu_reconstruct(m, _PERM), [_LU]),
}
CASES.update(LU_CASES)

#: `lu` has no gradient (TensorFlow registers none): its factors rebuild the input.
FORWARD: dict[str, tuple[Any, ...]] = {
    "lu": (lambda a: rt.linalg.lu_reconstruct(*rt.linalg.lu(a)), [_LU_A], lambda a: a),
}
