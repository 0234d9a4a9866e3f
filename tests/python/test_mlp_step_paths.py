"""The MLP step's own kernel paths: a narrow weight gradient written column-major, a bias add
split across threads, and the whole step's gradients the same bits on one and two threads.

A dense layer with few outputs (512 -> 10) has a weight gradient `h^T @ dy` only 10 columns
wide, which the GEMM computes into a column-major scratch and copies: each element must be the
same sum in the same order as the product computed the other way round. A bias `[n]` added to
`[rows, n]` runs in chunks on both threads, chunks that start inside a repetition of the bias.
"""

from __future__ import annotations

import os
import textwrap

import numpy as np
import pytest
import rustape as rt
from conftest import arrays_from_child


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows,k,cols", [(512, 256, 10), (300, 512, 3), (784, 100, 16)])
def test_a_narrow_weight_gradient_is_the_turned_product_bit_for_bit(
    dtype: type, rows: int, k: int, cols: int
) -> None:
    rng = np.random.default_rng(rows + k + cols)
    h = rng.standard_normal((k, rows)).astype(dtype)
    dy = rng.standard_normal((k, cols)).astype(dtype)
    got = rt.matmul(rt.constant(h), rt.constant(dy), transpose_a=True).numpy()
    turned = rt.matmul(rt.constant(dy), rt.constant(h), transpose_a=True).numpy()
    assert got.shape == (rows, cols) and got.dtype == dtype
    # The same sums in the same order: identical to the transposed output of the turned
    # product (a row-major output the GEMM walks along its long side).
    assert np.array_equal(got, turned.T)
    ref = h.astype(np.float64).T @ dy.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("shape", [(257, 515), (1024, 333), (512, 512), (3, 7)])
def test_a_bias_added_to_rows_is_numpys_sum_in_either_order(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(shape[1])
    x = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape[1:]).astype(np.float32)
    xt, bt = rt.constant(x), rt.constant(b)
    assert np.array_equal((xt + bt).numpy(), x + b)
    # The repeating operand on the left: the arguments keep their order.
    assert np.array_equal((bt - xt).numpy(), b - x)
    assert np.array_equal(rt.subtract(xt, bt).numpy(), x - b)


STEP = textwrap.dedent(
    """
    import sys
    import numpy as np
    import rustape as rt

    rng = np.random.default_rng(1)
    sizes = [784, 512, 512, 10]
    vs = []
    for a, b in zip(sizes, sizes[1:]):
        vs += [rt.Variable((rng.standard_normal((a, b)) * (2.0 / a) ** 0.5).astype(np.float32)),
               rt.Variable((rng.standard_normal(b) * 0.1).astype(np.float32))]
    x = rng.standard_normal((256, 784)).astype(np.float32)
    yt = rng.standard_normal((256, 10)).astype(np.float32)
    out = []
    for _ in range(3):
        with rt.GradientTape() as t:
            h = x
            for i in range(0, 6, 2):
                h = rt.matmul(h, vs[i]) + vs[i + 1]
                if i < 4:
                    h = rt.nn.relu(h)
            loss = rt.reduce_mean(rt.square(h - yt))
        out = [g.numpy() for g in t.gradient(loss, vs)] + [loss.numpy()]
    np.savez(sys.argv[1], *out)
    """
)


def test_the_mlp_steps_gradients_have_the_same_bits_on_one_and_two_threads(
    tmp_path: object,
) -> None:
    one = arrays_from_child(STEP, 1, os.path.join(str(tmp_path), "one.npz"))
    two = arrays_from_child(STEP, 2, os.path.join(str(tmp_path), "two.npz"))
    assert [g.shape for g in one[:6]] == [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
    for k, (a, b) in enumerate(zip(one, two)):
        assert np.array_equal(a, b), f"array {k} differs between 1 and 2 threads"
        assert np.all(np.isfinite(a)) and np.any(a != 0), f"array {k}"
