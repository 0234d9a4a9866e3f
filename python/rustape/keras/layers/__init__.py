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
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
)
from .core import ActivityRegularization, Dense, Dropout, Embedding, Identity, Lambda
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
from .image_augmentation_erase import Equalization, RandomErasing, RandomPerspective
from .image_augmentation_hsv import (
    RandomColorDegeneration,
    RandomColorJitter,
    RandomHue,
    RandomInvert,
    RandomPosterization,
    RandomSaturation,
    RandomSharpness,
)
from .image_augmentation_rand import RandAugment
from .image_augmentation_shear import RandomGaussianBlur, RandomShear
from .image_preprocessing import CenterCrop, Resizing
from .masking import Masking
from .merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .noise import (
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from .normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    RMSNormalization,
    UnitNormalization,
)
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
from .pooling_adaptive import (
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
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

# Keras's other names for the same classes.
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D


def serialize(layer: Layer) -> dict:
    """A layer's config as JSON-able data (`{"class_name": ..., "config": ...}`), as
    `model.save` writes it.

    >>> import rustape as rt
    >>> rt.keras.layers.serialize(rt.keras.layers.Dense(2))["class_name"]
    'Dense'
    """
    from ..saving import serialize_keras_object

    return serialize_keras_object(layer)  # type: ignore[no-any-return]


def deserialize(config: dict, custom_objects: dict | None = None) -> Layer:
    """A new layer from `serialize`'s data (classes only from rustape, registered ones and
    `custom_objects`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.deserialize(rt.keras.layers.serialize(rt.keras.layers.Dense(2)))
    >>> type(layer).__name__, layer.units
    ('Dense', 2)
    """
    from ..saving import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects)  # type: ignore[no-any-return]


__all__ = [
    "ELU",
    "GRU",
    "LSTM",
    "RNN",
    "Activation",
    "ActivityRegularization",
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
    "Add",
    "AdditiveAttention",
    "AlphaDropout",
    "Attention",
    "AutoContrast",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
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
    "Convolution1D",
    "Convolution1DTranspose",
    "Convolution2D",
    "Convolution2DTranspose",
    "Convolution3D",
    "Convolution3DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "Dense",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "Discretization",
    "Dot",
    "Dropout",
    "EinsumDense",
    "Embedding",
    "Equalization",
    "Flatten",
    "GRUCell",
    "GaussianDropout",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "GroupNormalization",
    "GroupQueryAttention",
    "Identity",
    "Input",
    "InputLayer",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "Masking",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
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
    "RMSNormalization",
    "RandAugment",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomCrop",
    "RandomErasing",
    "RandomFlip",
    "RandomGaussianBlur",
    "RandomGrayscale",
    "RandomHue",
    "RandomInvert",
    "RandomPerspective",
    "RandomPosterization",
    "RandomRotation",
    "RandomSaturation",
    "RandomSharpness",
    "RandomShear",
    "RandomTranslation",
    "RandomZoom",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "Resizing",
    "STFTSpectrogram",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
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
    "UnitNormalization",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
    "add",
    "average",
    "concatenate",
    "deserialize",
    "dot",
    "get_activation",
    "get_initializer",
    "maximum",
    "minimum",
    "multiply",
    "serialize",
    "subtract",
]
