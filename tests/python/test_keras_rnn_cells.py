"""Recurrent cells and the generic `RNN` layer against Keras 3 (tests/reference/gen_rnn_cells.py):
`RNN` over each built-in cell, stacked cells, a user-written cell, masks, `go_backwards`,
initial states, `Bidirectional(RNN(cell))`, the cells called alone and a trained model;
gradients against finite differences; the dropout masks; the errors."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_rnn_cells

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "rnn_cells.npz"),
    allow_pickle=False,
)
L = rt.keras.layers


def _compare(ours: dict[str, np.ndarray], prefix: str, rtol: float = 2e-5) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and set(ours) == expected
    for key in sorted(expected):
        np.testing.assert_allclose(ours[key], REF[key], rtol=rtol, atol=2e-6, err_msg=key)


@pytest.mark.parametrize("name", gen_rnn_cells.LAYERS)
def test_rnn_over_cells_matches_keras(name: str) -> None:
    # Outputs (with return_state, every state, nested per cell when stacked) and the
    # gradients of the input and of every weight.
    _compare(gen_rnn_cells._run_layer(rt.keras, rt, name, masked=False), f"{name}/")


@pytest.mark.parametrize("name", gen_rnn_cells.MASKED)
def test_masked_rnn_over_cells_matches_keras(name: str) -> None:
    # Masked steps hold the states and repeat the last output (Bidirectional: zeros).
    key = f"{name}_masked"
    _compare(gen_rnn_cells._run_layer(rt.keras, rt, name, masked=True), f"{key}/")


def test_initial_state_and_cells_alone_match_keras() -> None:
    _compare(gen_rnn_cells._initial_state(rt.keras, rt), "initial/")
    # A single state comes back bare when given bare, in a list when given in a list.
    _compare(gen_rnn_cells._cells_alone(rt.keras), "alone/")


def test_trained_rnn_of_lstm_cell_matches_keras() -> None:
    _compare(gen_rnn_cells._trained(rt.keras), "trained/", rtol=1e-4)


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.SimpleRNNCell(3, dtype="float64"),
        lambda: L.LSTMCell(3, dtype="float64"),
        lambda: L.GRUCell(3, dtype="float64"),
        lambda: L.GRUCell(3, reset_after=False, dtype="float64"),
        lambda: [L.LSTMCell(2, dtype="float64"), L.SimpleRNNCell(3, dtype="float64")],
    ],
    ids=["simple", "lstm", "gru", "gru_before", "stacked"],
)
def test_rnn_over_cells_gradients_match_finite_differences(make: object) -> None:
    rng = np.random.default_rng(5)
    layer = L.RNN(make(), return_sequences=True, dtype="float64")  # type: ignore[operator]
    layer.build((2, 4, 3))
    layer.set_weights([rng.normal(size=tuple(w.shape)) * 0.5 for w in layer.weights])
    x = rng.normal(size=(2, 4, 3))
    mask = rt.constant(np.array([[True, True, True, False], [False, True, True, True]]))
    probe = rng.normal(size=(2, 4, 3))  # every case ends in 3 units

    def loss() -> rt.Tensor:
        return rt.reduce_sum(layer(x, mask=mask) * probe)

    # The input, to second order.
    check_gradients(lambda t: layer(t, mask=mask), [x])
    # Every weight, first order, against central differences of the loss.
    with rt.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, layer.trainable_weights)
    eps = 1e-6
    for var, grad in zip(layer.trainable_weights, grads):
        w = var.numpy().copy()
        numeric = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            for sign in (1, -1):
                shifted = w.copy()
                shifted[i] += sign * eps
                var.assign(shifted)
                numeric[i] += sign * float(loss().numpy()) / (2 * eps)
        var.assign(w)
        np.testing.assert_allclose(np.asarray(grad), numeric, rtol=1e-5, atol=1e-7)


def test_cells_step_like_their_layers() -> None:
    # The same weights give the same numbers as SimpleRNN / LSTM / GRU (one step code).
    x = rt.constant(np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32))
    pairs = [
        (L.SimpleRNNCell(4), L.SimpleRNN(4, return_sequences=True)),
        (L.LSTMCell(4), L.LSTM(4, return_sequences=True)),
        (L.GRUCell(4), L.GRU(4, return_sequences=True)),
        (L.GRUCell(4, reset_after=False), L.GRU(4, reset_after=False, return_sequences=True)),
    ]
    for cell, layer in pairs:
        over_cell = L.RNN(cell, return_sequences=True)
        expected = over_cell(x).numpy()
        layer.build((2, 5, 3))
        layer.set_weights(over_cell.get_weights())
        np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-6, atol=1e-7)


def test_dropout_masks_hold_for_a_sequence_and_change_between_calls() -> None:
    # With a zero recurrent kernel and the same input at every step, every step's output is
    # the same exactly when the input mask is the same at every step (Keras draws it once
    # per call of the RNN).
    cell = L.SimpleRNNCell(64, dropout=0.5, recurrent_initializer="zeros", seed=3)
    layer = L.RNN(cell, return_sequences=True)
    x = np.broadcast_to(np.random.default_rng(1).normal(size=(1, 1, 8)), (1, 6, 8)).astype(
        np.float32
    )
    first = layer(x, training=True).numpy()
    for t in range(1, 6):
        np.testing.assert_array_equal(first[:, t], first[:, 0])
    second = layer(x, training=True).numpy()
    assert not np.array_equal(first, second)  # a new mask for the next call
    np.testing.assert_array_equal(layer(x).numpy()[:, 0], layer(x, training=False).numpy()[:, 0])
    assert cell._sequence_masks is None  # nothing held between calls


def test_zero_timesteps_and_output_shapes() -> None:
    layer = L.RNN(L.LSTMCell(3), return_sequences=True, return_state=True)
    out, h, c = layer(rt.zeros([2, 0, 4]))
    assert out.shape == (2, 0, 3) and h.shape == (2, 3) and c.shape == (2, 3)
    np.testing.assert_array_equal(L.RNN(L.GRUCell(3))(rt.zeros([2, 0, 4])).numpy(), 0.0)
    cell = L.LSTMCell(5)
    assert cell.state_size == [5, 5] and cell.output_size == 5
    assert L.GRUCell(2).state_size == 2
    assert L.StackedRNNCells([L.LSTMCell(2), L.GRUCell(3)]).state_size == [[2, 2], 3]


def test_functional_model_with_rnn_cell() -> None:
    inputs = rt.keras.Input(shape=(5, 4))
    outputs = L.Dense(1)(L.RNN([L.GRUCell(3), L.LSTMCell(2)])(inputs))
    model = rt.keras.Model(inputs, outputs)
    assert model(np.ones((2, 5, 4), np.float32)).shape == (2, 1)
    assert len(model.trainable_weights) == 3 + 3 + 2


def test_errors_name_the_layer_and_shapes() -> None:
    class NoStateSize(rt.keras.layers.Layer):
        def call(self, inputs: rt.Tensor, states: list) -> tuple:
            return inputs, states

    with pytest.raises(ValueError, match="state_size"):
        L.RNN(NoStateSize())
    with pytest.raises(ValueError, match="state_size"):
        L.StackedRNNCells([L.GRUCell(2), NoStateSize()])
    with pytest.raises(ValueError, match="stateful"):
        L.RNN(L.GRUCell(2), stateful=True)
    with pytest.raises(ValueError, match=r"rank 3 or more.*\[2, 4\]"):
        L.RNN(L.GRUCell(2))(rt.ones([2, 4]))
    with pytest.raises(ValueError, match=r"rank 3 or more.*\[2, 4\]"):
        L.RNN(L.GRUCell(2)).call(rt.ones([2, 4]))
    with pytest.raises(ValueError, match="expected 2 initial state"):
        L.RNN(L.LSTMCell(2))(rt.ones([2, 3, 4]), initial_state=[rt.zeros([2, 2])])
    cell = L.LSTMCell(3)
    with pytest.raises(ValueError, match=r"LSTMCell .*2 state\(s\).*\[2, 4\] and 1 state"):
        cell(rt.ones([2, 4]), [rt.zeros([2, 3])])
    with pytest.raises(ValueError, match=r"a state must have shape \[2, 3\], got \[2, 5\]"):
        cell(rt.ones([2, 4]), [rt.zeros([2, 5]), rt.zeros([2, 3])])
    with pytest.raises(ValueError, match=r"expected inputs \[batch, features\]"):
        L.GRUCell(2).build((2, 3, 4))
    with pytest.raises(TypeError, match="GRUCell.*unexpected"):
        L.GRUCell(2, time_major=True)
    built = L.RNN(L.GRUCell(2))
    built(rt.ones([1, 2, 3]))
    with pytest.raises(ValueError, match="built already"):
        L.Bidirectional(built)
