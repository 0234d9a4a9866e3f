"""Keras 3's recurrent cells and generic `RNN` layer (TensorFlow 2.21) with fixed weights:
`RNN` over `SimpleRNNCell`, `LSTMCell`, `GRUCell` (both bias forms), stacked cells (a list
and `StackedRNNCells`), a user-written cell with two states, masks, `go_backwards`, initial
states, `Bidirectional(RNN(cell))`; the cells called alone; outputs and gradients; and a
small `RNN(LSTMCell)` model trained with `fit`.

`run(keras, lib)` is imported by the test and runs the same code on rustape (`lib` is
tensorflow or rustape). Run with TensorFlow's venv (see README.md); writes rnn_cells.npz
beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def _array(seed: int, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).normal(size=shape) * scale).astype(np.float32)


def _two_state_cell(keras: Any, lib: Any, units: int) -> Any:
    """A user-written cell with two states: a tanh state and a decaying sum of its squares."""

    class TwoState(keras.layers.Layer):
        def __init__(self, units: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.units = units
            self.state_size = [units, units]

        def build(self, input_shape: Any) -> None:
            self.w = self.add_weight(
                shape=(input_shape[-1], self.units), initializer="ones", name="w"
            )
            self.u = self.add_weight(shape=(self.units, self.units), initializer="ones", name="u")

        def call(self, inputs: Any, states: Any) -> Any:
            h, s = states
            h = lib.tanh(lib.matmul(inputs, self.w) + lib.matmul(h, self.u))
            s = 0.5 * s + h * h
            return h + s, [h, s]

    return TwoState(units)


def _layer(keras: Any, lib: Any, name: str) -> Any:
    L = keras.layers
    if name == "simple":
        return L.RNN(L.SimpleRNNCell(3), return_sequences=True)
    if name == "lstm_state":
        return L.RNN(L.LSTMCell(3), return_state=True)
    if name == "gru_before_backwards":
        return L.RNN(L.GRUCell(3, reset_after=False), go_backwards=True, return_sequences=True)
    if name == "gru_after_relu":
        return L.RNN(L.GRUCell(3, activation="relu"), return_sequences=True)
    if name == "stacked_list":
        return L.RNN([L.LSTMCell(3), L.GRUCell(2)], return_state=True)
    if name == "stacked_cells":
        cells = L.StackedRNNCells([L.SimpleRNNCell(3), L.SimpleRNNCell(2, activation="relu")])
        return L.RNN(cells, return_sequences=True, go_backwards=True)
    if name == "custom":
        return L.RNN(_two_state_cell(keras, lib, 3), return_sequences=True, return_state=True)
    return L.Bidirectional(L.RNN(L.GRUCell(2), return_sequences=True))


#: `RNN` layers run on `x` (and given its mask where the name says so).
LAYERS = (
    "simple",
    "lstm_state",
    "gru_before_backwards",
    "gru_after_relu",
    "stacked_list",
    "stacked_cells",
    "custom",
    "bidirectional",
)
#: The layers also run with a mask (rows padded at the end, one at the start).
MASKED = ("simple", "lstm_state", "stacked_cells", "custom", "bidirectional")


def _mask() -> np.ndarray:
    mask = np.ones((3, 5), dtype=bool)
    mask[0, 3:] = False
    mask[2, :2] = False
    return mask


def _flat(result: Any) -> list[Any]:
    out: list[Any] = []
    stack = [result]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(list(item)))
        else:
            out.append(item)
    return out


def _run_layer(keras: Any, lib: Any, name: str, masked: bool) -> dict[str, np.ndarray]:
    layer = _layer(keras, lib, name)
    x = lib.Variable(_array(11, (3, 5, 4)))
    layer.build((3, 5, 4))
    weights = [_array(20 + k, tuple(w.shape), 0.5) for k, w in enumerate(layer.weights)]
    layer.set_weights(weights)
    mask = lib.constant(_mask()) if masked else None
    with lib.GradientTape() as tape:
        outs = _flat(layer(x, mask=mask) if masked else layer(x))
        loss = lib.add_n(
            [lib.reduce_sum(o * _array(40 + k, tuple(o.shape))) for k, o in enumerate(outs)]
        )
    grads = tape.gradient(loss, [x, *layer.trainable_weights])
    key = f"{name}{'_masked' if masked else ''}"
    out = {f"{key}/out{k}": np.asarray(o) for k, o in enumerate(outs)}
    for k, g in enumerate(grads):
        out[f"{key}/d{k}"] = np.asarray(g)
    return out


def _initial_state(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """An LSTMCell's RNN started from given states; gradients reach them."""
    layer = keras.layers.RNN(keras.layers.LSTMCell(3), return_sequences=True)
    layer.build((3, 5, 4))
    layer.set_weights([_array(60 + k, tuple(w.shape), 0.5) for k, w in enumerate(layer.weights)])
    x = _array(61, (3, 5, 4))
    h0, c0 = lib.Variable(_array(62, (3, 3))), lib.Variable(_array(63, (3, 3)))
    with lib.GradientTape() as tape:
        y = layer(x, initial_state=[h0, c0])
        loss = lib.reduce_sum(y * _array(64, (3, 5, 3)))
    dh, dc = tape.gradient(loss, [h0, c0])
    return {"initial/y": np.asarray(y), "initial/dh": np.asarray(dh), "initial/dc": np.asarray(dc)}


def _cells_alone(keras: Any) -> dict[str, np.ndarray]:
    """Each cell called on one step: a bare state, a state in a list, LSTM's pair."""
    L = keras.layers
    x = _array(70, (2, 4))
    out: dict[str, np.ndarray] = {}
    for name, cell in (
        ("simple", L.SimpleRNNCell(3)),
        ("lstm", L.LSTMCell(3)),
        ("gru", L.GRUCell(3)),
    ):
        cell.build((2, 4))
        cell.set_weights([_array(71 + k, tuple(w.shape), 0.5) for k, w in enumerate(cell.weights)])
        states = [_array(75 + k, (2, 3)) for k in range(2 if name == "lstm" else 1)]
        y, new = cell(x, states)
        out[f"alone/{name}/y"] = np.asarray(y)
        for k, s in enumerate(_flat(new)):
            out[f"alone/{name}/s{k}"] = np.asarray(s)
        if name != "lstm":
            _, new_bare = cell(x, states[0])
            out[f"alone/{name}/bare_is_tensor"] = np.array(not isinstance(new_bare, (list, tuple)))
            out[f"alone/{name}/bare"] = np.asarray(new_bare)
    return out


def _trained(keras: Any) -> dict[str, np.ndarray]:
    """`RNN(LSTMCell)` then Dense, trained two epochs with SGD."""
    L = keras.layers
    model = keras.Sequential([keras.Input(shape=(5, 4)), L.RNN(L.LSTMCell(4)), L.Dense(1)])
    model.set_weights([_array(80 + k, w.shape, 0.4) for k, w in enumerate(model.weights)])
    x = _array(90, (12, 5, 4))
    y = (x.sum(axis=(1, 2)) > 0).astype(np.float32)[:, None]
    model.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9), loss="mse")
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    out = {"trained/loss": np.array(history.history["loss"], np.float32)}
    out["trained/predict"] = np.asarray(model.predict(x[:3], verbose=0))
    for k, w in enumerate(model.get_weights()):
        out[f"trained/w{k}"] = np.asarray(w)
    return out


def run(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras` over `lib` (tensorflow or rustape)."""
    out: dict[str, np.ndarray] = {}
    for name in LAYERS:
        out.update(_run_layer(keras, lib, name, masked=False))
    for name in MASKED:
        out.update(_run_layer(keras, lib, name, masked=True))
    out.update(_initial_state(keras, lib))
    out.update(_cells_alone(keras))
    out.update(_trained(keras))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras, tf)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rnn_cells.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
