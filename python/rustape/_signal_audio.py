"""The audio compositions of `rt.signal` (see `signal.py`): Kaiser, Kaiser-Bessel-derived and
Vorbis windows, the mel filter bank, MFCCs, the discrete cosine transforms (types 1-4) and the
MDCT, each with TensorFlow 2.21's arithmetic and written in rustape's ops (the FFTs and Bessel
functions are Rust kernels), so they differentiate like them, to any order.
"""

from __future__ import annotations

import math
from typing import Any

import rustape as rt

from ._export import export
from ._rustape import Tensor, irfft, rfft
from ._signal_ops import WindowFn, _int, frame, overlap_and_add
from ._typing import DTypeLike, TensorLike


def _float_dtype(dtype: DTypeLike, op: str) -> Any:
    dtype = rt.float32 if dtype is None else rt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"signal.{op}: dtype must be a floating point type, got {dtype.name}")
    return dtype


def _length(window_length: Any, op: str) -> int:
    n = _int(window_length, op, "window_length")
    if n < 0:
        raise ValueError(f"signal.{op}: window_length must be non-negative, got {n}")
    return n


@export("signal")
def kaiser_window(
    window_length: int, beta: TensorLike = 12.0, dtype: DTypeLike = None, name: Any = None
) -> Tensor:
    """`tf.signal.kaiser_window`: `I0(beta sqrt(1 - (2k/(n-1) - 1)^2)) / I0(beta)`, computed
    with the scaled `bessel_i0e` as TensorFlow does (float32 by default). Differentiable with
    respect to `beta`.

    >>> [round(v, 4) for v in rt.signal.kaiser_window(5, beta=2.0).numpy().tolist()]
    [0.4387, 0.8348, 1.0, 0.8348, 0.4387]
    """
    n = _length(window_length, "kaiser_window")
    dtype = _float_dtype(dtype, "kaiser_window")
    if n == 1:
        return rt.ones([1], dtype=dtype)
    half = (n - 1) / 2.0
    arg = rt.cast(rt.range(n), dtype) - half
    beta_t = rt.cast(beta, dtype)
    half_t = rt.constant(half, dtype=dtype)
    num = beta_t * rt.sqrt(rt.nn.relu(1.0 - rt.square(arg / half_t)))
    return rt.exp(num - beta_t) * (rt.math.bessel_i0e(num) / rt.math.bessel_i0e(beta_t))


@export("signal")
def kaiser_bessel_derived_window(
    window_length: int, beta: TensorLike = 12.0, dtype: DTypeLike = None, name: Any = None
) -> Tensor:
    """`tf.signal.kaiser_bessel_derived_window`: the square roots of the normalised running
    sums of a Kaiser window of `window_length // 2 + 1` points, mirrored (a window for the
    MDCT that meets the Princen-Bradley condition).

    >>> w = rt.signal.kaiser_bessel_derived_window(8, beta=4.0)
    >>> [round(v, 4) for v in (w[:4] ** 2 + w[4:] ** 2).numpy().tolist()]
    [1.0, 1.0, 1.0, 1.0]
    """
    n = _length(window_length, "kaiser_bessel_derived_window")
    dtype = _float_dtype(dtype, "kaiser_bessel_derived_window")
    kaiser = kaiser_window(n // 2 + 1, beta, dtype=dtype)
    running = rt.cumsum(kaiser)
    half = rt.sqrt(running[:-1] / running[-1])
    return rt.concat([half, rt.reverse(half, [0])], axis=0)


@export("signal")
def vorbis_window(window_length: int, dtype: DTypeLike = None, name: Any = None) -> Tensor:
    """`tf.signal.vorbis_window`: `sin(pi/2 sin^2(pi (k + 1/2) / n))`, the Vorbis
    power-complementary window.

    >>> [round(v, 4) for v in rt.signal.vorbis_window(4).numpy().tolist()]
    [0.228, 0.9737, 0.9737, 0.228]
    """
    n = _length(window_length, "vorbis_window")
    dtype = _float_dtype(dtype, "vorbis_window")
    arg = rt.cast(rt.range(n), dtype)
    step = rt.constant(math.pi, dtype=dtype) / rt.constant(float(n), dtype=dtype)
    inner = rt.pow(rt.sin(step * (arg + 0.5)), 2.0)
    return rt.sin(rt.constant(math.pi / 2.0, dtype=dtype) * inner)


def _hertz_to_mel(hertz: Tensor) -> Tensor:
    return 1127.0 * rt.math.log(1.0 + hertz / 700.0)


@export("signal")
def linear_to_mel_weight_matrix(
    num_mel_bins: int = 20,
    num_spectrogram_bins: int = 129,
    sample_rate: TensorLike = 8000,
    lower_edge_hertz: float = 125.0,
    upper_edge_hertz: float = 3800.0,
    dtype: DTypeLike = None,
    name: Any = None,
) -> Tensor:
    """`tf.signal.linear_to_mel_weight_matrix`: `[num_spectrogram_bins, num_mel_bins]`
    triangular filters (peak 1) spaced evenly on the HTK mel scale `1127 ln(1 + f/700)` from
    `lower_edge_hertz` to `upper_edge_hertz`; bin 0 (DC) gets no weight. `spectrogram @ matrix`
    is a mel spectrogram.

    >>> m = rt.signal.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 4000.0)
    >>> m.shape
    (9, 4)
    """
    op = "linear_to_mel_weight_matrix"
    mels = _int(num_mel_bins, op, "num_mel_bins")
    bins = _int(num_spectrogram_bins, op, "num_spectrogram_bins")
    dtype = _float_dtype(dtype, op)
    if mels <= 0:
        raise ValueError(f"signal.{op}: num_mel_bins must be positive, got {mels}")
    if bins < 0:
        raise ValueError(f"signal.{op}: num_spectrogram_bins must be non-negative, got {bins}")
    lower, upper = float(lower_edge_hertz), float(upper_edge_hertz)
    if lower < 0.0:
        raise ValueError(f"signal.{op}: lower_edge_hertz must be non-negative, got {lower}")
    if lower >= upper:
        raise ValueError(
            f"signal.{op}: lower_edge_hertz {lower:.1f} >= upper_edge_hertz {upper:.1f}"
        )
    if not isinstance(sample_rate, (rt.Tensor, rt.Variable)):
        rate = float(sample_rate)  # type: ignore[arg-type]  # a Python or NumPy number here
        if rate <= 0.0:
            raise ValueError(f"signal.{op}: sample_rate must be positive, got {sample_rate}")
        if upper > rate / 2:
            raise ValueError(
                f"signal.{op}: upper_edge_hertz must not be larger than the Nyquist frequency "
                f"(sample_rate / 2), got {upper} for sample_rate {sample_rate}"
            )
    return mel_weights(
        mels,
        bins,
        rt.cast(sample_rate, dtype),
        rt.constant(lower, dtype=dtype),
        rt.constant(upper, dtype=dtype),
    )


def mel_weights(mels: int, bins: int, rate: Tensor, lower: Tensor, upper: Tensor) -> Tensor:
    """The mel filter bank of `linear_to_mel_weight_matrix` (checked arguments; `rate`,
    `lower`, `upper` tensors of the result's dtype). Keras's `MelSpectrogram` uses it too."""
    zero = rt.zeros([], dtype=rate.dtype)
    frequencies = rt.linspace(zero, rate / 2.0, bins)[1:]
    spectrogram_mel = rt.expand_dims(_hertz_to_mel(frequencies), 1)
    edges = rt.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), mels + 2)
    lower_mel = rt.reshape(edges[:mels], [1, mels])
    center_mel = rt.reshape(edges[1 : mels + 1], [1, mels])
    upper_mel = rt.reshape(edges[2:], [1, mels])
    rising = (spectrogram_mel - lower_mel) / (center_mel - lower_mel)
    falling = (upper_mel - spectrogram_mel) / (upper_mel - center_mel)
    weights = rt.maximum(zero, rt.minimum(rising, falling))
    return rt.pad(weights, [[1, 0], [0, 0]])


def _check_dct(x: Tensor, kind: Any, n: Any, axis: Any, norm: Any, op: str) -> int | None:
    if not x.dtype.is_floating:
        raise TypeError(
            f"signal.{op}: expected float32 or float64 input, got {x.dtype.name} of shape "
            f"{list(x.shape)}"
        )
    if x.ndim < 1:
        raise ValueError(f"signal.{op}: the input must have rank at least 1, got shape []")
    if _int(axis, op, "axis") != -1:
        raise NotImplementedError(f"signal.{op}: axis must be -1, got {axis}")
    length = None if n is None else _int(n, op, "n")
    if length is not None and length < 1:
        raise ValueError(f"signal.{op}: n should be a positive integer or None, got {length}")
    if kind not in (1, 2, 3, 4):
        raise ValueError(f"signal.{op}: types I, II, III and IV are supported, got type={kind}")
    if norm not in (None, "ortho"):
        raise ValueError(f"signal.{op}: unknown normalization {norm!r}: expected None or 'ortho'")
    if kind == 1:
        if norm == "ortho":
            raise ValueError(f"signal.{op}: normalization is not supported for the type-I DCT")
        if int(x.shape[-1]) < 2:
            raise ValueError(
                f"signal.{op}: the type-I DCT requires the last dimension to be greater than "
                f"one, got shape {list(x.shape)}"
            )
    return length


def _ortho_weights(n: int, first: Tensor, rest: Tensor) -> Tensor:
    return rt.concat([rt.reshape(first, [1]), rest * rt.ones([n - 1], dtype=rest.dtype)], axis=0)


def _phase(n: int, sign: float, dtype: Any) -> Tensor:
    """`2 exp(i sign k pi / (2 n))` for `k < n`, computed in `dtype` as TensorFlow does."""
    nf = rt.constant(float(n), dtype=dtype)
    angle = rt.cast(rt.range(n), dtype) * (sign * math.pi) * 0.5 / nf
    return 2.0 * rt.exp(rt.complex(rt.zeros_like(angle), angle))


def _dct(x: Tensor, kind: int, n: int | None, norm: Any) -> Tensor:
    if n is not None:
        length = int(x.shape[-1])
        if n <= length:
            x = x[..., :n]
        else:
            x = rt.pad(x, [[0, 0]] * (x.ndim - 1) + [[0, n - length]])
    size = int(x.shape[-1])
    dtype = x.dtype
    size_f = rt.constant(float(size), dtype=dtype)
    if kind == 1:
        return rt.math.real(rfft(rt.concat([x, rt.reverse(x[..., 1:-1], [-1])], axis=-1)))
    if kind == 2:
        spectrum = rfft(x, fft_length=[2 * size])[..., :size]
        out = rt.math.real(spectrum * _phase(size, -1.0, dtype))
        if norm == "ortho":
            n1 = 0.5 * rt.math.rsqrt(size_f)
            out = out * _ortho_weights(size, n1, n1 * math.sqrt(2.0))
        return out
    if kind == 3:
        if norm == "ortho":
            n1 = rt.sqrt(size_f)
            x = x * _ortho_weights(size, n1, n1 * math.sqrt(0.5))
        else:
            x = x * size_f
        spectrum = _phase(size, 1.0, dtype) * rt.complex(x, rt.zeros_like(x))
        return irfft(spectrum, fft_length=[2 * size])[..., :size]
    out = _dct(x, 2, 2 * size, None)[..., 1::2]
    if norm == "ortho":
        out = out * (math.sqrt(0.5) * rt.math.rsqrt(size_f))
    return out


@export("signal")
def dct(
    input: TensorLike,
    type: int = 2,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    name: Any = None,
) -> Tensor:
    """`tf.signal.dct`: the discrete cosine transform (types 1-4, scipy.fftpack's definitions)
    of the last axis of real `input`, through a `2n`-point `rfft` as TensorFlow computes it.
    `n` crops or zero-pads the axis first; `norm='ortho'` makes types 2-4 orthonormal.

    >>> [round(v, 4) + 0.0 for v in rt.signal.dct(rt.constant([1.0, 2.0, 3.0])).numpy().tolist()]
    [12.0, -3.4641, 0.0]
    """
    x = rt.convert_to_tensor(input)
    length = _check_dct(x, type, n, axis, norm, "dct")
    return _dct(x, type, length, norm)


@export("signal")
def idct(
    input: TensorLike,
    type: int = 2,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    name: Any = None,
) -> Tensor:
    """`tf.signal.idct`: the inverse DCT, the DCT of the inverse type (3 for 2, 2 for 3; types
    1 and 4 are their own inverses). Without `norm`, `idct(dct(x)) / (2 n)` is `x`.

    >>> x = rt.constant([1.0, 2.0, 3.0])
    >>> (rt.signal.idct(rt.signal.dct(x)) / 6.0).numpy().round(4).tolist()
    [1.0, 2.0, 3.0]
    """
    x = rt.convert_to_tensor(input)
    length = _check_dct(x, type, n, axis, norm, "idct")
    return _dct(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], length, norm)


@export("signal")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: TensorLike, name: Any = None) -> Tensor:
    """`tf.signal.mfccs_from_log_mel_spectrograms`: mel-frequency cepstral coefficients, the
    type-2 DCT of the last axis scaled by `1 / sqrt(2 num_mel_bins)` (TensorFlow's scaling,
    orthonormal but for the first coefficient).

    >>> mfccs = rt.signal.mfccs_from_log_mel_spectrograms(rt.ones([1, 4]))
    >>> [round(v, 4) + 0.0 for v in mfccs.numpy()[0].tolist()]
    [2.8284, 0.0, 0.0, 0.0]
    """
    x = rt.convert_to_tensor(log_mel_spectrograms)
    if x.ndim < 1 or int(x.shape[-1]) == 0:
        raise ValueError(
            f"signal.mfccs_from_log_mel_spectrograms: num_mel_bins must be positive, got a "
            f"log-mel spectrogram of shape {list(x.shape)}"
        )
    _check_dct(x, 2, None, -1, None, "mfccs_from_log_mel_spectrograms")
    bins = rt.constant(float(x.shape[-1]), dtype=x.dtype)
    return _dct(x, 2, None, None) * rt.math.rsqrt(bins * 2.0)


@export("signal")
def mdct(
    signals: TensorLike,
    frame_length: int,
    window_fn: WindowFn | None = vorbis_window,
    pad_end: bool = False,
    norm: str | None = None,
    name: Any = None,
) -> Tensor:
    """`tf.signal.mdct`: the modified discrete cosine transform of real `signals`
    `[..., samples]`: frames of `frame_length` (a multiple of 4) every `frame_length // 2`
    samples, windowed (Vorbis by default; `None`: `1/sqrt(2)`), folded and transformed by a
    type-4 DCT, `[..., frames, frame_length // 2]`.

    >>> rt.signal.mdct(rt.ones([16]), 8).shape
    (3, 4)
    """
    x = rt.convert_to_tensor(signals)
    if not x.dtype.is_floating:
        raise TypeError(
            f"signal.mdct: expected float32 or float64 signals, got {x.dtype.name} of shape "
            f"{list(x.shape)}"
        )
    if x.ndim < 1:
        raise ValueError("signal.mdct: the signals must have rank at least 1, got shape []")
    length = _int(frame_length, "mdct", "frame_length")
    if length < 4 or length % 4 != 0:
        raise ValueError(
            f"signal.mdct: the frame length must be a positive multiple of 4, got {length}"
        )
    if norm not in (None, "ortho"):
        raise ValueError(f"signal.mdct: unknown normalization {norm!r}: expected None or 'ortho'")
    framed = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(length, dtype=framed.dtype)
    else:
        framed = framed * (1.0 / math.sqrt(2.0))
    q = length // 4
    a, b, c, d = (framed[..., i * q : (i + 1) * q] for i in range(4))
    first = -rt.reverse(c, [-1]) - d
    second = a - rt.reverse(b, [-1])
    return _dct(rt.concat([first, second], axis=-1), 4, None, norm)


@export("signal")
def inverse_mdct(
    mdcts: TensorLike,
    window_fn: WindowFn | None = vorbis_window,
    norm: str | None = None,
    name: Any = None,
) -> Tensor:
    """`tf.signal.inverse_mdct`: `[..., frames, n]` MDCT coefficients back to
    `[..., (frames + 1) n]` samples (type-4 DCT, unfolding, window, overlap-add). With the
    same window and `norm` as `mdct`, it reconstructs the signal away from the ends.

    >>> x = rt.random.normal([32], seed=3)
    >>> y = rt.signal.inverse_mdct(rt.signal.mdct(x, 8))
    >>> bool(abs((y[4:28] - x[4:28]).numpy()).max() < 1e-5)
    True
    """
    m = rt.convert_to_tensor(mdcts)
    if not m.dtype.is_floating:
        raise TypeError(
            f"signal.inverse_mdct: expected float32 or float64 mdcts, got {m.dtype.name} of "
            f"shape {list(m.shape)}"
        )
    if m.ndim < 2:
        raise ValueError(
            f"signal.inverse_mdct: mdcts must have rank at least 2 [..., frames, n], got shape "
            f"{list(m.shape)}"
        )
    half = int(m.shape[-1])
    if half < 2 or half % 2 != 0:
        raise ValueError(
            f"signal.inverse_mdct: the last dimension must be a positive even number, got shape "
            f"{list(m.shape)}"
        )
    if norm is None:
        result = (0.5 / rt.constant(float(half), dtype=m.dtype)) * _dct(m, 4, None, None)
    elif norm == "ortho":
        result = _dct(m, 4, None, "ortho")
    else:
        raise ValueError(
            f"signal.inverse_mdct: unknown normalization {norm!r}: expected None or 'ortho'"
        )
    first, second = result[..., : half // 2], result[..., half // 2 :]
    frames = rt.concat(
        [second, -rt.reverse(second, [-1]), -rt.reverse(first, [-1]), -first], axis=-1
    )
    if window_fn is not None:
        frames = frames * window_fn(2 * half, dtype=m.dtype)
    else:
        frames = frames * (1.0 / math.sqrt(2.0))
    return overlap_and_add(frames, half)
