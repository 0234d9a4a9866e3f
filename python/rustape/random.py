"""`rt.random`: seeded random tensors (`tf.random`).

`normal`, `uniform`, `truncated_normal`, `categorical`, `shuffle`, `gamma`; the stateless
ops (`stateless_normal`, ...: values that depend only on a seed pair), `split` / `fold_in`
and `Generator`. Every sampler draws TensorFlow 2.21's values bit for bit (its Philox
generator and CPU kernels; see the porting guide for what does not follow).

`set_seed(s)` makes the sequence of random ops that follows repeat. Filled from the binding
table (rows naming `random`; see `_export.py`).
"""

from __future__ import annotations

from . import _generator  # noqa: F401  (declares Generator and the global generator)
from ._export import fill as _fill

__all__ = list(_fill(globals(), "random"))
