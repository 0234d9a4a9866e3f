"""What every `keras.applications` builder shares: argument checks, the input, the classifier
head or pooling, and the pretrained weights (Keras's own files, fetched once into
`~/.keras/models` and read in Keras's legacy HDF5 layout)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .. import layers
from .._files import get_file
from ..models import Input, Model

WEIGHTS_ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/"


def check_weights(weights: Any, include_top: bool, classes: int, what: str) -> None:
    if not (weights in ("imagenet", None) or os.path.exists(os.fspath(weights))):
        raise ValueError(
            f"{what}: weights must be None (random initialisation), 'imagenet' (the "
            f"pretrained weights) or the path of a weights file, not {weights!r}"
        )
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            f"{what}: the 'imagenet' weights with include_top=True classify 1000 classes; "
            f"got classes={classes}"
        )


def input_shape_for(
    input_shape: Any, default: int, min_size: int, require_flatten: bool, weights: Any, what: str
) -> tuple:
    """Keras's rules for an application's input shape (channels last)."""
    shape = tuple(input_shape) if input_shape else None
    if shape is not None and len(shape) != 3:
        raise ValueError(f"{what}: input_shape must be three integers (rows, cols, channels)")
    default_shape = (default, default, shape[-1] if shape and weights != "imagenet" else 3)
    if weights == "imagenet" and require_flatten:
        if shape is not None and shape != default_shape:
            raise ValueError(
                f"{what}: with include_top=True and the 'imagenet' weights, input_shape must "
                f"be {default_shape}; got {shape}"
            )
        return default_shape
    if shape is not None:
        if shape[-1] != 3 and weights == "imagenet":
            raise ValueError(f"{what}: the 'imagenet' weights take 3 channels; got {shape}")
        if any(d is not None and d < min_size for d in shape[:2]):
            raise ValueError(
                f"{what}: the input must be at least {min_size}x{min_size}; got {shape}"
            )
    elif require_flatten:
        shape = default_shape
    else:
        shape = (None, None, 3)
    if require_flatten and None in shape:
        raise ValueError(f"{what}: include_top=True needs a fixed input_shape; got {shape}")
    return shape


def image_input(shape: tuple, input_tensor: Any) -> Any:
    return Input(shape=shape) if input_tensor is None else input_tensor


def classifier(
    x: Any,
    include_top: bool,
    pooling: str | None,
    classes: int,
    classifier_activation: Any,
    weights: Any,
    top: Callable[[Any], Any] | None = None,
    pool_names: tuple[str | None, str | None] = (None, None),
) -> Any:
    """The classifier (`top(x)`, or global average pooling and a softmax Dense named
    "predictions") or, without it, the pooling asked for."""
    avg_name, max_name = pool_names
    if include_top:
        if weights is not None and classifier_activation not in (None, "softmax"):
            raise ValueError(
                "only None and 'softmax' classifier activations go with pretrained weights; "
                f"got {classifier_activation!r}"
            )
        if top is not None:
            x = top(x)
        else:
            x = layers.GlobalAveragePooling2D(name=avg_name)(x)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    if pooling is not None:
        raise ValueError(f"pooling must be None, 'avg' or 'max', not {pooling!r}")
    return x


def finish(inputs: Any, outputs: Any, name: str, weights: Any, pretrained: Any) -> Any:
    """The model, with `weights` loaded: a file path, or 'imagenet' as
    `pretrained() -> (file name, origin folder, md5 or None)`."""
    model = Model(inputs, outputs, name=name)
    if weights == "imagenet":
        file_name, folder, digest = pretrained()
        path = get_file(
            file_name, origin=folder + file_name, cache_subdir="models", file_hash=digest
        )
        model.load_weights(path)
    elif weights is not None:
        model.load_weights(weights)
    return model


def correct_pad(x: Any, kernel_size: int) -> tuple:
    """The zero padding before a stride-2 'valid' convolution that centres its window as
    'same' padding would (Keras's `correct_pad`)."""
    rows, cols = x.shape[1], x.shape[2]
    adjust = (1, 1) if rows is None else (1 - rows % 2, 1 - cols % 2)
    half = kernel_size // 2
    return ((half - adjust[0], half), (half - adjust[1], half))


def application(
    body: Callable[..., Any], public_name: str, default_name: str, doc: str, module: str
) -> Callable[..., Any]:
    """A builder with Keras's signature for a fixed architecture (VGG16, ResNet50, ...),
    forwarding its arguments to `body` by keyword."""

    def build(
        include_top: bool = True,
        weights: Any = "imagenet",
        input_tensor: Any = None,
        input_shape: Any = None,
        pooling: str | None = None,
        classes: int = 1000,
        classifier_activation: Any = "softmax",
        name: str = default_name,
    ) -> Any:
        return body(
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
            name=name,
        )

    build.__name__ = build.__qualname__ = public_name
    build.__doc__ = doc
    build.__module__ = module
    return build
