"""`rt.random`: seeded random tensors (`tf.random`).

`set_seed(s)` makes the sequence of random ops that follows repeat.
"""
from __future__ import annotations

from . import _rustape as _rt
from ._ops import truncated_normal

__all__ = ["normal", "uniform", "truncated_normal", "set_seed"]

#: `normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None)`
normal = _rt.random_normal
#: `uniform(shape, minval=0, maxval=None, dtype=float32, seed=None)`: `[minval, maxval)`,
#: `[0, 1)` for floats by default.
uniform = _rt.random_uniform
#: `set_seed(seed)`: the random ops that follow give the same values on every run.
set_seed = _rt.set_seed
