"""`affine_transform` of a [32, 224, 224, 3] float32 batch (a rotation with zoom per image, each
interpolation, fill mode `reflect` and `constant`) and its image gradient: rustape against
TensorFlow's `keras.ops.image.affine_transform` (`ImageProjectiveTransformV3`), medians of
repeated runs.

    python benches/augment.py --tf-python /path/to/tf/venv/bin/python [--repeats 9]

Each library runs in its own process (this script re-runs itself under TensorFlow's Python
with `--lib tf`); the medians and their ratio are printed. TensorFlow's registered gradient is
the inverse transform (not the transposed map), so the gradient rows are timed but are not the
same computation.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

SHAPE = (32, 224, 224, 3)


def _transforms() -> np.ndarray:
    rng = np.random.default_rng(0)
    rows = []
    h, w = SHAPE[1:3]
    for angle, zoom in zip(rng.uniform(-0.5, 0.5, SHAPE[0]), rng.uniform(0.8, 1.2, SHAPE[0])):
        cos, sin = math.cos(angle) * zoom, math.sin(angle) * zoom
        x_off = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2.0
        y_off = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2.0
        rows.append([cos, -sin, x_off, sin, cos, y_off, 0.0, 0.0])
    return np.asarray(rows, np.float32)


def _median(fn: Callable[[], Any], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _run(lib: str, repeats: int) -> dict[str, float]:
    images = np.random.default_rng(1).uniform(0, 1, SHAPE).astype(np.float32)
    t = _transforms()
    out: dict[str, float] = {}
    if lib == "tf":
        import keras
        import tensorflow as tf

        x = tf.constant(images)
        tt = tf.constant(t)
        for interp in ("bilinear", "nearest"):
            for mode in ("reflect", "constant"):
                f = keras.ops.image.affine_transform
                out[f"{interp} {mode}"] = _median(
                    lambda f=f, i=interp, m=mode: f(x, tt, i, m).numpy(), repeats
                )

        def grad() -> None:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = keras.ops.image.affine_transform(x, tt, "bilinear", "reflect")
            tape.gradient(y, x, output_gradients=tf.ones_like(y)).numpy()

        out["gradient bilinear reflect"] = _median(grad, repeats)
    else:
        import rustape as rt

        x = rt.constant(images)
        for interp in ("bilinear", "nearest"):
            for mode in ("reflect", "constant"):
                f = rt.image.affine_transform
                out[f"{interp} {mode}"] = _median(
                    lambda f=f, i=interp, m=mode: f(x, t, i, m).numpy(), repeats
                )
        ones = rt.ones(SHAPE)

        def grad_rt() -> None:
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = rt.image.affine_transform(x, t, "bilinear", "reflect")
            tape.gradient(y, x, output_gradients=ones).numpy()

        out["gradient bilinear reflect"] = _median(grad_rt, repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", choices=["rustape", "tf"], default=None)
    parser.add_argument("--tf-python", default=None)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    if args.lib is not None:
        print(json.dumps(_run(args.lib, args.repeats)))
        return
    ours = _run("rustape", args.repeats)
    theirs: dict[str, float] = {}
    if args.tf_python:
        cmd = [args.tf_python, __file__, "--lib", "tf", "--repeats", str(args.repeats)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"affine_transform {list(SHAPE)} float32, median of {args.repeats} (ms)")
    print(f"{'case':28} {'rustape':>9} {'tensorflow':>11} {'ratio':>7}")
    for case, ms in ours.items():
        tf_ms = theirs.get(case, float("nan"))
        print(f"{case:28} {ms:9.1f} {tf_ms:11.1f} {ms / tf_ms:7.2f}")


if __name__ == "__main__":
    sys.exit(main())
