"""`rt.image`: image ops with TensorFlow's names (`tf.image`).

`resize` (bilinear, nearest, bicubic, area; differentiable) and its adjoint; flips,
rotations, crops and pads, brightness, contrast, standardisation, colour and dtype
conversion (compositions in `_image.py`). Filled from the
binding table (rows naming `image`; see `_export.py`).
"""

from __future__ import annotations

from . import _image  # noqa: F401  (declares the compositions)
from ._export import fill as _fill

__all__ = list(_fill(globals(), "image"))
