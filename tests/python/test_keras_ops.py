"""`rt.keras.ops` against Keras 3 (tests/reference/gen_keras_ops.py over the calls in
keras_ops_cases.py): every result's value and dtype, and the gradient of a weighted sum of
the float results with respect to each float input."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from gen_keras_ops import arguments, flatten
from keras_ops_cases import A, B, P, T, cases

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "keras_ops.npz"),
    allow_pickle=False,
)
ops = rt.keras.ops
CASES = cases()


def _dtype(r: object) -> str:
    return r.dtype.name if hasattr(r, "dtype") else type(r).__name__  # type: ignore[attr-defined]


@pytest.mark.parametrize("case, name, args, kwargs", CASES, ids=[c[0] for c in CASES])
def test_keras_ops_match_keras(case: str, name: str, args: tuple, kwargs: dict) -> None:
    fn = getattr(ops, name)
    results = flatten(fn(*arguments(rt.constant, args), **kwargs))
    expected = sorted(k for k in REF.files if k.startswith(f"{case}/") and k.count("/") == 1)
    expected = [k for k in expected if not k.split("/")[1].startswith("grad")]
    assert len(results) == len(expected), case
    for k, r in enumerate(results):
        assert _dtype(r) == str(REF[f"{case}/{k}/dtype"]), (case, k)
        value = np.asarray(r.numpy() if hasattr(r, "numpy") else r)
        np.testing.assert_allclose(value, REF[f"{case}/{k}"], rtol=2e-6, atol=1e-6, err_msg=case)
    # Gradients of sum(w * result) for the float inputs, as the generator took them.
    grads = sorted(k for k in REF.files if k.startswith(f"{case}/grad"))
    if not grads:
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
        np.testing.assert_allclose(
            np.asarray(rt.convert_to_tensor(ours[k])), REF[key], rtol=2e-5, atol=1e-6, err_msg=key
        )


def test_every_case_ran_in_keras() -> None:
    # The reference holds a result for every case (a case Keras refused would be missing).
    for case, *_ in CASES:
        assert f"{case}/0" in REF.files, case


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: ops.logaddexp(a, b),
        lambda a, b: ops.take_along_axis(a, np.array([[2, 0], [1, 1]]), axis=1) * b[:, :2],
        lambda a, b: ops.norm(a, axis=1) + ops.sum(ops.std(b, axis=0)),
        lambda a, b: ops.matmul(a, ops.transpose(b)),
        lambda a, b: ops.categorical_crossentropy(ops.softmax(b), a, from_logits=True),
    ],
    ids=["logaddexp", "take_along_axis", "norm_std", "matmul", "crossentropy"],
)
def test_keras_ops_gradients_match_finite_differences(fn: object) -> None:
    check_gradients(fn, [A.astype(np.float64), B.astype(np.float64)])  # type: ignore[arg-type]


def test_keras_ops_promotion_and_errors() -> None:
    assert ops.add(rt.constant([1, 2]), 0.5).dtype == rt.float32
    assert ops.add(rt.constant([1.0], dtype=rt.float64), 1).dtype == rt.float64
    assert ops.multiply(rt.constant([1, 2]), rt.constant([1, 2], dtype=rt.int64)).dtype == rt.int64
    assert ops.mean(P.astype(np.int32)).dtype == rt.float32
    assert ops.where(T > 0)[0].dtype == rt.int32
    with pytest.raises(ValueError, match="both"):
        ops.where(T > 0, T)
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        ops.swapaxes(T, 0, 3)
    with pytest.raises(ValueError, match="constant_values"):
        ops.pad(A, 1, mode="reflect", constant_values=1.0)
