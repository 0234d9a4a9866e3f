"""Shared helpers for the Python tests.

`check_gradients` is an independent finite-difference check (NumPy central differences around
rustape's forward pass, in float64), first and second order, so the tests do not depend on the
engine's own `gradcheck` being right.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Callable

import numpy as np
import pytest
import rustape as rt

os.environ.setdefault("MPLBACKEND", "Agg")


def to_numpy(x):
    if isinstance(x, (rt.Tensor, rt.Variable)):
        return np.asarray(x.numpy())
    return np.asarray(x)


def f64(x) -> rt.Tensor:
    return rt.constant(np.asarray(x, dtype=np.float64), dtype=rt.float64)


def _weights(shape, seed) -> np.ndarray:
    # Fixed, distinct weights so that sum(w * f(x)) does not hide errors by symmetry.
    rng = np.random.default_rng(seed)
    return rng.uniform(0.5, 1.5, size=shape)


def _loss(f, xs_np, w):
    ts = [f64(x) for x in xs_np]
    y = f(*ts)
    return float(np.sum(to_numpy(y).astype(np.float64) * w))


def analytic_gradient(f: Callable, xs_np: Sequence[np.ndarray], w: np.ndarray) -> list[np.ndarray]:
    ts = [f64(x) for x in xs_np]
    with rt.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
        loss = rt.reduce_sum(y * rt.constant(w, dtype=rt.float64))
    grads = tape.gradient(loss, ts, unconnected_gradients="zero")
    return [to_numpy(g) for g in grads]


def hessian_vector(f: Callable, xs_np: Sequence[np.ndarray], w: np.ndarray, vs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """H @ v of loss = sum(w * f(x)), by nested tapes."""
    ts = [f64(x) for x in xs_np]
    with rt.GradientTape() as outer:
        outer.watch(ts)
        with rt.GradientTape() as inner:
            inner.watch(ts)
            y = f(*ts)
            loss = rt.reduce_sum(y * rt.constant(w, dtype=rt.float64))
        grads = inner.gradient(loss, ts, unconnected_gradients="zero")
        s = rt.add_n([rt.reduce_sum(g * f64(v)) for g, v in zip(grads, vs)])
    hv = outer.gradient(s, ts, unconnected_gradients="zero")
    return [to_numpy(h) for h in hv]


def check_gradients(f: Callable, inputs: Sequence, second_order: bool = True, eps: float = 1e-6,
                    atol: float = 1e-6, rtol: float = 1e-5, seed: int = 0) -> None:
    """Asserts that rustape's first (and second) derivatives of `f` match central differences.

    `f` takes float64 Tensors (one per input) and returns a Tensor; the scalar checked is
    `sum(w * f(x))` for fixed random weights `w`.
    """
    xs = [np.array(x, dtype=np.float64) for x in inputs]
    y0 = to_numpy(f(*[f64(x) for x in xs]))
    w = _weights(y0.shape, seed)

    # first order
    grads = analytic_gradient(f, xs, w)
    for k, x in enumerate(xs):
        assert grads[k].shape == x.shape, f"gradient {k} has shape {grads[k].shape}, input {x.shape}"
        numeric = np.zeros_like(x)
        for idx in np.ndindex(*x.shape):
            xp = [a.copy() for a in xs]
            xm = [a.copy() for a in xs]
            xp[k][idx] += eps
            xm[k][idx] -= eps
            numeric[idx] = (_loss(f, xp, w) - _loss(f, xm, w)) / (2 * eps)
        np.testing.assert_allclose(
            grads[k], numeric, atol=atol, rtol=rtol,
            err_msg=f"first-order gradient of input {k} differs from finite differences",
        )

    if not second_order:
        return
    # second order: H v against finite differences of the analytic gradient along v
    rng = np.random.default_rng(seed + 1)
    vs = [rng.uniform(-1.0, 1.0, size=x.shape) for x in xs]
    hv = hessian_vector(f, xs, w, vs)
    h = 1e-5
    gp = analytic_gradient(f, [x + h * v for x, v in zip(xs, vs)], w)
    gm = analytic_gradient(f, [x - h * v for x, v in zip(xs, vs)], w)
    for k, x in enumerate(xs):
        numeric = (gp[k] - gm[k]) / (2 * h)
        np.testing.assert_allclose(
            hv[k], numeric, atol=max(atol, 1e-5), rtol=max(rtol, 1e-4),
            err_msg=f"second-order (Hessian-vector) derivative of input {k} differs from finite differences",
        )


@pytest.fixture
def seeded():
    rt.random.set_seed(1234)
    yield
