"""`rgb_to_hsv` and `adjust_hue` of a [32, 224, 224, 3] float32 batch, and `ssim` of a
[16, 256, 256, 3] pair (with and without its gradient): rustape against TensorFlow's
`tf.image`, medians of repeated runs.

    python benches/image_color.py --tf-python /path/to/tf/venv/bin/python [--repeats 9]

Each library runs in its own process (this script re-runs itself under TensorFlow's Python
with `--lib tf`); the medians and their ratio are printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

COLOUR = (32, 224, 224, 3)
PAIR = (16, 256, 256, 3)


def _median(fn: Callable[[], Any], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _run(lib: str, repeats: int) -> dict[str, float]:
    rng = np.random.default_rng(1)
    images = rng.uniform(0, 1, COLOUR).astype(np.float32)
    a = rng.uniform(0, 1, PAIR).astype(np.float32)
    b = np.clip(a + rng.normal(scale=0.1, size=PAIR), 0, 1).astype(np.float32)
    out: dict[str, float] = {}
    if lib == "tf":
        import tensorflow as m

        tape_cls = m.GradientTape
    else:
        import rustape as m  # type: ignore[no-redef]

        tape_cls = m.GradientTape
    x = m.constant(images)
    ta, tb = m.constant(a), m.constant(b)
    out["rgb_to_hsv"] = _median(lambda: m.image.rgb_to_hsv(x).numpy(), repeats)
    out["adjust_hue"] = _median(lambda: m.image.adjust_hue(x, 0.2).numpy(), repeats)
    out["rgb_to_hsv + adjust_hue"] = _median(
        lambda: (m.image.rgb_to_hsv(x).numpy(), m.image.adjust_hue(x, 0.2).numpy()), repeats
    )
    out["adjust_saturation"] = _median(
        lambda: m.image.adjust_saturation(x, 1.5).numpy(), repeats
    )
    out["ssim"] = _median(lambda: m.image.ssim(ta, tb, 1.0).numpy(), repeats)

    def grad() -> None:
        with tape_cls() as tape:
            tape.watch(ta)
            total = m.reduce_sum(m.image.ssim(ta, tb, 1.0))
        tape.gradient(total, ta).numpy()

    out["ssim + gradient"] = _median(grad, repeats)
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
    print(f"colour {list(COLOUR)}, ssim {list(PAIR)}, float32, median of {args.repeats} (ms)")
    print(f"{'case':26} {'rustape':>9} {'tensorflow':>11} {'ratio':>7}")
    for case, ms in ours.items():
        tf_ms = theirs.get(case, float("nan"))
        print(f"{case:26} {ms:9.1f} {tf_ms:11.1f} {ms / tf_ms:7.2f}")


if __name__ == "__main__":
    sys.exit(main())
