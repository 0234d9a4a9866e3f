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
from .audio import MelSpectrogram, STFTSpectrogram
from .base import Layer
from .categorical import CategoryEncoding, Discretization
from .convolutional import (
    Conv1D,
    Conv1DTranspose,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
    DepthwiseConv2D,
    SeparableConv2D,
)
from .core import Dense, Dropout, Embedding, Lambda
from .dot_attention import AdditiveAttention, Attention
from .group_attention import GroupQueryAttention
from .image_augmentation import (
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
)
from .image_augmentation_color import AutoContrast, RandomGrayscale, Solarization
from .image_preprocessing import CenterCrop, Resizing
from .masking import Masking
from .merging import Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract
from .noise import (
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from .normalization import BatchNormalization, GroupNormalization, LayerNormalization
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from .preprocessing import Normalization, Rescaling
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
from .reshaping3d import Cropping3D, UpSampling3D, ZeroPadding3D
from .rnn import GRU, LSTM, SimpleRNN
from .rnn_cells import RNN, GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells
from .wrappers import Bidirectional, TimeDistributed

__all__ = [
    "ELU",
    "GRU",
    "LSTM",
    "RNN",
    "Activation",
    "Add",
    "AdditiveAttention",
    "AlphaDropout",
    "Attention",
    "AutoContrast",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "BatchNormalization",
    "Bidirectional",
    "CategoryEncoding",
    "CenterCrop",
    "Concatenate",
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "Dense",
    "DepthwiseConv2D",
    "Discretization",
    "Dot",
    "Dropout",
    "EinsumDense",
    "Embedding",
    "Flatten",
    "GRUCell",
    "GaussianDropout",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "GroupNormalization",
    "GroupQueryAttention",
    "Input",
    "InputLayer",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "Masking",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "Maximum",
    "MelSpectrogram",
    "Minimum",
    "MultiHeadAttention",
    "Multiply",
    "Normalization",
    "PReLU",
    "Permute",
    "RandomBrightness",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomGrayscale",
    "RandomRotation",
    "RandomTranslation",
    "RandomZoom",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "Resizing",
    "STFTSpectrogram",
    "SeparableConv2D",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "Solarization",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
    "StackedRNNCells",
    "Subtract",
    "TimeDistributed",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
    "get_activation",
    "get_initializer",
]
