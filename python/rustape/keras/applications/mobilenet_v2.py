"""MobileNetV2 (Sandler et al., 2018): inverted residual blocks with linear bottlenecks, Keras's
layer names and pretrained files."""

from __future__ import annotations

import warnings
from typing import Any

from . import imagenet_utils
from ._build import (
    WEIGHTS_ORIGIN,
    check_weights,
    classifier,
    correct_pad,
    finish,
    image_input,
    input_shape_for,
)
from ._build import layers as L

__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]

# (output channels before the width multiplier, stride, expansion) of blocks 0-16.
_BLOCKS = (
    [(16, 1, 1)]
    + [(24, 2, 6), (24, 1, 6)]
    + [(32, 2, 6)]
    + [(32, 1, 6)] * 2
    + [(64, 2, 6)]
    + [(64, 1, 6)] * 3
    + [(96, 1, 6)] * 3
    + [(160, 2, 6)]
    + [(160, 1, 6)] * 2
    + [(320, 1, 6)]
)
_SIZES = (96, 128, 160, 192, 224)
_ALPHAS = (0.35, 0.5, 0.75, 1.0, 1.3, 1.4)


def _divisible(v: float, divisor: int = 8) -> int:
    """Round channels to a multiple of `divisor`, never more than 10% below `v`."""
    rounded = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


def _bn(name: str) -> Any:
    return L.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)


def _inverted_residual(
    x: Any, filters: int, stride: int, expansion: int, alpha: float, block: int
) -> Any:
    inputs, channels = x, x.shape[-1]
    out = _divisible(int(filters * alpha))
    prefix = f"block_{block}_" if block else "expanded_conv_"
    if block:
        x = L.Conv2D(
            expansion * channels, 1, padding="same", use_bias=False, name=f"{prefix}expand"
        )(x)
        x = L.ReLU(6.0, name=f"{prefix}expand_relu")(_bn(f"{prefix}expand_BN")(x))
    if stride == 2:
        x = L.ZeroPadding2D(padding=correct_pad(x, 3), name=f"{prefix}pad")(x)
    x = L.DepthwiseConv2D(
        3,
        strides=stride,
        use_bias=False,
        padding="same" if stride == 1 else "valid",
        name=f"{prefix}depthwise",
    )(x)
    x = L.ReLU(6.0, name=f"{prefix}depthwise_relu")(_bn(f"{prefix}depthwise_BN")(x))
    x = L.Conv2D(out, 1, padding="same", use_bias=False, name=f"{prefix}project")(x)
    x = _bn(f"{prefix}project_BN")(x)
    if channels == out and stride == 1:
        return L.Add(name=f"{prefix}add")([inputs, x])
    return x


def MobileNetV2(
    input_shape: Any = None,
    alpha: float = 1.0,
    include_top: bool = True,
    weights: Any = "imagenet",
    input_tensor: Any = None,
    pooling: str | None = None,
    classes: int = 1000,
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> Any:
    """MobileNetV2 at width multiplier `alpha` (channels scaled and rounded to multiples of 8).
    `weights="imagenet"` fetches Keras's pretrained file for `alpha` (0.35, 0.5, 0.75, 1.0,
    1.3 or 1.4) and the input size (96, 128, 160, 192 or 224; other sizes get the 224 weights,
    with a warning) once; inputs go through `mobilenet_v2.preprocess_input` ([-1, 1]).

    >>> import rustape as rt
    >>> model = rt.keras.applications.MobileNetV2(weights=None, alpha=0.35, classes=10,
    ...                                           input_shape=(32, 32, 3))
    >>> model.name, model.output_shape
    ('mobilenetv2_0.35_32', (None, 10))
    """
    what = "MobileNetV2"
    check_weights(weights, include_top, classes, what)
    default = 224
    if input_shape is not None and input_shape[0] == input_shape[1] and input_shape[0] in _SIZES:
        default = input_shape[0]
    elif input_shape is None and input_tensor is not None:
        rows, cols = input_tensor.shape[1], input_tensor.shape[2]
        default = rows if rows == cols and rows in _SIZES else 224
    shape = input_shape_for(input_shape, default, 32, include_top, weights, what)
    rows = shape[0]
    if weights == "imagenet":
        if alpha not in _ALPHAS:
            raise ValueError(
                f"{what}: the 'imagenet' weights exist for alpha in {_ALPHAS}; got {alpha}"
            )
        if rows != shape[1] or rows not in _SIZES:
            rows = 224
            warnings.warn(
                f"{what}: no weights for this input size; loading the 224x224 ones", stacklevel=2
            )
    inputs = image_input(shape, input_tensor)
    x = L.Conv2D(
        _divisible(32 * alpha), 3, strides=(2, 2), padding="same", use_bias=False, name="Conv1"
    )(inputs)
    x = L.ReLU(6.0, name="Conv1_relu")(_bn("bn_Conv1")(x))
    for block, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_residual(x, filters, stride, expansion, alpha, block)
    last = _divisible(1280 * alpha) if alpha > 1.0 else 1280
    x = L.Conv2D(last, 1, use_bias=False, name="Conv_1")(x)
    x = L.ReLU(6.0, name="out_relu")(_bn("Conv_1_bn")(x))
    x = classifier(x, include_top, pooling, classes, classifier_activation, weights)
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"

    def pretrained() -> tuple[str, str, None]:
        suffix = "" if include_top else "_no_top"
        file = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}{suffix}.h5"
        return file, f"{WEIGHTS_ORIGIN}mobilenet_v2/", None

    return finish(inputs, x, name, weights, pretrained)


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Scale RGB images in 0-255 to [-1, 1], as MobileNetV2's pretrained weights expect.

    >>> import numpy as np, rustape as rt
    >>> rt.keras.applications.mobilenet_v2.preprocess_input(np.array([0.0, 255.0]))
    array([-1.,  1.])
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
