"""`rt.strings`: TensorFlow's `tf.strings` on string tensors (`rt.string`).

Byte strings, as TensorFlow's: case, length, strip, substr, join, reduce_join, regular expressions (RE2 syntax through the
`regex` crate), split (dense for a scalar, `rt.RaggedTensor` for a vector), to_number,
as_string and TensorFlow's Fingerprint64 hash buckets. Rust kernels; never differentiable.

Filled from the binding table (rows naming `strings`; see `_export.py`).
"""

from __future__ import annotations

from ._export import fill as _fill

__all__ = list(_fill(globals(), "strings"))
