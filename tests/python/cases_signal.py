"""Gradient-check cases for `rt.signal` (format of test_op_gradients.py: `CASES = {name: (fn,
[numpy inputs])}`, checked first and second order against central finite differences in
float64, complex inputs in their real and imaginary directions). Values and gradients against
TensorFlow are in test_signal_reference.py."""

from __future__ import annotations

import numpy as np
import rustape as rt

rng = np.random.default_rng(4242)


def _u(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape)


def _c(*shape: int) -> np.ndarray:
    return _u(*shape) + 1j * _u(*shape)


def _sq(y):
    """A real, non-linear function of both parts of a complex `y`."""
    return rt.math.real(y * y) + 0.5 * rt.math.imag(y)


CASES = {
    "signal.fft": (lambda x: _sq(rt.signal.fft(x)), [_c(2, 5)]),
    "signal.ifft": (lambda x: _sq(rt.signal.ifft(x)), [_c(4)]),
    "signal.fft2d": (lambda x: _sq(rt.signal.fft2d(x)), [_c(3, 2)]),
    "signal.ifft2d": (lambda x: _sq(rt.signal.ifft2d(x)), [_c(2, 2, 3)]),
    "signal.fft3d": (lambda x: _sq(rt.signal.fft3d(x)), [_c(2, 1, 3)]),
    "signal.ifft3d": (lambda x: _sq(rt.signal.ifft3d(x)), [_c(2, 2, 2)]),
    "signal.rfft": (lambda x: _sq(rt.signal.rfft(x)), [_u(2, 5)]),
    "signal.rfft padded": (lambda x: _sq(rt.signal.rfft(x, fft_length=[6])), [_u(4)]),
    "signal.irfft": (lambda x: rt.signal.irfft(x, fft_length=[6]) ** 2, [_c(2, 4)]),
    "signal.irfft odd": (lambda x: rt.signal.irfft(x, fft_length=[5]) ** 2, [_c(3)]),
    "signal.rfft2d": (lambda x: _sq(rt.signal.rfft2d(x)), [_u(3, 4)]),
    "signal.irfft2d": (lambda x: rt.signal.irfft2d(x, fft_length=[2, 3]) ** 2, [_c(2, 2)]),
    "signal.rfft3d": (lambda x: _sq(rt.signal.rfft3d(x)), [_u(2, 2, 3)]),
    "signal.irfft3d": (lambda x: rt.signal.irfft3d(x, fft_length=[2, 1, 4]) ** 2, [_c(2, 1, 3)]),
    "signal.fftshift": (lambda x: rt.signal.fftshift(x) * x, [_u(3, 4)]),
    "signal.ifftshift": (lambda x: rt.signal.ifftshift(x, axes=[1]) * x, [_u(2, 5)]),
    "signal.hann_window": (lambda x: x * rt.signal.hann_window(5, dtype=rt.float64), [_u(5)]),
    "signal.hamming_window": (
        lambda x: x * rt.signal.hamming_window(4, periodic=False, dtype=rt.float64),
        [_u(4)],
    ),
    "signal.frame": (lambda x: rt.signal.frame(x, 3, 2, pad_end=True) ** 2, [_u(2, 7)]),
    "signal.overlap_and_add": (lambda x: rt.signal.overlap_and_add(x, 2) ** 2, [_u(3, 4)]),
    "signal.stft": (lambda x: _sq(rt.signal.stft(x, 4, 2)), [_u(10)]),
    "signal.inverse_stft": (lambda s: rt.signal.inverse_stft(s, 4, 2) ** 2, [_c(3, 3)]),
    "signal.inverse_stft_window_fn": (
        lambda x: x * rt.signal.inverse_stft_window_fn(2)(4, dtype=rt.float64),
        [_u(4)],
    ),
    # Bessel functions (rt.math; the Kaiser windows use them): series and asymptotic branches.
    "math.bessel_i0": (lambda x: rt.math.bessel_i0(x), [_u(3, 4) * 4.0]),
    "math.bessel_i0e": (
        lambda x: rt.math.bessel_i0e(x),
        [np.array([-30.0, -3.0, 0.4, 2.0, 21.0, 45.0])],
    ),
    "math.bessel_i1": (lambda x: rt.math.bessel_i1(x), [_u(3, 4) * 4.0]),
    "math.bessel_i1e": (
        lambda x: rt.math.bessel_i1e(x),
        [np.array([-30.0, -3.0, 0.4, 2.0, 21.0, 45.0])],
    ),
    # Audio: windows (with respect to beta), the mel filter bank, DCTs, MFCCs, MDCT.
    "signal.kaiser_window": (
        lambda b: rt.signal.kaiser_window(6, beta=b, dtype=rt.float64),
        [np.array(3.5)],
    ),
    "signal.kaiser_bessel_derived_window": (
        lambda b: rt.signal.kaiser_bessel_derived_window(8, beta=b, dtype=rt.float64),
        [np.array(5.0)],
    ),
    "signal.vorbis_window": (lambda x: x * rt.signal.vorbis_window(5, dtype=rt.float64), [_u(5)]),
    "signal.linear_to_mel_weight_matrix": (
        lambda x: x * rt.signal.linear_to_mel_weight_matrix(3, 6, 8000, 100.0, 4000.0, rt.float64),
        [_u(6, 3)],
    ),
    "signal.dct type 1": (lambda x: rt.signal.dct(x, type=1) ** 2, [_u(2, 5)]),
    "signal.dct type 2 ortho": (lambda x: rt.signal.dct(x, norm="ortho", n=6) ** 2, [_u(2, 5)]),
    "signal.dct type 3": (lambda x: rt.signal.dct(x, type=3) ** 2, [_u(2, 4)]),
    "signal.dct type 4 ortho": (lambda x: rt.signal.dct(x, type=4, norm="ortho") ** 2, [_u(5)]),
    "signal.idct": (lambda x: rt.signal.idct(x, type=2, n=3) ** 2, [_u(2, 4)]),
    "signal.mfccs_from_log_mel_spectrograms": (
        lambda x: rt.signal.mfccs_from_log_mel_spectrograms(x) ** 2,
        [_u(2, 6)],
    ),
    "signal.mdct": (lambda x: rt.signal.mdct(x, 8) ** 2, [_u(20)]),
    "signal.inverse_mdct": (lambda x: rt.signal.inverse_mdct(x, norm="ortho") ** 2, [_u(3, 4)]),
}
