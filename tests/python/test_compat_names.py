"""TensorFlow names around the math (rt.newaxis, rt.is_tensor, rt.device, rt.print,
rt.numpy_function, rt.py_function, rt.recompute_grad, rt.vectorized_map), the shape helpers,
and copying/pickling of tensors and variables."""

from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest
import rustape as rt
from conftest import check_gradients


def test_newaxis_and_is_tensor() -> None:
    x = rt.constant([1.0, 2.0])
    assert x[rt.newaxis].shape == (1, 2)
    assert x[:, rt.newaxis].shape == (2, 1)
    assert rt.is_tensor(x) and rt.is_tensor(rt.Variable(1.0))
    assert not rt.is_tensor(np.ones(2)) and not rt.is_tensor(1.0) and not rt.is_tensor([x])


def test_device_is_a_context_that_changes_nothing() -> None:
    with rt.device("/CPU:0"), rt.device("/GPU:0"), rt.device(None):
        y = rt.constant([1.0, 2.0]) * 2.0
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    with pytest.raises(TypeError), rt.device(3):  # type: ignore[arg-type]
        pass


def test_print_writes_values() -> None:
    out = io.StringIO()
    rt.print("x =", rt.constant([1, 2, 3]), rt.constant(2.5), [rt.constant(1)], output_stream=out)
    assert out.getvalue() == "x = [1 2 3] 2.5 [1]\n"
    out = io.StringIO()
    rt.print(rt.range(10), output_stream=out, summarize=2)
    assert out.getvalue() == "[0 1 ... 8 9]\n"
    out = io.StringIO()
    rt.print(rt.range(10), output_stream=out, summarize=-1, sep=",", end="")
    assert out.getvalue() == "[0 1 2 3 4 5 6 7 8 9]"


def test_numpy_function_is_not_differentiable() -> None:
    x = rt.constant([3.0, 1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.numpy_function(lambda a: np.sort(a) * 2, [x], rt.float32)
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0, 6.0])
    assert y.dtype == rt.float32
    assert tape.gradient(y, x) is None
    a, b = rt.numpy_function(lambda a: (a, a.astype(np.int64)), [x], [rt.float64, rt.int64])
    assert a.dtype == rt.float64 and b.dtype == rt.int64
    with pytest.raises(ValueError, match="Tout"):
        rt.numpy_function(lambda a: (a, a), [x], [rt.float32])


def test_py_function_is_differentiable_as_in_tensorflow() -> None:
    x = rt.constant([1.0, 2.0], dtype=rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.py_function(lambda t: rt.sin(t) * t, [x], rt.float64)
    g = tape.gradient(y, x)
    xs = np.array([1.0, 2.0])
    np.testing.assert_allclose(g.numpy(), np.cos(xs) * xs + np.sin(xs), rtol=1e-14)


def test_recompute_grad_matches_the_plain_function() -> None:
    def f(x: rt.Tensor) -> rt.Tensor:
        return rt.sin(x) * x * x

    def g(x: rt.Tensor) -> rt.Tensor:
        return rt.recompute_grad(f)(x)

    check_gradients(g, [np.array([0.3, -1.2, 2.0])])
    calls = {"n": 0}

    def counted(x: rt.Tensor) -> rt.Tensor:
        calls["n"] += 1
        return f(x)

    x = rt.constant([0.5, 1.5], dtype=rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.recompute_grad(counted)(x)
    assert calls["n"] == 1
    got = tape.gradient(y, x)
    assert calls["n"] == 2  # the backward pass ran f again
    xs = np.array([0.5, 1.5])
    np.testing.assert_allclose(got.numpy(), np.cos(xs) * xs**2 + 2 * xs * np.sin(xs), rtol=1e-14)


def test_recompute_grad_differentiates_the_variables_it_reads() -> None:
    w = rt.Variable([2.0, 3.0], dtype=rt.float64)
    x = rt.constant([1.0, 4.0], dtype=rt.float64)
    block = rt.recompute_grad(lambda t: rt.reduce_sum(rt.tanh(t * w)))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = block(x)
    gx, gw = tape.gradient(y, [x, w])
    d = 1 - np.tanh(np.array([2.0, 12.0])) ** 2
    np.testing.assert_allclose(gx.numpy(), d * [2.0, 3.0], rtol=1e-14)
    np.testing.assert_allclose(gw.numpy(), d * [1.0, 4.0], rtol=1e-14)


def test_vectorized_map_stacks_per_row_results() -> None:
    x = rt.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=rt.float64)
    y = rt.vectorized_map(lambda r: rt.reduce_sum(r * r), x)
    np.testing.assert_array_equal(y.numpy(), [5.0, 25.0, 61.0])
    a, b = rt.vectorized_map(lambda t: (t[0] + t[1], t[0] * 2.0), (x, x))
    assert a.shape == (3, 2) and b.shape == (3, 2)
    check_gradients(lambda t: rt.vectorized_map(lambda r: rt.sin(r) * r[0], t), [x.numpy()])
    with pytest.raises(ValueError, match="first dimension"):
        rt.vectorized_map(lambda t: t[0], (x, rt.ones([2])))


def test_shape_is_a_tuple_with_tensorshape_methods() -> None:
    x = rt.zeros([2, 3, 4])
    s = x.shape
    assert isinstance(s, tuple) and s == (2, 3, 4) and repr(s) == "(2, 3, 4)"
    assert s.as_list() == [2, 3, 4] and s.rank == 3 and s.num_elements() == 24
    assert s[1:].as_list() == [3, 4] and s[0] == 2
    assert x.get_shape() == (2, 3, 4) and x.get_shape().as_list() == [2, 3, 4]
    assert rt.Variable(np.ones((2, 2))).shape.num_elements() == 4
    assert rt.constant(1.0).shape.as_list() == [] and rt.constant(1.0).shape.num_elements() == 1


def test_tensor_device_names_the_cpu() -> None:
    assert rt.constant(1.0).device.endswith("device:CPU:0")
    assert rt.Variable(1.0).device.endswith("device:CPU:0")


def test_tensors_and_variables_copy_and_pickle_by_value() -> None:
    t = rt.constant([[1.0, 2.0]], dtype=rt.float64)
    for back in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert back.dtype == rt.float64
        np.testing.assert_array_equal(back.numpy(), t.numpy())
    v = rt.Variable([1.0, 2.0], name="weights", trainable=False)
    for back in (pickle.loads(pickle.dumps(v)), copy.deepcopy(v)):
        assert isinstance(back, rt.Variable) and back is not v
        assert back.name == "weights:0" and back.trainable is False
        np.testing.assert_array_equal(back.numpy(), [1.0, 2.0])
        back.assign([5.0, 6.0])
        np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# -- indexing like NumPy ---------------------------------------------------------------------------

KEYS = {
    "columns": (slice(None), [2, 0]),
    "ellipsis_then_indices": (Ellipsis, [1, -1]),
    "int_then_indices": (1, [0, 2, 2]),
    "newaxis_before": (None, slice(None), [2]),
    "indices_between": (slice(0, 2), np.array([1, 0]), slice(None, None, -1)),
    "tensor_of_indices": (slice(None), rt.constant([[0, 1], [2, 0]])),
}


@pytest.mark.parametrize("name", sorted(KEYS))
def test_integer_arrays_index_any_axis_like_numpy(name: str) -> None:
    key = KEYS[name]
    value = np.arange(24.0).reshape(2, 3, 4)
    np_key = tuple(np.asarray(k.numpy()) if rt.is_tensor(k) else k for k in key)
    got = rt.constant(value)[key]
    np.testing.assert_array_equal(got.numpy(), value[np_key])
    check_gradients(lambda x: x[key], [value])


def test_a_boolean_mask_selects_like_tensorflow() -> None:
    value = np.array([[1.0, -2.0], [3.0, -4.0]])
    x = rt.constant(value)
    np.testing.assert_array_equal(x[x > 0].numpy(), value[value > 0])
    np.testing.assert_array_equal(x[[True, False]].numpy(), value[[True, False]])
    np.testing.assert_array_equal(x[np.array([False, True])].numpy(), [[3.0, -4.0]])
    check_gradients(lambda t: t[np.array([[True, False], [True, True]])], [value])
    with pytest.raises(TypeError, match="boolean mask"):
        x[x > 0, 0]


def test_indexing_errors_and_clamping() -> None:
    x = rt.constant(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="only one"):
        x[[0], [1]]
    with pytest.raises(IndexError, match="axis 1"):
        x[:, [3]]
    assert x[0:10].shape == (2, 3) and x[:, -10:2].shape == (2, 2) and x[5:].shape == (0, 3)


def test_a_variable_slice_assigns_like_tensorflow() -> None:
    v = rt.Variable([1.0, 2.0, 3.0, 4.0])
    assert v[1:3].assign([9.0, 8.0]) is v
    np.testing.assert_array_equal(v.numpy(), [1.0, 9.0, 8.0, 4.0])
    v[::2].assign_add(rt.constant([10.0, 10.0]))
    v[-1:].assign_sub([4.0])
    np.testing.assert_array_equal(v.numpy(), [11.0, 9.0, 18.0, 0.0])
    m = rt.Variable(np.zeros((2, 3), np.float32))
    m[0, :].assign([1.0, 2.0, 3.0])
    m[:, 2].assign(7.0)
    np.testing.assert_array_equal(m.numpy(), [[1.0, 2.0, 7.0], [0.0, 0.0, 7.0]])
    assert m.dtype == rt.float32
    with pytest.raises(AttributeError, match="immutable"):
        rt.constant([1.0])[0:1].assign([2.0])
    # A slice read on a tape is an ordinary differentiable read.
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(m[0, :] * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, m).numpy(), [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
