"""Audio preprocessing layers (Keras 3): `MelSpectrogram` (a centred STFT, the mel filter
bank, decibels) and `STFTSpectrogram` (the STFT as a strided convolution with fixed real and
imaginary kernels), over `rt.signal` and `keras.ops`."""

from __future__ import annotations

import math
from typing import Any

import rustape as rt

from ..._signal_audio import mel_weights
from ..ops import _signal as signal_ops
from ..ops._conv import conv
from ._args import reject_options
from .base import Layer

__all__ = ["MelSpectrogram", "STFTSpectrogram"]

#: Keras's `backend.epsilon()`.
_EPSILON = 1e-7


def _log10(x: Any) -> Any:
    return rt.math.log(x) / rt.math.log(rt.constant(10.0, dtype=x.dtype))


class MelSpectrogram(Layer):
    """Keras 3's `MelSpectrogram`: audio `[batch, samples]` (or `[samples]`) to a mel
    spectrogram `[batch, num_mel_bins, frames]`: `|stft|^mag_exp` of centred, windowed frames
    (`keras.ops.stft`), the mel filter bank (`rt.signal.linear_to_mel_weight_matrix`'s,
    float32 as Keras builds it) and, with `power_to_db`, decibels relative to `ref_power`
    floored at `top_db` below the largest value of the batch.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8)
    >>> layer(rt.random.normal([2, 256], seed=0)).shape
    (2, 8, 9)
    """

    def __init__(
        self,
        fft_length: int = 2048,
        sequence_stride: int = 512,
        sequence_length: int | None = None,
        window: Any = "hann",
        sampling_rate: int = 16000,
        num_mel_bins: int = 128,
        min_freq: float = 20.0,
        max_freq: float | None = None,
        power_to_db: bool = True,
        top_db: float = 80.0,
        mag_exp: float = 2.0,
        min_power: float = 1e-10,
        ref_power: float = 1.0,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("MelSpectrogram", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError(
                "MelSpectrogram: `fft_length` must be greater than or equal to "
                f"`sequence_length`. Received: `sequence_length`={self.sequence_length}, "
                f"`fft_length`={self.fft_length}."
            )
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power

    def _convert_input(self, x: Any) -> Any:
        x = x if isinstance(x, (rt.Tensor, rt.Variable)) else rt.convert_to_tensor(x)
        return rt.cast(x, self.dtype)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = rt.cast(inputs, self.dtype)
        real, imag = signal_ops.stft(
            x,
            sequence_length=self.sequence_length,
            sequence_stride=self.sequence_stride,
            fft_length=self.fft_length,
            window=self.window,
            center=True,
        )
        spec = rt.pow(rt.sqrt(rt.square(real) + rt.square(imag)), float(self.mag_exp))
        matrix = mel_weights(
            self.num_mel_bins,
            int(spec.shape[-1]),
            rt.cast(self.sampling_rate, rt.float32),
            rt.constant(float(self.min_freq), dtype=rt.float32),
            rt.constant(float(self.max_freq), dtype=rt.float32),
        )
        out = rt.tensordot(spec, rt.cast(matrix, spec.dtype), 1)
        if self.power_to_db:
            floor = rt.constant(float(self.min_power), dtype=out.dtype)
            log_spec = 10.0 * _log10(rt.maximum(out, floor))
            ref = rt.abs(rt.constant(float(self.ref_power), dtype=out.dtype))
            log_spec = log_spec - 10.0 * _log10(rt.maximum(ref, floor))
            out = rt.maximum(log_spec, rt.reduce_max(log_spec) - float(self.top_db))
        rank = out.ndim
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        return rt.transpose(out, perm)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """`(batch, num_mel_bins, frames)` (Keras's count of frames)."""

        def frames(n: Any) -> Any:
            return None if n is None else (n + self.sequence_stride + 1) // self.sequence_stride

        if len(input_shape) == 1:
            return (self.num_mel_bins, frames(input_shape[0]))
        return (input_shape[0], self.num_mel_bins, frames(input_shape[1]))


def _named_window(window: Any, length: int, periodic: bool) -> Any:
    """SciPy's `get_window(window, length, fftbins=periodic)` for the windows Keras users
    name: "hann", "hamming", "blackman", "bartlett", "triang", "boxcar" and ("kaiser", beta),
    float64."""
    kind, params = (window[0], tuple(window[1:])) if isinstance(window, tuple) else (window, ())
    points = length + 1 if periodic else length
    k = rt.range(points, dtype=rt.float64)
    span = float(max(points - 1, 1))
    cosines = {
        "hann": (0.5, 0.5),
        "hanning": (0.5, 0.5),
        "hamming": (0.54, 0.46),
        "blackman": (0.42, 0.5, 0.08),
    }
    if kind in cosines:
        terms = cosines[kind]
        w = rt.fill([points], rt.constant(terms[0], dtype=rt.float64))
        for j, a in enumerate(terms[1:], start=1):
            w = w + ((-1.0) ** j * a) * rt.cos(2.0 * math.pi * j * k / span)
    elif kind in ("bartlett", "triang"):
        if kind == "bartlett":
            w = 1.0 - rt.abs(2.0 * k / span - 1.0)
        else:
            width = (points + 1) / 2.0 if points % 2 else points / 2.0
            w = 1.0 - rt.abs(k - (points - 1) / 2.0) / width
    elif kind in ("boxcar", "rect", "rectangular", "ones"):
        w = rt.ones([points], dtype=rt.float64)
    elif kind == "kaiser" and len(params) == 1:
        beta = rt.constant(float(params[0]), dtype=rt.float64)
        w = rt.signal.kaiser_window(points, beta=beta, dtype=rt.float64)
    else:
        raise ValueError(
            f"STFTSpectrogram: unknown window {window!r}: expected 'hann', 'hamming', 'blackman', "
            "'bartlett', 'triang', 'boxcar', ('kaiser', beta) or an array of frame_length values"
        )
    if points == 1:
        w = rt.ones([1], dtype=rt.float64)
    return w[:length]


def _stft_kernel(
    side: str, window: Any, scaling: Any, periodic: bool, shape: Any, dtype: Any
) -> Any:
    """Keras's `initializers.STFT`: `cos` (real) or `sin` (imag) of `-2 pi t f / n` at each
    time `t` of the frame and each of the `shape[-1]` frequencies, times the window over its
    scaling (`density`: its norm; `spectrum`: its sum), `[frame_length, 1, bins]`."""
    frame_length, _, bins = (int(d) for d in shape)
    n = (bins - 1) * 2
    freq = rt.reshape(rt.range(bins, dtype=dtype), [1, 1, bins])
    freq = freq / rt.constant(float(n), dtype=dtype)
    time = rt.reshape(rt.range(frame_length, dtype=dtype), [frame_length, 1, 1])
    args = (time * -2.0) * freq * rt.math.acos(rt.constant(-1.0, dtype=dtype))
    kernel = rt.cos(args) if side == "real" else rt.sin(args)
    if window is None:
        return kernel
    if isinstance(window, (str, tuple)):
        win = rt.cast(_named_window(window, frame_length, periodic), dtype)
    else:
        win = rt.cast(rt.convert_to_tensor(window), dtype)
    if win.ndim != 1 or int(win.shape[-1]) != frame_length:
        raise ValueError(
            "STFTSpectrogram: the shape of `window` must be equal to [frame_length]. "
            f"Received: window shape={list(win.shape)}"
        )
    win = rt.reshape(win, [frame_length, 1, 1])
    if scaling == "density":
        kernel = kernel * win / rt.sqrt(rt.reduce_sum(rt.square(win)))
    elif scaling == "spectrum":
        kernel = kernel * win / rt.reduce_sum(rt.abs(win))
    else:
        kernel = kernel * win
    return kernel


class STFTSpectrogram(Layer):
    """Keras 3's `STFTSpectrogram`: the STFT of `[batch, time, channels]` signals (channels
    last; `data_format="channels_first"` for `[batch, channels, time]`) as a strided
    convolution with fixed real and imaginary kernels (weights `real_kernel`, `imag_kernel`),
    in `mode` "log" (log magnitude), "magnitude", "psd", "real", "imag", "angle" or "stft"
    (real and imaginary parts side by side).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.STFTSpectrogram(frame_length=32, frame_step=16, fft_length=32)
    >>> layer(rt.random.normal([2, 128, 1], seed=0)).shape
    (2, 7, 17)
    """

    def __init__(
        self,
        mode: str = "log",
        frame_length: int = 256,
        frame_step: int | None = None,
        fft_length: int | None = None,
        window: Any = "hann",
        periodic: bool = False,
        scaling: str | None = "density",
        padding: str = "valid",
        expand_dims: bool = False,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("STFTSpectrogram", kwargs, ("input_shape", "batch_size"))
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError(
                "STFTSpectrogram: `frame_step` should be a positive integer not greater than "
                f"`frame_length`. Received frame_step={frame_step}, frame_length={frame_length}"
            )
        if fft_length is not None and fft_length < frame_length:
            raise ValueError(
                "STFTSpectrogram: `fft_length` should be not less than `frame_length`. "
                f"Received fft_length={fft_length}, frame_length={frame_length}"
            )
        modes = ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]
        if mode not in modes:
            raise ValueError(
                f"STFTSpectrogram: output mode is invalid, it must be one of {', '.join(modes)}. "
                f"Received: mode={mode}"
            )
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(
                "STFTSpectrogram: scaling is invalid, it must be `None`, 'density' or "
                f"'spectrum'. Received scaling={scaling}"
            )
        if padding not in ("valid", "same"):
            raise ValueError(
                f"STFTSpectrogram: padding is invalid, it should be 'valid', 'same'. Received: "
                f"padding={padding}"
            )
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(
                "STFTSpectrogram: data_format must be 'channels_last' or 'channels_first', "
                f"got {data_format!r}"
            )
        if isinstance(window, (str, tuple)):
            _named_window(window, 1, False)  # an unknown name fails here, as in Keras
        super().__init__(name=name, dtype=dtype)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** math.ceil(math.log2(frame_length))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = data_format or "channels_last"
        self.real_kernel: Any = None
        self.imag_kernel: Any = None

    def build(self, input_shape: tuple[Any, ...]) -> None:
        if len(input_shape) != 3:
            raise ValueError(
                f"STFTSpectrogram: expected inputs of rank 3, got shape {list(input_shape)}"
            )
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        for side in ("real", "imag"):
            if self.mode == ("imag" if side == "real" else "real"):
                continue

            def init(shape: Any, dtype: Any = None, side: str = side) -> Any:
                dtype = dtype or self.dtype
                return _stft_kernel(side, self.window, self.scaling, self.periodic, shape, dtype)

            weight = self.add_weight(name=f"{side}_kernel", shape=shape, initializer=init)
            setattr(self, f"{side}_kernel", weight)

    def _conv(self, x: Any, kernel: Any) -> Any:
        if self.data_format == "channels_last":
            _, time, channels = (int(d) for d in x.shape)
            x = rt.reshape(rt.transpose(x, [0, 2, 1]), [-1, time, 1])
        else:
            _, channels, time = (int(d) for d in x.shape)
            x = rt.reshape(x, [-1, 1, time])
        out = conv(
            x,
            rt.cast(kernel, x.dtype),
            strides=self._frame_step,
            padding=self.padding,
            data_format=self.data_format,
        )
        if self.data_format == "channels_last":
            out = rt.transpose(out, [0, 2, 1])
        bins, frames = int(out.shape[1]), int(out.shape[2])
        return rt.reshape(out, [-1, channels, bins, frames])

    def _adjust(self, out: Any) -> Any:
        _, channels, bins, frames = (int(d) for d in out.shape)
        if self.expand_dims:
            perm = [0, 3, 2, 1] if self.data_format == "channels_last" else [0, 1, 3, 2]
            return rt.transpose(out, perm)
        out = rt.reshape(out, [-1, channels * bins, frames])
        return rt.transpose(out, [0, 2, 1]) if self.data_format == "channels_last" else out

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if not inputs.dtype.is_floating:
            raise TypeError(
                "STFTSpectrogram: invalid input type. Expected float32 or float64. Received: "
                f"input type={inputs.dtype.name}"
            )
        if self.mode == "real":
            return self._adjust(self._conv(inputs, self.real_kernel))
        if self.mode == "imag":
            return self._adjust(self._conv(inputs, self.imag_kernel))
        real = self._conv(inputs, self.real_kernel)
        imag = self._conv(inputs, self.imag_kernel)
        if self.mode == "angle":
            return self._adjust(rt.atan2(imag, real))
        if self.mode == "stft":
            return self._adjust(rt.concat([real, imag], axis=2))
        power = rt.square(real) + rt.square(imag)
        if self.mode == "psd":
            inner = rt.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]])
            return self._adjust(power + inner)
        eps = rt.constant(_EPSILON, dtype=power.dtype)
        linear = self._adjust(rt.sqrt(rt.maximum(power, eps)))
        if self.mode == "magnitude":
            return linear
        return rt.math.log(rt.maximum(linear, eps))
