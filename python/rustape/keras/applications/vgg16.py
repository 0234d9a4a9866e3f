"""`keras.applications.vgg16`: VGG16 with the input scaling their pretrained
weights expect."""

from __future__ import annotations

from typing import Any

from . import imagenet_utils
from ._vgg import VGG16

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Flip RGB to BGR and subtract ImageNet's channel means (0-255 scale), as the pretrained weights expect.

    >>> import numpy as np, rustape as rt
    >>> rt.keras.applications.vgg16.preprocess_input(np.zeros((1, 1, 3))).ravel()
    array([-103.939, -116.779, -123.68 ])
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
