"""Files Keras 3 (3.15, TensorFlow 2.21) writes: `.keras` models and `.weights.h5` weights,
for `tests/python/test_keras_files.py` to load with rustape.

Small models, each trained a little on fixed data so no weight is at its initial value:
- `mlp`: Sequential Dense + BatchNormalization + Dropout + Dense, compiled (Adam, sparse
  categorical cross-entropy, accuracy);
- `resume`: Sequential Dense + BatchNormalization + Dense compiled with Adam; after saving, 3
  more epochs of `fit` (no shuffling) whose losses the test reproduces from the loaded file
  (the optimizer's state restored);
- `cnn`: functional Conv2D + MaxPooling2D + Flatten + Dense;
- `rnn`: functional Embedding + LSTM + GRU + Dense;
- `attention`: functional MultiHeadAttention + Add + LayerNormalization + Dense;
- `bidirectional`: Sequential Bidirectional(LSTM) + Dense;
- `custom`: functional with a registered custom layer (`rtfiles>ScaledDense`, holding a Dense
  and a weight of its own).
Writes keras_files/<name>.keras (and <name>.weights.h5 for `cnn` and `attention`) and
keras_files/outputs.npz: each model's input `<name>/x` and inference output `<name>/y`, and
`resume/losses`, `resume/x_fit`, `resume/y_fit`. Run with TensorFlow's venv (README.md).
"""

from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "keras_files")


def data() -> dict[str, np.ndarray]:
    """The fixed inputs (training and inference) of every model."""
    rng = np.random.default_rng(7)
    return {
        "mlp/x": rng.normal(size=(16, 4)).astype(np.float32),
        "mlp/labels": rng.integers(0, 3, size=(16,)).astype(np.int32),
        "resume/x": rng.normal(size=(24, 5)).astype(np.float32),
        "resume/labels": rng.integers(0, 3, size=(24,)).astype(np.int32),
        "cnn/x": rng.normal(size=(6, 8, 8, 1)).astype(np.float32),
        "cnn/labels": rng.normal(size=(6, 2)).astype(np.float32),
        "rnn/x": rng.integers(0, 10, size=(6, 5)).astype(np.int32),
        "rnn/labels": rng.normal(size=(6, 1)).astype(np.float32),
        "attention/x": rng.normal(size=(4, 3, 8)).astype(np.float32),
        "attention/labels": rng.normal(size=(4, 3, 2)).astype(np.float32),
        "bidirectional/x": rng.normal(size=(5, 4, 3)).astype(np.float32),
        "bidirectional/labels": rng.normal(size=(5, 2)).astype(np.float32),
        "custom/x": rng.normal(size=(6, 3)).astype(np.float32),
        "custom/labels": rng.normal(size=(6, 2)).astype(np.float32),
    }


def main() -> None:
    import keras

    keras.utils.set_random_seed(0)
    L = keras.layers

    @keras.saving.register_keras_serializable(package="rtfiles")
    class ScaledDense(keras.layers.Layer):
        """A Dense whose output is scaled by a trained per-unit weight."""

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

    d = data()
    models = {}

    models["mlp"] = keras.Sequential(
        [
            keras.Input(shape=(4,)),
            L.Dense(8, activation="relu"),
            L.BatchNormalization(),
            L.Dropout(0.25),
            L.Dense(3, activation="softmax"),
        ]
    )
    models["mlp"].compile(
        optimizer=keras.optimizers.Adam(0.01),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    models["resume"] = keras.Sequential(
        [
            keras.Input(shape=(5,)),
            L.Dense(6, activation="tanh"),
            L.BatchNormalization(),
            L.Dense(3),
        ]
    )
    models["resume"].compile(
        optimizer=keras.optimizers.Adam(0.02),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )

    inp = keras.Input(shape=(8, 8, 1))
    h = L.Conv2D(3, 3, activation="relu")(inp)
    h = L.MaxPooling2D(2)(h)
    h = L.Flatten()(h)
    models["cnn"] = keras.Model(inp, L.Dense(2)(h), name="cnn")

    inp = keras.Input(shape=(5,), dtype="int32")
    h = L.Embedding(10, 4)(inp)
    h = L.LSTM(4, return_sequences=True)(h)
    h = L.GRU(3)(h)
    models["rnn"] = keras.Model(inp, L.Dense(1)(h), name="rnn")

    inp = keras.Input(shape=(3, 8))
    h = L.MultiHeadAttention(num_heads=2, key_dim=4)(inp, inp)
    h = L.LayerNormalization()(L.Add()([inp, h]))
    models["attention"] = keras.Model(inp, L.Dense(2)(h), name="attention")

    models["bidirectional"] = keras.Sequential(
        [keras.Input(shape=(4, 3)), L.Bidirectional(L.LSTM(3)), L.Dense(2)]
    )

    inp = keras.Input(shape=(3,))
    models["custom"] = keras.Model(inp, ScaledDense(2)(inp), name="custom")

    for name in ("cnn", "rnn", "attention", "bidirectional", "custom"):
        models[name].compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")

    os.makedirs(OUT, exist_ok=True)
    out: dict[str, np.ndarray] = {}
    for name, model in models.items():
        x, labels = d[f"{name}/x"], d[f"{name}/labels"]
        model.fit(x, labels, epochs=2, batch_size=8, shuffle=False, verbose=0)
        model.save(os.path.join(OUT, f"{name}.keras"))
        if name in ("cnn", "attention"):
            model.save_weights(os.path.join(OUT, f"{name}.weights.h5"))
        out[f"{name}/x"] = x
        out[f"{name}/y"] = np.asarray(model(x, training=False))
    model = models["resume"]
    history = model.fit(
        d["resume/x"], d["resume/labels"], epochs=3, batch_size=8, shuffle=False, verbose=0
    )
    out["resume/labels"] = d["resume/labels"]
    out["resume/losses"] = np.asarray(history.history["loss"], np.float64)
    out["resume/y_after"] = np.asarray(model(d["resume/x"], training=False))
    np.savez(os.path.join(OUT, "outputs.npz"), **out)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
