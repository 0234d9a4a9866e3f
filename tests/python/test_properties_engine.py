"""Property tests (hypothesis) of the engine's core against NumPy: broadcasting arithmetic,
reductions (float32 sums within a pairwise bound), slicing with any index expression, shape
ops and matmul, forward values and gradients. About 10,000 generated cases, derandomized so
CI sees the same ones every run; each case is a few small ops."""

from __future__ import annotations

from typing import Any

import numpy as np
import rustape as rt
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


def fast(examples: int) -> Any:
    """`examples` derandomized cases, no deadline (the machine may be busy), no database."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None)


small_floats = st.floats(-3.0, 3.0, allow_subnormal=False)
side = {"min_side": 0, "max_side": 4}


def values(draw: Any, shape: Any, dtype: Any = np.float64, integers: bool = False) -> Any:
    """An array of `shape`: hypothesis draws the seed, NumPy the values (much faster than
    drawing every element)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if integers or np.dtype(dtype).kind == "i":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.uniform(-3.0, 3.0, size=shape).astype(dtype)


def tensor_and_array(draw: Any, shape: Any, dtype: Any = np.float64, integers: bool = False) -> Any:
    a = values(draw, shape, dtype, integers)
    return rt.constant(a), a


# -- broadcasting ---------------------------------------------------------------------------

BINARY = {
    "add": (rt.add, np.add),
    "subtract": (rt.subtract, np.subtract),
    "multiply": (rt.multiply, np.multiply),
    "maximum": (rt.maximum, np.maximum),
    "minimum": (rt.minimum, np.minimum),
    "equal": (rt.equal, np.equal),
    "less": (rt.less, np.less),
    "greater_equal": (rt.greater_equal, np.greater_equal),
}


@fast(2000)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, **side),
    op=st.sampled_from(sorted(BINARY)),
    dtype=st.sampled_from([np.float64, np.float32, np.int32, np.int64]),
    data=st.data(),
)
def test_broadcasting_matches_numpy(shapes: Any, op: str, dtype: Any, data: Any) -> None:
    a = values(data.draw, shapes.input_shapes[0], dtype, integers=data.draw(st.booleans()))
    b = values(data.draw, shapes.input_shapes[1], dtype, integers=data.draw(st.booleans()))
    ours, theirs = BINARY[op]
    got = ours(rt.constant(a), rt.constant(b)).numpy()
    want = theirs(a, b)
    assert got.shape == want.shape == shapes.result_shape
    np.testing.assert_array_equal(got, want)


@fast(1000)
@given(
    shapes=hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3
    ),
    data=st.data(),
)
def test_broadcast_gradients_sum_back(shapes: Any, data: Any) -> None:
    (sa, sb), out = shapes.input_shapes, shapes.result_shape
    ta, a = tensor_and_array(data.draw, sa)
    tb, b = tensor_and_array(data.draw, sb)
    w = values(data.draw, out)
    with rt.GradientTape() as tape:
        tape.watch([ta, tb])
        y = rt.multiply(ta, tb) + ta
    ga, gb = tape.gradient(y, [ta, tb], output_gradients=rt.constant(w))
    ab, bb = np.broadcast_arrays(a, b)
    np.testing.assert_allclose(ga.numpy(), _sum_to(w * (bb + 1.0), sa), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), _sum_to(w * ab, sb), rtol=1e-12, atol=1e-12)


def _sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, d in enumerate(shape):
        if d == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


# -- reductions -----------------------------------------------------------------------------

REDUCTIONS = {
    "reduce_sum": (rt.reduce_sum, np.sum),
    "reduce_mean": (rt.reduce_mean, np.mean),
    "reduce_max": (rt.reduce_max, np.max),
    "reduce_min": (rt.reduce_min, np.min),
    "reduce_prod": (rt.reduce_prod, np.prod),
}


@st.composite
def reduction_case(draw: Any) -> Any:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, **side))
    axes = draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True, max_size=len(shape)))
    axes = [a - len(shape) if draw(st.booleans()) else a for a in axes] if shape else []
    return shape, axes or None, draw(st.booleans())


@fast(2000)
@given(case=reduction_case(), op=st.sampled_from(sorted(REDUCTIONS)), data=st.data())
def test_reductions_match_numpy(case: Any, op: str, data: Any) -> None:
    shape, axes, keepdims = case
    ours, theirs = REDUCTIONS[op]
    t, a = tensor_and_array(data.draw, shape)
    np_axes = None if axes is None else tuple(axes)
    empty = a.size == 0 or (axes is not None and any(shape[ax] == 0 for ax in axes))
    if op in ("reduce_max", "reduce_min") and empty:
        # Empty max/min: TensorFlow's identities (-inf / +inf), where NumPy raises.
        expected = np.full(
            np.sum(a, axis=np_axes, keepdims=keepdims).shape,
            -np.inf if op == "reduce_max" else np.inf,
        )
    elif op == "reduce_mean" and empty:
        expected = np.full(np.sum(a, axis=np_axes, keepdims=keepdims).shape, np.nan)
    else:
        expected = theirs(a, axis=np_axes, keepdims=keepdims)
    got = ours(t, axis=axes, keepdims=keepdims).numpy()
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@fast(300)
@given(n=st.integers(1, 200_000), data=st.data())
def test_float32_sums_are_within_the_pairwise_bound(n: int, data: Any) -> None:
    seed = data.draw(st.integers(0, 2**32 - 1))
    values = np.random.default_rng(seed).uniform(0.0, 1.0, size=n).astype(np.float32)
    exact = float(np.sum(values, dtype=np.float64))
    got = float(rt.reduce_sum(values))
    # Pairwise summation: error below (16 + log2(n)) roundings of the sum; sequential would
    # need n roundings.
    bound = (16 + np.log2(n) + 4) * np.finfo(np.float32).eps * exact
    assert abs(got - exact) <= bound


@fast(500)
@given(case=reduction_case(), data=st.data())
def test_argmax_argmin_match_numpy_without_nan(case: Any, data: Any) -> None:
    shape, _, _ = case
    if not shape or 0 in shape:
        return
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    t, a = tensor_and_array(data.draw, shape, integers=True)
    np.testing.assert_array_equal(rt.argmax(t, axis=axis).numpy(), np.argmax(a, axis=axis))
    np.testing.assert_array_equal(rt.argmin(t, axis=axis).numpy(), np.argmin(a, axis=axis))


# -- slicing --------------------------------------------------------------------------------


def axis_item(draw: Any, size: int) -> Any:
    if size and draw(st.booleans()):
        return draw(st.integers(-size, size - 1))
    bound = st.one_of(st.none(), st.integers(-6, 6), st.sampled_from([2**70, -(2**70)]))
    step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(bool), st.just(2**70)))
    return slice(draw(bound), draw(bound), step)


@st.composite
def index_expression(draw: Any, shape: tuple[int, ...]) -> Any:
    """Items for some leading axes, optionally `...` and items for some trailing axes, with
    `None` (new axes) anywhere."""
    n = len(shape)
    front = draw(st.integers(0, n))
    ellipsis = draw(st.booleans())
    back = draw(st.integers(0, n - front)) if ellipsis else 0
    items: list[Any] = [axis_item(draw, shape[i]) for i in range(front)]
    if ellipsis:
        items.append(Ellipsis)
    items += [axis_item(draw, shape[i]) for i in range(n - back, n)]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(items)


@fast(2000)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, **side), data=st.data())
def test_slicing_matches_numpy_and_its_gradient_scatters(shape: Any, data: Any) -> None:
    t, a = tensor_and_array(data.draw, shape)
    index = data.draw(index_expression(shape))
    want = a[index]
    with rt.GradientTape() as tape:
        tape.watch(t)
        got = t[index]
    np.testing.assert_array_equal(got.numpy(), want)
    g = tape.gradient(got, t, unconnected_gradients="zero").numpy()
    expected = np.zeros_like(a)
    np.add.at(expected, index, 1.0) if want.size else None
    np.testing.assert_array_equal(g, expected)


# -- shapes ---------------------------------------------------------------------------------


@fast(1200)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, **side), data=st.data())
def test_shape_ops_match_numpy(shape: Any, data: Any) -> None:
    t, a = tensor_and_array(data.draw, shape)
    n = len(shape)
    perm = data.draw(st.permutations(list(range(n))))
    np.testing.assert_array_equal(rt.transpose(t, perm).numpy(), np.transpose(a, perm))
    flat = rt.reshape(t, [-1]) if a.size or n == 0 else rt.reshape(t, [0])
    np.testing.assert_array_equal(flat.numpy(), a.reshape(-1))
    axis = data.draw(st.integers(-(n + 1), n))
    np.testing.assert_array_equal(rt.expand_dims(t, axis).numpy(), np.expand_dims(a, axis))
    multiples = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    np.testing.assert_array_equal(rt.tile(t, multiples).numpy(), np.tile(a, multiples) if n else a)
    if n:
        pads = data.draw(
            st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=n, max_size=n)
        )
        np.testing.assert_array_equal(rt.pad(t, [list(p) for p in pads]).numpy(), np.pad(a, pads))
        axis = data.draw(st.integers(-n, n - 1))
        np.testing.assert_array_equal(rt.concat([t, t], axis).numpy(), np.concatenate([a, a], axis))
        np.testing.assert_array_equal(rt.stack([t, t], axis).numpy(), np.stack([a, a], axis))


@fast(600)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3), data=st.data())
def test_shape_op_gradients_route_every_element(shape: Any, data: Any) -> None:
    t, _ = tensor_and_array(data.draw, shape)
    n = len(shape)
    multiples = data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    perm = data.draw(st.permutations(list(range(n))))
    with rt.GradientTape() as tape:
        tape.watch(t)
        y = rt.transpose(rt.tile(t, multiples), perm)
    w = values(data.draw, tuple(y.shape))
    g = tape.gradient(y, t, output_gradients=rt.constant(w)).numpy()
    back = np.transpose(w, np.argsort(perm))
    expected = back.reshape([m for pair in zip(multiples, shape) for m in pair]).sum(
        axis=tuple(range(0, 2 * n, 2))
    )
    np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-12)


# -- matmul ---------------------------------------------------------------------------------


@fast(1500)
@given(
    batch=hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3
    ),
    m=st.integers(0, 4),
    k=st.integers(0, 4),
    n=st.integers(0, 4),
    ta=st.booleans(),
    tb=st.booleans(),
    data=st.data(),
)
def test_matmul_matches_numpy_with_its_gradients(
    batch: Any, m: int, k: int, n: int, ta: bool, tb: bool, data: Any
) -> None:
    (ba, bb), out = batch.input_shapes, batch.result_shape
    sa = ba + ((k, m) if ta else (m, k))
    sb = bb + ((n, k) if tb else (k, n))
    xa, a = tensor_and_array(data.draw, sa)
    xb, b = tensor_and_array(data.draw, sb)
    with rt.GradientTape() as tape:
        tape.watch([xa, xb])
        y = rt.matmul(xa, xb, transpose_a=ta, transpose_b=tb)
    a2 = np.swapaxes(a, -1, -2) if ta else a
    b2 = np.swapaxes(b, -1, -2) if tb else b
    want = np.matmul(a2, b2)
    assert y.shape == want.shape == out + (m, n)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
    w = values(data.draw, want.shape)
    ga, gb = tape.gradient(
        y, [xa, xb], output_gradients=rt.constant(w), unconnected_gradients="zero"
    )
    da = np.matmul(w, np.swapaxes(b2, -1, -2))
    db = np.matmul(np.swapaxes(a2, -1, -2), w)
    da = _sum_batch(np.swapaxes(da, -1, -2) if ta else da, sa)
    db = _sum_batch(np.swapaxes(db, -1, -2) if tb else db, sb)
    np.testing.assert_allclose(ga.numpy(), da, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), db, rtol=1e-12, atol=1e-12)


def _sum_batch(g: Any, shape: tuple[int, ...]) -> Any:
    """Sums a batched gradient back to an operand's (broadcast) batch shape."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, d in enumerate(shape[:-2]):
        if d == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g
