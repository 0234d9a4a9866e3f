"""Reference values of Keras 3's `keras.activations` (TensorFlow 2.21 backend): each function,
with its keyword variants, on a fixed grid in float32 and float64, and the gradient of the sum
of its outputs times fixed weights (TensorFlow's tape); plus `Dense` layers built with each
activation's name.

Run with TensorFlow's venv (see README.md); writes activations.npz beside this file. `CASES`,
`X` and `WEIGHTS` are imported by the test.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

# Edges where the functions change form (0, +-0.5, +-1, +-3, +-6), and large magnitudes.
_GRID = [
    -20.0,
    -6.0,
    -3.5,
    -3.0,
    -1.0,
    -0.75,
    -0.5,
    -0.25,
    -1e-3,
    0.0,
    1e-3,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    3.0,
    5.0,
    6.0,
    7.5,
    20.0,
    0.1,
    -0.1,
    1.5,
]
X = np.array(_GRID, np.float64).reshape(4, 6)
WEIGHTS = np.random.default_rng(5).normal(size=(4, 6))

# name -> (function, keyword arguments)
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "relu": ("relu", {}),
    "relu_slope": ("relu", {"negative_slope": 0.5}),
    "relu_max": ("relu", {"max_value": 5.0}),
    "relu_max6": ("relu", {"max_value": 6.0}),
    "relu_threshold": ("relu", {"threshold": 0.5}),
    "relu_all": ("relu", {"negative_slope": 0.3, "max_value": 4.0, "threshold": 1.0}),
    "relu_slope_threshold": ("relu", {"negative_slope": 0.1, "threshold": -1.0}),
    "relu_slope_max": ("relu", {"negative_slope": 0.2, "max_value": 6.0}),
    "leaky_relu": ("leaky_relu", {}),
    "leaky_relu_0.01": ("leaky_relu", {"negative_slope": 0.01}),
    "relu6": ("relu6", {}),
    "softmax": ("softmax", {}),
    "softmax_axis0": ("softmax", {"axis": 0}),
    "elu": ("elu", {}),
    "elu_alpha": ("elu", {"alpha": 0.7}),
    "selu": ("selu", {}),
    "softplus": ("softplus", {}),
    "softsign": ("softsign", {}),
    "soft_shrink": ("soft_shrink", {}),
    "soft_shrink_1": ("soft_shrink", {"threshold": 1.0}),
    "sparse_plus": ("sparse_plus", {}),
    "silu": ("silu", {}),
    "swish": ("swish", {}),
    "squareplus": ("squareplus", {}),
    "squareplus_b1": ("squareplus", {"b": 1}),
    "gelu": ("gelu", {}),
    "gelu_approximate": ("gelu", {"approximate": True}),
    "celu": ("celu", {}),
    "celu_alpha": ("celu", {"alpha": 2.0}),
    "glu": ("glu", {}),
    "glu_axis0": ("glu", {"axis": 0}),
    "tanh": ("tanh", {}),
    "tanh_shrink": ("tanh_shrink", {}),
    "hard_tanh": ("hard_tanh", {}),
    "hard_shrink": ("hard_shrink", {}),
    "hard_shrink_1": ("hard_shrink", {"threshold": 1.0}),
    "threshold": ("threshold", {"threshold": 0.5, "default_value": -2.0}),
    "sigmoid": ("sigmoid", {}),
    "exponential": ("exponential", {}),
    "hard_sigmoid": ("hard_sigmoid", {}),
    "log_sigmoid": ("log_sigmoid", {}),
    "sparse_sigmoid": ("sparse_sigmoid", {}),
    "hard_silu": ("hard_silu", {}),
    "hard_swish": ("hard_swish", {}),
    "linear": ("linear", {}),
    "mish": ("mish", {}),
    "log_softmax": ("log_softmax", {}),
    "log_softmax_axis0": ("log_softmax", {"axis": 0}),
    "sparsemax": ("sparsemax", {}),
    "sparsemax_axis0": ("sparsemax", {"axis": 0}),
}

# Dense layers by activation name: inputs [3, 5], 6 units, Keras's weights stored.
DENSE_NAMES = [
    "relu",
    "gelu",
    "selu",
    "mish",
    "softsign",
    "leaky_relu",
    "relu6",
    "hard_silu",
    "log_softmax",
    "elu",
    "celu",
    "sparsemax",
    "tanh_shrink",
    "squareplus",
]
DENSE_X = np.random.default_rng(6).normal(size=(3, 5)).astype(np.float32) * 2


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for key, (name, kwargs) in CASES.items():
        fn = getattr(keras.activations, name)
        for dtype in ("float32", "float64"):
            x = tf.Variable(X.astype(dtype))
            with tf.GradientTape() as tape:
                y = fn(x, **kwargs) if name != "linear" else fn(x) * 1.0
                w = tf.constant(WEIGHTS[: y.shape[0], : y.shape[1]].astype(dtype))
                total = tf.reduce_sum(y * w)
            out[f"{key}/{dtype}/y"] = y.numpy()
            out[f"{key}/{dtype}/grad"] = tape.gradient(total, x).numpy()
    for name in DENSE_NAMES:
        keras.utils.set_random_seed(3)
        layer = keras.layers.Dense(6, activation=name)
        y = layer(DENSE_X)
        out[f"dense/{name}/kernel"] = layer.kernel.numpy()
        out[f"dense/{name}/bias"] = np.random.default_rng(7).normal(size=6).astype(np.float32)
        layer.bias.assign(out[f"dense/{name}/bias"])
        out[f"dense/{name}/y"] = layer(DENSE_X).numpy()
        del y
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "activations.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
