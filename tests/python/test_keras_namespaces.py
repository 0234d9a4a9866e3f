"""Keras 3's other ways to reach the same functions and classes: `keras.ops.nn`,
`keras.ops.numpy`, `keras.ops.linalg`; the initializers' snake_case names and
`serialize` / `deserialize`; and the `Orthogonal` initializer (Keras's construction, checked
by its properties: rustape's random values are its own)."""

from __future__ import annotations

import numpy as np
import pytest
import rustape as rt

ops = rt.keras.ops
I = rt.keras.initializers


@pytest.mark.parametrize("namespace", [ops.nn, ops.numpy, ops.linalg])
def test_ops_namespaces_hold_the_keras_ops_functions(namespace):
    assert namespace.__all__, namespace
    for name in namespace.__all__:
        assert name in namespace.KERAS_NAMES
        assert getattr(namespace, name) is getattr(ops, name)
    # Keras's names that keras.ops has are all there.
    assert set(namespace.__all__) == {n for n in namespace.KERAS_NAMES if hasattr(ops, n)}


def test_ops_namespaces_cover_most_of_keras():
    assert len(ops.nn.__all__) >= 45 and len(ops.numpy.__all__) >= 195
    assert len(ops.linalg.__all__) >= 13
    with pytest.raises(AttributeError):
        ops.numpy.no_such_function  # noqa: B018


@pytest.mark.parametrize(
    ("alias", "cls"),
    [("glorot_uniform", "GlorotUniform"), ("he_normal", "HeNormal"), ("zeros", "Zeros"),
     ("orthogonal", "Orthogonal"), ("identity", "Identity"),
     ("OrthogonalInitializer", "Orthogonal"), ("IdentityInitializer", "Identity"),
     ("variance_scaling", "VarianceScaling"), ("truncated_normal", "TruncatedNormal")],
)
def test_initializer_aliases_are_the_classes(alias, cls):
    assert getattr(I, alias) is getattr(I, cls)


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (3, 3, 4, 8), (2, 5, 7)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_gives_orthonormal_columns_or_rows(shape, dtype):
    w = I.Orthogonal(gain=1.5, seed=3)(shape, dtype=dtype)
    assert w.shape == shape and w.dtype.name == dtype
    m = w.numpy().reshape(-1, shape[-1]) / 1.5
    rows, cols = m.shape
    gram = m.T @ m if rows >= cols else m @ m.T
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=tol)


def test_orthogonal_seeds_repeat_and_differ():
    a, b = I.Orthogonal(seed=1)((5, 5)).numpy(), I.Orthogonal(seed=1)((5, 5)).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, I.Orthogonal(seed=2)((5, 5)).numpy())
    rt.random.set_seed(7)
    c = I.Orthogonal()((5, 5)).numpy()
    rt.random.set_seed(7)
    np.testing.assert_array_equal(c, I.Orthogonal()((5, 5)).numpy())


def test_orthogonal_rejects_vectors_and_round_trips():
    with pytest.raises(ValueError, match="at least two-dimensional"):
        I.Orthogonal()((4,))
    again = I.deserialize(I.serialize(I.Orthogonal(gain=2.0, seed=4)))
    assert isinstance(again, I.Orthogonal) and again.gain == 2.0 and again.seed == 4
    assert type(I.deserialize("orthogonal")) is I.Orthogonal
    layer = rt.keras.layers.Dense(3, kernel_initializer="orthogonal")
    layer(rt.ones([2, 3]))
    k = layer.kernel.numpy()
    np.testing.assert_allclose(k.T @ k, np.eye(3), atol=1e-5)
