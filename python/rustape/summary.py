"""`rt.summary`: TensorFlow's `tf.summary`, writing TensorBoard event files.

    writer = rt.summary.create_file_writer("logs/run1")
    with writer.as_default(step=0):
        rt.summary.scalar("loss", loss)

Scalars, histograms (TensorBoard's 30 buckets), text and images go to `events.out.tfevents.*`
files that `tensorboard --logdir logs` shows. rustape runs eagerly and has no graphs, so
`trace_on` / `trace_export` record nothing.
"""

from __future__ import annotations

import contextlib
import struct
import threading
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _events
from . import _rustape as _rt

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "experimental",
    "flush",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
    "trace_export",
    "trace_off",
    "trace_on",
    "write",
]


class _State(threading.local):
    def __init__(self) -> None:
        self.writer: SummaryWriter | None = None
        self.step: int | None = None
        self.record: Any = True


_state = _State()


class SummaryWriter:
    """Writes summaries to one log directory (`create_file_writer`); make it the default with
    `as_default()` or `set_as_default()`.

    >>> import tempfile, rustape as rt
    >>> writer = rt.summary.create_file_writer(tempfile.mkdtemp())
    >>> with writer.as_default(step=3):
    ...     rt.summary.scalar("loss", 0.25)
    True
    """

    def __init__(self, logdir: str | None, filename_suffix: str = "") -> None:
        self._file = None if logdir is None else _events.EventFileWriter(logdir, filename_suffix)
        self._tags: set[str] = set()

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[SummaryWriter]:
        """Within the block, summaries go to this writer (and use `step` when given)."""
        previous, previous_step = _state.writer, _state.step
        _state.writer = self
        if step is not None:
            _state.step = _step_value(step)
        try:
            yield self
        finally:
            _state.writer = previous
            if step is not None:
                _state.step = previous_step
            self.flush()

    def set_as_default(self, step: Any = None) -> None:
        """Makes this the default writer from now on (and sets the step when given)."""
        _state.writer = self
        if step is not None:
            _state.step = _step_value(step)

    def init(self) -> None:
        """Nothing to do: the file is made at the first write."""

    def flush(self) -> None:
        """Writes what is buffered to the file."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file (a later write opens a new one)."""
        if self._file is not None:
            self._file.close()

    def _write(
        self,
        tag: str,
        tensor: bytes,
        step: int,
        plugin: str,
        content: bytes,
        description: str | None,
    ) -> None:
        if self._file is None:
            return
        # The plugin's metadata goes with a tag's first value, as TensorFlow writes it.
        metadata = None
        if tag not in self._tags:
            metadata = _events.summary_metadata(plugin, content, description)
            self._tags.add(tag)
        self._file.write(_events.event(step, [_events.summary_value(tag, tensor, metadata)]))


def create_file_writer(
    logdir: Any,
    max_queue: int | None = None,
    flush_millis: int | None = None,
    filename_suffix: str | None = None,
    name: str | None = None,
    experimental_trackable: bool = False,
    experimental_mesh: Any = None,
) -> SummaryWriter:
    """A writer of event files in `logdir` (made when the first summary is written).

    >>> import os, tempfile, rustape as rt
    >>> logdir = tempfile.mkdtemp()
    >>> with rt.summary.create_file_writer(logdir).as_default():
    ...     _ = rt.summary.scalar("x", 1.0, step=0)
    >>> os.listdir(logdir)[0].startswith("events.out.tfevents.")
    True
    """
    return SummaryWriter(str(logdir), filename_suffix or "")


def create_noop_writer() -> SummaryWriter:
    """A writer that writes nothing.

    >>> import rustape as rt
    >>> with rt.summary.create_noop_writer().as_default():
    ...     rt.summary.scalar("x", 1.0, step=0)
    True
    """
    return SummaryWriter(None)


def flush(writer: SummaryWriter | None = None, name: str | None = None) -> None:
    """Flushes `writer`, or the default writer.

    >>> import rustape as rt
    >>> rt.summary.flush()
    """
    target = writer if writer is not None else _state.writer
    if target is not None:
        target.flush()


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """Within the block, summaries are written only when `condition` (a bool, or a
    function returning one, asked at each summary) holds.

    >>> import rustape as rt
    >>> with rt.summary.record_if(False):
    ...     rt.summary.should_record_summaries()
    False
    """
    previous = _state.record
    _state.record = condition
    try:
        yield
    finally:
        _state.record = previous


def should_record_summaries() -> bool:
    """Whether a summary written now would be recorded (a default writer, and `record_if`'s
    condition).

    >>> import rustape as rt
    >>> rt.summary.should_record_summaries()
    False
    """
    if _state.writer is None:
        return False
    condition = _state.record
    return bool(condition() if callable(condition) else condition)


def _step_value(step: Any) -> int:
    if isinstance(step, (_rt.Tensor, _rt.Variable)):
        step = step.numpy()
    return int(step)


def _resolve_step(op: str, step: Any) -> int:
    if step is None:
        step = _state.step
    if step is None:
        raise ValueError(
            f"rt.summary.{op}: no step set; pass `step=` or call "
            "rt.summary.experimental.set_step() (or give `as_default(step=...)`)"
        )
    return _step_value(step)


def _values(data: Any) -> np.ndarray:
    if isinstance(data, (_rt.Tensor, _rt.Variable)):
        return np.asarray(data.numpy())
    return np.asarray(data)


def _emit(
    op: str, name: str, tensor: Any, step: Any, plugin: str, content: bytes, description: str | None
) -> bool:
    if not should_record_summaries():
        return False
    writer = _state.writer
    assert writer is not None
    writer._write(
        name, _events.tensor_proto(tensor), _resolve_step(op, step), plugin, content, description
    )
    return True


def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Writes a float32 scalar; returns whether it was written (False without a default
    writer).

    >>> import rustape as rt
    >>> rt.summary.scalar("loss", 0.5, step=1)  # no default writer
    False
    """
    values = _values(data)
    if values.size != 1 or values.ndim != 0:
        raise ValueError(f"rt.summary.scalar: `data` must be a scalar, got shape {values.shape}")
    return _emit("scalar", name, values.astype(np.float32), step, "scalars", b"", description)


def _buckets(data: np.ndarray, count: int) -> np.ndarray:
    """TensorBoard's histogram: `count` rows `[left edge, right edge, count]` over the data's
    range (all in the last bucket when the data has one value; zeros when it is empty)."""
    data = data.astype(np.float64).ravel()
    if count <= 0:
        return np.zeros((0, 3))
    if data.size == 0:
        return np.zeros((count, 3))
    low, high = data.min(), data.max()
    if high == low:
        counts = np.zeros(count)
        counts[-1] = data.size
        edges = np.full(count, high)
        return np.stack([edges, edges, counts], axis=1)
    width = (high - low) / count
    index = np.minimum(np.floor((data - low) / width).astype(np.int64), count - 1)
    counts = np.bincount(index, minlength=count).astype(np.float64)
    edges = np.linspace(low, high, count + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(
    name: str,
    data: Any,
    step: Any = None,
    buckets: int | None = None,
    description: str | None = None,
) -> bool:
    """Writes a histogram of `data`'s values (`buckets` buckets, 30 by default).

    >>> import tempfile, rustape as rt
    >>> with rt.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=0):
    ...     rt.summary.histogram("weights", rt.random.normal([100]))
    True
    """
    values = _values(data)
    if values.dtype.kind not in "biuf":
        raise TypeError(f"rt.summary.histogram: `data` must be numbers, got {values.dtype}")
    table = _buckets(values, 30 if buckets is None else int(buckets))
    return _emit("histogram", name, table, step, "histograms", b"", description)


def text(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Writes text (a string, or an array or nested lists of them; Markdown in TensorBoard).

    >>> import tempfile, rustape as rt
    >>> with rt.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=0):
    ...     rt.summary.text("notes", "learning rate **0.1**")
    True
    """
    values = np.asarray(data, dtype=object)
    if not all(isinstance(v, (str, bytes)) for v in values.ravel().tolist()):
        raise TypeError("rt.summary.text: `data` must be strings")
    return _emit("text", name, values, step, "text", b"", description)


def _png(image: np.ndarray) -> bytes:
    """An 8-bit PNG of a [height, width, channels] image (1 grey, 2 grey+alpha, 3 RGB, 4
    RGBA)."""
    height, width, channels = image.shape
    kind = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = b"".join(b"\x00" + image[r].tobytes() for r in range(height))

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    header = struct.pack(">IIBBBBB", width, height, 8, kind, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def image(
    name: str, data: Any, step: Any = None, max_outputs: int = 3, description: str | None = None
) -> bool:
    """Writes up to `max_outputs` images of `data` (`[k, height, width, channels]`, channels
    1, 2, 3 or 4) as PNGs, converted as `tf.image.convert_image_dtype` converts: floats in
    [0, 1] and each integer type's range (uint8 as it is) map onto 0-255.

    >>> import tempfile, rustape as rt
    >>> with rt.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=0):
    ...     rt.summary.image("samples", rt.random.uniform([2, 8, 8, 3]))
    True
    """
    values = _values(data)
    if values.ndim != 4 or values.shape[-1] not in (1, 2, 3, 4):
        raise ValueError(
            "rt.summary.image: `data` must be [k, height, width, channels] with 1 to 4 "
            f"channels, got shape {values.shape}"
        )
    if values.dtype.kind == "f":
        pixels = np.floor(np.clip(values, 0.0, 1.0) * 255.5).clip(0, 255).astype(np.uint8)
    elif values.dtype == np.uint8:
        pixels = values
    elif values.dtype.kind in "iu":
        # tf.image.convert_image_dtype: an integer type's range maps onto 0-255.
        bits = values.dtype.itemsize * 8 - (1 if values.dtype.kind == "i" else 0)
        pixels = np.clip(values.astype(np.int64) >> (bits - 8), 0, 255).astype(np.uint8)
    else:
        raise TypeError(f"rt.summary.image: `data` must be numbers, got {values.dtype}")
    shown = pixels[: max(int(max_outputs), 0)]
    height, width = values.shape[1], values.shape[2]
    strings = [str(width).encode(), str(height).encode(), *(_png(p) for p in shown)]
    return _emit("image", name, np.array(strings, dtype=object), step, "images", b"", description)


def write(
    tag: str, tensor: Any, step: Any = None, metadata: Any = None, name: str | None = None
) -> bool:
    """Writes `tensor` under `tag` with `metadata` (a plugin name, or None).

    >>> import tempfile, rustape as rt
    >>> with rt.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=0):
    ...     rt.summary.write("raw", rt.constant([1, 2, 3]))
    True
    """
    plugin = metadata if isinstance(metadata, str) else ""
    values = tensor() if callable(tensor) else tensor
    return _emit("write", tag, _values(values), step, plugin, b"", None)


def trace_on(
    graph: bool = True, profiler: bool = False, profiler_outdir: str | None = None
) -> None:
    """Nothing to trace: rustape runs eagerly and builds no graphs.

    >>> import rustape as rt
    >>> rt.summary.trace_on()
    """


def trace_export(name: str, step: Any = None, profiler_outdir: str | None = None) -> None:
    """Writes nothing (see `trace_on`).

    >>> import rustape as rt
    >>> rt.summary.trace_export("graph", step=0)
    """


def trace_off() -> None:
    """Nothing to stop (see `trace_on`).

    >>> import rustape as rt
    >>> rt.summary.trace_off()
    """


class _Experimental:
    """`rt.summary.experimental`: the default step."""

    @staticmethod
    def set_step(step: Any) -> None:
        """Sets the step summaries use when none is given (None clears it).

        >>> import rustape as rt
        >>> rt.summary.experimental.set_step(7)
        >>> rt.summary.experimental.get_step()
        7
        >>> rt.summary.experimental.set_step(None)
        """
        _state.step = None if step is None else _step_value(step)

    @staticmethod
    def get_step() -> int | None:
        """The default step (None when unset).

        >>> import rustape as rt
        >>> rt.summary.experimental.get_step() is None
        True
        """
        return _state.step


#: `rt.summary.experimental.set_step` / `get_step`.
experimental = _Experimental()
