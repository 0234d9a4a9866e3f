"""`rt.keras.random`: Keras 3's random functions with its seed rules, over `rt.random`'s
stateless samplers.

`seed` is an int (the same values at every call, as Keras's stateless draws), a
`SeedGenerator` (a new seed pair at every call, so a layer draws fresh noise each step
while staying repeatable), or None (Keras's global `SeedGenerator`, which
`keras.utils.set_random_seed` makes repeatable). The values are those Keras 3's TensorFlow
backend draws, bit for bit: the seed pair `[seed, counter]` folded into int32 and
`rt.random.stateless_*` (TensorFlow's Philox values).

>>> import rustape as rt
>>> seeds = rt.keras.random.SeedGenerator(1337)
>>> a = rt.keras.random.normal((2, 3), seed=seeds)
>>> b = rt.keras.random.normal((2, 3), seed=seeds)
>>> a.shape, bool((a.numpy() != b.numpy()).any())
((2, 3), True)
"""

from __future__ import annotations

import operator
import random as _pyrandom
from typing import Any

from .. import _rustape as _rt
from .. import random as _random

__all__ = [
    "SeedGenerator",
    "beta",
    "categorical",
    "dropout",
    "gamma",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]


class SeedGenerator:
    """A seed state for Keras's random functions: each call with `seed=generator` uses the
    current `[seed, counter]` pair and advances the counter (Keras 3's `SeedGenerator`; with
    no seed, one from Python's `random`, which `keras.utils.set_random_seed` seeds).

    >>> g = rt.keras.random.SeedGenerator(42)
    >>> g.next().numpy().tolist(), g.next().numpy().tolist()
    ([42, 0], [42, 1])
    """

    def __init__(self, seed: int | None = None, name: str | None = None, **kwargs: Any) -> None:
        self._initial_seed = seed
        if seed is None:
            seed = _make_default_seed()
        elif isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed!r}")
        self.seed = seed
        self.name = name or "seed_generator"
        self.state = _rt.Variable(_rt.constant([seed, 0], dtype=_rt.int64), trainable=False)

    def next(self, ordered: bool = True) -> Any:
        """The current `[seed, counter]` pair (int64); the counter moves on by one (unordered:
        the state becomes `(state + 1) * 5387 % 933199`, as Keras's global generator)."""
        value = self.state.value()
        if ordered:
            self.state.assign(value + _rt.constant([0, 1], dtype=_rt.int64))
        else:
            a, b = (int(v) for v in value.numpy().tolist())
            self.state.assign(
                _rt.constant([(a + 1) * 5387 % 933199, (b + 1) * 5387 % 933199], dtype=_rt.int64)
            )
        return value

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> SeedGenerator:
        """A generator from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<rt.keras.random.SeedGenerator seed={self.seed}>"


def _make_default_seed() -> int:
    """A seed from Python's `random` (`random.randint(1, 10**9)`, Keras's rule).

    >>> 1 <= rt.keras.random._make_default_seed() <= 10**9
    True
    """
    return _pyrandom.randint(1, int(1e9))


_global_generator: list[SeedGenerator] = []


def _global_seed_generator() -> SeedGenerator:
    """The generator of draws without a seed (made on first use; `keras.utils.set_random_seed`
    forgets it).

    >>> isinstance(rt.keras.random._global_seed_generator(), rt.keras.random.SeedGenerator)
    True
    """
    if not _global_generator:
        _global_generator.append(SeedGenerator())
    return _global_generator[0]


def _reset_global_generator() -> None:
    _global_generator.clear()


#: Keras's TensorFlow backend folds int64 seeds into int32 (`floormod(seed, 2**31 - 2)`).
_SEED_MOD = 2**31 - 2


def _seed_pair(seed: Any, op: str) -> list[int]:
    """The stateless seed pair Keras's TensorFlow backend draws with for `seed` (an int, a
    SeedGenerator or None for the global generator)."""
    if seed is None:
        value = _global_seed_generator().next(ordered=False)
    elif isinstance(seed, SeedGenerator):
        value = seed.next()
    elif isinstance(seed, bool):
        raise ValueError(
            f"keras.random.{op}: `seed` must be an int or a SeedGenerator, got {seed!r}"
        )
    else:
        try:
            value = [operator.index(seed), 0]
        except TypeError:
            raise ValueError(
                f"keras.random.{op}: `seed` must be an int, a SeedGenerator or None, got {seed!r}"
            ) from None
    words = value.numpy().tolist() if hasattr(value, "numpy") else value
    return [int(w) % _SEED_MOD for w in words]


def _float_dtype(op: str, dtype: Any) -> Any:
    dt = _rt.float32 if dtype is None else _rt.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"keras.random.{op}: dtype must be a floating dtype, got {dt.name}")
    return dt


def normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    """Samples of a normal distribution.

    >>> rt.keras.random.normal((2,), seed=3).numpy().tolist() == rt.keras.random.normal((2,), seed=3).numpy().tolist()
    True
    """
    dt = _float_dtype("normal", dtype)
    pair = _seed_pair(seed, "normal")
    return _random.stateless_normal(list(shape), pair, mean=mean, stddev=stddev, dtype=dt)


def uniform(
    shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    """Samples uniform in `[minval, maxval)`.

    >>> bool((rt.keras.random.uniform((100,), seed=1).numpy() < 1.0).all())
    True
    """
    dt = _float_dtype("uniform", dtype)
    pair = _seed_pair(seed, "uniform")
    return _random.stateless_uniform(list(shape), pair, minval=minval, maxval=maxval, dtype=dt)


def randint(shape: Any, minval: int, maxval: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """Integers uniform in `[minval, maxval)`.

    >>> sorted(set(rt.keras.random.randint((200,), 0, 3, seed=0).numpy().tolist()))
    [0, 1, 2]
    """
    dt = _rt.as_dtype(dtype)
    if dt not in (_rt.int32, _rt.int64):
        raise ValueError(f"keras.random.randint: dtype must be an integer dtype, got {dt.name}")
    pair = _seed_pair(seed, "randint")
    return _random.stateless_uniform(list(shape), pair, minval=minval, maxval=maxval, dtype=dt)


def truncated_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    """Normal samples redrawn beyond two standard deviations of the mean.

    >>> bool((abs(rt.keras.random.truncated_normal((500,), seed=2).numpy()) <= 2.0).all())
    True
    """
    dt = _float_dtype("truncated_normal", dtype)
    pair = _seed_pair(seed, "truncated_normal")
    return _random.stateless_truncated_normal(list(shape), pair, mean=mean, stddev=stddev, dtype=dt)


def categorical(logits: Any, num_samples: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """`num_samples` class indices per row of `logits` (unnormalised log-probabilities).

    >>> rt.keras.random.categorical([[0.0, -1e9]], 3, seed=0).numpy().tolist()
    [[0, 0, 0]]
    """
    pair = _seed_pair(seed, "categorical")
    return _random.stateless_categorical(logits, num_samples, pair, dtype=dtype)


def dropout(inputs: Any, rate: float, noise_shape: Any = None, seed: Any = None) -> Any:
    """`inputs` with each element (or each slice of `noise_shape`) zeroed with probability
    `rate` and the rest scaled by `1 / (1 - rate)`.

    >>> float(rt.keras.random.dropout(rt.ones([4]), 0.0, seed=1).numpy().sum())
    4.0
    """
    x = _rt.convert_to_tensor(inputs) if not isinstance(inputs, _rt.Tensor) else inputs
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(f"keras.random.dropout: rate must be in [0, 1), got {rate!r}")
    if rate == 0:
        return x
    shape = (
        list(x.shape)
        if noise_shape is None
        else [int(x.shape[i]) if d is None else int(d) for i, d in enumerate(noise_shape)]
    )
    keep = _rt.greater_equal(uniform(shape, dtype=x.dtype, seed=seed), rate)
    scale = _rt.constant(1.0 / (1.0 - rate), dtype=x.dtype)
    return _rt.where(keep, x * scale, _rt.zeros_like(x))


def shuffle(x: Any, axis: int = 0, seed: Any = None) -> Any:
    """`x` with its slices along `axis` in a random order.

    >>> sorted(rt.keras.random.shuffle([1, 2, 3, 4], seed=5).numpy().tolist())
    [1, 2, 3, 4]
    """
    t = _rt.convert_to_tensor(x) if not isinstance(x, _rt.Tensor) else x
    if not t.shape:
        raise ValueError("keras.random.shuffle: needs a tensor of rank >= 1")
    n = int(t.shape[axis])
    keys = uniform([n], seed=seed)
    return _rt.gather(t, _rt.argsort(keys), axis=axis)


def gamma(shape: Any, alpha: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Gamma samples of shape `alpha` (unit rate): `rt.random.stateless_gamma` with Keras's
    seed pair, Keras's values.

    >>> bool((rt.keras.random.gamma((4,), 2.0, seed=1).numpy() > 0).all())
    True
    """
    dt = _float_dtype("gamma", dtype)
    pair = _seed_pair(seed, "gamma")
    return _random.stateless_gamma(list(shape), pair, alpha, dtype=dt)


def beta(shape: Any, alpha: Any, beta: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Beta samples `X / (X + Y)` of two gamma draws (`alpha` with the seed pair, `beta` with
    the pair plus 12: Keras's TensorFlow backend).

    >>> x = rt.keras.random.beta((5,), 2.0, 3.0, seed=1).numpy()
    >>> bool(((x > 0) & (x < 1)).all())
    True
    """
    dt = _float_dtype("beta", dtype)
    first = _seed_pair(seed, "beta")
    second = [w + 12 for w in first]
    dims = list(shape)
    a = _rt.broadcast_to(
        _rt.constant(alpha, dtype=dt) if not isinstance(alpha, _rt.Tensor) else alpha, dims
    )
    b = _rt.broadcast_to(
        _rt.constant(beta, dtype=dt) if not isinstance(beta, _rt.Tensor) else beta, dims
    )
    gamma_a = _random.stateless_gamma(dims, first, a, dtype=dt)
    gamma_b = _random.stateless_gamma(dims, second, b, dtype=dt)
    return gamma_a / (gamma_a + gamma_b)
