"""Reference values of Keras 3's volumetric layers (in TensorFlow 2.21): forward outputs and
gradients with set weights, and a small fit of a Conv3D model.

Run with TensorFlow 2.21 (see README.md): writes conv3d_layers.json (the cases: layer class,
keyword arguments, input shape, weight names; the fit's model and losses) and conv3d_layers.npz
(per case `<name>:<array>`: the input `x`, the weights `w<j>` in `layer.weights` order, set to
these values before the call, the output `y`, the gradients `dx` and `dw<j>` of
`sum(y * weights(y.shape, 0))`; for the fit `fit:x`, `fit:y`, the initial weights
`fit:w<j>` and the losses per epoch `fit:losses`). Inputs are seeded NumPy arrays, float32.
"""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261125)


def weights(shape, salt):
    """Fixed weights in [0.5, 1.5) (the tests compute the same ones, so they are not stored)."""
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 7 + salt * 13) % 17) / 17.0).reshape(shape).astype(np.float32)


CASES = []
ARRAYS = {}


def case(name, layer, kwargs, shape, distinct=False):
    """Records Keras' `layer(**kwargs)` called on an input of `shape`."""
    if distinct:
        n = int(np.prod(shape))
        x = ((rng.permutation(n).reshape(shape) - n / 2) * (4.0 / n)).astype(np.float32)
    else:
        x = rng.normal(size=shape).astype(np.float32)
    obj = getattr(keras.layers, layer)(**kwargs)
    obj.build(tuple(shape))
    for j, w in enumerate(obj.weights):
        value = rng.normal(scale=0.5, size=w.shape).astype(np.float32)
        w.assign(value)
        ARRAYS[f"{name}:w{j}"] = value
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = obj(t)
        loss = tf.reduce_sum(y * weights(y.shape, 0))
    grads = tape.gradient(loss, [t, *obj.trainable_weights])
    ARRAYS[f"{name}:x"] = x
    ARRAYS[f"{name}:y"] = y.numpy()
    ARRAYS[f"{name}:dx"] = grads[0].numpy()
    for j, g in enumerate(grads[1:]):
        ARRAYS[f"{name}:dw{j}"] = g.numpy()
    CASES.append(
        {
            "name": name,
            "layer": layer,
            "kwargs": kwargs,
            "shape": list(shape),
            "weights": [w.path.split("/")[-1] for w in obj.weights],
        }
    )


case("conv3d_valid", "Conv3D", {"filters": 3, "kernel_size": 2}, [2, 4, 5, 6, 2])
case(
    "conv3d_same_strided_relu",
    "Conv3D",
    {
        "filters": 4,
        "kernel_size": [3, 2, 3],
        "strides": [2, 1, 2],
        "padding": "same",
        "activation": "relu",
    },
    [2, 5, 4, 6, 3],
)
case(
    "conv3d_dilated",
    "Conv3D",
    {"filters": 2, "kernel_size": 2, "dilation_rate": [2, 1, 2], "padding": "same"},
    [1, 5, 4, 5, 2],
)
case(
    "conv3d_channels_first",
    "Conv3D",
    {"filters": 3, "kernel_size": 2, "data_format": "channels_first", "use_bias": True},
    [2, 2, 4, 5, 3],
)
case(
    "conv3d_transpose_same",
    "Conv3DTranspose",
    {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"},
    [2, 3, 2, 4, 2],
)
case(
    "conv3d_transpose_valid_output_padding",
    "Conv3DTranspose",
    {"filters": 2, "kernel_size": [2, 3, 2], "strides": [2, 2, 3], "output_padding": [1, 0, 2]},
    [1, 2, 3, 2, 3],
)
case("max_pooling3d", "MaxPooling3D", {"pool_size": 2}, [2, 4, 5, 6, 3], distinct=True)
case(
    "max_pooling3d_same_strided",
    "MaxPooling3D",
    {"pool_size": [3, 2, 2], "strides": [2, 1, 2], "padding": "same"},
    [1, 5, 4, 5, 2],
    distinct=True,
)
case(
    "average_pooling3d_same",
    "AveragePooling3D",
    {"pool_size": 2, "padding": "same"},
    [2, 3, 5, 4, 2],
)
case(
    "average_pooling3d_channels_first",
    "AveragePooling3D",
    {"pool_size": [2, 1, 2], "data_format": "channels_first"},
    [1, 2, 4, 3, 4],
)
case("global_average_pooling3d", "GlobalAveragePooling3D", {}, [2, 3, 4, 5, 3])
case(
    "global_max_pooling3d_keepdims",
    "GlobalMaxPooling3D",
    {"keepdims": True},
    [2, 3, 4, 2, 3],
    distinct=True,
)
case("zero_padding3d", "ZeroPadding3D", {"padding": [[1, 0], [0, 2], [1, 1]]}, [1, 2, 3, 2, 2])
case("up_sampling3d", "UpSampling3D", {"size": [2, 1, 3]}, [1, 2, 3, 2, 2])
case(
    "cropping3d_channels_first",
    "Cropping3D",
    {"cropping": [[1, 0], [0, 2], [1, 1]], "data_format": "channels_first"},
    [1, 2, 4, 5, 4],
)


# -- a small fit: Conv3D -> MaxPooling3D -> GlobalAveragePooling3D -> Dense, SGD -------------
def fit_model():
    return keras.Sequential(
        [
            keras.Input((4, 6, 6, 2)),
            keras.layers.Conv3D(4, 3, padding="same", activation="relu"),
            keras.layers.MaxPooling3D(2),
            keras.layers.GlobalAveragePooling3D(),
            keras.layers.Dense(3),
        ]
    )


model = fit_model()
fit_x = rng.normal(size=(12, 4, 6, 6, 2)).astype(np.float32)
fit_y = rng.normal(size=(12, 3)).astype(np.float32)
for j, w in enumerate(model.weights):
    value = rng.normal(scale=0.4, size=w.shape).astype(np.float32)
    w.assign(value)
    ARRAYS[f"fit:w{j}"] = value
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
history = model.fit(fit_x, fit_y, batch_size=4, epochs=4, shuffle=False, verbose=0)
ARRAYS["fit:x"] = fit_x
ARRAYS["fit:y"] = fit_y
ARRAYS["fit:losses"] = np.array(history.history["loss"], dtype=np.float64)
FIT = {
    "layers": "Conv3D(4, 3, same, relu), MaxPooling3D(2), GlobalAveragePooling3D, Dense(3)",
    "optimizer": "SGD(0.1)",
    "loss": "mse",
    "batch_size": 4,
    "epochs": 4,
}

if __name__ == "__main__":
    with open(os.path.join(HERE, "conv3d_layers.json"), "w") as fh:
        json.dump(
            {
                "generator": "gen_conv3d_layers.py",
                "tensorflow": tf.__version__,
                "keras": keras.__version__,
                "cases": CASES,
                "fit": FIT,
            },
            fh,
            indent=1,
        )
    np.savez_compressed(os.path.join(HERE, "conv3d_layers.npz"), **ARRAYS)
    print(f"{len(CASES)} cases, {len(ARRAYS)} arrays")
