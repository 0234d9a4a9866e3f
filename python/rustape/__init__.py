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
from ._export import fill as _fill

# The ops (as TensorFlow has them at the top level), the dtypes, Tensor, Variable, DType: every
# row of the binding table that names `rt` (see _export.py).
_exported = _fill(globals(), "rt")

from . import (
    _structure,  # noqa: F401
    bitwise,
    config,
    contrib,
    data,
    debugging,
    errors,
    experimental,
    image,
    keras,
    layers,
    linalg,
    math,
    nest,
    nn,
    random,
    saved_model,
    signal,
    strings,
    summary,
    test,
    train,
    utils,
)
from ._compat import (
    control_dependencies,
    device,
    executing_eagerly,
    get_current_name_scope,
    get_static_value,
    group,
    init_scope,
    is_tensor,
    name_scope,
    no_op,
    numpy_function,
    print,
    py_function,
    recompute_grad,
    vectorized_map,
)
from ._control_flow import case, cond, foldl, foldr, map_fn, scan, switch_case, while_loop
from ._module import Module, TensorSpec, function
from ._shape import TensorShape
from ._strings import RaggedTensor
from ._tape import GradientTape, UnconnectedGradients
from .custom_gradient import custom_gradient
from .debugging import assert_equal, assert_greater, assert_less, assert_rank

#: `x[rt.newaxis]` inserts an axis of length 1 (NumPy's and TensorFlow's `None`).
newaxis: None = None

#: The engine's version.
__version__: str = _rustape.__version__

# The package's own names, then the table's.
__all__ = [
    "GradientTape",
    "Module",
    "RaggedTensor",
    "TensorShape",
    "TensorSpec",
    "UnconnectedGradients",
    "__version__",
    "assert_equal",
    "assert_greater",
    "assert_less",
    "assert_rank",
    "bitwise",
    "case",
    "cond",
    "config",
    "contrib",
    "control_dependencies",
    "custom_gradient",
    "data",
    "debugging",
    "device",
    "errors",
    "executing_eagerly",
    "experimental",
    "foldl",
    "foldr",
    "function",
    "get_current_name_scope",
    "get_static_value",
    "group",
    "image",
    "init_scope",
    "is_tensor",
    "keras",
    "layers",
    "linalg",
    "map_fn",
    "math",
    "name_scope",
    "nest",
    "newaxis",
    "nn",
    "no_op",
    "numpy_function",
    "print",
    "py_function",
    "random",
    "recompute_grad",
    "saved_model",
    "scan",
    "signal",
    "strings",
    "summary",
    "switch_case",
    "test",
    "train",
    "utils",
    "vectorized_map",
    "while_loop",
]
__all__.extend(_exported)
