"""`rt.keras.layers` (also `rt.layers`): Keras-style layers, built on their first call.

Layers are built lazily from the shape of their first input, with Keras's defaults:
`dense.variables` is `[]` until then. Variables are `rt.Variable`s, so a tape watches the
trainable ones as they are read. Each layer's `compute_output_shape(input_shape)` gives its
output shape without running it (None for unknown dimensions).
"""

from __future__ import annotations

from ..activations import get_activation
from ..functional import Input, InputLayer
from ..initializers import get_initializer
from .activation import ELU, Activation, LeakyReLU, PReLU, ReLU, Softmax
from .attention import EinsumDense, MultiHeadAttention
from .base import Layer
from .convolutional import Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D
from .core import Dense, Dropout, Embedding, Lambda
from .merging import Add, Average, Concatenate, Maximum, Minimum, Multiply, Subtract
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)
from .reshaping import (
    Cropping1D,
    Cropping2D,
    Flatten,
    Permute,
    RepeatVector,
    Reshape,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
from .rnn import GRU, LSTM, SimpleRNN
from .wrappers import Bidirectional, TimeDistributed

__all__ = [
    "ELU",
    "GRU",
    "LSTM",
    "Activation",
    "Add",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "BatchNormalization",
    "Bidirectional",
    "Concatenate",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Dense",
    "DepthwiseConv2D",
    "Dropout",
    "EinsumDense",
    "Embedding",
    "Flatten",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "Input",
    "InputLayer",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "MaxPooling1D",
    "MaxPooling2D",
    "Maximum",
    "Minimum",
    "MultiHeadAttention",
    "Multiply",
    "PReLU",
    "Permute",
    "ReLU",
    "RepeatVector",
    "Reshape",
    "SimpleRNN",
    "Softmax",
    "Subtract",
    "TimeDistributed",
    "UpSampling1D",
    "UpSampling2D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "get_activation",
    "get_initializer",
]
