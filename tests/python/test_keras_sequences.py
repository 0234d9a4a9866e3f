"""Masked sequence models against Keras 3 (tests/reference/gen_sequences.py): recurrent layers
given the mask `Embedding(mask_zero=True)` attaches, `Bidirectional` in each merge mode,
`TimeDistributed`, masked `GlobalAveragePooling1D` and `MultiHeadAttention`, and the
text-classification tutorial's model trained with `fit`; gradients against finite
differences; how masks travel."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_sequences

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "sequences.npz"),
    allow_pickle=False,
)


def _compare(ours: dict[str, np.ndarray], prefix: str, rtol: float = 2e-5) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and set(ours) == expected
    for key in sorted(expected):
        np.testing.assert_allclose(ours[key], REF[key], rtol=rtol, atol=2e-6, err_msg=key)


@pytest.mark.parametrize("name", gen_sequences.MASKED)
def test_masked_layers_match_keras(name: str) -> None:
    # Masked steps hold the states and repeat the last output (zeros with
    # zero_output_for_mask, and inside Bidirectional with return_sequences); go_backwards;
    # merge modes; return_state; the gradients of the embedding table and every weight.
    _compare(gen_sequences._masked(rt.keras, rt, name), f"{name}/")


def test_attention_takes_padding_masks_from_the_embedding() -> None:
    _compare(gen_sequences._attention(rt.keras, rt), "attention/")


def test_masking_and_rescaling_match_keras() -> None:
    # Masking: zero-vector steps give zeros and a mask the GRU holds its state over (a step
    # with one zero feature stays); the gradients of the input and the GRU's weights.
    # Rescaling: uint8 pixels to [-1, 1], and per-channel scales and offsets.
    out = gen_sequences._masking(rt.keras, rt)
    _compare({k: v for k, v in out.items() if k.startswith("masking/")}, "masking/")
    _compare({k: v for k, v in out.items() if k.startswith("rescaling/")}, "rescaling/")


def test_text_classifier_fit_matches_keras() -> None:
    _compare(gen_sequences._classifier(rt.keras), "classifier/", rtol=2e-4)


def test_masked_lstm_gradients_match_finite_differences() -> None:
    layer = rt.keras.layers.LSTM(2, return_sequences=True, dtype="float64")
    x = np.random.default_rng(0).normal(size=(2, 4, 3))
    layer(x)
    mask = rt.constant([[True, True, False, True], [False, True, True, True]])
    check_gradients(lambda t: layer(t, mask=mask), [x], second_order=False)


def test_mask_travels_through_layers_that_keep_timesteps() -> None:
    tokens = np.array([[3, 1, 0, 0]], np.int32)
    embedding = rt.keras.layers.Embedding(5, 2, mask_zero=True)
    dense = rt.keras.layers.Dense(2)
    pool = rt.keras.layers.GlobalAveragePooling1D()
    x = dense(embedding(tokens))
    pooled = pool(x).numpy()
    np.testing.assert_allclose(pooled, x.numpy()[:, :2].mean(1), rtol=1e-6)
    # A layer that drops the timesteps without support for masks warns, as Keras does.
    with pytest.warns(UserWarning, match="does not support masking"):
        rt.keras.layers.Flatten()(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pool(dense(rt.ones([1, 4, 2])))  # no mask, no warning


def test_wrapper_errors_and_shapes() -> None:
    with pytest.raises(TypeError, match="recurrent layer"):
        rt.keras.layers.Bidirectional(rt.keras.layers.Dense(2))
    with pytest.raises(ValueError, match="Invalid merge mode"):
        rt.keras.layers.Bidirectional(rt.keras.layers.LSTM(2), merge_mode="max")
    with pytest.raises(TypeError, match="Layer` instance"):
        rt.keras.layers.TimeDistributed("dense")
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        rt.keras.layers.TimeDistributed(rt.keras.layers.Dense(2))(rt.ones([2, 3]))
    bi = rt.keras.layers.Bidirectional(rt.keras.layers.GRU(3, return_sequences=True))
    assert bi.compute_output_shape((None, 5, 4)) == (None, 5, 6)
    bi(rt.ones([1, 5, 4]))
    names = [w.name for w in bi.weights]
    assert len(names) == 6 and all(n.startswith("forward_") for n in names[:3])
    assert all(n.startswith("backward_") for n in names[3:])
    td = rt.keras.layers.TimeDistributed(rt.keras.layers.Dense(7))
    assert td.compute_output_shape((2, 5, 3)) == (2, 5, 7)
