"""Property tests (hypothesis): gradients of broadcasting arithmetic have the inputs' shapes and
equal the analytic values (the broadcast reduced back with sums), for any compatible shapes."""

import numpy as np
import rustape as rt
from conftest import f64
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


def _sum_to(g, shape):
    """NumPy: reduce a broadcast gradient back to `shape`."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, d in enumerate(shape):
        if d == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


OPS = {
    # name: (rt op, d/da, d/db) given a, b broadcast and the upstream w
    "add": (rt.add, lambda a, b: np.ones_like(a + b), lambda a, b: np.ones_like(a + b)),
    "subtract": (rt.subtract, lambda a, b: np.ones_like(a + b), lambda a, b: -np.ones_like(a + b)),
    "multiply": (rt.multiply, lambda a, b: b + 0 * a, lambda a, b: a + 0 * b),
    "divide": (rt.divide, lambda a, b: 1 / b + 0 * a, lambda a, b: -a / (b * b)),
    "maximum": (
        rt.maximum,
        lambda a, b: (a >= b) + 0.0 * b,
        lambda a, b: (a < b) + 0.0 * a,
    ),  # TF: ties go to a
    "pow": (rt.pow, lambda a, b: b * a ** (b - 1), lambda a, b: np.log(a) * a**b),
}

shapes = hnp.mutually_broadcastable_shapes(
    num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3
)


@settings(max_examples=60, deadline=None)
@given(shapes=shapes, op=st.sampled_from(sorted(OPS)), data=st.data())
def test_broadcasting_gradients(shapes, op, data):
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    elems = st.floats(0.5, 2.0)
    a = data.draw(hnp.arrays(np.float64, sa, elements=elems))
    b = data.draw(hnp.arrays(np.float64, sb, elements=elems))
    if op == "maximum":
        b = b + 0.01  # keep a != b where they meet
    w = data.draw(hnp.arrays(np.float64, out_shape, elements=st.floats(-2.0, 2.0)))
    fn, da, db = OPS[op]
    ta, tb = f64(a), f64(b)
    with rt.GradientTape() as tape:
        tape.watch([ta, tb])
        y = fn(ta, tb)
        loss = rt.reduce_sum(y * f64(w))
    assert y.shape == out_shape
    ga, gb = tape.gradient(loss, [ta, tb])
    assert ga.shape == sa and gb.shape == sb
    ab, bb = np.broadcast_arrays(a, b)
    np.testing.assert_allclose(ga.numpy(), _sum_to(w * da(ab, bb), sa), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), _sum_to(w * db(ab, bb), sb), rtol=1e-10, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(shapes=shapes, data=st.data())
def test_python_operators_match_functions(shapes, data):
    (sa, sb), _ = shapes.input_shapes, shapes.result_shape
    a = data.draw(hnp.arrays(np.float32, sa, elements=st.floats(0.5, 2.0, width=32)))
    b = data.draw(hnp.arrays(np.float32, sb, elements=st.floats(0.5, 2.0, width=32)))
    ta, tb = rt.constant(a), rt.constant(b)
    np.testing.assert_allclose((ta + tb).numpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose((ta - tb).numpy(), a - b, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose((ta * tb).numpy(), a * b, rtol=1e-6)
    np.testing.assert_allclose((ta / tb).numpy(), a / b, rtol=1e-6)
    np.testing.assert_allclose((ta**tb).numpy(), a**b, rtol=1e-5)


@settings(max_examples=40, deadline=None)
@given(
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
        elements=st.floats(-2.0, 2.0),
    ),
    data=st.data(),
)
def test_reduce_sum_gradient_is_ones_for_any_axes(x, data):
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True, max_size=x.ndim))
    keepdims = data.draw(st.booleans())
    t = f64(x)
    with rt.GradientTape() as tape:
        tape.watch(t)
        y = rt.reduce_sum(t * t, axis=axes or None, keepdims=keepdims)
    np.testing.assert_allclose(tape.gradient(y, t).numpy(), 2 * x)
    np.testing.assert_allclose(
        y.numpy(), np.sum(x * x, axis=tuple(axes) or None, keepdims=keepdims)
    )
