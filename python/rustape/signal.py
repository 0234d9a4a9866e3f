"""`rt.signal`: Fourier transforms and spectral ops with TensorFlow's names (`tf.signal`).

The FFTs (`fft`, `rfft`, ... in 1-3 dimensions, `fftshift`) are Rust ops; windows, `frame`,
`overlap_and_add`, `stft` and `inverse_stft` are compositions in `_signal_ops.py`; the audio
names (Kaiser and Vorbis windows, the mel filter bank, MFCCs, `dct` / `idct`, `mdct`) in
`_signal_audio.py`. Filled
from the binding table (rows naming `signal`; see `_export.py`).
"""

from __future__ import annotations

from . import _signal_audio, _signal_ops  # noqa: F401  (declare the compositions)
from ._export import fill as _fill

__all__ = list(_fill(globals(), "signal"))
