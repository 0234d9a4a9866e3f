"""VGG16 and VGG19 (Simonyan & Zisserman, 2014), Keras's layer names and pretrained files."""

from __future__ import annotations

import functools
from typing import Any

from ._build import (
    WEIGHTS_ORIGIN,
    application,
    check_weights,
    classifier,
    finish,
    image_input,
    input_shape_for,
)
from ._build import layers as L

# Convolutions per block for each depth; every block doubles the width up to 512.
_BLOCKS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_HASHES = {
    16: ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc"),
    19: ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6"),
}


def _vgg(
    depth: int,
    include_top: bool,
    weights: Any,
    input_tensor: Any,
    input_shape: Any,
    pooling: str | None,
    classes: int,
    classifier_activation: Any,
    name: str,
) -> Any:
    what = f"VGG{depth}"
    check_weights(weights, include_top, classes, what)
    shape = input_shape_for(input_shape, 224, 32, include_top, weights, what)
    inputs = image_input(shape, input_tensor)
    x = inputs
    for block, convs in enumerate(_BLOCKS[depth], start=1):
        width = min(64 * 2 ** (block - 1), 512)
        for i in range(1, convs + 1):
            x = L.Conv2D(
                width, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{i}"
            )(x)
        x = L.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)

    def top(t: Any) -> Any:
        t = L.Flatten(name="flatten")(t)
        t = L.Dense(4096, activation="relu", name="fc1")(t)
        return L.Dense(4096, activation="relu", name="fc2")(t)

    x = classifier(x, include_top, pooling, classes, classifier_activation, weights, top)

    def pretrained() -> tuple[str, str, str]:
        suffix = "" if include_top else "_notop"
        digest = _HASHES[depth][0 if include_top else 1]
        file = f"vgg{depth}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
        return file, f"{WEIGHTS_ORIGIN}vgg{depth}/", digest

    return finish(inputs, x, name, weights, pretrained)


VGG16 = application(
    functools.partial(_vgg, 16),
    "VGG16",
    "vgg16",
    """VGG16: 13 3x3 convolutions in five blocks, then (with `include_top`) two 4096-wide
    layers and the classifier. `weights="imagenet"` fetches Keras's pretrained file once
    (inputs through `vgg16.preprocess_input`); `weights=None` initialises randomly; a path
    loads that file. Without the top, `pooling` is None (the feature map), "avg" or "max".

    >>> import rustape as rt
    >>> model = rt.keras.applications.VGG16(weights=None, include_top=False,
    ...                                     input_shape=(32, 32, 3), pooling="avg")
    >>> model.output_shape
    (None, 512)
    """,
    __name__,
)
VGG19 = application(
    functools.partial(_vgg, 19),
    "VGG19",
    "vgg19",
    """VGG19: VGG16 with a fourth convolution in each of the last three blocks.

    >>> import rustape as rt
    >>> model = rt.keras.applications.VGG19(weights=None, include_top=False,
    ...                                     input_shape=(32, 32, 3))
    >>> model.output_shape
    (None, 1, 1, 512)
    """,
    __name__,
)
