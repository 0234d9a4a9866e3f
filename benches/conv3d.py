"""A 3-D convolution's forward and backward pass, rustape against torch (CPU, float32).

    python benches/conv3d.py [--rounds 7] [--threads 2] [--shape 8,16,32,32,16] [--filter 3,3,3,16,32]

The workload: `conv3d` of an `[n, d, h, w, c]` input with a `[kd, kh, kw, c, o]` filter, stride 1,
'SAME' padding, then the gradients of `sum(y * dy)` with respect to the input and the filter (one
`tape.gradient`; torch: `backward`). Reports the median wall-clock of the forward pass and of the
forward plus backward pass over `--rounds` rounds, for each library, and their ratio. torch (and
its own copy of NumPy) comes from the peers' environment; run under the machine's heavy-work lock,
with nothing else running.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable

import numpy as np


def median_ms(fn: Callable[[], Any], rounds: int) -> float:
    """Median wall-clock of `fn` (ms) over `rounds` calls after two warm-up calls."""
    fn()
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def rustape_runs(x: np.ndarray, f: np.ndarray, dy: np.ndarray) -> dict[str, Callable[[], Any]]:
    import rustape as rt

    tx, tf_, tdy = rt.constant(x), rt.constant(f), rt.constant(dy)

    def forward() -> Any:
        return rt.nn.conv3d(tx, tf_, 1, "SAME").numpy()

    def both() -> Any:
        with rt.GradientTape() as tape:
            tape.watch([tx, tf_])
            y = rt.nn.conv3d(tx, tf_, 1, "SAME")
        gx, gf = tape.gradient(y, [tx, tf_], output_gradients=tdy)
        return gx.numpy(), gf.numpy()

    return {"forward": forward, "forward+backward": both}


def torch_runs(x: np.ndarray, f: np.ndarray, dy: np.ndarray) -> dict[str, Callable[[], Any]]:
    import torch

    # torch's layout: NCDHW input, [o, c, kd, kh, kw] filter.
    tx = torch.tensor(x.transpose(0, 4, 1, 2, 3).copy(), requires_grad=True)
    tf_ = torch.tensor(f.transpose(4, 3, 0, 1, 2).copy(), requires_grad=True)
    tdy = torch.tensor(dy.transpose(0, 4, 1, 2, 3).copy())
    pad = tuple(k // 2 for k in f.shape[:3])

    def forward() -> Any:
        with torch.no_grad():
            return torch.nn.functional.conv3d(tx, tf_, padding=pad).numpy()

    def both() -> Any:
        tx.grad = tf_.grad = None
        y = torch.nn.functional.conv3d(tx, tf_, padding=pad)
        y.backward(tdy)
        return tx.grad.numpy(), tf_.grad.numpy()

    return {"forward": forward, "forward+backward": both}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--shape", default="8,16,32,32,16")
    parser.add_argument("--filter", default="3,3,3,16,32")
    args = parser.parse_args()
    os.environ.setdefault("RAYON_NUM_THREADS", str(args.threads))
    shape = [int(v) for v in args.shape.split(",")]
    fshape = [int(v) for v in args.filter.split(",")]
    assert all(k % 2 == 1 for k in fshape[:3]), "odd windows ('SAME' is symmetric for torch)"
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    f = rng.standard_normal(fshape).astype(np.float32) * 0.1
    dy = rng.standard_normal([*shape[:4], fshape[4]]).astype(np.float32)

    import rustape as rt
    import torch

    rt.config.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    ours, theirs = rustape_runs(x, f, dy), torch_runs(x, f, dy)
    # The two agree before anything is timed.
    y_ours, y_theirs = ours["forward"](), theirs["forward"]().transpose(0, 2, 3, 4, 1)
    np.testing.assert_allclose(y_ours, y_theirs, rtol=1e-3, atol=1e-3)
    print(
        f"conv3d {shape} x {fshape}, float32, {args.threads} threads, load {os.getloadavg()[0]:.2f}"
    )
    print(f"{'pass':<18}{'rustape ms':>12}{'torch ms':>12}{'ratio':>8}")
    for part in ours:
        a, b = median_ms(ours[part], args.rounds), median_ms(theirs[part], args.rounds)
        print(f"{part:<18}{a:>12.1f}{b:>12.1f}{a / b:>8.2f}")


if __name__ == "__main__":
    main()
