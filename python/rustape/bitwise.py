"""`rt.bitwise`: TensorFlow's `tf.bitwise` on int32 and int64 tensors (`bitwise_and`,
`bitwise_or`, `bitwise_xor`, `invert`, `left_shift`, `right_shift`), Rust kernels with
TensorFlow's shift rule (counts clamped to `[0, width - 1]`). Not differentiable.

Filled from the binding table (rows naming `bitwise`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill

__all__ = list(_fill(globals(), "bitwise"))
