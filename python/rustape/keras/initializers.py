"""`rt.keras.initializers`: weight initializers by Keras name."""
from __future__ import annotations

from typing import Any, Callable

from .. import _rustape as _rt
from .. import random as _random
from ._util import _as_dtype

__all__ = ["get"]

def _fans(shape: tuple) -> tuple:
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


def _uniform(shape: tuple, dtype: Any, limit: float) -> Any:
    return _random.uniform(list(shape), minval=-limit, maxval=limit, dtype=dtype)


def _zeros(shape: tuple, dtype: Any = None) -> Any:
    return _rt.zeros(list(shape), dtype=_as_dtype(dtype))


def _ones(shape: tuple, dtype: Any = None) -> Any:
    return _rt.ones(list(shape), dtype=_as_dtype(dtype))


def _glorot_uniform(shape: tuple, dtype: Any = None) -> Any:
    fan_in, fan_out = _fans(shape)
    return _uniform(shape, _as_dtype(dtype), (6.0 / max(1.0, fan_in + fan_out)) ** 0.5)


def _he_uniform(shape: tuple, dtype: Any = None) -> Any:
    fan_in, _ = _fans(shape)
    return _uniform(shape, _as_dtype(dtype), (6.0 / max(1.0, fan_in)) ** 0.5)


def _lecun_uniform(shape: tuple, dtype: Any = None) -> Any:
    fan_in, _ = _fans(shape)
    return _uniform(shape, _as_dtype(dtype), (3.0 / max(1.0, fan_in)) ** 0.5)


def _random_uniform(shape: tuple, dtype: Any = None) -> Any:
    return _uniform(shape, _as_dtype(dtype), 0.05)


def _random_normal(shape: tuple, dtype: Any = None) -> Any:
    return _random.normal(list(shape), mean=0.0, stddev=0.05, dtype=_as_dtype(dtype))


_INITIALIZERS: dict[str, Callable] = {
    "zeros": _zeros,
    "ones": _ones,
    "glorot_uniform": _glorot_uniform,
    "he_uniform": _he_uniform,
    "lecun_uniform": _lecun_uniform,
    "random_uniform": _random_uniform,
    "random_normal": _random_normal,
}


def get_initializer(initializer: Any) -> Callable:
    """A callable `init(shape, dtype)` for a Keras initializer name or a callable."""
    if callable(initializer):
        return initializer
    if isinstance(initializer, str) and initializer in _INITIALIZERS:
        return _INITIALIZERS[initializer]
    raise ValueError(
        f"Unknown initializer: {initializer!r}; expected a callable init(shape, dtype) or one of "
        f"{sorted(_INITIALIZERS)}"
    )


get = get_initializer
