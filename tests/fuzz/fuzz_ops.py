"""A random-program fuzzer for rustape.

Each case is a short program: ops from the binding table (every function of every namespace:
`rt`, `rt.math`, `rt.nn`, `rt.linalg`, ...) and the Keras losses, called with random and
hostile arguments (shapes with zero and huge dimensions, every dtype, NaN and infinities,
negative and enormous integers, wrong types), chained on each other's results, under no tape, one tape, a persistent tape or nested
tapes, followed by gradients, Jacobians, batch Jacobians and Hessians with random options.

Every outcome must be a value or one of the documented exceptions (ValueError, TypeError,
IndexError, RuntimeError other than "internal error", MemoryError). Anything else fails: another
exception type, an internal error (a Rust panic), a gradient whose shape or dtype is not its
source's, a crash, or a hang. Cases run in batches, each in a subprocess with a memory cap and
a timeout; a failure prints the seed and the case to reproduce it.

    python tests/fuzz/fuzz_ops.py --seconds 1800          # a long local run
    python tests/fuzz/fuzz_ops.py --seed 123 --case 45    # replay one case, verbosely

CI runs it for about 90 seconds (tests/python/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import random
import subprocess
import sys
import time
import traceback
from typing import Any, Callable

ALLOWED = (ValueError, TypeError, IndexError, RuntimeError, MemoryError)
# Exceptions the documentation allows that nonetheless mean a bug when they escape.
FORBIDDEN_TEXT = ("internal error", "PanicException")
MEMORY_CAP = 4 << 30
BATCH_TIMEOUT = 90.0
CASES_PER_BATCH = 400

# Parameters the fuzzer does not play with (they select behaviour it cannot check, or are
# ignored): names, and callables.
SKIPPED_PARAMETERS = {"name", "f", "fn", "func", "grad_fn", "callable", "__cls"}
# Functions that are not ops: helpers of the package, or that wait, print or write files.
SKIPPED_FUNCTIONS = {
    "gradcheck",
    "record_custom_gradient",
    "pause_all_tapes",
    "resume_all_tapes",
    "begin_variable_watch",
    "end_variable_watch",
    "print",
    "set_seed",
    "py_function",
    "numpy_function",
    "vectorized_map",
    "recompute_grad",
    "custom_gradient",
    "function",
    "device",
    "from_dlpack",
    "to_dlpack",
}


class Program:
    """Random values and calls, drawn from one seeded generator."""

    def __init__(
        self, rt: Any, np: Any, rng: random.Random, ops: list[tuple[str, Callable[..., Any]]]
    ) -> None:
        self.rt, self.np, self.rng, self.ops = rt, np, rng, ops
        self.pool: list[Any] = []
        self.log: list[str] = []

    # -- values --------------------------------------------------------------------------
    def dim(self) -> int:
        r = self.rng.random()
        if r < 0.1:
            return 0
        if r < 0.13:
            return self.rng.choice([2**31, 2**40, 2**62])
        return self.rng.choice([1, 1, 2, 3, 4, 5])

    def shape(self) -> list[int]:
        rank = self.rng.choice([0, 1, 1, 2, 2, 2, 3, 4])
        dims = [self.dim() for _ in range(rank)]
        # A huge dimension only beside a zero one (an empty tensor), or it stays huge on purpose
        # for creation ops (which must then raise).
        if any(d > 1000 for d in dims) and 0 not in dims and self.rng.random() < 0.8:
            dims[self.rng.randrange(len(dims))] = 0
        return dims

    def array(self, shape: list[int] | None = None, dtype: str | None = None) -> Any:
        np = self.np
        shape = self.shape() if shape is None else shape
        # NumPy holds no shape whose non-zero dims overflow; huge shapes reach rustape through
        # its own creation ops instead (see `tensor`).
        shape = [min(d, 5) for d in shape]
        dtype = dtype or self.rng.choice(
            ["float32", "float64", "float64", "int32", "int64", "bool"]
        )
        special = self.rng.random()
        size = math.prod(shape)
        if dtype == "bool":
            return np.array([self.rng.random() < 0.5 for _ in range(size)], dtype=bool).reshape(
                shape
            )
        if dtype.startswith("int"):
            values = [
                self.rng.choice([0, 1, -1, 2, 3, 7, -5, 2**31 - 1, -(2**31)]) for _ in range(size)
            ]
            info = np.iinfo(dtype)
            return np.array([max(info.min, min(info.max, v)) for v in values], dtype=dtype).reshape(
                shape
            )
        values = [self.rng.uniform(-3.0, 3.0) for _ in range(size)]
        if special < 0.15 and size:
            for _ in range(self.rng.randrange(1, 3)):
                values[self.rng.randrange(size)] = self.rng.choice(
                    [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e300, -1e-300, 3.4e38]
                )
        return np.array(values, dtype=dtype).reshape(shape)

    def tensor(self) -> Any:
        if self.pool and self.rng.random() < 0.6:
            return self.rng.choice(self.pool)
        if self.rng.random() < 0.05:
            # A hostile shape straight into rustape (zero beside 2^62, or too large to exist).
            shape = self.shape()
            dtype = self.rng.choice([self.rt.float32, self.rt.float64, self.rt.int32, self.rt.bool])
            try:
                return self.rt.zeros(shape, dtype=dtype)
            except (ValueError, MemoryError):
                pass
        a = self.array()
        kind = self.rng.random()
        if kind < 0.6:
            return self.rt.constant(a)
        if kind < 0.75 and a.dtype.kind == "f":
            return self.rt.Variable(a)
        if kind < 0.85:
            return a
        if kind < 0.95:
            return a.tolist()
        return self.rng.choice([1.5, 2, -1, float("nan"), True])

    def integer(self) -> Any:
        return self.rng.choice(
            [0, 1, 2, -1, -2, 3, 5, 2**31, 2**62, 2**63, 2**70, -(2**70), 10**6, True]
        )

    def integers(self) -> Any:
        n = self.rng.choice([0, 1, 2, 3])
        values = [self.rng.choice([0, 1, 2, -1, 3, 2**40, -(2**62)]) for _ in range(n)]
        return self.rng.choice(
            [
                values,
                tuple(values),
                self.rt.constant(values, dtype=self.rt.int64) if values else values,
            ]
        )

    def argument(self, name: str) -> Any:
        rng = self.rng
        lowered = name.lower()
        if rng.random() < 0.05:
            return rng.choice([None, "text", 1.5, [], {}, object()])
        if lowered in (
            "axis",
            "k",
            "depth",
            "num",
            "num_rows",
            "num_columns",
            "batch_dims",
            "num_or_size_splits",
            "seed",
            "parallel_iterations",
            "num_segments",
            "kth",
            "exclusive",
            "reverse",
            "shift",
            "repeats",
            "ord",
            "num_cols",
            "num_lower",
            "num_upper",
            "batch_size",
            "epochs",
            "steps",
        ):
            return self.integer() if rng.random() < 0.7 else self.integers()
        if lowered in (
            "axes",
            "perm",
            "shape",
            "dims",
            "multiples",
            "paddings",
            "begin",
            "size",
            "strides",
            "batch_shape",
            "keepdims",
            "size_splits",
        ):
            if lowered == "keepdims":
                return rng.random() < 0.5
            if lowered == "paddings":
                return [
                    [rng.choice([0, 1, 2, -1, 2**62]), rng.choice([0, 1, 2**40])]
                    for _ in range(rng.randrange(0, 4))
                ]
            return self.integers() if rng.random() < 0.8 else self.shape()
        if lowered in ("dtype", "out_type", "output_type"):
            return rng.choice(
                [
                    self.rt.float32,
                    self.rt.float64,
                    self.rt.int32,
                    self.rt.int64,
                    self.rt.bool,
                    "float32",
                    None,
                    "complex300",
                ]
            )
        if lowered in (
            "transpose_a",
            "transpose_b",
            "adjoint_a",
            "adjoint_b",
            "adjoint",
            "approximate",
            "sorted",
            "lower",
            "full_matrices",
            "compute_uv",
            "training",
            "stable",
            "from_logits",
            "fast",
            "validate_args",
        ):
            return rng.random() < 0.5
        if lowered in ("equation",):
            return rng.choice(
                [
                    "ij,jk->ik",
                    "ii->i",
                    "bij,bjk->bik",
                    "i,j->ij",
                    "->",
                    "ij->ji",
                    "i,i->",
                    "a...->...a",
                    "bad",
                ]
            )
        if lowered in ("mode", "direction", "padding", "data_format"):
            return rng.choice(
                [
                    "CONSTANT",
                    "REFLECT",
                    "SYMMETRIC",
                    "SAME",
                    "VALID",
                    "ASCENDING",
                    "DESCENDING",
                    "bogus",
                ]
            )
        if lowered in (
            "epsilon",
            "alpha",
            "clip_value_min",
            "clip_value_max",
            "clip_norm",
            "mean",
            "stddev",
            "minval",
            "maxval",
            "start",
            "stop",
            "limit",
            "delta",
            "beta",
            "tol",
            "rcond",
            "on_value",
            "off_value",
            "constant_values",
            "scale",
            "l2_regularizer",
            "padding_value",
            "learning_rate",
            "label_smoothing",
        ):
            return rng.choice(
                [0.0, 1.0, -1.0, 0.5, 1e-3, float("nan"), float("inf"), 2**70, self.tensor()]
            )
        return self.tensor()

    # -- programs ------------------------------------------------------------------------
    def call_op(self) -> Any:
        name, f = self.rng.choice(self.ops)
        try:
            params = list(inspect.signature(f).parameters.values())
        except (TypeError, ValueError):
            params = []
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for p in params:
            if p.name in SKIPPED_PARAMETERS or p.kind == p.VAR_KEYWORD:
                continue
            if p.kind == p.VAR_POSITIONAL:
                args.extend(self.tensor() for _ in range(self.rng.choice([0, 1, 2, 3])))
                continue
            required = p.default is p.empty
            if not required and self.rng.random() < 0.6:
                continue
            value = self.argument(p.name)
            if p.kind == p.KEYWORD_ONLY or (not required and self.rng.random() < 0.5):
                kwargs[p.name] = value
            elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and not kwargs:
                args.append(value)
            else:
                kwargs[p.name] = value
        self.log.append(f"{name}({_brief(args)}, {_brief(kwargs)})")
        result = f(*args, **kwargs)
        for item in result if isinstance(result, (list, tuple)) else [result]:
            if isinstance(item, (self.rt.Tensor, self.rt.Variable)):
                self.pool.append(item)
        return result

    def sources(self) -> list[Any]:
        found = [t for t in self.pool if isinstance(t, (self.rt.Tensor, self.rt.Variable))]
        self.rng.shuffle(found)
        return found[: self.rng.choice([1, 1, 2, 3])]

    def differentiate(self, tape: Any) -> None:
        rt, rng = self.rt, self.rng
        targets = [t for t in self.pool if isinstance(t, rt.Tensor)]
        if not targets:
            return
        target = rng.choice(targets)
        sources = self.sources()
        unconnected = rng.choice(["none", "zero", "raise", rt.UnconnectedGradients.ZERO, "bogus"])
        which = rng.random()
        if which < 0.5:
            seeds = None
            if rng.random() < 0.2:
                seeds = rng.choice([self.tensor(), [None], rt.ones_like(target)])
            self.log.append(f"gradient({_brief(target)}, {len(sources)} sources, {unconnected})")
            grads = tape.gradient(
                target, sources, output_gradients=seeds, unconnected_gradients=unconnected
            )
            for g, s in zip(grads, sources):
                if g is not None:
                    check(
                        tuple(g.shape) == tuple(s.shape),
                        f"gradient shape {g.shape} for a source of shape {s.shape}",
                    )
                    check(
                        g.dtype == s.dtype,
                        f"gradient dtype {g.dtype} for a source of dtype {s.dtype}",
                    )
        elif which < 0.8:
            kwargs: dict[str, Any] = {}
            if rng.random() < 0.3:
                kwargs["parallel_iterations"] = self.integer()
            if rng.random() < 0.3:
                kwargs["experimental_use_pfor"] = rng.random() < 0.5
            self.log.append(f"jacobian({_brief(target)}, {len(sources)} sources, {kwargs})")
            jacs = tape.jacobian(target, sources, unconnected_gradients=unconnected, **kwargs)
            for j, s in zip(jacs, sources):
                if j is not None:
                    check(
                        tuple(j.shape) == tuple(target.shape) + tuple(s.shape),
                        f"jacobian shape {j.shape} for target {target.shape} and source {s.shape}",
                    )
        elif which < 0.9:
            self.log.append(f"batch_jacobian({_brief(target)})")
            tape.batch_jacobian(target, sources[0], unconnected_gradients=unconnected)
        else:
            self.log.append(f"hessian({_brief(target)})")
            tape.hessian(target, sources, unconnected_gradients=unconnected)

    def run(self) -> None:
        rt, rng = self.rt, self.rng
        mode = rng.choice(["none", "tape", "persistent", "nested"])
        steps = rng.randrange(1, 6)
        self.log.append(f"mode {mode}")
        if mode == "none":
            for _ in range(steps):
                attempt(self.call_op)
            return
        outer = rt.GradientTape(persistent=True)
        inner = rt.GradientTape(persistent=mode == "persistent")
        with outer:
            with inner:
                for t in list(self.pool) + [self.tensor() for _ in range(2)]:
                    if isinstance(t, (rt.Tensor, rt.Variable)):
                        attempt(lambda t=t: inner.watch(t))
                        attempt(lambda t=t: outer.watch(t))
                        self.pool.append(t)
                for _ in range(steps):
                    attempt(self.call_op)
            attempt(lambda: self.differentiate(inner))
            if mode == "nested":
                attempt(lambda: self.differentiate(outer))
        if mode in ("persistent", "nested"):
            attempt(lambda: self.differentiate(outer))


class Finding(Exception):
    """An outcome other than a value or a documented exception."""


def check(ok: bool, message: str) -> None:
    if not ok:
        raise Finding(f"silently wrong: {message}")


def attempt(step: Callable[[], Any]) -> None:
    """Runs one step; documented exceptions are fine, anything else is a finding."""
    try:
        step()
    except Finding:
        raise
    except ALLOWED as e:
        text = f"{type(e).__name__}: {e}"
        if any(marker in text for marker in FORBIDDEN_TEXT) or isinstance(e, RecursionError):
            raise Finding(text) from e
    except Exception as e:
        raise Finding(f"undocumented {type(e).__name__}: {e}") from e


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 120 else text[:117] + "..."


def operations(rt: Any) -> list[tuple[str, Callable[..., Any]]]:
    from rustape._export import table

    seen: dict[int, tuple[str, Callable[..., Any]]] = {}
    for namespace, names in sorted(table().items()):
        for name, obj in sorted(names.items()):
            if callable(obj) and not isinstance(obj, type) and name not in SKIPPED_FUNCTIONS:
                seen.setdefault(id(obj), (f"{namespace}.{name}", obj))
    # The Keras losses (functions, and the classes called on a batch: reductions, weights) are
    # Python over the ops, with arguments of their own.
    from rustape.keras import losses

    for name in losses.__all__:
        obj = getattr(losses, name)
        if name in ("get", "Loss"):
            continue
        if isinstance(obj, type):

            def call(y_true: Any, y_pred: Any, sample_weight: Any = None, __cls: type = obj) -> Any:
                return __cls()(y_true, y_pred, sample_weight=sample_weight)

            obj = call
        seen.setdefault(id(obj), (f"keras.losses.{name}", obj))
    return sorted(seen.values(), key=lambda item: item[0])


def run_programs(
    seed: int, count: int, first: int, verbose: bool, start: Callable[[int, random.Random], Any]
) -> int:
    """Runs cases `first .. first + count` of `seed` in this process: `start(case, rng)` makes
    a case's program and `program.run()` runs it. Prints one line per case started (so a crash
    names its case) and exits 1 on a finding."""
    for case in range(first, first + count):
        print(f"case {case}", flush=True)
        program = start(case, random.Random(seed * 1_000_003 + case))
        try:
            program.run()
        except Finding as e:
            print(
                json.dumps({"finding": str(e), "seed": seed, "case": case, "program": program.log}),
                flush=True,
            )
            if verbose:
                traceback.print_exc()
            return 1
        if verbose:
            print("\n".join(program.log))
    print("batch done", flush=True)
    return 0


def run_batch(seed: int, count: int, first: int, verbose: bool) -> int:
    """Runs cases `first .. first + count` of `seed` in this process (see `run_programs`)."""
    import warnings

    import numpy as np
    import rustape as rt

    warnings.simplefilter("ignore")
    ops = operations(rt)
    return run_programs(seed, count, first, verbose, lambda _, rng: Program(rt, np, rng, ops))


def _capped() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def fuzz(
    seconds: float,
    seed: int,
    batch: int = CASES_PER_BATCH,
    max_cases: int | None = None,
    script: str | None = None,
) -> dict[str, Any]:
    """Runs batches in capped subprocesses for about `seconds` (and at most `max_cases` cases:
    a fixed prefix of the seed's sequence); returns a report. `script` is the fuzzer whose
    `--batch` runs (this file's by default; fuzz_models.py shares the machinery)."""
    start, cases, batches, first = time.monotonic(), 0, 0, 0
    while time.monotonic() - start < seconds and (max_cases is None or first < max_cases):
        if max_cases is not None:
            batch = min(batch, max_cases - first)
        try:
            proc = subprocess.run(
                [
                    sys.executable,
                    os.path.abspath(script or __file__),
                    "--batch",
                    str(seed),
                    str(first),
                    str(batch),
                ],
                capture_output=True,
                text=True,
                timeout=BATCH_TIMEOUT,
                preexec_fn=_capped,
                check=False,
            )
            out, code = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            code = "timeout"
        lines = out.splitlines()
        started = [int(line.split()[1]) for line in lines if line.startswith("case ")]
        cases += len(started)
        batches += 1
        findings = [json.loads(line) for line in lines if line.startswith("{")]
        if findings:
            return {"ok": False, "cases": cases, "batches": batches, **findings[0]}
        if code != 0:
            last = started[-1] if started else first
            stderr = "" if code == "timeout" else proc.stderr[-3000:]
            return {
                "ok": False,
                "cases": cases,
                "batches": batches,
                "seed": seed,
                "case": last,
                "finding": f"the process {'hung' if code == 'timeout' else f'died ({code})'} in case {last}",
                "stderr": stderr,
            }
        first += batch
    return {"ok": True, "cases": cases, "batches": batches, "seed": seed}


def command_line(
    doc: str | None,
    default_seconds: float,
    run_batch: Callable[[int, int, int, bool], int],
    fuzz: Callable[..., dict[str, Any]],
) -> int:
    """The command line of a fuzzer script (this one, fuzz_models.py): a bounded run, one
    replayed case, or (internally) one batch in its subprocess."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=default_seconds)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases")
    parser.add_argument(
        "--case", type=int, default=None, help="replay one case of --seed, verbosely"
    )
    parser.add_argument(
        "--batch", nargs=3, type=int, metavar=("SEED", "FIRST", "COUNT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.batch:
        return run_batch(args.batch[0], args.batch[2], args.batch[1], False)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    if args.case is not None:
        return run_batch(seed, 1, args.case, True)
    report = fuzz(args.seconds, seed, max_cases=args.cases)
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


def main() -> int:
    return command_line(__doc__, 90.0, run_batch, fuzz)


if __name__ == "__main__":
    sys.exit(main())
