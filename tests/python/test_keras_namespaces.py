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
        assert getattr(namespace, name) is getattr(ops, name)
        assert name not in namespace.NOT_YET
    # A name keras.ops gains moves from NOT_YET to the namespace's imports and __all__.
    arrived = [n for n in namespace.NOT_YET if hasattr(ops, n)]
    assert not arrived, f"add {arrived} to {namespace.__name__}'s imports and __all__"
    for name in namespace.NOT_YET:
        assert not hasattr(namespace, name)


def test_ops_namespaces_cover_most_of_keras():
    assert len(ops.nn.__all__) >= 45 and len(ops.numpy.__all__) >= 195
    assert len(ops.linalg.__all__) >= 13
    with pytest.raises(AttributeError):
        ops.numpy.no_such_function  # noqa: B018


@pytest.mark.parametrize(
    ("alias", "cls"),
    [
        ("glorot_uniform", "GlorotUniform"),
        ("he_normal", "HeNormal"),
        ("zeros", "Zeros"),
        ("orthogonal", "Orthogonal"),
        ("identity", "Identity"),
        ("OrthogonalInitializer", "Orthogonal"),
        ("IdentityInitializer", "Identity"),
        ("variance_scaling", "VarianceScaling"),
        ("truncated_normal", "TruncatedNormal"),
    ],
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
    rt.keras.utils.set_random_seed(7)  # Keras's rule (Python's `random` seeds it)
    c = I.Orthogonal()((5, 5)).numpy()
    rt.keras.utils.set_random_seed(7)
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


def test_keras_top_level_and_utils_names():
    k = rt.keras
    assert k.Layer is k.layers.Layer and k.Loss is k.losses.Loss and k.Metric is k.metrics.Metric
    assert k.Optimizer is k.optimizers.Optimizer and k.Variable is rt.Variable
    assert k.Initializer is I.Initializer and k.Regularizer is k.regularizers.Regularizer
    assert k.version() == "3.15.1" and k.name_scope is rt.name_scope
    assert k.utils.register_keras_serializable is k.saving.register_keras_serializable
    np.testing.assert_allclose(
        k.utils.normalize(np.array([[3.0, 4.0], [0.0, 0.0]])), [[0.6, 0.8], [0.0, 0.0]]
    )
    np.testing.assert_allclose(k.utils.normalize(rt.constant([[3.0, 4.0]])).numpy(), [[0.6, 0.8]])
    np.testing.assert_allclose(k.utils.normalize(np.array([[3.0, -1.0]]), order=1), [[0.75, -0.25]])
    assert k.utils.standardize_dtype(rt.float64) == "float64"
    assert k.utils.standardize_dtype("float") == "float32"
    assert k.utils.is_keras_tensor(k.Input((2,))) and not k.utils.is_keras_tensor(rt.ones([2]))
    k.layers.Dense(1)
    k.utils.clear_session()
    assert k.layers.Dense(1).name == "dense"


def test_callback_list_drives_a_training_loop_of_ones_own():
    k = rt.keras
    model = k.Sequential([k.Input((2,)), k.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    early = k.callbacks.EarlyStopping(monitor="loss", patience=0)
    callbacks = k.callbacks.CallbackList([early], add_history=True, model=model, epochs=3)
    assert early.model is model and early.params["epochs"] == 3
    callbacks.on_train_begin()
    x = np.ones((4, 2), np.float32)
    for epoch in range(3):
        callbacks.on_epoch_begin(epoch)
        logs = model.train_on_batch(x, x[:, :1], return_dict=True)
        callbacks.on_epoch_end(epoch, logs)
    callbacks.on_train_end()
    assert callbacks.history.epoch == [0, 1, 2] and len(callbacks.history.history["loss"]) == 3
    with pytest.raises(TypeError, match="not a callback"):
        k.callbacks.CallbackList([object()])
