"""`Tensor.shape`: a tuple of ints (so it compares, unpacks and indexes as one) that also has
`tf.TensorShape`'s methods. Only the standard library is imported here: the extension builds
these while the package is still importing.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["TensorShape"]


class TensorShape(tuple):
    """A tensor's shape: a tuple of ints with TensorFlow's `TensorShape` methods.

    >>> import rustape as rt
    >>> s = rt.zeros([2, 3]).shape
    >>> s == (2, 3), s.as_list(), s.rank, s.num_elements()
    (True, [2, 3], 2, 6)
    """

    __slots__ = ()

    def as_list(self) -> list[Any]:
        """The dimensions as a list."""
        return list(self)

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self)

    @property
    def ndims(self) -> int:
        """The number of dimensions (TensorFlow's older name)."""
        return len(self)

    @property
    def dims(self) -> list[Any]:
        """The dimensions as a list."""
        return list(self)

    def num_elements(self) -> int | None:
        """The number of elements (None if a dimension is unknown)."""
        if any(d is None for d in self):
            return None
        return math.prod(self)

    def is_fully_defined(self) -> bool:
        """Whether every dimension is known (always so for an eager tensor)."""
        return all(d is not None for d in self)

    def as_shape(self) -> TensorShape:
        """The shape itself (TensorFlow converts other values to a `TensorShape`)."""
        return self

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return TensorShape(item) if isinstance(key, slice) else item

    def __repr__(self) -> str:
        return tuple.__repr__(self)
