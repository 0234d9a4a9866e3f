"""DLPack with PyTorch (and JAX when installed): both directions, zero-copy where the memory
allows, values equal. Run in the peers' venv (benches/requirements-peers.txt), e.g.

    PYTHONPATH=python /path/to/venv-peers/bin/python benches/interop_peers.py

The test suite covers NumPy; this script covers the peers the suite does not install. It exits
with status 1 if a check fails.
"""
from __future__ import annotations

import sys

import numpy as np

import rustape as rt


def check(label: str, ok: bool) -> bool:
    print(f"{'ok  ' if ok else 'FAIL'} {label}")
    return ok


def with_torch() -> list[bool]:
    import torch

    results = []
    # torch -> rustape: a contiguous CPU tensor is shared.
    a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    t = rt.from_dlpack(a)
    shared = np.shares_memory(np.asarray(t), a.numpy())
    results.append(check("torch -> rt: float32 [3, 4] shared, values equal", shared and np.array_equal(t.numpy(), a.numpy())))
    s = torch.arange(10, dtype=torch.float64)[::2]
    results.append(check("torch -> rt: a strided view is copied, values equal", np.array_equal(rt.from_dlpack(s).numpy(), s.numpy())))
    # rustape -> torch: the tensor's storage, no copy.
    x = rt.constant(np.arange(6.0).reshape(2, 3))
    try:
        b = torch.from_dlpack(x)
        results.append(check("rt -> torch: float64 [2, 3] shared, values equal", np.shares_memory(b.numpy(), np.asarray(x)) and np.array_equal(b.numpy(), x.numpy())))
    except Exception as e:  # noqa: BLE001  (report what torch says)
        results.append(check(f"rt -> torch: {type(e).__name__}: {e}", False))
    # gradients through an imported tensor
    with rt.GradientTape() as tape:
        tape.watch(t)
        y = rt.reduce_sum(t * t)
    results.append(check("gradient through a torch-owned tensor", np.array_equal(tape.gradient(y, t).numpy(), 2 * a.numpy())))
    print(f"torch {torch.__version__}")
    return results


def with_jax() -> list[bool]:
    import jax.numpy as jnp

    a = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    t = rt.from_dlpack(a)
    results = [check("jax -> rt: values equal", np.array_equal(t.numpy(), np.asarray(a)))]
    import jax

    b = jax.dlpack.from_dlpack(rt.constant(np.arange(4.0, dtype=np.float32)))
    results.append(check("rt -> jax: values equal", np.array_equal(np.asarray(b), np.arange(4.0))))
    return results


def main() -> int:
    results: list[bool] = []
    for name, run in [("torch", with_torch), ("jax", with_jax)]:
        try:
            __import__(name)
        except ImportError:
            print(f"skip {name}: not installed")
            continue
        results += run()
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
