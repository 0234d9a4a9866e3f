"""Where the LSTM language model's training step goes (rustape alone): wall-clock and process
CPU per call of each phase of the step and of each of its parts on its own.

    RAYON_NUM_THREADS=N python benches/lstm_parts.py [--calls 40] [--cell LSTM] [--profile]

The step is benches/train.py's `lstm` workload (batch 32, 35 steps, 256 units, a 1000-word
vocabulary: Embedding -> LSTM -> Dense 1000, softmax cross-entropy, Adam); `--cell GRU` times
the `gru` workload. Each part is timed forward alone and forward with its gradient (`+grad`);
Adam is timed on each variable alone. A part whose CPU time grows with the threads while its
wall-clock time does not shrink is what keeps the step from scaling. `--profile` adds
cProfile's list of the step's Python functions (the Keras path's overhead).
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import time
from typing import Any, Callable

import numpy as np
import rustape as rt
from rustape import _rustape

VOCAB, UNITS, BATCH, STEPS = 1000, 256, 32, 35


def timed(fn: Callable[[], Any], calls: int) -> tuple[float, float]:
    """Median wall-clock and CPU milliseconds per call of `fn`, after three warm-up calls."""
    for _ in range(3):
        fn()
    wall, cpu = [], []
    for _ in range(calls):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3


def with_gradient(forward: Callable[[], Any], sources: list[Any]) -> Callable[[], Any]:
    """`forward` recorded on a tape, then the gradient of its output (seeded with ones of its
    shape) with respect to `sources`."""
    seeds: dict[str, Any] = {}

    def call() -> Any:
        with rt.GradientTape() as tape:
            for s in sources:
                tape.watch(s)
            out = forward()
        if "seed" not in seeds:
            seeds["seed"] = rt.ones_like(out)
        return tape.gradient(out, sources, output_gradients=seeds["seed"])

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--cell", default="LSTM", choices=["LSTM", "GRU"])
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, VOCAB, size=(BATCH, STEPS + 1)).astype(np.int32)
    x, y = rt.constant(tokens[:, :-1]), rt.constant(tokens[:, 1:])
    layers = rt.keras.layers
    recurrent = getattr(layers, args.cell)(UNITS, return_sequences=True)
    model = rt.keras.Sequential([rt.keras.Input(shape=(STEPS,), dtype="int32"),
                                 layers.Embedding(VOCAB, UNITS), recurrent,
                                 layers.Dense(VOCAB)])
    opt = rt.keras.optimizers.Adam(1e-3)
    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    variables = model.trainable_variables

    # The step's phases.
    phases: dict[str, tuple[list[float], list[float]]] = {
        k: ([], []) for k in ("forward", "gradient", "update", "step")}

    def step() -> None:
        c0, t0 = time.process_time(), time.perf_counter()
        with rt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        c1, t1 = time.process_time(), time.perf_counter()
        grads = tape.gradient(loss, variables)
        c2, t2 = time.process_time(), time.perf_counter()
        opt.apply_gradients(zip(grads, variables))
        float(loss)
        c3, t3 = time.process_time(), time.perf_counter()
        for k, (w, c) in zip(phases, [(t1 - t0, c1 - c0), (t2 - t1, c2 - c1),
                                      (t3 - t2, c3 - c2), (t3 - t0, c3 - c0)]):
            phases[k][0].append(w)
            phases[k][1].append(c)

    for _ in range(3):
        step()
    for v in phases.values():
        v[0].clear()
        v[1].clear()
    for _ in range(args.calls):
        step()
    threads = os.environ.get("RAYON_NUM_THREADS", "all")
    print(f"# {args.cell} language-model step, rustape ({threads} rayon threads), "
          f"median ms per call")
    print(f"{'part':34} {'wall':>8} {'cpu':>8}")
    for name, (w, c) in phases.items():
        print(f"{name:34} {statistics.median(w) * 1e3:8.3f} {statistics.median(c) * 1e3:8.3f}")

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(10):
            step()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)

    # The parts, with the step's shapes and weights.
    emb_table, kernel, rec_kernel = (variables[0], variables[1], variables[2])
    bias = variables[3]
    dense, dense_bias = variables[-2], variables[-1]
    embedded = rt.nn.embedding_lookup(emb_table, x)
    width = kernel.shape[1]
    time_major = rt.reshape(rt.transpose(embedded, [1, 0, 2]), [STEPS * BATCH, UNITS])
    projected = rt.reshape(rt.matmul(time_major, kernel), [STEPS, BATCH, width])
    hs = rt.constant(rng.standard_normal((STEPS, BATCH, UNITS)).astype(np.float32) * 0.5)
    outputs = rt.transpose(hs, [1, 0, 2])
    logits = rt.constant(rng.standard_normal((BATCH, STEPS, VOCAB)).astype(np.float32))

    def projection() -> Any:
        tm = rt.reshape(rt.transpose(embedded, [1, 0, 2]), [STEPS * BATCH, UNITS])
        p = rt.nn.bias_add(rt.matmul(tm, kernel), bias if args.cell == "LSTM" else bias[0])
        return rt.reshape(p, [STEPS, BATCH, width])

    def dense_part() -> Any:
        flat = rt.reshape(outputs, [-1, UNITS])
        return rt.nn.bias_add(rt.reshape(rt.matmul(flat, dense), [BATCH, STEPS, VOCAB]), dense_bias)

    parts: list[tuple[str, Callable[[], Any], list[Any]]] = [
        ("embedding_lookup", lambda: rt.nn.embedding_lookup(emb_table, x), [emb_table]),
        ("input projection (+transpose)", projection, [embedded, kernel, bias]),
        ("output transpose", lambda: rt.transpose(hs, [1, 0, 2]), [hs]),
        ("dense 1000 (reshape, bias)", dense_part, [outputs, dense, dense_bias]),
        ("softmax cross-entropy", lambda: loss_fn(y, logits), [logits]),
    ]
    if args.cell == "LSTM":
        h0 = rt.zeros([BATCH, UNITS])
        seq = rt.constant(rng.standard_normal((STEPS, BATCH, width)).astype(np.float32))
        parts.insert(2, ("lstm_sequence",
                         lambda: _rustape.lstm_sequence(seq, rec_kernel, h0, h0)[0],
                         [seq, rec_kernel]))
    else:
        parts.insert(2, ("GRU layer on projected inputs",
                         lambda: recurrent(embedded), [embedded, *variables[1:4]]))
    for name, forward, sources in parts:
        for label, fn in ((name, forward), (name + " +grad", with_gradient(forward, sources))):
            w, c = timed(fn, args.calls)
            print(f"{label:34} {w:8.3f} {c:8.3f}")

    # The step's products on their own (rt.matmul).
    rows = STEPS * BATCH
    gemms = [
        ("proj x@K [1120,256]@[256,G]", (rows, UNITS), (UNITS, width), False, False),
        ("dK = x^T dz", (rows, UNITS), (rows, width), True, False),
        ("dx = dz K^T", (rows, width), (UNITS, width), False, True),
        ("dU = h^T dz", (rows, UNITS), (rows, width), True, False),
        ("dense h@W [1120,256]@[256,1000]", (rows, UNITS), (UNITS, VOCAB), False, False),
        ("dW = h^T g", (rows, UNITS), (rows, VOCAB), True, False),
        ("dh = g W^T", (rows, VOCAB), (UNITS, VOCAB), False, True),
    ]
    for name, sa, sb, ta, tb in gemms:
        a = rt.constant(rng.standard_normal(sa).astype(np.float32))
        b = rt.constant(rng.standard_normal(sb).astype(np.float32))
        w, c = timed(lambda a=a, b=b, ta=ta, tb=tb: rt.matmul(a, b, transpose_a=ta,
                                                              transpose_b=tb), args.calls)
        print(f"{name:34} {w:8.3f} {c:8.3f}")

    # Adam on each variable alone (a fresh optimizer per variable; gradients of its shape).
    for v in variables:
        g = rt.constant(rng.standard_normal(v.shape).astype(np.float32) * 1e-3)
        single = rt.keras.optimizers.Adam(1e-3)
        w, c = timed(lambda g=g, v=v, single=single: single.apply_gradients([(g, v)]),
                     args.calls)
        label = f"adam {v.name} {list(v.shape)}"
        print(f"{label:34} {w:8.3f} {c:8.3f}")


if __name__ == "__main__":
    main()
