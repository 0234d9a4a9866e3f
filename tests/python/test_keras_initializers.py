"""rt.keras.initializers: Keras 3's names and arguments, the fan rules, the distributions'
bounds and moments, and determinism for a seed."""

from __future__ import annotations

import numpy as np
import pytest
import rustape as rt

init = rt.keras.initializers


@pytest.mark.parametrize(
    "name",
    [
        "glorot_uniform",
        "GlorotNormal",
        "he_uniform",
        "he_normal",
        "lecun_uniform",
        "lecun_normal",
        "random_normal",
        "random_uniform",
        "truncated_normal",
        "variance_scaling",
    ],
)
def test_names_resolve_and_seeds_repeat(name: str) -> None:
    cls = type(init.get(name))
    a, b = cls(seed=3), cls(seed=3)
    np.testing.assert_array_equal(a((30, 20)).numpy(), b((30, 20)).numpy())
    assert not np.array_equal(cls(seed=4)((30, 20)).numpy(), a((30, 20)).numpy())
    # Keras's rule: an unseeded initializer takes its seed from Python's `random` when made.
    rt.keras.utils.set_random_seed(5)
    first = cls()((4, 4)).numpy()
    rt.keras.utils.set_random_seed(5)
    np.testing.assert_array_equal(cls()((4, 4)).numpy(), first)


def test_variance_scaling_uses_keras_fans() -> None:
    # A 3x3 convolution kernel with 16 input and 32 output channels: fans 144 and 288.
    w = init.HeUniform(seed=0)((3, 3, 16, 32)).numpy()
    limit = np.sqrt(6 / 144)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.9 * limit
    g = init.GlorotNormal(seed=0)((200, 300)).numpy()
    assert abs(g.std() - np.sqrt(2 / 500)) < 0.05 * np.sqrt(2 / 500)
    assert np.abs(g).max() <= 2 * np.sqrt(2 / 500) / 0.87962566103423978 + 1e-6
    t = init.TruncatedNormal(mean=1.0, stddev=0.5, seed=1)((10000,)).numpy()
    assert t.min() >= 0.0 and t.max() <= 2.0


def test_constants_identity_and_errors() -> None:
    assert init.Constant(2.5)((2, 2), dtype="float64").numpy().dtype == np.float64
    np.testing.assert_array_equal(init.Identity(3.0)((2, 3)).numpy(), 3 * np.eye(2, 3))
    with pytest.raises(ValueError, match="2D"):
        init.Identity()((2, 2, 2))
    with pytest.raises(ValueError, match="mode"):
        init.VarianceScaling(mode="fan_sum")
    with pytest.raises(ValueError, match="Unknown initializer"):
        init.get("nope")
    layer = rt.keras.layers.Dense(4, kernel_initializer=init.GlorotUniform(seed=7))
    layer(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(layer.kernel.numpy(), init.GlorotUniform(seed=7)((3, 4)).numpy())
