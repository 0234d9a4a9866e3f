"""`rt.keras.ops` convolutions, pooling and `dot_product_attention` against Keras 3 on
TensorFlow 2.21 (tests/reference/gen_keras_ops_conv.py): outputs and the gradients of a
weighted sum of each output w.r.t. every input, channels last and first; bad input."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_keras_ops_conv as gen

REF = np.load(os.path.join(HERE, "..", "reference", "keras_ops_conv.npz"))
OPS = rt.keras.ops


@pytest.mark.parametrize("i", range(len(gen.CASES)))
def test_outputs_and_gradients_match_keras(i: int) -> None:
    name, tensors, kwargs = gen.CASES[i]
    variables = [rt.Variable(t) for t in tensors]
    with rt.GradientTape() as tape:
        kw = dict(kwargs)
        if name == "dot_product_attention" and len(variables) == 4:
            kw["bias"] = variables[3]
            y = OPS.dot_product_attention(*variables[:3], **kw)
        else:
            y = getattr(OPS, name)(*variables, **kw)
        loss = rt.reduce_sum(y * rt.constant(gen.weights(tuple(y.shape)), dtype=y.dtype))
    want = REF[f"{i}/y"]
    assert y.numpy().shape == want.shape and y.numpy().dtype == want.dtype
    rtol = 2e-5 if want.dtype == np.float32 else 1e-11
    np.testing.assert_allclose(y.numpy(), want, rtol=rtol, atol=rtol * 10)
    for k, g in enumerate(tape.gradient(loss, variables)):
        want_g = REF[f"{i}/grad{k}"]
        np.testing.assert_allclose(g.numpy(), want_g, rtol=rtol, atol=rtol * 10, err_msg=f"{k}")


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: OPS.conv(np.ones((1, 4, 2)), np.ones((2, 3, 1))), "input channels"),
        (lambda: OPS.conv(np.ones((4, 2)), np.ones((2, 2, 1))), "rank"),
        (lambda: OPS.conv(np.ones((1, 2, 1)), np.ones((3, 1, 1))), "larger than the padded input"),
        (lambda: OPS.max_pool(np.ones((1, 4, 1)), 2, data_format="NHWC"), "data_format"),
        (
            lambda: OPS.dot_product_attention(
                np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones((2, 3, 4))
            ),
            "4D",
        ),
        (lambda: OPS.depthwise_conv(np.ones((1, 3, 3, 3, 1)), np.ones((1, 1, 1, 1, 1))), "rank"),
    ],
)
def test_bad_input(call: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
