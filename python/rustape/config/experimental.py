"""`rt.config.experimental`: TensorFlow's older device names (`list_physical_devices`, ...)
and its GPU memory settings. rustape has no GPU, so a memory setting on any device is the
error TensorFlow gives for a CPU.

>>> import rustape as rt
>>> rt.config.experimental.list_physical_devices("GPU")
[]
"""

from __future__ import annotations

from typing import Any

from .._config import (
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_visible_devices,
)

__all__ = [
    "get_memory_growth",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "set_memory_growth",
    "set_visible_devices",
]


def set_memory_growth(device: Any, enable: bool) -> None:
    """TensorFlow's GPU memory growth; rustape has no GPU, so every device is refused.

    >>> import rustape as rt
    >>> for gpu in rt.config.list_physical_devices("GPU"):
    ...     rt.config.experimental.set_memory_growth(gpu, True)
    """
    raise ValueError(f"Cannot set memory growth on non-GPU devices: {device!r}")


def get_memory_growth(device: Any) -> bool:
    """TensorFlow's GPU memory growth; rustape has no GPU, so every device is refused.

    >>> import rustape as rt
    >>> [rt.config.experimental.get_memory_growth(g) for g in rt.config.list_physical_devices("GPU")]
    []
    """
    raise ValueError(f"Cannot get memory growth on non-GPU devices: {device!r}")
