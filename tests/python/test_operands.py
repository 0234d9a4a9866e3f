"""Python numbers as operands become shared 0-d constants (no allocation per use). They must
never be confused with a tensor the user made and watches, nor change a number."""

import numpy as np
import rustape as rt


def test_number_operand_is_not_the_users_constant():
    x = rt.constant(3.0)
    c = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, c])
        y = x * 2.0  # the 2.0 here is not `c`
        z = c * c
    assert tape.gradient(y, c) is None
    assert float(tape.gradient(y, x)) == 2.0
    assert float(tape.gradient(z, c)) == 4.0


def test_repeated_operands_give_the_same_numbers_in_a_loop():
    s = rt.constant(np.ones(4, np.float32))
    expect = np.ones(4, np.float32)
    with rt.GradientTape() as tape:
        tape.watch(s)
        y = s
        for _ in range(50):
            y = y * 0.99999 + 1e-6
            y = 2 * y - 1
    for _ in range(50):
        expect = np.float32(2) * (expect * np.float32(0.99999) + np.float32(1e-6)) - np.float32(1)
    np.testing.assert_array_equal(y.numpy(), expect)  # float32 arithmetic, the same rounding
    np.testing.assert_allclose(
        tape.gradient(y, s).numpy(), np.full(4, (2 * 0.99999) ** 50), rtol=1e-4
    )


def test_number_operands_take_the_tensors_dtype():
    for dtype in (rt.float32, rt.float64, rt.int32, rt.int64):
        t = rt.constant([1, 2], dtype=dtype)
        assert (t * 3).dtype == dtype
        assert (3 + t).dtype == dtype
    assert (rt.constant([1.5], rt.float64) * 0.1).numpy()[0] == 1.5 * 0.1
    assert (rt.constant([1.5], rt.float32) * 0.1).numpy()[0] == np.float32(1.5) * np.float32(0.1)
    big = 2**40 + 1
    assert (rt.constant([1], rt.int64) * big).numpy()[0] == big


def test_broadcasts_that_repeat_a_block_match_numpy():
    # One operand repeats along the other's leading axes (bias adds, [B,64,1] * [64,1]): a
    # dedicated loop, checked bit for bit against NumPy in both operand orders.
    rng = np.random.default_rng(1)
    cases = [
        ((3, 4), (4,)),
        ((2, 3, 1), (3, 1)),
        ((2, 0, 3), (3,)),
        ((5, 1), (1,)),
        ((4,), (1, 4)),
        ((2, 3), (1, 3)),
        ((2, 3), (2, 1)),
        ((256, 512), (512,)),
    ]
    for sa, sb in cases:
        a = rng.random(sa).astype(np.float32)
        b = rng.random(sb).astype(np.float32)
        np.testing.assert_array_equal((rt.constant(a) - rt.constant(b)).numpy(), a - b)
        np.testing.assert_array_equal((rt.constant(b) - rt.constant(a)).numpy(), b - a)
        np.testing.assert_array_equal((rt.constant(a) * rt.constant(b)).numpy(), a * b)
