"""`rt.linalg`: matrix products, solves and norms, with TensorFlow's names.

Filled from the binding table (rows naming `linalg`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill

__all__ = list(_fill(globals(), "linalg"))
