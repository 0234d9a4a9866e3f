"""Forward + backward of the issue's CNN and LSTM training-step models, rustape beside torch eager
in the same process (the optimizer step is benches/train.py's).

    python benches/nn.py [--only cnn,lstm] [--repeats 7]

- cnn: batch 64, 28x28x1; Conv2D 32 3x3 relu -> MaxPool 2 -> Conv2D 64 3x3 relu -> MaxPool 2 ->
  Flatten -> Dense 128 relu -> Dense 10, softmax cross-entropy; gradients of every weight.
- lstm: a language-model step: batch 32, 35 steps, 256 units, embedding 256, vocabulary 10000,
  LSTM -> Dense over the vocabulary, softmax cross-entropy; gradients of every weight.

Both frameworks run the same numbers (checked allclose first). Each is timed in alternating
blocks (rustape, torch, rustape, ...), the median per step reported with the ratio of medians,
and the CPU time other processes used meanwhile (the machine is shared: compare ratios, not
seconds).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable

import numpy as np
import rustape as rt

RNG = np.random.default_rng(0)


def rand(*shape: int, scale: float = 0.1) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# -- the CNN -------------------------------------------------------------------------------------
def cnn_data() -> dict:
    return {
        "x": RNG.uniform(0, 1, size=(64, 28, 28, 1)).astype(np.float32),
        "y": RNG.integers(0, 10, size=64).astype(np.int32),
        "k1": rand(3, 3, 1, 32, scale=0.3), "b1": rand(32),
        "k2": rand(3, 3, 32, 64, scale=0.06), "b2": rand(64),
        "w3": rand(1600, 128, scale=0.03), "b3": rand(128),
        "w4": rand(128, 10, scale=0.1), "b4": rand(10),
    }


def cnn_rustape(d: dict) -> Callable[[], Any]:
    x, labels = rt.constant(d["x"]), rt.constant(d["y"])
    params = [rt.Variable(d[k]) for k in ("k1", "b1", "k2", "b2", "w3", "b3", "w4", "b4")]

    def step() -> Any:
        k1, b1, k2, b2, w3, b3, w4, b4 = params
        with rt.GradientTape() as tape:
            h = rt.nn.relu(rt.nn.bias_add(rt.nn.conv2d(x, k1, 1, "VALID"), b1))
            h = rt.nn.max_pool2d(h, 2, 2, "VALID")
            h = rt.nn.relu(rt.nn.bias_add(rt.nn.conv2d(h, k2, 1, "VALID"), b2))
            h = rt.nn.max_pool2d(h, 2, 2, "VALID")
            h = rt.reshape(h, [64, -1])
            h = rt.nn.relu(rt.nn.bias_add(rt.matmul(h, w3), b3))
            logits = rt.nn.bias_add(rt.matmul(h, w4), b4)
            loss = rt.reduce_mean(rt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return [loss, *tape.gradient(loss, params)]
    return step


def cnn_torch(torch: Any, d: dict) -> Callable[[], Any]:
    F = torch.nn.functional
    x = torch.from_numpy(d["x"]).permute(0, 3, 1, 2).contiguous()
    labels = torch.from_numpy(d["y"]).long()
    params = [torch.tensor(d[k], requires_grad=True) for k in ("k1", "b1", "k2", "b2", "w3", "b3", "w4", "b4")]
    k1t = params[0].detach().permute(3, 2, 0, 1).contiguous().requires_grad_()
    k2t = params[2].detach().permute(3, 2, 0, 1).contiguous().requires_grad_()
    ws = [k1t, params[1], k2t, params[3], params[4], params[5], params[6], params[7]]

    def step() -> Any:
        k1, b1, k2, b2, w3, b3, w4, b4 = ws
        h = F.max_pool2d(F.relu(F.conv2d(x, k1, b1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, k2, b2)), 2)
        h = h.permute(0, 2, 3, 1).reshape(64, -1)  # NHWC order, as rustape flattens
        h = F.relu(h @ w3 + b3)
        loss = F.cross_entropy(h @ w4 + b4, labels)
        grads = torch.autograd.grad(loss, ws)
        g = list(grads)
        g[0] = g[0].permute(2, 3, 1, 0)
        g[2] = g[2].permute(2, 3, 1, 0)
        return [loss, *g]
    return step


# -- the LSTM language model -------------------------------------------------------------------
def lstm_data() -> dict:
    units, vocab = 256, 10000
    return {
        "tokens": RNG.integers(0, vocab, size=(32, 35)).astype(np.int32),
        "targets": RNG.integers(0, vocab, size=(32, 35)).astype(np.int32),
        "emb": rand(vocab, units), "kernel": rand(units, 4 * units, scale=0.05),
        "recurrent": rand(units, 4 * units, scale=0.05), "bias": rand(4 * units),
        "w": rand(units, vocab, scale=0.05), "b": rand(vocab),
    }


def lstm_rustape(d: dict) -> Callable[[], Any]:
    tokens, targets = rt.constant(d["tokens"]), rt.constant(np.ascontiguousarray(d["targets"].T).reshape(-1))
    params = [rt.Variable(d[k]) for k in ("emb", "kernel", "recurrent", "bias", "w", "b")]
    batch, steps, units = 32, 35, 256

    def step() -> Any:
        emb, kernel, recurrent, bias, w, b = params
        with rt.GradientTape() as tape:
            x = rt.nn.embedding_lookup(emb, rt.transpose(tokens))  # [steps, batch, units]
            xs = rt.unstack(rt.reshape(rt.nn.bias_add(rt.matmul(rt.reshape(x, [-1, units]), kernel), bias),
                                       [steps, batch, 4 * units]))
            h = rt.zeros([batch, units])
            c = rt.zeros([batch, units])
            u = recurrent.value()
            hs = []
            for x_t in xs:
                h, c = rt._rustape.lstm_cell(x_t + rt.matmul(h, u), c)
                hs.append(h)
            logits = rt.nn.bias_add(rt.matmul(rt.reshape(rt.stack(hs), [-1, units]), w), b)
            loss = rt.reduce_mean(rt.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits))
        return [loss, *tape.gradient(loss, params)]
    return step


def lstm_torch(torch: Any, d: dict) -> Callable[[], Any]:
    F = torch.nn.functional
    tokens = torch.from_numpy(d["tokens"]).long()
    targets = torch.from_numpy(np.ascontiguousarray(d["targets"].T).reshape(-1)).long()
    ws = [torch.tensor(d[k], requires_grad=True) for k in ("emb", "kernel", "recurrent", "bias", "w", "b")]
    batch, steps, units = 32, 35, 256

    def step() -> Any:
        emb, kernel, recurrent, bias, w, b = ws
        x = F.embedding(tokens.t(), emb)
        xs = (x.reshape(-1, units) @ kernel + bias).reshape(steps, batch, 4 * units).unbind(0)
        h = torch.zeros(batch, units)
        c = torch.zeros(batch, units)
        hs = []
        for x_t in xs:
            z = x_t + h @ recurrent
            i, f, g, o = z.chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            hs.append(h)
        logits = torch.stack(hs).reshape(-1, units) @ w + b
        loss = F.cross_entropy(logits, targets)
        return [loss, *torch.autograd.grad(loss, ws)]
    return step


def lstm_torch_module(torch: Any, d: dict) -> Callable[[], Any]:
    """torch's own nn.LSTM (its fused CPU kernel), the same numbers."""
    F = torch.nn.functional
    units = 256
    lstm = torch.nn.LSTM(units, units)
    with torch.no_grad():
        # torch's gate order is i, f, g, o too; its two biases sum to Keras' one.
        lstm.weight_ih_l0.copy_(torch.from_numpy(d["kernel"].T))
        lstm.weight_hh_l0.copy_(torch.from_numpy(d["recurrent"].T))
        lstm.bias_ih_l0.copy_(torch.from_numpy(d["bias"]))
        lstm.bias_hh_l0.zero_()
    tokens = torch.from_numpy(d["tokens"]).long()
    targets = torch.from_numpy(np.ascontiguousarray(d["targets"].T).reshape(-1)).long()
    emb = torch.tensor(d["emb"], requires_grad=True)
    w, b = torch.tensor(d["w"], requires_grad=True), torch.tensor(d["b"], requires_grad=True)
    ws = [emb, lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, w, b]

    def step() -> Any:
        out, _ = lstm(F.embedding(tokens.t(), emb))
        logits = out.reshape(-1, units) @ w + b
        loss = F.cross_entropy(logits, targets)
        g = list(torch.autograd.grad(loss, ws))
        g[1], g[2] = g[1].t(), g[2].t()
        return [loss, *g]
    return step


# -- timing --------------------------------------------------------------------------------------
def cpu_of_others() -> float:
    """CPU seconds all processes used (from /proc/stat), minus ours later."""
    with open("/proc/stat") as fh:
        fields = [float(v) for v in fh.readline().split()[1:8]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def measure(fns: dict, repeats: int, per_block: int) -> dict:
    times: dict = {k: [] for k in fns}
    for r in range(repeats):
        order = list(fns) if r % 2 == 0 else list(reversed(fns))
        for k in order:
            t0 = time.perf_counter()
            for _ in range(per_block):
                fns[k]()
            times[k].append((time.perf_counter() - t0) / per_block)
    return {k: statistics.median(v) for k, v in times.items()}


def check(a: list, b: list, what: str) -> None:
    for i, (x, y) in enumerate(zip(a, b)):
        x = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
        y = y.detach().numpy() if hasattr(y, "detach") else np.asarray(y)
        np.testing.assert_allclose(x, y, rtol=2e-3, atol=2e-5, err_msg=f"{what}: output {i}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="cnn,lstm")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    import torch
    torch.set_num_threads(int(os.environ.get("RAYON_NUM_THREADS", os.cpu_count() or 1)))
    print(f"# rustape {rt.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    workloads = {
        "cnn": (cnn_data, {"rustape": cnn_rustape, "torch": lambda d: cnn_torch(torch, d)}, 3),
        "lstm": (lstm_data, {"rustape": lstm_rustape, "torch": lambda d: lstm_torch(torch, d),
                             "torch nn.LSTM": lambda d: lstm_torch_module(torch, d)}, 2),
    }
    for name in args.only.split(","):
        make_data, makers, per_block = workloads[name]
        d = make_data()
        fns = {k: m(d) for k, m in makers.items()}
        ref = fns["rustape"]()
        for k, f in fns.items():
            if k != "rustape":
                check(ref, f(), f"{name} {k}")
        cpu0, t0 = cpu_of_others(), time.perf_counter()
        own0 = time.process_time()
        med = measure(fns, args.repeats, per_block)
        wall = time.perf_counter() - t0
        others = cpu_of_others() - cpu0 - (time.process_time() - own0)
        base = med["rustape"]
        cells = "  ".join(f"{k} {v * 1e3:8.2f} ms (rustape/{k} {base / v:5.2f})" if k != "rustape"
                          else f"rustape {v * 1e3:8.2f} ms" for k, v in med.items())
        print(f"{name:5s} {cells}   [other processes: {others / wall:.1f} cores busy]")


if __name__ == "__main__":
    main()
