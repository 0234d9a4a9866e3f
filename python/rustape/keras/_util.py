"""Names and dtypes shared by the Keras-style modules."""

from __future__ import annotations

import re
from typing import Any

from .. import _rustape as _rt

_name_counts: dict[str, int] = {}


def _unique_name(base: str) -> str:
    n = _name_counts.get(base, 0)
    _name_counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _as_dtype(dtype: Any) -> Any:
    if dtype is None:
        return _rt.float32
    if isinstance(dtype, str):
        try:
            return getattr(_rt, dtype)
        except AttributeError:
            raise TypeError(f"unknown dtype {dtype!r}") from None
    return dtype
