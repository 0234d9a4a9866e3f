"""Reference values of Keras 3's layers (in TensorFlow 2.21): forward outputs and gradients.

Run with TensorFlow 2.21 (see README.md): writes layers.json (the cases: layer class, keyword
arguments, input shapes, `training`) and layers.npz (per case `<name>:<array>`: the inputs `x<i>`,
the layer's weights `w<j>` in `layer.weights` order, set to these fixed values before the call,
the outputs `y<k>`, the gradients `dx<i>` and `dw<j>` (trainable weights) of
`sum_k sum(y_k * weights(y_k.shape, k))`, and after a training call the weights as they are left
`after<j>` (BatchNormalization's moving statistics)). Inputs are seeded NumPy arrays, float32.
"""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(31337)


def weights(shape, salt):
    """Fixed weights in [0.5, 1.5) (the tests compute the same ones, so they are not stored)."""
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 7 + salt * 13) % 17) / 17.0).reshape(shape).astype(np.float32)


CASES = []
ARRAYS = {}


def case(name, layer, kwargs, shapes, training=None, int_inputs=None, distinct=False):
    """Records Keras' `layer(**kwargs)` called on inputs of `shapes` (a list for several)."""
    several = isinstance(shapes[0], (list, tuple))
    shape_list = shapes if several else [shapes]
    xs = []
    for s in shape_list:
        if int_inputs is not None:
            xs.append(rng.integers(0, int_inputs, size=s).astype(np.int32))
        elif distinct:
            n = int(np.prod(s))
            xs.append(((rng.permutation(n).reshape(s) - n / 2) * (4.0 / n)).astype(np.float32))
        else:
            xs.append(rng.normal(size=s).astype(np.float32))
    obj = getattr(keras.layers, layer)(**kwargs)
    tensors = [tf.constant(x) for x in xs]
    inputs = tensors if several else tensors[0]
    obj.build([tuple(x.shape) for x in xs] if several else tuple(xs[0].shape))
    for j, w in enumerate(obj.weights):
        if "variance" in w.path:
            value = rng.uniform(0.5, 1.5, size=w.shape)
        else:
            value = rng.normal(scale=0.5, size=w.shape)
        w.assign(value.astype(np.float32))
        ARRAYS[f"{name}:w{j}"] = value.astype(np.float32)
    with tf.GradientTape() as tape:
        if int_inputs is None:
            tape.watch(tensors)
        out = obj(inputs, training=training) if training is not None else obj(inputs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        loss = tf.add_n([tf.reduce_sum(y * weights(y.shape, k)) for k, y in enumerate(outs)])
    trainable = obj.trainable_weights
    sources = ([] if int_inputs is not None else tensors) + trainable
    grads = tape.gradient(loss, sources)
    for i, x in enumerate(xs):
        ARRAYS[f"{name}:x{i}"] = x
    for k, y in enumerate(outs):
        ARRAYS[f"{name}:y{k}"] = y.numpy()
    g = 0
    if int_inputs is None:
        for i in range(len(xs)):
            ARRAYS[f"{name}:dx{i}"] = tf.convert_to_tensor(grads[g]).numpy()
            g += 1
    trainable_index = [j for j, w in enumerate(obj.weights) if any(w is t for t in trainable)]
    for j in trainable_index:
        ARRAYS[f"{name}:dw{j}"] = tf.convert_to_tensor(grads[g]).numpy()
        g += 1
    if training:
        for j, w in enumerate(obj.weights):
            ARRAYS[f"{name}:after{j}"] = w.numpy()
    CASES.append(
        {
            "name": name,
            "layer": layer,
            "kwargs": kwargs,
            "inputs": len(xs),
            "several": several,
            "outputs": len(outs),
            "training": training,
            "int_inputs": int_inputs is not None,
            "weights": [w.path.split("/")[-1] for w in obj.weights],
            "trainable": trainable_index,
            "output_shapes": [list(y.shape) for y in outs],
        }
    )


# -- core ------------------------------------------------------------------------------------
case("dense_relu", "Dense", {"units": 4, "activation": "relu"}, [3, 5])
case("dense_rank3", "Dense", {"units": 3, "use_bias": False}, [2, 3, 4])
case("embedding", "Embedding", {"input_dim": 10, "output_dim": 4}, [3, 5], int_inputs=10)
case("dropout_inference", "Dropout", {"rate": 0.5}, [3, 4], training=False)
case("activation_tanh", "Activation", {"activation": "tanh"}, [3, 4])
case("leaky_relu", "LeakyReLU", {"negative_slope": 0.2}, [3, 4])
case("leaky_relu_default", "LeakyReLU", {}, [3, 4])

# -- convolution -----------------------------------------------------------------------------
case("conv1d_valid", "Conv1D", {"filters": 4, "kernel_size": 3}, [2, 9, 3])
case(
    "conv1d_same_strided",
    "Conv1D",
    {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"},
    [2, 9, 3],
)
case(
    "conv1d_causal_dilated",
    "Conv1D",
    {"filters": 2, "kernel_size": 3, "padding": "causal", "dilation_rate": 2},
    [2, 9, 3],
)
case(
    "conv2d_valid_relu",
    "Conv2D",
    {"filters": 3, "kernel_size": 3, "activation": "relu"},
    [2, 7, 6, 2],
)
case(
    "conv2d_same_strided",
    "Conv2D",
    {"filters": 4, "kernel_size": [3, 2], "strides": [2, 1], "padding": "same"},
    [2, 7, 6, 2],
)
case(
    "conv2d_dilated",
    "Conv2D",
    {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "padding": "same"},
    [1, 6, 6, 3],
)
# Output width 5, not 3: Keras 3.15 on TensorFlow's CPU adds a channels-first Conv2D's bias along
# the width when the output width equals `filters` (a wrong broadcast rustape does not copy).
case(
    "conv2d_channels_first",
    "Conv2D",
    {"filters": 3, "kernel_size": 3, "data_format": "channels_first"},
    [2, 2, 6, 7],
)
case(
    "conv2d_transpose_same",
    "Conv2DTranspose",
    {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"},
    [2, 4, 3, 2],
)
case(
    "conv2d_transpose_valid",
    "Conv2DTranspose",
    {"filters": 2, "kernel_size": [3, 2], "strides": [2, 3]},
    [1, 3, 4, 3],
)
case(
    "conv2d_transpose_output_padding",
    "Conv2DTranspose",
    {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1},
    [1, 3, 3, 2],
)
case(
    "depthwise_same",
    "DepthwiseConv2D",
    {"kernel_size": 3, "depth_multiplier": 2, "padding": "same"},
    [2, 5, 4, 3],
)
case("depthwise_strided", "DepthwiseConv2D", {"kernel_size": 2, "strides": 2}, [1, 6, 6, 2])

# -- pooling (inputs without ties for the maxima) ----------------------------------------------
case("max_pooling2d", "MaxPooling2D", {}, [2, 6, 6, 3], distinct=True)
case(
    "max_pooling2d_same",
    "MaxPooling2D",
    {"pool_size": 3, "strides": 2, "padding": "same"},
    [2, 7, 6, 2],
    distinct=True,
)
case(
    "average_pooling2d_same",
    "AveragePooling2D",
    {"pool_size": [3, 2], "strides": 1, "padding": "same"},
    [2, 5, 4, 2],
)
case("average_pooling2d", "AveragePooling2D", {"pool_size": 2}, [2, 6, 5, 2])
case("max_pooling1d", "MaxPooling1D", {"pool_size": 3}, [2, 9, 2], distinct=True)
case("average_pooling1d", "AveragePooling1D", {"pool_size": 2, "padding": "same"}, [2, 7, 2])
case("global_average_pooling2d", "GlobalAveragePooling2D", {}, [2, 4, 5, 3])
case(
    "global_max_pooling2d_keepdims",
    "GlobalMaxPooling2D",
    {"keepdims": True},
    [2, 4, 5, 3],
    distinct=True,
)
case("global_average_pooling1d", "GlobalAveragePooling1D", {}, [2, 6, 3])
case("global_max_pooling1d", "GlobalMaxPooling1D", {}, [2, 6, 3], distinct=True)

# -- reshaping -------------------------------------------------------------------------------
case("flatten", "Flatten", {}, [2, 3, 4, 2])
case("reshape", "Reshape", {"target_shape": [-1, 2]}, [2, 3, 4])
case("zero_padding2d", "ZeroPadding2D", {"padding": [[1, 0], [2, 1]]}, [2, 3, 3, 2])
case("up_sampling2d", "UpSampling2D", {"size": [2, 3]}, [2, 2, 3, 2])

# -- merging ---------------------------------------------------------------------------------
case("concatenate", "Concatenate", {"axis": 1}, [[2, 3, 4], [2, 2, 4]])
case("add", "Add", {}, [[2, 3], [2, 3], [2, 3]])
case("subtract", "Subtract", {}, [[2, 3], [2, 3]])
case("multiply", "Multiply", {}, [[2, 3], [2, 3]])
case("average", "Average", {}, [[2, 3], [2, 3]])
case("maximum", "Maximum", {}, [[2, 3], [2, 3]])

# -- normalisation ---------------------------------------------------------------------------
case("layer_norm", "LayerNormalization", {}, [3, 5])
case("layer_norm_axes", "LayerNormalization", {"axis": [1, 2], "epsilon": 1e-5}, [2, 3, 4])
case("layer_norm_rms", "LayerNormalization", {"rms_scaling": True}, [3, 5])
case("batch_norm_inference", "BatchNormalization", {}, [4, 3], training=False)
case("batch_norm_training", "BatchNormalization", {"momentum": 0.9}, [6, 3], training=True)
case("batch_norm_conv_training", "BatchNormalization", {}, [2, 3, 3, 4], training=True)
case("batch_norm_axis1", "BatchNormalization", {"axis": 1}, [4, 3, 2], training=True)

# -- recurrent -------------------------------------------------------------------------------
case("simple_rnn", "SimpleRNN", {"units": 4}, [2, 5, 3])
case(
    "simple_rnn_sequences",
    "SimpleRNN",
    {"units": 3, "return_sequences": True, "activation": "relu"},
    [2, 4, 3],
)
case("lstm", "LSTM", {"units": 4}, [2, 5, 3])
case(
    "lstm_sequences_state",
    "LSTM",
    {"units": 3, "return_sequences": True, "return_state": True},
    [2, 6, 4],
)
case(
    "lstm_backwards",
    "LSTM",
    {"units": 3, "go_backwards": True, "return_sequences": True},
    [2, 4, 3],
)
case("lstm_hard_sigmoid", "LSTM", {"units": 3, "recurrent_activation": "hard_sigmoid"}, [2, 4, 3])
case("gru", "GRU", {"units": 4}, [2, 5, 3])
case(
    "gru_sequences_state",
    "GRU",
    {"units": 3, "return_sequences": True, "return_state": True},
    [2, 6, 4],
)
case(
    "gru_reset_before",
    "GRU",
    {"units": 3, "reset_after": False, "return_sequences": True},
    [2, 4, 3],
)

# -- activations and reshaping added later (appended, so the earlier cases keep their inputs) --
case("relu", "ReLU", {}, [3, 4])
case("relu_all", "ReLU", {"max_value": 1.5, "negative_slope": 0.1, "threshold": 0.2}, [3, 5])
case("relu6", "ReLU", {"max_value": 6.0}, [3, 4], distinct=True)
case("relu_leaky", "ReLU", {"negative_slope": 0.25}, [3, 4])
case("elu", "ELU", {}, [3, 4])
case("elu_alpha", "ELU", {"alpha": 0.4}, [3, 4])
case("prelu", "PReLU", {}, [2, 3, 4])
case("prelu_shared", "PReLU", {"shared_axes": [1]}, [2, 3, 4])
case("softmax", "Softmax", {}, [3, 4])
case("softmax_axes", "Softmax", {"axis": [1, 2]}, [2, 3, 4])
case("cropping1d", "Cropping1D", {"cropping": (1, 2)}, [2, 6, 3])
case("cropping2d", "Cropping2D", {"cropping": ((1, 0), (2, 1))}, [2, 5, 6, 3])
case(
    "cropping2d_first", "Cropping2D", {"cropping": 1, "data_format": "channels_first"}, [2, 3, 5, 6]
)
case("repeat_vector", "RepeatVector", {"n": 3}, [2, 4])
case("permute", "Permute", {"dims": (3, 1, 2)}, [2, 3, 4, 5])
case("upsampling1d", "UpSampling1D", {"size": 3}, [2, 4, 3])
case("zero_padding1d", "ZeroPadding1D", {"padding": (2, 1)}, [2, 4, 3])
case("dot_vectors", "Dot", {"axes": 1}, [[2, 3], [2, 3]])
case("dot_sequences", "Dot", {"axes": (2, 2)}, [[2, 3, 4], [2, 5, 4]])
case("dot_normalize", "Dot", {"axes": (1, 2), "normalize": True}, [[2, 4], [2, 3, 4]])
case("dot_last_axis", "Dot", {"axes": -1}, [[2, 3, 4], [2, 4]])
case("rescaling", "Rescaling", {"scale": 0.5, "offset": 1.0}, [2, 3])
case("group_norm", "GroupNormalization", {"groups": 2}, [2, 3, 3, 4])
case("group_norm_instance", "GroupNormalization", {"groups": -1, "epsilon": 1e-5}, [2, 5, 3])
case("group_norm_axis1", "GroupNormalization", {"groups": 2, "axis": 1, "center": False}, [2, 4, 3])
case(
    "separable_conv2d_same_strided",
    "SeparableConv2D",
    {"filters": 3, "kernel_size": 2, "depth_multiplier": 2, "padding": "same", "strides": 2},
    [2, 5, 5, 2],
)
case(
    "separable_conv2d_dilated_relu",
    "SeparableConv2D",
    {"filters": 4, "kernel_size": 3, "dilation_rate": 2, "activation": "relu"},
    [1, 7, 7, 3],
)
case(
    "conv1d_transpose_valid",
    "Conv1DTranspose",
    {"filters": 3, "kernel_size": 4, "strides": 2},
    [2, 5, 3],
)
case(
    "conv1d_transpose_same_output_padding",
    "Conv1DTranspose",
    {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1},
    [1, 4, 3],
)
case(
    "conv1d_transpose_dilated_relu",
    "Conv1DTranspose",
    {"filters": 2, "kernel_size": 3, "dilation_rate": 2, "activation": "relu"},
    [2, 6, 2],
)

if __name__ == "__main__":
    with open(os.path.join(HERE, "layers.json"), "w") as fh:
        json.dump(
            {
                "generator": "gen_layers.py",
                "tensorflow": tf.__version__,
                "keras": keras.__version__,
                "cases": CASES,
            },
            fh,
            indent=1,
        )
    np.savez_compressed(os.path.join(HERE, "layers.npz"), **ARRAYS)
    print(f"{len(CASES)} cases, {len(ARRAYS)} arrays")
