"""The code examples of the `tf.GradientTape` API page (seeds 000, 002 and 003: the r2.0 page
in its three renderings), with `tf.` replaced by `rt.`, and the values the page documents."""

import numpy as np
import pytest
import rustape as rt


def test_gradient_of_x_squared_is_6():
    x = rt.constant(3.0)
    with rt.GradientTape() as g:
        g.watch(x)
        y = x * x
    dy_dx = g.gradient(y, x)  # Will compute to 6.0
    assert dy_dx.numpy() == 6.0
    assert dy_dx.dtype == rt.float32
    assert dy_dx.shape == ()


def test_nested_tapes_second_derivative_is_2():
    x = rt.constant(3.0)
    with rt.GradientTape() as g:
        g.watch(x)
        with rt.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)  # Will compute to 6.0
    d2y_dx2 = g.gradient(dy_dx, x)  # Will compute to 2.0
    assert dy_dx.numpy() == 6.0
    assert d2y_dx2.numpy() == 2.0


def test_persistent_tape_108_and_6():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    dz_dx = g.gradient(z, x)  # 108.0 (4*x^3 at x = 3)
    dy_dx = g.gradient(y, x)  # 6.0
    assert dz_dx.numpy() == 108.0
    assert dy_dx.numpy() == 6.0
    del g  # Drop the reference to the tape


def test_watch_accessed_variables_false():
    variable_a = rt.Variable(3.0)
    variable_b = rt.Variable(5.0)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(variable_a)
        y = variable_a**2  # Gradients will be available for `variable_a`.
        z = variable_b**3  # No gradients will be available since `variable_b` is
        # not being watched.
    da, db = tape.gradient([y, z], [variable_a, variable_b])
    assert da.numpy() == 6.0
    assert db is None
    assert [v.name for v in tape.watched_variables()] == [variable_a.name]


def test_unbuilt_layers_watch_nothing():
    inputs = rt.constant(np.ones((4, 3), dtype=np.float32))
    a = rt.keras.layers.Dense(32)
    b = rt.keras.layers.Dense(32)

    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a.variables)  # Since `a.build` has not been called at this point
        # `a.variables` will return an empty list and the
        # tape will not be watching anything.
        result = b(a(inputs))
        grads = tape.gradient(result, a.variables)  # The result of this computation will be
        # a list of `None`s since a's variables
        # are not being watched.
    assert len(a.variables) == 2
    assert grads == [None, None]
    assert result.shape == (4, 32)


def test_batch_jacobian_example():
    with rt.GradientTape() as g:
        x = rt.constant([[1.0, 2.0], [3.0, 4.0]], dtype=rt.float32)
        g.watch(x)
        y = x * x
    batch_jacobian = g.batch_jacobian(y, x)
    # batch_jacobian is [[[2,  0], [0,  4]], [[6,  0], [0,  8]]]
    np.testing.assert_array_equal(batch_jacobian.numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])
    assert batch_jacobian.dtype == rt.float32


def test_jacobian_example():
    with rt.GradientTape() as g:
        x = rt.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    jacobian = g.jacobian(y, x)
    # jacobian value is [[2., 0.], [0., 4.]]
    np.testing.assert_array_equal(jacobian.numpy(), [[2.0, 0.0], [0.0, 4.0]])


def _loss_fn(w):
    return w * w  # d/dw = 2w


def _other_loss_fn(w):
    return 5.0 * w  # d/dw = 5


def test_reset_is_equivalent_to_a_new_tape():
    w = rt.Variable(3.0)

    with rt.GradientTape() as t:
        loss = _loss_fn(w)
    with rt.GradientTape() as t:
        loss += _other_loss_fn(w)
    first = t.gradient(loss, w)  # Only differentiates other_loss_fn, not loss_fn

    # The following is equivalent to the above
    with rt.GradientTape() as t:
        loss = _loss_fn(w)
        t.reset()
        loss += _other_loss_fn(w)
    second = t.gradient(loss, w)  # Only differentiates other_loss_fn, not loss_fn

    assert first.numpy() == 5.0
    assert second.numpy() == 5.0


@pytest.mark.parametrize("k, expected", [(1.0, 5.0), (100.0, 11.0)])
def test_reset_inside_control_flow(k, expected):
    w = rt.Variable(3.0)
    with rt.GradientTape() as t:
        loss = _loss_fn(w)  # 9.0
        if loss > k:
            t.reset()
        loss += _other_loss_fn(w)
    assert t.gradient(loss, w).numpy() == expected


def test_stop_recording_around_gradient():
    model = rt.keras.layers.Dense(3)
    inputs = rt.constant(np.arange(8, dtype=np.float32).reshape(4, 2))

    def compute_loss(model):
        return rt.reduce_sum(model(inputs) ** 2)

    with rt.GradientTape(persistent=True) as t:
        loss = compute_loss(model)
        recorded = len(t)
        with t.stop_recording():
            # The gradient computation below is not traced, saving memory.
            grads = t.gradient(loss, model.variables)
        assert len(t) == recorded
    assert [g.shape for g in grads] == [(2, 3), (3,)]
    # d/db sum((xK + b)^2) = 2 * sum_rows(xK + b)
    y = inputs.numpy() @ model.kernel.numpy() + model.bias.numpy()
    np.testing.assert_allclose(grads[1].numpy(), 2 * y.sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(grads[0].numpy(), 2 * inputs.numpy().T @ y, rtol=1e-5)
