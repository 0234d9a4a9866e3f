"""Integer and saturating ops against TensorFlow 2.21 and Keras 3 (tests/reference/
gen_int_ops.py): `rt.bitwise`, `rt.math.nextafter`, `rt.saturate_cast`, the segment products
and `keras.ops` `bitwise_*`, shifts, `gcd`, `lcm`, `nextafter`, `saturate_cast`,
`argpartition`, `segment_prod`; TensorFlow's gradients and float64 central differences; then
properties against NumPy on random inputs, the cases TensorFlow leaves undefined, and bad
input."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients
from hypothesis import given, settings
from hypothesis import strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_int_ops as gen

REF = np.load(os.path.join(HERE, "..", "reference", "int_ops.npz"), allow_pickle=False)


@pytest.mark.parametrize("i", range(len(gen.CASES)))
def test_matches_tensorflow(i: int) -> None:
    name, args, kwargs = gen.CASES[i]
    got = np.asarray(gen.call(rt, rt.keras.ops, name, args, kwargs))
    want = REF[f"{i}"]
    assert got.shape == want.shape, f"{name}: {got.shape} vs {want.shape}"
    assert got.dtype == want.dtype, f"{name}: {got.dtype} vs {want.dtype}"
    np.testing.assert_array_equal(got, want, err_msg=f"{name} {args}")


@pytest.mark.parametrize("i", range(len(gen.GRAD_CASES)))
def test_gradients_match_tensorflow(i: int) -> None:
    name, args, kwargs, wrt = gen.GRAD_CASES[i]
    tensors = [rt.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    with rt.GradientTape() as tape:
        for k in wrt:
            tape.watch(tensors[k])
        y = gen.call(rt, rt.keras.ops, name, tensors, kwargs)
        loss = rt.reduce_sum(y * rt.constant(gen.weights(tuple(y.shape)), dtype=y.dtype))
    grads = tape.gradient(loss, [tensors[k] for k in wrt])
    rtol = 1e-6 if y.dtype == rt.float32 else 1e-13
    np.testing.assert_allclose(y.numpy(), REF[f"g{i}/value"], rtol=rtol, err_msg=name)
    for k, g in zip(wrt, grads):
        np.testing.assert_allclose(g.numpy(), REF[f"g{i}/{k}"], rtol=rtol, err_msg=f"{name} d{k}")


def test_segment_prod_finite_differences() -> None:
    ids = [0, 2, 0, 1, 2, 2]
    x = np.array([[0.5, -1.2], [1.3, 0.0], [-0.8, 0.9], [1.1, 1.4], [0.7, -0.6], [1.5, 0.4]])
    check_gradients(lambda t: rt.math.unsorted_segment_prod(t, ids, 3), [x])
    check_gradients(lambda t: rt.math.segment_prod(t, [0, 0, 1, 1, 1, 4]), [x])
    check_gradients(lambda t: rt.keras.ops.segment_prod(t, ids), [x])


def test_segment_prod_two_zeros_first_order() -> None:
    # A segment with two zeros: every first derivative is 0 (TensorFlow's case 3).
    x = rt.constant([0.0, 2.0, 0.0, 3.0], dtype=rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.math.unsorted_segment_prod(x, [0, 0, 0, 1], 2)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0, 0.0, 1.0])


def test_segment_prod_vectorized_jacobian() -> None:
    x = rt.constant(np.array([[0.5, 2.0], [0.0, 1.5], [3.0, -1.0]]), dtype=rt.float64)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.math.unsorted_segment_prod(x, [1, 0, 1], 2)
    fast = tape.jacobian(y, x)
    slow = tape.jacobian(y, x, experimental_use_pfor=False)
    np.testing.assert_allclose(fast.numpy(), slow.numpy())
    assert fast.numpy()[0, 1, 1, 1] == 1.0 and fast.numpy()[1, 0, 0, 0] == 3.0


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=8),
    st.integers(-3, 40),
    st.sampled_from([np.int32, np.int64]),
)
def test_bitwise_is_numpys(values: list[int], count: int, dtype: type) -> None:
    x = np.array(values, dtype)
    y = x[::-1].copy()
    for op, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or)]:
        np.testing.assert_array_equal(getattr(rt.bitwise, op)(x, y).numpy(), ref(x, y))
    np.testing.assert_array_equal(rt.bitwise.bitwise_xor(x, y).numpy(), x ^ y)
    np.testing.assert_array_equal(rt.bitwise.invert(x).numpy(), ~x)
    bits = np.iinfo(dtype).bits
    c = np.clip(count, 0, bits - 1)
    shifted = (x.astype(np.uint64) << np.uint64(c)).astype(dtype)
    np.testing.assert_array_equal(rt.bitwise.left_shift(x, dtype(count)).numpy(), shifted)
    np.testing.assert_array_equal(rt.bitwise.right_shift(x, dtype(count)).numpy(), x >> c)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=8),
    st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=1),
)
def test_gcd_lcm_are_numpys(a: list[int], b: list[int]) -> None:
    x, y = np.array(a, np.int64), np.array(b, np.int64)
    np.testing.assert_array_equal(rt.keras.ops.gcd(x, y).numpy(), np.gcd(x, y))
    np.testing.assert_array_equal(rt.keras.ops.lcm(x, y).numpy(), np.lcm(x, y))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-5, 5, width=32), min_size=1, max_size=10),
    st.integers(0, 9),
)
def test_argpartition_partitions(values: list[float], kth: int) -> None:
    x = np.array(values, np.float32)
    kth = kth % len(x)
    got = rt.keras.ops.argpartition(x, kth).numpy()
    assert sorted(got.tolist()) == list(range(len(x)))
    part = x[got]
    assert part[kth] == np.sort(x)[kth]
    assert np.all(part[:kth] <= part[kth]) and np.all(part[kth + 1 :] >= part[kth])


def test_argpartition_along_each_axis() -> None:
    # Rank 2 along either axis (Keras's TensorFlow backend repeats positions there).
    x = np.random.default_rng(3).permutation(12).reshape(3, 4).astype(np.float64)
    for axis, kth in [(-1, 1), (0, 1), (1, 3), (0, 0)]:
        got = rt.keras.ops.argpartition(x, kth, axis=axis).numpy()
        part = np.take_along_axis(x, got, axis=axis)
        np.testing.assert_array_equal(
            np.sort(got, axis=axis), np.sort(np.argsort(x, axis=axis), axis=axis)
        )
        kth_values = np.take(np.sort(x, axis=axis), [kth], axis=axis)
        np.testing.assert_array_equal(np.take(part, [kth], axis=axis), kth_values)
        n = x.shape[axis]
        assert np.all(np.take(part, range(kth), axis=axis) <= kth_values)
        assert np.all(np.take(part, range(kth + 1, n), axis=axis) >= kth_values)


def test_keras_saturate_cast_where_keras_is_undefined() -> None:
    # float32 to int32 at 2^31 - 1 and above: the largest float32 below 2^31 (as TensorFlow).
    top = np.array([2147483647.0, 3e9, np.inf], np.float32)
    np.testing.assert_array_equal(
        rt.keras.ops.saturate_cast(top, "int32").numpy(), [2147483520] * 3
    )
    # int32 into floats: nothing to clamp (Keras's bound overflows and clamps everything).
    x = np.array([-(2**31), -300, 0, 255, 2**31 - 1], np.int32)
    for dtype in ("float32", "float64", "complex64", "complex128"):
        np.testing.assert_array_equal(
            rt.keras.ops.saturate_cast(x, dtype).numpy(), x.astype(dtype), err_msg=dtype
        )


def test_nextafter_steps_one_ulp() -> None:
    x = rt.constant([1.0, -0.0, 1e-300], dtype=rt.float64)
    np.testing.assert_array_equal(
        rt.math.nextafter(x, rt.constant(np.inf, dtype=rt.float64)).numpy(),
        np.nextafter(x.numpy(), np.inf),
    )
    f = rt.constant([1.0, 0.0], dtype=rt.float32)
    np.testing.assert_array_equal(
        rt.math.nextafter(f, -2.0).numpy(), np.nextafter(f.numpy(), np.float32(-2.0))
    )


def test_saturate_cast_where_tensorflow_is_undefined() -> None:
    # int64 inputs (TensorFlow's wrapper overflows computing the bounds): clamp to the range.
    x = np.array([-(2**63), -(2**40), -1, 0, 2**40, 2**63 - 1], np.int64)
    np.testing.assert_array_equal(rt.saturate_cast(x, rt.int64).numpy(), x)
    np.testing.assert_array_equal(
        rt.saturate_cast(x, rt.int32).numpy(), np.clip(x, -(2**31), 2**31 - 1).astype(np.int32)
    )
    np.testing.assert_array_equal(rt.saturate_cast(x, rt.float32).numpy(), x.astype(np.float32))
    # Floats at 2^63 clamp to the largest float below it (TensorFlow leaves it to the cast).
    big = np.array([9.3e18, np.inf, -np.inf], np.float64)
    np.testing.assert_array_equal(
        rt.saturate_cast(big, rt.int64).numpy(), [2**63 - 1024, 2**63 - 1024, -(2**63)]
    )
    np.testing.assert_array_equal(
        rt.saturate_cast(big.astype(np.float32), rt.int64).numpy(),
        [2**63 - 2**39, 2**63 - 2**39, -(2**63)],
    )
    # NaN into an integer is 0, as rt.cast converts it.
    assert rt.saturate_cast(np.array([np.nan], np.float32), rt.int32).numpy().tolist() == [0]


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="bitwise_and"):
        rt.bitwise.bitwise_and([1.0], [2.0])
    with pytest.raises(TypeError, match="left_shift"):
        rt.bitwise.left_shift(rt.constant([1], rt.int32), rt.constant([1], rt.int64))
    with pytest.raises(ValueError, match="bitwise_or"):
        rt.bitwise.bitwise_or([1, 2, 3], [1, 2])
    with pytest.raises(TypeError, match="invert"):
        rt.bitwise.invert([True])
    with pytest.raises(TypeError, match="gcd"):
        rt.keras.ops.gcd([1.5], [2])
    with pytest.raises(TypeError, match="nextafter"):
        rt.math.nextafter([1, 2], [3, 4])
    with pytest.raises(TypeError, match="saturate_cast"):
        rt.saturate_cast([1.0], rt.bool)
    with pytest.raises(ValueError, match="kth"):
        rt.keras.ops.argpartition([1, 2, 3], 3)
    with pytest.raises(ValueError, match="argpartition"):
        rt.keras.ops.argpartition(5, 0)
    with pytest.raises(ValueError, match="sorted"):
        rt.math.segment_prod([1.0, 2.0], [1, 0])
    with pytest.raises(ValueError, match="out of range"):
        rt.math.unsorted_segment_prod([1.0, 2.0], [0, 5], 2)
    with pytest.raises(ValueError, match="num_segments"):
        rt.keras.ops.segment_prod([1.0], [0], num_segments=1, sorted=True)
