"""Reference values of Keras 3's `keras.ops` `conv`, `depthwise_conv`, `separable_conv`,
`max_pool`, `average_pool` and `dot_product_attention` (TensorFlow 2.21 backend), and the
gradients of a weighted sum of each output with respect to its inputs.

Run with TensorFlow's venv (see README.md); writes keras_ops_conv.npz beside this file.
`CASES` (inputs and arguments) is imported by the test.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_rng = np.random.default_rng(31)


def _n(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return _rng.normal(size=shape).astype(dtype)


X1 = _n(2, 9, 3)
X2 = _n(2, 7, 6, 3)
X2F = np.transpose(X2, (0, 3, 1, 2)).copy()
X2D = X2.astype(np.float64)
Q = _n(2, 5, 4, 8)
K = _n(2, 6, 4, 8)
V = _n(2, 6, 4, 8)
K2 = _n(2, 6, 2, 8)
V2 = _n(2, 6, 2, 8)
MASK = _rng.uniform(size=(2, 4, 5, 6)) > 0.3
MASK[..., 0] = True

# (function, tensor arguments (differentiated), other keyword arguments)
CASES: list[tuple[str, list[np.ndarray], dict[str, Any]]] = [
    ("conv", [X1, _n(3, 3, 4)], {}),
    ("conv", [X1, _n(2, 3, 4)], {"strides": 2, "padding": "same"}),
    ("conv", [X1, _n(3, 3, 2)], {"dilation_rate": 2}),
    ("conv", [X2, _n(3, 2, 3, 5)], {}),
    ("conv", [X2, _n(3, 3, 3, 4)], {"strides": (2, 1), "padding": "same"}),
    ("conv", [X2D, _n(2, 2, 3, 2, dtype=np.float64)], {"dilation_rate": (2, 1)}),
    ("conv", [X2F, _n(3, 3, 3, 4)], {"data_format": "channels_first", "padding": "same"}),
    ("depthwise_conv", [X2, _n(3, 3, 3, 2)], {}),
    ("depthwise_conv", [X2, _n(2, 2, 3, 1)], {"strides": 2, "padding": "same"}),
    ("depthwise_conv", [X1, _n(3, 3, 2)], {"dilation_rate": 2}),
    ("depthwise_conv", [X2F, _n(3, 3, 3, 2)], {"data_format": "channels_first"}),
    ("separable_conv", [X2, _n(3, 3, 3, 2), _n(1, 1, 6, 4)], {"padding": "same"}),
    ("separable_conv", [X1, _n(2, 3, 1), _n(1, 3, 5)], {"strides": 2}),
    ("max_pool", [X2], {"pool_size": 2}),
    ("max_pool", [X2], {"pool_size": (3, 2), "strides": 1, "padding": "same"}),
    ("max_pool", [X1], {"pool_size": 3, "strides": 2}),
    ("max_pool", [X2F], {"pool_size": 2, "data_format": "channels_first"}),
    ("average_pool", [X2], {"pool_size": 2}),
    ("average_pool", [X2D], {"pool_size": 3, "strides": 2, "padding": "same"}),
    ("average_pool", [X1], {"pool_size": 2, "padding": "same"}),
    ("dot_product_attention", [Q, K, V], {}),
    ("dot_product_attention", [Q, K, V], {"is_causal": True, "scale": 0.3}),
    ("dot_product_attention", [Q, K, V], {"mask": MASK}),
    ("dot_product_attention", [Q, K, V, _n(1, 4, 5, 6)], {}),
    ("dot_product_attention", [Q, K2, V2], {"is_causal": True}),
    ("conv_transpose", [X1, _n(3, 2, 3)], {"strides": 2}),
    ("conv_transpose", [X2, _n(3, 3, 4, 3)], {"strides": 2, "padding": "same"}),
    ("conv_transpose", [X2, _n(2, 3, 2, 3)], {"strides": (2, 3), "output_padding": (1, 2)}),
    ("conv_transpose", [X2F, _n(3, 3, 2, 3)], {"strides": 2, "data_format": "channels_first"}),
    ("conv_transpose", [X2D, _n(3, 2, 2, 3, dtype=np.float64)], {"padding": "same"}),
    (
        "conv_transpose",
        [_n(1, 3, 4, 5, 2), _n(2, 2, 3, 3, 2)],
        {"strides": (1, 2, 2), "padding": "same"},
    ),
]


def weights(shape: tuple[int, ...]) -> np.ndarray:
    """The fixed weights of the summed output (the same in the test)."""
    return np.cos(np.arange(int(np.prod(shape)), dtype=np.float64) * 0.37).reshape(shape)


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for i, (name, tensors, kwargs) in enumerate(CASES):
        variables = [tf.Variable(t) for t in tensors]
        with tf.GradientTape() as tape:
            kw = dict(kwargs)
            if name == "dot_product_attention" and len(variables) == 4:
                kw["bias"] = variables[3]
                y = keras.ops.dot_product_attention(*variables[:3], **kw)
            else:
                y = getattr(keras.ops, name)(*variables, **kw)
            loss = tf.reduce_sum(y * tf.constant(weights(tuple(y.shape)), y.dtype))
        out[f"{i}/y"] = np.asarray(y)
        for k, g in enumerate(tape.gradient(loss, variables)):
            out[f"{i}/grad{k}"] = np.asarray(g)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_ops_conv.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
