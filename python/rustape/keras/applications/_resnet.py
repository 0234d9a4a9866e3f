"""ResNet (He et al., 2015: bottleneck blocks, batch normalisation after each convolution) and
ResNetV2 (He et al., 2016: pre-activation blocks), Keras's layer names and pretrained files."""

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

_EPS = 1.001e-5
# Blocks per stage (widths 64, 128, 256, 512; a block's output is 4x its width).
_STAGES = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}
_HASHES = {  # (with the classifier, without)
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}


def _bn(name: str) -> Any:
    return L.BatchNormalization(axis=3, epsilon=_EPS, name=name)


def _block_v1(x: Any, width: int, stride: int, projection: bool, name: str) -> Any:
    if projection:
        shortcut = L.Conv2D(4 * width, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = L.Conv2D(width, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = L.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(x))
    x = L.Conv2D(width, 3, padding="same", name=f"{name}_2_conv")(x)
    x = L.Activation("relu", name=f"{name}_2_relu")(_bn(f"{name}_2_bn")(x))
    x = _bn(f"{name}_3_bn")(L.Conv2D(4 * width, 1, name=f"{name}_3_conv")(x))
    x = L.Add(name=f"{name}_add")([shortcut, x])
    return L.Activation("relu", name=f"{name}_out")(x)


def _block_v2(x: Any, width: int, stride: int, projection: bool, name: str) -> Any:
    pre = L.Activation("relu", name=f"{name}_preact_relu")(_bn(f"{name}_preact_bn")(x))
    if projection:
        shortcut = L.Conv2D(4 * width, 1, strides=stride, name=f"{name}_0_conv")(pre)
    else:
        shortcut = L.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = L.Conv2D(width, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(pre)
    x = L.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(x))
    x = L.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = L.Conv2D(width, 3, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = L.Activation("relu", name=f"{name}_2_relu")(_bn(f"{name}_2_bn")(x))
    x = L.Conv2D(4 * width, 1, name=f"{name}_3_conv")(x)
    return L.Add(name=f"{name}_out")([shortcut, x])


def _stages(x: Any, depth: int, v2: bool) -> Any:
    for stage, blocks in enumerate(_STAGES[depth]):
        width, name = 64 * 2**stage, f"conv{stage + 2}"
        for b in range(1, blocks + 1):
            block = f"{name}_block{b}"
            if v2:  # V2 projects in the first block and strides in the last (not in conv5)
                stride = 2 if b == blocks and stage < 3 else 1
                x = _block_v2(x, width, stride, b == 1, block)
            else:  # V1 projects and strides in the first block (not in conv2)
                stride = 2 if b == 1 and stage > 0 else 1
                x = _block_v1(x, width, stride, b == 1, block)
    return x


def _resnet(
    depth: int,
    v2: bool,
    include_top: bool,
    weights: Any,
    input_tensor: Any,
    input_shape: Any,
    pooling: str | None,
    classes: int,
    classifier_activation: Any,
    name: str,
) -> Any:
    key = f"resnet{depth}{'v2' if v2 else ''}"
    what = f"ResNet{depth}{'V2' if v2 else ''}"
    check_weights(weights, include_top, classes, what)
    shape = input_shape_for(input_shape, 224, 32, include_top, weights, what)
    inputs = image_input(shape, input_tensor)
    x = L.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(inputs)
    x = L.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    if not v2:
        x = L.Activation("relu", name="conv1_relu")(_bn("conv1_bn")(x))
    x = L.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = L.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = _stages(x, depth, v2)
    if v2:
        x = L.Activation("relu", name="post_relu")(_bn("post_bn")(x))
    x = classifier(
        x,
        include_top,
        pooling,
        classes,
        classifier_activation,
        weights,
        pool_names=("avg_pool", "max_pool"),
    )

    def pretrained() -> tuple[str, str, str]:
        suffix = "" if include_top else "_notop"
        file = f"{key}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
        return file, f"{WEIGHTS_ORIGIN}resnet/", _HASHES[key][0 if include_top else 1]

    return finish(inputs, x, name, weights, pretrained)


def _builder(depth: int, v2: bool) -> Any:
    public = f"ResNet{depth}{'V2' if v2 else ''}"
    kind = "pre-activation blocks (ResNetV2)" if v2 else "bottleneck blocks"
    stages = "+".join(map(str, _STAGES[depth]))
    doc = f"""ResNet-{depth} with {kind}, {stages} blocks in its four stages.
    `weights="imagenet"` fetches Keras's pretrained file once (inputs through
    `{"resnet_v2" if v2 else "resnet"}.preprocess_input`); `weights=None` initialises
    randomly; a path loads that file. Without the top, `pooling` is None, "avg" or "max".

    >>> import rustape as rt
    >>> model = rt.keras.applications.{public}(weights=None, include_top=False,
    ...                                     input_shape=(32, 32, 3), pooling="avg")
    >>> model.output_shape
    (None, 2048)
    """
    body = functools.partial(_resnet, depth, v2)
    return application(body, public, public.lower(), doc, __name__)


ResNet50 = _builder(50, False)
ResNet101 = _builder(101, False)
ResNet152 = _builder(152, False)
ResNet50V2 = _builder(50, True)
ResNet101V2 = _builder(101, True)
ResNet152V2 = _builder(152, True)
