"""`rt.math`: elementwise math, reductions and comparisons, with TensorFlow's names.

Filled from the binding table (rows naming `math`; see `_export.py`); `rt.math.special` has
TensorFlow's `tf.math.special` names.
"""

from __future__ import annotations

from .._export import fill as _fill
from . import special  # noqa: F401  (rt.math.special: its own namespace, not a row of math)

__all__ = list(_fill(globals(), "math"))
