"""`rt.keras`: Keras 3's names over rustape, so `tf.keras.X` ports as `rt.keras.X`.

Submodules: `layers`, `activations`, `callbacks`, `initializers`, `optimizers`, `losses`, `metrics`,
`models`, `regularizers`, `constraints`, `ops`, `random`, `saving`, `utils`, `datasets`;
`Model`, `Sequential` and `Input` at the top, as in Keras.
"""

from __future__ import annotations

from .._compat import name_scope
from .._rustape import Variable
from . import (
    activations,
    applications,
    callbacks,
    constraints,
    datasets,
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
from .initializers import Initializer
from .layers import Layer
from .losses import Loss
from .metrics import Metric
from .models import Input, InputLayer, Model, Sequential
from .optimizers import Optimizer
from .regularizers import Regularizer

#: The Keras release whose API `rt.keras` follows (what `keras.version()` reports there).
KERAS_API_VERSION = "3.15.1"


def version() -> str:
    """The version of Keras whose API `rt.keras` follows.

    >>> import rustape as rt
    >>> rt.keras.version()
    '3.15.1'
    """
    return KERAS_API_VERSION


__all__ = [
    "KERAS_API_VERSION",
    "Initializer",
    "Input",
    "InputLayer",
    "Layer",
    "Loss",
    "Metric",
    "Model",
    "Optimizer",
    "Regularizer",
    "Sequential",
    "Variable",
    "activations",
    "applications",
    "callbacks",
    "constraints",
    "datasets",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "name_scope",
    "ops",
    "optimizers",
    "random",
    "regularizers",
    "saving",
    "utils",
    "version",
]
