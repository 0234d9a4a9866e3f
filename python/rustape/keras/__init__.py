"""`rt.keras`: Keras 3's names over rustape, so `tf.keras.X` ports as `rt.keras.X`.

Submodules: `layers`, `activations`, `initializers`.
"""
from __future__ import annotations

from . import activations, initializers, layers

__all__ = ["activations", "initializers", "layers"]
