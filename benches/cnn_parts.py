"""Where the CNN training step's time goes (rustape alone): wall-clock and process CPU per call
of every kernel of the step, beside the step's forward pass, gradient and Adam update.

    RAYON_NUM_THREADS=2 python benches/cnn_parts.py [--steps 60] [--profile]

The step is benches/train.py's `cnn` workload (batch 64 of 28x28x1 -> Conv2D 32 3x3 relu ->
MaxPool -> Conv2D 64 3x3 relu -> MaxPool -> Flatten -> Dense 128 relu -> Dense 10, softmax
cross-entropy, Adam). Each part runs on its own, median of seven rounds; a gradient part is one
`tape.gradient` of that op alone (a persistent tape, the output gradient given), so it holds the
kernel and the tape's small overhead. CPU over wall shows how much of a part runs on both cores;
the step's excess over the sum of its parts is what Python and the tape cost (`--profile` shows
where, by cProfile).
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

RNG = np.random.default_rng(0)


def per_call(fn: Callable[[], Any], calls: int) -> tuple[float, float]:
    """Median wall-clock and process CPU per call (ms) over seven rounds of `calls` calls."""
    for _ in range(3):
        fn()
    walls, cpus = [], []
    for _ in range(7):
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(calls):
            fn()
        walls.append((time.perf_counter() - t0) / calls * 1e3)
        cpus.append((time.process_time() - c0) / calls * 1e3)
    return statistics.median(walls), statistics.median(cpus)


def normal(*shape: int) -> Any:
    return rt.constant(RNG.standard_normal(shape).astype(np.float32))


def gradient_of(op: Callable[..., Any], inputs: list[Any], watched: list[int]) -> Callable[[], Any]:
    """One `tape.gradient` of `op(*inputs)` with respect to the inputs at `watched`."""
    with rt.GradientTape(persistent=True) as tape:
        for k in watched:
            tape.watch(inputs[k])
        y = op(*inputs)
    dy = normal(*y.shape)
    sources = [inputs[k] for k in watched]
    return lambda: tape.gradient(y, sources, output_gradients=dy)


def forward(op: Callable[..., Any], inputs: list[Any]) -> Callable[[], Any]:
    """`op(*inputs)` under an active tape (as in training: max pooling then keeps its maxima)."""
    def run() -> Any:
        with rt.GradientTape() as tape:
            tape.watch(inputs[0])
            return op(*inputs)
    return run


def parts() -> list[tuple[str, Callable[[], Any]]]:
    x = normal(64, 28, 28, 1)
    k1, b1 = normal(3, 3, 1, 32), normal(32)
    c1 = normal(64, 26, 26, 32)
    p1 = normal(64, 13, 13, 32)
    k2, b2 = normal(3, 3, 32, 64), normal(64)
    c2 = normal(64, 11, 11, 64)
    flat = normal(64, 1600)
    d1, d2 = normal(1600, 128), normal(128, 10)
    h = normal(64, 128)
    logits = normal(64, 10)
    labels = rt.constant(RNG.integers(0, 10, size=64).astype(np.int32))

    def conv(a: Any, k: Any) -> Any:
        return rt.nn.conv2d(a, k, 1, "VALID")

    def pool(a: Any) -> Any:
        return rt.nn.max_pool2d(a, 2, 2, "VALID")

    def xent(z: Any) -> Any:
        return rt.reduce_mean(rt.nn.sparse_softmax_cross_entropy_with_logits(labels, z))

    return [
        ("conv1 forward", forward(conv, [x, k1])),
        ("conv1 filter grad", gradient_of(conv, [x, k1], [1])),
        ("conv1 bias_add", forward(rt.nn.bias_add, [c1, b1])),
        ("conv1 bias grad", gradient_of(rt.nn.bias_add, [c1, b1], [1])),
        ("relu 26x26x32", forward(rt.nn.relu, [c1])),
        ("relu grad 26x26x32", gradient_of(rt.nn.relu, [c1], [0])),
        ("pool1 forward", forward(pool, [c1])),
        ("pool1 grad", gradient_of(pool, [c1], [0])),
        ("conv2 forward", forward(conv, [p1, k2])),
        ("conv2 input grad", gradient_of(conv, [p1, k2], [0])),
        ("conv2 filter grad", gradient_of(conv, [p1, k2], [1])),
        ("conv2 bias_add", forward(rt.nn.bias_add, [c2, b2])),
        ("conv2 bias grad", gradient_of(rt.nn.bias_add, [c2, b2], [1])),
        ("relu 11x11x64", forward(rt.nn.relu, [c2])),
        ("relu grad 11x11x64", gradient_of(rt.nn.relu, [c2], [0])),
        ("pool2 forward", forward(pool, [c2])),
        ("pool2 grad", gradient_of(pool, [c2], [0])),
        ("dense1 forward", forward(rt.matmul, [flat, d1])),
        ("dense1 grads", gradient_of(rt.matmul, [flat, d1], [0, 1])),
        ("dense2 forward", forward(rt.matmul, [h, d2])),
        ("dense2 grads", gradient_of(rt.matmul, [h, d2], [0, 1])),
        ("softmax xent", forward(xent, [logits])),
        ("softmax xent grad", gradient_of(xent, [logits], [0])),
    ]


def model_step() -> tuple[Callable[[], None], Callable[[], dict[str, float]]]:
    """benches/train.py's CNN step, and a reader of its (forward, gradient, update) wall times."""
    layers = rt.keras.layers
    model = rt.keras.Sequential([
        rt.keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(10)])
    opt = rt.keras.optimizers.Adam(1e-3)
    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x = normal(64, 28, 28, 1)
    y = rt.constant(RNG.integers(0, 10, size=64).astype(np.int32))
    times: dict[str, list[float]] = {"forward": [], "gradient": [], "Adam update": []}

    def step() -> None:
        t0 = time.perf_counter()
        with rt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        t1 = time.perf_counter()
        grads = tape.gradient(loss, model.trainable_variables)
        t2 = time.perf_counter()
        opt.apply_gradients(zip(grads, model.trainable_variables))
        float(loss)
        t3 = time.perf_counter()
        for name, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2)):
            times[name].append(dt * 1e3)

    def medians() -> dict[str, float]:
        return {name: statistics.median(v) for name, v in times.items()}

    return step, medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--calls", type=int, default=20, help="calls per round of each part")
    parser.add_argument("--profile", action="store_true", help="cProfile the step's Python")
    args = parser.parse_args()
    threads = os.environ.get("RAYON_NUM_THREADS", "all")
    print(f"# CNN step, rustape ({threads} rayon threads): ms per call, median of 7 rounds")
    print(f"{'part':22} {'wall':>8} {'cpu':>8} {'cpu/wall':>9}")
    total_wall = total_cpu = 0.0
    for name, fn in parts():
        wall, cpu = per_call(fn, args.calls)
        total_wall += wall
        total_cpu += cpu
        print(f"{name:22} {wall:8.3f} {cpu:8.3f} {cpu / wall:9.2f}")
    print(f"{'sum of parts':22} {total_wall:8.3f} {total_cpu:8.3f} {total_cpu / total_wall:9.2f}")
    step, medians = model_step()
    for _ in range(3):
        step()
    medians()  # the warm-up steps stay in the lists; a few do not move a median
    wall, cpu = per_call(step, max(1, args.steps // 7))
    for name, ms in medians().items():
        print(f"{'step ' + name:22} {ms:8.3f}")
    print(f"{'whole step':22} {wall:8.3f} {cpu:8.3f} {cpu / wall:9.2f}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.steps):
            step()
        profiler.disable()
        print(f"# cProfile of {args.steps} steps (by own time)")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(18)


if __name__ == "__main__":
    main()
