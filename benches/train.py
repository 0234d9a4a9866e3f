"""Training steps: rustape (rt.keras) beside PyTorch eager, in one process.

    python benches/train.py [--steps 30] [--only mlp,cnn,lstm]

Workloads (issue 11):
- mlp: W2's sizes, batch 256 of 784 features -> Dense 512 relu -> Dense 512 relu -> Dense 10,
  softmax cross-entropy from logits, one Adam step (goal: rustape <= 0.8x torch);
- cnn: batch 64 of 28x28x1 -> Conv2D 32 3x3 relu -> MaxPool -> Conv2D 64 3x3 relu -> MaxPool ->
  Flatten -> Dense 128 -> Dense 10, Adam (goal <= 1.0x; needs rt.keras.layers.Conv2D);
- lstm: batch 32, 35 steps, 256 units, embedding and softmax over a 1000-word vocabulary, Adam
  (goal <= 1.0x; needs rt.keras.layers.LSTM).

Both frameworks start from the same weights; the first step's losses are checked to agree before
timing. Steps alternate between frameworks in blocks; the table shows medians and the ratio
rustape / torch, with the CPU time other processes used meanwhile (the machine is shared).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

import rustape as rt

RNG = np.random.default_rng(0)


def busy_seconds() -> float:
    """CPU seconds every process used so far (from /proc/stat), to report machine load."""
    with open("/proc/stat") as f:
        fields = [float(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def mlp_workload(torch: Any) -> Optional[Tuple[Callable[[], float], Callable[[], float]]]:
    x = RNG.standard_normal((256, 784)).astype(np.float32)
    y = RNG.integers(0, 10, size=256).astype(np.int64)
    sizes = [(784, 512), (512, 512), (512, 10)]
    weights = []
    for fan_in, fan_out in sizes:
        limit = np.sqrt(6 / (fan_in + fan_out))
        weights += [RNG.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32),
                    np.zeros(fan_out, np.float32)]

    model = rt.keras.Sequential([rt.keras.Input(shape=(784,)),
                                 rt.keras.layers.Dense(512, activation="relu"),
                                 rt.keras.layers.Dense(512, activation="relu"),
                                 rt.keras.layers.Dense(10)])
    model.set_weights(weights)
    opt = rt.keras.optimizers.Adam(1e-3)
    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    xr, yr = rt.constant(x), rt.constant(y.astype(np.int32))

    def rt_step() -> float:
        with rt.GradientTape() as tape:
            loss = loss_fn(yr, model(xr, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return float(loss)

    net = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                              torch.nn.Linear(512, 512), torch.nn.ReLU(),
                              torch.nn.Linear(512, 10))
    with torch.no_grad():
        for k, layer in enumerate([net[0], net[2], net[4]]):
            layer.weight.copy_(torch.from_numpy(weights[2 * k].T.copy()))
            layer.bias.copy_(torch.from_numpy(weights[2 * k + 1]))
    topt = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-7)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    ce = torch.nn.CrossEntropyLoss()

    def torch_step() -> float:
        topt.zero_grad()
        loss = ce(net(xt), yt)
        loss.backward()
        topt.step()
        return float(loss.detach())

    return rt_step, torch_step


WORKLOADS: Dict[str, Callable[[Any], Optional[Tuple[Callable[[], float], Callable[[], float]]]]] = {
    "mlp": mlp_workload,
}
MISSING = {
    "cnn": "rt.keras.layers.Conv2D / MaxPooling2D",
    "lstm": "rt.keras.layers.LSTM / Embedding",
}


def time_pair(rt_step: Callable[[], float], torch_step: Callable[[], float],
              steps: int) -> Tuple[List[float], List[float]]:
    times: Tuple[List[float], List[float]] = ([], [])
    for block in range(steps // 5):
        order = [(0, rt_step), (1, torch_step)]
        if block % 2:
            order.reverse()
        for k, step in order:
            for _ in range(5):
                t0 = time.perf_counter()
                step()
                times[k].append(time.perf_counter() - t0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--only", default="mlp,cnn,lstm")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="torch's threads (set RAYON_NUM_THREADS to the same for rustape)")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("benches/train.py compares with torch: pip install -r benches/requirements-peers.txt")
    torch.set_num_threads(args.threads)
    rayon = os.environ.get("RAYON_NUM_THREADS", "all")
    print(f"# rustape ({rayon} rayon threads) beside torch {torch.__version__} "
          f"({args.threads} threads), {os.cpu_count()} cores, "
          f"{args.steps} steps each (after 3 warm-up steps)")
    print(f"{'workload':10} {'rustape ms':>12} {'torch ms':>10} {'ratio':>7} {'other load':>11}")
    for name in args.only.split(","):
        if name in MISSING and name not in WORKLOADS:
            print(f"{name:10} {'n/a':>12} {'':>10} {'':>7}   needs {MISSING[name]}")
            continue
        pair = WORKLOADS[name](torch)
        if pair is None:
            continue
        rt_step, torch_step = pair
        first_rt, first_torch = rt_step(), torch_step()
        if not np.isclose(first_rt, first_torch, rtol=1e-4):
            sys.exit(f"{name}: first losses differ: rustape {first_rt}, torch {first_torch}")
        for _ in range(2):
            rt_step()
            torch_step()
        busy0, wall0, cpu0 = busy_seconds(), time.perf_counter(), time.process_time()
        rt_times, torch_times = time_pair(rt_step, torch_step, args.steps)
        wall = time.perf_counter() - wall0
        own = time.process_time() - cpu0
        other = max(0.0, (busy_seconds() - busy0) - own) / wall
        a, b = statistics.median(rt_times) * 1e3, statistics.median(torch_times) * 1e3
        print(f"{name:10} {a:12.2f} {b:10.2f} {a / b:7.2f} {other:8.1f} cores")


if __name__ == "__main__":
    main()
