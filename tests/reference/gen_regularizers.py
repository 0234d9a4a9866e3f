"""Keras 3's regularizers and constraints (TensorFlow 2.21): their values on fixed tensors, the
`losses` of layers given weight and activity regularizers, and training runs (`fit`, and a
GradientTape loop adding `model.losses`) whose constraints project the weights after each step.

`run(keras, name)` is imported by the test and runs the same code on rustape. Run with
TensorFlow's venv (see README.md); writes regularizers.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _values(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """Regularizers and constraints applied to fixed tensors."""
    reg, con = keras.regularizers, keras.constraints
    rng = _rng(5)
    x = rng.normal(size=(5, 3)).astype(np.float32)
    k4 = rng.normal(size=(2, 2, 3, 4)).astype(np.float32)
    out: dict[str, np.ndarray] = {"x": x, "k4": k4}
    regularizers = {
        "l1": reg.L1(0.3),
        "l2": reg.L2(0.2),
        "l1l2": reg.L1L2(l1=0.1, l2=0.05),
        "l1_default": reg.get("l1"),
        "l2_default": reg.get("l2"),
        "l1l2_default": reg.get("l1l2"),
        "orthogonal_rows": reg.OrthogonalRegularizer(factor=0.7),
        "orthogonal_columns": reg.OrthogonalRegularizer(factor=0.3, mode="columns"),
    }
    for name, r in regularizers.items():
        out[f"reg/{name}"] = np.asarray(r(lib.constant(x)), np.float32)
    constraints = {
        "max_norm": con.MaxNorm(1.5),
        "max_norm_axis1": con.MaxNorm(1.0, axis=1),
        "non_neg": con.get("non_neg"),
        "unit_norm": con.UnitNorm(axis=1),
        "min_max_norm": con.MinMaxNorm(0.5, 1.0, rate=0.7),
    }
    for name, c in constraints.items():
        out[f"con/{name}"] = np.asarray(c(lib.constant(x)), np.float32)
    kernel = lib.constant(k4)
    out["con/max_norm_kernel"] = np.asarray(con.MaxNorm(2.0, axis=[0, 1, 2])(kernel), np.float32)
    return out


#: Layers given regularizers, each called once on a fixed input with fixed weights.
LAYERS = (
    "dense",
    "dense_orthogonal",
    "conv2d",
    "depthwise",
    "embedding",
    "lstm",
    "batch_norm",
    "layer_norm",
    "prelu",
)


def _layer(keras: Any, name: str) -> tuple[Any, np.ndarray]:
    L, reg = keras.layers, keras.regularizers
    rng = _rng(7)
    if name == "dense":
        layer = L.Dense(
            4,
            kernel_regularizer=reg.L1L2(0.01, 0.02),
            bias_regularizer="l2",
            activity_regularizer=reg.L1(0.05),
        )
        x = rng.normal(size=(6, 3))
    elif name == "dense_orthogonal":
        layer = L.Dense(5, kernel_regularizer=reg.OrthogonalRegularizer(0.5, mode="columns"))
        x = rng.normal(size=(2, 3))
    elif name == "conv2d":
        layer = L.Conv2D(
            3,
            2,
            kernel_regularizer=reg.L2(0.03),
            bias_regularizer=reg.L1(0.2),
            activity_regularizer="l2",
        )
        x = rng.normal(size=(2, 4, 4, 2))
    elif name == "depthwise":
        layer = L.DepthwiseConv2D(2, depthwise_regularizer=reg.L1(0.1), bias_regularizer="l1")
        x = rng.normal(size=(2, 4, 4, 3))
    elif name == "embedding":
        layer = L.Embedding(7, 3, embeddings_regularizer=reg.L2(0.5), activity_regularizer="l1")
        x = rng.integers(0, 7, size=(4, 5))
        return layer, x.astype(np.int32)
    elif name == "lstm":
        layer = L.LSTM(
            3,
            kernel_regularizer=reg.L2(0.1),
            recurrent_regularizer=reg.L1(0.2),
            bias_regularizer=reg.L2(0.3),
            activity_regularizer=reg.L2(0.4),
        )
        x = rng.normal(size=(2, 4, 2))
    elif name == "batch_norm":
        layer = L.BatchNormalization(gamma_regularizer=reg.L2(0.3), beta_regularizer=reg.L1(0.2))
        x = rng.normal(size=(5, 3))
    elif name == "layer_norm":
        layer = L.LayerNormalization(gamma_regularizer="l1", beta_regularizer=reg.L2(0.4))
        x = rng.normal(size=(5, 3))
    else:
        layer = L.PReLU(alpha_regularizer=reg.L2(0.6))
        x = rng.normal(size=(5, 3))
    return layer, x.astype(np.float32)


def _layer_losses(keras: Any, name: str) -> dict[str, np.ndarray]:
    layer, x = _layer(keras, name)
    layer.build(x.shape)
    rng = _rng(13)
    weights = [
        (rng.normal(size=tuple(w.shape)) * 0.7).astype(np.float32) for w in layer.get_weights()
    ]
    layer.set_weights(weights)
    y = layer(x, training=True) if name == "batch_norm" else layer(x)
    out = {f"{name}/y": np.asarray(y, np.float32)}
    for k, w in enumerate(weights):
        out[f"{name}/w{k}"] = w
    out[f"{name}/losses"] = np.array([float(loss) for loss in layer.losses], np.float32)
    return out


def _model(keras: Any) -> Any:
    L, reg, con = keras.layers, keras.regularizers, keras.constraints
    return keras.Sequential(
        [
            keras.Input(shape=(4,)),
            L.Dense(
                6,
                activation="tanh",
                kernel_regularizer=reg.L2(0.05),
                bias_regularizer=reg.L1(0.02),
                kernel_constraint=con.MaxNorm(0.9),
                activity_regularizer=reg.L2(0.01),
            ),
            L.Dense(
                1,
                kernel_constraint=con.NonNeg(),
                bias_constraint=con.MinMaxNorm(0.0, 0.1, rate=0.5),
                kernel_regularizer=reg.L1(0.03),
            ),
        ]
    )


def _data() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = _rng(17)
    x = rng.normal(size=(24, 4)).astype(np.float32)
    y = (np.sin(x @ rng.normal(size=(4, 1))) + 0.2).astype(np.float32)
    shapes = [(4, 6), (6,), (6, 1), (1,)]
    weights = [(rng.normal(size=s) * 0.5).astype(np.float32) for s in shapes]
    return x, y, weights


def _fit(keras: Any) -> dict[str, np.ndarray]:
    x, y, weights = _data()
    model = _model(keras)
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.5), loss="mse")
    history = model.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)
    out = {"fit/loss": np.array(history.history["loss"], np.float32)}
    for k, w in enumerate(model.get_weights()):
        out[f"fit/w{k}"] = np.asarray(w)
    return out


def _tape_loop(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    x, y, weights = _data()
    model = _model(keras)
    model.set_weights(weights)
    optimizer = keras.optimizers.Adam(0.05)
    mse = keras.losses.MeanSquaredError()
    losses = []
    for step in range(3):
        xb, yb = x[step * 8 : (step + 1) * 8], y[step * 8 : (step + 1) * 8]
        with lib.GradientTape() as tape:
            pred = model(xb, training=True)
            loss = mse(yb, pred) + lib.add_n(model.losses)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    out = {"tape/loss": np.array(losses, np.float32)}
    for k, w in enumerate(model.get_weights()):
        out[f"tape/w{k}"] = np.asarray(w)
    return out


def run(keras: Any, lib: Any) -> dict[str, np.ndarray]:
    """Every array, computed with `keras` over `lib` (tensorflow or rustape)."""
    out = _values(keras, lib)
    for name in LAYERS:
        out.update(_layer_losses(keras, name))
    out.update(_fit(keras))
    out.update(_tape_loop(keras, lib))
    return out


def main() -> None:
    import keras
    import tensorflow as tf

    out = run(keras, tf)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regularizers.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
