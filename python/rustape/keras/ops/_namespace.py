"""Fills a `keras.ops` sub-namespace (`keras.ops.nn`, `.numpy`, `.linalg`) with the
`keras.ops` functions of Keras's names for it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def fill(namespace: dict[str, Any], keras_names: Iterable[str]) -> list[str]:
    """Binds each of `keras_names` that `keras.ops` has into `namespace`; returns them."""
    from .. import ops

    present = [name for name in keras_names if hasattr(ops, name)]
    for name in present:
        namespace[name] = getattr(ops, name)
    return present
