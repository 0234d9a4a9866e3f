"""complex64 and complex128 in Python: creation and NumPy interop, dtypes, repr, conversions
and casts, the TensorFlow gradient convention (the issue's examples exactly), output_gradients,
unconnected zeros, Jacobians, nested tapes, custom gradients, and the TypeErrors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import rustape as rt


def test_dtypes_and_creation() -> None:
    assert rt.complex64.is_complex and rt.complex128.is_complex
    assert not rt.complex64.is_floating and not rt.float32.is_complex
    assert rt.complex64.real_dtype is rt.float32 and rt.complex128.real_dtype is rt.float64
    assert rt.float64.real_dtype is rt.float64
    assert rt.complex64.size == 8 and rt.complex128.size == 16
    assert rt.as_dtype("complex64") is rt.complex64 and rt.as_dtype(complex) is rt.complex128
    assert rt.as_dtype(np.complex64) is rt.complex64 and rt.complex128 == np.dtype("complex128")
    # Python complex numbers are complex128, as in TensorFlow; lists of them too.
    assert rt.constant(1 + 2j).dtype is rt.complex128
    assert rt.constant([1 + 2j, 3j]).dtype is rt.complex128
    assert rt.constant([1, 2], dtype=rt.complex64).numpy().tolist() == [1 + 0j, 2 + 0j]
    assert rt.constant(2.0, dtype=rt.complex64).numpy() == 2 + 0j
    # NumPy arrays keep their complex dtype; NumPy sees the tensor's storage.
    a = np.array([[1 + 2j, 3 - 4j]], dtype=np.complex64)
    t = rt.constant(a)
    assert t.dtype is rt.complex64 and t.shape == (1, 2)
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(np.asarray(t), a)
    assert np.asarray(t).dtype == np.complex64
    assert isinstance(rt.constant(1 + 2j).numpy(), np.complexfloating)
    assert complex(rt.constant(1 + 2j)) == 1 + 2j and complex(rt.constant(2.0)) == 2 + 0j


def test_repr_str_and_scalars() -> None:
    t = rt.constant([1 + 2j, 3 - 1j], dtype=rt.complex64)
    assert (
        repr(t)
        == "<rt.Tensor: shape=(2,), dtype=complex64, numpy=array([1.+2.j, 3.-1.j], dtype=complex64)>"
    )
    assert repr(rt.constant(1 + 2j)) == "<rt.Tensor: shape=(), dtype=complex128, numpy=(1+2j)>"
    assert str(t) == "rt.Tensor([1.+2.j 3.-1.j], shape=(2,), dtype=complex64)"
    assert f"{rt.constant(1 + 2j):.1f}" == "1.0+2.0j"
    # float() of a complex tensor keeps the real part with NumPy's warning, as TensorFlow.
    with pytest.warns(Warning, match="discards the imaginary part"):
        assert float(rt.constant(1 + 2j)) == 1.0


def test_python_numbers_and_arrays_take_the_complex_dtype() -> None:
    z = rt.constant([1 + 1j], dtype=rt.complex64)
    assert (z * 2.0).dtype is rt.complex64 and (z + 1).dtype is rt.complex64
    assert (z * (1 - 1j)).numpy().tolist() == [2 + 0j]
    assert (z * np.array([2.0])).dtype is rt.complex64
    assert rt.multiply(2.0, 1j).dtype is rt.complex128
    np.testing.assert_allclose((z**2).numpy(), [2j], atol=1e-7)
    assert abs(rt.constant([3 + 4j])).numpy().tolist() == [5.0]
    assert (-z).numpy().tolist() == [-1 - 1j]
    assert (z == (1 + 1j)).numpy().tolist() == [True]
    with pytest.raises(TypeError, match="Cannot convert"):
        rt.constant(1.0) * (1 + 2j)
    with pytest.raises(TypeError, match="Cannot convert"):
        rt.constant(1 + 2j, dtype=rt.float64)
    with pytest.raises(TypeError, match="Cannot convert"):
        rt.constant(True, dtype=rt.complex64)
    # As TensorFlow, the first element decides: complex first takes every number along.
    mixed = rt.constant([1 + 1j, 2, 3.5, True])
    assert mixed.dtype is rt.complex128 and mixed.numpy().tolist() == [1 + 1j, 2, 3.5, 1]
    assert rt.constant([[1j], [2]]).numpy().tolist() == [[1j], [2]]
    for later in ([1.0, 2j], [2, 1j], [[2], [1j]], [True, 1j]):
        with pytest.raises(ValueError, match="mixed types"):
            rt.constant(later)


def test_complex_real_imag_conj_abs_angle_adjoint() -> None:
    z = rt.complex(rt.constant([3.0, 0.0]), rt.constant([4.0, -1.0]))
    assert z.dtype is rt.complex64
    assert rt.math.real(z).numpy().tolist() == [3.0, 0.0]
    assert rt.math.imag(z).numpy().tolist() == [4.0, -1.0]
    assert rt.math.conj(z).numpy().tolist() == [3 - 4j, 1j]
    assert rt.abs(z).dtype is rt.float32 and rt.abs(z).numpy().tolist() == [5.0, 1.0]
    np.testing.assert_allclose(rt.math.angle(z).numpy(), [np.arctan2(4, 3), -np.pi / 2], rtol=1e-6)
    np.testing.assert_allclose(rt.math.angle(rt.constant([-2.0, 1.0])).numpy(), [np.pi, 0.0])
    x = rt.constant([1.0, -2.0])
    assert rt.math.real(x) is not None and rt.math.real(x).numpy().tolist() == [1.0, -2.0]
    assert rt.math.imag(x).numpy().tolist() == [0.0, 0.0]
    m = rt.constant([[1 + 1j, 2j], [3 + 0j, 4 - 1j]])
    np.testing.assert_array_equal(rt.linalg.adjoint(m).numpy(), np.conj(m.numpy()).T)
    np.testing.assert_array_equal(
        rt.linalg.matrix_transpose(m, conjugate=True).numpy(), np.conj(m.numpy()).T
    )
    np.testing.assert_array_equal(rt.linalg.matrix_transpose(m).numpy(), m.numpy().T)
    with pytest.raises(TypeError, match="complex"):
        rt.complex(rt.constant([1.0]), rt.constant([1.0], dtype=rt.float64))


def test_cast_warns_when_it_drops_the_imaginary_part() -> None:
    z = rt.constant([1 + 2j, -3 + 0.5j])
    with pytest.warns(Warning, match="discard the imaginary part"):
        r = rt.cast(z, rt.float32)
    assert r.dtype is rt.float32 and r.numpy().tolist() == [1.0, -3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rt.cast(z, rt.complex64).dtype is rt.complex64
        assert rt.cast(rt.constant([1.5]), rt.complex128).numpy().tolist() == [1.5 + 0j]


def _grad(f, z, **kwargs):
    z = rt.constant(z)
    with rt.GradientTape() as tape:
        tape.watch(z)
        y = f(z)
    return tape.gradient(y, z, **kwargs)


def test_the_convention_examples_exactly() -> None:
    assert _grad(lambda z: rt.abs(z) ** 2, 1 + 2j).numpy() == 2 + 4j
    assert _grad(lambda z: rt.math.real(z * z), 1 + 2j).numpy() == 2 - 4j
    assert _grad(lambda z: z * z, 1 + 2j).numpy() == 2 - 4j
    # output_gradients c: c * conj(f'(z)).
    c = rt.constant(0.5 - 1j)
    assert _grad(lambda z: z * z, 1 + 2j, output_gradients=c).numpy() == (0.5 - 1j) * (2 - 4j)
    # A real source through complex values keeps the real part, in its own dtype.
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(x, rt.complex64) * rt.constant(1 + 1j, dtype=rt.complex64)
    g = tape.gradient(y, x)
    assert g.dtype is rt.float32 and float(g) == 1.0
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.complex(x, 3.0) ** 2
    assert float(tape.gradient(y, x)) == 4.0


def test_unconnected_zero_variables_and_nested_tapes() -> None:
    z = rt.constant([1 + 1j, 2 - 1j])
    w = rt.constant([0.5j, 1.0 + 0j])
    with rt.GradientTape() as tape:
        tape.watch([z, w])
        y = rt.exp(z)
    gz, gw = tape.gradient(y, [z, w], unconnected_gradients=rt.UnconnectedGradients.ZERO)
    assert gw.dtype is rt.complex128 and gw.numpy().tolist() == [0j, 0j]
    np.testing.assert_allclose(gz.numpy(), np.conj(np.exp(z.numpy())), rtol=1e-15)
    # A trainable complex variable is watched on read.
    v = rt.Variable([1 + 2j])
    with rt.GradientTape() as tape:
        y = rt.abs(v) ** 2
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2 + 4j])
    # Second order by nested tapes: d/dz of the gradient of |z|^4 / 4 (= |z|^2 z) projected.
    z = rt.constant(1 + 2j)
    with rt.GradientTape() as outer:
        outer.watch(z)
        with rt.GradientTape() as inner:
            inner.watch(z)
            y = rt.abs(z) ** 4 / 4.0
        g = inner.gradient(y, z)  # 2 dL/dz̄ = |z|^2 z
        s = rt.math.real(g)
    # Re(|z|^2 z) = (x^2 + y^2) x: d/dx = 3x^2 + y^2 = 7, d/dy = 2xy = 4.
    np.testing.assert_allclose(np.asarray(outer.gradient(s, z)), 7 + 4j)


def test_jacobians_with_and_without_pfor() -> None:
    z = rt.constant([1 + 2j, -0.5 + 0.25j])
    for pfor in (True, False):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(z)
            y = z * z
            r = rt.abs(z)
        np.testing.assert_allclose(
            tape.jacobian(y, z, experimental_use_pfor=pfor).numpy(), np.diag(np.conj(2 * z.numpy()))
        )
        np.testing.assert_allclose(
            tape.jacobian(r, z, experimental_use_pfor=pfor).numpy(),
            np.diag(z.numpy() / np.abs(z.numpy())),
        )
        b = rt.constant([[1 + 1j, 2 + 0j], [0.5j, -1 + 0j]])
        with rt.GradientTape() as tape:
            tape.watch(b)
            y = rt.exp(b) * b
        bj = tape.batch_jacobian(y, b, experimental_use_pfor=pfor).numpy()
        want = np.conj(np.exp(b.numpy()) * (1 + b.numpy()))
        np.testing.assert_allclose(bj, np.stack([np.diag(row) for row in want]), rtol=1e-14)


def test_custom_gradient_with_complex_values() -> None:
    @rt.custom_gradient
    def f(z):
        def grad(dy):
            return dy * rt.math.conj(3.0 * z * z)

        return z * z * z, grad

    z = rt.constant(1 - 1j)
    with rt.GradientTape() as tape:
        tape.watch(z)
        y = f(z)
    assert tape.gradient(y, z).numpy() == np.conj(3 * (1 - 1j) ** 2)


def test_ops_with_no_complex_meaning_raise_type_errors() -> None:
    z = rt.constant([1 + 1j])
    for f, op in [
        (lambda: rt.maximum(z, z), "maximum"),
        (lambda: z < rt.constant([2j]), "less"),
        (lambda: rt.nn.relu(z), "relu"),
        (lambda: rt.nn.softplus(z), "softplus"),
        (lambda: rt.reduce_max(z), "reduce_max"),
    ]:
        with pytest.raises(TypeError, match=f"{op}.*complex128"):
            f()
    with pytest.raises(TypeError, match="complex128.*float64|float64.*complex128"):
        z + rt.constant([1.0], dtype=rt.float64)
    with pytest.raises(TypeError, match="complex64"):
        z * rt.constant([1j], dtype=rt.complex64)


def test_gradient_descent_converges() -> None:
    target = np.array([0.5 - 1j, -0.25 + 0.75j])
    z = rt.Variable(np.zeros(2, dtype=np.complex128))
    for _ in range(100):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.abs(z - target) ** 2)
        z.assign_sub(0.1 * tape.gradient(loss, z))
    np.testing.assert_allclose(z.numpy(), target, atol=1e-9)
