"""Keras 3's FFT ops (`keras.ops.fft`, `fft2`, `ifft2`, `rfft`, `irfft`): complex values as
`(real, imag)` pairs of float tensors, as Keras passes them, over `rt.signal`'s transforms."""

from __future__ import annotations

from typing import Any

import rustape as rt

from ..._rustape import Tensor

__all__ = ["fft", "fft2", "ifft2", "irfft", "rfft"]


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
