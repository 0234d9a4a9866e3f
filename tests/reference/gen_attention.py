"""Keras 3's `EinsumDense` and `MultiHeadAttention` (TensorFlow 2.21) with fixed weights: outputs,
attention scores, and gradients of a weighted sum of the output with respect to the inputs and
every weight; masks (padding, attention, causal, a row with every key masked), several
attention axes; and a small Transformer block trained with `fit`.

`run(keras, lib)` is imported by the test and runs the same code on rustape (`lib` is
tensorflow or rustape). Run with TensorFlow's venv (see README.md); writes attention.npz beside
this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

#: name -> (equation, output_shape, bias_axes, activation, input shape)
EINSUM_CASES: dict[str, tuple[str, Any, str | None, str | None, tuple[int, ...]]] = {
    "matmul": ("ab,bc->ac", 4, "c", None, (3, 5)),
    "sequence": ("abc,cd->abd", (None, 4), "d", "relu", (2, 3, 5)),
    "left_ellipsis": ("...b,bc->...c", 4, "c", None, (2, 3, 2, 5)),
    "heads": ("abc,cde->abde", (None, 2, 3), "de", "tanh", (2, 4, 5)),
    "right_ellipsis": ("ab...,bc->ac...", (4,), None, None, (3, 5, 2)),
}

#: name -> (layer arguments, shapes of query, value, key (or None), call arguments)
MHA_CASES: dict[str, tuple[dict[str, Any], tuple[Any, ...], dict[str, Any]]] = {
    "self": ({"num_heads": 2, "key_dim": 3}, ((2, 4, 6), None, None), {}),
    "cross": (
        {"num_heads": 3, "key_dim": 2, "value_dim": 4, "output_shape": 5},
        ((2, 3, 6), (2, 5, 7), (2, 5, 4)),
        {"return_attention_scores": True},
    ),
    "masks": (
        {"num_heads": 2, "key_dim": 3},
        ((2, 4, 6), (2, 5, 6), None),
        {"attention_mask": "random", "value_mask": "padding"},
    ),
    "causal": (
        {"num_heads": 2, "key_dim": 4, "use_bias": False},
        ((2, 5, 6), None, None),
        {"use_causal_mask": True},
    ),
    "causal_scores": (
        {"num_heads": 1, "key_dim": 4},
        ((2, 5, 6), None, None),
        {"use_causal_mask": True, "return_attention_scores": True},
    ),
    "masked_row": (
        {"num_heads": 2, "key_dim": 3},
        ((1, 3, 4), (1, 4, 4), None),
        {"attention_mask": "empty_row"},
    ),
    "masked_row_scores": (
        {"num_heads": 2, "key_dim": 3},
        ((1, 3, 4), (1, 4, 4), None),
        {"attention_mask": "empty_row", "return_attention_scores": True},
    ),
    "image": (
        {"num_heads": 2, "key_dim": 2},
        ((2, 3, 4, 5), None, None),
        {"return_attention_scores": True},
    ),
    "image_axis": (
        {"num_heads": 2, "key_dim": 2, "attention_axes": (2,)},
        ((2, 3, 4, 5), None, None),
        {"return_attention_scores": True},
    ),
}


#: name -> (class name, layer arguments, shapes of query, value, key (or None), call arguments)
DOT_CASES: dict[str, tuple[str, dict[str, Any], tuple[Any, ...], dict[str, Any]]] = {
    "dot": ("Attention", {}, ((2, 3, 4), (2, 5, 4), None), {"return_attention_scores": True}),
    "dot_scaled_masked": (
        "Attention",
        {"use_scale": True},
        ((2, 3, 4), (2, 5, 4), (2, 5, 4)),
        {"mask": "query_and_value"},
    ),
    "concat_causal": (
        "Attention",
        {"score_mode": "concat", "use_scale": True},
        ((2, 4, 3), (2, 4, 3), None),
        {"use_causal_mask": True, "return_attention_scores": True},
    ),
    "additive_masked": (
        "AdditiveAttention",
        {},
        ((2, 3, 4), (2, 5, 4), None),
        {"mask": "value", "return_attention_scores": True},
    ),
    "additive_unscaled": (
        "AdditiveAttention",
        {"use_scale": False},
        ((2, 3, 4), (2, 5, 4), None),
        {},
    ),
}


#: GroupQueryAttention's cases, as MHA_CASES.
GQA_CASES: dict[str, tuple[dict[str, Any], tuple[Any, ...], dict[str, Any]]] = {
    "self": (
        {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2},
        ((2, 4, 6), None, None),
        {},
    ),
    "cross_scores": (
        {"head_dim": 2, "num_query_heads": 4, "num_key_value_heads": 1},
        ((2, 3, 6), (2, 5, 7), (2, 5, 4)),
        {"return_attention_scores": True},
    ),
    "masks": (
        {"head_dim": 3, "num_query_heads": 2, "num_key_value_heads": 2},
        ((2, 4, 6), (2, 5, 6), None),
        {"attention_mask": "random", "value_mask": "padding"},
    ),
    "causal": (
        {"head_dim": 4, "num_query_heads": 4, "num_key_value_heads": 2, "use_bias": False},
        ((2, 5, 6), None, None),
        {"use_causal_mask": True},
    ),
    "sliding_causal": (
        {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "sliding_window": 2},
        ((2, 6, 4), None, None),
        {"use_causal_mask": True},
    ),
    "sliding_scores": (
        {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 2, "sliding_window": 3},
        ((2, 6, 4), None, None),
        {"return_attention_scores": True},
    ),
    "gate": (
        {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2, "use_gate": True},
        ((2, 4, 5), (2, 3, 5), None),
        {},
    ),
    "masked_row": (
        {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1},
        ((2, 4, 6), (2, 5, 6), None),
        {"attention_mask": "empty_row"},
    ),
    "masked_row_scores": (
        {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1},
        ((2, 4, 6), (2, 5, 6), None),
        {"attention_mask": "empty_row", "return_attention_scores": True},
    ),
}


def _weights(layer: Any, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    weights = [(rng.normal(size=tuple(w.shape)) * 0.5).astype(np.float32) for w in layer.weights]
    layer.set_weights(weights)
    return weights


def _mask(kind: str, t: int, s: int, batch: int) -> np.ndarray:
    rng = np.random.default_rng(31)
    if kind == "padding":
        mask = np.ones((batch, s), bool)
        mask[0, -2:] = False
        return mask
    if kind == "empty_row":
        mask = rng.random((batch, t, s)) > 0.3
        mask[:, 1, :] = False
        mask[:, 0, 0] = True
        return mask
    mask = rng.random((batch, t, s)) > 0.4
    mask[..., 0] = True  # every query sees at least one key
    return mask


def _einsum(keras: Any, lib: Any, name: str) -> dict[str, np.ndarray]:
    equation, output_shape, bias_axes, activation, shape = EINSUM_CASES[name]
    layer = keras.layers.EinsumDense(
        equation, output_shape=output_shape, bias_axes=bias_axes, activation=activation
    )
    x = np.random.default_rng(3).normal(size=shape).astype(np.float32)
    layer.build(shape)
    weights = _weights(layer, 4)
    xt = lib.Variable(x)
    with lib.GradientTape() as tape:
        y = layer(xt)
        w = np.random.default_rng(5).normal(size=tuple(y.shape)).astype(np.float32)
        loss = lib.reduce_sum(y * w)
    grads = tape.gradient(loss, [xt, *layer.trainable_weights])
    out = {f"einsum/{name}/y": np.asarray(y), f"einsum/{name}/dx": np.asarray(grads[0])}
    for k, (g, v) in enumerate(zip(grads[1:], weights)):
        out[f"einsum/{name}/w{k}"] = v
        out[f"einsum/{name}/dw{k}"] = np.asarray(g)
    return out


def _mha(keras: Any, lib: Any, name: str) -> dict[str, np.ndarray]:
    return _heads(keras, lib, "MultiHeadAttention", "mha", MHA_CASES[name], name)


def _gqa(keras: Any, lib: Any, name: str) -> dict[str, np.ndarray]:
    return _heads(keras, lib, "GroupQueryAttention", "gqa", GQA_CASES[name], name)


def _heads(
    keras: Any, lib: Any, cls: str, prefix: str, case: Any, name: str
) -> dict[str, np.ndarray]:
    options, (q_shape, v_shape, k_shape), call = case
    layer = getattr(keras.layers, cls)(**options)
    rng = np.random.default_rng(7)
    q = rng.normal(size=q_shape).astype(np.float32)
    v = q if v_shape is None else rng.normal(size=v_shape).astype(np.float32)
    k = None if k_shape is None else rng.normal(size=k_shape).astype(np.float32)
    layer.build(q.shape, v.shape, None if k is None else k.shape)
    weights = _weights(layer, 8)
    kwargs = dict(call)
    out: dict[str, np.ndarray] = {}
    for mask_arg in ("attention_mask", "value_mask"):
        if mask_arg in kwargs:
            mask = _mask(kwargs[mask_arg], q.shape[1], v.shape[1], q.shape[0])
            out[f"{prefix}/{name}/{mask_arg}"] = mask
            kwargs[mask_arg] = lib.constant(mask)
    qv = lib.Variable(q)
    vv = lib.Variable(v)
    inputs = [qv, vv]
    with lib.GradientTape() as tape:
        if k is not None:
            kv = lib.Variable(k)
            inputs.append(kv)
            result = layer(qv, vv, key=kv, **kwargs)
        else:
            result = layer(qv, vv, **kwargs)
        y, scores = result if call.get("return_attention_scores") else (result, None)
        w = np.random.default_rng(9).normal(size=tuple(y.shape)).astype(np.float32)
        loss = lib.reduce_sum(y * w)
    grads = tape.gradient(loss, inputs + list(layer.trainable_weights))
    out[f"{prefix}/{name}/y"] = np.asarray(y)
    if scores is not None:
        out[f"{prefix}/{name}/scores"] = np.asarray(scores)
    for j, g in enumerate(grads[: len(inputs)]):
        out[f"{prefix}/{name}/dinput{j}"] = np.asarray(g)
    for j, (g, wt) in enumerate(zip(grads[len(inputs) :], weights)):
        out[f"{prefix}/{name}/w{j}"] = wt
        out[f"{prefix}/{name}/dw{j}"] = np.asarray(g)
    return out


def _dot(keras: Any, lib: Any, name: str) -> dict[str, np.ndarray]:
    cls, options, shapes, call = DOT_CASES[name]
    layer = getattr(keras.layers, cls)(**options)
    rng = np.random.default_rng(11)
    arrays = [None if s is None else rng.normal(size=s).astype(np.float32) for s in shapes]
    arrays = [a for a in arrays if a is not None]
    layer.build([a.shape for a in arrays])
    weights = _weights(layer, 12)
    kwargs = dict(call)
    out: dict[str, np.ndarray] = {}
    if "mask" in kwargs:
        value_mask = np.ones((2, 5), bool)
        value_mask[0, 3:] = False
        query_mask = np.array([[True, False, True], [True, True, True]])
        out[f"dot/{name}/value_mask"] = value_mask
        kwargs["mask"] = [
            lib.constant(query_mask) if kwargs["mask"] == "query_and_value" else None,
            lib.constant(value_mask),
        ]
    inputs = [lib.constant(a) for a in arrays]
    with lib.GradientTape() as tape:
        for t in inputs:
            tape.watch(t)
        result = layer(inputs, **kwargs)
        y, scores = result if call.get("return_attention_scores") else (result, None)
        w = np.random.default_rng(13).normal(size=tuple(y.shape)).astype(np.float32)
        loss = lib.reduce_sum(y * w)
    grads = tape.gradient(loss, inputs + list(layer.trainable_weights))
    out[f"dot/{name}/y"] = np.asarray(y)
    if scores is not None:
        out[f"dot/{name}/scores"] = np.asarray(scores)
    for j, g in enumerate(grads[: len(inputs)]):
        out[f"dot/{name}/dinput{j}"] = np.asarray(g)
    for j, (g, wt) in enumerate(zip(grads[len(inputs) :], weights)):
        out[f"dot/{name}/w{j}"] = wt
        out[f"dot/{name}/dw{j}"] = np.asarray(g)
    return out


def _transformer(keras: Any) -> dict[str, np.ndarray]:
    """A Transformer encoder block on sequences, trained with `fit`."""
    L = keras.layers
    inputs = keras.Input(shape=(6, 8))
    attended = L.MultiHeadAttention(num_heads=2, key_dim=4)(inputs, inputs)
    x = L.LayerNormalization(epsilon=1e-6)(L.Add()([inputs, attended]))
    ffn = L.Dense(8)(L.Dense(16, activation="relu")(x))
    x = L.LayerNormalization(epsilon=1e-6)(L.Add()([x, ffn]))
    outputs = L.Dense(1)(L.GlobalAveragePooling1D()(x))
    model = keras.Model(inputs, outputs)
    rng = np.random.default_rng(21)
    model.set_weights([(rng.normal(size=w.shape) * 0.3).astype(np.float32) for w in model.weights])
    x_data = rng.normal(size=(16, 6, 8)).astype(np.float32)
    y_data = x_data.mean(axis=(1, 2))[:, None].astype(np.float32)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    history = model.fit(x_data, y_data, batch_size=8, epochs=3, shuffle=False, verbose=0)
    out = {"transformer/loss": np.array(history.history["loss"], np.float32)}
    for k, w in enumerate(model.get_weights()):
        out[f"transformer/w{k}"] = np.asarray(w)
    return out


def run(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras` over `lib` (tensorflow or rustape)."""
    out: dict[str, np.ndarray] = {}
    for name in EINSUM_CASES:
        out.update(_einsum(keras, lib, name))
    for name in MHA_CASES:
        out.update(_mha(keras, lib, name))
    for name in DOT_CASES:
        out.update(_dot(keras, lib, name))
    for name in GQA_CASES:
        out.update(_gqa(keras, lib, name))
    out.update(_transformer(keras))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras, tf)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
