"""Reference values for rustape's audio signal processing from TensorFlow 2.21 / Keras 3.15:
run with TensorFlow's Python; writes signal_audio.npz beside this file (read by
tests/python/test_signal_audio.py).

- `bessel/<fn>/<dtype>`: `tf.math.bessel_*` at `x` (small, medium and large arguments of both
  signs) and their gradients (TensorFlow's tape, `d sum(y) / dx`).
- `<window>/<n>/<beta>/<dtype>`: `tf.signal.kaiser_window`, `kaiser_bessel_derived_window`
  (and `vorbis_window`, no beta) with the gradient of `sum(w * v)` with respect to `beta`.
- `mel/<case>/<dtype>`: `tf.signal.linear_to_mel_weight_matrix` (`args` holds its arguments).
- `dct/<type>/<norm>/<n>/<dtype>`, `idct/...`: values and gradients of `sum(y * w)`.
- `mfccs/<dtype>`, `mdct/<case>/<dtype>`, `inverse_mdct/<case>/<dtype>`: the same.
- `keras/...`: `keras.ops.stft`, `istft`, `kaiser`, `i0`, and the layers `MelSpectrogram` and
  `STFTSpectrogram` on fixed audio (`STFTSpectrogram` with windows given as arrays: SciPy,
  which Keras uses for window names, is not installed beside TensorFlow here;
  `MelSpectrogram` in float32 only: Keras 3.15's fails on TensorFlow in float64, subtracting
  its float32 filter-bank edges from float64 values).
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(16000)
out: dict[str, np.ndarray] = {}
DTYPES = {"f32": (tf.float32, np.float32), "f64": (tf.float64, np.float64)}


def _grad(fn, x: np.ndarray, w: np.ndarray | None = None):
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
        loss = tf.reduce_sum(y if w is None else y * w)
    return y.numpy(), tape.gradient(loss, t).numpy()


# -- Bessel functions ---------------------------------------------------------------------------
BESSEL_X = np.concatenate(
    [
        [0.0, 1e-8, -1e-8, 1e-3, 0.5, -0.5, 1.0, 2.5, -3.75, 7.9, 8.1, 15.0, -19.5, 20.0],
        [20.5, 25.0, -30.0, 49.0, 100.0, 300.0, -700.0, 720.0],
        rng.uniform(-12.0, 12.0, size=24),
    ]
)
for fn in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"):
    for key, (tf_dtype, np_dtype) in DTYPES.items():
        x = BESSEL_X.astype(np_dtype)
        y, g = _grad(getattr(tf.math, fn), x)
        out[f"bessel/{fn}/{key}/x"] = x
        out[f"bessel/{fn}/{key}/y"] = y
        out[f"bessel/{fn}/{key}/g"] = g
        # tf.math.special names the same kernels.
        assert np.array_equal(getattr(tf.math.special, fn)(x).numpy(), y, equal_nan=True)

# -- windows ------------------------------------------------------------------------------------
for window in ("kaiser_window", "kaiser_bessel_derived_window"):
    for n in (1, 2, 7, 16, 33):
        for beta in (0.5, 6.0, 12.0, 20.7):
            for key, (tf_dtype, np_dtype) in DTYPES.items():
                v = rng.uniform(-1.0, 1.0, size=n).astype(np_dtype)
                if window == "kaiser_bessel_derived_window":
                    v = rng.uniform(-1.0, 1.0, size=2 * (n // 2)).astype(np_dtype)
                b = tf.constant(beta, dtype=tf_dtype)
                with tf.GradientTape() as tape:
                    tape.watch(b)
                    w = getattr(tf.signal, window)(n, beta=b, dtype=tf_dtype)
                    loss = tf.reduce_sum(w * v)
                g = tape.gradient(loss, b)
                prefix = f"{window}/{n}/{beta}/{key}"
                out[f"{prefix}/y"] = w.numpy()
                out[f"{prefix}/v"] = v
                out[f"{prefix}/g"] = np.asarray(0.0 if g is None else g.numpy(), np_dtype)
                # The default beta given as a Python float (rounded through float32 by tf.cast).
                out[f"{prefix}/python_beta"] = getattr(tf.signal, window)(
                    n, beta=beta, dtype=tf_dtype
                ).numpy()
for n in (0, 1, 2, 5, 16, 31):
    for key, (tf_dtype, _) in DTYPES.items():
        out[f"vorbis_window/{n}/{key}/y"] = tf.signal.vorbis_window(n, dtype=tf_dtype).numpy()

# -- mel filter bank ----------------------------------------------------------------------------
MEL_CASES = [
    (20, 129, 8000, 125.0, 3800.0),
    (40, 257, 16000, 20.0, 8000.0),
    (8, 33, 22050.0, 0.0, 11025.0),
    (64, 513, 44100, 80.0, 7600.0),
    (3, 2, 1000, 100.0, 400.0),
]
for i, args in enumerate(MEL_CASES):
    for key, (tf_dtype, _) in DTYPES.items():
        m = tf.signal.linear_to_mel_weight_matrix(*args, dtype=tf_dtype)
        out[f"mel/{i}/{key}/args"] = np.array(args, np.float64)
        out[f"mel/{i}/{key}/y"] = m.numpy()

# -- DCT / IDCT ---------------------------------------------------------------------------------
for op in ("dct", "idct"):
    for kind in (1, 2, 3, 4):
        for norm in (None, "ortho"):
            if kind == 1 and norm == "ortho":
                continue
            for n in (None, 5, 12):
                for key, (_, np_dtype) in DTYPES.items():
                    x = rng.normal(size=(3, 8)).astype(np_dtype)
                    size = 8 if n is None else n
                    w = rng.normal(size=(3, size)).astype(np_dtype)
                    y, g = _grad(
                        lambda t, op=op, kind=kind, n=n, norm=norm: getattr(tf.signal, op)(
                            t, type=kind, n=n, norm=norm
                        ),
                        x,
                        w,
                    )
                    prefix = f"{op}/{kind}/{norm or 'none'}/{n or 0}/{key}"
                    out[f"{prefix}/x"], out[f"{prefix}/w"] = x, w
                    out[f"{prefix}/y"], out[f"{prefix}/g"] = y, g

# -- MFCCs --------------------------------------------------------------------------------------
for key, (_, np_dtype) in DTYPES.items():
    x = rng.normal(size=(2, 5, 13)).astype(np_dtype)
    w = rng.normal(size=(2, 5, 13)).astype(np_dtype)
    y, g = _grad(tf.signal.mfccs_from_log_mel_spectrograms, x, w)
    out[f"mfccs/{key}/x"], out[f"mfccs/{key}/w"] = x, w
    out[f"mfccs/{key}/y"], out[f"mfccs/{key}/g"] = y, g

# -- MDCT ---------------------------------------------------------------------------------------
MDCT_CASES = [
    (8, "vorbis", None, False, 40),
    (16, "kbd", "ortho", False, 64),
    (12, None, None, True, 50),
    (16, "vorbis", "ortho", True, 70),
]
WINDOWS = {
    "vorbis": tf.signal.vorbis_window,
    "kbd": tf.signal.kaiser_bessel_derived_window,
    None: None,
}
for i, (length, window, norm, pad_end, samples) in enumerate(MDCT_CASES):
    for key, (_, np_dtype) in DTYPES.items():
        x = rng.normal(size=(2, samples)).astype(np_dtype)
        fn = WINDOWS[window]
        y = tf.signal.mdct(x, length, window_fn=fn, pad_end=pad_end, norm=norm)
        w = rng.normal(size=y.shape).astype(np_dtype)
        y, g = _grad(
            lambda t, fn=fn, length=length, pad_end=pad_end, norm=norm: tf.signal.mdct(
                t, length, window_fn=fn, pad_end=pad_end, norm=norm
            ),
            x,
            w,
        )
        prefix = f"mdct/{i}/{key}"
        out[f"{prefix}/x"], out[f"{prefix}/w"], out[f"{prefix}/y"], out[f"{prefix}/g"] = x, w, y, g
        inv = tf.signal.inverse_mdct(y, window_fn=fn, norm=norm)
        v = rng.normal(size=inv.shape).astype(np_dtype)
        inv, ginv = _grad(
            lambda t, fn=fn, norm=norm: tf.signal.inverse_mdct(t, window_fn=fn, norm=norm), y, v
        )
        out[f"{prefix}/v"], out[f"{prefix}/inverse"], out[f"{prefix}/inverse_g"] = v, inv, ginv
        out[f"{prefix}/args"] = np.array([length, pad_end], np.int64)
        out[f"{prefix}/window"] = np.array(str(window))
        out[f"{prefix}/norm"] = np.array(str(norm))

# -- Keras ops ----------------------------------------------------------------------------------
STFT_CASES = [(16, 4, 16, "hann", True), (12, 5, 16, "hamming", False), (10, 3, 16, None, True)]
for i, (length, stride, fft, window, center) in enumerate(STFT_CASES):
    for key, (_, np_dtype) in DTYPES.items():
        x = rng.normal(size=(2, 64)).astype(np_dtype)
        re, im = keras.ops.stft(x, length, stride, fft, window=window, center=center)
        prefix = f"keras/stft/{i}/{key}"
        out[f"{prefix}/x"], out[f"{prefix}/re"], out[f"{prefix}/im"] = (
            x,
            np.asarray(re),
            np.asarray(im),
        )
        back = keras.ops.istft((re, im), length, stride, fft, window=window, center=center)
        out[f"{prefix}/istft"] = np.asarray(back)
        back = keras.ops.istft(
            (re, im), length, stride, fft, length=50, window=window, center=center
        )
        out[f"{prefix}/istft50"] = np.asarray(back)
        out[f"{prefix}/args"] = np.array([length, stride, fft, int(center)], np.int64)
        out[f"{prefix}/window"] = np.array(str(window))
for n, beta in ((1, 3.0), (5, 14.0), (12, 0.0), (16, 8.6)):
    out[f"keras/kaiser/{n}/{beta}"] = np.asarray(keras.ops.kaiser(n, beta))
for name, x in (
    ("f32", BESSEL_X.astype(np.float32)),
    ("f64", BESSEL_X.astype(np.float64)),
    ("i32", np.arange(-5, 6, dtype=np.int32)),
    ("i64", np.arange(-5, 6, dtype=np.int64)),
):
    out[f"keras/i0/{name}/x"] = x
    out[f"keras/i0/{name}/y"] = np.asarray(keras.ops.i0(x))

# -- Keras layers -------------------------------------------------------------------------------
t = np.arange(4000) / 8000.0
AUDIO = np.stack(
    [
        np.sin(2 * np.pi * 440.0 * t) + 0.1 * rng.normal(size=t.shape),
        0.5 * np.sin(2 * np.pi * 1000.0 * t) * np.exp(-3 * t) + 0.05 * rng.normal(size=t.shape),
    ]
).astype(np.float32)
out["keras/audio"] = AUDIO
MEL_LAYERS = [
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
for i, config in enumerate(MEL_LAYERS):
    layer = keras.layers.MelSpectrogram(**config)
    out[f"keras/mel_layer/{i}/f32"] = np.asarray(layer(AUDIO))
    out[f"keras/mel_layer/{i}/mono"] = np.asarray(layer(AUDIO[0]))

HANN64 = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(64) / 64)
STFT_LAYERS = [
    {"mode": "log", "frame_length": 64, "frame_step": 32, "fft_length": 64, "window": HANN64},
    {
        "mode": "magnitude",
        "frame_length": 64,
        "frame_step": 16,
        "fft_length": 128,
        "window": HANN64,
        "scaling": "spectrum",
    },
    {"mode": "psd", "frame_length": 64, "window": HANN64, "padding": "same"},
    {"mode": "real", "frame_length": 64, "frame_step": 32, "window": None},
    {"mode": "imag", "frame_length": 64, "frame_step": 32, "window": HANN64, "scaling": None},
    {"mode": "angle", "frame_length": 64, "frame_step": 32, "window": HANN64, "expand_dims": True},
    {
        "mode": "stft",
        "frame_length": 64,
        "frame_step": 32,
        "window": HANN64,
        "data_format": "channels_first",
    },
]
STEREO = np.stack([AUDIO[:, :1024], AUDIO[:, 2000:3024]], axis=-1)  # [2, 1024, 2]
out["keras/stereo"] = STEREO
for i, config in enumerate(STFT_LAYERS):
    layer = keras.layers.STFTSpectrogram(**config)
    x = STEREO if config.get("data_format") != "channels_first" else np.transpose(STEREO, [0, 2, 1])
    out[f"keras/stft_layer/{i}/y"] = np.asarray(layer(x))
    out[f"keras/stft_layer/{i}/real_kernel"] = (
        np.asarray(layer.real_kernel) if config["mode"] != "imag" else np.zeros(0, np.float32)
    )

np.savez_compressed(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "signal_audio.npz"), **out
)
print(f"{len(out)} arrays")
