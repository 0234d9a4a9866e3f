"""rt.nn's convolutions, pooling, bias_add and embedding_lookup against TensorFlow's values.

tests/reference/gen_nn.py ran each case in TensorFlow 2.21 (float64) and stored the output, the
gradients of `sum(w * y)` and, for some cases, a Hessian-vector product; this file reruns each
case in rustape and compares (see tests/reference/README.md).
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

import numpy as np
import pytest
import rustape as rt

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")
with open(os.path.join(HERE, "nn.json")) as fh:
    CASES = json.load(fh)["cases"]
ARRAYS = np.load(os.path.join(HERE, "nn.npz"), allow_pickle=False)


def weights(shape: tuple, salt: int) -> np.ndarray:
    """gen_nn.py's fixed weights."""
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 7 + salt * 13) % 17) / 17.0).reshape(shape)


def op_of(case: dict[str, Any]) -> Callable[..., Any]:
    a, op = case["args"], case["op"]
    if op == "conv2d":
        return lambda x, f: rt.nn.conv2d(x, f, a["strides"], a["padding"], dilations=a["dilations"])
    if op == "conv1d":
        return lambda x, f: rt.nn.conv1d(x, f, a["stride"], a["padding"], dilations=a["dilations"])
    if op == "conv2d_transpose":
        return lambda x, f: rt.nn.conv2d_transpose(
            x, f, a["output_shape"], a["strides"], a["padding"], dilations=a["dilations"]
        )
    if op == "depthwise_conv2d":
        return lambda x, f: rt.nn.depthwise_conv2d(
            x, f, a["strides"], a["padding"], dilations=a["dilations"]
        )
    if op in ("max_pool2d", "avg_pool2d", "max_pool", "avg_pool"):
        fn = getattr(rt.nn, op)
        return lambda x: fn(x, a["ksize"], a["strides"], a["padding"])
    if op == "bias_add":
        return lambda x, b: rt.nn.bias_add(x, b, data_format=a["data_format"])
    if op == "embedding_lookup":
        return lambda p, i: rt.nn.embedding_lookup(p, i, max_norm=a["max_norm"])
    raise AssertionError(f"unknown op {op}")


def close(got: Any, want: np.ndarray, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs TF's {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_tensorflow(case: dict[str, Any]) -> None:
    name, fn = case["name"], op_of(case)
    xs = [ARRAYS[f"{name}:x{i}"] for i in range(case["inputs"])]
    ts: list[Any] = [rt.constant(x) for x in xs]
    diff = (
        [i for i in range(len(xs)) if i not in case["integer_inputs"]] if case["gradients"] else []
    )
    y_want = ARRAYS[f"{name}:y"]
    with rt.GradientTape(persistent=True) as outer:
        outer.watch([ts[i] for i in diff])
        with rt.GradientTape() as tape:
            tape.watch([ts[i] for i in diff])
            y = fn(*ts)
            loss = rt.reduce_sum(y * weights(y_want.shape, 0))
        close(y, y_want, f"{name}: forward")
        if not diff:
            return
        grads = tape.gradient(loss, [ts[i] for i in diff])
        proj = rt.add_n(
            [rt.reduce_sum(g * weights(xs[i].shape, 1 + i)) for g, i in zip(grads, diff)]
        )
    for g, i in zip(grads, diff):
        close(g, ARRAYS[f"{name}:d{i}"], f"{name}: gradient of input {i}")
    if case["second_order"]:
        hv = outer.gradient(proj, [ts[i] for i in diff], unconnected_gradients="zero")
        for h, i in zip(hv, diff):
            close(h, ARRAYS[f"{name}:h{i}"], f"{name}: Hessian-vector product, input {i}")


def test_every_op_is_covered() -> None:
    ops = {c["op"] for c in CASES}
    assert ops == {
        "conv2d",
        "conv1d",
        "conv2d_transpose",
        "depthwise_conv2d",
        "max_pool2d",
        "avg_pool2d",
        "max_pool",
        "avg_pool",
        "bias_add",
        "embedding_lookup",
    }
