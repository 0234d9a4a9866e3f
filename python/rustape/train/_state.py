"""The `checkpoint` state file TensorFlow keeps beside checkpoints (a `CheckpointState` in
protobuf text format) and `latest_checkpoint`."""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

_LINE = re.compile(r'^\s*(\w+)\s*:\s*(".*"|[-+0-9.eE]+)\s*$')


def read_state(directory: str) -> dict[str, Any] | None:
    """The directory's state: `model_checkpoint_path`, `all_model_checkpoint_paths`,
    `all_model_checkpoint_timestamps`, `last_preserved_timestamp` (None without a file)."""
    path = os.path.join(directory, "checkpoint")
    if not os.path.isfile(path):
        return None
    state: dict[str, Any] = {
        "model_checkpoint_path": None,
        "all_model_checkpoint_paths": [],
        "all_model_checkpoint_timestamps": [],
        "last_preserved_timestamp": None,
    }
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            m = _LINE.match(line)
            if m is None:
                raise ValueError(f"{path}:{number}: not a CheckpointState line: {line.strip()!r}")
            field, raw = m.groups()
            value: Any = json.loads(raw) if raw.startswith('"') else float(raw)
            if field.startswith("all_"):
                state.setdefault(field, []).append(value)
            else:
                state[field] = value
    return state


def _absolute(directory: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(directory, path)


def update_state(
    directory: str,
    latest: str,
    paths: list[str],
    timestamps: list[float] | None = None,
    preserved: float | None = None,
) -> None:
    """Writes the directory's `checkpoint` file (paths relative to it, as TensorFlow does)."""

    def rel(p: str) -> str:
        return (
            os.path.relpath(p, directory) if not os.path.isabs(directory) or os.path.isabs(p) else p
        )

    lines = [f"model_checkpoint_path: {json.dumps(rel(latest))}"]
    lines += [f"all_model_checkpoint_paths: {json.dumps(rel(p))}" for p in paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps or []]
    if preserved is not None:
        lines.append(f"last_preserved_timestamp: {preserved!r}")
    target = os.path.join(directory, "checkpoint")
    tmp = target + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, target)


def latest_checkpoint(checkpoint_dir: Any, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`'s state file, or None.

    >>> import tempfile
    >>> rt.train.latest_checkpoint(tempfile.mkdtemp()) is None
    True
    """
    directory = os.fspath(checkpoint_dir)
    state = read_state(directory)
    if state is None or not state["model_checkpoint_path"]:
        return None
    prefix = _absolute(directory, state["model_checkpoint_path"])
    return prefix if os.path.isfile(prefix + ".index") else None


def now() -> float:
    """The time stamps' clock."""
    return time.time()
