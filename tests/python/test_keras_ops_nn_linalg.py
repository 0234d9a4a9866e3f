"""`rt.keras.ops` activations, normalizations, `psnr` and linear algebra against Keras 3 on
TensorFlow 2.21 (tests/reference/gen_keras_ops_nn_linalg.py): values and dtypes; sign-free
checks for factorizations; gradients of the compositions against float64 finite
differences; bad input."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_keras_ops_nn_linalg as gen

REF = np.load(os.path.join(HERE, "..", "reference", "keras_ops_nn_linalg.npz"))
OPS = rt.keras.ops
# Factors unique only up to the signs of columns: compared through products and values.
SIGNED = {"qr", "svd", "eigh"}


def tolerance(a: np.ndarray) -> float:
    return 2e-5 if a.dtype == np.float32 else 1e-10


@pytest.mark.parametrize("i", range(len(gen.CASES)))
def test_matches_keras(i: int) -> None:
    name, args, kwargs = gen.CASES[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = [np.asarray(g) for g in gen.outputs(getattr(OPS, name)(*args, **kwargs))]
    want = [REF[f"{i}/{k}"] for k in range(len(got))]
    assert f"{i}/{len(got)}" not in REF, f"{name}: Keras gives more outputs"
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (name, g.shape, w.shape, g.dtype)
    if name in SIGNED and len(got) > 1:
        a = np.asarray(args[0])
        if name == "eigh":
            np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
            np.testing.assert_allclose(got[1] @ np.diag(got[0]) @ got[1].T, a, atol=1e-10)
        elif name == "qr":
            np.testing.assert_allclose(np.abs(got[1]), np.abs(want[1]), atol=1e-10)
            np.testing.assert_allclose(got[0] @ got[1], a, atol=1e-10)
        else:
            u, s, vh = got
            np.testing.assert_allclose(s, want[1], rtol=1e-10)
            k = len(s)
            np.testing.assert_allclose(u[:, :k] * s @ vh[:k], a, atol=1e-10)
        return
    for g, w in zip(got, want):
        t = tolerance(w)
        np.testing.assert_allclose(g, w, rtol=t, atol=t * max(1.0, float(np.max(np.abs(w)))))


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("celu", {"alpha": 0.7}),
        ("glu", {}),
        ("squareplus", {}),
        ("sparsemax", {}),
        ("layer_normalization", {}),
        ("rms_normalization", {}),
        ("tanh_shrink", {}),
    ],
)
def test_gradients_match_finite_differences(name: str, kwargs: dict[str, Any]) -> None:
    x0 = np.random.default_rng(1).normal(size=(3, 4))
    weights = np.random.default_rng(2).normal(size=np.shape(getattr(OPS, name)(x0, **kwargs)))

    def loss(x: Any) -> Any:
        return rt.reduce_sum(getattr(OPS, name)(x, **kwargs) * weights)

    x = rt.Variable(x0)
    with rt.GradientTape() as tape:
        value = loss(x)
    grad = tape.gradient(value, x).numpy()
    h = 1e-6
    numeric = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[idx] = h
        numeric[idx] = (float(loss(x0 + e)) - float(loss(x0 - e))) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_solve_gradient_through_keras_ops() -> None:
    a0, b0 = gen.SPD64, gen.X64[0]
    a = rt.Variable(a0)
    with rt.GradientTape() as tape:
        x = OPS.solve(a, b0)
        value = rt.reduce_sum(x * x)
    grad = tape.gradient(value, a).numpy()
    # d/dA |A^-1 b|^2 = -2 A^-T x x^T ... with x = A^-1 b.
    x_np = np.linalg.solve(a0, b0)
    want = -2 * np.linalg.solve(a0.T, x_np)[:, None] * x_np[None, :]
    np.testing.assert_allclose(grad, want, rtol=1e-10)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: OPS.glu(np.ones((2, 3))), ValueError, "divisible by 2"),
        (lambda: OPS.det(np.ones((2, 3))), ValueError, "square"),
        (lambda: OPS.qr(np.ones((2, 2)), mode="full"), ValueError, "mode"),
        (lambda: OPS.lstsq(np.ones((3, 2)), np.ones(2)), ValueError, "Leading dimensions"),
        (lambda: OPS.psnr(np.ones(2), np.ones(3), 1.0), ValueError, "must match"),
    ],
)
def test_bad_input(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_jvp_matches_finite_differences_and_returns_aux() -> None:
    rng = np.random.default_rng(4)
    a0, b0 = rng.normal(size=(3,)), rng.normal(size=(3, 2))
    ta, tb = rng.normal(size=(3,)), rng.normal(size=(3, 2))

    def fun(a: Any, b: Any) -> Any:
        return {"p": rt.tanh(a)[:, None] * b, "q": rt.reduce_sum(b * b)}, a * 2.0

    (_, tangent, aux) = OPS.jvp(fun, (a0, b0), (ta, tb), has_aux=True)
    h = 1e-6
    plus, _ = fun(rt.constant(a0 + h * ta), rt.constant(b0 + h * tb))
    minus, _ = fun(rt.constant(a0 - h * ta), rt.constant(b0 - h * tb))
    for key in ("p", "q"):
        numeric = (plus[key].numpy() - minus[key].numpy()) / (2 * h)
        np.testing.assert_allclose(tangent[key].numpy(), numeric, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(aux.numpy(), 2 * a0)
    # Second order: the jvp of a gradient is a Hessian-vector product.
    x0, t0 = rng.normal(size=(4,)), rng.normal(size=(4,))

    def grad(x: Any) -> Any:
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.sin(x) * x)
        return tape.gradient(y, x)

    _, hvp = OPS.jvp(grad, (x0,), (t0,))
    hessian_diag = 2 * np.cos(x0) - x0 * np.sin(x0)
    np.testing.assert_allclose(hvp.numpy(), hessian_diag * t0, rtol=1e-12)


def test_custom_gradient_is_used() -> None:
    @OPS.custom_gradient
    def double_grad(x: Any) -> Any:
        return x * 1.0, lambda upstream: upstream * 2.0

    x = rt.Variable([1.0, -3.0])
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(double_grad(x) * 3.0)
    assert tape.gradient(y, x).numpy().tolist() == [6.0, 6.0]
