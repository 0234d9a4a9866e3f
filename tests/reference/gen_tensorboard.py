"""TensorBoard event files as TensorFlow 2.21 writes them (`tf.summary`) and as Keras 3's
`TensorBoard` callback writes them during `fit` with validation, batch-level updates and
weight histograms. Each file is decoded into records (step, tag, plugin, dtype, shape,
values; images as pixels) by `read_events`, a reader of the file format that needs no
TensorFlow; the generator checks it against TensorFlow's own reader.

`summaries(m)`, `fit_run(keras, log_dir)` and `read_run(log_dir)` are imported by the test and
run on rustape. Run with TensorFlow's venv with tensorboard installed (see README.md); writes
tensorboard.json beside this file.
"""

from __future__ import annotations

import glob
import json
import os
import struct
import zlib
from typing import Any

import numpy as np

# ---- reading event files without TensorFlow


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(data: bytes) -> list[tuple[int, Any]]:
    """A message's (field number, value) pairs: ints, floats/doubles as raw bytes, or bytes."""
    out: list[tuple[int, Any]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        elif wire == 2:
            length, at = _varint(data, at)
            value, at = data[at : at + length], at + length
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((field, value))
    return out


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    crc = _crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


_NUMPY = {1: "<f4", 2: "<f8", 3: "<i4", 4: "u1", 9: "<i8", 10: "?"}


def _tensor(data: bytes) -> tuple[str, list[int], list[Any]]:
    fields = _fields(data)
    dtype = next((v for f, v in fields if f == 1), 0)
    shape_msg = next((v for f, v in fields if f == 2), b"")
    shape = [next((s for g, s in _fields(d) if g == 1), 0) for f, d in _fields(shape_msg) if f == 2]
    if dtype == 7:
        return "string", shape, [v for f, v in fields if f == 8]
    np_dtype = np.dtype(_NUMPY[dtype])
    content = next((v for f, v in fields if f == 4), None)
    if content is not None:
        values = np.frombuffer(content, np_dtype)
    else:
        typed = {1: (5, "<f4"), 2: (6, "<f8"), 3: (7, None), 9: (10, None), 10: (11, None)}
        number, packed = typed[dtype]
        raw = [v for f, v in fields if f == number]
        if raw and isinstance(raw[0], bytes) and packed:
            values = np.frombuffer(b"".join(raw), np.dtype(packed))
        elif raw and isinstance(raw[0], bytes):  # packed varints
            values = []
            for chunk in raw:
                at = 0
                while at < len(chunk):
                    v, at = _varint(chunk, at)
                    values.append(v)
            values = np.array(values)
        else:
            values = np.array(raw)
    count = int(np.prod(shape)) if shape else 1
    values = np.asarray(values).astype(np_dtype)
    if values.size == 1 and count > 1:
        values = np.full(count, values[0])
    return np_dtype.name, shape, values.ravel().tolist()


def _png_pixels(png: bytes) -> list[Any]:
    """An 8-bit PNG's pixels ([height][width][channels]), any of the five row filters."""
    at, idat, header = 8, b"", b""
    while at < len(png):
        length = struct.unpack(">I", png[at : at + 4])[0]
        tag, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if tag == b"IHDR":
            header = body
        elif tag == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, kind = struct.unpack(">IIBB", header[:10])
    assert depth == 8
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[kind]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytearray] = []
    prev = bytearray(stride)
    for r in range(height):
        kind_r = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1 : (r + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            corner = prev[i - channels] if i >= channels else 0
            if kind_r == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind_r == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind_r == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind_r == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(line)
        prev = line
    return np.array([list(r) for r in rows]).reshape(height, width, channels).tolist()


def read_events(path: str) -> list[dict[str, Any]]:
    """The summary values of one event file, in order, checking every record's checksums."""
    with open(path, "rb") as f:
        data = f.read()
    at, out = 0, []
    plugins: dict[str, str] = {}
    while at < len(data):
        header = data[at : at + 8]
        (length,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[at + 8 : at + 12])[0] == _masked(header), path
        body = data[at + 12 : at + 12 + length]
        assert struct.unpack("<I", data[at + 12 + length : at + 16 + length])[0] == _masked(body)
        at += 16 + length
        fields = _fields(body)
        step = next((v for f, v in fields if f == 2), 0)
        for f, summary in fields:
            if f != 5:
                continue
            for g, value in _fields(summary):
                if g != 1:
                    continue
                parts = dict(_fields(value))
                tag = parts[1].decode()
                if 9 in parts:
                    plugin_data = dict(_fields(parts[9])).get(1, b"")
                    plugins[tag] = dict(_fields(plugin_data)).get(1, b"").decode()
                dtype, shape, values = _tensor(parts[8])
                plugin = plugins.get(tag, "")
                if plugin == "images":
                    values = [v.decode() for v in values[:2]] + [_png_pixels(v) for v in values[2:]]
                elif plugin == "graph_keras_model":
                    values = []  # the model's config, in each library's own format
                elif dtype == "string":
                    values = [v.decode() for v in values]
                out.append(
                    {
                        "step": step,
                        "tag": tag,
                        "plugin": plugin,
                        "dtype": dtype,
                        "shape": shape,
                        "values": values,
                    }
                )
    return out


def read_run(log_dir: str) -> dict[str, list[dict[str, Any]]]:
    """Every event file under `log_dir` (by sub-folder), decoded."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(
        glob.glob(os.path.join(log_dir, "**", "events.out.tfevents.*"), recursive=True)
    ):
        run = os.path.relpath(os.path.dirname(path), log_dir)
        runs.setdefault(run, []).extend(read_events(path))
    return runs


# ---- what is written


def summaries(m: Any, log_dir: str) -> None:
    """`tf.summary` calls of each kind into `log_dir`."""
    rng = np.random.default_rng(3)
    writer = m.summary.create_file_writer(log_dir)
    with writer.as_default(step=4):
        m.summary.scalar("scalar/float", 0.125)
        m.summary.scalar("scalar/int", 7, step=5)
        m.summary.scalar("scalar/tensor", m.constant(2.5, m.float64), description="a tensor")
        m.summary.histogram("histogram/normal", rng.normal(size=200).astype(np.float32))
        m.summary.histogram("histogram/buckets", rng.normal(size=50), buckets=5, step=6)
        m.summary.histogram("histogram/single", np.full(9, 3.0, np.float32))
        m.summary.histogram("histogram/ints", np.arange(20))
        m.summary.text("text/one", "hello **world**")
        m.summary.text("text/table", [["a", "b"], ["c", "d"]], step=2)
        m.summary.image(
            "image/float", rng.uniform(size=(2, 4, 5, 3)).astype(np.float32), max_outputs=3
        )
        m.summary.image("image/int", np.arange(9, dtype=np.int32).reshape(1, 3, 3, 1) * 30)
    with writer.as_default():
        m.summary.experimental.set_step(11)
        m.summary.scalar("scalar/default_step", -1.0)
        with m.summary.record_if(False):
            m.summary.scalar("scalar/not_recorded", 1.0)
        m.summary.experimental.set_step(None)
    writer.flush()


def fit_run(keras: Any, log_dir: str) -> None:
    """`fit` with the TensorBoard callback: validation, batch-level scalars every other batch,
    weight histograms."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(20, 3)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [2.0]], np.float32)).astype(np.float32)
    model = keras.Sequential(
        [
            keras.Input(shape=(3,)),
            keras.layers.Dense(4, activation="tanh", name="hidden"),
            keras.layers.Dense(1, name="out"),
        ],
        name="net",
    )
    model.set_weights([(rng.normal(size=w.shape) * 0.5).astype(np.float32) for w in model.weights])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    model.fit(
        x[:16],
        y[:16],
        batch_size=6,
        epochs=2,
        shuffle=False,
        verbose=0,
        validation_data=(x[16:], y[16:]),
        callbacks=[keras.callbacks.TensorBoard(log_dir, histogram_freq=1, update_freq=2)],
    )


def main() -> None:
    import tempfile

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    import tensorflow as tf

    record: dict[str, Any] = {}
    for name, make in (
        ("summaries", lambda d: summaries(tf, d)),
        ("fit", lambda d: fit_run(keras, d)),
    ):
        folder = tempfile.mkdtemp()
        make(folder)
        runs = read_run(folder)
        # The reader above agrees with TensorFlow's own on every value.
        for path in glob.glob(os.path.join(folder, "**", "events.out.tfevents.*"), recursive=True):
            ours = read_events(path)
            theirs = [
                (e.step, v.tag, tf.make_ndarray(v.tensor))
                for e in tf.compat.v1.train.summary_iterator(path)
                for v in e.summary.value
            ]
            assert len(ours) == len(theirs), path
            for o, (step, tag, value) in zip(ours, theirs):
                assert (o["step"], o["tag"]) == (step, tag)
                if value.dtype.kind in "fiub":
                    assert np.allclose(np.ravel(value), o["values"]), tag
        record[name] = runs
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tensorboard.json")
    with open(path, "w") as f:
        json.dump(record, f, separators=(",", ":"))
    print(f"wrote {path}: {sum(len(v) for r in record.values() for v in r.values())} values")


if __name__ == "__main__":
    main()
