"""rustape alone on one workload of benches/workloads.py: process CPU per call, and a fixed number of calls
for instruction counts (the machine is shared, so decisions use instructions, not wall time).

    RAYON_NUM_THREADS=1 python benches/per_call.py W8 50
    for n in 2 12; do RAYON_NUM_THREADS=1 valgrind --tool=callgrind \\
        --callgrind-out-file=/tmp/w8_$n.out python benches/per_call.py W8 $n; done

Instructions per call: the difference of the two runs' totals ("Collected"), divided by 10.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # benches/ is not a package: found through the path above


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", help="a workload of workloads.py, e.g. W8 or W5h")
    ap.add_argument("calls", type=int, nargs="?", default=20, help="timed calls (after 3 more)")
    a = ap.parse_args()
    make = workloads.WORKLOADS[a.workload][1]
    call = make({}, False)["rustape"]
    for _ in range(3):
        call()
    start = time.process_time()
    for _ in range(a.calls):
        call()
    per_call = (time.process_time() - start) / max(a.calls, 1)
    print(f"{a.workload}: {per_call * 1e3:.3f} ms process CPU per call ({a.calls} calls)")


if __name__ == "__main__":
    main()
