"""The compositions of `rt.signal` (see `signal.py`): windows, framing and short-time transforms.

The FFTs (`fft`, `ifft`, `fft2d`, ..., `rfft`, `irfft`, ..., differentiable to any order) and
`fftshift` / `ifftshift` come from the binding table (rows naming `signal`; see `_export.py`).
The windows, `frame`, `overlap_and_add`, `stft` and `inverse_stft` below are compositions of
rustape's ops (so they differentiate like them), with TensorFlow's arithmetic.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

import rustape as rt

from ._export import export
from ._rustape import Tensor, irfft, rfft
from ._typing import DTypeLike, TensorLike

WindowFn = Callable[..., Tensor]


def _int(value: Any, op: str, what: str) -> int:
    """`value` (a Python or NumPy integer, or a one-element tensor of one) as an int; a
    TypeError or ValueError naming `op` otherwise."""
    try:
        number = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    except Exception as e:
        raise TypeError(f"signal.{op}: {what} must be an integer, got {value!r}") from e
    if number.size != 1 or number.dtype.kind not in "iuf":
        raise TypeError(f"signal.{op}: {what} must be an integer, got {value!r}")
    item = number.reshape(()).item()
    if isinstance(item, float) and not (math.isfinite(item) and item.is_integer()):
        raise ValueError(f"signal.{op}: {what} must be an integer, got {item}")
    return int(item)


def _raised_cosine(
    window_length: int, periodic: bool, dtype: DTypeLike, a: float, b: float
) -> Tensor:
    """TensorFlow's `_raised_cosine_window`: `a - b cos(2 pi k / n)`, where `n` is
    `window_length - 1`, plus one when `periodic` and the length is even (TensorFlow's rule)."""
    window_length = _int(window_length, "window", "window_length")
    if window_length < 0:
        raise ValueError(f"signal window: window_length must be non-negative, got {window_length}")
    dtype = rt.float32 if dtype is None else rt.as_dtype(dtype)
    if window_length == 1:
        return rt.ones([1], dtype=dtype)
    even = 1 - window_length % 2
    n = window_length + int(bool(periodic)) * even - 1
    k = rt.cast(rt.range(window_length), rt.float64)
    w = a - b * rt.cos(2.0 * math.pi * k / float(n))
    return rt.cast(w, dtype)


@export("signal")
def hann_window(
    window_length: int, periodic: bool = True, dtype: DTypeLike = None, name: Any = None
) -> Tensor:
    """`tf.signal.hann_window`: `0.5 - 0.5 cos(2 pi k / n)` (float32 by default).

    >>> rt.signal.hann_window(4).numpy().tolist()
    [0.0, 0.5, 1.0, 0.5]
    """
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


@export("signal")
def hamming_window(
    window_length: int, periodic: bool = True, dtype: DTypeLike = None, name: Any = None
) -> Tensor:
    """`tf.signal.hamming_window`: `0.54 - 0.46 cos(2 pi k / n)`.

    >>> [round(v, 2) for v in rt.signal.hamming_window(4).numpy().tolist()]
    [0.08, 0.54, 1.0, 0.54]
    """
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


def _axis(x: Tensor, axis: int, op: str) -> int:
    rank = x.ndim
    if not -rank <= axis < rank:
        raise ValueError(
            f"signal.{op}: axis {axis} is out of range for a signal of shape {list(x.shape)} "
            f"({x.dtype.name})"
        )
    return axis % rank


@export("signal")
def frame(
    signal: TensorLike,
    frame_length: int,
    frame_step: int,
    pad_end: bool = False,
    pad_value: float = 0,
    axis: int = -1,
    name: Any = None,
) -> Tensor:
    """`tf.signal.frame`: windows of `frame_length` samples every `frame_step` samples along
    `axis`, as a new pair of axes `[frames, frame_length]` in its place. With `pad_end`, the
    end is padded with `pad_value` so every sample is in a frame.

    >>> rt.signal.frame(rt.range(6.0), 3, 2).numpy().tolist()
    [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0]]
    """
    x = rt.convert_to_tensor(signal)
    if x.ndim < 1:
        raise ValueError("signal.frame: the signal must have rank at least 1, got shape []")
    frame_length = _int(frame_length, "frame", "frame_length")
    frame_step = _int(frame_step, "frame", "frame_step")
    if frame_length < 1 or frame_step < 1:
        raise ValueError(
            f"signal.frame: frame_length and frame_step must be positive, got {frame_length} "
            f"and {frame_step} for a signal of shape {list(x.shape)} ({x.dtype.name})"
        )
    ax = _axis(x, _int(axis, "frame", "axis"), "frame")
    length = int(x.shape[ax])
    if pad_end:
        frames = -(-length // frame_step)
        total = max((frames - 1) * frame_step + frame_length, length)
        paddings = [[0, 0]] * x.ndim
        paddings[ax] = [0, total - length]
        x = rt.pad(x, paddings, constant_values=pad_value)
    else:
        frames = max(0, 1 + (length - frame_length) // frame_step) if length >= frame_length else 0
    if frames == 0:
        return rt.gather(x, rt.zeros([0, frame_length], dtype=rt.int32), axis=ax)
    # Pieces of g = gcd(frame_length, frame_step) samples: every frame is whole pieces, so
    # one gather of pieces (g contiguous samples each) builds the frames.
    g = math.gcd(frame_length, frame_step)
    used = (frames - 1) * frame_step + frame_length
    shape = [int(d) for d in x.shape]
    x = x[(slice(None),) * ax + (slice(0, used),)]
    x = rt.reshape(x, shape[:ax] + [used // g, g] + shape[ax + 1 :])
    starts = rt.reshape(rt.range(frames) * (frame_step // g), [frames, 1])
    indices = starts + rt.reshape(rt.range(frame_length // g), [1, frame_length // g])
    pieces = rt.gather(x, indices, axis=ax)
    return rt.reshape(pieces, shape[:ax] + [frames, frame_length] + shape[ax + 1 :])


@export("signal")
def overlap_and_add(signal: TensorLike, frame_step: int, name: Any = None) -> Tensor:
    """`tf.signal.overlap_and_add`: frames `[..., frames, frame_length]` added back together
    at intervals of `frame_step`, `[..., (frames - 1) * frame_step + frame_length]`.

    >>> rt.signal.overlap_and_add(rt.ones([3, 4]), 2).numpy().tolist()
    [1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0]
    """
    x = rt.convert_to_tensor(signal)
    frame_step = _int(frame_step, "overlap_and_add", "frame_step")
    if x.ndim < 2:
        raise ValueError(
            f"signal.overlap_and_add: the signal must have rank at least 2 [..., frames, "
            f"frame_length], got shape {list(x.shape)} ({x.dtype.name})"
        )
    if frame_step < 1:
        raise ValueError(f"signal.overlap_and_add: frame_step must be positive, got {frame_step}")
    frames, frame_length = int(x.shape[-2]), int(x.shape[-1])
    lead = list(x.shape[:-2])
    out_length = max((frames - 1) * frame_step + frame_length, 0)
    if frames == 0:
        return rt.zeros(lead + [out_length], dtype=x.dtype)
    positions = rt.reshape(
        rt.reshape(rt.range(frames) * frame_step, [frames, 1])
        + rt.reshape(rt.range(frame_length), [1, frame_length]),
        [-1],
    )
    flat = rt.reshape(x, lead + [frames * frame_length])
    rank = len(lead) + 1
    to_front = [rank - 1] + list(range(rank - 1))
    summed = rt.math.unsorted_segment_sum(rt.transpose(flat, to_front), positions, out_length)
    return rt.transpose(summed, list(range(1, rank)) + [0])


def _default_fft_length(frame_length: int) -> int:
    return 1 << max(0, (int(frame_length) - 1).bit_length())


@export("signal")
def stft(
    signals: TensorLike,
    frame_length: int,
    frame_step: int,
    fft_length: int | None = None,
    window_fn: WindowFn | None = hann_window,
    pad_end: bool = False,
    name: Any = None,
) -> Tensor:
    """`tf.signal.stft`: the short-time Fourier transform of real `signals` `[..., samples]`:
    frames windowed by `window_fn(frame_length, dtype=...)` and `rfft` of `fft_length` (default
    the smallest power of 2 at least `frame_length`), `[..., frames, fft_length // 2 + 1]`.

    >>> rt.signal.stft(rt.ones([16]), 8, 4).shape
    (3, 5)
    """
    x = rt.convert_to_tensor(signals)
    if not x.dtype.is_floating:
        raise TypeError(
            f"signal.stft: expected float32 or float64 signals, got {x.dtype.name} of shape "
            f"{list(x.shape)}"
        )
    frame_length = _int(frame_length, "stft", "frame_length")
    frame_step = _int(frame_step, "stft", "frame_step")
    if frame_length < 1 or frame_step < 1:
        raise ValueError(
            f"signal.stft: frame_length and frame_step must be positive, got {frame_length} "
            f"and {frame_step} for signals of shape {list(x.shape)} ({x.dtype.name})"
        )
    n = (
        _default_fft_length(frame_length)
        if fft_length is None
        else _int(fft_length, "stft", "fft_length")
    )
    framed = frame(x, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=x.dtype)
    return rfft(framed, fft_length=[n])


@export("signal")
def inverse_stft(
    stfts: TensorLike,
    frame_length: int,
    frame_step: int,
    fft_length: int | None = None,
    window_fn: WindowFn | None = hann_window,
    name: Any = None,
) -> Tensor:
    """`tf.signal.inverse_stft`: `irfft` of each frame, cut or zero-padded to `frame_length`,
    windowed by `window_fn` and overlapped-and-added. With
    `window_fn=rt.signal.inverse_stft_window_fn(frame_step)` it inverts `stft`.

    >>> x = rt.random.normal([64], seed=1)
    >>> s = rt.signal.stft(x, 16, 4)
    >>> y = rt.signal.inverse_stft(s, 16, 4, window_fn=rt.signal.inverse_stft_window_fn(4))
    >>> bool(abs((y[16:48] - x[16:48]).numpy()).max() < 1e-5)
    True
    """
    s = rt.convert_to_tensor(stfts)
    if not s.dtype.is_complex:
        raise TypeError(
            f"signal.inverse_stft: expected complex64 or complex128 stfts, got {s.dtype.name} "
            f"of shape {list(s.shape)}"
        )
    frame_length = _int(frame_length, "inverse_stft", "frame_length")
    frame_step = _int(frame_step, "inverse_stft", "frame_step")
    if frame_length < 1 or frame_step < 1:
        raise ValueError(
            f"signal.inverse_stft: frame_length and frame_step must be positive, got "
            f"{frame_length} and {frame_step}"
        )
    n = (
        _default_fft_length(frame_length)
        if fft_length is None
        else _int(fft_length, "inverse_stft", "fft_length")
    )
    frames = irfft(s, fft_length=[n])
    if n > frame_length:
        frames = frames[..., :frame_length]
    elif n < frame_length:
        paddings = [[0, 0]] * (frames.ndim - 1) + [[0, frame_length - n]]
        frames = rt.pad(frames, paddings)
    if window_fn is not None:
        frames = frames * window_fn(frame_length, dtype=frames.dtype)
    return overlap_and_add(frames, frame_step)


@export("signal")
def inverse_stft_window_fn(
    frame_step: int, forward_window_fn: WindowFn = hann_window, name: Any = None
) -> WindowFn:
    """`tf.signal.inverse_stft_window_fn`: the window for `inverse_stft` that undoes `stft`
    with `forward_window_fn`: the forward window divided by the overlapping sum of its squares.

    >>> w = rt.signal.inverse_stft_window_fn(2)(4)
    >>> w.numpy().tolist()
    [0.0, 1.0, 1.0, 1.0]
    """
    frame_step = _int(frame_step, "inverse_stft_window_fn", "frame_step")
    if frame_step < 1:
        raise ValueError(
            f"signal.inverse_stft_window_fn: frame_step must be positive, got {frame_step}"
        )

    def window(frame_length: int, dtype: DTypeLike = None) -> Tensor:
        frame_length = _int(frame_length, "inverse_stft_window_fn", "frame_length")
        forward = forward_window_fn(frame_length, dtype=dtype)
        denom = rt.square(forward)
        overlaps = -(-frame_length // frame_step)
        denom = rt.pad(denom, [[0, overlaps * frame_step - frame_length]])
        denom = rt.reduce_sum(rt.reshape(denom, [overlaps, frame_step]), 0, keepdims=True)
        denom = rt.reshape(rt.tile(denom, [overlaps, 1]), [overlaps * frame_step])
        return forward / denom[:frame_length]

    return window
