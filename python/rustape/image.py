"""`rt.image`: image ops with TensorFlow's names (`tf.image`).

`resize` (bilinear, nearest, bicubic, area; differentiable) and its adjoint. Filled from the
binding table (rows naming `image`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill

__all__ = list(_fill(globals(), "image"))
