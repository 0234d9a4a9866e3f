"""`keras.ops.linalg`: Keras 3's linear-algebra ops under their namespace; each is the
`keras.ops` function of the same name.

>>> import rustape as rt
>>> float(rt.keras.ops.linalg.det([[2.0, 0.0], [0.0, 3.0]]))
6.0
"""

from __future__ import annotations

from . import (  # keras.ops' own functions (imported at the end of __init__.py)
    cholesky,
    cholesky_inverse,
    det,
    eigh,
    inv,
    jvp,
    lstsq,
    lu_factor,
    matrix_rank,
    norm,
    pinv,
    qr,
    solve,
    solve_triangular,
    svd,
)

#: Keras 3.15's names in this namespace that rustape does not have yet (an AttributeError).
NOT_YET = ("eig",)

__all__ = [
    "cholesky",
    "cholesky_inverse",
    "det",
    "eigh",
    "inv",
    "jvp",
    "lstsq",
    "lu_factor",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
]
