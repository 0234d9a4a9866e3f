"""Shared helpers for the Python tests.

`check_gradients` is an independent finite-difference check (NumPy central differences around
rustape's forward pass, in float64), first and second order, so the tests do not depend on the
engine's own `gradcheck` being right. Complex inputs are checked in complex128, in the real and
the imaginary direction: the gradient of `z = x + iy` must be `dR/dx + i dR/dy`, `R` the real
part of the loss (TensorFlow's convention).
"""

from __future__ import annotations

import os
import subprocess
import sys
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
    """A float64 tensor of `x`; complex128 when `x` is complex."""
    if np.iscomplexobj(x):
        return rt.constant(np.asarray(x, dtype=np.complex128), dtype=rt.complex128)
    return rt.constant(np.asarray(x, dtype=np.float64), dtype=rt.float64)


def _weights(shape, seed, complex_: bool = False) -> np.ndarray:
    # Fixed, distinct weights so that sum(w * f(x)) does not hide errors by symmetry (complex
    # for a complex output, so that its imaginary part counts too).
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.5, 1.5, size=shape)
    if complex_:
        w = w + 1j * rng.uniform(0.5, 1.5, size=shape)
    return w


def _loss(f, xs_np, w):
    ts = [f64(x) for x in xs_np]
    y = f(*ts)
    return float(np.real(np.sum(to_numpy(y) * w)))


def _weighted_sum(y, w):
    return rt.reduce_sum(y * rt.constant(w, dtype=y.dtype))


def analytic_gradient(f: Callable, xs_np: Sequence[np.ndarray], w: np.ndarray) -> list[np.ndarray]:
    ts = [f64(x) for x in xs_np]
    with rt.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
        loss = _weighted_sum(y, w)
    grads = tape.gradient(loss, ts, unconnected_gradients="zero")
    return [to_numpy(g) for g in grads]


def hessian_vector(
    f: Callable, xs_np: Sequence[np.ndarray], w: np.ndarray, vs: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """H @ v of loss = sum(w * f(x)), by nested tapes."""
    ts = [f64(x) for x in xs_np]
    with rt.GradientTape() as outer:
        outer.watch(ts)
        with rt.GradientTape() as inner:
            inner.watch(ts)
            y = f(*ts)
            loss = _weighted_sum(y, w)
        grads = inner.gradient(loss, ts, unconnected_gradients="zero")
        # <g, v> as real vectors: Re(g * conj(v)), so that its gradient is H v.
        s = rt.add_n(
            [rt.math.real(rt.reduce_sum(g * rt.math.conj(f64(v)))) for g, v in zip(grads, vs)]
        )
    hv = outer.gradient(s, ts, unconnected_gradients="zero")
    return [to_numpy(h) for h in hv]


def check_gradients(
    f: Callable,
    inputs: Sequence,
    second_order: bool = True,
    eps: float = 1e-6,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    seed: int = 0,
) -> None:
    """Asserts that rustape's first (and second) derivatives of `f` match central differences.

    `f` takes float64 Tensors (complex128 for complex inputs, one per input) and returns a
    Tensor; the scalar checked is the real part of `sum(w * f(x))` for fixed random weights `w`.
    """
    xs = [np.array(x, dtype=np.complex128 if np.iscomplexobj(x) else np.float64) for x in inputs]
    y0 = to_numpy(f(*[f64(x) for x in xs]))
    w = _weights(y0.shape, seed, np.iscomplexobj(y0))

    # first order
    grads = analytic_gradient(f, xs, w)
    for k, x in enumerate(xs):
        assert grads[k].shape == x.shape, (
            f"gradient {k} has shape {grads[k].shape}, input {x.shape}"
        )
        numeric = np.zeros_like(x)
        steps = [eps, 1j * eps] if np.iscomplexobj(x) else [eps]
        for idx in np.ndindex(*x.shape):
            for step in steps:
                xp = [a.copy() for a in xs]
                xm = [a.copy() for a in xs]
                xp[k][idx] += step
                xm[k][idx] -= step
                # d/dx for a real step, i d/dy for an imaginary one.
                numeric[idx] += (_loss(f, xp, w) - _loss(f, xm, w)) / (2 * eps) * (step / eps)
        np.testing.assert_allclose(
            grads[k],
            numeric,
            atol=atol,
            rtol=rtol,
            err_msg=f"first-order gradient of input {k} differs from finite differences",
        )

    if not second_order:
        return
    # second order: H v against finite differences of the analytic gradient along v
    rng = np.random.default_rng(seed + 1)
    vs = [
        rng.uniform(-1.0, 1.0, size=x.shape)
        + (1j * rng.uniform(-1.0, 1.0, size=x.shape) if np.iscomplexobj(x) else 0)
        for x in xs
    ]
    hv = hessian_vector(f, xs, w, vs)
    h = 1e-5
    gp = analytic_gradient(f, [x + h * v for x, v in zip(xs, vs)], w)
    gm = analytic_gradient(f, [x - h * v for x, v in zip(xs, vs)], w)
    for k, x in enumerate(xs):
        numeric = (gp[k] - gm[k]) / (2 * h)
        np.testing.assert_allclose(
            hv[k],
            numeric,
            atol=max(atol, 1e-5),
            rtol=max(rtol, 1e-4),
            err_msg=f"second-order (Hessian-vector) derivative of input {k} differs from finite differences",
        )


@pytest.fixture
def seeded():
    rt.random.set_seed(1234)
    yield


def arrays_from_child(script: str, threads: int, path: str) -> list[np.ndarray]:
    """Runs `script` (which saves arrays with `np.savez(sys.argv[1], ...)`) in a fresh Python
    at `threads` threads (RAYON_NUM_THREADS is read once, when the pool starts); its arrays."""
    proc = subprocess.run(
        [sys.executable, "-c", script, path],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "RAYON_NUM_THREADS": str(threads)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    with np.load(path) as saved:
        return [saved[f"arr_{k}"] for k in range(len(saved.files))]
