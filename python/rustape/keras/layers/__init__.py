"""`rt.keras.layers` (also `rt.layers`): Keras-style layers, built on their first call.

Layers are built lazily from the shape of their first input, with Keras's defaults:
`dense.variables` is `[]` until then. Variables are `rt.Variable`s, so a tape watches the
trainable ones as they are read.
"""
from __future__ import annotations

from ..activations import get_activation
from ..initializers import get_initializer
from .base import Layer
from .core import Dense
from .normalization import BatchNormalization

__all__ = ["BatchNormalization", "Dense", "Layer", "get_activation", "get_initializer"]
