"""Training steps: rustape (rt.keras) beside PyTorch eager, in one process.

    python benches/train.py [--steps 30] [--only mlp,cnn,lstm,gru] [--threads N]

With RAYON_NUM_THREADS=N beside --threads N both use N threads. Besides the wall-clock medians
the table shows each framework's median CPU time per step (all of this process's threads),
the number to compare on a loaded machine.

Workloads (issue 11):
- mlp: W2's sizes, batch 256 of 784 features -> Dense 512 relu -> Dense 512 relu -> Dense 10,
  softmax cross-entropy from logits, one Adam step (goal: rustape <= 0.8x torch);
- cnn: batch 64 of 28x28x1 -> Conv2D 32 3x3 relu -> MaxPool -> Conv2D 64 3x3 relu -> MaxPool ->
  Flatten -> Dense 128 -> Dense 10, Adam (goal <= 1.0x; needs rt.keras.layers.Conv2D);
- lstm: batch 32, 35 steps, 256 units, embedding and softmax over a 1000-word vocabulary, Adam
  (goal <= 1.0x; needs rt.keras.layers.LSTM);
- gru: the lstm workload with a GRU layer (Keras' reset_after=True, torch.nn.GRU's formula).

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
from typing import Any, Callable

import numpy as np
import rustape as rt

RNG = np.random.default_rng(0)


def busy_seconds() -> float:
    """CPU seconds every process used so far (from /proc/stat), to report machine load."""
    with open("/proc/stat") as f:
        fields = [float(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def mlp_workload(torch: Any) -> tuple[Callable[[], float], Callable[[], float]] | None:
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


def _copy_into(torch: Any, pairs: list[tuple[Any, np.ndarray]]) -> None:
    with torch.no_grad():
        for param, value in pairs:
            param.copy_(torch.from_numpy(np.ascontiguousarray(value)))


def _adam_step(torch: Any, net: Any, forward: Callable[[], Any]) -> Callable[[], float]:
    topt = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-7)

    def step() -> float:
        topt.zero_grad()
        loss = forward()
        loss.backward()
        topt.step()
        return float(loss.detach())

    return step


def _rt_step(model: Any, x: Any, y: Any) -> Callable[[], float]:
    opt = rt.keras.optimizers.Adam(1e-3)
    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step() -> float:
        with rt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return float(loss)

    return step


def cnn_workload(torch: Any) -> tuple[Callable[[], float], Callable[[], float]] | None:
    layers = rt.keras.layers
    if not all(hasattr(layers, n) for n in ("Conv2D", "MaxPooling2D", "Flatten")):
        return None
    x = RNG.standard_normal((64, 28, 28, 1)).astype(np.float32)
    y = RNG.integers(0, 10, size=64).astype(np.int64)
    model = rt.keras.Sequential([
        rt.keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(10)])
    k1, b1, k2, b2, d1, c1, d2, c2 = model.get_weights()
    nn = torch.nn
    net = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3),
                        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(1600, 128), nn.ReLU(),
                        nn.Linear(128, 10))
    # HWIO kernels to OIHW; the Dense rows from (h, w, c) order to torch's (c, h, w).
    d1_chw = d1.reshape(5, 5, 64, 128).transpose(2, 0, 1, 3).reshape(1600, 128)
    _copy_into(torch, [(net[0].weight, k1.transpose(3, 2, 0, 1)), (net[0].bias, b1),
                       (net[3].weight, k2.transpose(3, 2, 0, 1)), (net[3].bias, b2),
                       (net[7].weight, d1_chw.T), (net[7].bias, c1),
                       (net[9].weight, d2.T), (net[9].bias, c2)])
    xt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    yt = torch.from_numpy(y)
    ce = nn.CrossEntropyLoss()
    return (_rt_step(model, rt.constant(x), rt.constant(y.astype(np.int32))),
            _adam_step(torch, net, lambda: ce(net(xt), yt)))


def language_model(torch: Any, cell: str) -> tuple[Callable[[], float], Callable[[], float]] | None:
    """A language model's step (batch 32, 35 steps, 256 units, 1000 words) whose recurrent layer
    is Keras's `cell` ("LSTM" or "GRU"), beside the same torch model with the same weights."""
    layers = rt.keras.layers
    if not all(hasattr(layers, n) for n in (cell, "Embedding")):
        return None
    vocab, units, batch, steps = 1000, 256, 32, 35
    tokens = RNG.integers(0, vocab, size=(batch, steps + 1))
    x, y = tokens[:, :-1], tokens[:, 1:]
    model = rt.keras.Sequential([
        rt.keras.Input(shape=(steps,), dtype="int32"),
        layers.Embedding(vocab, units), getattr(layers, cell)(units, return_sequences=True),
        layers.Dense(vocab)])
    emb, kernel, recurrent, bias, dense, dense_bias = model.get_weights()
    nn = torch.nn

    class LM(nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(vocab, units)
            self.rnn = getattr(nn, cell)(units, units, batch_first=True)
            self.out = nn.Linear(units, vocab)

        def forward(self, t: Any) -> Any:
            return self.out(self.rnn(self.emb(t))[0])

    net = LM()
    rnn = net.rnn
    if cell == "LSTM":
        # Keras's gates (i, f, c, o) are torch's (i, f, g, o); one bias, the other zero.
        cell_weights = [(rnn.weight_ih_l0, kernel.T), (rnn.weight_hh_l0, recurrent.T),
                        (rnn.bias_ih_l0, bias), (rnn.bias_hh_l0, np.zeros_like(bias))]
    else:
        # Keras's gates (z, r, h) are torch's (r, z, n); bias rows: input, recurrent.
        order = np.r_[units:2 * units, 0:units, 2 * units:3 * units]
        cell_weights = [(rnn.weight_ih_l0, kernel[:, order].T),
                        (rnn.weight_hh_l0, recurrent[:, order].T),
                        (rnn.bias_ih_l0, bias[0, order]), (rnn.bias_hh_l0, bias[1, order])]
    _copy_into(torch, [(net.emb.weight, emb), *cell_weights,
                       (net.out.weight, dense.T), (net.out.bias, dense_bias)])
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    ce = nn.CrossEntropyLoss()
    return (_rt_step(model, rt.constant(x.astype(np.int32)), rt.constant(y.astype(np.int32))),
            _adam_step(torch, net, lambda: ce(net(xt).reshape(-1, vocab), yt.reshape(-1))))


WORKLOADS: dict[str, Callable[[Any], tuple[Callable[[], float], Callable[[], float]] | None]] = {
    "mlp": mlp_workload,
    "cnn": cnn_workload,
    "lstm": lambda torch: language_model(torch, "LSTM"),
    "gru": lambda torch: language_model(torch, "GRU"),
}
MISSING = {
    "cnn": "rt.keras.layers.Conv2D / MaxPooling2D",
    "lstm": "rt.keras.layers.LSTM / Embedding",
    "gru": "rt.keras.layers.GRU / Embedding",
}


def time_pair(rt_step: Callable[[], float], torch_step: Callable[[], float],
              steps: int) -> tuple[list[float], list[float], list[float], list[float]]:
    """Wall-clock and CPU seconds (this process, every thread) of each step of either
    framework: CPU time stays meaningful on a loaded machine, where wall-clock does not."""
    wall: tuple[list[float], list[float]] = ([], [])
    cpu: tuple[list[float], list[float]] = ([], [])
    for block in range(steps // 5):
        order = [(0, rt_step), (1, torch_step)]
        if block % 2:
            order.reverse()
        for k, step in order:
            for _ in range(5):
                c0, t0 = time.process_time(), time.perf_counter()
                step()
                wall[k].append(time.perf_counter() - t0)
                cpu[k].append(time.process_time() - c0)
    return wall[0], wall[1], cpu[0], cpu[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--only", default="mlp,cnn,lstm,gru")
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
    print(f"{'workload':10} {'rustape ms':>12} {'torch ms':>10} {'ratio':>7} {'other load':>11}"
          f" {'rustape cpu ms':>15} {'torch cpu ms':>13}")
    for name in args.only.split(","):
        pair = WORKLOADS[name](torch)
        if pair is None:
            print(f"{name:10} {'n/a':>12} {'':>10} {'':>7}   needs {MISSING[name]}")
            continue
        rt_step, torch_step = pair
        first_rt, first_torch = rt_step(), torch_step()
        if not np.isclose(first_rt, first_torch, rtol=1e-4):
            sys.exit(f"{name}: first losses differ: rustape {first_rt}, torch {first_torch}")
        for _ in range(2):
            rt_step()
            torch_step()
        busy0, wall0, cpu0 = busy_seconds(), time.perf_counter(), time.process_time()
        rt_times, torch_times, rt_cpu, torch_cpu = time_pair(rt_step, torch_step, args.steps)
        wall = time.perf_counter() - wall0
        own = time.process_time() - cpu0
        other = max(0.0, (busy_seconds() - busy0) - own) / wall
        a, b = statistics.median(rt_times) * 1e3, statistics.median(torch_times) * 1e3
        ca, cb = statistics.median(rt_cpu) * 1e3, statistics.median(torch_cpu) * 1e3
        print(f"{name:10} {a:12.2f} {b:10.2f} {a / b:7.2f} {other:8.1f} cores"
              f" {ca:15.2f} {cb:13.2f}")


if __name__ == "__main__":
    main()
