"""`rt.experimental.dlpack`: TensorFlow's DLPack functions, `to_dlpack` and `from_dlpack`.

Filled from the binding table (rows naming `experimental.dlpack`; see `_export.py`).
"""

from __future__ import annotations

from .._export import fill as _fill

__all__ = list(_fill(globals(), "experimental.dlpack"))
