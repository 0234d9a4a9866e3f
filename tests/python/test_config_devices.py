"""`rt.config`'s TensorFlow device and threading names and the graph-building names that
mean nothing eagerly (`name_scope`, `control_dependencies`, ...): what a TensorFlow script's
set-up lines see, so they run unchanged."""

from __future__ import annotations

import pytest
import rustape as rt


def test_device_lists_hold_the_cpu_and_no_gpu():
    (cpu,) = rt.config.list_physical_devices()
    assert cpu.name == "/physical_device:CPU:0" and cpu.device_type == "CPU"
    assert (
        rt.config.list_physical_devices("GPU") == []
        and rt.config.list_physical_devices("gpu") == []
    )
    assert rt.config.list_physical_devices("CPU") == [cpu]
    assert rt.config.experimental.list_physical_devices("CPU") == [cpu]
    assert [d.name for d in rt.config.list_logical_devices()] == ["/device:CPU:0"]
    assert rt.config.get_visible_devices("CPU") == [cpu]
    with pytest.raises(TypeError, match="device_type"):
        rt.config.list_physical_devices(3)


def test_the_gpu_set_up_of_a_tensorflow_script_runs():
    gpus = rt.config.list_physical_devices("GPU")
    for gpu in gpus:
        rt.config.experimental.set_memory_growth(gpu, True)
    rt.config.set_visible_devices([], "GPU")
    rt.config.set_visible_devices(rt.config.list_physical_devices("CPU"))
    with pytest.raises(ValueError, match="cannot be hidden"):
        rt.config.set_visible_devices([], "CPU")
    with pytest.raises(ValueError, match="non-GPU"):
        rt.config.experimental.set_memory_growth(rt.config.list_physical_devices()[0], True)


def test_threading_names_read_and_keep_the_pool_size():
    n = rt.config.get_num_threads()
    assert rt.config.threading.get_intra_op_parallelism_threads() == n
    rt.config.threading.set_intra_op_parallelism_threads(n)
    rt.config.threading.set_inter_op_parallelism_threads(3)
    assert rt.config.threading.get_inter_op_parallelism_threads() == 3
    rt.config.threading.set_inter_op_parallelism_threads(0)
    with pytest.raises(ValueError, match=">= 0"):
        rt.config.threading.set_inter_op_parallelism_threads(-1)
    with pytest.raises(TypeError, match="integer"):
        rt.config.threading.set_inter_op_parallelism_threads(1.5)


def test_eager_only_names():
    assert rt.executing_eagerly() and rt.config.functions_run_eagerly()
    rt.config.run_functions_eagerly(False)
    assert rt.config.functions_run_eagerly()
    assert rt.no_op() is None and rt.group(rt.constant(1.0)) is None
    with rt.control_dependencies([rt.constant(1.0)]), rt.init_scope():
        y = rt.constant(2.0) * 3.0
    assert float(y) == 6.0
    assert rt.get_current_name_scope() == ""
    with rt.name_scope("a") as outer:
        with rt.name_scope("b") as inner:
            assert rt.get_current_name_scope() == "a/b"
        assert (outer, inner) == ("a/", "a/b/")
    assert rt.get_current_name_scope() == ""
    assert rt.get_static_value(rt.constant([1, 2])).tolist() == [1, 2]
    assert rt.TensorShape([None, 3]).as_list() == [None, 3]
    assert rt.config.get_soft_device_placement()
