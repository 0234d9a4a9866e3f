"""rt.keras Model / Sequential / Input: the three forms, tracking, summary, weights, and a whole
training loop whose loss curve equals Keras 3's (tests/reference/gen_training.py)."""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stdout
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_training as gen

REF = np.load(os.path.join(HERE, "..", "reference", "training.npz"), allow_pickle=False)
keras = rt.keras


def mlp() -> Any:
    return keras.Sequential(
        [
            keras.Input(shape=(8,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(16, activation="tanh"),
            keras.layers.Dense(3),
        ]
    )


@pytest.mark.parametrize("run", gen.RUNS)
def test_training_loop_matches_keras(run: str) -> None:
    x, labels, targets, weights = gen.setup()
    model = mlp()
    model.set_weights(weights)
    if run == "adam_scce":
        opt = keras.optimizers.Adam(0.01)
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        y = labels
    elif run == "sgd_momentum_schedule_scce":
        opt = keras.optimizers.SGD(
            keras.optimizers.schedules.ExponentialDecay(0.2, 5, 0.7), momentum=0.9
        )
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        y = labels
    else:
        opt = keras.optimizers.RMSprop(0.005, momentum=0.2)
        loss_fn = keras.losses.MeanSquaredError()
        y = targets
    losses = []
    for _ in range(gen.STEPS):
        with rt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    # Matmul sums in another order than TensorFlow's: a few float32 ulps per step.
    np.testing.assert_allclose(losses, REF[f"{run}/losses"], rtol=2e-5)
    for k, w in enumerate(model.get_weights()):
        np.testing.assert_allclose(w, REF[f"{run}/w{k}"], rtol=1e-4, atol=1e-5)


def test_subclassed_model_finds_nested_layers_and_variables() -> None:
    class Block(keras.layers.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.inner = keras.layers.Dense(2)

        def call(self, x: Any) -> Any:
            return self.inner(x)

    class Net(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.stack = {"a": [Block(), (keras.layers.Dense(3),)], "b": keras.layers.Dense(1)}
            self.scale = rt.Variable(2.0)
            self.frozen = keras.layers.Dense(1, trainable=False)

        def call(self, x: Any, training: Any = None) -> Any:
            h = self.stack["a"][1][0](self.stack["a"][0](x))
            return self.scale * self.stack["b"](h) + self.frozen(h)

    net = Net()
    assert len(net.variables) == 1  # only `scale` before the first call builds the layers
    out = net(np.ones((4, 5), np.float32), training=True)
    assert tuple(out.shape) == (4, 1)
    assert len(net.trainable_variables) == 7
    assert len(net.non_trainable_variables) == 2
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(net(np.ones((4, 5), np.float32)))
    grads = tape.gradient(loss, net.trainable_variables)
    assert all(g is not None for g in grads)


def test_functional_model_and_summary() -> None:
    inputs = keras.Input(shape=(6,))
    h = keras.layers.Dense(4, activation="relu", name="hidden")(inputs)
    outputs = keras.layers.Dense(2, name="out")(h)
    model = keras.Model(inputs, outputs, name="functional_net")
    assert tuple(model(np.ones((3, 6), np.float32)).shape) == (3, 2)
    assert len(model.layers) == 2 and len(model.trainable_variables) == 4
    buf = io.StringIO()
    with redirect_stdout(buf):
        model.summary()
    text = buf.getvalue()
    assert 'Model: "functional_net"' in text
    assert "hidden (Dense)" in text and "(None, 4)" in text and "28" in text
    assert "Total params: 38" in text
    # A functional model is itself a layer of another.
    outer_in = keras.Input(shape=(6,))
    outer = keras.Model(outer_in, keras.layers.Dense(1)(model(outer_in)))
    assert len(outer.trainable_variables) == 6
    assert tuple(outer(np.zeros((2, 6), np.float32)).shape) == (2, 1)


def test_weights_round_trip(tmp_path: Any) -> None:
    model = mlp()
    x = np.ones((2, 8), np.float32)
    before = model(x).numpy()
    path = str(tmp_path / "model.weights.npz")
    model.save_weights(path)
    other = mlp()
    other.load_weights(path)
    np.testing.assert_array_equal(other(x).numpy(), before)
    with np.load(path, allow_pickle=False) as data:
        assert len(data.files) == 6
    with pytest.raises(ValueError, match="shape"):
        other.set_weights([np.zeros((1, 1), np.float32)] * 6)
    with pytest.raises(ValueError, match="arrays for"):
        other.set_weights([])


def test_sequential_without_input_builds_on_first_call() -> None:
    model = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(1)])
    assert model.variables == []
    model(np.ones((2, 4), np.float32))
    assert [tuple(v.shape) for v in model.variables] == [(4, 3), (3,), (3, 1), (1,)]
    buf = io.StringIO()
    with redirect_stdout(buf):
        model.summary()
    assert "(None, 3)" in buf.getvalue() and "Total params: 19" in buf.getvalue()


def test_input_and_output_shapes() -> None:
    # Keras: a first layer given input_shape= starts a Sequential with that Input, so its
    # output_shape is known as layers are added; keras.layers.InputLayer works as in Keras.
    model = keras.Sequential()
    model.add(keras.layers.Dense(8, input_shape=(5,)))
    assert model.input_shape == (None, 5) and model.output_shape == (None, 8)
    model.add(keras.layers.Reshape((2, 4)))
    assert model.output_shape == (None, 2, 4)
    stacked = keras.Sequential([keras.layers.InputLayer(input_shape=(3,)), keras.layers.Dense(2)])
    assert stacked.output_shape == (None, 2) and len(stacked.layers) == 1
    inputs = keras.layers.Input(shape=(6,))
    functional = keras.Model(inputs, keras.layers.Dense(3)(inputs))
    assert functional.input_shape == (None, 6) and functional.output_shape == (None, 3)
    # Built from data only: no symbolic ends, said by name.
    lazy = keras.Sequential([keras.layers.Dense(3)])
    lazy(np.ones((2, 4), np.float32))
    with pytest.raises(AttributeError, match="has no output_shape"):
        _ = lazy.output_shape


def test_tracking_survives_cycles_and_shared_layers() -> None:
    shared = keras.layers.Dense(2)

    class Net(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.blocks: Any = [shared, shared]
            self.blocks.append(self.blocks)  # a list that contains itself
            self.alias = {"again": shared}

        def call(self, x: Any) -> Any:
            return shared(shared(x))

    net = Net()
    net(np.ones((1, 2), np.float32))
    assert len(net.trainable_variables) == 2


def test_compile_fit_evaluate_predict() -> None:
    keras.utils.set_random_seed(1)  # initializers draw their seeds from Python's random, as Keras's
    rng = np.random.default_rng(1)
    centres = rng.normal(size=(3, 4)) * 6
    y = rng.integers(0, 3, size=240)
    x = (centres[y] + rng.normal(size=(240, 4))).astype(np.float32)
    model = keras.Sequential(
        [keras.Input(shape=(4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)]
    )
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(x, y)
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    history = model.fit(
        x[:200], y[:200], batch_size=20, epochs=15, validation_data=(x[200:], y[200:])
    )
    losses = history.history["loss"]
    assert len(losses) == 15 and losses[-1] < 0.3 * losses[0]
    assert history.history["accuracy"][-1] > 0.9 and history.history["val_accuracy"][-1] > 0.9
    loss, accuracy = model.evaluate(x[200:], y[200:])
    assert accuracy == history.history["val_accuracy"][-1]
    # evaluate's loss is the batch losses' mean weighted by batch size: the full-batch loss.
    full = float(
        keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y[200:], model(x[200:]))
    )
    assert abs(loss - full) < 1e-5
    assert model.predict(x, batch_size=64).shape == (240, 3)


def test_functional_residual_add_takes_numpy_inputs() -> None:
    # The model's input reaches `Add` beside a layer's output: both arrive as tensors (a
    # NumPy array in the list used to make Add see one stacked input).
    inputs = rt.keras.Input(shape=(3,))
    dense = rt.keras.layers.Dense(3, kernel_initializer="ones")
    twice = rt.keras.Model(inputs, rt.keras.layers.Add()([inputs, inputs]))
    residual = rt.keras.Model(inputs, rt.keras.layers.Add()([inputs, dense(inputs)]))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(twice(x).numpy(), 2 * x)
    np.testing.assert_allclose(residual(x).numpy(), x + x.sum(1, keepdims=True))
