"""Keras 3's FFT ops (`keras.ops.fft`, `fft2`, `ifft2`, `rfft`, `irfft`, `stft`, `istft`):
complex values as `(real, imag)` pairs of float tensors, as Keras passes them, over
`rt.signal`'s transforms; and `kaiser` and `i0` over `rt.signal.kaiser_window` and
`rt.math.bessel_i0`."""

from __future__ import annotations

from typing import Any

import rustape as rt

from ..._rustape import Tensor

__all__ = ["fft", "fft2", "i0", "ifft2", "irfft", "istft", "kaiser", "rfft", "stft"]


def _complex(x: Any, op: str) -> Tensor:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(
            f"keras.ops.{op}: expected a tuple of two tensors (real, imag), got {type(x).__name__}"
        )
    real, imag = (rt.convert_to_tensor(p) for p in x)
    if real.dtype != imag.dtype or not real.dtype.is_floating:
        real, imag = rt.cast(real, rt.float32), rt.cast(imag, rt.float32)
    if tuple(real.shape) != tuple(imag.shape):
        raise ValueError(
            f"keras.ops.{op}: real and imaginary parts must have the same shape, got "
            f"{list(real.shape)} and {list(imag.shape)}"
        )
    return rt.complex(real, imag)


def _parts(z: Tensor) -> tuple[Tensor, Tensor]:
    return rt.math.real(z), rt.math.imag(z)


def fft(x: Any) -> tuple[Tensor, Tensor]:
    """`keras.ops.fft`: the DFT of the last axis of `(real, imag)`, as `(real, imag)`.

    >>> from rustape.keras import ops
    >>> re, im = ops.fft((rt.constant([1.0, 2.0, 3.0, 4.0]), rt.zeros([4])))
    >>> re.numpy().tolist(), im.numpy().tolist()
    ([10.0, -2.0, -2.0, -2.0], [0.0, 2.0, 0.0, -2.0])
    """
    return _parts(rt.signal.fft(_complex(x, "fft")))


def fft2(x: Any) -> tuple[Tensor, Tensor]:
    """`keras.ops.fft2`: the DFT over the last two axes of `(real, imag)`.

    >>> from rustape.keras import ops
    >>> ops.fft2((rt.ones([2, 2]), rt.zeros([2, 2])))[0].numpy().tolist()
    [[4.0, 0.0], [0.0, 0.0]]
    """
    return _parts(rt.signal.fft2d(_complex(x, "fft2")))


def ifft2(x: Any) -> tuple[Tensor, Tensor]:
    """`keras.ops.ifft2`: the inverse DFT over the last two axes of `(real, imag)`.

    >>> from rustape.keras import ops
    >>> ops.ifft2((rt.constant([[4.0, 0.0], [0.0, 0.0]]), rt.zeros([2, 2])))[0].numpy().tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _parts(rt.signal.ifft2d(_complex(x, "ifft2")))


def rfft(x: Any, fft_length: int | None = None) -> tuple[Tensor, Tensor]:
    """`keras.ops.rfft`: the DFT of the last axis of real `x` (`fft_length // 2 + 1` bins),
    as `(real, imag)`.

    >>> from rustape.keras import ops
    >>> ops.rfft(rt.constant([1.0, 2.0, 3.0, 4.0]))[1].numpy().tolist()
    [0.0, 2.0, 0.0]
    """
    t = rt.convert_to_tensor(x)
    if not t.dtype.is_floating:
        t = rt.cast(t, rt.float32)
    lengths = None if fft_length is None else [fft_length]
    return _parts(rt.signal.rfft(t, fft_length=lengths))


def irfft(x: Any, fft_length: int | None = None) -> Tensor:
    """`keras.ops.irfft`: the real signal whose `rfft` is `(real, imag)`.

    >>> from rustape.keras import ops
    >>> ops.irfft(ops.rfft(rt.constant([1.0, 2.0, 3.0, 4.0]))).numpy().tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    lengths = None if fft_length is None else [fft_length]
    return rt.signal.irfft(_complex(x, "irfft"), fft_length=lengths)


def _window(window: Any, sequence_length: int, fft_length: int, dtype: Any, op: str) -> Any:
    """Keras's window for `stft` / `istft`: `"hann"`, `"hamming"` (periodic), a tensor of
    `sequence_length` values or None, zero-padded on both sides to `fft_length`."""
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(
                f'keras.ops.{op}: if a string is passed to `window`, it must be one of "hann", '
                f'"hamming". Received: window={window}'
            )
        make = rt.signal.hann_window if window == "hann" else rt.signal.hamming_window
        values = make(sequence_length, periodic=True, dtype=dtype)
    else:
        values = rt.cast(rt.convert_to_tensor(window), dtype)
    if values.ndim != 1 or int(values.shape[-1]) != sequence_length:
        raise ValueError(
            f"keras.ops.{op}: the shape of `window` must be equal to [sequence_length]. "
            f"Received: window shape={list(values.shape)}"
        )
    left = (fft_length - sequence_length) // 2
    return rt.pad(values, [[left, fft_length - sequence_length - left]])


def stft(
    x: Any,
    sequence_length: int,
    sequence_stride: int,
    fft_length: int,
    window: Any = "hann",
    center: bool = True,
) -> tuple[Tensor, Tensor]:
    """`keras.ops.stft`: the short-time Fourier transform of the last axis of `x`, as
    `(real, imag)` `[..., frames, fft_length // 2 + 1]`. `center` reflect-pads `fft_length // 2`
    samples on both sides, so frame `t` is centred at `t * sequence_stride`.

    >>> from rustape.keras import ops
    >>> re, im = ops.stft(rt.constant([0.0, 1.0, 2.0, 3.0, 4.0]), 3, 2, 3)
    >>> re.numpy().round(3).tolist()
    [[0.0, 0.0], [2.0, -1.0], [4.0, -2.0]]
    """
    t = rt.convert_to_tensor(x)
    if t.dtype not in (rt.float32, rt.float64):
        raise TypeError(
            f"keras.ops.stft: invalid input type. Expected float32 or float64. Received: input "
            f"type={t.dtype.name}"
        )
    if fft_length < sequence_length:
        raise ValueError(
            "keras.ops.stft: `fft_length` must equal or larger than `sequence_length`. "
            f"Received: sequence_length={sequence_length}, fft_length={fft_length}"
        )
    win = _window(window, sequence_length, fft_length, t.dtype, "stft")
    if center:
        paddings = [[0, 0]] * (t.ndim - 1) + [[fft_length // 2, fft_length // 2]]
        t = rt.pad(t, paddings, mode="REFLECT")
    z = rt.signal.stft(
        t,
        frame_length=fft_length,
        frame_step=sequence_stride,
        fft_length=fft_length,
        window_fn=None if win is None else (lambda length, dtype=None: win),
    )
    return _parts(z)


def istft(
    x: Any,
    sequence_length: int,
    sequence_stride: int,
    fft_length: int,
    length: int | None = None,
    window: Any = "hann",
    center: bool = True,
) -> Tensor:
    """`keras.ops.istft`: the inverse of `stft` from `(real, imag)`: inverse FFTs, the
    window that undoes `stft`'s (`rt.signal.inverse_stft_window_fn`), overlap-add, and the
    centring padding cut off (`length` samples when given).

    >>> from rustape.keras import ops
    >>> x = rt.random.normal([32], seed=2)
    >>> y = ops.istft(ops.stft(x, 8, 2, 8), 8, 2, 8, length=32)
    >>> bool(abs((y - x)[4:28].numpy()).max() < 1e-5)
    True
    """
    z = _complex(x, "istft")
    dtype = rt.math.real(z).dtype
    frames = int(z.shape[-2]) if z.ndim >= 2 else 0
    expected = fft_length + sequence_stride * (frames - 1)
    win = _window(window, sequence_length, fft_length, dtype, "istft")
    window_fn = None
    if win is not None:
        window_fn = rt.signal.inverse_stft_window_fn(
            sequence_stride, lambda length, dtype=None: win
        )
    y = rt.signal.inverse_stft(
        z,
        frame_length=fft_length,
        frame_step=sequence_stride,
        fft_length=fft_length,
        window_fn=window_fn,
    )
    start = fft_length // 2 if center else 0
    if length is not None:
        end: int | None = start + length
    elif center:
        end = -(fft_length // 2)
    else:
        end = expected
    return y[..., start:end]


def kaiser(x: Any, beta: Any) -> Tensor:
    """`keras.ops.kaiser`: the Kaiser window of `x` points with shape parameter `beta`
    (`tf.signal.kaiser_window`, float32).

    >>> from rustape.keras import ops
    >>> [round(v, 4) for v in ops.kaiser(5, 14.0).numpy().tolist()]
    [0.0, 0.1649, 1.0, 0.1649, 0.0]
    """
    length = rt.convert_to_tensor(x)
    if length.dtype.is_floating or length.dtype.is_complex or length.ndim != 0:
        raise TypeError(
            f"keras.ops.kaiser: the window length must be an integer scalar, got {length.dtype.name} "
            f"of shape {list(length.shape)}"
        )
    return rt.signal.kaiser_window(int(length), beta=beta)


def i0(x: Any) -> Tensor:
    """`keras.ops.i0`: the modified Bessel function of the first kind of order 0 (float64 for
    int64 and float64 inputs, float32 otherwise).

    >>> from rustape.keras import ops
    >>> round(float(ops.i0(1.0)), 6)
    1.266066
    """
    t = rt.convert_to_tensor(x)
    dtype = rt.float64 if t.dtype in (rt.int64, rt.float64) else rt.float32
    return rt.math.bessel_i0(rt.cast(t, dtype))
