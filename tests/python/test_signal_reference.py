"""`rt.signal`'s FFTs against TensorFlow 2.21's `tf.signal` (tests/reference/gen_signal.py):
each transform for even and odd lengths, with batch axes, `fft_length` crops and pads,
complex64/complex128 and float32/float64 inputs; the values and the gradient of a real loss
(`sum(re(y) * wr + im(y) * wi)`) as TensorFlow's tape gives it. 32-bit results to 1e-5 and
64-bit ones to 1e-12 of the largest magnitude."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "signal.npz"), allow_pickle=False
)
_CASES = sorted({k.rsplit("/", 1)[0] for k in _DATA.files if "shift" not in k})
_SHIFTS = sorted({k.rsplit("/", 1)[0] for k in _DATA.files if "shift" in k})


def _close(got: np.ndarray, want: np.ndarray, bits32: bool, what: str) -> None:
    tol = 1e-5 if bits32 else 1e-12
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, TensorFlow {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, TensorFlow {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


def test_the_reference_covers_every_transform() -> None:
    ops = {k.split("/")[0] for k in _CASES}
    assert ops == {
        "fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d",
        "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d", "irfft3d",
    }  # fmt: skip
    assert len(_CASES) == 80
    assert any("/n" in k for k in _CASES if k.startswith("rfft/"))


@pytest.mark.parametrize("key", _CASES)
def test_transform_and_gradient_match_tensorflow(key: str) -> None:
    op = getattr(rt.signal, key.split("/")[0])
    x = rt.constant(_DATA[f"{key}/x"])
    bits32 = _DATA[f"{key}/x"].dtype in (np.float32, np.complex64)
    kwargs = {}
    if f"{key}/fft_length" in _DATA.files:
        kwargs["fft_length"] = _DATA[f"{key}/fft_length"].tolist()
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = op(x, **kwargs)
        wr = rt.constant(_DATA[f"{key}/wr"])
        if y.dtype.is_complex:
            wi = rt.constant(_DATA[f"{key}/wi"])
            loss = rt.reduce_sum(rt.math.real(y) * wr + rt.math.imag(y) * wi)
        else:
            loss = rt.reduce_sum(y * wr)
    _close(y.numpy(), _DATA[f"{key}/y"], bits32, f"{key} value")
    _close(tape.gradient(loss, x).numpy(), _DATA[f"{key}/g"], bits32, f"{key} gradient")


@pytest.mark.parametrize("key", _SHIFTS)
def test_shifts_match_tensorflow(key: str) -> None:
    op = getattr(rt.signal, key.split("/")[0])
    axes = _DATA[f"{key}/axes"].tolist() if f"{key}/axes" in _DATA.files else None
    got = op(rt.constant(_DATA[f"{key}/x"]), axes=axes).numpy()
    np.testing.assert_array_equal(got, _DATA[f"{key}/y"])
