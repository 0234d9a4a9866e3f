"""Initializers the layers need beyond `rt.keras.initializers` (Keras 3's names): `'uniform'`
and `'normal'` (aliases of the random ones) and `'orthogonal'` (RNN recurrent kernels)."""

from __future__ import annotations

from typing import Any, Callable

from ..initializers import Orthogonal, get_initializer

__all__ = ["initializer", "orthogonal"]


def orthogonal(shape: tuple, dtype: Any = None, gain: float = 1.0) -> Any:
    """Keras 3's `Orthogonal` initializer, unseeded (RNN recurrent kernels).

    >>> import numpy as np
    >>> q = orthogonal((4, 4)).numpy()
    >>> bool(np.allclose(q @ q.T, np.eye(4), atol=1e-5))
    True
    """
    return Orthogonal(gain)(shape, dtype)


_EXTRA = {"orthogonal": orthogonal}
_ALIASES = {"uniform": "random_uniform", "normal": "random_normal"}


def initializer(value: Any) -> Callable:
    """`get_initializer`, also knowing 'uniform', 'normal' and 'orthogonal'."""
    if isinstance(value, str):
        if value in _EXTRA:
            try:
                return get_initializer(value)
            except ValueError:
                return _EXTRA[value]
        value = (
            _ALIASES.get(value, value)
            if _known(_ALIASES.get(value, "")) and not _known(value)
            else value
        )
    return get_initializer(value)


def _known(name: str) -> bool:
    try:
        get_initializer(name)
        return True
    except (ValueError, TypeError):
        return False
