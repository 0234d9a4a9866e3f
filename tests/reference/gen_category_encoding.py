"""Keras 3's `CategoryEncoding` (TensorFlow 2.21): one-hot, multi-hot and count encodings of
tokens of rank 0, 1 and 2 (a trailing axis of one included), weighted counts, another dtype.

`run(keras)` is imported by the test and runs on rustape's Keras. Run with TensorFlow's venv
(see README.md); writes category_encoding.npz beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

INPUTS = {
    "vector": np.array([1, 3, 3]),
    "column": np.array([[1], [3]]),
    "matrix": np.array([[0, 1, 1], [2, 2, 3]]),
    "scalar": np.array(2),
    "batch": np.random.default_rng(0).integers(0, 6, size=(5, 4)),
}


def run(keras: Any) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for mode in ("one_hot", "multi_hot", "count", "binary"):
        for name, x in INPUTS.items():
            layer = keras.layers.CategoryEncoding(num_tokens=6, output_mode=mode)
            out[f"{mode}/{name}"] = np.asarray(layer(x))
    weights = np.random.default_rng(1).uniform(size=(5, 4)).astype(np.float32)
    layer = keras.layers.CategoryEncoding(num_tokens=6, output_mode="count")
    out["count/weighted"] = np.asarray(layer(INPUTS["batch"], count_weights=weights))
    layer = keras.layers.CategoryEncoding(num_tokens=6, output_mode="one_hot", dtype="float64")
    out["one_hot/float64"] = np.asarray(layer(INPUTS["matrix"]))
    return out


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras

    out = run(keras)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "category_encoding.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path}: {len(out)} arrays, keras {keras.__version__}")


if __name__ == "__main__":
    main()
