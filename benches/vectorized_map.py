"""rt.vectorized_map on 256 rows of a small MLP: the vectorised run beside the loop over rows
(the fallback), and beside torch.vmap / jax.vmap when they import.

    python benches/vectorized_map.py [--calls N]        # CPU time per call, median of blocks
    python benches/vectorized_map.py --only rt_vectorized --calls 20   # one mode, for
        valgrind --tool=callgrind or perf stat -e instructions (count per call = total / N)

Every mode's result is first checked against the loop's (allclose). Times are CPU time of this
process (time.process_time), so other processes on a shared machine matter less than with
wall-clock time; compare instruction counts for decisions.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np
import rustape as rt
from rustape import _vmap

ROWS, IN, HIDDEN, OUT = 256, 32, 64, 10
RNG = np.random.default_rng(0)
X = RNG.standard_normal((ROWS, IN)).astype(np.float32)
W1 = (RNG.standard_normal((IN, HIDDEN)) / np.sqrt(IN)).astype(np.float32)
B1 = np.zeros(HIDDEN, np.float32)
W2 = (RNG.standard_normal((HIDDEN, OUT)) / np.sqrt(HIDDEN)).astype(np.float32)


def rustape_modes() -> dict[str, Callable[[], np.ndarray]]:
    x, w1, b1, w2 = (rt.constant(a) for a in (X, W1, B1, W2))

    def mlp(row: rt.Tensor) -> rt.Tensor:
        h = rt.nn.relu(rt.linalg.matvec(w1, row, transpose_a=True) + b1)
        return rt.nn.softmax(rt.linalg.matvec(w2, h, transpose_a=True))

    def vectorized() -> np.ndarray:
        return rt.vectorized_map(mlp, x, fallback_to_while_loop=False).numpy()

    def loop() -> np.ndarray:
        return _vmap.loop(mlp, x, [x], ROWS).numpy()

    return {"rt_vectorized": vectorized, "rt_loop": loop}


def peer_modes() -> dict[str, Callable[[], np.ndarray]]:
    modes: dict[str, Callable[[], np.ndarray]] = {}
    try:
        import torch

        torch.set_num_threads(1)
        tx, tw1, tb1, tw2 = (torch.from_numpy(a) for a in (X, W1, B1, W2))

        def torch_mlp(row: torch.Tensor) -> torch.Tensor:
            h = torch.relu(row @ tw1 + tb1)
            return torch.softmax(h @ tw2, dim=-1)

        modes["torch_vmap"] = lambda: torch.vmap(torch_mlp)(tx).numpy()
    except ImportError:
        pass
    try:
        import jax
        import jax.numpy as jnp

        jx, jw1, jb1, jw2 = (jnp.asarray(a) for a in (X, W1, B1, W2))

        def jax_mlp(row: jax.Array) -> jax.Array:
            h = jax.nn.relu(row @ jw1 + jb1)
            return jax.nn.softmax(h @ jw2)

        modes["jax_vmap"] = lambda: np.asarray(jax.vmap(jax_mlp)(jx))
        jitted = jax.jit(jax.vmap(jax_mlp))
        modes["jax_jit_vmap"] = lambda: np.asarray(jitted(jx))
    except ImportError:
        pass
    return modes


def cpu_per_call(f: Callable[[], np.ndarray], calls: int, blocks: int = 5) -> float:
    f()
    times = []
    for _ in range(blocks):
        start = time.process_time()
        for _ in range(calls):
            f()
        times.append((time.process_time() - start) / calls)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--only", default=None, help="run just this mode, --calls times")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    peers = not (args.only or "").startswith("rt_")
    modes = {**rustape_modes(), **(peer_modes() if peers else {})}
    if args.only:
        f = modes[args.only]
        for _ in range(args.calls):
            f()
        return
    expected = modes["rt_loop"]()
    for name, f in modes.items():
        np.testing.assert_allclose(f(), expected, rtol=1e-4, atol=1e-6, err_msg=name)
    before = dict(_vmap.PATHS)
    modes["rt_vectorized"]()
    assert _vmap.PATHS["vectorized"] == before.get("vectorized", 0) + 1
    loop_time = None
    print(f"vectorized_map, {ROWS} rows of a {IN}-{HIDDEN}-{OUT} MLP: CPU time per call")
    for name, f in modes.items():
        t = cpu_per_call(f, args.calls)
        loop_time = t if name == "rt_loop" else loop_time
        print(f"  {name:14s} {t * 1e3:9.3f} ms")
    rt_time = cpu_per_call(modes["rt_vectorized"], args.calls)
    assert loop_time is not None
    print(f"  loop / vectorized: {loop_time / rt_time:.1f}x")


if __name__ == "__main__":
    main()
