"""`rt.layers`: the same module as `rt.keras.layers`."""
from __future__ import annotations

from .keras.layers import *  # noqa: F401,F403
from .keras.layers import __all__  # noqa: F401
