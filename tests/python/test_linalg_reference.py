"""`rt.linalg` against TensorFlow 2.21's numbers (tests/reference/linalg.json, written by
tests/reference/gen_linalg.py): forward values and first-order gradients through the Python
API, float32 and float64. (linalg_reference.rs checks the second order too.) Eigenvectors and
singular vectors are compared up to the sign of each column and enter the losses squared."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import rustape as rt

_PATH = os.path.join(os.path.dirname(__file__), "..", "reference", "linalg.json")
with open(_PATH) as _f:
    _DATA = json.load(_f)
# `diag_part` with an offset is bound by another part of the package (main diagonal only in
# Python); linalg_reference.rs checks its offsets against TensorFlow.
CASES: dict[str, Any] = {k: v for k, v in _DATA["cases"].items() if v["op"] != "diag_part"}


def _array(v: dict[str, Any]) -> np.ndarray:
    values = [float(x) for x in v["values"]]  # "inf", "-inf", "nan" are strings in JSON
    return np.array(values, dtype=np.float64).reshape(v["shape"])


def _call(op: str, attrs: dict[str, Any], xs: list[Any]) -> list[Any]:
    out = getattr(rt.linalg, op)(*xs, **attrs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _compare_up_to_column_sign(got: np.ndarray, want: np.ndarray, tol: float) -> None:
    g = got.reshape(-1, *got.shape[-2:])
    w = want.reshape(-1, *want.shape[-2:])
    for b in range(g.shape[0]):
        for j in range(g.shape[2]):
            same = np.allclose(g[b, :, j], w[b, :, j], rtol=tol, atol=tol)
            flipped = np.allclose(-g[b, :, j], w[b, :, j], rtol=tol, atol=tol)
            assert same or flipped, f"matrix {b}, column {j}: {g[b, :, j]} vs {w[b, :, j]}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_matches_tensorflow(name: str) -> None:
    case = CASES[name]
    dtype = getattr(rt, case["dtype"])
    tol = 2e-3 if case["dtype"] == "float32" else 1e-8
    xs = [rt.constant(_array(v), dtype=dtype) for v in case["inputs"]]
    outs = _call(case["op"], case["attrs"], xs)
    assert len(outs) == len(case["outputs"])
    for k, (got, want) in enumerate(zip(outs, case["outputs"])):
        want = _array(want)
        assert got.dtype == dtype and got.shape == want.shape
        if k in case["squared"]:
            _compare_up_to_column_sign(got.numpy(), want, tol)
        else:
            np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol, err_msg=f"output {k}")
    if "grads" not in case:
        return
    weights = {int(k): rt.constant(_array(w), dtype=dtype) for k, w in case["weights"].items()}
    sources = [xs[i] for i in case["wrt"]]
    with rt.GradientTape() as tape:
        tape.watch(sources)
        ys = _call(case["op"], case["attrs"], xs)
        loss = rt.add_n(
            [
                rt.reduce_sum((rt.square(ys[k]) if k in case["squared"] else ys[k]) * w)
                for k, w in weights.items()
            ]
        )
    grads = tape.gradient(loss, sources)
    for i, (g, want) in enumerate(zip(grads, case["grads"])):
        np.testing.assert_allclose(
            g.numpy(), _array(want), rtol=tol, atol=tol, err_msg=f"gradient {i}"
        )
