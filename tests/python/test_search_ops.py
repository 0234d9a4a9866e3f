"""Searching and counting against TensorFlow 2.21 and Keras 3 (tests/reference/gen_search.py):
`rt.searchsorted`, `rt.math.bincount`, `rt.unique`, `rt.unique_with_counts`,
`rt.histogram_fixed_width(_bins)` and `keras.ops` `digitize`, `searchsorted`, `bincount`,
`unique`, `histogram`; then properties against NumPy on random inputs, and bad input."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt
from hypothesis import given, settings
from hypothesis import strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_search as gen

REF = np.load(os.path.join(HERE, "..", "reference", "search.npz"), allow_pickle=False)


@pytest.mark.parametrize("i", range(len(gen.CASES)))
def test_matches_tensorflow(i: int) -> None:
    name, args, kwargs = gen.CASES[i]
    got = gen.outputs(gen.call(rt, rt.keras.ops, name, args, kwargs))
    wants = [REF[f"{i}/{k}"] for k in range(len(got) + 1) if f"{i}/{k}" in REF]
    assert len(got) == len(wants), f"{name}: {len(got)} outputs, TensorFlow {len(wants)}"
    for k, (g, want) in enumerate(zip(got, wants)):
        g = np.asarray(g)
        assert g.shape == want.shape, f"{name} output {k}: {g.shape} vs {want.shape}"
        assert g.dtype == want.dtype, f"{name} output {k}: {g.dtype} vs {want.dtype}"
        if name == "ops.histogram" and k == 1:
            np.testing.assert_allclose(g, want, rtol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(g, want, err_msg=f"{name} output {k}")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=12),
    st.lists(st.integers(-7, 7), min_size=0, max_size=10),
    st.sampled_from(["left", "right"]),
)
def test_searchsorted_is_numpys(seq: list[int], values: list[int], side: str) -> None:
    a = np.sort(np.array(seq, np.float64))
    v = np.array(values, np.float64)
    got = rt.searchsorted(a, v, side=side).numpy()
    np.testing.assert_array_equal(got, np.searchsorted(a, v, side=side))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=0, max_size=20), st.integers(0, 12))
def test_bincount_is_numpys(values: list[int], minlength: int) -> None:
    x = np.array(values, np.int32)
    w = np.linspace(0.5, 2.0, len(values))
    np.testing.assert_array_equal(
        rt.math.bincount(x, minlength=minlength).numpy(), np.bincount(x, minlength=minlength)
    )
    np.testing.assert_allclose(
        rt.math.bincount(x, weights=w, minlength=minlength).numpy(),
        np.bincount(x, weights=w, minlength=minlength),
        rtol=1e-12,
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=1, max_size=24).filter(lambda v: len(v) % 2 == 0),
    st.booleans(),
)
def test_unique_is_numpys(values: list[int], rows: bool) -> None:
    x = np.array(values, np.int64)
    if rows:
        x = x.reshape(-1, 2)
    axis = 0 if rows else None
    y, index, inverse, counts = rt.keras.ops.unique(
        x, axis=axis, return_index=True, return_inverse=True, return_counts=True
    )
    want = np.unique(x, axis=axis, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip((y, index, inverse, counts), want):
        np.testing.assert_array_equal(np.asarray(g).reshape(np.shape(w)), w)


def test_first_occurrence_order_and_nan() -> None:
    y, idx = rt.unique([2.0, np.nan, 2.0, np.nan, -0.0, 0.0])
    # NaN equals nothing (each NaN is its own value, as in TensorFlow's tables); -0 == 0.
    assert np.isnan(y.numpy()[1]) and np.isnan(y.numpy()[2])
    assert y.numpy()[[0, 3]].tolist() == [2.0, 0.0]
    assert idx.numpy().tolist() == [0, 1, 0, 2, 3, 3]


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: rt.math.bincount([1, -2]), ValueError, "non-negative"),
        (lambda: rt.math.bincount([1.5]), TypeError, "integers"),
        (lambda: rt.math.bincount([1, 2], weights=[1.0]), ValueError, "shape"),
        (lambda: rt.math.bincount([1, 2], axis=-1), ValueError, "2-D"),
        (lambda: rt.searchsorted([[1.0, 2.0]], [[1.0], [2.0]]), ValueError, "leading axes"),
        (lambda: rt.searchsorted(1.0, [1.0]), ValueError, "rank at least 1"),
        (lambda: rt.searchsorted([1, 2], [1.0]), TypeError, "both"),
        (lambda: rt.searchsorted([1.0], [1.0], side="middle"), ValueError, "side"),
        (lambda: rt.unique([[1, 2]]), ValueError, "1-D"),
        (lambda: rt.unique([1j]), TypeError, "real"),
        (lambda: rt.histogram_fixed_width([1.0], [1.0, 1.0]), ValueError, "lo < hi"),
        (lambda: rt.histogram_fixed_width([np.nan], [0.0, 1.0]), ValueError, "NaN"),
        (lambda: rt.histogram_fixed_width([1.0], [0.0, 1.0], nbins=0), ValueError, "nbins"),
        (lambda: rt.keras.ops.searchsorted([[1, 2]], [1]), ValueError, "1-D"),
        (lambda: rt.keras.ops.histogram([[1.0]]), ValueError, "1-dimensional"),
        (lambda: rt.keras.ops.digitize([1.0], [2.0, 1.0]), ValueError, "sorted"),
    ],
)
def test_bad_input(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_not_differentiable() -> None:
    x = rt.Variable([0.5, 1.5, 2.5])
    with rt.GradientTape() as tape:
        idx = rt.searchsorted(rt.constant([1.0, 2.0]), x)
        y = rt.cast(idx, "float32") * x
    # The positions are constants to the tape: the gradient is the positions themselves.
    assert tape.gradient(y, x).numpy().tolist() == [0.0, 1.0, 2.0]
