"""`rt.linalg`'s factorisations on bad input: a ValueError for shapes (naming the op and the
shapes), a TypeError for dtypes, TensorFlow's values for singular and non-positive-definite
matrices, and a ValueError for the gradients TensorFlow does not define."""

from __future__ import annotations

import numpy as np
import pytest
import rustape as rt

SQUARE_OPS = ["cholesky", "det", "slogdet", "logdet", "eigh", "eigvalsh", "expm"]


@pytest.mark.parametrize("name", SQUARE_OPS)
def test_square_ops_name_the_op_the_shape_and_the_dtype(name: str) -> None:
    fn = getattr(rt.linalg, name)
    with pytest.raises(ValueError, match=rf"{name if name != 'eigvalsh' else 'eigh'}.*\[2, 3\]"):
        fn(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="int32"):
        fn(rt.constant([[1, 2], [3, 4]]))
    with pytest.raises(ValueError):
        fn([1.0, 2.0])


def test_solver_shape_errors() -> None:
    with pytest.raises(ValueError, match=r"triangular_solve.*\[3, 3\].*\[2, 1\]"):
        rt.linalg.triangular_solve(np.eye(3), np.ones((2, 1)))
    with pytest.raises(ValueError, match=r"lstsq.*\[4, 2\].*\[3, 1\]"):
        rt.linalg.lstsq(np.ones((4, 2)), np.ones((3, 1)))
    with pytest.raises(TypeError, match="lstsq"):
        rt.linalg.lstsq(rt.ones([4, 2], dtype=rt.float64), rt.ones([4, 1], dtype=rt.float32))
    with pytest.raises(ValueError, match=r"set_diag.*\[2, 3\]"):
        rt.linalg.set_diag(np.zeros((2, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="band_part"):
        rt.linalg.band_part(np.zeros((2, 2)), 3, 0)


def test_singular_and_indefinite_inputs_behave_as_tensorflow() -> None:
    singular = rt.constant([[1.0, 2.0], [2.0, 4.0]], dtype=rt.float64)
    assert float(rt.linalg.det(singular)) == 0.0
    sign, log_abs = rt.linalg.slogdet(singular)
    assert float(sign) == 0.0 and float(log_abs) == -np.inf
    with rt.GradientTape() as tape:
        tape.watch(singular)
        d = rt.linalg.det(singular)
    with pytest.raises(ValueError, match="not invertible"):
        tape.gradient(d, singular)
    assert np.isnan(rt.linalg.cholesky([[1.0, 2.0], [2.0, 1.0]]).numpy()).all()
    assert np.isnan(float(rt.linalg.logdet([[1.0, 2.0], [2.0, 1.0]])))
    with pytest.raises(ValueError, match="eigh"):
        rt.linalg.eigh([[np.nan, 0.0], [0.0, 1.0]])
    assert np.isnan(rt.linalg.svd([[np.nan, 0.0], [0.0, 1.0]], compute_uv=False).numpy()).all()


def test_gradients_tensorflow_does_not_define_raise() -> None:
    x = rt.constant(np.random.default_rng(0).uniform(size=(4, 3)))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        _, r = rt.linalg.qr(x, full_matrices=True)
        _, u, _ = rt.linalg.svd(rt.concat([x, x], axis=0), full_matrices=True)
    with pytest.raises(ValueError, match="full_matrices"):
        tape.gradient(r, x)
    with pytest.raises(ValueError, match="full_matrices"):
        tape.gradient(u, x)


def test_outputs_follow_tensorflow_shapes_and_dtypes() -> None:
    a = rt.ones([2, 5, 3], dtype=rt.float32)
    s, u, v = rt.linalg.svd(a)
    assert (s.shape, u.shape, v.shape) == ((2, 3), (2, 5, 3), (2, 3, 3))
    s, u, v = rt.linalg.svd(a, full_matrices=True)
    assert (u.shape, v.shape) == ((2, 5, 5), (2, 3, 3))
    assert rt.linalg.svd(a, compute_uv=False).shape == (2, 3)
    q, r = rt.linalg.qr(a, full_matrices=True)
    assert (q.shape, r.shape) == ((2, 5, 5), (2, 5, 3))
    assert q.dtype == rt.float32 and s.dtype == rt.float32
    assert rt.linalg.pinv(a).shape == (2, 3, 5)
    e, v = rt.linalg.eigh(rt.eye(3, batch_shape=[2]))
    assert (e.shape, v.shape) == ((2, 3), (2, 3, 3))
