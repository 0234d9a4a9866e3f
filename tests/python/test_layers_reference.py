"""rt.keras.layers against Keras 3 (TensorFlow 2.21): every layer's outputs, the gradients with
respect to its inputs and trainable weights, and (training calls) the weights it leaves behind.

tests/reference/gen_layers.py built each layer in Keras, set its weights to fixed values, and
stored the numbers; here the same layer is built in rustape, given the same weights (in
`layer.weights` order, whose names must match Keras'), and run on the same inputs.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")
with open(os.path.join(HERE, "layers.json")) as fh:
    CASES = json.load(fh)["cases"]
ARRAYS = np.load(os.path.join(HERE, "layers.npz"), allow_pickle=False)

#: float32 throughout: products and sums in another order differ in the last bits; the
#: recurrent layers accumulate them over their steps.
RTOL, ATOL = 2e-5, 2e-6


def weights(shape: tuple, salt: int) -> np.ndarray:
    """gen_layers.py's fixed weights."""
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 7 + salt * 13) % 17) / 17.0).reshape(shape).astype(np.float32)


def close(got: Any, want: np.ndarray, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs Keras' {want.shape}"
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_keras(case: dict) -> None:
    name = case["name"]
    layer = getattr(rt.keras.layers, case["layer"])(**case["kwargs"])
    xs = [rt.constant(ARRAYS[f"{name}:x{i}"]) for i in range(case["inputs"])]
    inputs = xs if case["several"] else xs[0]
    layer(inputs)  # build
    assert [v.name.split("/")[-1].split(":")[0] for v in layer.weights] == case["weights"], name
    for j, v in enumerate(layer.weights):
        v.assign(ARRAYS[f"{name}:w{j}"])
    trainable = [layer.weights[j] for j in case["trainable"]]
    assert [id(v) for v in layer.trainable_weights] == [id(v) for v in trainable], name
    with rt.GradientTape() as tape:
        if not case["int_inputs"]:
            tape.watch(xs)
        kwargs = {} if case["training"] is None else {"training": case["training"]}
        out = layer(inputs, **kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        loss = rt.add_n([rt.reduce_sum(y * weights(tuple(y.shape), k)) for k, y in enumerate(outs)])
    assert len(outs) == case["outputs"], name
    sources = ([] if case["int_inputs"] else xs) + trainable
    grads = tape.gradient(loss, sources)
    for k, y in enumerate(outs):
        close(y, ARRAYS[f"{name}:y{k}"], f"{name}: output {k}")
    g = 0
    if not case["int_inputs"]:
        for i in range(len(xs)):
            close(grads[g], ARRAYS[f"{name}:dx{i}"], f"{name}: gradient of input {i}")
            g += 1
    for j in case["trainable"]:
        close(grads[g], ARRAYS[f"{name}:dw{j}"], f"{name}: gradient of {case['weights'][j]}")
        g += 1
    if case["training"]:
        for j, v in enumerate(layer.weights):
            close(
                v.numpy(),
                ARRAYS[f"{name}:after{j}"],
                f"{name}: {case['weights'][j]} after the call",
            )
    # compute_output_shape agrees with the outputs (the batch dimension left unknown).
    shapes = [tuple(x.shape) for x in xs]
    spec = [(None, *s[1:]) for s in shapes] if case["several"] else (None, *shapes[0][1:])
    predicted = layer.compute_output_shape(spec)
    predicted = predicted if isinstance(predicted, list) else [predicted]
    assert [tuple(p) for p in predicted] == [(None, *s[1:]) for s in case["output_shapes"]], name


def test_every_required_layer_is_covered() -> None:
    covered = {c["layer"] for c in CASES}
    required = {
        "Dense",
        "Conv1D",
        "Conv2D",
        "Conv2DTranspose",
        "DepthwiseConv2D",
        "MaxPooling2D",
        "AveragePooling2D",
        "GlobalAveragePooling2D",
        "GlobalMaxPooling2D",
        "Flatten",
        "Reshape",
        "Dropout",
        "Embedding",
        "LayerNormalization",
        "BatchNormalization",
        "Activation",
        "LeakyReLU",
        "Concatenate",
        "Add",
        "ZeroPadding2D",
        "UpSampling2D",
        "SimpleRNN",
        "LSTM",
        "GRU",
    }
    assert required <= covered, sorted(required - covered)
