"""Complex numbers against TensorFlow 2.21: forward values, gradients with the default seed and
with a non-trivial `output_gradients`, second-order gradients, Jacobians (with and without
`experimental_use_pfor`, which TensorFlow itself cannot do when target and source differ in
being complex) and complex64 results, stored by tests/reference/gen_complex.py in
tests/reference/complex.npz. The cases are tests/reference/complex_cases.py, shared with the
generator; this file never imports TensorFlow."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "reference")
sys.path.insert(0, REFERENCE)
from complex_cases import CASES, COMPLEX64, JACOBIAN, SECOND_ORDER, TF_DEVIATIONS

DATA = np.load(os.path.join(REFERENCE, "complex.npz"), allow_pickle=False)


def stored(name: str, what: str) -> Any:
    key = f"{name}/{what}"
    return DATA[key] if key in DATA.files else None


def inputs(name: str) -> list[np.ndarray]:
    return [stored(name, f"x{k}") for k in range(len(CASES[name][1]))]


def run(name: str, xs: list[np.ndarray], c: np.ndarray | None = None) -> tuple[Any, list[Any]]:
    fn = CASES[name][0]
    ts = [rt.constant(x) for x in xs]
    with rt.GradientTape() as tape:
        tape.watch(ts)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the complex -> real cast warns, as TensorFlow
            y = fn(rt, *ts)
    seed = None if c is None else rt.constant(c)
    return y, tape.gradient(y, ts, output_gradients=seed)


def close(
    actual: Any, expected: np.ndarray, what: str, rtol: float = 1e-10, atol: float = 1e-12
) -> None:
    a = np.asarray(actual.numpy() if hasattr(actual, "numpy") else actual)
    assert a.dtype == expected.dtype, f"{what}: dtype {a.dtype}, TensorFlow's {expected.dtype}"
    np.testing.assert_allclose(a, expected, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_gradients(name: str) -> None:
    xs = inputs(name)
    deviates = f"{name}/grad" in TF_DEVIATIONS
    y, grads = run(name, xs)
    close(y, stored(name, "value"), f"{name}: value")
    for seeded, (key, label) in enumerate((("grad", ""), ("grad_c", " with output_gradients"))):
        if seeded:
            _, grads = run(name, xs, stored(name, "c"))
        for k, g in enumerate(grads):
            want = stored(name, f"{key}{k}")
            assert (g is None) == (want is None), f"{name}: gradient {k} connected differently"
            if want is None:
                continue
            what = f"{name}: gradient {k}{label}"
            if deviates:
                # Central differences of TensorFlow's forward value; its gradient is off.
                fd = stored(name, f"{key}_fd{k}")
                close(g, fd, f"{what}, against differences", rtol=1e-6, atol=1e-7)
                assert not np.allclose(want, fd, rtol=1e-3), (
                    f"{what}: TensorFlow now agrees; drop the deviation"
                )
            else:
                close(g, want, what)


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_order(name: str) -> None:
    fn = CASES[name][0]
    xs = inputs(name)
    c = rt.constant(stored(name, "c"))
    vs = [rt.constant(stored(name, f"v{k}")) for k in range(len(xs))]
    ts = [rt.constant(x) for x in xs]
    with rt.GradientTape() as outer:
        outer.watch(ts)
        with rt.GradientTape() as inner:
            inner.watch(ts)
            y = fn(rt, *ts)
        grads = inner.gradient(y, ts, output_gradients=c)
        s = rt.add_n([rt.reduce_sum(g * v) for g, v in zip(grads, vs)])
    for k, h in enumerate(outer.gradient(s, ts)):
        # Central differences of TensorFlow's first-order gradient (which rustape matches).
        fd = stored(name, f"second_fd{k}")
        close(h, fd, f"{name}: second order, input {k}, against differences", rtol=1e-6, atol=1e-7)
        if f"{name}/second" in TF_DEVIATIONS:
            tf_value = stored(name, f"second{k}")
            assert not np.allclose(tf_value, fd, rtol=1e-3), (
                f"{name}: TensorFlow now agrees; drop the deviation"
            )
        else:
            close(h, stored(name, f"second{k}"), f"{name}: second order, input {k}", rtol=1e-9)


@pytest.mark.parametrize("name", JACOBIAN)
@pytest.mark.parametrize("pfor", [True, False])
def test_jacobian(name: str, pfor: bool) -> None:
    fn = CASES[name][0]
    ts = [rt.constant(x) for x in inputs(name)]
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(ts)
        y = fn(rt, *ts)
    js = tape.jacobian(y, ts, experimental_use_pfor=pfor)
    for k, j in enumerate(js):
        close(j, stored(name, f"jac{k}"), f"{name}: jacobian {k} (pfor={pfor})")


@pytest.mark.parametrize("name", COMPLEX64)
def test_complex64(name: str) -> None:
    xs = [x.astype(np.complex64 if x.dtype.kind == "c" else np.float32) for x in inputs(name)]
    c = stored(name, "c")
    c = c.astype(np.complex64 if c.dtype.kind == "c" else np.float32)
    y, grads = run(name, xs, c)
    close(y, stored(name, "c64/value"), f"{name}: complex64 value", rtol=2e-5, atol=2e-6)
    for k, g in enumerate(grads):
        want = stored(name, f"c64/grad_c{k}")
        if want is not None:
            close(g, want, f"{name}: complex64 gradient {k}", rtol=2e-5, atol=2e-6)


def test_every_case_has_reference_values() -> None:
    for name in CASES:
        assert stored(name, "value") is not None, f"{name}: rerun tests/reference/gen_complex.py"
