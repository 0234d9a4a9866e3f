"""rustape's audio signal processing against TensorFlow 2.21 / Keras 3.15
(tests/reference/gen_signal_audio.py, signal_audio.npz): the Bessel functions and their
gradients, the Kaiser, Kaiser-Bessel-derived and Vorbis windows (gradients with respect to
`beta`), the mel filter bank, DCT / IDCT of types 1-4, MFCCs, MDCT and its inverse (values and
gradients), `keras.ops.stft` / `istft` / `kaiser` / `i0` and the layers `MelSpectrogram` and
`STFTSpectrogram`. 32-bit results to 1e-5 and 64-bit ones to 1e-12 of the largest magnitude
(looser where noted, with the reason)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import rustape as rt
from rustape.keras import ops

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "signal_audio.npz"),
    allow_pickle=False,
)


def _keys(prefix: str, depth: int) -> list[str]:
    return sorted({"/".join(k.split("/")[:depth]) for k in _DATA.files if k.startswith(prefix)})


def _dtype(key: str):
    return rt.float32 if key.endswith("f32") else rt.float64


def _close(got, want: np.ndarray, bits32: bool, what: str, tol: float | None = None) -> None:
    got = np.asarray(got)
    tol = tol if tol is not None else (1e-5 if bits32 else 1e-12)
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, TensorFlow {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, TensorFlow {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


def _value_and_grad(fn, x: np.ndarray, w: np.ndarray | None = None):
    t = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
        loss = rt.reduce_sum(y if w is None else y * w)
    return y.numpy(), tape.gradient(loss, t).numpy()


# -- Bessel functions ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", _keys("bessel/", 3))
def test_bessel_functions_match_tensorflow(key: str) -> None:
    _, fn, bits = key.split("/")
    x = _DATA[f"{key}/x"]
    y, g = _value_and_grad(getattr(rt.math, fn), x)
    want_y, want_g = _DATA[f"{key}/y"], _DATA[f"{key}/g"]
    bits32 = bits == "f32"
    # Elementwise relative error: values span 1e-8 to 1e300. TensorFlow's float32 kernels
    # (Cephes's float Chebyshev series) are up to ~7e-7 (6 ulps) off; rustape's float32 is its
    # float64 value rounded, within half an ulp (checked below).
    rtol = 1e-6 if bits32 else 1e-13
    finite = np.isfinite(want_y)
    np.testing.assert_array_equal(np.isfinite(y), finite, err_msg=key)
    np.testing.assert_allclose(y[finite], want_y[finite], rtol=rtol, atol=0, err_msg=key)
    assert y.dtype == want_y.dtype
    if bits32:
        exact = getattr(rt.math, fn)(x.astype(np.float64)).numpy()
        normal = np.isfinite(y) & (np.abs(exact) > 1e-37)
        np.testing.assert_allclose(y[normal], exact[normal], rtol=6.0e-8, atol=0, err_msg=key)
    # TensorFlow's gradient of bessel_i1 at 0 is 1 (its _BesselI1Grad imputes 1.0); the
    # derivative is 1/2, which rustape gives.
    at_zero = x == 0
    if fn == "bessel_i1":
        assert np.all(want_g[at_zero] == 1.0) and np.all(g[at_zero] == 0.5)
        g, want_g = g[~at_zero], want_g[~at_zero]
    finite = np.isfinite(want_g)
    np.testing.assert_array_equal(np.isfinite(g), finite, err_msg=f"{key} gradient")
    # Gradients combine kernels (i1e - sign(x) i0e, i0 - i1/x): float32 differences cancel
    # (i0e's derivative is ~-i0e/(2x) for large x), so float32 is held to 2e-7 absolute
    # beside 3e-6 relative (the terms are at most 1 in the scaled forms).
    np.testing.assert_allclose(
        g[finite],
        want_g[finite],
        rtol=3e-6 if bits32 else 1e-12,
        atol=2e-7 if bits32 and fn.endswith("e") else 1e-30,
        err_msg=key,
    )


def test_bessel_higher_orders_and_special_values() -> None:
    x = rt.constant([0.0, 0.7, -2.0, 25.0], dtype=rt.float64)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.math.bessel_i0(x)
        g = inner.gradient(y, x)
    h = outer.gradient(g, x).numpy()
    # I0'' = I0 - I1 / x (1/2 at 0).
    i0, i1 = rt.math.bessel_i0(x).numpy(), rt.math.bessel_i1(x).numpy()
    want = np.where(x.numpy() == 0, 0.5, i0 - i1 / np.where(x.numpy() == 0, 1, x.numpy()))
    np.testing.assert_allclose(h, want, rtol=1e-13)
    assert rt.math.bessel_i0e(float("inf")).numpy() == 0.0
    assert math.isnan(float(rt.math.bessel_i1(float("nan"))))
    with pytest.raises(TypeError, match="bessel_i0"):
        rt.math.bessel_i0(rt.constant([1, 2]))


# -- windows ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key", _keys("kaiser_window/", 4) + _keys("kaiser_bessel_derived_window/", 4)
)
def test_kaiser_windows_match_tensorflow(key: str) -> None:
    window, n, beta, bits = key.split("/")
    dtype = _dtype(key)
    b = rt.constant(float(beta), dtype=dtype)
    with rt.GradientTape() as tape:
        tape.watch(b)
        w = getattr(rt.signal, window)(int(n), beta=b, dtype=dtype)
        loss = rt.reduce_sum(w * _DATA[f"{key}/v"])
    g = tape.gradient(loss, b)
    bits32 = bits == "f32"
    _close(w.numpy(), _DATA[f"{key}/y"], bits32, key)
    g = np.zeros((), _DATA[f"{key}/g"].dtype) if g is None else g.numpy()
    _close(g, _DATA[f"{key}/g"], bits32, f"{key} d/dbeta", tol=1e-4 if bits32 else 1e-11)
    plain = getattr(rt.signal, window)(int(n), beta=float(beta), dtype=dtype)
    _close(plain.numpy(), _DATA[f"{key}/python_beta"], bits32, f"{key} python beta")


@pytest.mark.parametrize("key", _keys("vorbis_window/", 3))
def test_vorbis_window_matches_tensorflow(key: str) -> None:
    n = int(key.split("/")[1])
    _close(
        rt.signal.vorbis_window(n, dtype=_dtype(key)).numpy(),
        _DATA[f"{key}/y"],
        key.endswith("f32"),
        key,
    )


@pytest.mark.parametrize("key", _keys("mel/", 3))
def test_mel_weight_matrix_matches_tensorflow(key: str) -> None:
    mels, bins, rate, lower, upper = _DATA[f"{key}/args"].tolist()
    got = rt.signal.linear_to_mel_weight_matrix(
        int(mels), int(bins), rate, lower, upper, dtype=_dtype(key)
    )
    _close(got.numpy(), _DATA[f"{key}/y"], key.endswith("f32"), key)


def test_mel_weight_matrix_errors() -> None:
    with pytest.raises(ValueError, match="num_mel_bins must be positive"):
        rt.signal.linear_to_mel_weight_matrix(0)
    with pytest.raises(ValueError, match="Nyquist"):
        rt.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
    with pytest.raises(ValueError, match="lower_edge_hertz"):
        rt.signal.linear_to_mel_weight_matrix(lower_edge_hertz=4000.0, upper_edge_hertz=3000.0)
    with pytest.raises(ValueError, match="floating"):
        rt.signal.linear_to_mel_weight_matrix(dtype=rt.int32)


# -- DCT, MFCCs, MDCT ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", _keys("dct/", 5) + _keys("idct/", 5))
def test_dct_matches_tensorflow(key: str) -> None:
    op, kind, norm, n, bits = key.split("/")
    y, g = _value_and_grad(
        lambda t: getattr(rt.signal, op)(
            t, type=int(kind), n=int(n) or None, norm=None if norm == "none" else norm
        ),
        _DATA[f"{key}/x"],
        _DATA[f"{key}/w"],
    )
    bits32 = bits == "f32"
    _close(y, _DATA[f"{key}/y"], bits32, key)
    _close(g, _DATA[f"{key}/g"], bits32, f"{key} gradient")


def test_dct_round_trips_and_errors() -> None:
    x = rt.random.normal([4, 10], seed=5, dtype=rt.float64)
    for kind in (2, 3, 4):
        back = rt.signal.idct(rt.signal.dct(x, type=kind, norm="ortho"), type=kind, norm="ortho")
        np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        rt.signal.dct(x, axis=0)
    with pytest.raises(ValueError, match="type-I"):
        rt.signal.dct(x, type=1, norm="ortho")
    with pytest.raises(ValueError, match="types I, II, III and IV"):
        rt.signal.dct(x, type=5)
    with pytest.raises(ValueError, match="positive"):
        rt.signal.dct(x, n=0)
    with pytest.raises(TypeError, match="float32 or float64"):
        rt.signal.dct(rt.constant([1, 2, 3]))


@pytest.mark.parametrize("key", _keys("mfccs/", 2))
def test_mfccs_match_tensorflow(key: str) -> None:
    y, g = _value_and_grad(
        rt.signal.mfccs_from_log_mel_spectrograms, _DATA[f"{key}/x"], _DATA[f"{key}/w"]
    )
    _close(y, _DATA[f"{key}/y"], key.endswith("f32"), key)
    _close(g, _DATA[f"{key}/g"], key.endswith("f32"), f"{key} gradient")


_WINDOWS = {
    "vorbis": rt.signal.vorbis_window,
    "kbd": rt.signal.kaiser_bessel_derived_window,
    "None": None,
}


@pytest.mark.parametrize("key", _keys("mdct/", 3))
def test_mdct_and_inverse_match_tensorflow(key: str) -> None:
    length, pad_end = _DATA[f"{key}/args"].tolist()
    fn = _WINDOWS[str(_DATA[f"{key}/window"])]
    norm = None if str(_DATA[f"{key}/norm"]) == "None" else "ortho"
    bits32 = key.endswith("f32")
    y, g = _value_and_grad(
        lambda t: rt.signal.mdct(t, length, window_fn=fn, pad_end=bool(pad_end), norm=norm),
        _DATA[f"{key}/x"],
        _DATA[f"{key}/w"],
    )
    _close(y, _DATA[f"{key}/y"], bits32, key)
    _close(g, _DATA[f"{key}/g"], bits32, f"{key} gradient")
    inv, ginv = _value_and_grad(
        lambda t: rt.signal.inverse_mdct(t, window_fn=fn, norm=norm),
        _DATA[f"{key}/y"],
        _DATA[f"{key}/v"],
    )
    _close(inv, _DATA[f"{key}/inverse"], bits32, f"{key} inverse")
    _close(ginv, _DATA[f"{key}/inverse_g"], bits32, f"{key} inverse gradient")


def test_mdct_errors() -> None:
    with pytest.raises(ValueError, match="multiple of 4"):
        rt.signal.mdct(rt.ones([16]), 6)
    with pytest.raises(ValueError, match="rank at least 2"):
        rt.signal.inverse_mdct(rt.ones([4]))


# -- Keras ops ----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", _keys("keras/stft/", 4))
def test_keras_stft_istft_match_keras(key: str) -> None:
    length, stride, fft, center = _DATA[f"{key}/args"].tolist()
    window = str(_DATA[f"{key}/window"])
    window = None if window == "None" else window
    bits32 = key.endswith("f32")
    re, im = ops.stft(_DATA[f"{key}/x"], length, stride, fft, window=window, center=bool(center))
    _close(re.numpy(), _DATA[f"{key}/re"], bits32, f"{key} real")
    _close(im.numpy(), _DATA[f"{key}/im"], bits32, f"{key} imag")
    pair = (_DATA[f"{key}/re"], _DATA[f"{key}/im"])
    back = ops.istft(pair, length, stride, fft, window=window, center=bool(center))
    _close(back.numpy(), _DATA[f"{key}/istft"], bits32, f"{key} istft")
    back = ops.istft(pair, length, stride, fft, length=50, window=window, center=bool(center))
    _close(back.numpy(), _DATA[f"{key}/istft50"], bits32, f"{key} istft length=50")


@pytest.mark.parametrize("key", _keys("keras/kaiser/", 4))
def test_keras_kaiser_matches_keras(key: str) -> None:
    _, _, n, beta = key.split("/")
    _close(ops.kaiser(int(n), float(beta)).numpy(), _DATA[key], True, key)


@pytest.mark.parametrize("key", _keys("keras/i0/", 3))
def test_keras_i0_matches_keras(key: str) -> None:
    want = _DATA[f"{key}/y"]
    got = ops.i0(_DATA[f"{key}/x"]).numpy()
    assert got.dtype == want.dtype
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isfinite(got), finite)
    rtol = 4e-7 if want.dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, err_msg=key)


# -- Keras layers -------------------------------------------------------------------------------

_MEL_LAYERS = [
    {"fft_length": 256, "sequence_stride": 128, "sampling_rate": 8000, "num_mel_bins": 32},
    {
        "fft_length": 512,
        "sequence_stride": 160,
        "sequence_length": 400,
        "sampling_rate": 8000,
        "num_mel_bins": 40,
        "min_freq": 60.0,
        "max_freq": 3800.0,
        "window": "hamming",
        "top_db": 60.0,
        "ref_power": 2.0,
    },
    {
        "fft_length": 128,
        "sequence_stride": 64,
        "sampling_rate": 8000,
        "num_mel_bins": 16,
        "power_to_db": False,
        "mag_exp": 1.0,
    },
]


@pytest.mark.parametrize("index", range(len(_MEL_LAYERS)))
def test_mel_spectrogram_layer_matches_keras(index: int) -> None:
    config = _MEL_LAYERS[index]
    audio = _DATA["keras/audio"]
    want = _DATA[f"keras/mel_layer/{index}/f32"]
    # Decibels: 1e-4 dB absolute (float32 logs of powers near 1e-10); linear: relative.
    tol = 1e-4 if config.get("power_to_db", True) else 1e-5
    layer = rt.keras.layers.MelSpectrogram(**config)
    got = layer(audio).numpy()
    assert got.shape == want.shape and layer.compute_output_shape(audio.shape) == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(np.abs(want).max(), 1.0))
    mono = layer(audio[0]).numpy()
    np.testing.assert_allclose(
        mono,
        _DATA[f"keras/mel_layer/{index}/mono"],
        rtol=tol,
        atol=tol * max(np.abs(want).max(), 1.0),
    )
    # Keras 3.15 on TensorFlow fails in float64 (float32 filter-bank edges meet float64
    # values); rustape's float64 layer runs, and agrees with the float32 reference to its
    # rounding.
    layer64 = rt.keras.layers.MelSpectrogram(**config, dtype="float64")
    got64 = layer64(audio.astype(np.float64)).numpy()
    assert got64.dtype == np.float64
    np.testing.assert_allclose(got64, want, rtol=tol, atol=tol * max(np.abs(want).max(), 1.0))


_HANN64 = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(64) / 64)
_STFT_LAYERS = [
    {"mode": "log", "frame_length": 64, "frame_step": 32, "fft_length": 64, "window": _HANN64},
    {
        "mode": "magnitude",
        "frame_length": 64,
        "frame_step": 16,
        "fft_length": 128,
        "window": _HANN64,
        "scaling": "spectrum",
    },
    {"mode": "psd", "frame_length": 64, "window": _HANN64, "padding": "same"},
    {"mode": "real", "frame_length": 64, "frame_step": 32, "window": None},
    {"mode": "imag", "frame_length": 64, "frame_step": 32, "window": _HANN64, "scaling": None},
    {"mode": "angle", "frame_length": 64, "frame_step": 32, "window": _HANN64, "expand_dims": True},
    {
        "mode": "stft",
        "frame_length": 64,
        "frame_step": 32,
        "window": _HANN64,
        "data_format": "channels_first",
    },
]


@pytest.mark.parametrize("index", range(len(_STFT_LAYERS)))
def test_stft_spectrogram_layer_matches_keras(index: int) -> None:
    config = _STFT_LAYERS[index]
    stereo = _DATA["keras/stereo"]
    x = stereo if config.get("data_format") != "channels_first" else np.transpose(stereo, [0, 2, 1])
    layer = rt.keras.layers.STFTSpectrogram(**config)
    got = layer(x).numpy()
    want = _DATA[f"keras/stft_layer/{index}/y"]
    assert got.shape == want.shape, (got.shape, want.shape)
    if config["mode"] != "imag":
        # The kernels are float32 cosines of arguments up to 2 pi * 64: a few float32 ulps.
        _close(
            layer.real_kernel.numpy(),
            _DATA[f"keras/stft_layer/{index}/real_kernel"],
            True,
            "kernel",
            tol=2e-6,
        )
    if config["mode"] == "angle":
        # atan2 of bins that are zero up to rounding (DC and Nyquist imaginary parts) is noise.
        mask = np.abs(np.sin(want)) > 1e-3
        np.testing.assert_allclose(np.sin(got[mask]), np.sin(want[mask]), atol=2e-3)
        return
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * max(np.abs(want).max(), 1.0))


def test_stft_spectrogram_named_windows_are_scipys() -> None:
    # scipy.signal.get_window(name, n, fftbins=periodic): NumPy's symmetric windows, and for a
    # periodic window the symmetric one of n + 1 points without its last.
    from rustape.keras.layers.audio import _named_window

    for name, numpy_fn in (
        ("hann", np.hanning),
        ("hamming", np.hamming),
        ("blackman", np.blackman),
        ("bartlett", np.bartlett),
    ):
        for n in (1, 8, 9):
            np.testing.assert_allclose(
                _named_window(name, n, False).numpy(), numpy_fn(n), atol=1e-14, err_msg=name
            )
            np.testing.assert_allclose(
                _named_window(name, n, True).numpy(), numpy_fn(n + 1)[:n], atol=1e-14, err_msg=name
            )
    np.testing.assert_allclose(
        _named_window(("kaiser", 8.6), 12, False).numpy(), np.kaiser(12, 8.6), rtol=1e-12
    )
    np.testing.assert_allclose(
        _named_window("triang", 5, False).numpy(), [1 / 3, 2 / 3, 1, 2 / 3, 1 / 3], atol=1e-15
    )
    with pytest.raises(ValueError, match="unknown window"):
        rt.keras.layers.STFTSpectrogram(window="nope")


def test_audio_layers_differentiate_like_their_ops() -> None:
    # The layers are compositions of differentiable ops: their gradients with respect to the
    # audio agree with central finite differences (float64, first and second order).
    from conftest import check_gradients

    mel = rt.keras.layers.MelSpectrogram(
        fft_length=16, sequence_stride=8, sampling_rate=800, num_mel_bins=4, dtype="float64"
    )
    stft = rt.keras.layers.STFTSpectrogram(
        mode="magnitude", frame_length=8, frame_step=4, window=np.hanning(8), dtype="float64"
    )
    audio = np.random.default_rng(7).normal(size=(1, 40))
    check_gradients(lambda x: mel(x), [audio])
    check_gradients(lambda x: stft(rt.expand_dims(x, -1)), [audio])
