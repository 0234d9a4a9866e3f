"""rt.nn's volumetric ops (conv3d, conv3d_transpose, max_pool3d, avg_pool3d) against
TensorFlow's values.

tests/reference/gen_conv3d.py ran each case in TensorFlow 2.21 (float64 and float32) and stored
the output, the gradients of `sum(w * y)` and, for some cases, a Hessian-vector product; this
file reruns each case in rustape and compares: float64 to 1e-12, float32 to 1e-5 (relative).
TensorFlow's 3-D pools take float32 only, so their references are float32.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

import numpy as np
import pytest
import rustape as rt

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")
with open(os.path.join(HERE, "conv3d.json")) as fh:
    CASES = json.load(fh)["cases"]
ARRAYS = np.load(os.path.join(HERE, "conv3d.npz"), allow_pickle=False)
TOLERANCE = {"float64": (1e-12, 1e-12), "float32": (1e-5, 1e-5)}
OPS = {"conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d"}


def weights(shape: tuple, salt: int) -> np.ndarray:
    """gen_conv3d.py's fixed weights."""
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 7 + salt * 13) % 17) / 17.0).reshape(shape)


def op_of(case: dict[str, Any]) -> Callable[..., Any]:
    a, op = case["args"], case["op"]
    if op == "conv3d":
        return lambda x, f: rt.nn.conv3d(x, f, a["strides"], a["padding"], dilations=a["dilations"])
    if op == "conv3d_transpose":
        return lambda x, f: rt.nn.conv3d_transpose(
            x, f, a["output_shape"], a["strides"], a["padding"]
        )
    fn = getattr(rt.nn, op)
    return lambda x: fn(x, a["ksize"], a["strides"], a["padding"])


def close(got: Any, want: np.ndarray, dtype: str, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs TF's {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} vs TF's {want.dtype}"
    rtol, atol = TOLERANCE[dtype]
    scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale, err_msg=what)


CHECKED = [c for c in CASES if c["op"] in OPS]


@pytest.mark.parametrize("case", CHECKED, ids=[c["name"] for c in CHECKED])
def test_matches_tensorflow(case: dict[str, Any]) -> None:
    name, fn, dtype = case["name"], op_of(case), case["dtype"]
    xs = [ARRAYS[f"{name}:x{i}"] for i in range(case["inputs"])]
    ts: list[Any] = [rt.constant(x) for x in xs]
    y_want = ARRAYS[f"{name}:y"]
    with rt.GradientTape(persistent=True) as outer:
        outer.watch(ts)
        with rt.GradientTape() as tape:
            tape.watch(ts)
            y = fn(*ts)
            loss = rt.reduce_sum(y * weights(y_want.shape, 0).astype(dtype))
        close(y, y_want, dtype, f"{name}: forward")
        grads = tape.gradient(loss, ts)
        proj = rt.add_n(
            [
                rt.reduce_sum(g * weights(x.shape, 1 + i).astype(dtype))
                for i, (g, x) in enumerate(zip(grads, xs))
            ]
        )
    for i, g in enumerate(grads):
        close(g, ARRAYS[f"{name}:d{i}"], dtype, f"{name}: gradient of input {i}")
    if case["second_order"]:
        hv = outer.gradient(proj, ts, unconnected_gradients="zero")
        for i, h in enumerate(hv):
            close(h, ARRAYS[f"{name}:h{i}"], dtype, f"{name}: Hessian-vector product, input {i}")


def test_the_reference_covers_strides_paddings_dilations_and_dtypes() -> None:
    conv = [c for c in CASES if c["op"] == "conv3d"]
    assert {c["dtype"] for c in conv} == {"float64", "float32"}
    assert {str(c["args"]["padding"]) for c in conv} >= {"SAME", "VALID"}
    assert any(isinstance(c["args"]["padding"], list) for c in conv)
    assert any(c["args"]["dilations"] != 1 for c in conv)
    assert any(c["args"]["strides"] != 1 for c in conv)
    assert any(c["second_order"] for c in conv)
    assert {c["op"] for c in CASES} >= OPS
