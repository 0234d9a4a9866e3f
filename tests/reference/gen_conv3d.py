"""Reference values of TensorFlow's volumetric ops: conv3d, conv3d_transpose, max_pool3d and
avg_pool3d.

Run with TensorFlow 2.21 (see README.md): writes conv3d.json (the cases: op, arguments, dtype)
and conv3d.npz (per case `<name>:<array>`: the inputs `x<i>`, the output `y`, the gradients
`d<i>` of `sum(w * y)`, and for some cases `h<i>`, the gradient of `sum_i <d<i>, v_i>`: a
Hessian-vector product). `w` and `v_i` are `weights(shape, 0)` and `weights(shape, 1 + i)`
below, which the tests compute too. Inputs are seeded NumPy arrays, float64 or float32.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261124)


def u(*shape):
    return rng.uniform(-1.0, 1.0, size=shape)


def distinct(*shape):
    """Values without ties (max pooling routes to a unique maximum)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) - n / 2) * (2.0 / n)


CASES = []
ARRAYS = {}


def weights(shape, salt):
    """Fixed weights in [0.5, 1.5) (the tests compute the same ones, so they are not stored)."""
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 7 + salt * 13) % 17) / 17.0).reshape(shape)


def case(name, op, inputs, args, fn, dtype="float64", second_order=False):
    """Records `fn(*inputs)` in `dtype` with its first (and second) order gradients."""
    inputs = [np.asarray(x, dtype=dtype) for x in inputs]
    tensors = [tf.constant(x) for x in inputs]
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(tensors)
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            y = fn(*tensors)
            w = tf.constant(weights(y.shape.as_list(), 0), dtype=dtype)
            loss = tf.reduce_sum(w * y)
        grads = tape.gradient(loss, tensors)
        vs = [tf.constant(weights(x.shape, 1 + i), dtype=dtype) for i, x in enumerate(inputs)]
        proj = tf.add_n([tf.reduce_sum(g * v) for g, v in zip(grads, vs)])
    hv = outer.gradient(proj, tensors) if second_order else None
    CASES.append(
        {
            "name": name,
            "op": op,
            "args": args,
            "dtype": dtype,
            "second_order": hv is not None,
            "inputs": len(inputs),
        }
    )
    for i, x in enumerate(inputs):
        ARRAYS[f"{name}:x{i}"] = x
    ARRAYS[f"{name}:y"] = y.numpy()
    for i, g in enumerate(grads):
        ARRAYS[f"{name}:d{i}"] = g.numpy()
        if hv is not None:
            # None: the gradient does not depend on this input (a linear op).
            ARRAYS[f"{name}:h{i}"] = (
                np.zeros(inputs[i].shape, dtype) if hv[i] is None else hv[i].numpy()
            )


def conv3d(strides, padding, dilations):
    """tf.nn.conv3d; explicit padding as tf.pad then 'VALID' (TensorFlow's conv3d takes only
    'SAME' or 'VALID'); a dilated case through tf.nn.convolution (TensorFlow's CPU Conv3D
    kernel takes no dilations; tf.nn.convolution runs them as space-to-batch, with
    gradients)."""
    if dilations == 1:
        s5 = [1, strides, strides, strides, 1] if isinstance(strides, int) else [1, *strides, 1]
        if isinstance(padding, list):
            return lambda x, f: tf.nn.conv3d(tf.pad(x, padding), f, s5, "VALID")
        return lambda x, f: tf.nn.conv3d(x, f, s5, padding)
    return lambda x, f: tf.nn.convolution(x, f, strides, padding, dilations=dilations)


# -- conv3d: strides, paddings (named and explicit), dilations, odd sizes, both dtypes --------
EXPLICIT = [[0, 0], [1, 0], [0, 2], [1, 1], [0, 0]]
CONV_CASES = [
    ("SAME", 1, 1, True),
    ("SAME", 2, 1, False),
    ("SAME", [2, 1, 3], 1, False),
    ("VALID", 1, 1, True),
    ("VALID", 2, 1, False),
    ("VALID", [1, 3, 2], 1, False),
    ("explicit", 1, 1, False),
    ("explicit", [2, 2, 1], 1, False),
    ("SAME", 1, [2, 1, 2], False),
    ("VALID", 1, 2, False),
]
for dtype in ("float64", "float32"):
    for pname, strides, dilations, second in CONV_CASES:
        if dtype == "float32" and second:
            second = False
        padding = EXPLICIT if pname == "explicit" else pname
        if dilations != 1 and pname == "explicit":
            continue
        x, f = u(2, 5, 6, 7, 3), u(3, 2, 3, 3, 4)
        name = f"conv3d_{dtype}_{pname}_s{strides}_d{dilations}".replace(" ", "")
        case(
            name,
            "conv3d",
            [x, f],
            {"strides": strides, "padding": padding, "dilations": dilations},
            conv3d(strides, padding, dilations),
            dtype=dtype,
            second_order=second,
        )

# -- conv3d_transpose: the output shape gives the forward convolution's input --------------
for dtype in ("float64", "float32"):
    for padding in ("SAME", "VALID"):
        for strides, out_dhw in [
            (1, (4, 5, 3)),
            (2, (5, 6, 7)),
            (2, (6, 6, 6)),
            ([2, 1, 3], (5, 4, 7)),
        ]:
            f = u(2, 3, 2, 3, 4)  # [kd, kh, kw, out_channels, in_channels]
            s5 = [1, strides, strides, strides, 1] if isinstance(strides, int) else [1, *strides, 1]
            probe = tf.nn.conv3d(
                tf.zeros([2, *out_dhw, 3], tf.float64), tf.constant(f), s5, padding
            )
            x = u(*probe.shape.as_list())
            out_shape = [2, *out_dhw, 3]
            name = f"conv3d_transpose_{dtype}_{padding}_s{strides}_o{out_dhw}".replace(" ", "")
            case(
                name,
                "conv3d_transpose",
                [x, f],
                {"output_shape": out_shape, "strides": strides, "padding": padding},
                lambda x, f, o=out_shape, s=s5, p=padding: tf.nn.conv3d_transpose(x, f, o, s, p),
                dtype=dtype,
                second_order=(dtype == "float64" and strides == 2 and padding == "SAME"),
            )

# -- pooling (inputs without ties) -----------------------------------------------------------
# TensorFlow's MaxPool3D and AvgPool3D take float32 (and halves) only: float32 references.
for dtype in ("float32",):
    for padding in ("SAME", "VALID"):
        for ksize, strides in [(2, 2), (3, 1), ([3, 2, 2], [2, 1, 2]), (1, [2, 3, 1])]:
            for op in ("max_pool3d", "avg_pool3d"):
                name = f"{op}_{dtype}_{padding}_k{ksize}_s{strides}".replace(" ", "")
                fn = getattr(tf.nn, op)
                case(
                    name,
                    op,
                    [distinct(2, 5, 4, 5, 2)],
                    {"ksize": ksize, "strides": strides, "padding": padding},
                    lambda x, k=ksize, s=strides, p=padding, fn=fn: fn(x, k, s, p),
                    dtype=dtype,
                    second_order=True,
                )

if __name__ == "__main__":
    with open(os.path.join(HERE, "conv3d.json"), "w") as fh:
        json.dump(
            {"generator": "gen_conv3d.py", "tensorflow": tf.__version__, "cases": CASES},
            fh,
            indent=1,
        )
    np.savez_compressed(os.path.join(HERE, "conv3d.npz"), **ARRAYS)
    print(f"{len(CASES)} cases, {len(ARRAYS)} arrays")
