"""`rt.nn.ctc_loss` and its gradient beside TensorFlow's `tf.nn.ctc_loss` and torch's
`torch.nn.functional.ctc_loss`.

One workload: batch 32, 100 frames, 30 classes (blank 0), labels of length 20, float32
logits; the loss and its gradient with respect to the logits under a tape (torch: autograd from
`log_softmax`, as its CTC takes log-probabilities). Each backend runs in its own interpreter
(TensorFlow and torch live in other virtual environments):

    python benches/ctc.py                      # rustape, then the others if found
    python benches/ctc.py --backend rustape    # one backend, prints JSON

Median wall-clock time of `--repeats` runs (after warm-up), in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

PYTHONS = {"tensorflow": "/work/venv-tf/bin/python", "torch": "/work/venv-peers/bin/python"}
BATCH, FRAMES, CLASSES, LABELS = 32, 100, 30, 20


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
    logits = rng.normal(size=(FRAMES, BATCH, CLASSES)).astype(np.float32)
    labels = rng.integers(1, CLASSES, size=(BATCH, LABELS)).astype(np.int32)
    label_length = np.full(BATCH, LABELS, np.int32)
    logit_length = np.full(BATCH, FRAMES, np.int32)
    if backend == "rustape":
        import rustape as rt

        x = rt.constant(logits)

        def step():
            with rt.GradientTape() as tape:
                tape.watch(x)
                loss = rt.reduce_sum(rt.nn.ctc_loss(labels, x, label_length, logit_length))
            return tape.gradient(loss, x).numpy()

    elif backend == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        x = tf.constant(logits)

        def step():
            with tf.GradientTape() as tape:
                tape.watch(x)
                loss = tf.reduce_sum(tf.nn.ctc_loss(labels, x, label_length, logit_length))
            return tape.gradient(loss, x).numpy()

    else:
        import torch

        x = torch.from_numpy(logits).requires_grad_()
        lab, ll, xl = (torch.from_numpy(a).long() for a in (labels, label_length, logit_length))

        def step():
            x.grad = None
            logp = torch.nn.functional.log_softmax(x, dim=-1)
            loss = torch.nn.functional.ctc_loss(logp, lab, xl, ll, reduction="sum")
            loss.backward()
            return x.grad.numpy()

    return {"ctc_loss_grad_32x100x30_L20": _median_ms(step, repeats)}


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
            else:
                print(f"{name} failed: {out.stderr.strip().splitlines()[-1:]}")
    for work in results["rustape"]:
        line = [f"{work:28s}"]
        for name, r in results.items():
            ratio = r[work] / results["rustape"][work]
            line.append(f"{name} {r[work]:8.3f} ms ({ratio:4.2f}x)")
        print("  ".join(line))


if __name__ == "__main__":
    sys.exit(main())
