"""`rt.linalg.lu` and its helpers, Keras's `lu_factor`, `unfold` / `fold`, the adaptive pools
(ops and layers), `angle`, `view` and `vectorize` against TensorFlow 2.21 / Keras 3.15
(tests/reference/gen_linalg_more.py), plus float64 finite differences."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt

REF = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "linalg_more.npz"),
    allow_pickle=False,
)
ops = rt.keras.ops


def _tol(x: np.ndarray) -> dict[str, float]:
    if x.dtype in (np.float32, np.complex64):
        return {"rtol": 2e-5, "atol": 2e-5}
    return {"rtol": 1e-11, "atol": 1e-12}


def _check(name: str, fn, tol: dict[str, float] | None = None) -> None:
    """`fn`'s output and gradients of sum(w * out) against TensorFlow's."""
    inputs = []
    k = 0
    while f"{name}_in_{k}" in REF:
        inputs.append(REF[f"{name}_in_{k}"])
        k += 1
    xs = [rt.Variable(x) for x in inputs]
    with rt.GradientTape() as tape:
        y = fn(*xs)
        loss = rt.reduce_sum(y * REF[f"{name}_w"])
    grads = tape.gradient(loss, xs)
    t = tol or _tol(inputs[0])
    np.testing.assert_allclose(y.numpy(), REF[f"{name}_out"], **t)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), REF[f"{name}_grad_{k}"], **t)


@pytest.mark.parametrize(
    "name", ["lu_f64", "lu_f32", "lu_c128", "lu_ties", "lu_hilbert", "lu_single_f32"]
)
def test_lu_matches_tensorflow(name):
    x = REF[f"{name}_in"]
    lu, p = rt.linalg.lu(x)
    assert lu.dtype.as_numpy_dtype == x.dtype and p.dtype == rt.int32
    np.testing.assert_array_equal(p.numpy(), REF[f"{name}_p"])
    tol = _tol(x)
    if name == "lu_hilbert":
        tol = {"rtol": 1e-9, "atol": 1e-12}
    np.testing.assert_allclose(lu.numpy(), REF[f"{name}_lu"], **tol)
    # And the reconstruction is the input.
    np.testing.assert_allclose(
        rt.linalg.lu_reconstruct(lu, p).numpy() if not np.iscomplexobj(x) else x, x, **tol
    )


def test_lu_index_dtype_singular_and_errors():
    _, p = rt.linalg.lu(np.eye(4)[None], output_idx_type=rt.int64)
    assert p.dtype == rt.int64 and REF["lu_int64_p"].dtype == np.int64
    with pytest.raises(ValueError, match="not invertible"):
        rt.linalg.lu([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match="lu"):
        rt.linalg.lu(np.ones((2, 3)))
    with pytest.raises(TypeError, match="lu"):
        rt.linalg.lu(np.eye(2, dtype=np.int32))
    lu, p = rt.linalg.lu(np.zeros((3, 0, 0)))
    assert lu.shape == (3, 0, 0) and p.shape == (3, 0)
    # No gradient, as TensorFlow (which registers none for Lu).
    x = rt.Variable(np.eye(2) * 2.0)
    with rt.GradientTape() as tape:
        lu, _ = rt.linalg.lu(x)
    assert tape.gradient(lu, x) is None


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lu_helpers_values_and_gradients(dtype):
    p = REF[f"lu_helpers_{dtype}_p"]
    _check(f"lu_reconstruct_{dtype}", lambda m: rt.linalg.lu_reconstruct(m, p))
    _check(f"lu_solve_{dtype}", lambda m, b: rt.linalg.lu_solve(m, p, b))
    _check(f"lu_matrix_inverse_{dtype}", lambda m: rt.linalg.lu_matrix_inverse(m, p))
    _, perm = rt.linalg.lu(REF[f"lu_helpers_{dtype}_a"])
    np.testing.assert_array_equal(perm.numpy(), p)
    _check("lu_solve_single", lambda m, b: rt.linalg.lu_solve(m, REF["lu_solve_single_p"], b))


def test_lu_helpers_second_order_finite_differences():
    a = REF["lu_helpers_float64_a"]
    lu, p = rt.linalg.lu(a)
    rhs = REF["lu_solve_float64_in_1"]
    for f in (
        lambda m, b: rt.linalg.lu_solve(m, p, b),
        lambda m, b: rt.linalg.lu_reconstruct(m, p) + rt.reduce_sum(b),
        lambda m, b: rt.linalg.lu_matrix_inverse(m, p) * rt.reduce_sum(b),
    ):
        assert rt.test.gradcheck(lambda m, b, f=f: f(m, b) ** 2, [lu.numpy(), rhs]) is True


def test_keras_lu_factor():
    lu, pivots = ops.lu_factor(REF["lu_factor_in"])
    np.testing.assert_allclose(lu.numpy(), REF["lu_factor_lu"], rtol=2e-5, atol=2e-6)
    np.testing.assert_array_equal(pivots.numpy(), REF["lu_factor_pivots"])
    assert ops.linalg.lu_factor is ops.lu_factor


BLOCKS = {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unfold_fold_match_keras(dtype):
    _check(f"unfold_{dtype}", lambda x: ops.unfold(x, **BLOCKS))
    _check(f"fold_{dtype}", lambda x: ops.fold(x, (7, 6), **BLOCKS))


def test_unfold_fold_plain_and_adjoint():
    _check("unfold_plain", lambda x: ops.unfold(x, 3))
    _check("fold_plain", lambda x: ops.fold(x, 5, 3))
    x = np.random.RandomState(0).rand(1, 2, 5, 6)
    y = np.random.RandomState(1).rand(*ops.unfold(x, 2, padding=1, stride=2).shape)
    # <unfold(x), y> == <x, fold(y)>
    left = float(rt.reduce_sum(ops.unfold(x, 2, padding=1, stride=2) * y))
    right = float(rt.reduce_sum(x * ops.fold(y, (5, 6), 2, padding=1, stride=2)))
    assert abs(left - right) < 1e-12
    assert rt.test.gradcheck(lambda t: ops.unfold(t, 2) ** 3, [x]) is True
    assert (
        rt.test.gradcheck(lambda t: ops.fold(t, (5, 6), 2, padding=1, stride=2) ** 3, [y]) is True
    )
    with pytest.raises(ValueError, match="unfold"):
        ops.unfold(np.ones((1, 1, 2, 2)), 3)
    with pytest.raises(ValueError, match="fold"):
        ops.fold(np.ones((1, 5, 4)), 3, 2)


POOLS = [
    ("1d", 4, "channels_last"),
    ("1d_up", 5, "channels_last"),
    ("1d_first", 4, "channels_first"),
    ("2d", (3, 4), "channels_last"),
    ("2d_first", (3, 4), "channels_first"),
    ("2d_odd", (4, 3), "channels_last"),
    ("3d", (2, 3, 4), "channels_last"),
    ("3d_first", (2, 3, 4), "channels_first"),
]


#: Every (pool, kind, dtype) TensorFlow's reference holds (its 3-D pools are float32 only;
#: 1-D channels_first averages are checked against channels_last below).
POOL_CASES = [
    (tag, size, fmt, kind, dtype)
    for tag, size, fmt in POOLS
    for kind in ("average", "max")
    for dtype in ("float64", "float32")
    if f"adaptive_{kind}_{tag}_{dtype}_out" in REF
]


@pytest.mark.parametrize(("tag", "size", "fmt", "kind", "dtype"), POOL_CASES)
def test_adaptive_pools_match_keras(tag, size, fmt, kind, dtype):
    op = getattr(ops, f"adaptive_{kind}_pool")
    _check(f"adaptive_{kind}_{tag}_{dtype}", lambda x: op(x, size, data_format=fmt))


def test_every_pool_case_is_checked():
    assert len(POOL_CASES) == 26


def test_adaptive_average_pool_1d_channels_first_is_the_transposed_channels_last():
    x = REF["adaptive_average_1d_float64_in_0"]
    first = ops.adaptive_average_pool(np.transpose(x, (0, 2, 1)), 4, "channels_first")
    np.testing.assert_allclose(
        np.transpose(first.numpy(), (0, 2, 1)), REF["adaptive_average_1d_float64_out"], rtol=1e-12
    )
    z = np.random.RandomState(3).rand(1, 5, 7, 2)
    assert rt.test.gradcheck(lambda t: ops.adaptive_max_pool(t, (2, 3)) ** 2, [z]) is True
    assert rt.test.gradcheck(lambda t: ops.adaptive_average_pool(t, (3, 2)) ** 2, [z]) is True


def test_adaptive_pooling_layers():
    L = rt.keras.layers
    np.testing.assert_allclose(
        L.AdaptiveAveragePooling2D((3, 4))(REF["layer_in"]).numpy(), REF["layer_avg2d"], rtol=2e-6
    )
    np.testing.assert_allclose(
        L.AdaptiveMaxPooling3D(2)(REF["layer_max3d_in"]).numpy(), REF["layer_max3d"], rtol=1e-6
    )
    np.testing.assert_allclose(
        L.AdaptiveAveragePooling1D(4)(REF["layer_avg1d_in"]).numpy(), REF["layer_avg1d"], rtol=2e-6
    )
    layer = L.AdaptiveMaxPooling2D(2, data_format="channels_first")
    assert layer.compute_output_shape((None, 3, 9, 9)) == (None, 3, 2, 2)
    with pytest.raises(TypeError, match="output_size"):
        L.AdaptiveAveragePooling2D((1, 2, 3))


def test_angle_view_vectorize():
    np.testing.assert_array_equal(ops.angle(REF["angle_f32_in"]).numpy(), REF["angle_f32"])
    np.testing.assert_array_equal(
        ops.angle(np.array([-3, 0, 4], np.int32)).numpy(), REF["angle_i32"]
    )
    np.testing.assert_allclose(ops.angle(REF["angle_c64_in"]).numpy(), REF["angle_c64"], rtol=1e-6)
    np.testing.assert_array_equal(ops.view(REF["view_in"], "int32").numpy(), REF["view_i32"])
    np.testing.assert_array_equal(ops.view(REF["view_in"], "float64").numpy(), REF["view_f64"])
    np.testing.assert_array_equal(
        ops.view(REF["view_i64_in"], "float32").numpy(), REF["view_i64_f32"]
    )
    with pytest.raises(ValueError, match="Cannot view"):
        ops.view(np.ones(3, np.float32), "float64")
    dot = ops.vectorize(lambda a, b: rt.reduce_sum(a * b), signature="(n),(n)->()")
    np.testing.assert_allclose(
        dot(REF["vectorize_a"], REF["vectorize_b"]).numpy(), REF["vectorize_dot"], atol=1e-6
    )
    plain = ops.vectorize(lambda a: a * a + 1.0)
    np.testing.assert_allclose(plain(REF["vectorize_b"]).numpy(), REF["vectorize_plain"], rtol=1e-6)


def test_rearrange_is_numpys_reshape_and_transpose():
    x = np.random.RandomState(5).rand(4, 6, 8, 3)
    b, h, w, c = x.shape
    expected = {
        ("b h w c -> b c h w", ()): x.transpose(0, 3, 1, 2),
        ("b h w c -> (b h) w c", ()): x.reshape(b * h, w, c),
        ("b h w c -> h (b w) c", ()): x.transpose(1, 0, 2, 3).reshape(h, b * w, c),
        ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", (("h1", 2), ("w1", 2))): x.reshape(
            b, 2, h // 2, 2, w // 2, c
        )
        .transpose(0, 1, 3, 2, 4, 5)
        .reshape(b * 4, h // 2, w // 2, c),
        ("b (h h1) (w w1) c -> b h w (c h1 w1)", (("h1", 2), ("w1", 2))): x.reshape(
            b, h // 2, 2, w // 2, 2, c
        )
        .transpose(0, 1, 3, 5, 2, 4)
        .reshape(b, h // 2, w // 2, c * 4),
    }
    for (pattern, lengths), want in expected.items():
        np.testing.assert_array_equal(ops.rearrange(x, pattern, **dict(lengths)).numpy(), want)
    assert (
        rt.test.gradcheck(
            lambda t: ops.rearrange(t, "b (h h1) w -> b w (h1 h)", h1=2) ** 2,
            [np.random.RandomState(6).rand(2, 4, 3)],
        )
        is True
    )
    with pytest.raises(ValueError, match="rearrange"):
        ops.rearrange(x, "b h w -> b h w")
    with pytest.raises(ValueError, match="rearrange"):
        ops.rearrange(x, "b h w c -> b h w")
