"""Does Keras 3 read the files rustape writes? Two steps, two environments:

    python check_keras_reads_rustape.py write DIR                  # rustape's venv
    /work/venv-tf/bin/python check_keras_reads_rustape.py check DIR  # TensorFlow's venv

`write` loads each of keras_files/<name>.keras (written by gen_keras_files.py) with rustape
and saves it again with `model.save` and `model.save_weights` into DIR. `check` loads those
files with Keras, runs each model on the inputs of keras_files/outputs.npz and compares with
Keras's own outputs there (the weights went Keras -> rustape -> Keras, so they are Keras's,
and the outputs must be too); for `resume` it runs Keras's 3 epochs of fit from the file
rustape wrote (the optimizer's state included) and compares the losses. Two models rustape built and trained (a compiled Sequential, a
functional model with two inputs and a shared layer) are saved too, with rustape's outputs,
which Keras's must equal. It writes the
differences to keras_files/keras_reads_rustape.json, which test_keras_files.py checks
(deterministic: the same files give the same numbers on every run).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "keras_files")
MODELS = ("mlp", "resume", "cnn", "rnn", "attention", "bidirectional", "custom")


def write(out: str) -> None:
    import rustape as rt

    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    from test_keras_files import ScaledDense  # noqa: F401  (registers rtfiles>ScaledDense)

    os.makedirs(out, exist_ok=True)
    for name in MODELS:
        model = rt.keras.models.load_model(os.path.join(FILES, f"{name}.keras"))
        model.save(os.path.join(out, f"{name}.keras"))
        model.save_weights(os.path.join(out, f"{name}.weights.h5"))
    # Models rustape built and trained (configs from rustape's constructors), with rustape's
    # outputs for Keras to match.
    layers = rt.keras.layers
    rng = np.random.default_rng(5)
    x = rng.normal(size=(8, 4)).astype(np.float32)
    sequential = rt.keras.Sequential(
        [
            rt.keras.Input(shape=(4,)),
            layers.Dense(5, activation="relu"),
            layers.BatchNormalization(),
            layers.Dense(2),
        ]
    )
    sequential.compile(optimizer=rt.keras.optimizers.Adam(0.01), loss="mse")
    sequential.fit(x, x[:, :2], epochs=2, batch_size=4, shuffle=False, verbose=0)
    a, b = rt.keras.Input(shape=(4,)), rt.keras.Input(shape=(3,))
    shared = layers.Dense(3, activation="tanh")
    merged = layers.Concatenate()([shared(a), layers.Dense(3)(b)])
    functional = rt.keras.Model([a, b], layers.Dense(1)(merged))
    inputs = {"rt_sequential": x, "rt_functional": [x, x[:, :3]]}
    outputs = {}
    for name, model in (("rt_sequential", sequential), ("rt_functional", functional)):
        model.save(os.path.join(out, f"{name}.keras"))
        outputs[name] = np.asarray(model(inputs[name], training=False).numpy())
    np.savez(
        os.path.join(out, "rustape_outputs.npz"),
        x=x,
        **outputs,  # type: ignore[arg-type]
    )


def check(out: str) -> None:
    import keras

    @keras.saving.register_keras_serializable(package="rtfiles")
    class ScaledDense(keras.layers.Layer):
        def __init__(self, units: int, **kwargs: object) -> None:
            super().__init__(**kwargs)
            self.units = units
            self.inner = keras.layers.Dense(units, activation="tanh")

        def build(self, input_shape: tuple[int, ...]) -> None:
            self.scale = self.add_weight(shape=(self.units,), initializer="ones", name="scale")
            self.inner.build(input_shape)

        def call(self, x: object) -> object:
            return self.inner(x) * self.scale

        def get_config(self) -> dict[str, object]:
            return {**super().get_config(), "units": self.units}

    data = np.load(os.path.join(FILES, "outputs.npz"))
    result: dict[str, float] = {}
    for name in MODELS:
        x = data[f"{name}/x"]
        original = keras.models.load_model(os.path.join(FILES, f"{name}.keras"))
        expected = np.asarray(original(x, training=False))
        model = keras.models.load_model(os.path.join(out, f"{name}.keras"))
        got = np.asarray(model(x, training=False))
        result[f"{name}/keras_file"] = float(np.abs(got - expected).max())
        original.load_weights(os.path.join(out, f"{name}.weights.h5"))
        got = np.asarray(original(x, training=False))
        result[f"{name}/weights_file"] = float(np.abs(got - expected).max())
    ours = np.load(os.path.join(out, "rustape_outputs.npz"))
    x = ours["x"]
    for name, args in (("rt_sequential", x), ("rt_functional", [x, x[:, :3]])):
        model = keras.models.load_model(os.path.join(out, f"{name}.keras"))
        got = np.asarray(model(args, training=False))
        result[f"{name}/keras_file"] = float(np.abs(got - ours[name]).max())
    model = keras.models.load_model(os.path.join(out, "resume.keras"))
    history = model.fit(
        data["resume/x"], data["resume/labels"], epochs=3, batch_size=8, shuffle=False, verbose=0
    )
    losses = np.asarray(history.history["loss"], np.float64)
    result["resume/losses"] = float(np.abs(losses - data["resume/losses"]).max())
    with open(os.path.join(FILES, "keras_reads_rustape.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
