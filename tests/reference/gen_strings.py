"""`tf.strings` (TensorFlow 2.21) over ASCII, UTF-8, empty strings and edge arguments, the
hash buckets of Fingerprint64, and the dtype-generic ops on string tensors: each call of
strings_cases.CASES, its result (strings as hex of their bytes) or the class of its error.

Run with TensorFlow's venv (see README.md); writes strings.json beside this file.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf
from strings_cases import CASES


def encode(value):
    if isinstance(value, tf.RaggedTensor):
        return {
            "ragged": True,
            "values": encode(value.values),
            "row_splits": value.row_splits.numpy().tolist(),
        }
    a = np.asarray(value.numpy())
    if value.dtype == tf.string:
        flat = [bytes(b).hex() for b in a.reshape(-1)]
        return {"dtype": "string", "shape": list(a.shape), "hex": flat}
    return {"dtype": value.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


def main() -> None:
    out = {}
    for name, case in CASES.items():
        try:
            out[name] = encode(case(tf))
        except (tf.errors.InvalidArgumentError, ValueError, TypeError) as e:
            out[name] = {"error": type(e).__name__}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "strings.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path}: {len(out)} cases")


if __name__ == "__main__":
    main()
