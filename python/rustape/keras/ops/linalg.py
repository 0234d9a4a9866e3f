"""`keras.ops.linalg`: Keras 3's linear-algebra ops under their namespace; each is the
`keras.ops` function of the same name; names rustape does not have yet are absent (an
AttributeError).

>>> import rustape as rt
>>> float(rt.keras.ops.linalg.det([[2.0, 0.0], [0.0, 3.0]]))
6.0
"""

from __future__ import annotations

from ._namespace import fill

#: Keras 3.15's names in this namespace.
KERAS_NAMES = (
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq",
    "lu_factor", "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd",
)

__all__ = list(fill(globals(), KERAS_NAMES))
