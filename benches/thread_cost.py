"""Wall time and process CPU per call of one workload, rustape (and optionally torch), at the
thread count of the environment: medians of several repeats.

    RAYON_NUM_THREADS=2 python benches/thread_cost.py W7 --calls 50 --repeats 7 --torch
"""
import argparse
import os
import statistics
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # benches/ is not a package: found through the path above


def measure(call: Callable[[], object], calls: int, repeats: int) -> tuple[float, float]:
    """Median wall and process-CPU milliseconds per call over `repeats` runs of `calls` calls."""
    for _ in range(3):
        call()
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        for _ in range(calls):
            call()
        walls.append((time.perf_counter() - w) / calls * 1e3)
        cpus.append((time.process_time() - c) / calls * 1e3)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload")
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--torch", action="store_true", help="also time torch eager")
    a = ap.parse_args()
    peers = {}
    if a.torch:
        import torch
        peers["torch"] = torch
        if "RAYON_NUM_THREADS" in os.environ:
            torch.set_num_threads(int(os.environ["RAYON_NUM_THREADS"]))
    fns = workloads.WORKLOADS[a.workload][1](peers, False)
    threads = os.environ.get("RAYON_NUM_THREADS", "default")
    for name in ["rustape", "torch"] if a.torch else ["rustape"]:
        wall, cpu = measure(fns[name], a.calls, a.repeats)
        print(f"{a.workload} {name:8s} threads={threads}: {wall:.3f} ms/call, "
              f"{cpu:.3f} ms CPU/call (x{cpu / wall:.2f})")


if __name__ == "__main__":
    main()
