"""`rt.custom_gradient`: the TF docs' examples, variables=, nesting, multiple outputs."""

import numpy as np
import pytest
import rustape as rt


@rt.custom_gradient
def log1pexp(x):
    e = rt.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return rt.math.log(1 + e), grad


def test_log1pexp_is_stable():
    x = rt.constant(100.0)
    with rt.GradientTape() as g:
        g.watch(x)
        y = log1pexp(x)
    dy_dx = g.gradient(y, x)
    assert dy_dx.numpy() == 1.0
    assert np.isinf(y.numpy())  # log(1 + exp(100)) overflows float32, as in TF


def test_custom_gradient_replaces_the_gradient():
    @rt.custom_gradient
    def double_grad_identity(x):
        def grad(dy):
            return 2.0 * dy

        return rt.identity(x), grad

    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(double_grad_identity(x) * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [6.0, 6.0])


def test_forward_ops_are_not_recorded():
    @rt.custom_gradient
    def f(x):
        y = rt.sin(x) * rt.cos(x) + x
        return y, lambda dy: dy * 0.0

    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert len(tape) == 1
    assert tape.gradient(y, x).numpy() == 0.0


def test_without_a_tape_returns_the_value():
    @rt.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy

    np.testing.assert_array_equal(f(rt.constant([1.0, 2.0])).numpy(), [2.0, 4.0])


def test_second_order_through_custom_gradient():
    @rt.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x

        return x * x * x, grad

    x = rt.constant(2.0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert dy.numpy() == 12.0
    assert d2y.numpy() == 12.0  # 6x


def test_custom_gradient_inside_gradient_of_gradient_uses_dy():
    # grad_fn's ops on dy are recorded too: d/dx of (dy * clip) with dy from an outer op.
    @rt.custom_gradient
    def scale_grad(x):
        def grad(dy):
            return dy * 10.0

        return x, grad

    x = rt.constant(3.0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = scale_grad(x * x)
        dy = inner.gradient(y, x)  # 10 * 2x = 60
    assert dy.numpy() == 60.0
    assert outer.gradient(dy, x).numpy() == 20.0


def test_variables_keyword():
    v = rt.Variable(2.0)

    @rt.custom_gradient
    def f(x):
        y = x * v

        def grad(dy, variables=None):
            assert variables is not None and len(variables) == 1
            return dy * v, [dy * x * 100.0]

        return y, grad

    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    dx, dv = tape.gradient(y, [x, v])
    assert y.numpy() == 6.0
    assert dx.numpy() == 2.0
    assert dv.numpy() == 300.0
    assert [w.name for w in tape.watched_variables()] == [v.name]


def test_variables_require_the_keyword():
    v = rt.Variable(2.0)

    @rt.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    with rt.GradientTape(), pytest.raises(TypeError, match="variables"):
        f(rt.constant(1.0))


def test_variable_argument_is_an_input_not_a_captured_variable():
    v = rt.Variable(4.0)

    @rt.custom_gradient
    def f(x):
        def grad(dy):
            return dy * 0.5

        return x * 1.0, grad

    with rt.GradientTape() as tape:
        y = f(v)
    assert tape.gradient(y, v).numpy() == 0.5


def test_multiple_outputs_get_zeros_for_unused_outputs():
    seen = []

    @rt.custom_gradient
    def two(x):
        def grad(da, db):
            seen.append((da.numpy().tolist(), db.numpy().tolist()))
            return da * 2.0 + db * 3.0

        return (x * 1.0, x * 1.0), grad

    x = rt.constant([1.0, 1.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        a, _ = two(x)
        y = rt.reduce_sum(a)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 2.0])
    assert seen == [([1.0, 1.0], [0.0, 0.0])]


def test_nested_outputs_and_several_inputs():
    @rt.custom_gradient
    def f(a, b):
        def grad(dy_sum, dy_prod):
            return dy_sum + dy_prod * b, dy_sum + dy_prod * a

        return {"sum": a + b, "prod": a * b}, grad

    a = rt.constant(2.0)
    b = rt.constant(5.0)
    with rt.GradientTape() as tape:
        tape.watch([a, b])
        out = f(a, b)
        y = out["sum"] + out["prod"]
    assert set(out) == {"sum", "prod"}
    ga, gb = tape.gradient(y, [a, b])
    assert (ga.numpy(), gb.numpy()) == (6.0, 3.0)


def test_non_tensor_arguments_get_none():
    @rt.custom_gradient
    def scale(x, k):
        def grad(dy):
            return dy * k, None

        return x * k, grad

    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = scale(x, 3.0)
    assert tape.gradient(y, x).numpy() == 3.0


def test_wrong_number_of_gradients():
    @rt.custom_gradient
    def f(a, b):
        return a * b, lambda dy: dy

    a, b = rt.constant(1.0), rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    with pytest.raises(ValueError, match="2"):
        tape.gradient(y, [a, b])


def test_method_decorator():
    class Model:
        def __init__(self):
            self.k = 5.0

        @rt.custom_gradient
        def f(self, x):
            def grad(dy):
                return dy * self.k

            return x * 1.0, grad

    m = Model()
    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = m.f(x)
    assert tape.gradient(y, x).numpy() == 5.0


def test_exception_in_forward_leaves_tapes_working():
    @rt.custom_gradient
    def bad(x):
        raise RuntimeError("forward failed")

    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(RuntimeError, match="forward failed"):
            bad(x)
        y = x * x
    assert tape.gradient(y, x).numpy() == 4.0


def test_exception_in_grad_fn_propagates():
    @rt.custom_gradient
    def bad_grad(x):
        def grad(dy):
            raise KeyError("no gradient today")

        return x * 1.0, grad

    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = bad_grad(x)
    with pytest.raises(KeyError):
        tape.gradient(y, x)


def test_custom_gradient_inside_a_custom_gradient():
    # TF's pattern for a fused op with its own second derivative: grad_fn calls another
    # custom_gradient function, whose own grad_fn gives the second order.
    calls = []

    @rt.custom_gradient
    def cube(x):
        def first_order(dy):
            @rt.custom_gradient
            def three_x_squared(x_):
                def second_order(ddy):
                    calls.append("second")
                    return ddy * 6.0 * x_

                return 3.0 * x_ * x_, second_order

            calls.append("first")
            return dy * three_x_squared(x)

        return x * x * x, first_order

    x = rt.constant(2.0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert (y.numpy(), dy.numpy(), d2y.numpy()) == (8.0, 12.0, 12.0)
    assert calls == ["first", "second"]


def test_keyword_arguments_are_passed_through():
    @rt.custom_gradient
    def scaled(x, scale=1.0):
        def grad(dy):
            return dy * scale

        return x * scale, grad

    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x, scale=4.0)
    assert y.numpy() == 8.0
    assert tape.gradient(y, x).numpy() == 4.0


def test_persistent_tape_calls_grad_fn_each_time():
    calls = []

    @rt.custom_gradient
    def f(x):
        def grad(dy):
            calls.append(1)
            return dy * 2.0

        return x * 1.0, grad

    x = rt.constant(1.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    assert tape.gradient(y, x).numpy() == 2.0
    assert tape.gradient(y, x).numpy() == 2.0
    assert len(calls) == 2
