"""Keras masks: the boolean `[batch, timesteps]` tensor a layer attaches to its output to
mark the real timesteps (`Embedding(mask_zero=True)`), which the next layers read
(`LSTM`, `GlobalAveragePooling1D`, `MultiHeadAttention`) or pass on (`Dense`, `Dropout`).

Keras keeps the mask in an attribute of the tensor; rustape's tensors hold no Python
attributes, so the mask is kept here, beside a weak reference to its tensor (an entry goes
when its tensor does, and a reused `id` never finds another tensor's mask)."""

from __future__ import annotations

import weakref
from typing import Any

_MASKS: dict[int, tuple[weakref.ref[Any], Any]] = {}


def get_keras_mask(x: Any) -> Any:
    """The mask attached to `x`, or None."""
    entry = _MASKS.get(id(x))
    if entry is None or entry[0]() is not x:
        return None
    return entry[1]


def set_keras_mask(x: Any, mask: Any) -> None:
    """Attaches `mask` to `x` (None detaches)."""
    key = id(x)
    if mask is None:
        _MASKS.pop(key, None)
        return
    try:
        ref = weakref.ref(x, lambda r: _drop(key, r))
    except TypeError:  # not a tensor (a Python number): nothing to attach to
        return
    _MASKS[key] = (ref, mask)


def _drop(key: int, ref: weakref.ref[Any]) -> None:
    entry = _MASKS.get(key)
    if entry is not None and entry[0] is ref:
        del _MASKS[key]


def mask_of(inputs: Any) -> Any:
    """The mask of `inputs`, or for a list of inputs the list of their masks (None when no
    input has one)."""
    if isinstance(inputs, (list, tuple)):
        masks = [get_keras_mask(x) for x in inputs]
        return masks if any(m is not None for m in masks) else None
    return get_keras_mask(inputs)
