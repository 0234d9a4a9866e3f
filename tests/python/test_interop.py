"""Zero-copy exchange with NumPy (DLPack both ways, the buffer protocol), `rt.config` and the
progress bars. (PyTorch's side of DLPack is checked by benches/interop_peers.py, run with the
peers' venv: the suite does not depend on torch.)"""

from __future__ import annotations

import gc
import logging
import sys
import warnings

import numpy as np
import pytest
import rustape as rt


def _shares(a: object, b: np.ndarray) -> bool:
    return bool(np.shares_memory(np.asarray(a), b))


# -- DLPack in ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_from_dlpack_shares_a_contiguous_array(dtype: type) -> None:
    a = np.arange(12, dtype=dtype).reshape(3, 4)
    t = rt.from_dlpack(a)
    assert t.dtype.name == np.dtype(dtype).name and t.shape == (3, 4)
    assert _shares(t, a)
    np.testing.assert_array_equal(t.numpy(), a)


def test_an_imported_tensor_is_differentiable_and_keeps_its_producer_alive() -> None:
    a = np.array([1.0, 2.0, 3.0])
    t = rt.from_dlpack(a)
    del a
    gc.collect()
    with rt.GradientTape() as tape:
        tape.watch(t)
        y = rt.reduce_sum(t * t)
    np.testing.assert_array_equal(tape.gradient(y, t).numpy(), [2.0, 4.0, 6.0])
    assert float(y) == 14.0


def test_from_dlpack_copies_what_it_cannot_share() -> None:
    strided = np.arange(10.0)[::2]
    t = rt.from_dlpack(strided)
    np.testing.assert_array_equal(t.numpy(), [0.0, 2.0, 4.0, 6.0, 8.0])
    assert not _shares(t, strided)
    transposed = np.arange(6.0).reshape(2, 3).T
    np.testing.assert_array_equal(rt.from_dlpack(transposed).numpy(), transposed)
    mask = np.array([True, False, True])
    np.testing.assert_array_equal(rt.from_dlpack(mask).numpy(), mask)
    a = np.arange(4.0)
    copied = rt.from_dlpack(a, copy=True)
    assert not _shares(copied, a)
    a[0] = 99.0
    assert float(copied[0]) == 0.0
    with pytest.raises(ValueError, match="copy=False"):
        rt.from_dlpack(strided, copy=False)


def test_from_dlpack_takes_capsules_once() -> None:
    capsule = rt.experimental.dlpack.to_dlpack(rt.constant([1.0, 2.0]))
    t = rt.experimental.dlpack.from_dlpack(capsule)
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="consumed once"):
        rt.from_dlpack(capsule)
    assert rt.from_dlpack is rt.experimental.dlpack.from_dlpack


def test_from_dlpack_errors_name_the_problem() -> None:
    with pytest.raises(TypeError, match="from_dlpack: DLPack dtype"):
        rt.from_dlpack(np.arange(3, dtype=np.uint8))
    with pytest.raises(TypeError, match="from_dlpack: expected a DLPack capsule"):
        rt.from_dlpack("not an array")
    with pytest.raises(ValueError, match="CPU"):
        rt.from_dlpack(np.zeros(2), device="cuda")


# -- DLPack out and the buffer protocol ----------------------------------------------------


def test_numpy_takes_a_tensor_without_a_copy_read_only() -> None:
    t = rt.constant(np.arange(6.0).reshape(2, 3))
    a = np.from_dlpack(t)
    assert _shares(t, a) and not a.flags.writeable
    np.testing.assert_array_equal(a, t.numpy())
    assert t.__dlpack_device__() == (1, 0)
    small = rt.constant([1.0, 2.0])  # elements inline in the tensor object
    np.testing.assert_array_equal(np.from_dlpack(small), [1.0, 2.0])
    copied = np.from_dlpack(t, copy=True)
    assert copied.flags.writeable and not _shares(t, copied)


def test_dlpack_export_arguments() -> None:
    t = rt.constant([1.0])
    with pytest.raises(BufferError, match="stream must be None"):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="device"):
        t.__dlpack__(dl_device=(2, 0))
    legacy = t.__dlpack__()
    assert "dltensor" in repr(legacy)
    v = rt.Variable([3.0, 4.0])
    np.testing.assert_array_equal(np.from_dlpack(v), [3.0, 4.0])


def test_the_buffer_protocol_is_read_only_and_zero_copy() -> None:
    t = rt.constant(np.arange(6, dtype=np.int64).reshape(2, 3))
    m = memoryview(t)
    assert (m.format, m.shape, m.strides, m.readonly) == ("q", (2, 3), (24, 8), True)
    assert m.tolist() == [[0, 1, 2], [3, 4, 5]]
    a = np.frombuffer(t, dtype=np.int64)
    assert _shares(t, a)
    assert memoryview(rt.constant(True)).format == "?"
    assert memoryview(rt.Variable([1.5])).tolist() == [1.5]
    import ctypes

    view = (ctypes.c_byte * 128)()  # room for a Py_buffer
    get_buffer = ctypes.pythonapi.PyObject_GetBuffer
    get_buffer.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    with pytest.raises(BufferError, match="immutable"):
        get_buffer(t, ctypes.addressof(view), 1)  # PyBUF_WRITABLE


# -- rt.config ----------------------------------------------------------------------------


def test_thread_count() -> None:
    n = rt.config.get_num_threads()
    assert n >= 1
    rt.config.set_num_threads(n)  # the size it has: fine
    with pytest.raises(
        ValueError, match="set_num_threads: the number of threads must be at least 1"
    ):
        rt.config.set_num_threads(0)
    # Never tries to spawn them (a failed start would leave the pool unusable).
    with pytest.raises(ValueError, match="at most 1024"):
        rt.config.set_num_threads(2**31 - 1)


def test_thread_count_honours_the_environment(tmp_path) -> None:
    import subprocess

    code = "import rustape as rt; print(rt.config.get_num_threads())"
    env = {"RAYON_NUM_THREADS": "3", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "3"
    code = (
        "import rustape as rt; rt.config.set_num_threads(1); print(rt.config.get_num_threads());"
        "x = rt.ones([1 << 20]); print(float(rt.reduce_sum(x * 2.0)));"
        "rt.config.set_num_threads(2)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.stdout.split() == ["1", "2097152.0"]
    assert "already runs with 1 threads" in run.stderr


def test_nonscalar_target_warning_is_off_by_default_and_can_be_turned_on() -> None:
    x = rt.constant([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
    rt.config.set_nonscalar_target_warning(True)
    try:
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            s = rt.reduce_sum(y)
        with pytest.warns(UserWarning, match=r"the target of shape \(2,\) is summed"):
            tape.gradient(y, x)
        with rt.GradientTape() as tape:
            tape.watch(x)
            s = rt.reduce_sum(x * x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tape.gradient(s, x)  # a scalar: no warning
    finally:
        rt.config.set_nonscalar_target_warning(False)


def test_log_level_and_debug_messages(caplog: pytest.LogCaptureFixture) -> None:
    rt.config.set_log_level("DEBUG")
    try:
        assert rt.config.get_log_level() == logging.DEBUG
        x = rt.constant([1.0, 2.0])
        with caplog.at_level(logging.DEBUG, logger="rustape"), rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(x * x)
        tape.gradient(y, x)
        assert any("GradientTape.gradient: 2 recorded ops" in r.message for r in caplog.records)
    finally:
        rt.config.set_log_level(logging.WARNING)
    assert rt.config.get_log_level() == logging.WARNING


# -- progress bars ------------------------------------------------------------------------


def test_progress_bars_count_the_rows(capfd: pytest.CaptureFixture[str]) -> None:
    x = rt.constant(np.linspace(-1.0, 1.0, 40))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.sin(x) * x
        s = rt.reduce_sum(y)
    plain = tape.jacobian(y, x)
    assert capfd.readouterr().err == ""
    with_bar = tape.jacobian(y, x, progress=True)
    np.testing.assert_array_equal(with_bar.numpy(), plain.numpy())
    err = capfd.readouterr().err
    assert "jacobian: 100%|" in err and "| 40/40 [" in err and err.endswith("rows/s]\n")
    batch = rt.reshape(x, [8, 5])
    with rt.GradientTape() as tape:
        tape.watch(batch)
        z = rt.tanh(batch)
    tape.batch_jacobian(z, batch, progress=True)
    err = capfd.readouterr().err
    assert "batch_jacobian: 100%|" in err and "| 5/5 [" in err
    tape2 = rt.GradientTape(persistent=True)
    with tape2:
        tape2.watch(x)
        s = rt.reduce_sum(x**3)
    h = tape2.hessian(s, x, progress=True)
    np.testing.assert_allclose(np.diag(h.numpy()), 6 * x.numpy())
    assert "hessian: 100%|" in capfd.readouterr().err


def test_progress_bar_over_a_loop(capfd: pytest.CaptureFixture[str]) -> None:
    assert list(rt.utils.progress_bar(range(4), label="train")) == [0, 1, 2, 3]
    err = capfd.readouterr().err
    assert "train: 100%|" in err and "| 4/4 [" in err and "steps/s]" in err
    assert list(rt.utils.progress_bar(iter("ab"), total=2, enabled=False)) == ["a", "b"]
    assert capfd.readouterr().err == ""
    with pytest.raises(TypeError, match="total="):
        list(rt.utils.progress_bar(iter("ab")))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_tensors_share_memory_both_ways(dtype: type) -> None:
    a = (np.arange(6.0) + 1j * np.arange(6.0)[::-1]).astype(dtype).reshape(2, 3)
    t = rt.from_dlpack(a)
    assert t.dtype.name == np.dtype(dtype).name
    assert np.shares_memory(np.asarray(t), a)
    back = np.from_dlpack(t)
    np.testing.assert_array_equal(back, a)
    assert np.shares_memory(back, np.asarray(t))
    view = memoryview(t)
    assert view.format == ("Zf" if dtype == np.complex64 else "Zd")
    np.testing.assert_array_equal(np.asarray(view), a)
