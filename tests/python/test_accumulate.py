"""Gradient accumulation reuses buffers nothing else holds: the sums must be right and no
array or tensor the caller holds may change (sizes above the 4 inline elements)."""

import numpy as np
import rustape as rt


def test_fan_out_gradient_and_untouched_seed():
    x = rt.constant(np.linspace(-1.0, 1.0, 1000))
    seed_np = np.linspace(0.5, 1.5, 1000)
    seed = rt.constant(seed_np)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x + x * 2.0 + rt.sin(x)
    g = tape.gradient(y, x, output_gradients=seed)
    np.testing.assert_allclose(g.numpy(), seed_np * (3.0 + np.cos(x.numpy())), rtol=1e-12)
    np.testing.assert_array_equal(seed.numpy(), seed_np)
    # y = x + x hands the seed to both operands unchanged: the sum is a new tensor.
    with rt.GradientTape() as t2:
        t2.watch(x)
        z = x + x
    g2 = t2.gradient(z, x, output_gradients=seed)
    np.testing.assert_array_equal(g2.numpy(), 2.0 * seed_np)
    np.testing.assert_array_equal(seed.numpy(), seed_np)
    # The persistent tape gives the same gradient again.
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=seed).numpy(), g.numpy())


def test_variable_read_several_times():
    w = rt.Variable(np.full((8, 8), 0.5))
    with rt.GradientTape() as tape:
        h = rt.constant(np.ones((2, 8)))
        for _ in range(5):
            h = rt.matmul(h, w)
        loss = rt.reduce_sum(h)
    g = tape.gradient(loss, w)
    # h_k = 4^k * ones (each matmul with 0.5s multiplies by 8 * 0.5), so
    # d sum(h_5) / dW = sum_k h_{k-1}^T (ones @ (W^T)^{5-k}) = 2 * 5 * 4^4 in every entry.
    np.testing.assert_allclose(g.numpy(), np.full((8, 8), 2 * 5 * 4.0**4), rtol=1e-12)
    np.testing.assert_array_equal(w.numpy(), np.full((8, 8), 0.5))
