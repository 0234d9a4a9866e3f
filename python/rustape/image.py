"""`rt.image`: image ops with TensorFlow's names (`tf.image`).

`resize` (bilinear, nearest, bicubic, area; differentiable) and its adjoint; flips,
rotations, crops and pads, brightness, contrast, standardisation, colour and dtype
conversion (compositions in `_image.py`); `affine_transform`; gradients, Sobel edges, total
variation, PSNR, gamma and the random adjustments (`_image_filters.py`); HSV, YIQ and YUV,
hue and saturation (`_image_color.py`); SSIM and MS-SSIM (`_image_ssim.py`). Filled from the
binding table (rows naming `image`; see `_export.py`).
"""

from __future__ import annotations

from . import (
    _image,  # noqa: F401  (declares the compositions)
    _image_color,  # noqa: F401  (colour spaces, hue and saturation)
    _image_crop,  # noqa: F401  (crop_and_resize)
    _image_filters,  # noqa: F401  (filters, measures, random adjustments)
    _image_patches,  # noqa: F401  (extract_patches)
    _image_ssim,  # noqa: F401  (structural similarity)
)
from ._export import fill as _fill

__all__ = list(_fill(globals(), "image"))
