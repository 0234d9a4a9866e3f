"""Small stand-ins for Keras's dataset files, in each file's real format (an .npz of arrays, an
.npz of pickled object arrays, gzipped IDX files, a tar.gz of pickled CIFAR batches, a word
index .json), and what Keras 3's `keras.datasets.*.load_data` returns for them: Keras is given
these files in place of its downloads (its `get_file` is replaced by one that returns them).

Writes tests/reference/datasets/ (the files) and datasets.npz (Keras's outputs).
Run with the TensorFlow venv: python gen_datasets.py
"""

import gzip
import io
import json
import os
import pickle
import tarfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "datasets")
rng = np.random.RandomState(2026)


def write_npz(name, **arrays):
    np.savez(os.path.join(FILES, name), **arrays)


def idx_gz(name, header, payload):
    with gzip.open(os.path.join(FILES, name), "wb") as f:
        f.write(header + payload.tobytes())


def cifar_tar(name, folder, batches):
    with tarfile.open(os.path.join(FILES, name), "w:gz") as tar:
        for member, content in batches.items():
            data = pickle.dumps(content, protocol=3)  # bytes as bytes, as in the real files
            info = tarfile.TarInfo(f"{folder}/{member}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def sequences(n, low, high, lengths):
    out = np.empty(n, dtype=object)
    for i in range(n):
        out[i] = [int(v) for v in rng.randint(low, high, size=rng.randint(*lengths))]
    return out


os.makedirs(FILES, exist_ok=True)
write_npz(
    "mnist.npz",
    x_train=rng.randint(0, 256, (12, 28, 28)).astype(np.uint8),
    y_train=rng.randint(0, 10, 12).astype(np.uint8),
    x_test=rng.randint(0, 256, (5, 28, 28)).astype(np.uint8),
    y_test=rng.randint(0, 10, 5).astype(np.uint8),
)
for split, n in (("train", 9), ("t10k", 4)):
    idx_gz(
        f"{split}-labels-idx1-ubyte.gz",
        b"\0\0\x08\x01" + n.to_bytes(4, "big"),
        rng.randint(0, 10, n).astype(np.uint8),
    )
    idx_gz(
        f"{split}-images-idx3-ubyte.gz",
        b"\0\0\x08\x03" + n.to_bytes(4, "big") + (28).to_bytes(4, "big") * 2,
        rng.randint(0, 256, (n, 28, 28)).astype(np.uint8),
    )
write_npz("boston_housing.npz", x=rng.rand(23, 13), y=rng.rand(23) * 50)
write_npz(
    "california_housing.npz",
    x=rng.rand(700, 8).astype(np.float32),
    y=(rng.rand(700) * 5e5).astype(np.float32),
)
write_npz(
    "imdb.npz",
    x_train=sequences(14, 1, 60, (3, 40)),
    y_train=rng.randint(0, 2, 14),
    x_test=sequences(9, 1, 60, (3, 40)),
    y_test=rng.randint(0, 2, 9),
)
write_npz("reuters.npz", x=sequences(17, 1, 80, (2, 30)), y=rng.randint(0, 46, 17))
for name in ("imdb_word_index.json", "reuters_word_index.json"):
    with open(os.path.join(FILES, name), "w") as f:
        json.dump({"the": 1, "and": 2, "film": 17}, f)


def batch(n, key):
    return {
        b"data": rng.randint(0, 256, (n, 3072)).astype(np.uint8),
        key: [int(v) for v in rng.randint(0, 10, n)],
        b"batch_label": b"x",
    }


cifar_tar(
    "cifar-10-python.tar.gz",
    "cifar-10-batches-py",
    {
        **{f"data_batch_{i}": batch(3, b"labels") for i in range(1, 6)},
        "test_batch": batch(2, b"labels"),
    },
)


def batch100(n):
    return {
        b"data": rng.randint(0, 256, (n, 3072)).astype(np.uint8),
        b"fine_labels": [int(v) for v in rng.randint(0, 100, n)],
        b"coarse_labels": [int(v) for v in rng.randint(0, 20, n)],
    }


cifar_tar(
    "cifar-100-python.tar.gz", "cifar-100-python", {"train": batch100(6), "test": batch100(4)}
)

# Keras on these files: its get_file downloads from a file:// URL into a scratch cache.
import tempfile

os.environ["KERAS_HOME"] = tempfile.mkdtemp()
import keras
from keras.src.datasets import (
    boston_housing,
    california_housing,
    cifar,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)
from keras.src.utils import file_utils

real_get_file = file_utils.get_file


def local_get_file(fname=None, origin=None, file_hash=None, md5_hash=None, **kw):
    origin = "file://" + os.path.join(FILES, os.path.basename(origin))
    return real_get_file(fname, origin=origin, **kw)


for module in (
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
):
    module.get_file = local_get_file

out = {}


def put(prefix, result):
    (xa, ya), (xb, yb) = result
    for key, value in (("x_train", xa), ("y_train", ya), ("x_test", xb), ("y_test", yb)):
        if value.dtype == object:  # ragged word lists: flattened, with their lengths
            out[f"{prefix}/{key}/lengths"] = np.array([len(v) for v in value])
            out[f"{prefix}/{key}/values"] = np.array([w for v in value for w in v], np.int64)
        else:
            out[f"{prefix}/{key}"] = value


put("mnist", mnist.load_data())
put("fashion_mnist", fashion_mnist.load_data())
# Keras's cifar10.load_data writes each batch into a preallocated [50000, ...] array (10,000
# rows a batch), so for these 3-row batches its result is assembled from Keras's own
# `load_batch` the same way: the batches in order, labels [N, 1] uint8, channels last.
cifar10_dir = local_get_file(
    "cifar-10-batches-py-target", origin="cifar-10-python.tar.gz", extract=True
)
cifar10_dir = os.path.join(cifar10_dir, "cifar-10-batches-py")
parts = [cifar.load_batch(os.path.join(cifar10_dir, f"data_batch_{i}")) for i in range(1, 6)]
test_x, test_y = cifar.load_batch(os.path.join(cifar10_dir, "test_batch"))
put(
    "cifar10",
    (
        (
            np.concatenate([p[0] for p in parts]).transpose(0, 2, 3, 1),
            np.concatenate([np.asarray(p[1], np.uint8) for p in parts]).reshape(-1, 1),
        ),
        (test_x.transpose(0, 2, 3, 1), np.asarray(test_y, np.uint8).reshape(-1, 1)),
    ),
)
put("cifar100_fine", cifar100.load_data())
put("cifar100_coarse", cifar100.load_data(label_mode="coarse"))
put("boston", boston_housing.load_data())
put("boston_split", boston_housing.load_data(test_split=0.35, seed=7))
put("california", california_housing.load_data())
put("california_small", california_housing.load_data(version="small", test_split=0.1, seed=3))
put("imdb", imdb.load_data())
put("imdb_opts", imdb.load_data(num_words=30, skip_top=5, maxlen=25, seed=5, index_from=2))
put("imdb_no_oov", imdb.load_data(num_words=40, oov_char=None, start_char=None, index_from=0))
put("reuters", reuters.load_data())
put("reuters_opts", reuters.load_data(num_words=50, skip_top=2, maxlen=20, test_split=0.3, seed=9))
np.savez_compressed(os.path.join(HERE, "datasets.npz"), **out)
print(f"datasets.npz: {len(out)} arrays (keras {keras.__version__})")
