"""Reference values for `rt.signal` from TensorFlow 2.21 (`tf.signal`): run with TensorFlow's
Python; writes signal.npz beside this file (read by tests/python/test_signal_reference.py).

Each FFT case stores its input `x`, TensorFlow's output `y` and the gradient `g` of the real
loss `sum(re(y) * wr + im(y) * wi)` (or `sum(y * wr)` for a real output) as TensorFlow's tape
gives it. For `fft_length` crops and pads the gradient is that of the same program written
with `tf.slice` / `tf.pad` around a transform of the cropped or padded length (TensorFlow's
own RFFT/IRFFT gradients assume the input already has that length).
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(2026)
out: dict[str, np.ndarray] = {}

COMPLEX_OPS = {
    "fft": (tf.signal.fft, 1),
    "ifft": (tf.signal.ifft, 1),
    "fft2d": (tf.signal.fft2d, 2),
    "ifft2d": (tf.signal.ifft2d, 2),
    "fft3d": (tf.signal.fft3d, 3),
    "ifft3d": (tf.signal.ifft3d, 3),
}
REAL_OPS = {
    "rfft": (tf.signal.rfft, 1),
    "rfft2d": (tf.signal.rfft2d, 2),
    "rfft3d": (tf.signal.rfft3d, 3),
}
INVERSE_REAL_OPS = {
    "irfft": (tf.signal.irfft, 1),
    "irfft2d": (tf.signal.irfft2d, 2),
    "irfft3d": (tf.signal.irfft3d, 3),
}


def _loss(y: tf.Tensor, wr: np.ndarray, wi: np.ndarray | None) -> tf.Tensor:
    if y.dtype.is_complex:
        return tf.reduce_sum(tf.math.real(y) * wr + tf.math.imag(y) * wi)
    return tf.reduce_sum(y * wr)


def _crop_or_pad(x: tf.Tensor, lengths: list[int]) -> tf.Tensor:
    rank = len(lengths)
    shape = x.shape.as_list()
    lead = shape[: len(shape) - rank]
    size = lead + [min(n, d) for n, d in zip(lengths, shape[len(shape) - rank :])]
    x = tf.slice(x, [0] * len(shape), size)
    pads = [[0, 0]] * len(lead) + [[0, max(n - d, 0)] for n, d in zip(lengths, size[len(lead) :])]
    return tf.pad(x, pads)


def _outer_2d(t: tf.Tensor, fn) -> tf.Tensor:
    """`fn` (fft2d or ifft2d) over the two axes before the last."""
    r = len(t.shape)
    perm = list(range(r - 3)) + [r - 1, r - 3, r - 2]
    back = list(range(r - 3)) + [r - 2, r - 1, r - 3]
    return tf.transpose(fn(tf.transpose(t, perm)), back)


def _rfft3d_composed(t: tf.Tensor, n: list[int]) -> tf.Tensor:
    """rfft3d as rfft then fft2d (TensorFlow registers no RFFT3D gradient)."""
    return _outer_2d(tf.signal.rfft(_crop_or_pad(t, n), fft_length=[n[2]]), tf.signal.fft2d)


def _irfft3d_composed(t: tf.Tensor, n: list[int]) -> tf.Tensor:
    """irfft3d as ifft2d then irfft (TensorFlow registers no IRFFT3D gradient)."""
    bins = [n[0], n[1], n[2] // 2 + 1]
    return tf.signal.irfft(_outer_2d(_crop_or_pad(t, bins), tf.signal.ifft2d), fft_length=[n[2]])


def _store(key: str, x: np.ndarray, fn, fft_length, grad_fn=None) -> None:
    xt = tf.constant(x)
    y = fn(xt) if fft_length is None else fn(xt, fft_length=fft_length)
    y_np = y.numpy()
    part = np.float32 if y_np.dtype in (np.complex64, np.float32) else np.float64
    wr = rng.uniform(-1, 1, size=y_np.shape).astype(part)
    wi = rng.uniform(-1, 1, size=y_np.shape).astype(part) if np.iscomplexobj(y_np) else None
    with tf.GradientTape() as tape:
        tape.watch(xt)
        yy = (grad_fn or (lambda t: fn(t) if fft_length is None else fn(t, fft_length=fft_length)))(
            xt
        )
        loss = _loss(yy, wr, wi)
    g = tape.gradient(loss, xt).numpy()
    np.testing.assert_allclose(yy.numpy(), y_np, rtol=1e-5, atol=1e-5)
    out[f"{key}/x"] = x
    out[f"{key}/y"] = y_np
    out[f"{key}/g"] = g
    out[f"{key}/wr"] = wr
    if wi is not None:
        out[f"{key}/wi"] = wi
    if fft_length is not None:
        out[f"{key}/fft_length"] = np.array(fft_length, dtype=np.int64)


def _complex(shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


COMPLEX_SHAPES = {
    1: [(8,), (3, 7), (2, 2, 6)],
    2: [(4, 6), (2, 3, 5)],
    3: [(2, 3, 4), (2, 2, 3, 5)],
}
for name, (fn, rank) in COMPLEX_OPS.items():
    for shape in COMPLEX_SHAPES[rank]:
        for bits, dtype in (("64", np.complex64), ("128", np.complex128)):
            key = f"{name}/{'x'.join(map(str, shape))}/c{bits}"
            _store(key, _complex(shape, dtype), fn, None)

# Real transforms: (shape, fft_length or None).
REAL_CASES = {
    1: [((8,), None), ((3, 7), None), ((2, 2, 6), None), ((2, 6), [4]), ((2, 5), [9]), ((3,), [3])],
    2: [((4, 6), None), ((2, 3, 5), None), ((3, 5), [2, 8]), ((4, 4), [5, 3])],
    3: [((2, 3, 4), None), ((2, 2, 3, 5), None), ((2, 3, 4), [3, 2, 5])],
}
for name, (fn, rank) in REAL_OPS.items():
    for shape, fft_length in REAL_CASES[rank]:
        for bits, dtype in (("32", np.float32), ("64", np.float64)):
            tag = "" if fft_length is None else "/n" + "x".join(map(str, fft_length))
            key = f"{name}/{'x'.join(map(str, shape))}{tag}/f{bits}"
            x = rng.normal(size=shape).astype(dtype)
            grad_fn = None
            if rank == 3:
                n3 = list(fft_length or shape[-3:])
                grad_fn = lambda t, n=n3: _rfft3d_composed(t, n)
            elif fft_length is not None and list(fft_length) != list(shape[-rank:]):
                grad_fn = lambda t, fn=fn, n=fft_length: fn(_crop_or_pad(t, n), fft_length=n)
            _store(key, x, fn, fft_length, grad_fn)

# Inverse real transforms: (spectrum shape, fft_length or None).
INVERSE_CASES = {
    1: [((5,), None), ((3, 4), [7]), ((2, 2, 4), [6]), ((2, 5), [4]), ((2, 3), [9]), ((2,), None)],
    2: [((4, 4), None), ((2, 3, 3), [3, 5]), ((3, 4), [2, 9]), ((4, 5), [5, 4])],
    3: [((2, 3, 3), None), ((2, 2, 3, 3), [2, 3, 5]), ((2, 3, 4), [3, 2, 4])],
}
for name, (fn, rank) in INVERSE_REAL_OPS.items():
    for shape, fft_length in INVERSE_CASES[rank]:
        for bits, dtype in (("64", np.complex64), ("128", np.complex128)):
            tag = "" if fft_length is None else "/n" + "x".join(map(str, fft_length))
            key = f"{name}/{'x'.join(map(str, shape))}{tag}/c{bits}"
            x = _complex(shape, dtype)
            grad_fn = None
            if rank == 3:
                n3 = list(fft_length or [shape[-3], shape[-2], 2 * (shape[-1] - 1)])
                grad_fn = lambda t, n=n3: _irfft3d_composed(t, n)
            elif fft_length is not None:
                bins = list(fft_length[:-1]) + [fft_length[-1] // 2 + 1]
                if bins != list(shape[-rank:]):
                    grad_fn = lambda t, fn=fn, n=fft_length, b=bins: fn(
                        _crop_or_pad(t, b), fft_length=n
                    )
            _store(key, x, fn, fft_length, grad_fn)

# Shifts: values only.
for shape, axes in (((5,), None), ((4, 3), None), ((4, 3), 1), ((2, 5, 4), (0, 2))):
    x = rng.normal(size=shape)
    key = "x".join(map(str, shape)) + ("" if axes is None else "/a" + str(axes))
    out[f"fftshift/{key}/x"] = x
    out[f"fftshift/{key}/y"] = tf.signal.fftshift(x, axes=axes).numpy()
    out[f"ifftshift/{key}/x"] = x
    out[f"ifftshift/{key}/y"] = tf.signal.ifftshift(x, axes=axes).numpy()
    if axes is not None:
        out[f"fftshift/{key}/axes"] = np.array(axes, dtype=np.int64).reshape(-1)
        out[f"ifftshift/{key}/axes"] = np.array(axes, dtype=np.int64).reshape(-1)

# Compositions (signal_compose.npz): windows, frame, overlap_and_add, stft, inverse_stft.
comp: dict[str, np.ndarray] = {}
for length in (1, 4, 5, 8):
    for periodic in (True, False):
        for fn in ("hann_window", "hamming_window"):
            for bits, dtype in (("32", tf.float32), ("64", tf.float64)):
                w = getattr(tf.signal, fn)(length, periodic=periodic, dtype=dtype)
                comp[f"{fn}/{length}/{int(periodic)}/f{bits}"] = w.numpy()

FRAMES = [((10,), 4, 3, False, -1), ((10,), 4, 3, True, -1), ((2, 11, 3), 5, 2, True, 1),
          ((3, 9), 3, 3, False, -1), ((2, 3), 5, 1, False, -1)]  # fmt: skip
for i, (shape, length, step, pad_end, axis) in enumerate(FRAMES):
    x = rng.normal(size=shape)
    xt = tf.constant(x)
    y = tf.signal.frame(xt, length, step, pad_end=pad_end, pad_value=0.5, axis=axis)
    comp[f"frame/{i}/x"] = x
    comp[f"frame/{i}/y"] = y.numpy()
    comp[f"frame/{i}/args"] = np.array([length, step, int(pad_end), axis])

for i, (shape, step) in enumerate((((3, 4), 2), ((2, 4, 5), 3), ((2, 3), 3), ((5, 2), 1))):
    x = rng.normal(size=shape)
    xt = tf.constant(x)
    w = rng.uniform(-1, 1, size=tf.signal.overlap_and_add(xt, step).shape)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.signal.overlap_and_add(xt, step)
        loss = tf.reduce_sum(y * w)
    comp[f"overlap_and_add/{i}/x"] = x
    comp[f"overlap_and_add/{i}/step"] = np.array(step)
    comp[f"overlap_and_add/{i}/y"] = y.numpy()
    comp[f"overlap_and_add/{i}/w"] = w
    comp[f"overlap_and_add/{i}/g"] = tape.gradient(loss, xt).numpy()

STFTS = [((64,), 16, 4, None, False), ((2, 50), 12, 5, None, True), ((3, 40), 10, 4, 16, False),
         ((40,), 8, 3, 16, True)]  # fmt: skip
for i, (shape, length, step, n, pad_end) in enumerate(STFTS):
    for bits, dtype in (("32", np.float32), ("64", np.float64)):
        key = f"stft/{i}/f{bits}"
        x = rng.normal(size=shape).astype(dtype)
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            s = tf.signal.stft(xt, length, step, fft_length=n, pad_end=pad_end)
            wr = rng.uniform(-1, 1, size=s.shape).astype(dtype)
            wi = rng.uniform(-1, 1, size=s.shape).astype(dtype)
            loss = tf.reduce_sum(tf.math.real(s) * wr + tf.math.imag(s) * wi)
        comp[f"{key}/x"] = x
        comp[f"{key}/args"] = np.array([length, step, -1 if n is None else n, int(pad_end)])
        comp[f"{key}/y"] = s.numpy()
        comp[f"{key}/wr"] = wr
        comp[f"{key}/wi"] = wi
        comp[f"{key}/g"] = tape.gradient(loss, xt).numpy()
        st = tf.constant(s.numpy())
        with tf.GradientTape() as tape:
            tape.watch(st)
            inv = tf.signal.inverse_stft(st, length, step, fft_length=n)
            v = rng.uniform(-1, 1, size=inv.shape).astype(dtype)
            loss = tf.reduce_sum(inv * v)
        comp[f"{key}/inverse"] = inv.numpy()
        comp[f"{key}/v"] = v
        comp[f"{key}/inverse_g"] = tape.gradient(loss, st).numpy()
        window_fn = tf.signal.inverse_stft_window_fn(step)
        comp[f"{key}/round_trip"] = tf.signal.inverse_stft(
            st, length, step, fft_length=n, window_fn=window_fn
        ).numpy()
        comp[f"{key}/inverse_window"] = window_fn(length, dtype=tf.as_dtype(dtype)).numpy()

np.savez_compressed(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "signal_compose.npz"), **comp
)
print(f"wrote {len(comp)} composition arrays")

np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "signal.npz"), **out)
print(f"wrote {len(out)} arrays")

# keras.ops (signal_keras.npz): Keras 3's (real, imag) conventions, values and the gradient of
# sum(re * wr + im * wi) with respect to both input parts.
import keras

kops: dict[str, np.ndarray] = {}
KERAS = [("fft", (3, 8), None), ("fft2", (2, 4, 5), None), ("ifft2", (3, 5), None),
         ("rfft", (3, 7), None), ("rfft", (2, 6), 10), ("irfft", (3, 5), None),
         ("irfft", (2, 4), 9)]  # fmt: skip
for i, (name, shape, n) in enumerate(KERAS):
    key = f"{name}/{i}"
    re = tf.constant(rng.normal(size=shape).astype(np.float32))
    im = tf.constant(rng.normal(size=shape).astype(np.float32))
    fn = getattr(keras.ops, name)
    with tf.GradientTape() as tape:
        tape.watch([re, im])
        if name == "rfft":
            y = fn(re, fft_length=n)
        elif name == "irfft":
            y = fn((re, im), fft_length=n)
        else:
            y = fn((re, im))
        parts = list(y) if isinstance(y, tuple) else [y]
        ws = [rng.uniform(-1, 1, size=p.shape).astype(np.float32) for p in parts]
        loss = tf.add_n([tf.reduce_sum(p * w) for p, w in zip(parts, ws)])
    grads = tape.gradient(loss, [re, im], unconnected_gradients="zero")
    kops[f"{key}/re"], kops[f"{key}/im"] = re.numpy(), im.numpy()
    kops[f"{key}/n"] = np.array(-1 if n is None else n)
    for j, (p, w) in enumerate(zip(parts, ws)):
        kops[f"{key}/y{j}"], kops[f"{key}/w{j}"] = p.numpy(), w
    kops[f"{key}/g_re"], kops[f"{key}/g_im"] = grads[0].numpy(), grads[1].numpy()
np.savez_compressed(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "signal_keras.npz"), **kops
)
print(f"wrote {len(kops)} keras.ops arrays")
