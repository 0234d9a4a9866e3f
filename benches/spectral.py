"""`rt.signal` beside TensorFlow's `tf.signal` and torch's `torch.fft` / `torch.stft`.

Four workloads: `rfft` of a [64, 4096] float32 batch; `stft` of an [8, 16000] float32
signal (frame 512, step 128, Hann window, fft_length 512); the MFCC pipeline on that signal
(stft -> magnitude -> 40-band mel filter bank -> log -> 13 MFCCs, TensorFlow's recipe), forward
alone and forward with the gradient with respect to the audio. torch (no torchaudio here) takes
the same steps with `torch.stft`, a matmul by the same mel matrix and a matmul by the
DCT-II matrix scaled as TensorFlow scales it (torchaudio's MFCC does the same). Each backend runs in its own
interpreter (TensorFlow and torch live in other virtual environments):

    python benches/spectral.py                      # rustape, then the others if found
    python benches/spectral.py --backend rustape    # one backend, prints JSON

Median wall-clock time of `--repeats` runs (after warm-up), in milliseconds.
"""

from __future__ import annotations

import os
import sys

# This file is named like the standard library's `signal`: keep its folder off the path.
sys.path = [
    p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))
]

import argparse
import json
import statistics
import subprocess
import time

PYTHONS = {"tensorflow": "/work/venv-tf/bin/python", "torch": "/work/venv-peers/bin/python"}


def _median_ms(fn, repeats: int) -> float:
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def run(backend: str, repeats: int) -> dict[str, float]:
    import numpy as np

    rng = np.random.default_rng(0)
    batch = rng.normal(size=(64, 4096)).astype(np.float32)
    audio = rng.normal(size=(8, 16000)).astype(np.float32)
    if backend == "rustape":
        import rustape as rt

        x, a = rt.constant(batch), rt.constant(audio)
        rfft = lambda: rt.signal.rfft(x).numpy()
        stft = lambda: rt.signal.stft(a, 512, 128, fft_length=512).numpy()
        mel = rt.signal.linear_to_mel_weight_matrix(40, 257, 16000, 80.0, 7600.0)

        def mfccs_of(signal):
            spectrum = rt.abs(rt.signal.stft(signal, 512, 128, fft_length=512))
            log_mel = rt.math.log(rt.tensordot(spectrum, mel, 1) + 1e-6)
            return rt.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]

        def mfccs_grad():
            with rt.GradientTape() as tape:
                tape.watch(a)
                loss = rt.reduce_sum(mfccs_of(a))
            return tape.gradient(loss, a).numpy()

        mfccs = lambda: mfccs_of(a).numpy()
    elif backend == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        x, a = tf.constant(batch), tf.constant(audio)
        rfft = lambda: tf.signal.rfft(x).numpy()
        stft = lambda: tf.signal.stft(a, 512, 128, fft_length=512).numpy()
        mel = tf.signal.linear_to_mel_weight_matrix(40, 257, 16000, 80.0, 7600.0)

        def mfccs_of(signal):
            spectrum = tf.abs(tf.signal.stft(signal, 512, 128, fft_length=512))
            log_mel = tf.math.log(tf.tensordot(spectrum, mel, 1) + 1e-6)
            return tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]

        def mfccs_grad():
            with tf.GradientTape() as tape:
                tape.watch(a)
                loss = tf.reduce_sum(mfccs_of(a))
            return tape.gradient(loss, a).numpy()

        mfccs = lambda: mfccs_of(a).numpy()
    else:
        import torch

        x, a = torch.from_numpy(batch), torch.from_numpy(audio)
        window = torch.hann_window(512)
        rfft = lambda: torch.fft.rfft(x).numpy()
        stft = lambda: torch.stft(
            a, 512, 128, window=window, center=False, return_complex=True
        ).numpy()
        mel = torch.from_numpy(_mel_matrix(40, 257, 16000.0, 80.0, 7600.0))
        k = np.arange(40)
        # TensorFlow's mfccs: the unnormalised DCT-II (2 sum x cos) over sqrt(2 * 40).
        dct = np.cos(np.pi / 40 * (k[:, None] + 0.5) * k[None, :]) * np.sqrt(2.0 / 40)
        dct = torch.from_numpy(dct.astype(np.float32))

        def mfccs_of(signal):
            spectrum = torch.stft(
                signal, 512, 128, window=window, center=False, return_complex=True
            ).abs()
            log_mel = torch.log(spectrum.transpose(1, 2) @ mel + 1e-6)
            return (log_mel @ dct)[..., :13]

        def mfccs_grad():
            signal = a.clone().requires_grad_(True)
            mfccs_of(signal).sum().backward()
            return signal.grad.numpy()

        mfccs = lambda: mfccs_of(a).numpy()
    return {
        "rfft_64x4096": _median_ms(rfft, repeats),
        "stft_8x16000": _median_ms(stft, repeats),
        "mfccs_8x16000": _median_ms(mfccs, repeats),
        "mfccs_grad": _median_ms(mfccs_grad, repeats),
    }


def _mel_matrix(mels: int, bins: int, rate: float, lower: float, upper: float):
    """TensorFlow's `linear_to_mel_weight_matrix` in NumPy (for the torch run)."""
    import numpy as np

    def to_mel(f):
        return 1127.0 * np.log(1.0 + f / 700.0)

    spectrogram = to_mel(np.linspace(0.0, rate / 2, bins)[1:])[:, None]
    edges = np.linspace(to_mel(lower), to_mel(upper), mels + 2)
    low, center, high = edges[:-2], edges[1:-1], edges[2:]
    weights = np.maximum(
        0.0,
        np.minimum((spectrogram - low) / (center - low), (high - spectrogram) / (high - center)),
    )
    return np.pad(weights, [[1, 0], [0, 0]]).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["rustape", "tensorflow", "torch"])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    if args.backend:
        print(json.dumps(run(args.backend, args.repeats)))
        return
    results = {"rustape": run("rustape", args.repeats)}
    for name, python in PYTHONS.items():
        if os.path.exists(python):
            out = subprocess.run(
                [python, __file__, "--backend", name, "--repeats", str(args.repeats)],
                capture_output=True,
                text=True,
                check=False,
            )
            if out.returncode == 0:
                results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    for work in results["rustape"]:
        line = [f"{work:14s}"]
        for name, r in results.items():
            ratio = r[work] / results["rustape"][work]
            line.append(f"{name} {r[work]:8.3f} ms ({ratio:4.2f}x)")
        print("  ".join(line))


if __name__ == "__main__":
    sys.exit(main())
