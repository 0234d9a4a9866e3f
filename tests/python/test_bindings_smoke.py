"""Smoke tests of the extension module `rustape._rustape` alone (src/python/): conversion
rules, the Tensor/Variable protocol, the Tape binding, custom gradients, error mapping."""

import threading
import time

import numpy as np
import pytest
from rustape import _rustape as r


def grad(f, *xs, unconnected="none"):
    tape = r.Tape()
    tape.push()
    try:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    finally:
        tape.exit()
    return tape.gradient([y], list(xs), None, unconnected)


# -- conversion -------------------------------------------------------------------------------


def test_python_values_take_tensorflow_dtypes():
    assert r.constant(1.5).dtype == r.float32
    assert r.constant(2).dtype == r.int32
    assert r.constant(2**40).dtype == r.int64
    assert r.constant(True).dtype == r.bool
    assert r.constant([1, 2.5]).dtype == r.float32
    assert r.constant([[1, 2], [3, 4]]).shape == (2, 2)
    assert r.constant([]).dtype == r.float32 and r.constant([]).shape == (0,)
    assert r.constant((1.0, 2.0)).shape == (2,)


def test_numpy_values_keep_their_dtype():
    assert r.constant(np.array([1.0, 2.0])).dtype == r.float64
    assert r.constant(np.arange(3, dtype=np.int64)).dtype == r.int64
    assert r.constant(np.float64(2.0)).dtype == r.float64
    assert r.constant(np.array([True])).dtype == r.bool
    strided = np.arange(12.0).reshape(3, 4)[:, ::-2]
    np.testing.assert_array_equal(r.constant(strided).numpy(), strided)
    np.testing.assert_array_equal(r.constant(strided.T).numpy(), strided.T)
    with pytest.raises(TypeError, match="float16"):
        r.constant(np.ones(2, dtype=np.float16))


def test_dtype_argument_and_hints():
    assert r.constant(1, dtype=r.float64).dtype == r.float64
    assert r.constant([1, 2], dtype="float32").dtype == r.float32
    assert r.constant(np.arange(2), dtype=np.float32).dtype == r.float32
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int32"):
        r.constant(1) + 2.5
    with pytest.raises(TypeError, match="Cannot convert"):
        r.constant(2.5, dtype=r.int32)
    assert (r.constant(1.0, dtype=r.float64) + 2).dtype == r.float64
    assert (2 * r.constant([1.0], dtype=r.float64)).dtype == r.float64
    assert (np.ones(2) + r.constant([1.0, 2.0])).dtype == r.float32


def test_tensors_of_different_dtypes_do_not_mix():
    with pytest.raises(TypeError, match="float32 and float64"):
        r.constant(1.0) + r.constant(1.0, dtype=r.float64)


def test_ragged_and_unsupported_values():
    with pytest.raises(ValueError, match="non-rectangular"):
        r.constant([[1.0], [2.0, 3.0]])
    with pytest.raises(ValueError, match="non-rectangular"):
        r.constant([[1.0], 2.0])
    with pytest.raises(TypeError):
        r.constant(object())  # a string is a string tensor (test_string_dtype.py)
    with pytest.raises(TypeError):
        r.constant(None)


def test_lists_of_tensors_are_stacked_differentiably():
    x = r.constant(3.0)
    (g,) = grad(lambda x: r.reduce_sum(r.constant([x, x * x, 1.0])), x)
    assert float(g) == pytest.approx(7.0)


def test_constant_shape_reshapes_or_broadcasts():
    np.testing.assert_array_equal(r.constant(5.0, shape=(2, 3)).numpy(), np.full((2, 3), 5.0))
    assert r.constant([1, 2, 3, 4], shape=[2, 2]).shape == (2, 2)
    with pytest.raises(TypeError):
        r.constant([1, 2, 3], shape=[2, 2])


# -- DType ------------------------------------------------------------------------------------


def test_dtype_objects():
    d = r.constant(1.0).dtype
    assert d is r.float32
    assert d == "float32" and d == np.float32 and d == np.dtype("float32")
    assert d != r.float64 and d != None
    assert repr(d) == "rt.float32"
    assert d.is_floating and not d.is_integer
    assert r.int64.is_integer
    assert d.as_numpy_dtype is np.float32
    assert r.bool.name == "bool"
    assert {r.float32: 1}["float32"] == 1
    assert r.as_dtype("float64") is r.float64


# -- Tensor protocol --------------------------------------------------------------------------


def test_repr_and_str_follow_tensorflow():
    assert repr(r.constant([1.0, 2.0])) == (
        "<rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    )
    assert str(r.constant([1.0, 2.0])) == "rt.Tensor([1. 2.], shape=(2,), dtype=float32)"
    assert repr(r.constant(2.0)) == "<rt.Tensor: shape=(), dtype=float32, numpy=2.0>"
    v = r.Variable(2.0, name="v")
    assert repr(v) == "<rt.Variable 'v:0' shape=() dtype=float32, numpy=2.0>"


def test_scalars_len_bool_hash():
    t = r.constant([[1.0, 2.0, 3.0]])
    assert t.shape == (1, 3) and t.ndim == 2 and len(t) == 1
    assert float(r.constant([2.5])) == 2.5 and int(r.constant(7)) == 7
    assert bool(r.constant(1.0)) and not bool(r.constant(False))
    assert [10, 20, 30][r.constant(1)] == 20
    with pytest.raises(ValueError):
        bool(r.constant([1.0, 2.0]))
    with pytest.raises(ValueError):
        float(r.constant([1.0, 2.0]))
    with pytest.raises(TypeError):
        len(r.constant(1.0))
    with pytest.raises(TypeError):
        hash(r.constant(1.0))
    assert [float(row) for row in r.constant([1.0, 2.0])] == [1.0, 2.0]


def test_operators_and_reflected_forms():
    a = r.constant([1.0, 2.0])
    np.testing.assert_allclose((a + 1).numpy(), [2, 3])
    np.testing.assert_allclose((1 - a).numpy(), [0, -1])
    np.testing.assert_allclose((2.0 * a).numpy(), [2, 4])
    np.testing.assert_allclose((1 / a).numpy(), [1, 0.5])
    np.testing.assert_allclose((a // 1.5).numpy(), [0, 1])
    np.testing.assert_allclose((a % 1.5).numpy(), [1, 0.5])
    np.testing.assert_allclose((a**2).numpy(), [1, 4])
    np.testing.assert_allclose((2**a).numpy(), [2, 4])
    np.testing.assert_allclose((-a).numpy(), [-1, -2])
    np.testing.assert_allclose(abs(-a).numpy(), [1, 2])
    assert (+a) is not None
    m = r.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose((m @ m).numpy(), [[7, 10], [15, 22]])
    np.testing.assert_allclose(([[1.0, 0.0]] @ m).numpy(), [[1, 2]])
    # NumPy scalars and arrays on the left defer to the tensor.
    assert isinstance(np.float64(2) * a, r.Tensor)
    assert isinstance(np.ones(2) + a, r.Tensor)


def test_comparisons():
    a = r.constant([1.0, 2.0])
    assert (a < 1.5).dtype == r.bool
    np.testing.assert_array_equal((a == [1.0, 3.0]).numpy(), [True, False])
    np.testing.assert_array_equal((a >= 2).numpy(), [False, True])
    assert (a == None) is False
    assert (a != None) is True
    assert (a == r.constant([1.0, 2.0, 3.0])) is False


def test_getitem():
    x = np.arange(24.0).reshape(2, 3, 4)
    t = r.constant(x)
    for key in [
        0,
        -1,
        (1, 2),
        slice(None, None, -1),
        (slice(None), 1),
        (Ellipsis, 0),
        (None, 0),
        (0, slice(1, None, 2), None),
        (Ellipsis, slice(None, None, -2)),
        np.int64(1),
        (0, -1, -1),
    ]:
        np.testing.assert_array_equal(t[key].numpy(), x[key], err_msg=repr(key))
    np.testing.assert_array_equal(t[[1, 0]].numpy(), x[[1, 0]])
    np.testing.assert_array_equal(t[np.array([-1])].numpy(), x[np.array([-1])])
    np.testing.assert_array_equal(t[r.constant([1, 1]), 1:].numpy(), x[[1, 1], 1:])
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(IndexError):
        t[0, 0, 4]
    with pytest.raises(TypeError):
        t[1.5]


def test_getitem_is_differentiable():
    x = r.constant([1.0, 2.0, 3.0])
    (g,) = grad(lambda x: r.reduce_sum(x[::2] * x[::2]) + x[1] + r.reduce_sum(x[[0, 0]]), x)
    np.testing.assert_allclose(g.numpy(), [4.0, 1.0, 6.0])


def test_numpy_interop():
    t = r.constant([[1.0, 2.0], [3.0, 4.0]])
    view = np.asarray(t)
    assert not view.flags.writeable
    np.testing.assert_array_equal(view, [[1, 2], [3, 4]])
    copy = t.numpy()
    copy[0, 0] = 9.0
    assert t.numpy()[0, 0] == 1.0
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert isinstance(r.constant(2.0).numpy(), np.float32)
    assert np.array(r.Variable([1, 2])).tolist() == [1, 2]


# -- Variable ---------------------------------------------------------------------------------


def test_variable_basics():
    v = r.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.trainable and v.shape == (2,) and v.dtype == r.float32
    assert v.assign([3.0, 4.0]) is v
    assert v.assign_add([1.0, 1.0]) is v
    assert v.assign_sub([0.5, 0.5]) is v
    np.testing.assert_allclose(v.numpy(), [3.5, 4.5])
    np.testing.assert_allclose((v * 2).numpy(), [7.0, 9.0])
    np.testing.assert_allclose(v[1].numpy(), 4.5)
    assert r.Variable(1, dtype=r.float64).dtype == r.float64
    assert r.Variable(lambda: r.ones([2])).shape == (2,)
    with pytest.raises(ValueError):
        v.assign([1.0, 2.0, 3.0])


def test_variable_reads_are_watched_and_summed():
    v = r.Variable(3.0)
    tape = r.Tape()
    tape.push()
    y = v * v + v
    tape.exit()
    assert tape.watched_variables()[0] is v
    (g,) = tape.gradient([y], [v], None, "none")
    assert float(g) == 7.0


def test_variable_watch_scope_returns_the_users_objects():
    v, w = r.Variable(1.0), r.Variable(2.0)
    r.begin_variable_watch()
    _ = v + w + v
    seen = r.end_variable_watch()
    assert len(seen) == 2 and seen[0] is v and seen[1] is w


# -- Tape -------------------------------------------------------------------------------------


def test_gradient_of_a_square():
    x = r.constant(3.0)
    tape = r.Tape()
    tape.push()
    tape.watch(x)
    y = x * x
    tape.exit()
    (g,) = tape.gradient([y], [x], None, "none")
    assert float(g) == 6.0
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient([y], [x], None, "none")


def test_tape_misuse_and_watch_errors():
    tape = r.Tape()
    with pytest.raises(ValueError, match="watch expects a Tensor or Variable"):
        tape.watch(3.0)
    with pytest.raises(RuntimeError):
        tape.pause_recording()
    tape.push()
    with pytest.raises(RuntimeError):
        tape.push()
    tape.exit()


def test_unconnected_output_gradients_and_introspection():
    x, z = r.constant([1.0, 2.0]), r.constant([5.0])
    tape = r.Tape(persistent=True)
    tape.push()
    tape.watch(x)
    y = r.exp(x)
    assert tape.is_recording and len(tape) == 1 and tape.nbytes > 0
    tape.exit()
    assert tape.persistent and not tape.is_recording
    assert "exp" in tape.summary() and tape.to_dot().startswith("digraph")
    gx, gz = tape.gradient([y], [x, z], [r.constant([1.0, 0.0])], "zero")
    np.testing.assert_allclose(gx.numpy(), [np.e, 0.0], rtol=1e-6)
    np.testing.assert_array_equal(gz.numpy(), [0.0])
    assert tape.gradient([y], [z], None, "none") == [None]
    with pytest.raises(ValueError):
        tape.gradient([y], [x], None, "sometimes")


def test_jacobians_and_hessian():
    x = r.constant([1.0, 2.0, 3.0])
    tape = r.Tape(persistent=True)
    tape.push()
    tape.watch(x)
    y = x * x
    s = r.reduce_sum(x * x * x)
    tape.exit()
    (j,) = tape.jacobian(y, [x], "none", None, True)
    np.testing.assert_allclose(j.numpy(), np.diag([2.0, 4.0, 6.0]))
    (h,) = tape.hessian(s, [x])
    np.testing.assert_allclose(h.numpy(), np.diag([6.0, 12.0, 18.0]))
    xb = r.constant([[1.0, 2.0], [3.0, 4.0]])
    tape = r.Tape()
    tape.push()
    tape.watch(xb)
    yb = xb * xb
    tape.exit()
    bj = tape.batch_jacobian(yb, xb, "none", None, True)
    assert bj.shape == (2, 2, 2)
    np.testing.assert_allclose(bj.numpy()[1], np.diag([6.0, 8.0]))


def _timed_jacobian_beside_a_ticker(depth):
    """Runs a sequential Jacobian of a chain of `depth` blocks while another thread stamps the
    time every millisecond; returns the call's start, end and the stamps."""
    x = r.constant(np.linspace(0.0, 1.0, 2500), dtype=r.float32)
    tape = r.Tape(persistent=True)
    tape.push()
    tape.watch(x)
    y = x
    for _ in range(depth):
        y = r.tanh(r.sin(y) * y + r.exp(y)) * r.cos(y)
    tape.exit()
    stamps, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    # The sequential path keeps one core free for the ticker: what is measured is the GIL.
    tape.jacobian(y, [x], "none", None, False)
    t1 = time.perf_counter()
    stop.set()
    ticker.join()
    return t0, t1, stamps


def test_backward_passes_release_the_gil():
    # A longer chain until one call lasts long enough to see the other thread run in it.
    depth = 4
    t0, t1, stamps = _timed_jacobian_beside_a_ticker(depth)
    while t1 - t0 < 0.1 and depth < 256:
        depth *= 2
        t0, t1, stamps = _timed_jacobian_beside_a_ticker(depth)
    assert t1 - t0 >= 0.1, f"a depth-{depth} jacobian took only {t1 - t0:.3f}s"
    inside = [s for s in stamps if t0 + 0.02 < s < t1 - 0.02]
    assert len(inside) >= 5, f"no other thread ran during a {t1 - t0:.2f}s jacobian"


# -- custom gradients, gradcheck --------------------------------------------------------------


def test_custom_gradient():
    x = r.constant(2.0)
    tape = r.Tape()
    tape.push()
    tape.watch(x)
    (y,) = r.record_custom_gradient("scaled_square", [x], [x * x], lambda dys: [dys[0] * 10.0])
    tape.exit()
    assert float(y) == 4.0
    (g,) = tape.gradient([y], [x], None, "none")
    assert float(g) == 10.0


def test_custom_gradient_is_recorded_by_an_outer_tape():
    x = r.constant(3.0)
    outer = r.Tape()
    outer.push()
    outer.watch(x)
    inner = r.Tape()
    inner.push()
    inner.watch(x)
    (y,) = r.record_custom_gradient("cube", [x], [x * x * x], lambda dys: [dys[0] * 3.0 * x * x])
    inner.exit()
    (dy,) = inner.gradient([y], [x], None, "none")
    outer.exit()
    (d2y,) = outer.gradient([dy], [x], None, "none")
    assert float(dy) == 27.0 and float(d2y) == 18.0


class _Boom(Exception):
    pass


def test_custom_gradient_errors_propagate():
    x = r.constant(2.0)

    def explode(dys):
        raise _Boom("from grad_fn")

    for grad_fn, error in [
        (explode, _Boom),
        (lambda dys: [dys[0], dys[0]], ValueError),
        (lambda dys: [r.constant([1.0, 2.0])], ValueError),
    ]:
        tape = r.Tape()
        tape.push()
        tape.watch(x)
        (y,) = r.record_custom_gradient("bad", [x], [x * x], grad_fn)
        tape.exit()
        with pytest.raises(error):
            tape.gradient([y], [x], None, "none")


def test_gradcheck():
    xs = [r.constant([0.5, 1.5], dtype=r.float64), r.constant([2.0, -1.0], dtype=r.float64)]
    assert r.gradcheck(lambda t: r.sin(t[0]) * t[1], xs)
    with pytest.raises(ValueError, match="finite differences"):
        r.gradcheck(lambda t: r.stop_gradient(t[0]) * t[0], xs[:1])
    with pytest.raises(ZeroDivisionError):
        r.gradcheck(lambda t: 1 / 0, xs[:1])


# -- ops and errors ---------------------------------------------------------------------------


def test_error_kinds():
    with pytest.raises(ValueError, match="reshape"):
        r.reshape(r.constant([1.0, 2.0, 3.0]), [2, 2])
    with pytest.raises(TypeError, match="sin"):
        r.sin(r.constant(1))
    with pytest.raises(ValueError):
        r.reduce_sum(r.constant([1.0]), axis=3)


def test_a_few_ops():
    x = r.constant([[1.0, 2.0], [3.0, 4.0]])
    assert float(r.reduce_sum(x, axis=[0, 1])) == 10.0
    assert r.reduce_mean(x, axis=1, keepdims=True).shape == (2, 1)
    assert r.argmax(x, axis=1).dtype == r.int64
    mean, var = r.moments(x, axes=[0])
    np.testing.assert_allclose(mean.numpy(), [2.0, 3.0])
    np.testing.assert_allclose(var.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(r.where(x > 2.0, x, 0.0).numpy(), [[0, 0], [3, 4]])
    assert r.where(x > 2.0).shape == (2, 2)
    assert r.range(5).dtype == r.int32 and r.range(0.0, 1.0, 0.5).dtype == r.float32
    assert r.zeros([2, 3]).shape == (2, 3) and r.eye(3).shape == (3, 3)
    np.testing.assert_allclose(r.einsum("ij,jk->ik", x, x).numpy(), (x @ x).numpy())
    np.testing.assert_allclose(r.one_hot([0, 2], 3).numpy(), [[1, 0, 0], [0, 0, 1]])
    assert [p.shape for p in r.unstack(x)] == [(2,), (2,)]
    assert r.fill([2], 3).dtype == r.int32
    r.set_seed(3)
    a = r.random_normal([3])
    r.set_seed(3)
    np.testing.assert_array_equal(a.numpy(), r.random_normal([3]).numpy())
    assert r.stop_gradient(x).shape == (2, 2) and r.cast(x, r.int32).dtype == r.int32
