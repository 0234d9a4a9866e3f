"""`rt.keras.ops`' NumPy-style extras (cbrt, hypot, diff, kron, median, nan-reductions, ...)
against Keras 3 (tests/reference/gen_keras_ops_numpy.py): every result's value and dtype, the
gradient of a weighted sum of the float results against TensorFlow's, and a few against
float64 central finite differences."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from gen_keras_ops import arguments, flatten
from gen_keras_ops_numpy import A, B, D, I, M, T, V, cases

REF = np.load(
    os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "reference", "keras_ops_numpy.npz"
    ),
    allow_pickle=False,
)
ops = rt.keras.ops
CASES = cases()


def _dtype(r: object) -> str:
    return r.dtype.name if hasattr(r, "dtype") else type(r).__name__  # type: ignore[attr-defined]


# Keras's TensorFlow backend takes cbrt as `pow(|x|, 1/3)` with 1/3 rounded to float32, a
# relative error near 1e-8 in float64, and logaddexp2 divides by log(2) computed in float32;
# rustape keeps both exact (NumPy's values, checked to 1e-12 in test_float64_is_exact).
_LOOSE = {
    "cbrt_f64": 1e-7,
    "cbrt_i64": 1e-7,
    "logaddexp2_f64": 1e-7,
    "logaddexp2_mixed": 1e-7,
}
# Keras 3.15's TensorFlow rot90 scrambles a non-square array for k=2 (it reshapes the once
# rotated array to the unrotated shape); rustape follows NumPy's rot90 there.
_NUMPY_INSTEAD = {"rot90_k2": lambda: np.rot90(M, 2)}
# TensorFlow's gradient of sinc at 0 is NaN (0/0 in the unselected branch); rustape's is the
# true derivative, 0.
_GRAD_AT_ZERO = {"sinc_zero"}


def _tolerance(dtype: str, case: str = "") -> dict[str, float]:
    if case in _LOOSE:
        return {"rtol": _LOOSE[case], "atol": _LOOSE[case]}
    if dtype == "float64":
        return {"rtol": 1e-12, "atol": 1e-12}
    if dtype.startswith(("float", "complex")):
        return {"rtol": 1e-6, "atol": 1e-6}
    return {"rtol": 0.0, "atol": 0.0}


@pytest.mark.parametrize("case, name, args, kwargs", CASES, ids=[c[0] for c in CASES])
def test_numpy_extra_matches_keras(case: str, name: str, args: tuple, kwargs: dict) -> None:
    fn = getattr(ops, name)
    results = flatten(fn(*arguments(rt.constant, args), **kwargs))
    expected = [
        k for k in REF.files if k.startswith(f"{case}/") and k.count("/") == 1 and "grad" not in k
    ]
    assert len(results) == len(expected), case
    for k, r in enumerate(results):
        dtype = str(REF[f"{case}/{k}/dtype"])
        assert _dtype(r) == dtype, (case, k)
        value = np.asarray(r.numpy() if hasattr(r, "numpy") else r)
        want = REF[f"{case}/{k}"]
        if case in _NUMPY_INSTEAD:
            want = _NUMPY_INSTEAD[case]()
        assert value.shape == want.shape, (case, k)
        np.testing.assert_allclose(value, want, err_msg=case, **_tolerance(dtype, case))
    grads = sorted(k for k in REF.files if k.startswith(f"{case}/grad"))
    if not grads or case in _NUMPY_INSTEAD:
        return
    watched = [
        rt.constant(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else None for a in args
    ]
    with rt.GradientTape() as tape:
        for w in watched:
            if w is not None:
                tape.watch(w)
        real = tuple(w if w is not None else a for w, a in zip(watched, args))
        outs = flatten(fn(*arguments(rt.constant, real), **kwargs))
        terms = []
        for k, r in enumerate(outs):
            if r.dtype.is_floating:
                weight = np.random.default_rng(k).normal(size=tuple(r.shape))
                terms.append(rt.reduce_sum(r * weight.astype(r.dtype.name)))
        loss = rt.add_n(terms)
    ours = tape.gradient(loss, [w for w in watched if w is not None])
    for key in grads:
        k = int(key.split("grad")[1])
        got = np.asarray(rt.convert_to_tensor(ours[k]))
        want = REF[key]
        if case in _GRAD_AT_ZERO:
            assert np.isnan(want[0]) and got[0] == 0.0, (case, got)
            got, want = got[1:], want[1:]
        wide = got.dtype == np.float64 and case not in _LOOSE
        tol = {"rtol": 1e-10, "atol": 1e-10} if wide else {"rtol": 2e-5, "atol": 1e-6}
        np.testing.assert_allclose(got, want, err_msg=key, **tol)


def test_every_case_ran_in_keras() -> None:
    for case, *_ in CASES:
        assert f"{case}/0" in REF.files, case


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: ops.hypot(a, b) + ops.logaddexp2(a, b),
        lambda a, b: ops.cbrt(a) * ops.sinc(b),
        lambda a, b: ops.fmax(a, b) - ops.fmin(a, b) + ops.deg2rad(a),
        lambda a, b: ops.kron(a, b),
        lambda a, b: ops.trapezoid(a, dx=0.3) * ops.sum(ops.diff(b, n=2)),
        lambda a, b: ops.vander(ops.ravel(a), 4) + ops.vdot(a, b),
        lambda a, b: ops.rot90(ops.select([a > 0], [a * b], 0.5), k=3) + ops.ptp(b),
        lambda a, b: ops.quantile(a, [0.3, 0.8], axis=1) * ops.median(b, axis=1),
        lambda a, b: ops.nanvar(a, axis=0) + ops.nanstd(b) * ops.nanmean(a * b),
        lambda a, b: ops.nanquantile(a * b, 0.6, method="midpoint") + ops.nansum(b),
        lambda a, b: ops.cross(a, b) + ops.corrcoef(a * b)[0, 1],
        lambda a, b: (
            ops.correlate(ops.ravel(a), b[0], mode="same")
            + ops.segment_max(ops.ravel(b), [0, 1, 1, 2, 2, 2])[1]
        ),
        lambda a, b: (
            ops.scatter_update(a, [[0, 1], [0, 1]], b[1, :2], "mul")
            + ops.slice_update(b, (1, 0), a[:1, :2])
        ),
        lambda a, b: ops.extract_sequences(ops.ravel(a), 3, 2) * ops.slice(b, (1, 0), (1, 3)),
        lambda a, b: (
            ops.space_to_depth(
                ops.depth_to_space(ops.reshape(ops.concatenate([a, b], 1), [1, 1, 1, 12]), 2), 2
            )
            * ops.get_item(a, (1, slice(0, 1)))
        ),
    ],
    ids=[
        "hypot_logaddexp2",
        "cbrt_sinc",
        "fmax_fmin",
        "kron",
        "trapezoid_diff",
        "vander",
        "rot90_select",
        "quantile_median",
        "nanvar",
        "nanquantile",
        "cross_corrcoef",
        "correlate_segment",
        "scatter_slice",
        "sequences",
        "space_depth_get_item",
    ],
)
def test_numpy_extra_gradients_match_finite_differences(fn: object) -> None:
    check_gradients(fn, [A.astype(np.float64) + 0.1, B.astype(np.float64)])  # type: ignore[arg-type]


def test_numpy_extra_errors() -> None:
    with pytest.raises(TypeError, match="ldexp"):
        ops.ldexp(A, B)
    with pytest.raises(ValueError, match="non-negative"):
        ops.diff(A, n=-1)
    with pytest.raises(ValueError, match="scalar"):
        ops.diff(1.0)
    with pytest.raises(ValueError, match="different axes"):
        ops.rot90(T, axes=(1, 1))
    with pytest.raises(ValueError, match="at least 2-D"):
        ops.rot90([1.0, 2.0])
    with pytest.raises(ValueError, match="positive int"):
        ops.array_split(A, 0)
    with pytest.raises(ValueError, match="same length"):
        ops.select([A > 0], [A, B])
    with pytest.raises(ValueError, match="window length"):
        ops.hamming(-1)
    with pytest.raises(ValueError, match="method"):
        ops.quantile(A, 0.5, method="cubic")
    with pytest.raises(ValueError, match=r"within \[0, 1\]"):
        ops.quantile(A, 1.5)
    with pytest.raises(ValueError, match="empty axis"):
        ops.median(np.zeros((2, 0), np.float32), axis=1)
    with pytest.raises(ValueError, match="outside"):
        ops.slice(A, (1, 1), (2, 2))
    with pytest.raises(ValueError, match="do not fit"):
        ops.slice_update(A, (1, 2), np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="reduction"):
        ops.scatter_update(A, [[0, 0]], [1.0], "mean")
    with pytest.raises(TypeError, match="integers"):
        ops.unravel_index(np.array([1.0]), (2, 2))
    with pytest.raises(ValueError, match="num_segments"):
        ops.segment_max(V, [0, 0, 1, 1, 1], num_segments=2, sorted=True)
    with pytest.raises(ValueError, match="mode"):
        ops.correlate(V, V, mode="wide")
    with pytest.raises(ValueError, match="2 or 3 components"):
        ops.cross(M, M)
    with pytest.raises(ValueError, match="last axis must have size 2"):
        ops.view_as_complex(A)
    with pytest.raises(ValueError, match="block_size must be at least 2"):
        ops.depth_to_space(np.zeros((1, 2, 2, 4), np.float32), 1)
    with pytest.raises(ValueError, match="multiples of block_size"):
        ops.space_to_depth(np.zeros((1, 3, 2, 4), np.float32), 2)
    with pytest.raises(ValueError, match="non-zero"):
        ops.geomspace(0.0, 1.0, 3)


def test_float64_is_exact() -> None:
    np.testing.assert_allclose(ops.cbrt(D).numpy(), np.cbrt(D), rtol=1e-14, atol=0)
    np.testing.assert_allclose(
        ops.logaddexp2(D, I).numpy(), np.logaddexp2(D, I), rtol=1e-14, atol=1e-14
    )


@pytest.mark.parametrize("k, axes", [(1, (0, 1)), (2, (0, 1)), (3, (1, 2)), (-1, (2, 0))])
def test_rot90_matches_numpy(k: int, axes: tuple[int, int]) -> None:
    np.testing.assert_array_equal(ops.rot90(T, k=k, axes=axes).numpy(), np.rot90(T, k, axes))


def test_dtype_names() -> None:
    assert ops.dtype(A) == "float32"
    assert ops.dtype(rt.constant(I)) == "int32"
    assert ops.dtype(D) == "float64"
