"""`rt.linalg`: matrix products, solves and norms, with TensorFlow's names."""
from __future__ import annotations

from ._export import export as _export

__all__ = _export(globals(), [
    "matmul", "matvec", "einsum", "eye", "solve", "inv", "norm", "matrix_transpose", "adjoint",
    "diag_part", "trace", "tensordot", "l2_normalize",
])
