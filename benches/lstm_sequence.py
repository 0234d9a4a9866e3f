"""The LSTM layer's whole loop as one op (`lstm_sequence`), forward and gradient, alone.

    RAYON_NUM_THREADS=N python benches/lstm_sequence.py [--calls 40]

Sizes of benches/train.py's lstm step (35 steps, batch 32, 256 units, float32). Prints the
median wall-clock and CPU time per call, and how the CPU time splits between the calling thread
and the others: the batch blocks of the loop running on a helper thread show up as the helpers'
share (also meaningful on a loaded machine, where wall-clock is not).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import rustape as rt
from rustape import _rustape


def thread_cpu() -> dict[str, float]:
    """CPU seconds of each of this process's threads (from /proc)."""
    out: dict[str, float] = {}
    for t in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{t}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        out[t] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    steps, batch, units = 35, 32, 256
    arrays = [
        rng.standard_normal((steps, batch, 4 * units)),
        rng.standard_normal((units, 4 * units)) * 0.05,
        np.zeros((batch, units)),
        np.zeros((batch, units)),
    ]
    inputs = [rt.Variable(a.astype(np.float32)) for a in arrays]

    def call() -> None:
        with rt.GradientTape() as tape:
            hs, _ = _rustape.lstm_sequence(*inputs)
            loss = rt.reduce_sum(hs)
        tape.gradient(loss, inputs)

    for _ in range(3):
        call()
    wall, cpu = [], []
    before = thread_cpu()
    for _ in range(args.calls):
        c0, t0 = time.process_time(), time.perf_counter()
        call()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    after = thread_cpu()
    me = str(os.getpid())
    own = after[me] - before.get(me, 0.0)
    helpers = sum(after[t] - before.get(t, 0.0) for t in after if t != me)
    print(f"lstm_sequence {steps}x{batch}x{units} ({os.environ.get('RAYON_NUM_THREADS', 'all')}"
          f" threads): {statistics.median(wall) * 1e3:.2f} ms wall, "
          f"{statistics.median(cpu) * 1e3:.2f} ms CPU per call; "
          f"calling thread {own:.2f} s, other threads {helpers:.2f} s over {args.calls} calls")


if __name__ == "__main__":
    main()
