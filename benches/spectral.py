"""`rt.signal` beside TensorFlow's `tf.signal` and torch's `torch.fft` / `torch.stft`.

Two workloads: `rfft` of a [64, 4096] float32 batch, and `stft` of an [8, 16000] float32
signal (frame 512, step 128, Hann window, fft_length 512). Each backend runs in its own
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
    elif backend == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        x, a = tf.constant(batch), tf.constant(audio)
        rfft = lambda: tf.signal.rfft(x).numpy()
        stft = lambda: tf.signal.stft(a, 512, 128, fft_length=512).numpy()
    else:
        import torch

        x, a = torch.from_numpy(batch), torch.from_numpy(audio)
        window = torch.hann_window(512)
        rfft = lambda: torch.fft.rfft(x).numpy()
        stft = lambda: torch.stft(
            a, 512, 128, window=window, center=False, return_complex=True
        ).numpy()
    return {"rfft_64x4096": _median_ms(rfft, repeats), "stft_8x16000": _median_ms(stft, repeats)}


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
