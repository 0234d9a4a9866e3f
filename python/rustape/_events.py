"""TensorBoard's event files, written without TensorFlow: TFRecord framing (lengths and masked
CRC-32C checksums) around `Event` protocol buffers, encoded by hand (the handful of fields
summaries use), so `tensorboard --logdir` reads what `rt.summary` writes."""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from typing import Any

import numpy as np


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), the checksum TFRecord files carry.

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord: the length, its masked checksum, the data, the data's masked checksum."""
    length = struct.pack("<Q", len(data))
    return (
        length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))
    )


# ---- protocol buffer encoding (wire types 0: varint, 1: 64-bit, 2: bytes, 5: 32-bit)
def _varint(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF  # negative int64s as ten bytes, as protobuf does
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def field_varint(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value)


def field_bytes(field: int, value: bytes) -> bytes:
    return _key(field, 2) + _varint(len(value)) + value


def field_double(field: int, value: float) -> bytes:
    return _key(field, 1) + struct.pack("<d", value)


#: TensorFlow's DataType numbers of the dtypes summaries hold.
DATA_TYPES = {
    np.dtype(np.float32): 1,
    np.dtype(np.float64): 2,
    np.dtype(np.int32): 3,
    np.dtype(np.uint8): 4,
    np.dtype(np.int64): 9,
    np.dtype(np.bool_): 10,
}
DT_STRING = 7


def tensor_proto(value: Any) -> bytes:
    """A `TensorProto`: dtype, shape, and the values (raw little-endian bytes, or the strings
    of a string tensor)."""
    array = np.asarray(value)
    shape = b"".join(field_bytes(2, field_varint(1, int(d))) for d in array.shape)
    if array.dtype.kind in "SUO":
        strings = [s if isinstance(s, bytes) else str(s).encode() for s in array.ravel().tolist()]
        body = b"".join(field_bytes(8, s) for s in strings)
        return field_varint(1, DT_STRING) + field_bytes(2, shape) + body
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    dtype = DATA_TYPES[array.dtype.newbyteorder("=")]
    return field_varint(1, dtype) + field_bytes(2, shape) + field_bytes(4, array.tobytes())


def summary_metadata(plugin: str, content: bytes = b"", description: str | None = None) -> bytes:
    plugin_data = field_bytes(1, plugin.encode()) + (field_bytes(2, content) if content else b"")
    out = field_bytes(1, plugin_data)
    if description:
        out += field_bytes(3, description.encode())
    return out


def summary_value(tag: str, tensor: bytes, metadata: bytes | None) -> bytes:
    value = field_bytes(1, tag.encode())
    if metadata is not None:
        value += field_bytes(9, metadata)
    return value + field_bytes(8, tensor)


def event(
    step: int, summary_values: list[bytes] | None = None, version: str | None = None
) -> bytes:
    out = field_double(1, time.time()) + field_varint(2, step)
    if version is not None:
        out += field_bytes(3, version.encode())
    if summary_values is not None:
        out += field_bytes(5, b"".join(field_bytes(1, v) for v in summary_values))
    return out


class EventFileWriter:
    """Appends events to a new `events.out.tfevents.*` file in `logdir` (made on the first
    write), as TensorFlow names them."""

    _counter = 0
    _lock = threading.Lock()

    def __init__(self, logdir: str, filename_suffix: str = "") -> None:
        self.logdir = logdir
        self.suffix = filename_suffix
        self.path: str | None = None
        self._file: Any = None

    def _open(self) -> Any:
        if self._file is None:
            os.makedirs(self.logdir, exist_ok=True)
            with EventFileWriter._lock:
                EventFileWriter._counter += 1
                count = EventFileWriter._counter
            name = (
                f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}."
                f"{os.getpid()}.{count}.v2{self.suffix}"
            )
            self.path = os.path.join(self.logdir, name)
            self._file = open(self.path, "wb")  # noqa: SIM115  (kept open across writes)
            self._file.write(record(event(0, version="brain.Event:2")))
        return self._file

    def write(self, data: bytes) -> None:
        self._open().write(record(data))

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
