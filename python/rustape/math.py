"""`rt.math`: elementwise math, reductions and comparisons, with TensorFlow's names."""
from __future__ import annotations

from ._export import export as _export

__all__ = _export(globals(), [
    "add", "subtract", "multiply", "divide", "truediv", "pow", "negative", "abs", "sign", "sqrt",
    "rsqrt", "square", "squared_difference", "reciprocal", "exp", "log", "log1p", "sin", "cos",
    "tan", "tanh", "sigmoid", "log_sigmoid", "softplus", "maximum", "minimum", "round", "floor",
    "floordiv", "floormod", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_not", "reduce_sum", "reduce_mean",
    "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp", "reduce_variance",
    "reduce_std", "argmax", "argmin", "softmax", "log_softmax", "l2_normalize", "add_n",
])
