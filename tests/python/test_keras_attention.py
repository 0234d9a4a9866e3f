"""`rt.keras.layers.EinsumDense` and `MultiHeadAttention` against Keras 3
(tests/reference/gen_attention.py): outputs, attention scores and gradients with fixed weights,
masks and attention axes, a Transformer block trained with `fit`; gradients against finite
differences; the errors for bad arguments."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_attention

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "attention.npz"),
    allow_pickle=False,
)


def _compare(ours: dict[str, np.ndarray], prefix: str, rtol: float = 2e-5) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and set(ours) == expected
    for key in sorted(expected):
        np.testing.assert_allclose(ours[key], REF[key], rtol=rtol, atol=2e-6, err_msg=key)


@pytest.mark.parametrize("name", gen_attention.EINSUM_CASES)
def test_einsum_dense_matches_keras(name: str) -> None:
    # Kernel and bias shapes from the equation (letters, leading or trailing ellipsis), the
    # output, and the gradients of the input, kernel and bias.
    _compare(gen_attention._einsum(rt.keras, rt, name), f"einsum/{name}/")


@pytest.mark.parametrize("name", gen_attention.MHA_CASES)
def test_multi_head_attention_matches_keras(name: str) -> None:
    # Self and cross attention (key apart from value, value_dim, output_shape), attention and
    # padding masks, causal masks, a query row with every key masked (attends evenly on
    # Keras's fused path, gets zero scores when the scores are returned), images attended
    # over both axes or one.
    _compare(gen_attention._mha(rt.keras, rt, name), f"mha/{name}/")


@pytest.mark.parametrize("name", gen_attention.GQA_CASES)
def test_grouped_query_attention_matches_keras(name: str) -> None:
    # Key/value heads shared by groups of query heads (one or two groups, or none), cross
    # attention, masks, causal and sliding-window masks, the sigmoid gate, a fully masked row.
    _compare(gen_attention._gqa(rt.keras, rt, name), f"gqa/{name}/")


def test_grouped_query_attention_gradients_match_finite_differences() -> None:
    layer = rt.keras.layers.GroupQueryAttention(
        head_dim=2,
        num_query_heads=4,
        num_key_value_heads=2,
        use_gate=True,
        sliding_window=2,
        dtype="float64",
    )
    rng = np.random.default_rng(2)
    q = rng.normal(size=(1, 3, 4))
    v = rng.normal(size=(1, 4, 4))
    layer(q, v)

    def f(query: rt.Tensor, value: rt.Tensor) -> rt.Tensor:
        return layer(query, value, use_causal_mask=True)

    check_gradients(f, [q, v])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"head_dim": 2, "num_query_heads": 3, "num_key_value_heads": 2}, "divisible"),
        (
            {"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "sliding_window": 0},
            "sliding_window",
        ),
        ({"head_dim": 0, "num_query_heads": 2, "num_key_value_heads": 1}, "head_dim"),
    ],
)
def test_grouped_query_attention_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rt.keras.layers.GroupQueryAttention(**kwargs)


def test_grouped_query_attention_in_a_saved_model(tmp_path: object) -> None:
    inputs = rt.keras.Input((5, 6))
    layer = rt.keras.layers.GroupQueryAttention(
        head_dim=3, num_query_heads=4, num_key_value_heads=2, sliding_window=3
    )
    model = rt.keras.Model(inputs, layer(inputs, inputs))
    x = np.random.default_rng(4).normal(size=(2, 5, 6)).astype(np.float32)
    path = os.path.join(str(tmp_path), "gqa.keras")
    model.save(path)
    loaded = rt.keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


@pytest.mark.parametrize("name", gen_attention.DOT_CASES)
def test_single_head_attention_matches_keras(name: str) -> None:
    # Attention (dot, scaled, "concat" scores, causal) and AdditiveAttention (scaled or not)
    # with query and value masks: outputs, scores, gradients of the inputs and weights.
    _compare(gen_attention._dot(rt.keras, rt, name), f"dot/{name}/")


def test_transformer_block_fit_matches_keras() -> None:
    _compare(gen_attention._transformer(rt.keras), "transformer/", rtol=2e-4)


def test_attention_gradients_match_finite_differences() -> None:
    layer = rt.keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    rng = np.random.default_rng(0)
    q = rng.normal(size=(1, 3, 4))
    v = rng.normal(size=(1, 4, 4))
    layer(q, v)
    mask = rt.constant(rng.random((1, 3, 4)) > 0.3)

    def f(query: rt.Tensor, value: rt.Tensor) -> rt.Tensor:
        return layer(query, value, attention_mask=mask, use_causal_mask=False)

    check_gradients(f, [q, v])


def test_query_mask_and_key_mask_are_applied() -> None:
    # rustape takes masks as arguments (Keras also reads them from masked tensors): a masked
    # key gets no weight, a masked query row none either on the scores path.
    layer = rt.keras.layers.MultiHeadAttention(num_heads=1, key_dim=2)
    x = rt.constant(np.random.default_rng(1).normal(size=(1, 3, 4)).astype(np.float32))
    _, scores = layer(
        x,
        x,
        key_mask=rt.constant([[True, True, False]]),
        query_mask=rt.constant([[True, False, True]]),
        return_attention_scores=True,
    )
    s = scores.numpy()[0, 0]
    assert (s[:, 2] == 0).all() and (s[1] == 0).all()
    np.testing.assert_allclose(s[[0, 2]].sum(-1), [1.0, 1.0], rtol=1e-6)


def test_output_shapes_and_weights() -> None:
    layer = rt.keras.layers.MultiHeadAttention(num_heads=4, key_dim=3, value_dim=5)
    y = layer(rt.ones([2, 7, 6]), rt.ones([2, 9, 8]))
    assert y.shape == (2, 7, 6)
    shapes = [tuple(w.shape) for w in layer.weights]
    assert shapes == [(6, 4, 3), (4, 3), (8, 4, 3), (4, 3), (8, 4, 5), (4, 5), (4, 5, 6), (6,)]
    assert layer.compute_output_shape((2, 7, 6), (2, 9, 8)) == (2, 7, 6)
    dense = rt.keras.layers.EinsumDense("abc,cd->abd", output_shape=(None, 3))
    assert dense.compute_output_shape((2, 5, 4)) == (2, 5, 3)


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="num_heads"):
        rt.keras.layers.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="attention_axes"):
        rt.keras.layers.MultiHeadAttention(2, 2, attention_axes="time")
    with pytest.raises(ValueError, match="except the last one"):
        rt.keras.layers.MultiHeadAttention(2, 2)(
            rt.ones([1, 3, 4]), rt.ones([1, 5, 4]), key=rt.ones([1, 6, 4])
        )
    with pytest.raises(ValueError, match="invalid einsum equation"):
        rt.keras.layers.EinsumDense("ab->b", output_shape=2)(rt.ones([2, 3]))
    with pytest.raises(ValueError, match="neither the input spec"):
        rt.keras.layers.EinsumDense("ab,bc->ad", output_shape=2)(rt.ones([2, 3]))
    with pytest.raises(ValueError, match="bias dimension 'z'"):
        rt.keras.layers.EinsumDense("ab,bc->ac", output_shape=2, bias_axes="z")(rt.ones([2, 3]))
