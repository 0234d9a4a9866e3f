"""`rustape.keras.ops`' FFTs (`fft`, `fft2`, `ifft2`, `rfft`, `irfft`) against Keras 3 on
TensorFlow 2.21 (tests/reference/gen_signal.py, signal_keras.npz): `(real, imag)` pairs in and
out, values and the gradients of a real loss with respect to both input parts, to 1e-5."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt
from rustape.keras import ops

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "signal_keras.npz"),
    allow_pickle=False,
)
_KEYS = sorted({"/".join(k.split("/")[:2]) for k in _DATA.files})


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, Keras {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale, err_msg=what)


def test_the_reference_covers_every_op() -> None:
    assert {k.split("/")[0] for k in _KEYS} == {"fft", "fft2", "ifft2", "rfft", "irfft"}


@pytest.mark.parametrize("key", _KEYS)
def test_keras_fft_ops_match_keras(key: str) -> None:
    name = key.split("/")[0]
    n = int(_DATA[f"{key}/n"])
    n_arg = None if n < 0 else n
    re, im = rt.constant(_DATA[f"{key}/re"]), rt.constant(_DATA[f"{key}/im"])
    fn = getattr(ops, name)
    with rt.GradientTape() as tape:
        tape.watch([re, im])
        if name == "rfft":
            y = fn(re, fft_length=n_arg)
        elif name == "irfft":
            y = fn((re, im), fft_length=n_arg)
        else:
            y = fn((re, im))
        parts = list(y) if isinstance(y, tuple) else [y]
        loss = rt.add_n([rt.reduce_sum(p * _DATA[f"{key}/w{j}"]) for j, p in enumerate(parts)])
    for j, p in enumerate(parts):
        _close(p.numpy(), _DATA[f"{key}/y{j}"], f"{key} output {j}")
    g_re, g_im = tape.gradient(loss, [re, im], unconnected_gradients="zero")
    _close(g_re.numpy(), _DATA[f"{key}/g_re"], f"{key} gradient (real)")
    _close(g_im.numpy(), _DATA[f"{key}/g_im"], f"{key} gradient (imag)")


def test_keras_fft_bad_input() -> None:
    with pytest.raises(ValueError, match=r"keras.ops.fft.*tuple"):
        ops.fft(rt.ones([4]))
    with pytest.raises(ValueError, match=r"keras.ops.fft2.*same shape"):
        ops.fft2((rt.ones([2, 4]), rt.ones([2, 3])))
