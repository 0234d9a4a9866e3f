"""The base class of `rt.keras.metrics`."""

from __future__ import annotations

from typing import Any

from .. import _rustape as _rt
from ._util import _snake

__all__ = ["Metric"]


class Metric:
    """Base class: state that `update_state` accumulates and `result` reads.

    >>> class Count(Metric):
    ...     def __init__(self):
    ...         super().__init__(name="count")
    ...         self.n = 0
    ...     def update_state(self, values):
    ...         self.n += len(values)
    ...     def result(self):
    ...         return self.n
    ...     def reset_state(self):
    ...         self.n = 0
    >>> c = Count(); c.update_state([1, 2]); c.result()
    2
    """

    def __init__(self, name: str | None = None, dtype: Any = None) -> None:
        self.name = name if name is not None else _snake(type(self).__name__)
        self.dtype = _rt.float32 if dtype is None else _rt.as_dtype(dtype)

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulates statistics."""
        raise NotImplementedError

    def result(self) -> Any:
        """The metric's value from the accumulated statistics."""
        raise NotImplementedError

    def reset_state(self) -> None:
        """Forgets every statistic."""
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {"name": self.name}

    def __repr__(self) -> str:
        return f"<rt.keras.metrics.{type(self).__name__} name={self.name!r}>"
