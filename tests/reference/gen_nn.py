"""Reference values of TensorFlow's nn ops (convolution, pooling, bias_add, embedding_lookup).

Run with TensorFlow 2.21 (see README.md): writes nn.json (the cases: op and arguments) and nn.npz
(per case `<name>:<array>`: the inputs `x<i>`, the output `y`, the gradients `d<i>` of
`sum(w * y)`, and for some cases `h<i>`, the gradient of `sum_i <d<i>, v_i>`: a Hessian-vector
product). `w` and `v_i` are `weights(shape, 0)` and `weights(shape, 1 + i)` below, which the
tests compute too. Inputs are seeded NumPy float64 arrays.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240521)


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


def case(name, op, inputs, args, fn, second_order=False, integer_inputs=(), gradients=True):
    """Records `fn(*inputs)` with its first (and second) order gradients (none when not
    `gradients`: TensorFlow's CPU kernels have no gradient of a grouped convolution)."""
    tensors = [tf.constant(x) for x in inputs]
    diff = [i for i in range(len(inputs)) if i not in integer_inputs] if gradients else []
    with tf.GradientTape(persistent=True) as outer:
        outer.watch([tensors[i] for i in diff])
        with tf.GradientTape() as tape:
            tape.watch([tensors[i] for i in diff])
            y = fn(*tensors)
            w = tf.constant(weights(y.shape.as_list(), 0))
            loss = tf.reduce_sum(w * y)
        grads = tape.gradient(loss, [tensors[i] for i in diff])
        vs = [tf.constant(weights(inputs[i].shape, 1 + i)) for i in diff]
        proj = tf.add_n([tf.reduce_sum(g * v) for g, v in zip(grads, vs)]) if diff else None
    hv = outer.gradient(proj, [tensors[i] for i in diff]) if second_order and diff else None
    CASES.append(
        {
            "name": name,
            "op": op,
            "args": args,
            "second_order": hv is not None,
            "gradients": gradients,
            "inputs": len(inputs),
            "integer_inputs": list(integer_inputs),
        }
    )
    for i, x in enumerate(inputs):
        ARRAYS[f"{name}:x{i}"] = np.asarray(x)
    ARRAYS[f"{name}:y"] = y.numpy()
    for k, i in enumerate(diff):
        ARRAYS[f"{name}:d{i}"] = tf.convert_to_tensor(grads[k]).numpy()  # IndexedSlices too
        if hv is not None:
            # None: the gradient does not depend on this input (a linear op).
            ARRAYS[f"{name}:h{i}"] = np.zeros(inputs[i].shape) if hv[k] is None else hv[k].numpy()


# -- conv2d: strides, paddings (named and explicit), dilations, groups ------------------------
# TensorFlow's CPU kernels compute no gradient of a grouped or dilated convolution: those cases
# store the forward values only.
PADDINGS = {"SAME": "SAME", "VALID": "VALID", "explicit": [[0, 0], [1, 0], [2, 1], [0, 0]]}
for pname, padding in PADDINGS.items():
    for strides, dilations in [
        (1, 1),
        (2, 2),
        ([2, 1], 1),
        ([1, 3], 1),
        (1, [2, 1]),
        ([1, 2, 2, 1], 2),
    ]:
        for groups in (1, 2):
            x = u(2, 7, 6, 4)
            f = u(3, 2, 4 // groups, 6)
            name = f"conv2d_{pname}_s{strides}_d{dilations}_g{groups}".replace(" ", "")
            case(
                name,
                "conv2d",
                [x, f],
                {"strides": strides, "padding": padding, "dilations": dilations},
                lambda x, f, s=strides, p=padding, d=dilations: tf.nn.conv2d(
                    x, f, s, p, dilations=d
                ),
                second_order=(groups == 1 and strides == 1),
                gradients=(groups == 1 and dilations == 1),
            )

# -- conv1d ---------------------------------------------------------------------------------
for padding in ("SAME", "VALID"):  # TF's conv1d takes no explicit padding
    for stride, dilation in [(1, 1), (2, 1), (1, 2), (3, 2)]:
        name = f"conv1d_{padding if isinstance(padding, str) else 'explicit'}_s{stride}_d{dilation}"
        case(
            name,
            "conv1d",
            [u(2, 9, 3), u(3, 3, 4)],
            {"stride": stride, "padding": padding, "dilations": dilation},
            lambda x, f, s=stride, p=padding, d=dilation: tf.nn.conv1d(x, f, s, p, dilations=d),
            gradients=(dilation == 1),
        )

# -- conv2d_transpose: the output shape gives the forward convolution's input ---------------
for padding in ("SAME", "VALID"):
    for strides, out_hw, dilations in [
        (1, (6, 5), 1),
        (2, (7, 8), 1),
        (2, (8, 8), 1),
        ([3, 2], (7, 6), 1),
    ]:
        f = u(3, 2, 3, 5)  # [kh, kw, out_channels, in_channels]
        # (TensorFlow's CPU kernels have no dilated Conv2DBackpropInput, so no dilated case.)
        probe = tf.nn.conv2d(
            tf.zeros([2, *out_hw, 3], tf.float64),
            tf.constant(f),
            strides,
            padding,
            dilations=dilations,
        )
        x = u(*probe.shape.as_list())
        out_shape = [2, *out_hw, 3]
        name = (
            f"conv2d_transpose_{padding}_s{strides}_o{out_hw[0]}x{out_hw[1]}_d{dilations}".replace(
                " ", ""
            )
        )
        case(
            name,
            "conv2d_transpose",
            [x, f],
            {
                "output_shape": out_shape,
                "strides": strides,
                "padding": padding,
                "dilations": dilations,
            },
            lambda x, f, o=out_shape, s=strides, p=padding, d=dilations: tf.nn.conv2d_transpose(
                x, f, o, s, p, dilations=d
            ),
            second_order=(strides == 2 and padding == "SAME"),
        )

# -- depthwise_conv2d -----------------------------------------------------------------------
for padding in ("SAME", "VALID"):
    for multiplier, strides, rate in [(1, 1, 1), (2, 1, 1), (2, 2, 1), (1, 1, 2), (3, 2, 1)]:
        s4 = [1, strides, strides, 1] if isinstance(strides, int) else [1, *strides, 1]
        name = f"depthwise_{padding}_m{multiplier}_s{strides}_r{rate}".replace(" ", "")
        case(
            name,
            "depthwise_conv2d",
            [u(2, 7, 6, 3), u(3, 2, 3, multiplier)],
            {"strides": s4, "padding": padding, "dilations": [rate, rate]},
            lambda x, f, s=s4, p=padding, r=rate: tf.nn.depthwise_conv2d(
                x, f, s, p, dilations=[r, r]
            ),
            second_order=(multiplier == 2 and strides == 1),
        )

# -- pooling (inputs without ties) -----------------------------------------------------------
for padding in ("SAME", "VALID"):
    for ksize, strides in [(2, 2), (3, 1), ([3, 2], [2, 1]), (1, [2, 3]), ([2, 3], [3, 2])]:
        for op in ("max_pool2d", "avg_pool2d"):
            name = f"{op}_{padding}_k{ksize}_s{strides}".replace(" ", "")
            fn = getattr(tf.nn, op)
            case(
                name,
                op,
                [distinct(2, 7, 6, 3)],
                {"ksize": ksize, "strides": strides, "padding": padding},
                lambda x, k=ksize, s=strides, p=padding, fn=fn: fn(x, k, s, p),
                second_order=True,
            )
    for op in ("max_pool", "avg_pool"):
        fn = getattr(tf.nn, op)
        case(
            f"{op}_1d_{padding}",
            op,
            [distinct(2, 9, 3)],
            {"ksize": 3, "strides": 2, "padding": padding},
            lambda x, p=padding, fn=fn: fn(x, 3, 2, p),
        )

# -- bias_add, embedding_lookup --------------------------------------------------------------
case(
    "bias_add_nhwc",
    "bias_add",
    [u(2, 3, 4, 5), u(5)],
    {"data_format": None},
    lambda x, b: tf.nn.bias_add(x, b),
    second_order=True,
)
case(
    "bias_add_nchw",
    "bias_add",
    [u(2, 5, 3, 4), u(5)],
    {"data_format": "NCHW"},
    lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
)
ids = np.array([[3, 0, 3], [5, 1, 3]], dtype=np.int32)
case(
    "embedding_lookup",
    "embedding_lookup",
    [u(6, 4), ids],
    {"max_norm": None},
    lambda p, i: tf.nn.embedding_lookup(p, i),
    integer_inputs=(1,),
)
case(
    "embedding_lookup_max_norm",
    "embedding_lookup",
    [u(6, 4) * 2, ids],
    {"max_norm": 0.8},
    lambda p, i: tf.nn.embedding_lookup(p, i, max_norm=0.8),
    integer_inputs=(1,),
)

if __name__ == "__main__":
    with open(os.path.join(HERE, "nn.json"), "w") as fh:
        json.dump(
            {"generator": "gen_nn.py", "tensorflow": tf.__version__, "cases": CASES}, fh, indent=1
        )
    np.savez_compressed(os.path.join(HERE, "nn.npz"), **ARRAYS)
    print(f"{len(CASES)} cases, {len(ARRAYS)} arrays")
