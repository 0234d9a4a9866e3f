"""The behaviours API.md promises (tensors, variables, the tape), beyond the seed examples."""

import gc
import re
import warnings

import numpy as np
import pytest
import rustape as rt

# -- tensors: dtypes and conversion -----------------------------------------------------------


@pytest.mark.parametrize(
    "value, dtype",
    [
        (1.0, rt.float32),
        ([1.0, 2.0], rt.float32),
        ([[1.0], [2.0]], rt.float32),
        (1, rt.int32),
        ([1, 2, 3], rt.int32),
        (True, rt.bool),
        (np.array([1.0, 2.0]), rt.float64),
        (np.array([1.0], dtype=np.float32), rt.float32),
        (np.array([1, 2], dtype=np.int64), rt.int64),
        (np.array([1, 2], dtype=np.int32), rt.int32),
        (np.float64(2.5), rt.float64),
    ],
)
def test_constant_dtypes(value, dtype):
    t = rt.constant(value)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(value))
    c = rt.convert_to_tensor(value)
    assert c.dtype == dtype


def test_constant_with_dtype_and_shape():
    t = rt.constant(1.5, dtype=rt.float64)
    assert t.dtype == rt.float64 and t.numpy() == 1.5
    t = rt.constant(0.0, shape=[2, 3])
    assert t.shape == (2, 3)
    np.testing.assert_array_equal(t.numpy(), np.zeros((2, 3), np.float32))
    t = rt.constant([1, 2, 3, 4], shape=[2, 2], dtype=rt.float32)
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])


def test_dtype_objects():
    assert rt.float32 != rt.float64
    assert rt.constant(1.0).dtype is rt.float32
    assert rt.float32.is_floating and not rt.int32.is_floating
    assert rt.float64.name == "float64"


@pytest.mark.parametrize("dtype", [rt.float32, rt.float64])
def test_python_numbers_take_the_tensor_dtype(dtype):
    x = rt.constant([1.0, 2.0], dtype=dtype)
    for y in (x + 2.0, 2.0 + x, x * 2, 3 * x, x - 1, 1 - x, x / 2, 2 / x, x**2, 2.0**x):
        assert y.dtype == dtype
    np.testing.assert_allclose((2.0 * x).numpy(), [2.0, 4.0])
    np.testing.assert_allclose((1 - x).numpy(), [0.0, -1.0])
    np.testing.assert_allclose((2 / x).numpy(), [2.0, 1.0])
    np.testing.assert_allclose((2.0**x).numpy(), [2.0, 4.0])
    # lists and NumPy arrays too
    assert (x + [1.0, 1.0]).dtype == dtype
    assert (x + np.array([1.0, 1.0], dtype=np.float64)).dtype == dtype
    assert rt.add(x, 1).dtype == dtype


def test_python_numbers_with_int_tensor():
    i = rt.constant([1, 2, 3])
    assert (i + 1).dtype == rt.int32
    np.testing.assert_array_equal((i * 2).numpy(), [2, 4, 6])


def test_float32_plus_float64_is_a_type_error_naming_both():
    a = rt.constant([1.0], dtype=rt.float32)
    b = rt.constant([1.0], dtype=rt.float64)
    with pytest.raises(TypeError) as e:
        a + b
    assert "float32" in str(e.value) and "float64" in str(e.value)
    with pytest.raises(TypeError) as e:
        rt.matmul(rt.ones([2, 2]), rt.ones([2, 2], dtype=rt.float64))
    assert "float32" in str(e.value) and "float64" in str(e.value)


def test_shape_mismatch_is_a_value_error_naming_shapes():
    with pytest.raises(ValueError) as e:
        rt.constant([1.0, 2.0, 3.0]) + rt.constant([1.0, 2.0])
    assert "3" in str(e.value) and "2" in str(e.value)
    with pytest.raises(ValueError) as e:
        rt.matmul(rt.ones([2, 3]), rt.ones([4, 5]))
    msg = str(e.value)
    assert re.search(r"2,\s*3", msg) and re.search(r"4,\s*5", msg), msg


def test_tensor_basics():
    t = rt.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.shape == (2, 3)
    assert isinstance(t.shape, tuple)
    assert t.ndim == 2
    assert len(t) == 2
    np.testing.assert_array_equal(np.asarray(t), t.numpy())
    assert float(rt.constant(2.5)) == 2.5
    assert int(rt.constant(7)) == 7
    assert bool(rt.constant(True)) is True
    assert "2.5" in repr(rt.constant(2.5))
    assert "float32" in repr(t)
    np.testing.assert_array_equal((t > 2.0).numpy(), [[False, False, True], [True, True, True]])
    assert (t > 2.0).dtype == rt.bool
    np.testing.assert_array_equal(t[1].numpy(), [4, 5, 6])
    np.testing.assert_array_equal(t[:, -1].numpy(), [3, 6])
    np.testing.assert_array_equal(t[..., None].numpy(), t.numpy()[..., None])
    np.testing.assert_array_equal(t[::-1, 1:].numpy(), t.numpy()[::-1, 1:])
    np.testing.assert_array_equal((-t).numpy(), -t.numpy())
    np.testing.assert_array_equal(abs(-t).numpy(), t.numpy())
    np.testing.assert_array_equal((t @ rt.transpose(t)).numpy(), t.numpy() @ t.numpy().T)
    np.testing.assert_array_equal((t // 2.0).numpy(), t.numpy() // 2)
    np.testing.assert_array_equal((t % 2.0).numpy(), t.numpy() % 2)


def test_slicing_is_differentiable():
    x = rt.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x[:, 1:] * x[0, None, 1:]) + x[-1, 0]
    g = tape.gradient(y, x)
    xv = x.numpy()
    expected = np.zeros_like(xv)
    expected[:, 1:] += xv[0, 1:]
    expected[0, 1:] += xv[:, 1:].sum(axis=0)
    expected[-1, 0] += 1
    np.testing.assert_allclose(g.numpy(), expected)


# -- variables ------------------------------------------------------------------------------------


def test_variable_basics():
    v = rt.Variable([1.0, 2.0], name="w")
    assert v.shape == (2,)
    assert v.dtype == rt.float32
    assert v.trainable
    assert v.name == "w:0"
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert v.assign([3.0, 4.0]) is v
    np.testing.assert_array_equal(v.value().numpy(), [3.0, 4.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    np.testing.assert_array_equal(v.read_value().numpy(), [3.5, 4.5])
    np.testing.assert_array_equal((v * 2).numpy(), [7.0, 9.0])
    np.testing.assert_array_equal(rt.add(v, 1.0).numpy(), [4.5, 5.5])
    assert rt.Variable(1.0, dtype=rt.float64).dtype == rt.float64
    assert not rt.Variable(1.0, trainable=False).trainable


def test_variable_gradient_sums_over_reads():
    v = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        y = v * v + v  # three reads
    assert tape.gradient(y, v).numpy() == 7.0


def test_assign_after_read_does_not_change_the_recorded_value():
    v = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        a = v * v  # read at 3
        v.assign(10.0)
        b = v * 1.0  # read at 10
        y = a + b
    assert tape.gradient(y, v).numpy() == 7.0  # 2*3 + 1
    assert y.numpy() == 19.0


def test_assign_is_not_recorded():
    v = rt.Variable(3.0)
    with rt.GradientTape() as tape:
        v.assign_add(1.0)
        y = v * 2.0
    assert tape.gradient(y, v).numpy() == 2.0


def test_non_trainable_variables_are_not_watched_automatically():
    v = rt.Variable(3.0, trainable=False)
    with rt.GradientTape() as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    with rt.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert tape.gradient(y, v).numpy() == 6.0


def test_variable_read_outside_tape_is_not_connected():
    v = rt.Variable(3.0)
    read = v * 1.0
    with rt.GradientTape() as tape:
        y = read * 2.0
    assert tape.gradient(y, v) is None


def test_watched_variables_in_creation_order():
    # TensorFlow's order (its tape keeps them in a set ordered by id; see
    # tests/reference/tape_semantics.json, "watched_order_*"), not the order of first watch.
    a, b, c = rt.Variable(1.0, name="a"), rt.Variable(2.0, name="b"), rt.Variable(3.0, name="c")
    with rt.GradientTape() as tape:
        _ = c * b
        _ = a + c
        _ = b * 2.0
    assert [v.name for v in tape.watched_variables()] == ["a:0", "b:0", "c:0"]
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([b, a])
        _ = c * 2.0
    assert [v.name for v in tape.watched_variables()] == ["a:0", "b:0"]


# -- the tape -------------------------------------------------------------------------------------


def test_second_gradient_on_non_persistent_tape_raises():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError):
        tape.jacobian(y, x)


def test_stop_recording_outside_the_tape_raises():
    tape = rt.GradientTape()
    with pytest.raises(RuntimeError), tape.stop_recording():
        pass
    with tape:
        pass
    with pytest.raises(RuntimeError), tape.stop_recording():
        pass


def test_stop_recording_nested_raises_and_resumes():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            with pytest.raises(RuntimeError), tape.stop_recording():
                pass
            y_unrecorded = x * x
        y = x * x * x
    assert tape.gradient([y, y_unrecorded], x).numpy() == 12.0


def test_exception_inside_with_leaves_tapes_consistent():
    x = rt.constant(3.0)
    outer = rt.GradientTape(persistent=True)
    with outer:
        outer.watch(x)
        with pytest.raises(ZeroDivisionError), rt.GradientTape() as inner:
            inner.watch(x)
            _ = x * x
            _ = 1 / 0
        assert rt._rustape.any_tape_recording()  # outer still records
        y = x * x
    assert outer.gradient(y, x).numpy() == 6.0
    # a failing op inside a tape
    with pytest.raises(ValueError), rt.GradientTape() as t:
        t.watch(x)
        rt.constant([1.0, 2.0]) + rt.constant([1.0, 2.0, 3.0])
    assert not rt._rustape.any_tape_recording()
    # later tapes work
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x
    assert tape.gradient(y, x).numpy() == 27.0


def test_inner_tape_can_be_reused_after_exception():
    x = rt.constant(2.0)
    tape = rt.GradientTape(persistent=True)
    with pytest.raises(KeyError), tape:
        tape.watch(x)
        y = x * x
        raise KeyError("boom")
    assert tape.gradient(y, x).numpy() == 4.0
    with tape:  # re-entering after the exception works
        z = y * x
    assert tape.gradient(z, x).numpy() == 12.0


def test_unconnected_gradients():
    x = rt.constant([1.0, 2.0])
    y = rt.constant([[1.0], [2.0]], dtype=rt.float64)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * 2.0
    assert tape.gradient(z, y) is None
    assert tape.gradient(z, y, unconnected_gradients=rt.UnconnectedGradients.NONE) is None
    for mode in (rt.UnconnectedGradients.ZERO, "zero"):
        g = tape.gradient(z, y, unconnected_gradients=mode)
        assert g.shape == (2, 1) and g.dtype == rt.float64
        np.testing.assert_array_equal(g.numpy(), [[0.0], [0.0]])
    assert tape.gradient(z, [x, y], unconnected_gradients="none")[1] is None
    j = tape.jacobian(z, y, unconnected_gradients="zero")
    assert j.shape == (2, 2, 1)
    np.testing.assert_array_equal(j.numpy(), np.zeros((2, 2, 1)))
    assert tape.jacobian(z, y) is None
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(z, x, unconnected_gradients="nope")
    assert rt.UnconnectedGradients("zero") is rt.UnconnectedGradients.ZERO
    assert rt.UnconnectedGradients.NONE.value == "none"


def test_output_gradients():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = rt.reduce_sum(x) * 2.0
    g = tape.gradient(y, x, output_gradients=rt.constant([1.0, 10.0, 100.0]))
    np.testing.assert_allclose(g.numpy(), [2.0, 40.0, 600.0])
    g = tape.gradient(y, x, output_gradients=[0.0, 1.0, 0.0])  # a list works too
    np.testing.assert_allclose(g.numpy(), [0.0, 4.0, 0.0])
    g = tape.gradient([y, z], x, output_gradients=[rt.constant([1.0, 1.0, 1.0]), rt.constant(0.5)])
    np.testing.assert_allclose(g.numpy(), [3.0, 5.0, 7.0])
    g = tape.gradient([y, z], x, output_gradients=[None, rt.constant(0.5)])
    np.testing.assert_allclose(g.numpy(), [3.0, 5.0, 7.0])
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=rt.constant([1.0, 1.0]))


def test_non_scalar_target_is_summed():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.stack([x * x, x * 3.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [5.0, 7.0])


def test_nested_sources_and_targets():
    a = rt.constant(1.0)
    b = rt.constant(2.0)
    c = rt.Variable(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y1 = a * b
        y2 = b * c
    g = tape.gradient({"first": y1, "second": [y2]}, {"a": a, "rest": [b, (c,)]})
    assert set(g) == {"a", "rest"}
    assert isinstance(g["rest"], list) and isinstance(g["rest"][1], tuple)
    assert g["a"].numpy() == 2.0
    assert g["rest"][0].numpy() == 4.0  # a + c
    assert g["rest"][1][0].numpy() == 2.0
    g = tape.gradient(y1, (a, b))
    assert isinstance(g, tuple) and [t.numpy() for t in g] == [2.0, 1.0]
    j = tape.jacobian(y2, {"b": b, "c": c})
    assert j["b"].numpy() == 3.0 and j["c"].numpy() == 2.0


def test_watch_nested_structure():
    a = rt.constant(1.0)
    b = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch({"x": [a], "y": (b,)})
        y = a * b
    assert [g.numpy() for g in tape.gradient(y, [a, b])] == [2.0, 1.0]


def test_watch_non_tensor_raises():
    with rt.GradientTape() as tape:
        with pytest.raises(ValueError):
            tape.watch(3.0)
        with pytest.raises(ValueError):
            tape.watch([rt.constant(1.0), np.ones(2)])


def test_watching_an_int_tensor_warns_and_gives_none():
    i = rt.constant(3)
    with rt.GradientTape() as tape:
        with pytest.warns(UserWarning, match="must be floating"):
            tape.watch(i)
        y = i * i
    assert tape.gradient(y, i) is None


def test_int_tensor_warning_names_dtype():
    with rt.GradientTape() as tape, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tape.watch(rt.constant([1, 2]))
    messages = [str(w.message) for w in caught]
    assert any("int32" in m for m in messages), messages


def test_wrong_source_type_raises_type_error():
    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="Tensor"):
        tape.gradient(y, 3.0)


def test_a_variable_target_is_the_variable_itself():
    # TensorFlow differentiates a variable's handle: gradient(v, v) is ones (see
    # test_tape_semantics.py for the reference values).
    v = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        _ = v * 2.0
    assert float(tape.gradient(v, v)) == 1.0


def test_gradient_inside_persistent_context_warns_and_is_recorded():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        with pytest.warns(UserWarning, match="persistent"):
            dy = tape.gradient(y, x)
    assert dy.numpy() == 27.0
    assert tape.gradient(dy, x).numpy() == 18.0


def test_gradient_inside_non_persistent_context():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            dy = tape.gradient(y, x)
    assert dy.numpy() == 6.0


def test_gradient_of_a_value_not_on_the_tape():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
    assert tape.gradient(x, x).numpy() == 1.0
    y = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
    assert tape.gradient(y, x) is None


def test_third_order_with_three_tapes():
    x = rt.constant(2.0)
    with rt.GradientTape() as t3:
        t3.watch(x)
        with rt.GradientTape() as t2:
            t2.watch(x)
            with rt.GradientTape() as t1:
                t1.watch(x)
                y = x**4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (32.0, 48.0, 48.0)


def test_two_tapes_record_only_what_they_watch():
    a = rt.constant(1.0)
    b = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as ta, rt.GradientTape(persistent=True) as tb:
        ta.watch(a)
        tb.watch(b)
        ya = a * 3.0
        yb = b * 4.0
    assert len(ta) == 1 and len(tb) == 1
    with ta, tb:
        y = ya + yb
    assert len(ta) == 2 and len(tb) == 2
    assert ta.gradient(y, a).numpy() == 3.0
    assert ta.gradient(y, b) is None
    assert tb.gradient(y, b).numpy() == 4.0
    assert tb.gradient(y, a) is None
    # computed outside both tapes: recorded on neither
    assert ta.gradient(ya + yb, a) is None


def test_reset_keeps_recording():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        _ = x * x
        tape.reset()
        tape.watch(x)
        y = x * 5.0
    assert tape.gradient(y, x).numpy() == 5.0


def test_jacobian_shapes_and_nesting():
    x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    s = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, s])
        y = x * s
    j = tape.jacobian(y, [x, s])
    assert j[0].shape == (2, 2, 2, 2)
    assert j[1].shape == (2, 2)
    np.testing.assert_array_equal(j[1].numpy(), x.numpy())
    np.testing.assert_array_equal(j[0].numpy(), 2.0 * np.eye(4).reshape(2, 2, 2, 2))
    for pfor in (False, True):
        for pi in (None, 1, 3):
            jj = tape.jacobian(y, x, parallel_iterations=pi, experimental_use_pfor=pfor)
            np.testing.assert_array_equal(jj.numpy(), j[0].numpy())


def test_batch_jacobian_first_dimension_mismatch():
    x = rt.constant(np.ones((3, 2), np.float32))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x, axis=0, keepdims=True)  # shape (1, 2)
    with pytest.raises(ValueError):
        tape.batch_jacobian(y, x)


def test_batch_jacobian_zero_unconnected():
    x = rt.constant(np.ones((3, 2), np.float32))
    z = rt.constant(np.ones((3, 4), np.float32))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.batch_jacobian(y, z) is None
    bj = tape.batch_jacobian(y, z, unconnected_gradients="zero")
    assert bj.shape == (3, 2, 4)
    np.testing.assert_array_equal(bj.numpy(), np.zeros((3, 2, 4)))


def test_introspection():
    x = rt.constant(np.ones((10, 10), np.float32))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.sin(x)
        z = rt.reduce_sum(y * y)
    assert len(tape) >= 3
    assert tape.nbytes >= 400  # sin saved x (10*10 float32)
    text = tape.summary()
    assert "sin" in text.lower()
    dot = tape.to_dot()
    assert dot.startswith("digraph") and "->" in dot
    # A Python number is a constant, not an id.
    with tape:
        w = z * 0.5
    last = tape.summary().splitlines()[-1]
    assert last.split()[1] == "multiply" and "const]" in last
    assert 'label="const"' in tape.to_dot()
    del w
    tape.gradient(z, x)
    tape.reset()
    assert len(tape) == 0 and tape.nbytes == 0


def test_non_persistent_tape_frees_memory():
    x = rt.constant(np.ones((100,), np.float32))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.exp(x))
    assert tape.nbytes > 0
    tape.gradient(y, x)
    assert tape.nbytes == 0


def test_hessian_without_nested_tapes():
    tape_cls = rt.GradientTape
    x = rt.constant([1.0, 2.0], dtype=rt.float64)
    with tape_cls(persistent=True) as tape:
        tape.watch(x)
        y = rt.reduce_sum(x**3) + x[0] * x[1]
    h = tape.hessian(y, x)
    np.testing.assert_allclose(h.numpy(), [[6.0, 1.0], [1.0, 12.0]])


def test_tapes_are_garbage_collected():
    import weakref

    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        _ = x * x
    ref = weakref.ref(tape)
    del tape
    gc.collect()
    assert ref() is None


def test_output_gradients_for_nested_targets():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        targets = {"sq": x * x, "lin": x * 3.0}
    g = tape.gradient(
        targets, x, output_gradients={"sq": [1.0, 0.0], "lin": rt.constant([0.0, 2.0])}
    )
    np.testing.assert_allclose(g.numpy(), [2.0, 6.0])


def test_same_source_twice():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g1, g2 = tape.gradient(y, [x, x])
    assert g1.numpy() == 4.0 and g2.numpy() == 4.0


def test_stop_recording_pauses_only_that_tape():
    x = rt.constant(2.0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
    assert outer.gradient(y, x).numpy() == 4.0
    assert inner.gradient(y, x) is None


def test_entering_a_recording_tape_twice_raises():
    tape = rt.GradientTape()
    with tape, pytest.raises(RuntimeError):
        tape.__enter__()
    assert not rt._rustape.any_tape_recording()


def test_tapes_are_per_thread():
    import threading

    x = rt.constant(2.0)
    results = {}

    def other_thread():
        # the main thread's tape is not active here: nothing is recorded on it
        results["y"] = x * x

    with rt.GradientTape() as tape:
        tape.watch(x)
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        _ = x * 3.0
    assert len(tape) == 1
    assert tape.gradient(results["y"], x) is None


def test_jacobian_and_hessian_through_custom_gradient():
    @rt.custom_gradient
    def square(x):
        def grad(dy):
            return dy * 2.0 * x

        return x * x, grad

    x = rt.constant([1.0, 3.0], dtype=rt.float64)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(square(x) * x)  # sum x^3
        g = inner.gradient(y, x)  # 3 x^2
    h = outer.jacobian(g, x)  # diag(6 x)
    np.testing.assert_allclose(g.numpy(), [3.0, 27.0])
    np.testing.assert_allclose(h.numpy(), [[6.0, 0.0], [0.0, 18.0]])
