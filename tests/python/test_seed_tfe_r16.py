"""The code examples of `tf.contrib.eager.GradientTape` (TensorFlow r1.6, seed 001), with
`tf.` replaced by `rt.` and `tfe` as `rustape.contrib.eager`."""

import rustape as rt
import rustape.contrib.eager as tfe


def test_gradient_list_of_sources():
    with tfe.GradientTape() as g:
        x = rt.constant(3.0)
        g.watch(x)
        y = x * x
    grad = g.gradient(y, [x])[0]
    assert grad.numpy() == 6.0


def test_higher_order_with_inner_gradient_added():
    with tfe.GradientTape() as g:
        x = rt.constant(3.0)
        g.watch(x)
        y = x * x
        with tfe.GradientTape() as gg:
            gg.watch(y)
            z = 2 * y
        inner_grad = gg.gradient(z, [y])[0]
        assert inner_grad.numpy() == 2
        y = y + inner_grad
    grad = g.gradient(y, [x])[0]
    assert grad.numpy() == 6.0


def test_persistent():
    with tfe.GradientTape(persistent=True) as g:
        x = rt.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
    dz_dx = g.gradient(z, [x])[0]
    assert dz_dx.numpy() == 108.0  # 4*x^3 at x = 3
    dy_dx = g.gradient(y, [x])[0]
    assert dy_dx.numpy() == 6.0
    del g  # Drop the reference to the tape


def test_tfe_is_the_same_tape():
    assert tfe.GradientTape is rt.GradientTape
