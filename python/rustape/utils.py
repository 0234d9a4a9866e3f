"""`rt.utils`: helpers for programs built on rustape (`progress_bar` for training loops)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

from ._rustape import ProgressBar

_T = TypeVar("_T")

__all__ = ["progress_bar"]


def progress_bar(
    iterable: Iterable[_T],
    total: int | None = None,
    label: str = "steps",
    unit: str = "steps",
    enabled: bool = True,
) -> Iterator[_T]:
    """Yields the items of `iterable`, drawing a tqdm-style bar on stderr as they are consumed
    (the bar `progress=True` draws for Jacobians):

        train:  45%|██████████▊             | 450/1000 [00:01<00:01, 412.30 steps/s]

    `total` defaults to `len(iterable)`; `enabled=False` yields the items without a bar (so a
    loop can take the choice as an argument).

    >>> losses = [float(x) for x in rt.utils.progress_bar(range(3), label="train", enabled=False)]
    >>> losses
    [0.0, 1.0, 2.0]
    """
    if not enabled:
        yield from iterable
        return
    if total is None:
        if not isinstance(iterable, Sized):
            raise TypeError("progress_bar: pass total= for an iterable without len()")
        total = len(iterable)
    bar = ProgressBar(label, unit)
    bar.start(total)
    try:
        for item in iterable:
            yield item
            bar.advance(1)
    finally:
        bar.finish()
