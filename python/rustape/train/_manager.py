"""`rt.train.CheckpointManager`: numbered saves with the oldest deleted."""

from __future__ import annotations

import glob
import os
from typing import Any

from ._state import _absolute, now, read_state, update_state


def _delete(prefix: str) -> None:
    for path in glob.glob(glob.escape(prefix) + ".index") + glob.glob(
        glob.escape(prefix) + ".data-?????-of-?????"
    ):
        os.remove(path)


class CheckpointManager:
    """Saves a `Checkpoint` as `directory/checkpoint_name-N`, keeping the newest `max_to_keep`
    (plus one every `keep_checkpoint_every_n_hours`), and records them in the directory's
    `checkpoint` file as TensorFlow's manager does.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> m = rt.train.CheckpointManager(rt.train.Checkpoint(v=rt.Variable(1.0)), d, max_to_keep=2)
    >>> for _ in range(3):
    ...     _ = m.save()
    >>> [p.rsplit("-", 1)[1] for p in m.checkpoints]
    ['2', '3']
    """

    def __init__(
        self,
        checkpoint: Any,
        directory: Any,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: int | None = None,
        init_fn: Any = None,
    ) -> None:
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or max_to_keep <= 0):
            raise ValueError(
                f"CheckpointManager: max_to_keep must be positive, got {max_to_keep!r}"
            )
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step: int | None = None
        state = read_state(self._directory) if os.path.isdir(self._directory) else None
        self._times: dict[str, float] = {}
        self._preserved = now()
        if state is not None:
            paths = [_absolute(self._directory, p) for p in state["all_model_checkpoint_paths"]]
            stamps = state["all_model_checkpoint_timestamps"]
            stamps = stamps if len(stamps) == len(paths) else [self._preserved] * len(paths)
            self._times = dict(zip(paths, stamps))
            if state["last_preserved_timestamp"] is not None:
                self._preserved = state["last_preserved_timestamp"]

    @property
    def directory(self) -> str:
        """Where the checkpoints go."""
        return self._directory

    @property
    def checkpoint(self) -> Any:
        """The managed `Checkpoint`."""
        return self._checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The kept checkpoints' prefixes, oldest first."""
        return list(self._times)

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest kept checkpoint's prefix, or None."""
        return list(self._times)[-1] if self._times else None

    @property
    def checkpoint_interval(self) -> int | None:
        """Steps between saves when `step_counter` is given."""
        return self._interval

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint, else runs `init_fn`; returns the path restored."""
        if self.latest_checkpoint is not None:
            self._checkpoint.restore(self.latest_checkpoint)
            return self.latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def save(self, checkpoint_number: Any = None, check_interval: bool = True) -> str | None:
        """Writes `checkpoint_name-N` (N: `checkpoint_number`, else the checkpoint's
        `save_counter` after adding one), deletes what falls out of `max_to_keep`, returns the
        prefix (None when `checkpoint_interval` says not yet)."""
        if self._step_counter is not None and self._interval is not None and check_interval:
            step = int(self._step_counter.numpy())
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        stamp = now()
        self._times.pop(path, None)
        self._times[path] = stamp
        self._sweep()
        update_state(
            self._directory,
            path,
            list(self._times),
            list(self._times.values()),
            self._preserved,
        )
        return path

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._times) > self._max_to_keep:
            oldest = next(iter(self._times))
            stamp = self._times.pop(oldest)
            if self._keep_hours is not None and stamp - self._keep_hours * 3600 >= self._preserved:
                self._preserved = stamp
                continue
            _delete(oldest)
