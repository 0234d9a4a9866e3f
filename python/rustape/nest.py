"""`rt.nest`: nested structures as `tf.nest` sees them (mappings in sorted-key order)."""

from ._structure import (
    assert_same_structure,
    flatten,
    flatten_up_to,
    is_nested,
    map_structure,
    pack_sequence_as,
)

__all__ = [
    "assert_same_structure",
    "flatten",
    "flatten_up_to",
    "is_nested",
    "map_structure",
    "pack_sequence_as",
]
