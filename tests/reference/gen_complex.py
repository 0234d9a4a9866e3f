"""TensorFlow 2.21 reference values for complex numbers: run under a TensorFlow venv (see
README.md); writes complex.npz beside this file.

For every case of complex_cases.py it stores the inputs, the forward value, the gradient of
every input with the default seed (ones) and with a non-trivial `output_gradients` `c`, and,
for the cases whose TensorFlow gradient breaks the convention (TF_DEVIATIONS), central
differences of TensorFlow's forward value in its place; where listed, the second-order gradient (of `sum(g * v)` for fixed `v`, by nested tapes, and
by central differences of the first-order gradient, to catch where TensorFlow's differ), the
Jacobians (`experimental_use_pfor` True and False, where TensorFlow computes them) and the
complex64 value and gradient. Keys are `<case>/<what>`.
"""

from __future__ import annotations

import os
import sys
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from complex_cases import CASES, COMPLEX64, JACOBIAN, SECOND_ORDER, TF_DEVIATIONS

tf.get_logger().setLevel("ERROR")  # the complex -> real cast warns on every call
rng = np.random.default_rng(7)


def like(shape: Any, dtype: Any) -> np.ndarray:
    """Fixed random values of `shape`, complex when `dtype` is."""
    values = rng.uniform(-1.0, 1.0, size=shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.uniform(-1.0, 1.0, size=shape)
    return values.astype(dtype)


def gradients(fn: Any, xs: list[np.ndarray], c: Any = None) -> Any:
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(ts)
        y = fn(tf, *ts)
    return y, tape.gradient(y, ts, output_gradients=c)


def second_order(fn: Any, xs: list[np.ndarray], c: np.ndarray, vs: list[np.ndarray]) -> list[Any]:
    ts = [tf.constant(x) for x in xs]
    with tf.GradientTape() as outer:
        outer.watch(ts)
        with tf.GradientTape() as inner:
            inner.watch(ts)
            y = fn(tf, *ts)
        grads = inner.gradient(y, ts, output_gradients=tf.constant(c))
        s = tf.add_n([tf.reduce_sum(g * tf.constant(v)) for g, v in zip(grads, vs)])
    return outer.gradient(s, ts)


def second_order_by_differences(
    fn: Any, xs: list[np.ndarray], c: np.ndarray, vs: list[np.ndarray], h: float = 1e-6
) -> list[np.ndarray]:
    """Central differences of Re sum_k sum(g_k * v_k), g the first-order gradient: what
    second_order computes, from TensorFlow's first-order gradient alone."""

    def projected(at: list[np.ndarray]) -> float:
        _, grads = gradients(fn, at, tf.constant(c))
        return float(
            sum(np.real(np.sum(g.numpy() * v)) for g, v in zip(grads, vs) if g is not None)
        )

    out = []
    for k, x in enumerate(xs):
        numeric = np.zeros_like(x)
        steps = [h, 1j * h] if x.dtype.kind == "c" else [h]
        for idx in np.ndindex(*x.shape):
            for step in steps:
                plus = [a.copy() for a in xs]
                minus = [a.copy() for a in xs]
                plus[k][idx] += step
                minus[k][idx] -= step
                numeric[idx] += (projected(plus) - projected(minus)) / (2 * h) * (step / h)
        out.append(numeric)
    return out


def first_order_by_differences(
    fn: Any, xs: list[np.ndarray], c: np.ndarray, h: float = 1e-6
) -> list[np.ndarray]:
    """Central differences of Re sum(conj(c) * y) in the real and imaginary direction of each
    element: the convention's gradient, from TensorFlow's forward values alone."""

    def projected(at: list[np.ndarray]) -> float:
        y = fn(tf, *[tf.constant(a) for a in at]).numpy()
        return float(np.real(np.sum(np.conj(c) * y)))

    out = []
    for k, x in enumerate(xs):
        numeric = np.zeros_like(x)
        steps = [h, 1j * h] if x.dtype.kind == "c" else [h]
        for idx in np.ndindex(*x.shape):
            for step in steps:
                plus = [a.copy() for a in xs]
                minus = [a.copy() for a in xs]
                plus[k][idx] += step
                minus[k][idx] -= step
                numeric[idx] += (projected(plus) - projected(minus)) / (2 * h) * (step / h)
        out.append(numeric)
    return out


def jacobians(fn: Any, xs: list[np.ndarray], pfor: bool) -> list[Any]:
    ts = [tf.constant(x) for x in xs]
    # Persistent: without pfor, TensorFlow calls gradient once per row.
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(ts)
        y = fn(tf, *ts)
    return tape.jacobian(y, ts, experimental_use_pfor=pfor)


def main() -> None:
    out: dict[str, np.ndarray] = {}
    notes: list[str] = []
    for name, (fn, xs) in CASES.items():
        for k, x in enumerate(xs):
            out[f"{name}/x{k}"] = x
        y, grads = gradients(fn, xs)
        value = y.numpy()
        out[f"{name}/value"] = value
        c = like(value.shape, value.dtype)
        out[f"{name}/c"] = c
        _, grads_c = gradients(fn, xs, tf.constant(c))
        for k, (g, gc) in enumerate(zip(grads, grads_c)):
            if g is not None:
                out[f"{name}/grad{k}"] = g.numpy()
            if gc is not None:
                out[f"{name}/grad_c{k}"] = gc.numpy()
        if f"{name}/grad" in TF_DEVIATIONS:
            for seed, key in ((np.ones_like(value), "grad_fd"), (c, "grad_c_fd")):
                for k, fd in enumerate(first_order_by_differences(fn, xs, seed)):
                    out[f"{name}/{key}{k}"] = fd
        if name in SECOND_ORDER:
            vs = [like(x.shape, x.dtype) for x in xs]
            for k, (v, h) in enumerate(zip(vs, second_order(fn, xs, c, vs))):
                out[f"{name}/v{k}"] = v
                if h is not None:
                    out[f"{name}/second{k}"] = h.numpy()
            for k, fd in enumerate(second_order_by_differences(fn, xs, c, vs)):
                out[f"{name}/second_fd{k}"] = fd
        if name in JACOBIAN:
            for pfor, key in ((True, "jac"), (False, "jac_nopfor")):
                try:
                    js = jacobians(fn, xs, pfor)
                except Exception as e:  # noqa: BLE001 - TF fails some of these; say which
                    notes.append(
                        f"{name}: jacobian(experimental_use_pfor={pfor}) fails in TF: {e!r:.300}"
                    )
                    continue
                for k, j in enumerate(js):
                    if j is not None:
                        out[f"{name}/{key}{k}"] = j.numpy()
        if name in COMPLEX64:
            low = [x.astype(np.complex64 if x.dtype.kind == "c" else np.float32) for x in xs]
            c64 = c.astype(np.complex64 if c.dtype.kind == "c" else np.float32)
            y64, g64 = gradients(fn, low, tf.constant(c64))
            out[f"{name}/c64/value"] = y64.numpy()
            for k, g in enumerate(g64):
                if g is not None:
                    out[f"{name}/c64/grad_c{k}"] = g.numpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "complex.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
