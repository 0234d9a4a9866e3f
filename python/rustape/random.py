"""`rt.random`: seeded random tensors (`tf.random`).

`normal`, `uniform`, `truncated_normal`, `categorical`, `shuffle`; the stateless ops
(`stateless_normal`, ...: values that depend only on a seed pair) and `Generator`.

`set_seed(s)` makes the sequence of random ops that follows repeat. Filled from the binding
table (rows naming `random`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill
from ._generator import Generator, get_global_generator, set_global_generator

__all__ = list(_fill(globals(), "random"))
__all__ += ["Generator", "get_global_generator", "set_global_generator"]
