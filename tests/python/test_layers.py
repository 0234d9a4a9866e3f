"""`rt.layers.Dense` and `rt.layers.BatchNormalization`: lazy build, Keras defaults, numbers."""

import math

import numpy as np
import pytest
import rustape as rt


def test_dense_is_built_on_first_call(seeded):
    layer = rt.layers.Dense(4)
    assert not layer.built
    assert layer.variables == [] and layer.trainable_variables == []
    assert layer.kernel is None and layer.bias is None
    x = rt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = layer(x)
    assert layer.built
    assert layer.kernel.shape == (3, 4) and layer.bias.shape == (4,)
    assert len(layer.variables) == 2 and len(layer.trainable_variables) == 2
    assert layer.kernel.dtype == rt.float32
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(4, np.float32))
    limit = math.sqrt(6.0 / (3 + 4))
    assert np.all(np.abs(layer.kernel.numpy()) <= limit)
    assert np.std(layer.kernel.numpy()) > 0
    np.testing.assert_allclose(y.numpy(), x.numpy() @ layer.kernel.numpy(), rtol=1e-6)
    assert layer.kernel.name.endswith("kernel:0") and layer.bias.name.endswith("bias:0")
    # the second call reuses the variables
    k = layer.kernel
    layer(x)
    assert layer.kernel is k


def test_keras_alias():
    assert rt.keras.layers.Dense is rt.layers.Dense
    assert rt.keras.layers.BatchNormalization is rt.layers.BatchNormalization


@pytest.mark.parametrize(
    "activation, fn",
    [
        (None, lambda a: a),
        ("linear", lambda a: a),
        ("relu", lambda a: np.maximum(a, 0)),
        ("tanh", np.tanh),
        ("sigmoid", lambda a: 1 / (1 + np.exp(-a))),
        ("elu", lambda a: np.where(a > 0, a, np.expm1(a))),
        ("softmax", lambda a: np.exp(a) / np.exp(a).sum(-1, keepdims=True)),
        (rt.nn.relu, lambda a: np.maximum(a, 0)),
    ],
)
def test_dense_activations(activation, fn, seeded):
    layer = rt.layers.Dense(5, activation=activation, bias_initializer="ones")
    x = rt.random.normal([4, 3])
    y = layer(x)
    a = x.numpy() @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(y.numpy(), fn(a), rtol=1e-5, atol=1e-6)


def test_dense_without_bias_and_rank_3_inputs(seeded):
    layer = rt.layers.Dense(2, use_bias=False)
    x = rt.random.normal([3, 4, 5])
    y = layer(x)
    assert layer.bias is None and len(layer.variables) == 1
    assert y.shape == (3, 4, 2)
    np.testing.assert_allclose(y.numpy(), x.numpy() @ layer.kernel.numpy(), rtol=1e-5, atol=1e-6)


def test_dense_gradients(seeded):
    layer = rt.layers.Dense(3, activation="tanh")
    x = rt.random.normal([5, 4])
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(layer(x))
    gk, gb = tape.gradient(y, layer.trainable_variables)
    a = x.numpy() @ layer.kernel.numpy() + layer.bias.numpy()
    d = 1 - np.tanh(a) ** 2
    np.testing.assert_allclose(gb.numpy(), d.sum(0), rtol=1e-5)
    np.testing.assert_allclose(gk.numpy(), x.numpy().T @ d, rtol=1e-5, atol=1e-6)


def test_dense_casts_float64_inputs_to_its_dtype(seeded):
    layer = rt.layers.Dense(2)
    y = layer(np.ones((1, 3)))  # NumPy float64 in, float32 layer (Keras)
    assert y.dtype == rt.float32
    layer64 = rt.layers.Dense(2, dtype=rt.float64)
    assert layer64(np.ones((1, 3))).dtype == rt.float64


def test_seeded_initialisation_repeats():
    rt.keras.utils.set_random_seed(42)  # Keras's rule (Python's `random` seeds it)
    a = rt.layers.Dense(3)
    a(rt.ones([1, 2]))
    rt.keras.utils.set_random_seed(42)
    b = rt.layers.Dense(3)
    b(rt.ones([1, 2]))
    np.testing.assert_array_equal(a.kernel.numpy(), b.kernel.numpy())


def test_unknown_activation():
    with pytest.raises(ValueError):
        rt.layers.Dense(2, activation="nope")


def _bn_reference(x, gamma, beta, mean, var, eps):
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def test_batch_normalization_training_and_inference(seeded):
    bn = rt.layers.BatchNormalization()
    assert bn.variables == [] and bn.trainable_variables == []
    x = rt.random.normal([8, 3]) * 2.0 + 1.0
    y = bn(x, training=True)
    assert [v.shape for v in bn.variables] == [(3,)] * 4
    assert len(bn.trainable_variables) == 2
    assert len(bn.non_trainable_variables) == 2
    xv = x.numpy().astype(np.float64)
    mean, var = xv.mean(0), xv.var(0)
    np.testing.assert_allclose(
        y.numpy(), _bn_reference(xv, 1.0, 0.0, mean, var, 1e-3), rtol=1e-4, atol=1e-5
    )
    # moving statistics: moving = moving * 0.99 + batch * 0.01
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.01 * mean, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.99 + 0.01 * var, rtol=1e-4)
    # inference uses the moving statistics
    y_inf = bn(x, training=False)
    np.testing.assert_allclose(
        y_inf.numpy(),
        _bn_reference(xv, 1.0, 0.0, bn.moving_mean.numpy(), bn.moving_variance.numpy(), 1e-3),
        rtol=1e-4,
        atol=1e-5,
    )
    y_default = bn(x)
    np.testing.assert_array_equal(y_default.numpy(), y_inf.numpy())


def test_batch_normalization_gradients(seeded):
    bn = rt.layers.BatchNormalization()
    x = rt.random.normal([6, 2])
    w = rt.constant([[1.0, 2.0]])
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(bn(x, training=True) * w)
    names = [v.name for v in tape.watched_variables()]
    assert names == [bn.gamma.name, bn.beta.name]
    g_gamma, g_beta = tape.gradient(y, [bn.gamma, bn.beta])
    xv = x.numpy().astype(np.float64)
    xhat = (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-3)
    np.testing.assert_allclose(g_beta.numpy(), [6.0, 12.0], rtol=1e-6)
    np.testing.assert_allclose(g_gamma.numpy(), (xhat * [1.0, 2.0]).sum(0), atol=1e-4)


def test_batch_normalization_input_gradient_in_float64():
    from conftest import check_gradients

    bn = rt.layers.BatchNormalization(dtype=rt.float64)
    x0 = np.random.default_rng(0).normal(size=(5, 3))

    def f(x):
        return bn(x, training=True)

    check_gradients(f, [x0], second_order=True)


def test_batch_normalization_axis_1(seeded):
    bn = rt.layers.BatchNormalization(axis=1, center=False)
    x = rt.random.normal([4, 3, 5])
    y = bn(x, training=True)
    assert bn.beta is None
    assert bn.gamma.shape == (3,)
    xv = x.numpy().astype(np.float64)
    mean = xv.mean(axis=(0, 2), keepdims=True)
    var = xv.var(axis=(0, 2), keepdims=True)
    np.testing.assert_allclose(y.numpy(), (xv - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.01 * mean.reshape(3), rtol=1e-4, atol=1e-6)


def test_batch_normalization_update_is_not_recorded(seeded):
    bn = rt.layers.BatchNormalization()
    x = rt.random.normal([4, 2])
    bn(x)  # build
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = bn(x, training=True)
    grads = tape.gradient(y, [bn.moving_mean, bn.moving_variance])
    assert grads == [None, None]
