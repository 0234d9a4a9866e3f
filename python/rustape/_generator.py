"""`rt.random.Generator`: a random stream with its own state (`tf.random.Generator`), drawing
TensorFlow's values.

The state is TensorFlow's Philox layout, three 64-bit words `[counter_low, counter_high,
key]`. A draw of `n` values reads the state and moves the 128-bit counter on by `256 * n`
(TensorFlow's rule), then samples as the stateless ops do from that key and counter
(`_rustape.philox_draw`). Only the bookkeeping of the three words is here."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _rustape as _rt
from ._export import export

_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
#: TensorFlow's counter advance per value drawn.
_PER_VALUE = 256
#: `rt.random.Algorithm.PHILOX` (the only algorithm here, TensorFlow's default on CPU).
PHILOX = 1


def _alg(alg: Any) -> int:
    name = getattr(alg, "name", alg)
    if alg is None or (isinstance(name, str) and name.lower() in ("philox", "auto_select")):
        return PHILOX
    if isinstance(alg, int) and alg in (1, 3):
        return PHILOX
    raise ValueError(
        f"Generator: alg must be 'philox' or 'auto_select' (rustape has no threefry), got {alg!r}"
    )


def _words(value: Any) -> list[int]:
    """Integers of a state-like value (int, list, array, tensor), as unsigned 64-bit words."""
    if isinstance(value, int):
        return [value & _M64]
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return [v & _M64 for v in value]
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value).reshape(-1)
    return [int(v) & _M64 for v in arr.tolist()]


def _state_of(words: list[int]) -> list[int]:
    """Three words, padded with zeros on the left (TensorFlow's `_make_1d_state`)."""
    words = words[:3]
    return [0] * (3 - len(words)) + words


def _signed(w: int) -> int:
    return w - (1 << 64) if w >> 63 else w


@export("random")
class Generator:
    """Independent random numbers with their own state, TensorFlow's values:
    `from_seed(seed)` repeats `tf.random.Generator.from_seed(seed)`'s sequence bit for bit;
    `from_non_deterministic_state()` differs every run. Each draw advances the state, so
    successive draws differ; `split(n)` makes independent generators.

    >>> import rustape as rt
    >>> g = rt.random.Generator.from_seed(42)
    >>> a = g.normal([2])
    >>> b = rt.random.Generator.from_seed(42).normal([2])
    >>> a.numpy().tolist() == b.numpy().tolist(), g.normal([2]).numpy().tolist() == a.numpy().tolist()
    (True, False)
    >>> g.state.numpy().tolist()
    [1066, 0, 0]
    """

    #: The algorithm, as TensorFlow's integer (1: Philox).
    algorithm: int
    _state: list[int]

    def __init__(
        self, copy_from: Generator | None = None, state: Any = None, alg: Any = None
    ) -> None:
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("Generator: give `copy_from` alone, or `state` and `alg`")
            words = list(copy_from._state)
            alg = copy_from.algorithm
        elif state is not None:
            words = _words(state)
            if len(words) != 3:
                raise ValueError(
                    f"Generator: a Philox state has 3 integers [counter_low, counter_high, "
                    f"key], got {len(words)}"
                )
        else:
            words = [int(v) for v in np.random.SeedSequence().generate_state(3, np.uint64)]
        self._state = words
        self.algorithm = _alg(alg)

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        """A generator whose sequence depends only on `seed` (an int of any size, or
        integers): its 64-bit words from the lowest, zeros on the left, as TensorFlow."""
        if isinstance(seed, bool):
            raise TypeError("Generator.from_seed: seed must be an integer, got a bool")
        if isinstance(seed, int):
            words = [(seed >> (64 * i)) & _M64 for i in range(3)]
        else:
            words = _state_of(_words(seed))
        return cls(state=words, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """A generator seeded from the operating system's entropy."""
        return cls(alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any = None) -> Generator:
        """A generator continuing from `state` (a `state` read earlier)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any = None) -> Generator:
        """A generator from a key (one integer) and a counter (two integers)."""
        counter_words, key_words = _words(counter), _words(key)
        if len(counter_words) != 2 or len(key_words) != 1:
            raise ValueError("Generator.from_key_counter: key is one integer, counter two")
        return cls(state=counter_words + key_words, alg=alg)

    @property
    def state(self) -> Any:
        """The current state: an int64 tensor `[counter_low, counter_high, key]`."""
        return _rt.constant(np.array([_signed(w) for w in self._state], np.int64))

    @property
    def key(self) -> Any:
        """The key part of the state (an int64 scalar tensor)."""
        return _rt.constant(np.int64(_signed(self._state[2])))

    def reset(self, state: Any) -> None:
        """Continues from `state`."""
        self._state = Generator(state=state)._state

    def reset_from_seed(self, seed: Any) -> None:
        """Restarts as `from_seed(seed)` would."""
        self._state = Generator.from_seed(seed)._state

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        """Restarts from a key and a counter."""
        self._state = Generator.from_key_counter(key, counter)._state

    def skip(self, delta: int) -> Any:
        """Moves the counter on as `delta` values would (`256 * delta`); returns the state
        before."""
        before = self.state
        counter = (self._state[0] | self._state[1] << 64) + _PER_VALUE * int(delta)
        counter &= _M128
        self._state = [counter & _M64, counter >> 64, self._state[2]]
        return before

    def _take(self, shape: Any) -> list[int]:
        """The state for a draw of `shape`; the counter moves on."""
        dims = [int(d) for d in (shape.numpy().tolist() if hasattr(shape, "numpy") else shape)]
        state = [_signed(w) for w in self._state]
        self.skip(math.prod(dims))
        return state

    def normal(
        self,
        shape: Any,
        mean: float = 0.0,
        stddev: float = 1.0,
        dtype: Any = None,
        name: Any = None,
    ) -> Any:
        """Normal values (`z * stddev + mean`)."""
        dt = _rt.as_dtype(dtype or "float32")
        return _rt.philox_draw("normal", shape, self._take(shape), dt, mean, stddev)

    def truncated_normal(
        self,
        shape: Any,
        mean: float = 0.0,
        stddev: float = 1.0,
        dtype: Any = None,
        name: Any = None,
    ) -> Any:
        """Normal values within two standard deviations of `mean` (redrawn beyond)."""
        dt = _rt.as_dtype(dtype or "float32")
        return _rt.philox_draw("truncated_normal", shape, self._take(shape), dt, mean, stddev)

    def uniform(
        self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = None, name: Any = None
    ) -> Any:
        """Uniform values in `[minval, maxval)` (floats: `[0, 1)` by default); for integers
        `minval` and `maxval` both given, or both None for the full range."""
        dt = _rt.as_dtype(dtype or "float32")
        if dt.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    f"Generator.uniform: for integer dtype {dt.name}, minval and maxval must "
                    f"be both None or both given; got minval={minval} and maxval={maxval}"
                )
            if minval is None:
                return self.uniform_full_int(shape, dt)
        elif maxval is None:
            maxval = 1.0
        return _rt.philox_draw("uniform", shape, self._take(shape), dt, minval, maxval)

    def uniform_full_int(self, shape: Any, dtype: Any = None, name: Any = None) -> Any:
        """Integers over the whole range of `dtype` (int64 by default: TensorFlow's uint64
        bits, or int32)."""
        dt = _rt.as_dtype(dtype or "int64")
        return _rt.philox_draw("full_int", shape, self._take(shape), dt)

    def make_seeds(self, count: int = 1) -> Any:
        """`count` seed pairs for the stateless ops: an int64 tensor `[2, count]` (a
        full-range key and a zero each, as TensorFlow)."""
        keys = self.uniform_full_int([int(count)], _rt.int64)
        return _rt.stack([keys, _rt.zeros_like(keys)])

    def split(self, count: int = 1) -> list[Generator]:
        """`count` new generators, independent of this one and of each other (each with a
        full-range key drawn here and a zero counter, as TensorFlow)."""
        keys = self.uniform_full_int([int(count)], _rt.int64).numpy().tolist()
        return [Generator(state=[0, 0, int(k) & _M64], alg=self.algorithm) for k in keys]

    def categorical(
        self, logits: Any, num_samples: int, dtype: Any = None, name: Any = None
    ) -> Any:
        """Class indices drawn from each row of `logits` (`rt.random.stateless_categorical`
        with a seed from `make_seeds`; TensorFlow's Generator has no such method)."""
        seed = self.make_seeds(1)[:, 0]
        return _rt.stateless_categorical(logits, num_samples, seed, dtype)

    def __repr__(self) -> str:
        return f"<rt.random.Generator state={[_signed(w) for w in self._state]}>"


_global: list[Generator] = []


@export("random")
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


@export("random")
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
