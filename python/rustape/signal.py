"""`rt.signal`: Fourier transforms and spectral ops with TensorFlow's names (`tf.signal`).

The FFTs (`fft`, `ifft`, `fft2d`, ..., `rfft`, `irfft`, ..., differentiable to any order) and
`fftshift` / `ifftshift` come from the binding table (rows naming `signal`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill

__all__ = list(_fill(globals(), "signal"))
