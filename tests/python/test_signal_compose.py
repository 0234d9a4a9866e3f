"""`rt.signal`'s compositions against TensorFlow 2.21 (tests/reference/gen_signal.py,
signal_compose.npz): Hann and Hamming windows (periodic or not, even and odd lengths),
`frame` (pad_end, pad_value, other axes), `overlap_and_add` and its gradient, `stft` and its
gradient, `inverse_stft` and its gradient, `inverse_stft_window_fn` and the round trip.
32-bit results to 1e-5 and 64-bit ones to 1e-12 of the largest magnitude."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "signal_compose.npz"),
    allow_pickle=False,
)


def _keys(prefix: str, depth: int) -> list[str]:
    return sorted({"/".join(k.split("/")[:depth]) for k in _DATA.files if k.startswith(prefix)})


def _close(got: np.ndarray, want: np.ndarray, bits32: bool, what: str) -> None:
    tol = 1e-5 if bits32 else 1e-12
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, TensorFlow {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, TensorFlow {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


@pytest.mark.parametrize(
    "key", [k for k in _DATA.files if k.endswith(("/f32", "/f64")) and "window" in k]
)
def test_windows_match_tensorflow(key: str) -> None:
    fn, length, periodic, bits = key.split("/")
    dtype = rt.float32 if bits == "f32" else rt.float64
    got = getattr(rt.signal, fn)(int(length), periodic=bool(int(periodic)), dtype=dtype)
    _close(got.numpy(), _DATA[key], bits == "f32", key)


@pytest.mark.parametrize("key", _keys("frame/", 2))
def test_frame_matches_tensorflow(key: str) -> None:
    length, step, pad_end, axis = _DATA[f"{key}/args"].tolist()
    got = rt.signal.frame(
        rt.constant(_DATA[f"{key}/x"]),
        length,
        step,
        pad_end=bool(pad_end),
        pad_value=0.5,
        axis=axis,
    )
    _close(got.numpy(), _DATA[f"{key}/y"], False, key)


@pytest.mark.parametrize("key", _keys("overlap_and_add/", 2))
def test_overlap_and_add_matches_tensorflow(key: str) -> None:
    x = rt.constant(_DATA[f"{key}/x"])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.signal.overlap_and_add(x, int(_DATA[f"{key}/step"]))
        loss = rt.reduce_sum(y * _DATA[f"{key}/w"])
    _close(y.numpy(), _DATA[f"{key}/y"], False, key)
    _close(tape.gradient(loss, x).numpy(), _DATA[f"{key}/g"], False, f"{key} gradient")


@pytest.mark.parametrize("key", _keys("stft/", 3))
def test_stft_and_inverse_match_tensorflow(key: str) -> None:
    length, step, n, pad_end = _DATA[f"{key}/args"].tolist()
    n = None if n < 0 else n
    bits32 = key.endswith("f32")
    x = rt.constant(_DATA[f"{key}/x"])
    with rt.GradientTape() as tape:
        tape.watch(x)
        s = rt.signal.stft(x, length, step, fft_length=n, pad_end=bool(pad_end))
        loss = rt.reduce_sum(
            rt.math.real(s) * _DATA[f"{key}/wr"] + rt.math.imag(s) * _DATA[f"{key}/wi"]
        )
    _close(s.numpy(), _DATA[f"{key}/y"], bits32, f"{key} stft")
    _close(tape.gradient(loss, x).numpy(), _DATA[f"{key}/g"], bits32, f"{key} stft gradient")

    st = rt.constant(_DATA[f"{key}/y"])
    with rt.GradientTape() as tape:
        tape.watch(st)
        inv = rt.signal.inverse_stft(st, length, step, fft_length=n)
        loss = rt.reduce_sum(inv * _DATA[f"{key}/v"])
    _close(inv.numpy(), _DATA[f"{key}/inverse"], bits32, f"{key} inverse_stft")
    _close(
        tape.gradient(loss, st).numpy(), _DATA[f"{key}/inverse_g"], bits32, f"{key} inverse grad"
    )
    window_fn = rt.signal.inverse_stft_window_fn(step)
    dtype = rt.float32 if bits32 else rt.float64
    _close(window_fn(length, dtype=dtype).numpy(), _DATA[f"{key}/inverse_window"], bits32, key)
    trip = rt.signal.inverse_stft(st, length, step, fft_length=n, window_fn=window_fn)
    _close(trip.numpy(), _DATA[f"{key}/round_trip"], bits32, f"{key} round trip")


def test_bad_input_names_the_op() -> None:
    with pytest.raises(ValueError, match=r"signal.frame.*positive"):
        rt.signal.frame(rt.ones([8]), 0, 2)
    with pytest.raises(ValueError, match=r"signal.overlap_and_add.*rank"):
        rt.signal.overlap_and_add(rt.ones([8]), 2)
    with pytest.raises(TypeError, match=r"signal.stft.*complex64"):
        rt.signal.stft(rt.ones([8], dtype=rt.complex64), 4, 2)
    with pytest.raises(TypeError, match=r"rfft.*complex64"):
        rt.signal.rfft(rt.ones([8], dtype=rt.complex64))
    with pytest.raises(TypeError, match=r"fft.*float32"):
        rt.signal.fft(rt.ones([8]))
    with pytest.raises(ValueError, match=r"rfft.*fft_length.*non-negative"):
        rt.signal.rfft(rt.ones([8]), fft_length=[-1])
    with pytest.raises(ValueError, match=r"fft2d.*rank at least 2"):
        rt.signal.fft2d(rt.ones([8], dtype=rt.complex64))
