"""rustape: reverse-mode automatic differentiation with TensorFlow's GradientTape model and a
Rust core.

    import rustape as rt

    x = rt.constant(3.0)
    with rt.GradientTape() as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)  # 6.0

Programs written against `tf.GradientTape` port by replacing `tf.` with `rt.`.
"""
from __future__ import annotations

from . import _rustape
from ._export import export as _export
from ._rustape import Tensor, Variable  # noqa: F401

try:
    from ._rustape import DType  # noqa: F401
except ImportError:  # pragma: no cover - older extension
    pass

# dtypes
_DTYPES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "bool", "complex64", "complex128"]
_dtypes = _export(globals(), _DTYPES)

# every op at the top level, as TensorFlow has them (wrappers from _ops where TF's argument
# forms need them; see _ops.py)
_OPS = [
    # creation and conversion
    "constant", "convert_to_tensor", "as_dtype", "cast", "stop_gradient", "identity", "zeros", "ones",
    "zeros_like", "ones_like", "fill", "linspace", "range", "eye", "one_hot",
    "shape", "size", "rank",
    # elementwise
    "add", "subtract", "multiply", "divide", "truediv", "pow", "negative", "abs", "sign", "sqrt",
    "rsqrt", "square", "squared_difference", "reciprocal", "exp", "log", "log1p", "sin", "cos",
    "tan", "tanh", "sigmoid", "relu", "elu", "softplus", "maximum", "minimum", "where",
    "clip_by_value", "round", "floor", "floordiv", "floormod", "add_n",
    # comparisons and logic
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_not",
    # reductions
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp",
    "argmax", "argmin", "norm", "softmax", "log_softmax", "clip_by_norm", "moments",
    "batch_normalization",
    # shape
    "reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "pad",
    "tile", "broadcast_to", "gather",
    # linear algebra
    "matmul", "matvec", "einsum", "tensordot", "solve", "inv",
    # random
    "random_normal", "random_uniform", "set_seed",
]
_ops_exported = _export(globals(), _OPS)

from ._tape import GradientTape, UnconnectedGradients  # noqa: E402,F401
from .custom_gradient import custom_gradient  # noqa: E402,F401
from ._module import Module, TensorSpec, function  # noqa: E402,F401
from . import _structure  # noqa: E402,F401
from . import contrib, keras, layers, linalg, math, nest, nn, random, saved_model, test  # noqa: E402,F401

try:  # the engine's version when it says one; the package's otherwise
    __version__ = str(_rustape.__version__)
except AttributeError:  # pragma: no cover
    __version__ = "0.1.0"

__all__ = sorted(
    set(_dtypes)
    | set(_ops_exported)
    | {
        "Tensor", "Variable", "DType", "GradientTape", "UnconnectedGradients", "custom_gradient",
        "Module", "TensorSpec", "function", "math", "nn", "linalg", "random", "layers", "keras",
        "nest", "test", "saved_model", "contrib", "__version__",
    }
    - ({"DType"} - set(globals()))
)
