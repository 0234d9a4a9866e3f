"""One test per class of defect that must never come back: failed allocations (a memory-capped
subprocess gets MemoryError naming the op, never an abort), sizes that overflow, hangs on
recursive structures and empty axes, deadlocks (custom gradients taking the caller's lock or
running their own Jacobian), fork after a parallel pass, Ctrl-C during a long Jacobian,
reference cycles through a tape, accuracy of float32 sums at 16M elements, and integer
arguments out of range."""

from __future__ import annotations

import _thread
import gc
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import weakref
from typing import Any

import numpy as np
import pytest
import rustape as rt

MEMORY_CAP = 3 << 30  # address space of the capped subprocesses: enough to import, not for 8 GiB


def run_capped(code: str, cap: int = MEMORY_CAP, timeout: float = 120.0) -> tuple[int, str, str]:
    """Runs `code` in a fresh interpreter with its address space capped at `cap` bytes."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
    )
    return proc.returncode, proc.stdout, proc.stderr


# -- allocation -----------------------------------------------------------------------------

ALLOCATIONS = {
    "ones": "rt.ones([2**30, 8])",
    "zeros": "rt.zeros([2**31, 4], dtype=rt.float64)",
    "fill": "rt.fill([2**30, 8], 1.5)",
    "eye": "rt.eye(2**17)",
    "linspace": "rt.linspace(0.0, 1.0, 2**33)",
    "range": "rt.range(2**33)",
    "one_hot": "rt.one_hot(rt.zeros([2**16], dtype=rt.int32), 2**16)",
    "random.normal": "rt.random.normal([2**31, 2])",
    "pad": "rt.pad(rt.ones([2, 2]), [[0, 2**31], [0, 2**2]])",
    "tile": "rt.tile(rt.ones([2, 2]), [2**16, 2**16])",
    "broadcast_to": "rt.broadcast_to(rt.ones([1, 1]), [2**16, 2**16])",
    "add": "rt.add(rt.ones([2**16, 1]), rt.ones([1, 2**16]))",
    "matmul": "rt.matmul(rt.ones([2**16, 1]), rt.ones([1, 2**16]))",
    "tensordot": "rt.tensordot(rt.ones([2**16]), rt.ones([2**16]), axes=0)",
    "concat": "rt.concat([rt.ones([2**27])] * 16, 0)",
}


def test_failed_allocations_raise_memory_error_naming_the_op() -> None:
    code = f"""
        import json
        import rustape as rt
        out = {{}}
        for name, expr in {ALLOCATIONS!r}.items():
            try:
                eval(expr)
                out[name] = "no error"
            except MemoryError as e:
                out[name] = "MemoryError: " + str(e)
            except Exception as e:
                out[name] = type(e).__name__ + ": " + str(e)
        print(json.dumps(out))
    """
    rc, out, err = run_capped(code)
    assert rc == 0, f"the capped process died (rc {rc}): {err[-2000:]}"
    results = json.loads(out.strip().splitlines()[-1])
    for name, outcome in results.items():
        assert outcome.startswith("MemoryError: "), f"{name}: {outcome}"
        assert "bytes" in outcome and "allocate" in outcome, f"{name}: {outcome}"


def test_a_jacobian_asks_for_the_memory_it_needs() -> None:
    # parallel_iterations bounds rows in flight; it never makes a Jacobian reserve for that many.
    code = """
        import numpy as np
        import rustape as rt
        x = rt.constant(np.ones(2**16, np.float32))
        e = rt.zeros([0])
        with rt.GradientTape(persistent=True) as tape:
            tape.watch([x, e])
            y = x * 2.0
        j = tape.jacobian(y, e, parallel_iterations=10**6, unconnected_gradients="zero")
        assert tuple(j.shape) == (2**16, 0)
        x = rt.constant(np.ones(512, np.float32))
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        j = tape.jacobian(y, x, parallel_iterations=10**6)
        assert np.array_equal(j.numpy(), np.diag(np.full(512, 2.0, np.float32)))
        print("ok")
    """
    rc, out, err = run_capped(code, cap=2 << 30)
    assert rc == 0 and out.strip().endswith("ok"), err[-2000:]


def test_a_huge_result_of_a_jacobian_is_a_memory_error() -> None:
    code = """
        import rustape as rt
        x = rt.ones([2**17])
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * 3.0
        try:
            tape.jacobian(y, x)
        except MemoryError as e:
            print("MemoryError", e)
    """
    rc, out, err = run_capped(code)
    assert rc == 0 and out.startswith("MemoryError"), (out, err[-2000:])


def test_a_huge_jacobian_fails_before_its_rows_run_while_recording() -> None:
    """Inside a persistent tape's context (the rows joined by recorded ops) the result's size
    is checked before the 5M rows run: an error at once, not minutes of work first."""
    code = """
        import time, warnings
        import rustape as rt
        warnings.simplefilter("ignore")
        y = rt.zeros([5, 10**6])
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(y)
            start = time.monotonic()
            try:
                tape.jacobian(y * 1.0, y)
            except (MemoryError, ValueError) as e:
                print(type(e).__name__, round(time.monotonic() - start, 3), e)
    """
    rc, out, err = run_capped(code, timeout=60.0)
    assert rc == 0 and out.split()[0] in ("MemoryError", "ValueError"), (out, err[-2000:])
    assert float(out.split()[1]) < 5.0, out


# -- sizes that overflow and integer arguments out of range --------------------------------


@pytest.mark.parametrize(
    "expr",
    [
        "rt.zeros([2**32, 2**32])",
        "rt.ones([2**40, 2**40])",
        "rt.fill([2**32, 2**32], 1.0)",
        "rt.constant(1.0, shape=[2**32, 2**32])",
        "rt.reshape(rt.ones([2]), [2**32, 2**32, 0])",
        "rt.broadcast_to(rt.ones([1, 1]), [2**32, 2**32])",
        "rt.tile(rt.ones([2, 2]), [2**62, 2**62])",
        "rt.eye(2**32)",
        "rt.eye(-3)",
        "rt.random.normal([2**32, 2**32])",
        "rt.one_hot([1], 2**70)",
        "rt.one_hot([1], -1)",
        "rt.linspace(0.0, 1.0, -1)",
        "rt.linspace(0.0, 1.0, 2**70)",
        "rt.pad(rt.ones([2]), [[2**63, 2**63]])",
        "rt.random.set_seed(2**80)",
        "rt.random.normal([2], seed=2**80)",
        "rt.reduce_sum(rt.ones([2]), axis=2**70)",
        "rt.linalg.diag([1.0, 2.0], num_rows=2**40, num_cols=2**40)",
        "rt.linalg.diag([1.0, 2.0], k=2**62, num_rows=2**62)",
        "rt.linalg.band_part(rt.ones([2, 2]), 2**70, 0)",
        "rt.linalg.lstsq(rt.ones([2, 2]), rt.ones([2, 1]), l2_regularizer=2**1100)",
        "rt.nn.dropout(rt.ones([2]), 0.5, seed=2**80)",
    ],
)
def test_out_of_range_sizes_and_integers_are_value_errors(expr: str) -> None:
    with pytest.raises(ValueError):
        eval(expr)


def test_jacobian_parallel_iterations_must_be_positive() -> None:
    x = rt.constant([1.0, 2.0])
    for bad in (-1, 0):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        with pytest.raises(ValueError, match="parallel_iterations"):
            tape.jacobian(y, x, parallel_iterations=bad)


def test_huge_slice_bounds_clamp() -> None:
    x = rt.constant([1, 2, 3])
    np.testing.assert_array_equal(x[0 : 2**70].numpy(), [1, 2, 3])
    np.testing.assert_array_equal(x[-(2**70) : 2].numpy(), [1, 2])
    np.testing.assert_array_equal(x[:: 2**70].numpy(), [1])


# -- hangs ------------------------------------------------------------------------------------


def test_structures_that_contain_themselves_are_value_errors() -> None:
    x = rt.constant([1.0])
    loop: list = [x]
    loop.append(loop)
    with rt.GradientTape() as tape:
        with pytest.raises(ValueError, match="contains itself"):
            tape.watch(loop)
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="contains itself"):
        tape.gradient(y, loop)
    table: dict[str, Any] = {"x": x}
    table["self"] = table
    with pytest.raises(ValueError, match="contains itself"):
        rt.nest.flatten(table)


def test_empty_axes_beside_huge_ones_finish_at_once() -> None:
    start = time.perf_counter()
    z = rt.zeros([2**40, 0])
    assert rt.reduce_sum(z, axis=0).shape == (0,)
    assert rt.reduce_max(z, axis=0).shape == (0,)
    # Logical reductions of an empty tensor fill their result with the identity, without a
    # walk over the (here 2^28) empty lanes.
    b = rt.zeros([2**28, 0], dtype=rt.bool)
    assert rt.math.reduce_all(b).numpy() and not rt.math.reduce_any(b).numpy()
    assert rt.math.reduce_all(b, axis=1).numpy().all()
    assert rt.math.reduce_any(b, axis=-1, keepdims=True).shape == (2**28, 1)
    assert rt.math.reduce_all(rt.zeros([2**40, 0], dtype=rt.bool), axis=0).shape == (0,)
    e = rt.zeros([0])
    with rt.GradientTape() as tape:
        tape.watch(e)
        y = rt.tile(e, [2**62])
    assert tape.gradient(y, e).shape == (0,)
    # Ops that loop over lanes (scans, softmax, sorts) and split into any number of parts.
    w = rt.zeros([0, 4, 2**40], dtype=rt.float64)
    assert rt.math.cumprod(w, axis=0).shape == (0, 4, 2**40)
    assert rt.cumsum(w, axis=1).shape == (0, 4, 2**40)
    assert rt.nn.softmax(w, axis=0).shape == (0, 4, 2**40)
    assert rt.sort(rt.zeros([2**40, 0]), axis=0).shape == (2**40, 0)
    assert rt.argsort(rt.zeros([2**40, 0])).shape == (2**40, 0)
    assert len(rt.split(rt.zeros([0, 3]), 10**5)) == 10**5
    with pytest.raises(ValueError, match="split"):
        rt.split(rt.zeros([0, 3]), 2**62)
    with pytest.raises(ValueError, match="split"):
        rt.split(rt.zeros([6]), [2**62, 2**62, 2**62, -1])
    assert time.perf_counter() - start < 5.0


def test_jacobian_of_an_unconnected_source_is_immediate() -> None:
    x = rt.zeros([400_000])
    z = rt.ones([400_000])
    with rt.GradientTape() as tape:
        tape.watch([x, z])
        y = z * z
    start = time.perf_counter()
    assert tape.jacobian(y, x) is None
    assert time.perf_counter() - start < 2.0


# -- accuracy at scale ------------------------------------------------------------------------

N16M = 2**24 + 3


def test_float32_sums_of_16m_elements_are_accurate() -> None:
    x = rt.fill([N16M], 0.1)
    exact = N16M * float(np.float32(0.1))
    assert abs(float(rt.reduce_sum(x)) - exact) / exact < 1e-6
    assert abs(float(rt.reduce_mean(x)) - float(np.float32(0.1))) < 1e-7
    rng = np.random.default_rng(0)
    values = rng.uniform(0.0, 1.0, size=N16M).astype(np.float32)
    exact = float(np.sum(values.astype(np.float64)))
    assert abs(float(rt.reduce_sum(values)) - exact) / exact < 1e-6
    # The same down the rows (a bias gradient's layout).
    cols = rt.reduce_sum(rt.reshape(x[: 2**24], [2**23, 2]), axis=0).numpy()
    np.testing.assert_allclose(cols, 2**23 * float(np.float32(0.1)), rtol=1e-6)


def test_a_bias_gradient_over_16m_rows_is_accurate() -> None:
    layer = rt.keras.layers.Dense(1)
    x = rt.ones([2**24, 1])
    with rt.GradientTape() as tape:
        y = layer(x)
        loss = rt.reduce_sum(y * 0.1)
    grad_bias = tape.gradient(loss, layer.bias)
    exact = 2**24 * float(np.float32(0.1))
    assert abs(float(grad_bias[0]) - exact) / exact < 1e-6


# -- callbacks: threads, locks, fork, signals, cycles -------------------------------------------


def _scaled(lock: Any = None, inner_jacobian: bool = False) -> Any:
    @rt.custom_gradient
    def scaled(x: Any) -> Any:
        def grad(dy: Any) -> Any:
            if lock is not None:
                with lock:  # the caller holds it: only its own thread may take it again
                    pass
            if inner_jacobian:
                result: dict[str, Any] = {}

                def work() -> None:
                    v = rt.constant(np.arange(64.0))
                    with rt.GradientTape() as t:
                        t.watch(v)
                        w = rt.tanh(v) * v
                    result["j"] = t.jacobian(w, v)

                worker = threading.Thread(target=work)
                worker.start()
                worker.join()
                assert result["j"].shape == (64, 64)
            return dy * 3.0

        return x * 3.0, grad

    return scaled


def _jacobian_in_thread(fn: Any, timeout: float = 60.0) -> Any:
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread below
            result["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    assert not worker.is_alive(), "deadlocked"
    if "error" in result:
        raise result["error"]
    return result["value"]


def test_custom_gradients_may_take_a_lock_the_caller_holds() -> None:
    lock = threading.RLock()
    scaled = _scaled(lock=lock)
    x = rt.constant(np.linspace(-1.0, 1.0, 200))

    def run() -> Any:
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x) * x
        with lock:
            return tape.jacobian(y, x)

    j = _jacobian_in_thread(run)
    np.testing.assert_allclose(np.diag(j.numpy()), 6.0 * np.linspace(-1.0, 1.0, 200))


def test_custom_gradients_may_run_a_jacobian_on_another_thread() -> None:
    scaled = _scaled(inner_jacobian=True)
    x = rt.constant(np.linspace(-1.0, 1.0, 16))

    def run() -> Any:
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x)
        return tape.jacobian(y, x)

    j = _jacobian_in_thread(run)
    np.testing.assert_allclose(j.numpy(), 3.0 * np.eye(16))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_runs_parallel_ops() -> None:
    code = """
        import os, sys
        import numpy as np
        import rustape as rt
        big = rt.ones([1 << 22])
        float(rt.reduce_sum(rt.exp(big) * big))  # a parallel pass: the pool is running
        x = rt.constant(np.linspace(0.0, 1.0, 256))
        pid = os.fork()
        if pid == 0:
            total = float(rt.reduce_sum(rt.exp(big) * big))
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = rt.sin(x) * x
            j = tape.jacobian(y, x)
            os._exit(0 if j.shape == (256, 256) and total > 0 else 3)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
    """
    rc, out, err = run_capped(code, cap=8 << 30, timeout=120)
    assert rc == 0 and out.strip() == "child 0", (out, err[-2000:])


def test_ctrl_c_interrupts_a_long_jacobian_promptly() -> None:
    rng = np.random.default_rng(0)
    w = rt.constant(rng.standard_normal((1024, 1024)) / 32.0)
    x = rt.constant(rng.standard_normal(1024))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x
        for _ in range(12):
            y = rt.tanh(rt.linalg.matvec(w, y))
        head = y[:3]
    # A process started in the background by a shell without job control inherits SIGINT
    # ignored, and then `interrupt_main` does nothing: Python's own handler, for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in range(100):  # long enough to be interrupted (one call runs for seconds)
                tape.jacobian(y, x)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - start < 2.0
    # The tape is still usable.
    small = tape.jacobian(head, x)
    assert small.shape == (3, 1024)


def test_a_tape_referenced_from_its_custom_gradient_is_collected() -> None:
    gc.collect()

    def make() -> Any:
        x = rt.constant([1.0, 2.0])
        tape = rt.GradientTape(persistent=True)

        @rt.custom_gradient
        def f(v: Any) -> Any:
            def grad(dy: Any) -> Any:
                assert tape is not None  # the closure holds the tape: a cycle through it
                return dy

            return v * 1.0, grad

        with tape:
            tape.watch(x)
            y = f(x)
        assert tape.gradient(y, x) is not None
        return weakref.ref(tape)

    ref = make()
    gc.collect()
    assert ref() is None, "the tape and its custom gradient were never collected"


def test_exceptions_from_custom_gradients_come_out_as_themselves() -> None:
    class Custom(Exception):
        pass

    @rt.custom_gradient
    def f(v: Any) -> Any:
        def grad(dy: Any) -> Any:
            raise Custom("from the gradient function")

        return v * 1.0, grad

    x = rt.constant([1.0])
    for _ in range(100):  # none is lost or mixed up, however many
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        with pytest.raises(Custom, match="from the gradient function"):
            tape.gradient(y, x)


@pytest.mark.slow
def test_gradients_through_more_than_2_24_outputs_are_right() -> None:
    n = 2**24 + 2
    x = rt.zeros([n])
    with rt.GradientTape() as tape:
        tape.watch(x)
        parts = rt.unstack(x)
        y = parts[n - 1] * 3.0 + parts[1]
    g = tape.gradient(y, x).numpy()
    assert (g[1], g[n - 1], g[0]) == (1.0, 3.0, 0.0) and g.sum() == 4.0


def test_bindings_take_no_bare_numbers() -> None:
    """A pyfunction parameter typed usize/isize/i64/f64/... makes pyo3 raise OverflowError for
    2**70: integer and number parameters take a Python object and go through the helpers of
    src/python/error.rs (int_arg, count_arg, axis_arg, axis_or, number_arg, ...)."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2] / "src" / "python"
    function = re.compile(
        r"#\[pyfunction\][^{]*?\bfn\s+(\w+)\s*(?:<[^>(]*>)?\(([^)]*)\)", re.DOTALL
    )
    numeric = re.compile(r":\s*(Option<)?(usize|isize|u64|i64|u32|i32|u8|f64|f32)>?$")
    bad = [
        f"{path.name}: {match.group(1)}({param.strip()})"
        for path in sorted(root.glob("*.rs"))
        for match in function.finditer(path.read_text())
        for param in match.group(2).split(",")
        if numeric.search(param.strip())
    ]
    assert not bad, f"pyfunctions with bare numeric parameters: {bad}"
