"""Where the MLP training step's time goes (rustape alone): process CPU per step of the forward
pass, the gradient and the Adam update, beside each GEMM of the step on its own.

    RAYON_NUM_THREADS=1 python benches/mlp_parts.py [--steps 60]

The step is benches/train.py's `mlp` workload (W2's sizes: 256x784 -> 512 relu -> 512 relu ->
10, softmax cross-entropy, Adam). The GEMM total is the floor for the step's matrix work; the
step's excess over it is what the elementwise ops, the tape, the optimizer and Python cost.
CPU time stays meaningful on a shared machine, wall-clock does not.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable

import numpy as np
import rustape as rt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# (name, a's shape, b's shape, transpose_a, transpose_b): the step's 3 + 5 products.
GEMMS = [
    ("x @ W1", (256, 784), (784, 512), False, False),
    ("h1 @ W2", (256, 512), (512, 512), False, False),
    ("h2 @ W3", (256, 512), (512, 10), False, False),
    ("dW3 = h2^T g", (256, 512), (256, 10), True, False),
    ("dh2 = g W3^T", (256, 10), (512, 10), False, True),
    ("dW2 = h1^T g", (256, 512), (256, 512), True, False),
    ("dh1 = g W2^T", (256, 512), (512, 512), False, True),
    ("dW1 = x^T g", (256, 784), (256, 512), True, False),
]


def cpu_ms(fn: Callable[[], Any], calls: int) -> float:
    """Least process CPU per call (ms) over five rounds of `calls` calls, after three more."""
    for _ in range(3):
        fn()
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            fn()
        rounds.append((time.process_time() - start) / calls * 1e3)
    return min(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rt.constant(rng.standard_normal((256, 784)).astype(np.float32))
    y = rt.constant(rng.integers(0, 10, size=256).astype(np.int32))
    model = rt.keras.Sequential([rt.keras.Input(shape=(784,)),
                                 rt.keras.layers.Dense(512, activation="relu"),
                                 rt.keras.layers.Dense(512, activation="relu"),
                                 rt.keras.layers.Dense(10)])
    opt = rt.keras.optimizers.Adam(1e-3)
    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    parts = {"forward": 0.0, "gradient": 0.0, "update": 0.0}
    for step in range(args.steps + 3):
        c0 = time.process_time()
        with rt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        c1 = time.process_time()
        grads = tape.gradient(loss, model.trainable_variables)
        c2 = time.process_time()
        opt.apply_gradients(zip(grads, model.trainable_variables))
        float(loss)
        c3 = time.process_time()
        if step >= 3:
            parts["forward"] += c1 - c0
            parts["gradient"] += c2 - c1
            parts["update"] += c3 - c2
    threads = os.environ.get("RAYON_NUM_THREADS", "all")
    print(f"# MLP step, rustape ({threads} rayon threads), process CPU ms per step")
    for name, seconds in parts.items():
        print(f"{name:14} {seconds / args.steps * 1e3:8.3f}")
    print(f"{'step':14} {sum(parts.values()) / args.steps * 1e3:8.3f}")
    total = 0.0
    for name, sa, sb, ta, tb in GEMMS:
        a = rt.constant(rng.standard_normal(sa).astype(np.float32))
        b = rt.constant(rng.standard_normal(sb).astype(np.float32))
        ms = cpu_ms(lambda a=a, b=b, ta=ta, tb=tb: rt.matmul(a, b, transpose_a=ta,
                                                              transpose_b=tb), 20)
        total += ms
        print(f"{name:14} {ms:8.3f}")
    print(f"{'GEMMs':14} {total:8.3f}")


if __name__ == "__main__":
    main()
