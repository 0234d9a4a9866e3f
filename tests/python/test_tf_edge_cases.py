"""Gradients at the points where TensorFlow's registered gradients make a choice (ties, kinks,
zeros, large values): rustape must give TensorFlow's numbers there too."""

import numpy as np
import pytest
import rustape as rt
from conftest import f64


def grad(f, *xs, mode="none"):
    ts = [f64(x) for x in xs]
    with rt.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    g = tape.gradient(y, ts, unconnected_gradients=mode)
    return [None if gi is None else gi.numpy() for gi in g]


def test_reduce_max_ties_share_the_gradient():
    # TF: grad * (x == max) / count(x == max)
    np.testing.assert_allclose(grad(rt.reduce_max, [1.0, 3.0, 3.0])[0], [0.0, 0.5, 0.5])
    np.testing.assert_allclose(
        grad(rt.reduce_min, [2.0, 2.0, 3.0, 2.0])[0], [1 / 3, 1 / 3, 0.0, 1 / 3]
    )
    np.testing.assert_allclose(
        grad(lambda x: rt.reduce_max(x, axis=1), [[1.0, 1.0], [0.0, 2.0]])[0],
        [[0.5, 0.5], [0.0, 1.0]],
    )


def test_maximum_minimum_ties_go_to_the_first_argument():
    ga, gb = grad(rt.maximum, [1.0, 2.0], [1.0, 3.0])
    np.testing.assert_array_equal(ga, [1.0, 0.0])
    np.testing.assert_array_equal(gb, [0.0, 1.0])
    ga, gb = grad(rt.minimum, [1.0, 2.0], [1.0, 3.0])
    np.testing.assert_array_equal(ga, [1.0, 1.0])
    np.testing.assert_array_equal(gb, [0.0, 0.0])


def test_kinks_at_zero():
    np.testing.assert_array_equal(grad(rt.nn.relu, [0.0, -1.0, 1.0])[0], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(grad(rt.abs, [0.0, -1.0, 1.0])[0], [0.0, -1.0, 1.0])
    np.testing.assert_allclose(grad(rt.nn.elu, [0.0, -1.0, 1.0])[0], [1.0, np.exp(-1.0), 1.0])


def test_clip_by_value_boundaries_pass_the_gradient():
    # TF masks x < min and x > max only: the boundaries themselves get the gradient.
    g = grad(lambda x: rt.clip_by_value(x, -1.0, 1.0), [-1.0, 1.0, -2.0, 2.0, 0.5])[0]
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.0, 0.0, 1.0])


def test_pow_at_zero_base_has_no_nan():
    # TF: d/dy x**y uses log(x) only where x > 0 (0 elsewhere); d/dx = y * x**(y-1).
    gx, gy = grad(rt.pow, [0.0, 2.0], [2.0, 3.0])
    np.testing.assert_allclose(gx, [0.0, 12.0])
    np.testing.assert_allclose(gy, [0.0, 8.0 * np.log(2.0)])


def test_reduce_prod_with_a_zero():
    # No division by the zero: d prod / d x0 = 2 * 3
    np.testing.assert_allclose(grad(rt.reduce_prod, [0.0, 2.0, 3.0])[0], [6.0, 0.0, 0.0])
    np.testing.assert_allclose(grad(rt.reduce_prod, [0.0, 0.0, 3.0])[0], [0.0, 0.0, 0.0])


def test_large_values_are_stable():
    np.testing.assert_allclose(grad(rt.reduce_logsumexp, [1000.0, 1000.0])[0], [0.5, 0.5])
    x = f64([1000.0, 1000.0])
    assert float(rt.reduce_logsumexp(x)) == pytest.approx(1000.0 + np.log(2.0))
    # d sum(log_softmax(x)) / dx = 1 - n * softmax(x)
    np.testing.assert_allclose(
        grad(lambda x: rt.nn.log_softmax(x), [1000.0, 0.0])[0], [-1.0, 1.0], atol=1e-12
    )
    np.testing.assert_allclose(grad(rt.nn.softplus, [1000.0, -1000.0])[0], [1.0, 0.0])
    np.testing.assert_allclose(grad(rt.sigmoid, [1000.0, -1000.0])[0], [0.0, 0.0])
    assert np.all(np.isfinite(rt.nn.softmax(f64([1000.0, 0.0])).numpy()))


def test_sign_round_floor():
    assert grad(rt.sign, [1.5], mode="zero")[0].tolist() == [0.0]
    assert grad(rt.round, [1.5])[0] is None
    assert grad(rt.floor, [1.5])[0] is None


def test_integer_reductions_keep_the_integer_dtype():
    i = rt.constant([1, 2])
    assert rt.reduce_mean(i).dtype == rt.int32
    assert int(rt.reduce_mean(i)) == 1  # integer mean, as TF
    assert rt.reduce_sum(i).dtype == rt.int32


def test_clip_by_norm_gradient_when_clipped():
    # y = x * c / ||x|| for ||x|| > c: the gradient of sum(y) is c/||x|| (1 - x sum(x)/||x||^2)
    x = np.array([3.0, 4.0])
    g = grad(lambda t: rt.clip_by_norm(t, 1.0), x)[0]
    n = np.linalg.norm(x)
    np.testing.assert_allclose(g, (1.0 / n) * (np.ones(2) - x * x.sum() / n**2), rtol=1e-12)
