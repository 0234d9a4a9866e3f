"""`rt.random`: seeded random tensors (`tf.random`): `normal`, `uniform`, `truncated_normal`.

`set_seed(s)` makes the sequence of random ops that follows repeat. Filled from the binding
table (rows naming `random`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill

__all__ = list(_fill(globals(), "random"))
