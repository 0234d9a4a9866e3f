"""A recurrence's gradients give the same bits on one and on two threads.

An unrolled tanh RNN (as benches/workloads.py's W8) reads each weight at every step, so each
weight's gradient is a sum over the steps (`dU += h^T dz`, `dW += x^T dz`, `db`), added into a
running total; however a second thread takes part (splitting kernels, or running some of the
gradients), each sum must stay the same sum in the same order as on one thread. A child process
per thread count (the pool's size is read once); float64 also against hand-written BPTT.
"""

from __future__ import annotations

import os
import textwrap

import numpy as np
import pytest
from conftest import arrays_from_child

RNN = textwrap.dedent(
    """
    import sys
    import numpy as np
    import rustape as rt

    dtype = np.dtype(DTYPE)
    rng = np.random.default_rng(3)
    steps, batch, n_in, hidden = 20, 32, 24, 48
    xs = [rt.constant(rng.standard_normal((batch, n_in)).astype(dtype)) for _ in range(steps)]
    W = rt.Variable(rng.uniform(-0.3, 0.3, (n_in, hidden)).astype(dtype))
    U = rt.Variable(rng.uniform(-0.2, 0.2, (hidden, hidden)).astype(dtype))
    b = rt.Variable(rng.uniform(-0.1, 0.1, (hidden,)).astype(dtype))
    R = rt.Variable(rng.uniform(-0.2, 0.2, (hidden, 1)).astype(dtype))
    once = rt.Variable(rng.uniform(-0.2, 0.2, (hidden, hidden)).astype(dtype))
    h0 = rt.constant(rng.standard_normal((batch, hidden)).astype(dtype))

    def loss_of(h0):
        h, readout = h0, 0.0
        for x in xs:
            h = rt.math.tanh(rt.matmul(x, W) + rt.matmul(h, U) + b)
            readout = readout + rt.reduce_mean(rt.matmul(h, R))
        h = rt.matmul(h, once)
        return rt.reduce_mean(h * h) + readout / steps

    out = []
    for _ in range(3):  # again and again: the same bits every call
        with rt.GradientTape() as tape:
            tape.watch(h0)
            loss = loss_of(h0)
        out += [loss] + tape.gradient(loss, [W, U, b, R, once, h0])
    # A persistent tape (its plan kept) and a read of U that is itself asked for.
    with rt.GradientTape(persistent=True) as tape:
        loss = loss_of(h0)
    out += tape.gradient(loss, [W, U, b]) + tape.gradient(loss, [R, U])
    np.savez(sys.argv[1], *[np.asarray(t) for t in out])
    """
)


def run(threads: int, dtype: str, path: str) -> list[np.ndarray]:
    return arrays_from_child(RNN.replace("DTYPE", repr(dtype)), threads, path)


def numpy_bptt() -> list[np.ndarray]:
    """The float64 RNN's gradients by hand-written backpropagation (W, U, b, R, once, h0)."""
    rng = np.random.default_rng(3)
    steps, batch, n_in, hidden = 20, 32, 24, 48
    xs = [rng.standard_normal((batch, n_in)) for _ in range(steps)]
    W = rng.uniform(-0.3, 0.3, (n_in, hidden))
    U = rng.uniform(-0.2, 0.2, (hidden, hidden))
    b = rng.uniform(-0.1, 0.1, (hidden,))
    R = rng.uniform(-0.2, 0.2, (hidden, 1))
    once = rng.uniform(-0.2, 0.2, (hidden, hidden))
    h0 = rng.standard_normal((batch, hidden))
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ W + hs[-1] @ U + b))
    last = hs[-1] @ once
    d_last = 2 * last / last.size
    g_once = hs[-1].T @ d_last
    dh = d_last @ once.T
    gW, gU, gb, gR = (np.zeros_like(W), np.zeros_like(U), np.zeros_like(b), np.zeros_like(R))
    d_read = np.full((batch, 1), 1.0 / (batch * steps))
    for t in range(steps, 0, -1):
        dh = dh + d_read @ R.T
        gR += hs[t].T @ d_read
        dz = dh * (1 - hs[t] ** 2)
        gW += xs[t - 1].T @ dz
        gU += hs[t - 1].T @ dz
        gb += dz.sum(0)
        dh = dz @ U.T
    return [gW, gU, gb, gR, g_once, dh]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnn_gradients_have_the_same_bits_on_one_and_two_threads(
    tmp_path: object, dtype: str
) -> None:
    one = run(1, dtype, os.path.join(str(tmp_path), "one.npz"))
    two = run(2, dtype, os.path.join(str(tmp_path), "two.npz"))
    assert len(one) == len(two) == 3 * 7 + 5
    assert [a.shape for a in one[:7]] == [
        (),
        (24, 48),
        (48, 48),
        (48,),
        (48, 1),
        (48, 48),
        (32, 48),
    ]
    for k, (a, b) in enumerate(zip(one, two)):
        assert a.dtype == np.dtype(dtype)
        assert np.all(np.isfinite(a)), f"array {k}"
        assert np.array_equal(a, b), f"array {k} differs between 1 and 2 threads"
    # Every call the same bits; the persistent tape's gradients the same as a released one's.
    for k in range(7):
        assert np.array_equal(two[k], two[7 + k]) and np.array_equal(two[k], two[14 + k])
    for got, want in zip(two[21:], [two[1], two[2], two[3], two[4], two[2]]):
        assert np.array_equal(got, want)
    if dtype == "float64":
        for k, want in enumerate(numpy_bptt()):
            np.testing.assert_allclose(two[1 + k], want, rtol=1e-10, atol=1e-13, err_msg=str(k))
