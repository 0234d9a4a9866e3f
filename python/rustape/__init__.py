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

from ._tape import GradientTape, UnconnectedGradients  # noqa: E402
from .custom_gradient import custom_gradient  # noqa: E402
from ._module import Module, TensorSpec, function  # noqa: E402
from . import _structure  # noqa: E402,F401
from . import contrib, keras, layers, linalg, math, nest, nn, random, saved_model, test  # noqa: E402

#: The engine's version.
__version__: str = _rustape.__version__

__all__ = sorted(
    set(_exported)
    | {
        "GradientTape", "UnconnectedGradients", "custom_gradient", "Module", "TensorSpec",
        "function", "math", "nn", "linalg", "random", "layers", "keras", "nest", "test",
        "saved_model", "contrib", "__version__",
    }
)
