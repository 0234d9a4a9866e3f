"""`rt.keras`: so that `tf.keras.layers.Dense(...)` ports as `rt.keras.layers.Dense(...)`.

Only the layers rustape has (`rt.layers`) are here; rustape has no models, optimisers or
training loops.
"""
from __future__ import annotations

from . import layers

__all__ = ["layers"]
