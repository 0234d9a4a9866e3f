"""GaussianNoise, GaussianDropout, AlphaDropout, SpatialDropout1D/2D/3D: the identity at
inference, the noise's
distribution and structure while training (Keras 3's definitions), gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest
import rustape as rt

L = rt.keras.layers


@pytest.mark.parametrize(
    "layer",
    [L.GaussianNoise(0.3), L.GaussianDropout(0.4), L.SpatialDropout1D(0.5), L.AlphaDropout(0.3)],
    ids=["gaussian_noise", "gaussian_dropout", "spatial_dropout1d", "alpha_dropout"],
)
def test_identity_at_inference(layer: rt.keras.layers.Layer) -> None:
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)


def test_gaussian_noise_adds_normal_noise_with_unit_gradient() -> None:
    rt.random.set_seed(5)
    x = rt.Variable(rt.zeros([400_000]))
    with rt.GradientTape() as tape:
        y = L.GaussianNoise(0.5)(x, training=True)
        total = rt.reduce_sum(y)
    noise = y.numpy()
    assert abs(noise.mean()) < 3 * 0.5 / np.sqrt(noise.size)
    assert abs(noise.std() - 0.5) < 0.005
    np.testing.assert_array_equal(tape.gradient(total, x).numpy(), np.ones(400_000, np.float32))


def test_gaussian_dropout_multiplies_by_mean_one_noise() -> None:
    rt.random.set_seed(6)
    x = rt.Variable(rt.fill([400_000], 2.0))
    with rt.GradientTape() as tape:
        y = L.GaussianDropout(0.2)(x, training=True)
        total = rt.reduce_sum(y)
    factor = y.numpy() / 2.0
    assert abs(factor.mean() - 1.0) < 0.005
    assert abs(factor.std() - np.sqrt(0.2 / 0.8)) < 0.005
    np.testing.assert_allclose(tape.gradient(total, x).numpy(), factor, rtol=1e-6)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_spatial_dropout_drops_whole_channels(data_format: str) -> None:
    rt.random.set_seed(7)
    shape = [64, 3, 3, 200] if data_format == "channels_last" else [64, 200, 3, 3]
    y = L.SpatialDropout2D(0.3, data_format=data_format)(rt.ones(shape), training=True).numpy()
    maps = y if data_format == "channels_last" else np.moveaxis(y, 1, -1)
    assert (maps == maps[:, :1, :1, :]).all()  # one draw per sample and channel
    dropped = (maps[:, 0, 0, :] == 0).mean()
    assert abs(dropped - 0.3) < 0.02
    np.testing.assert_allclose(np.unique(maps), [0.0, 1 / 0.7], rtol=1e-6)
    y1 = L.SpatialDropout1D(0.5)(rt.ones([8, 5, 30]), training=True).numpy()
    assert (y1 == y1[:, :1]).all()


def test_alpha_dropout_keeps_selu_statistics() -> None:
    # Inputs of mean 0 and variance 1 (what SELU keeps) leave with mean 0 and variance 1;
    # each value is either a * x + b (kept) or a * alpha' + b (dropped).
    rt.random.set_seed(8)
    rate = 0.2
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    x = np.random.default_rng(1).normal(size=400_000).astype(np.float32)
    x[np.abs(x - alpha_p) < 1e-3] = 0.0  # no kept value looks like a dropped one
    xv = rt.Variable(x)
    with rt.GradientTape() as tape:
        y = L.AlphaDropout(rate)(xv, training=True)
        total = rt.reduce_sum(y)
    out = y.numpy()
    assert abs(out.mean()) < 0.01 and abs(out.var() - 1.0) < 0.01
    a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
    b = -a * alpha_p * rate
    dropped = np.isclose(out, a * alpha_p + b, rtol=1e-5, atol=1e-6)
    assert abs(dropped.mean() - rate) < 0.005
    np.testing.assert_allclose(out[~dropped], a * x[~dropped] + b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        tape.gradient(total, xv).numpy(), np.where(dropped, 0.0, a), rtol=1e-6
    )
    # noise_shape shares one draw along axes of length 1.
    shared = L.AlphaDropout(0.5, noise_shape=(None, 1))(rt.ones([50, 7]), training=True).numpy()
    assert (shared == shared[:, :1]).all()


def test_spatial_dropout3d_drops_whole_volumes() -> None:
    rt.random.set_seed(9)
    y = L.SpatialDropout3D(0.4)(rt.ones([32, 2, 2, 2, 100]), training=True).numpy()
    assert (y == y[:, :1, :1, :1, :]).all()
    assert abs((y[:, 0, 0, 0] == 0).mean() - 0.4) < 0.03
    first = L.SpatialDropout3D(0.4, data_format="channels_first")
    z = first(rt.ones([8, 20, 2, 3, 2]), training=True).numpy()
    assert (z == z[:, :, :1, :1, :1]).all()


def test_errors() -> None:
    with pytest.raises(ValueError, match="rate"):
        L.GaussianDropout(1.5)
    with pytest.raises(ValueError, match="stddev"):
        L.GaussianNoise(float("inf"))
    with pytest.raises(ValueError, match="rank 4"):
        L.SpatialDropout2D(0.5)(rt.ones([2, 3]), training=True)
