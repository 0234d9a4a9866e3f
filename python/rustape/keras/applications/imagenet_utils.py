"""ImageNet's input conventions and class names (Keras's `applications.imagenet_utils`)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ... import _rustape as _rt
from .._files import get_file

__all__ = ["decode_predictions", "preprocess_input"]

CLASS_INDEX_ORIGIN = (
    "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
)
CLASS_INDEX_MD5 = "c2c37ea517e94d9795004a39431a14cb"
_class_index: dict[str, list[str]] | None = None

# Per channel (R, G, B): caffe's BGR means in 0-255; torch's means and deviations in 0-1.
_CAFFE_MEAN_BGR = (103.939, 116.779, 123.68)
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)


def _channels_axis(ndim: int, data_format: str) -> int:
    return -1 if data_format == "channels_last" else (0 if ndim == 3 else 1)


def _per_channel(values: tuple, ndim: int, axis: int) -> np.ndarray:
    shape = [1] * ndim
    shape[axis] = 3
    return np.reshape(np.array(values), shape)


def preprocess_input(x: Any, data_format: str | None = None, mode: str = "caffe") -> Any:
    """Scale a batch of RGB images (0-255) as a pretrained model expects: "caffe" flips to BGR
    and subtracts ImageNet's channel means, "tf" maps to [-1, 1], "torch" scales to [0, 1] and
    standardises each channel by ImageNet's mean and deviation. NumPy input gives NumPy
    (integers become float32; a float array is not changed in place, unlike Keras); a tensor
    gives a tensor.

    >>> import numpy as np, rustape as rt
    >>> pixel = np.array([[[[255, 0, 128]]]], np.uint8)
    >>> rt.keras.applications.imagenet_utils.preprocess_input(pixel, mode="tf").ravel()
    array([ 1.        , -1.        ,  0.00392163], dtype=float32)
    >>> rt.keras.applications.imagenet_utils.preprocess_input(pixel).ravel().round(3)  # BGR - means
    array([  24.061, -116.779,  131.32 ], dtype=float32)
    """
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(f"preprocess_input: mode must be 'caffe', 'tf' or 'torch', not {mode!r}")
    if data_format is None:
        data_format = "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            "preprocess_input: data_format must be 'channels_last' or 'channels_first', not "
            f"{data_format!r}"
        )
    if isinstance(x, np.ndarray):
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float32)
        else:
            x = x.copy()
        return _numpy_preprocess(x, data_format, mode)
    t = _rt.convert_to_tensor(x)
    if not t.dtype.is_floating:
        t = _rt.cast(t, _rt.float32)
    return _tensor_preprocess(t, data_format, mode)


def _numpy_preprocess(x: np.ndarray, data_format: str, mode: str) -> np.ndarray:
    axis = _channels_axis(x.ndim, data_format)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        x = np.flip(x, axis=axis).copy()
        mean, std = _CAFFE_MEAN_BGR, None
    index: list[Any] = [slice(None)] * x.ndim
    for c in range(3):  # channel by channel, as Keras does (the same float rounding)
        index[axis] = c
        x[tuple(index)] -= mean[c]
        if std is not None:
            x[tuple(index)] /= std[c]
    return x


def _tensor_preprocess(x: Any, data_format: str, mode: str) -> Any:
    axis = _channels_axis(len(x.shape), data_format)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        x = _rt.reverse(x, [axis])
        mean, std = _CAFFE_MEAN_BGR, None
    x = x + _rt.constant(-_per_channel(mean, len(x.shape), axis), dtype=x.dtype)
    if std is not None:
        x = x / _rt.constant(_per_channel(std, len(x.shape), axis), dtype=x.dtype)
    return x


def decode_predictions(preds: Any, top: int = 5) -> list[list[tuple[str, str, float]]]:
    """The `top` ImageNet classes of each row of [batch, 1000] predictions, as
    `(class id, name, score)` from the highest score down (the class names are Keras's file,
    fetched once into `~/.keras/models`).

    >>> import numpy as np, rustape as rt
    >>> rt.keras.applications.imagenet_utils.decode_predictions(np.zeros((1, 10)))
    Traceback (most recent call last):
    ValueError: decode_predictions: predictions must be [batch, 1000]; got shape (1, 10)
    """
    preds = np.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError(
            f"decode_predictions: predictions must be [batch, 1000]; got shape {preds.shape}"
        )
    global _class_index
    if _class_index is None:
        path = get_file(
            "imagenet_class_index.json",
            CLASS_INDEX_ORIGIN,
            cache_subdir="models",
            file_hash=CLASS_INDEX_MD5,
        )
        with open(path, encoding="utf-8") as f:
            _class_index = json.load(f)
    results = []
    for row in preds:
        best = row.argsort()[-top:][::-1]
        entries = [(*_class_index[str(i)], row[i]) for i in best]
        entries.sort(key=lambda e: e[2], reverse=True)
        results.append([tuple(e) for e in entries])
    return results
