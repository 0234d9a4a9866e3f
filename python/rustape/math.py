"""`rt.math`: elementwise math, reductions and comparisons, with TensorFlow's names.

Filled from the binding table (rows naming `math`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill

__all__ = list(_fill(globals(), "math"))
