"""`rt.keras.random`: Keras 3's seed rules (an int repeats, a SeedGenerator advances, None
follows the global seed) and the distributions' properties (rustape's values are its own,
so they are checked statistically: 20,000 draws, bounds a few standard errors wide)."""

from __future__ import annotations

import numpy as np
import pytest
import rustape as rt

R = rt.keras.random
N = 20_000


def test_int_seeds_repeat_and_generators_advance():
    np.testing.assert_array_equal(R.normal((5,), seed=7).numpy(), R.normal((5,), seed=7).numpy())
    g = R.SeedGenerator(7)
    first, second = R.normal((5,), seed=g).numpy(), R.normal((5,), seed=g).numpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, R.normal((5,), seed=7).numpy())
    again = R.SeedGenerator(7)
    np.testing.assert_array_equal(R.normal((5,), seed=again).numpy(), first)
    assert g.next().numpy().tolist() == [7, 2]
    rt.keras.utils.set_random_seed(11)
    a = R.uniform((4,)).numpy()
    rt.keras.utils.set_random_seed(11)
    np.testing.assert_array_equal(a, R.uniform((4,)).numpy())


def test_distributions_have_their_moments_and_bounds():
    g = R.SeedGenerator(0)
    x = R.normal((N,), mean=2.0, stddev=3.0, seed=g).numpy()
    assert abs(x.mean() - 2.0) < 4 * 3.0 / N**0.5 and abs(x.std() - 3.0) < 0.06
    u = R.uniform((N,), minval=-1.0, maxval=3.0, seed=g, dtype="float64").numpy()
    assert u.dtype == np.float64 and u.min() >= -1.0 and u.max() < 3.0
    assert abs(u.mean() - 1.0) < 4 * (16 / 12) ** 0.5 / N**0.5
    t = R.truncated_normal((N,), mean=1.0, stddev=0.5, seed=g).numpy()
    assert t.min() >= 0.0 and t.max() <= 2.0 and abs(t.mean() - 1.0) < 0.02
    k = R.randint((N,), 3, 7, seed=g).numpy()
    assert k.dtype == np.int32 and set(np.unique(k).tolist()) == {3, 4, 5, 6}
    c = R.categorical(np.log([[0.2, 0.8]]), N, seed=g).numpy()
    assert c.shape == (1, N) and abs(c.mean() - 0.8) < 0.02


def test_dropout_and_shuffle():
    g = R.SeedGenerator(3)
    y = R.dropout(rt.ones([N]), 0.25, seed=g).numpy()
    assert set(np.unique(y).tolist()) == {0.0, float(np.float32(4.0 / 3.0))}
    assert abs((y == 0).mean() - 0.25) < 0.02
    z = R.dropout(rt.ones([8, 4]), 0.5, noise_shape=(8, 1), seed=g).numpy()
    assert all(len(set(row.tolist())) == 1 for row in z)
    s = R.shuffle(rt.reshape(rt.range(12), [6, 2]), seed=g).numpy()
    assert sorted(s[:, 0].tolist()) == [0, 2, 4, 6, 8, 10] and (s[:, 1] == s[:, 0] + 1).all()


def test_a_sampling_layer_with_a_seed_generator_trains():
    class Sampling(rt.keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.seed_generator = R.SeedGenerator(1337)

        def call(self, inputs):
            mean, log_var = inputs
            noise = R.normal(tuple(mean.shape), seed=self.seed_generator)
            return mean + rt.exp(0.5 * log_var) * noise

    inputs = rt.keras.Input((4,))
    mean = rt.keras.layers.Dense(2)(inputs)
    log_var = rt.keras.layers.Dense(2)(inputs)
    model = rt.keras.Model(inputs, Sampling()([mean, log_var]))
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(0).normal(size=(32, 4)).astype(np.float32)
    history = model.fit(x, np.zeros((32, 2), np.float32), epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3 and np.isfinite(history.history["loss"]).all()


def test_bad_arguments():
    with pytest.raises(ValueError, match="seed"):
        R.normal((2,), seed="x")
    with pytest.raises(ValueError, match="seed"):
        R.SeedGenerator(1.5)
    with pytest.raises(ValueError, match="floating"):
        R.normal((2,), dtype="int32")
    with pytest.raises(ValueError, match="integer"):
        R.randint((2,), 0, 3, dtype="float32")
    with pytest.raises(ValueError, match="rate"):
        R.dropout(rt.ones([2]), 1.0)
