"""`rt.layers`: the same module as `rt.keras.layers`."""

from __future__ import annotations

from .keras.layers import *
from .keras.layers import __all__ as __all__  # noqa: PLC0414  (re-exported for type checkers)
