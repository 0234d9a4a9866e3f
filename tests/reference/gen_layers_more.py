"""Reference values of Keras 3 layers added to rustape after gen_layers.py (TensorFlow 2.21
backend): `RMSNormalization`, `UnitNormalization`, `ActivityRegularization`, `Identity`,
`DepthwiseConv1D`, `SeparableConv1D` and the functional merges (`keras.layers.add`, ...):
outputs, the layers' losses, and gradients of `sum(output * weights)` with respect to the
input and every weight (TensorFlow's tape). Keras's initial weights are stored too, so the
test sets the same ones.

Run with TensorFlow's venv (see README.md); writes layers_more.npz beside this file. `LAYERS`,
`MERGES` and `x_for` are imported by the test.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

# name -> (class, constructor arguments, input shape)
LAYERS: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "rms": ("RMSNormalization", {}, (3, 5)),
    "rms_eps": ("RMSNormalization", {"epsilon": 0.5}, (3, 4, 5)),
    "rms_axes": ("RMSNormalization", {"axis": [1, 2]}, (2, 3, 4)),
    "unit": ("UnitNormalization", {}, (3, 5)),
    "unit_axes": ("UnitNormalization", {"axis": [1, 2]}, (2, 3, 4)),
    "unit_axis1": ("UnitNormalization", {"axis": 1}, (2, 3, 4)),
    "activity": ("ActivityRegularization", {"l1": 0.01, "l2": 0.3}, (4, 3)),
    "identity": ("Identity", {}, (2, 3)),
    "depthwise1d": ("DepthwiseConv1D", {"kernel_size": 3}, (2, 9, 3)),
    "depthwise1d_same_s2_m2": (
        "DepthwiseConv1D",
        {"kernel_size": 4, "strides": 2, "padding": "same", "depth_multiplier": 2},
        (2, 9, 3),
    ),
    "depthwise1d_dilated": (
        "DepthwiseConv1D",
        {"kernel_size": 3, "dilation_rate": 2, "activation": "relu"},
        (2, 11, 2),
    ),
    "separable1d": ("SeparableConv1D", {"filters": 4, "kernel_size": 3}, (2, 9, 3)),
    "separable1d_same_m2": (
        "SeparableConv1D",
        {"filters": 5, "kernel_size": 3, "padding": "same", "depth_multiplier": 2, "strides": 2},
        (2, 10, 3),
    ),
    "separable1d_first": (
        "SeparableConv1D",
        {"filters": 2, "kernel_size": 2, "data_format": "channels_first"},
        (2, 3, 8),
    ),
}

# name -> (function, keyword arguments, number of inputs, input shape)
MERGES: dict[str, tuple[str, dict[str, Any], int, tuple[int, ...]]] = {
    "add": ("add", {}, 3, (2, 4)),
    "subtract": ("subtract", {}, 2, (2, 4)),
    "multiply": ("multiply", {}, 3, (2, 4)),
    "average": ("average", {}, 2, (2, 4)),
    "maximum": ("maximum", {}, 2, (2, 4)),
    "minimum": ("minimum", {}, 3, (2, 4)),
    "concatenate": ("concatenate", {"axis": 1}, 2, (2, 4)),
    "dot": ("dot", {"axes": 1}, 2, (2, 4)),
    "dot_normalize": ("dot", {"axes": 1, "normalize": True}, 2, (2, 4)),
}


def x_for(name: str, shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    seed = sum(ord(c) for c in name) * 7 + k
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name, (cls, kwargs, shape) in LAYERS.items():
        keras.utils.set_random_seed(1)
        layer = getattr(keras.layers, cls)(**kwargs)
        x = tf.Variable(x_for(name, shape))
        layer.build(shape)
        for i, w in enumerate(layer.weights):
            value = w.numpy()
            if "bias" in w.path:  # non-zero biases, so their gradients and use are checked
                value = np.random.default_rng(i).normal(size=value.shape).astype(np.float32)
                w.assign(value)
            out[f"{name}/weight{i}"] = value
        with tf.GradientTape() as tape:
            y = layer(tf.identity(x))
            weights = tf.constant(x_for(name + "w", tuple(y.shape)))
            total = tf.reduce_sum(y * weights) + sum(layer.losses)
        grads = tape.gradient(total, [x, *layer.trainable_weights])
        out[f"{name}/y"] = y.numpy()
        out[f"{name}/losses"] = np.array([float(v) for v in layer.losses], np.float64)
        for i, g in enumerate(grads):
            out[f"{name}/grad{i}"] = g.numpy()
    for name, (fn, kwargs, n, shape) in MERGES.items():
        xs = [tf.Variable(x_for(name, shape, k)) for k in range(n)]
        with tf.GradientTape() as tape:
            y = getattr(keras.layers, fn)(xs, **kwargs)
            total = tf.reduce_sum(y * tf.constant(x_for(name + "w", tuple(y.shape))))
        out[f"merge/{name}/y"] = y.numpy()
        for k, g in enumerate(tape.gradient(total, xs)):
            out[f"merge/{name}/grad{k}"] = g.numpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layers_more.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
