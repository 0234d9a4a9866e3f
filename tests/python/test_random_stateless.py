"""`rt.random.categorical`, the stateless ops and `Generator`: the distributions (moments,
ranges, chi-square of frequencies against the probabilities), determinism in the seed
alone, independence from the global seed state, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import rustape as rt

N = 200_000


def _chi_square_ok(counts: np.ndarray, probabilities: np.ndarray) -> None:
    # Far beyond any chi-square quantile a correct sampler reaches (p < 1e-9 at these dfs).
    expected = probabilities * counts.sum()
    statistic = float(((counts - expected) ** 2 / expected).sum())
    assert statistic < 10 * len(counts) + 40, (statistic, counts, expected)


def test_stateless_ops_depend_only_on_the_seed() -> None:
    a = rt.random.stateless_normal([5], seed=[1, 2]).numpy()
    rt.random.set_seed(99)
    rt.random.normal([7])  # global state moves; the stateless op does not see it
    b = rt.random.stateless_normal([5], seed=(1, 2)).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, rt.random.stateless_normal([5], seed=[1, 3]).numpy())
    assert not np.array_equal(a, rt.random.stateless_normal([5], seed=[2, 1]).numpy())
    # As TensorFlow's: a float64 normal pair and the uniforms of the same seed read the same
    # Philox outputs (Box-Muller's radius comes from the pair's first uniform).
    z = rt.random.stateless_normal([N], seed=[1, 2], dtype=rt.float64).numpy()
    u = rt.random.stateless_uniform([N], seed=[1, 2], dtype=rt.float64).numpy()
    radius = z[0::2] ** 2 + z[1::2] ** 2
    np.testing.assert_allclose(radius, -2 * np.log(np.maximum(u[0::2], 1e-7)), rtol=1e-12)
    seeds = rt.constant([1, 2], dtype=rt.int64)
    np.testing.assert_array_equal(rt.random.stateless_normal([5], seed=seeds).numpy(), a)


def test_stateless_distributions() -> None:
    z = rt.random.stateless_normal([N], seed=[3, 4], mean=2.0, stddev=3.0, dtype=rt.float64).numpy()
    assert abs(z.mean() - 2.0) < 0.05 and abs(z.std() - 3.0) < 0.05
    u = rt.random.stateless_uniform([N], seed=[5, 6], minval=-1.0, maxval=3.0).numpy()
    assert u.dtype == np.float32 and u.min() >= -1.0 and u.max() < 3.0
    assert abs(u.mean() - 1.0) < 0.02
    k = rt.random.stateless_uniform([N], seed=[7, 8], minval=-3, maxval=4, dtype=rt.int64).numpy()
    _chi_square_ok(np.bincount(k + 3, minlength=7), np.full(7, 1 / 7))
    t = rt.random.stateless_truncated_normal([N], seed=[9, 10], dtype=rt.float64).numpy()
    assert np.abs(t).max() <= 2.0
    # The variance of a standard normal truncated to [-2, 2].
    phi2 = math.exp(-2.0) / math.sqrt(2 * math.pi)
    inside = math.erf(2 / math.sqrt(2))
    assert abs(t.var() - (1 - 4 * phi2 / inside)) < 0.01


def test_categorical_frequencies_match_softmax() -> None:
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [3.0, -np.inf, 0.0, 0.5]], np.float32)
    rt.random.set_seed(0)
    draws = rt.random.categorical(logits, 50_000).numpy()
    assert draws.shape == (2, 50_000) and draws.dtype == np.int64
    for row in range(2):
        probabilities = np.exp(logits[row] - logits[row].max())
        probabilities /= probabilities.sum()
        counts = np.bincount(draws[row], minlength=4)
        assert counts[probabilities == 0].sum() == 0  # a class of logit -inf never comes
        keep = probabilities > 0
        _chi_square_ok(counts[keep], probabilities[keep])
    rt.random.set_seed(0)
    np.testing.assert_array_equal(rt.random.categorical(logits, 50_000).numpy(), draws)
    small = rt.random.stateless_categorical(logits, 6, seed=[1, 1], dtype=rt.int32)
    assert small.dtype == rt.int32 and small.shape == (2, 6)
    np.testing.assert_array_equal(
        small.numpy(),
        rt.random.stateless_categorical(logits, 6, seed=[1, 1], dtype=rt.int32).numpy(),
    )


def test_generator_streams() -> None:
    g = rt.random.Generator.from_seed(7)
    first, second = g.normal([4]).numpy(), g.normal([4]).numpy()
    assert not np.array_equal(first, second)
    again = rt.random.Generator.from_seed(7)
    np.testing.assert_array_equal(again.normal([4]).numpy(), first)
    saved = again.state
    later = again.uniform([3]).numpy()
    again.reset(saved)
    np.testing.assert_array_equal(again.uniform([3]).numpy(), later)
    copy = rt.random.Generator(copy_from=again)
    np.testing.assert_array_equal(copy.normal([2]).numpy(), again.normal([2]).numpy())
    children = g.split(3)
    draws = [c.normal([8]).numpy() for c in children]
    assert not np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[1], draws[2])
    full = g.uniform_full_int([N], dtype=rt.int64).numpy()
    assert full.min() < -(2**62) and full.max() > 2**62
    ints = g.uniform([N], 0, 5, dtype=rt.int32).numpy()
    _chi_square_ok(np.bincount(ints, minlength=5), np.full(5, 0.2))
    assert g.make_seeds(4).shape == (2, 4)
    a = rt.random.Generator.from_non_deterministic_state().normal([4]).numpy()
    b = rt.random.Generator.from_non_deterministic_state().normal([4]).numpy()
    assert not np.array_equal(a, b)
    rt.random.set_global_generator(rt.random.Generator.from_seed(1))
    np.testing.assert_array_equal(
        rt.random.get_global_generator().normal([3]).numpy(),
        rt.random.Generator.from_seed(1).normal([3]).numpy(),
    )


def test_random_errors() -> None:
    with pytest.raises(ValueError, match=r"random.stateless_normal.*seed must be two integers"):
        rt.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(ValueError, match="seed must be two integers"):
        rt.random.stateless_normal([2], seed="ab")
    with pytest.raises(ValueError, match=r"random.stateless_uniform.*both None .* or both given"):
        rt.random.stateless_uniform([2], seed=[1, 2], minval=0, dtype=rt.int32)
    # Both None: the full range (TensorFlow's `minval=None, maxval=None`).
    full = rt.random.stateless_uniform([4], seed=[1, 2], dtype=rt.int32).numpy()
    assert full.dtype == np.int32 and full.shape == (4,)
    with pytest.raises(TypeError, match="floating dtype"):
        rt.random.stateless_normal([2], seed=[1, 2], dtype=rt.int32)
    with pytest.raises(ValueError, match=r"random.categorical.*float matrix \[batch, classes\]"):
        rt.random.categorical([0.0, 1.0], 2)
    with pytest.raises(ValueError, match="row 1 of logits has no finite value"):
        rt.random.categorical([[0.0, 1.0], [-np.inf, -np.inf]], 2)
    with pytest.raises(ValueError, match="row 0 of logits holds NaN"):
        rt.random.categorical([[0.0, np.nan]], 2)
    with pytest.raises(TypeError, match="integer output dtype"):
        rt.random.categorical([[0.0, 1.0]], 2, dtype=rt.float32)
    with pytest.raises(ValueError, match="num_samples"):
        rt.random.categorical([[0.0, 1.0]], -1)
    with pytest.raises(TypeError, match="Generator"):
        rt.random.set_global_generator(object())  # type: ignore[arg-type]
