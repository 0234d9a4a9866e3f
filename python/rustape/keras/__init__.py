"""`rt.keras`: Keras 3's names over rustape, so `tf.keras.X` ports as `rt.keras.X`.

Submodules: `layers`, `activations`, `callbacks`, `initializers`, `optimizers`, `losses`, `metrics`,
`models`, `regularizers`, `constraints`, `ops`, `random`, `saving`, `utils`;
`Model`, `Sequential` and `Input` at the top, as in Keras.
"""

from __future__ import annotations

from . import (
    activations,
    callbacks,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    models,
    ops,
    optimizers,
    random,
    regularizers,
    saving,
    utils,
)
from .models import Input, InputLayer, Model, Sequential

__all__ = [
    "Input",
    "InputLayer",
    "Model",
    "Sequential",
    "activations",
    "callbacks",
    "constraints",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "ops",
    "optimizers",
    "random",
    "regularizers",
    "saving",
    "utils",
]
