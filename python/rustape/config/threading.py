"""`rt.config.threading`: TensorFlow's thread settings over rustape's one pool of workers.

rustape runs the ops of a program one after another (eagerly, in the calling thread) and
splits large kernels over its pool, so the intra-op setting is the pool's size
(`rt.config.set_num_threads`) and the inter-op one is only remembered.

>>> import rustape as rt
>>> rt.config.threading.get_intra_op_parallelism_threads() >= 1
True
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "get_inter_op_parallelism_threads",
    "get_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "set_intra_op_parallelism_threads",
]

_inter_op_threads = 0


def _count(value: Any, what: str) -> int:
    import operator

    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"config.threading: {what} must be an integer, got {value!r}") from None
    if n < 0:
        raise ValueError(f"config.threading: {what} must be >= 0 (0: the default), got {n}")
    return n


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """The number of threads a kernel may split over (0: the machine's cores), as
    `rt.config.set_num_threads`: set it before the first parallel op (a ValueError after,
    as TensorFlow's RuntimeError, unless the size is unchanged).

    >>> import rustape as rt
    >>> n = rt.config.get_num_threads()
    >>> rt.config.threading.set_intra_op_parallelism_threads(n)
    >>> rt.config.threading.get_intra_op_parallelism_threads() == n
    True
    """
    import os

    from .. import config

    n = _count(num_threads, "num_threads")
    config.set_num_threads(n if n else (os.cpu_count() or 1))


def get_intra_op_parallelism_threads() -> int:
    """The number of threads a kernel may split over.

    >>> import rustape as rt
    >>> rt.config.threading.get_intra_op_parallelism_threads() == rt.config.get_num_threads()
    True
    """
    from .. import config

    return int(config.get_num_threads())


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Remembers TensorFlow's inter-op thread count: rustape runs ops one after another, so it
    changes nothing.

    >>> import rustape as rt
    >>> rt.config.threading.set_inter_op_parallelism_threads(2)
    >>> rt.config.threading.get_inter_op_parallelism_threads()
    2
    >>> rt.config.threading.set_inter_op_parallelism_threads(0)
    """
    global _inter_op_threads
    _inter_op_threads = _count(num_threads, "num_threads")


def get_inter_op_parallelism_threads() -> int:
    """The inter-op thread count last set (0: the default).

    >>> import rustape as rt
    >>> rt.config.threading.get_inter_op_parallelism_threads()
    0
    """
    return _inter_op_threads
