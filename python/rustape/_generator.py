"""`rt.random.Generator`: a random stream with its own state (`tf.random.Generator`), made of
the stateless ops: each draw uses the seed pair (key, counter) and advances the counter."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rustape as _rt

#: Seeds are kept within int64, as the stateless ops take them.
_MASK = (1 << 63) - 1


class Generator:
    """Independent random numbers with their own state: `from_seed(seed)` repeats its
    sequence; `from_non_deterministic_state()` differs every run. Each draw advances the
    state, so successive draws differ; `split(n)` makes independent generators. Values are
    rustape's, not TensorFlow's (the same seed gives the same values in rustape).

    >>> import rustape as rt
    >>> g = rt.random.Generator.from_seed(42)
    >>> a = g.normal([2])
    >>> b = rt.random.Generator.from_seed(42).normal([2])
    >>> a.numpy().tolist() == b.numpy().tolist(), g.normal([2]).numpy().tolist() == a.numpy().tolist()
    (True, False)
    """

    def __init__(
        self, copy_from: Generator | None = None, state: Any = None, alg: Any = None
    ) -> None:
        key: int
        counter: int
        if copy_from is not None:
            key, counter = copy_from.key_and_counter()
        elif state is not None:
            words = np.asarray(state.numpy() if hasattr(state, "numpy") else state).reshape(-1)
            if words.size < 2:
                raise ValueError(f"Generator: `state` needs two integers, got {words.size}")
            key, counter = int(words[0]), int(words[1])
        else:
            key, counter = int(np.random.SeedSequence().entropy) & _MASK, 0  # type: ignore[arg-type]
        self._key = key & _MASK
        self._counter = counter & _MASK
        self.algorithm = alg

    def key_and_counter(self) -> tuple[int, int]:
        """The state as two Python ints (`state` as a tensor)."""
        return self._key, self._counter

    @classmethod
    def from_seed(cls, seed: int, alg: Any = None) -> Generator:
        """A generator whose sequence depends only on `seed`."""
        return cls(state=[int(seed) & _MASK, 0], alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """A generator seeded from the operating system's entropy."""
        return cls(alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any = None) -> Generator:
        """A generator continuing from `state` (a `state` read earlier)."""
        return cls(state=state, alg=alg)

    @property
    def state(self) -> Any:
        """The current state: an int64 tensor `[key, counter]`."""
        return _rt.constant(np.array([self._key, self._counter], np.int64))

    def reset_from_seed(self, seed: int) -> None:
        """Restarts as `from_seed(seed)` would."""
        self._key, self._counter = int(seed) & _MASK, 0

    def reset(self, state: Any) -> None:
        """Continues from `state`."""
        self._key, self._counter = Generator(state=state).key_and_counter()

    def _next_seed(self) -> list[int]:
        seed = [self._key, self._counter]
        self._counter = (self._counter + 1) & _MASK
        return seed

    def normal(
        self,
        shape: Any,
        mean: float = 0.0,
        stddev: float = 1.0,
        dtype: Any = None,
        name: Any = None,
    ) -> Any:
        """Normal values (`rt.random.stateless_normal` of the next seed)."""
        return _rt.stateless_normal(shape, self._next_seed(), mean, stddev, dtype)

    def uniform(
        self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = None, name: Any = None
    ) -> Any:
        """Uniform values in `[minval, maxval)` (integer dtypes need `maxval`)."""
        return _rt.stateless_uniform(shape, self._next_seed(), minval, maxval, dtype)

    def truncated_normal(
        self,
        shape: Any,
        mean: float = 0.0,
        stddev: float = 1.0,
        dtype: Any = None,
        name: Any = None,
    ) -> Any:
        """Normal values within two standard deviations of `mean`."""
        return _rt.stateless_truncated_normal(shape, self._next_seed(), mean, stddev, dtype)

    def categorical(
        self, logits: Any, num_samples: int, dtype: Any = None, name: Any = None
    ) -> Any:
        """Class indices drawn from each row of `logits` (as `rt.random.categorical`)."""
        return _rt.stateless_categorical(logits, num_samples, self._next_seed(), dtype)

    def uniform_full_int(self, shape: Any, dtype: Any = None, name: Any = None) -> Any:
        """Integers over the whole range of `dtype` (int64 by default, or int32)."""
        kind = _rt.as_dtype(dtype or "int64")
        if kind == _rt.int32:
            return _rt.stateless_uniform(shape, self._next_seed(), -(2**31), 2**31, kind)
        if kind != _rt.int64:
            raise TypeError(f"Generator.uniform_full_int: expected int32 or int64, got {kind}")
        halves = _rt.stateless_uniform([2, *list(shape)], self._next_seed(), 0, 2**32, _rt.int64)
        high, low = halves[0], halves[1]
        # The high half's top bit wraps into the sign, as an int64 does.
        return _rt.add(_rt.multiply(_rt.subtract(high, 2**31), 2**32), low)

    def make_seeds(self, count: int = 1) -> Any:
        """`count` seed pairs for the stateless ops: an int64 tensor `[2, count]`."""
        return _rt.stateless_uniform([2, int(count)], self._next_seed(), 0, _MASK, _rt.int64)

    def split(self, count: int = 1) -> list[Generator]:
        """`count` new generators, independent of this one and of each other."""
        seeds = self.make_seeds(count).numpy()
        return [Generator(state=[int(seeds[0, i]), int(seeds[1, i])]) for i in range(int(count))]

    def __repr__(self) -> str:
        return f"<rt.random.Generator key={self._key} counter={self._counter}>"


_global: list[Generator] = []


def get_global_generator() -> Generator:
    """The generator `rt.random` functions of a `Generator` share (made from entropy on first
    use, unless `set_global_generator` gave one).

    >>> import rustape as rt
    >>> rt.random.get_global_generator().normal([2]).shape
    (2,)
    """
    if not _global:
        _global.append(Generator.from_non_deterministic_state())
    return _global[0]


def set_global_generator(generator: Generator) -> None:
    """Replaces the global generator.

    >>> import rustape as rt
    >>> rt.random.set_global_generator(rt.random.Generator.from_seed(1))
    """
    if not isinstance(generator, Generator):
        raise TypeError(
            f"set_global_generator: expected a Generator, got {type(generator).__name__}"
        )
    _global[:] = [generator]
