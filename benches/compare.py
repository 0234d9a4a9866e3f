"""rustape beside PyTorch, JAX, TensorFlow and NumPy on the workloads of issues 3, 4 and 15
(defined in benches/workloads.py).

    python benches/compare.py [--quick] [--json out.json] [--only W1,W6] [--peers torch,jax]

Every peer that imports is measured in the same run (pip install -r benches/requirements-peers.txt).
Each peer's result is first checked against rustape's (allclose), then every framework is timed
in blocks of repeated calls, in two passes (in order, then reversed); the table shows medians
(time.perf_counter) and the ratio rustape / peer measured in the same process. The CPU time that
other processes used meanwhile is reported: the machine is small and shared.
Thread scaling (1 vs 2 rayon threads), W4's peak memory and W6 memory run in child processes, so
that RAYON_NUM_THREADS takes effect and RSS growth is not hidden by memory freed earlier.
"""
import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

import rustape as rt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import (GOALS, WORKLOADS, mlp, rand, w4_tape, w6_n, w6_record, w7_data,
                       w7_tape, w9_data, w9_tape)

def import_peers(names):
    warnings.simplefilter("ignore", FutureWarning)  # torch.jit deprecation notes inside torch.func
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    peers = {}
    for name in names:
        try:
            peers[name] = importlib.import_module({"tf": "tensorflow"}.get(name, name))
        except ImportError as e:
            print(f"# {name}: not installed ({e})", file=sys.stderr)
    return peers


def np_of(x):
    if isinstance(x, (list, tuple)):
        return [np_of(v) for v in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else x)


# -- measurement ------------------------------------------------------------------------------

def check(name, col, ref, got):
    ref, got = np_of(ref), np_of(got)
    if not isinstance(ref, list):
        ref, got = [ref], [got]
    tol = dict(rtol=2e-3, atol=2e-4)
    assert len(ref) == len(got), f"{name}/{col}: {len(got)} results, rustape has {len(ref)}"
    for r, g in zip(ref, got):
        g = np.asarray(g, dtype=np.float64).reshape(np.shape(r))
        if not np.allclose(g, r, **tol):
            err = np.max(np.abs(g - r))
            raise AssertionError(f"{name}: {col} differs from rustape (max abs err {err:.3g})")


def measure(name, fns, quick):
    """({column: median seconds}, {column: (median process CPU, median main-thread CPU) per
    call}). Each callable is called once (warm-up, and its result checked against rustape's);
    then two passes, in order and in reverse order, each running every column in a block: one
    untimed call (lets the previous framework's spinning threads settle) and timed calls until
    half the repetitions or half the time budget is used. Process CPU minus main-thread CPU is
    what the framework's other threads used (working, or spinning while waiting for work)."""
    budget, reps = (1.0, 6) if quick else (8.0, 40)
    calls, times, cpus, ref = {}, {}, {}, None
    for col, spec in fns.items():
        fn, compare = spec if isinstance(spec, tuple) else (spec, True)
        t0 = time.perf_counter()
        result = fn()
        first = time.perf_counter() - t0
        if col == "rustape":
            ref = result
        elif compare:
            check(name, col, ref, result)
        del result
        calls[col], times[col], cpus[col] = fn, [], []
        if first > budget:  # slow: one timed call per pass, no settling call
            calls[col] = (fn, 1)
    for order in (list(calls), list(calls)[::-1]):
        for col in order:
            fn, n = calls[col] if isinstance(calls[col], tuple) else (calls[col], reps // 2)
            if n > 1:
                fn()
            spent, done = 0.0, 0
            while done < n and (done < 2 or spent < budget / 2):
                c0, m0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
                fn()
                dt = time.perf_counter() - t0
                cpus[col].append((time.process_time() - c0, time.thread_time() - m0))
                times[col].append(dt)
                spent, done = spent + dt, done + 1
    med = {c: statistics.median(v) for c, v in times.items()}
    # CPU per call is the mean over a column's consecutive calls, not the median: the kernel
    # adds a thread's CPU time to the process's total only when the thread is switched out or
    # at a scheduler tick (4 ms), so a helper still spinning when a call ends shows up in a few
    # calls' deltas at once, and a median would leave it out.
    cpu = {c: tuple(statistics.fmean(x[i] for x in v) for i in (0, 1)) for c, v in cpus.items()}
    return med, cpu


def fmt_t(s):
    return f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.2f} s"


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cpu_seconds():
    """(CPU seconds used by the whole machine, by this process) so far, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    with open("/proc/self/stat") as f:
        own = f.read().rsplit(")", 1)[1].split()
    busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
    return busy / tick, (int(own[11]) + int(own[12])) / tick


def child_memory(fw, n):
    """W6 recording only, in a fresh process: tape bytes per op and RSS growth per op."""
    mod = import_peers([fw]).get(fw) if fw != "rustape" else None
    if fw != "rustape" and mod is None:
        return {}  # not installed: nothing to measure
    w6_record(fw, mod, 1000)  # warm up the allocator and the framework's caches
    before = rss_bytes()
    t, s, y = w6_record(fw, mod, n)
    grown = rss_bytes() - before
    out = {"ops": 2 * n, "rss_per_op": grown / (2 * n)}
    if fw == "rustape":
        out.update(ops=len(t), nbytes=t.nbytes, rss_per_op=grown / len(t),
                   saved_per_op=t.nbytes / len(t), beyond_saved_per_op=(grown - t.nbytes) / len(t))
    return out


def peak_growth(fn):
    """fn() and the growth of peak RSS (VmHWM, reset through /proc/self/clear_refs) while it ran."""
    def hwm():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))

    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak RSS restarts from the current RSS
    before = hwm()
    out = fn()
    return out, hwm() - before


def nbytes(results):
    return sum(int(np.prod(r.shape)) * 4 for r in (results if isinstance(results, list)
                                                   else [results]))


def child_peak_memory(name):
    """Peak memory in a fresh process (issues 3 and 15): the growth of peak RSS during the
    Jacobian (W4, W9) or the whole step (W7), against its result plus the bytes the tapes saved
    (W7: the outermost tape, which holds everything the inner ones recorded)."""
    rt.constant(1.0) * 2.0  # the extension's pages: not the workload's
    if name == "W4":
        x, L1, L2 = rand(512, 64), rand(64, 128, scale=1 / 8), rand(128, 32, scale=1 / 11)
        x, L1, L2 = rt.constant(x), rt.constant(L1), rt.constant(L2)
        w4_tape(rt, x[:8], L1, L2)  # rayon's threads, code pages, allocator arenas: not W4's
        with rt.GradientTape() as t:
            t.watch(x)
            y = rt.nn.elu(rt.matmul(rt.nn.elu(rt.matmul(x, L1)), L2))
        tape = t.nbytes
        result, grown = peak_growth(lambda: t.batch_jacobian(y, x))
    elif name == "W9":
        params, x, labels = w9_data()
        vs, x, labels = [rt.Variable(p) for p in params], rt.constant(x), rt.constant(labels)
        w9_tape(rt, vs, x[:2], labels[:2])
        with rt.GradientTape() as t:
            losses = rt.nn.softmax_cross_entropy_with_logits(
                labels=labels, logits=mlp(rt, vs, x, rt.nn.relu))
        tape = t.nbytes
        result, grown = peak_growth(lambda: t.jacobian(losses, vs))
    else:
        params, X, f = w7_data()
        vs, X, f = [rt.Variable(p) for p in params], rt.constant(X), rt.constant(f)
        w7_tape(rt, vs, X[:8], f[:8])
        tapes = []  # the outermost tape holds everything the inner ones recorded

        def step():
            return w7_tape(rt, vs, X, f, recorded=lambda t3: tapes.append(t3.nbytes))
        result, grown = peak_growth(step)
        tape = tapes[0]
    size = nbytes(result)
    return {"peak_growth": grown, "result": size, "tape": tape, "ratio": grown / (size + tape)}


def child_threads(quick, peers):
    """The rayon-parallel workloads at RAYON_NUM_THREADS threads (run under 1 and 2). Beside
    rustape, when installed: torch at as many threads, and for the elementwise ops torch writing
    into a warm buffer (`out=`), the machine's ceiling for a streaming kernel (no allocation, no
    page faults): a multiply of 4M float32 moves 48 MB, so it scales only as far as memory
    bandwidth does."""
    threads = int(os.environ.get("RAYON_NUM_THREADS", "1"))
    P = import_peers(peers)
    if "torch" in P:
        P["torch"].set_num_threads(threads)
    res = {"time": {}, "cpu": {}}
    for name in THREADED:
        fns = {c: f for c, f in WORKLOADS[name][1](P, quick).items() if c in ("rustape", "torch")}
        if name in ("tanh4M", "mul4M") and "torch" in P:
            fns["torch out="] = (torch_into(P["torch"], name), False)
        res["time"][name], res["cpu"][name] = measure(name, fns, quick)
    return res


# The workloads run at 1 and 2 threads (W4 and W7 also for CPU per call: goal <= 1.15x; W2,
# the MLP's forward and backward GEMMs, shows what the second core gives a training step).
THREADED = ("W2", "W4", "W7", "tanh4M", "mul4M", "matmul")


def torch_into(torch, name):
    """torch's tanh or multiply of 4M float32 into a preallocated output."""
    a, b = torch.tensor(rand(1 << 22)), torch.tensor(rand(1 << 22))
    out = torch.empty_like(a)
    if name == "tanh4M":
        return lambda: torch.tanh(a, out=out)
    return lambda: torch.mul(a, b, out=out)


def child_group(group, names, quick):
    """rustape beside one group of peers: "base" (torch, numpy, Python floats), "jax" or "tf"."""
    P = import_peers(["torch"] if group == "base+torch" else [group] if group != "base" else [])
    res, cpu, wall, used = {}, {}, time.perf_counter(), cpu_seconds()
    for name in names:
        fns = {c: f for c, f in WORKLOADS[name][1](P, quick).items()
               if c == "rustape" or group.startswith("base") or c.split()[0] == group}
        if len(fns) > 1 or group.startswith("base"):
            res[name], cpu[name] = med, _ = measure(name, fns, quick)
            print(f"{group:10} {name:7} " + " | ".join(f"{c} {fmt_t(t)}" for c, t in med.items()),
                  file=sys.stderr, flush=True)
    used = [b - a for a, b in zip(used, cpu_seconds())]
    others = max(0.0, used[0] - used[1]) / (time.perf_counter() - wall)
    return {"versions": versions(P), "medians": res, "cpu": cpu, "others_cores": others,
            "loadavg": os.getloadavg()[0]}


def run_child(args, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    cmd = [sys.executable, os.path.abspath(__file__)] + args
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def versions(P):
    v = {"python": platform.python_version(), "numpy": np.__version__,
         "rustape": getattr(rt, "__version__", "?")}
    for name, mod in P.items():
        v[name] = mod.__version__
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short budgets; W6 with 20,000 ops")
    ap.add_argument("--json", metavar="PATH", help="write all numbers to PATH")
    ap.add_argument("--only", help="comma-separated workloads (" + ",".join(WORKLOADS) + ")")
    ap.add_argument("--peers", default="torch,jax,tf", help="peers to try (default torch,jax,tf)")
    ap.add_argument("--no-extras", action="store_true", help="skip thread scaling and W6 memory")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    names = a.only.split(",") if a.only else list(WORKLOADS)
    q = ["--quick"] if a.quick else []
    if a.child:
        kind, _, arg = a.child.partition(":")
        if kind == "memory":
            res = child_memory(arg, w6_n(a.quick))
        elif kind == "peak":
            res = child_peak_memory(arg)
        elif kind == "threads":
            res = child_threads(a.quick, [p for p in a.peers.split(",") if p == "torch"])
        else:
            res = child_group(arg, names, a.quick)
        print(json.dumps(res))
        return
    peers = [p for p in a.peers.split(",") if p]
    # One process per group of peers: TensorFlow's LLVM and torch.func's cannot share a process,
    # and XLA's and torch's thread pools slow each other down. Ratios are taken against the
    # rustape median measured in the same process; the rustape column is the first process's.
    groups = ["base+torch" if "torch" in peers else "base"] + [p for p in peers if p != "torch"]
    results, ratios, vers, rt_by_group, others, cpu = {}, {}, {}, {}, {}, {}
    load = [os.getloadavg()[0]]  # the machine is shared: say how busy it was
    for g in groups:
        out = run_child(["--child", "run:" + g, "--only", ",".join(names)] + q)
        vers.update(out["versions"])
        others[g] = out["others_cores"]
        load.append(out["loadavg"])
        for name, med in out["medians"].items():
            base = med.pop("rustape")
            rt_by_group.setdefault(name, {})[g] = base
            results.setdefault(name, {"rustape": base}).update(med)
            ratios.setdefault(name, {}).update({c: base / t for c, t in med.items()})
            cpu.setdefault(name, {}).update(out["cpu"][name])

    print("\n# " + "  ".join(f"{k} {v}" for k, v in vers.items()))
    print(f"# {os.cpu_count()} CPUs; 1-minute load average before and after each process: "
          + ", ".join(f"{v:.2f}" for v in load))
    print("# CPU used by other processes meanwhile (cores): " +
          ", ".join(f"{g} {c:.2f}" for g, c in others.items()) +
          ("  ** DISTURBED: treat these numbers with care **" if max(others.values()) > 0.1 else ""))
    print("\n## medians, and ratio rustape / peer in the same process (< 1: rustape faster)")
    cols = sorted({c for m in results.values() for c in m if c != "rustape"},
                  key=lambda c: (c not in ("torch", "numpy"), c))
    print("| workload | rustape | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 2) + "|")
    for name, med in results.items():
        title = WORKLOADS[name][0].replace("200,000", f"{w6_n(a.quick):,}")
        cells = [f"{fmt_t(med[c])} ({ratios[name][c]:.3g}x)" if c in med else "" for c in cols]
        print(f"| {name} {title} | {fmt_t(med['rustape'])} | " + " | ".join(cells) + " |")

    print("\n## CPU per call (means): process CPU / main thread's CPU; the difference is what "
          "other threads of the process used (working, or spinning while they wait)")
    ccols = ["rustape"] + cols
    print("| workload | " + " | ".join(ccols) + " |")
    print("|---" * (len(ccols) + 1) + "|")
    for name, by_col in cpu.items():
        cells = [f"{fmt_t(by_col[c][0])} / {fmt_t(by_col[c][1])}" if c in by_col else ""
                 for c in ccols]
        print(f"| {name} | " + " | ".join(cells) + " |")

    goals = {}
    print("\n## goals")
    for name, targets in GOALS.items():
        for peer, goal in targets:
            if peer in ratios.get(name, {}):
                ratio = ratios[name][peer]
                goals[f"{name}/{peer}"] = {"goal": goal, "ratio": ratio, "met": ratio <= goal}
                print(f"{name}: rustape/{peer} = {ratio:.3g} (goal <= {goal}): " +
                      ("MET" if ratio <= goal else f"not met, {ratio / goal:.3g}x away"))

    extra = {}
    if not a.no_extras:
        # 1 and 2 threads alternate three times (fresh processes). Each pair gives a ratio; the
        # headline is the median pair, because this machine's second vCPU is sometimes slow for
        # seconds at a time (a pair then shows ~1x for every framework alike).
        pairs = [[run_child(["--child", "threads", "--peers", a.peers] + q,
                            {"RAYON_NUM_THREADS": str(t)})
                  for t in (1, 2)] for _ in range(1 if a.quick else 3)]
        extra["threads"] = {"runs": pairs}
        print("\n## 1 vs 2 threads: 1-thread / 2-thread time per alternating pair, median pair "
              "first (goal: rustape's W4 and large elementwise >= 1.8x)")
        for w in pairs[0][0]["time"]:
            cells = []
            for c in pairs[0][0]["time"][w]:
                rs = sorted((p[0]["time"][w][c] / p[1]["time"][w][c], p[0]["time"][w][c],
                             p[1]["time"][w][c]) for p in pairs)
                r, one, two = rs[len(rs) // 2]
                cells.append(f"{c} {fmt_t(one)} -> {fmt_t(two)}: {r:.2f}x (pairs "
                             + ", ".join(f"{x[0]:.2f}" for x in rs) + ")")
            print(f"{w}: " + " | ".join(cells))
        print("\n## 2-thread / 1-thread process CPU per call, per pair, median pair first "
              "(goal: rustape's W4 and W7 <= 1.15x)")
        for w in ("W2", "W4", "W7"):
            cells = []
            for c in pairs[0][0]["cpu"].get(w, {}):
                rs = sorted((p[1]["cpu"][w][c][0] / p[0]["cpu"][w][c][0], p[0]["cpu"][w][c][0],
                             p[1]["cpu"][w][c][0]) for p in pairs)
                r, one, two = rs[len(rs) // 2]
                cells.append(f"{c} {fmt_t(one)} -> {fmt_t(two)}: {r:.2f}x (pairs "
                             + ", ".join(f"{x[0]:.2f}" for x in rs) + ")")
            if cells:
                print(f"{w}: " + " | ".join(cells))
        extra["peak_memory"] = {}
        print("\n## peak memory (fresh process each): peak RSS growth against the result plus "
              "the tape's saved tensors (goals: W4 <= 2, W7 and W9 <= 1.5)")
        mib = 1 << 20
        for w in ("W4", "W7", "W9"):
            if w in names:
                m = run_child(["--child", "peak:" + w])
                extra["peak_memory"][w] = m
                print(f"{w}: peak RSS growth {m['peak_growth'] / mib:.2f} MiB; result "
                      f"{m['result'] / mib:.2f} MiB, tape {m['tape'] / mib:.2f} MiB: "
                      f"{m['ratio']:.2f}x (result + tape)")
        print(f"\n## W6 memory ({w6_n(a.quick):,} iterations recorded, fresh process each)")
        extra["memory"] = {}
        for fw in ["rustape"] + [p for p in ("torch", "tf") if p in peers]:
            try:
                m = run_child(["--child", "memory:" + fw] + q)
            except (subprocess.CalledProcessError, KeyError):
                continue
            if not m:
                continue
            extra["memory"][fw] = m
            line = f"{fw}: {m['ops']:,} ops, RSS growth {m['rss_per_op']:.0f} B/op"
            if fw == "rustape":
                line += (f"; tape.nbytes {m['saved_per_op']:.1f} B/op of saved data; "
                         f"beyond saved data {m['beyond_saved_per_op']:.0f} B/op (goal <= 150)")
            print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"versions": vers, "quick": a.quick, "medians_s": results, "ratios": ratios,
                       "rustape_by_process": rt_by_group, "goals": goals, "loadavg": load,
                       "other_processes_cores": others, "cpu_s": cpu,
                       **extra}, f, indent=1)


if __name__ == "__main__":
    main()
