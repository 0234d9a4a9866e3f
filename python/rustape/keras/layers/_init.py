"""Initializers the layers need beyond `rt.keras.initializers` (Keras 3's names): `'uniform'`
and `'normal'` (aliases of the random ones) and `'orthogonal'` (RNN recurrent kernels)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ... import _rustape as _rt
from ... import random as _random
from .._util import _as_dtype
from ..initializers import get_initializer

__all__ = ["initializer", "orthogonal"]


def orthogonal(shape: tuple, dtype: Any = None, gain: float = 1.0) -> Any:
    """Keras 3's `Orthogonal`: the Q factor of a standard normal matrix
    `[max(rows, cols), min(rows, cols)]` (rows: the product of all but the last dimension),
    its columns' signs fixed by R's diagonal, transposed when wide.

    >>> import numpy as np
    >>> q = orthogonal((4, 4)).numpy()
    >>> bool(np.allclose(q @ q.T, np.eye(4), atol=1e-5))
    True
    """
    dtype = _as_dtype(dtype)
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    cols = int(shape[-1]) if shape else 1
    a = _random.normal([max(rows, cols), min(rows, cols)], dtype=_rt.float64).numpy()
    # The factorisation of a small matrix, once per weight: NumPy's QR.
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _rt.constant((gain * q).reshape(shape), dtype=dtype)


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
