"""`rt.math.special`: TensorFlow's `tf.math.special` names rustape has (the Bessel functions).

Filled from the binding table (rows naming `math.special`; see `_export.py`).
"""

from __future__ import annotations

from .._export import fill as _fill

__all__ = list(_fill(globals(), "math.special"))
