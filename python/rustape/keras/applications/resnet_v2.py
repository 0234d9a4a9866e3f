"""`keras.applications.resnet_v2`: ResNet50V2, ResNet101V2, ResNet152V2 with the input scaling their pretrained
weights expect."""

from __future__ import annotations

from typing import Any

from . import imagenet_utils
from ._resnet import ResNet50V2, ResNet101V2, ResNet152V2

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "decode_predictions", "preprocess_input"]


def preprocess_input(x: Any, data_format: str | None = None) -> Any:
    """Scale 0-255 to [-1, 1], as the pretrained weights expect.

    >>> import numpy as np, rustape as rt
    >>> rt.keras.applications.resnet_v2.preprocess_input(np.zeros((1, 1, 3))).ravel()
    array([-1., -1., -1.])
    """
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
