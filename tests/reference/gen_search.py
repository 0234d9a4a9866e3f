"""Reference values of TensorFlow 2.21's searching and counting ops (`tf.searchsorted`,
`tf.math.bincount`, `tf.unique`, `tf.unique_with_counts`, `tf.histogram_fixed_width`,
`tf.histogram_fixed_width_bins`) and Keras 3's `keras.ops` `digitize`, `searchsorted`,
`bincount`, `unique` and `histogram`.

Run with TensorFlow's venv (see README.md); writes search.npz beside this file. `CASES` (the
inputs and arguments) is imported by the test, which calls rustape's function of the same name
and compares every output exactly (they are positions and counts; histogram edges to 1e-6).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64
_rng = np.random.default_rng(5)
_sorted_rows = np.sort(_rng.integers(0, 9, size=(2, 3, 6)), axis=-1).astype(F64)
_grid = (np.arange(41, dtype=F32) * np.float32(0.1) - np.float32(1.0)).astype(F32)

# (function, positional arguments, keyword arguments); function names are `tf.<name>` or
# `tf.math.<name>` for rt, `keras.ops.<name>` for those starting with "ops.".
CASES: list[tuple[str, list[Any], dict[str, Any]]] = [
    # tf.searchsorted
    ("searchsorted", [np.array([1, 2, 2, 2, 5], F32), np.array([2, 0, 9, 1.5, np.nan], F32)], {}),
    (
        "searchsorted",
        [np.array([1, 2, 2, 2, 5], F32), np.array([2, 0, 9, 1.5, np.nan], F32)],
        {"side": "right", "out_type": "int64"},
    ),
    (
        "searchsorted",
        [np.array([[1, 3, 5], [0, 0, 7]], I32), np.array([[3, 6, 0, 5], [0, 8, 1, -1]], I32)],
        {"side": "right"},
    ),
    ("searchsorted", [_sorted_rows, _rng.integers(-1, 10, size=(2, 3, 4)).astype(F64)], {}),
    (
        "searchsorted",
        [_sorted_rows, _rng.integers(-1, 10, size=(2, 3, 4)).astype(F64)],
        {"side": "right"},
    ),
    # tf.math.bincount
    ("bincount", [np.array([1, 1, 3, 0, 7], I32)], {}),
    ("bincount", [np.array([1, 1, 3, 0, 7], I64)], {"minlength": 10}),
    ("bincount", [np.array([1, 1, 3, 0, 7], I32)], {"maxlength": 4}),
    ("bincount", [np.array([1, 1, 3], I32)], {"minlength": 2, "maxlength": 2}),
    ("bincount", [np.array([2, 2, 0], I32)], {"weights": np.array([0.5, 1.25, 2.0], F32)}),
    ("bincount", [np.array([2, 2, 0], I32)], {"weights": np.array([0.5, 1.25, 2.0], F64)}),
    ("bincount", [np.array([[1, 2, 2], [0, 4, 0]], I32)], {"axis": -1}),
    ("bincount", [np.array([[1, 2, 2], [0, 4, 0]], I32)], {"axis": -1, "binary_output": True}),
    ("bincount", [np.array([[1, 2, 2], [0, 4, 0]], I32)], {"binary_output": True}),
    ("bincount", [np.array([3, 3], I32)], {"dtype": "float32"}),
    ("bincount", [np.zeros((0,), I32)], {"minlength": 3}),
    ("bincount", [np.zeros((0,), I32)], {}),
    # tf.unique, tf.unique_with_counts
    ("unique", [np.array([4, 1, 4, 2, 1, 9], I32)], {}),
    ("unique", [np.array([0.5, -0.0, 0.0, 0.5, 2.0], F32)], {"out_idx": "int64"}),
    ("unique", [np.array([7, 7, 7], I64)], {}),
    ("unique_with_counts", [np.array([4, 1, 4, 2, 1, 9], I32)], {}),
    ("unique_with_counts", [np.array([1.5, 1.5, -3.0], F64)], {"out_idx": "int64"}),
    # tf.histogram_fixed_width, tf.histogram_fixed_width_bins
    (
        "histogram_fixed_width",
        [np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 5.0, 1.99], F32), np.array([0.0, 2.0], F32)],
        {"nbins": 4},
    ),
    ("histogram_fixed_width", [_grid, np.array([-1.0, 3.0], F32)], {"nbins": 7}),
    (
        "histogram_fixed_width",
        [_grid.astype(F64), np.array([-0.7, 2.2], F64)],
        {"nbins": 9, "dtype": "int64"},
    ),
    (
        "histogram_fixed_width",
        [np.array([3, 1, 4, 1, 5], I32), np.array([0, 6], I32)],
        {"nbins": 3},
    ),
    ("histogram_fixed_width", [_grid, np.array([0.0, 1.0], F32)], {}),
    ("histogram_fixed_width_bins", [_grid, np.array([-1.0, 3.0], F32)], {"nbins": 7}),
    ("histogram_fixed_width_bins", [_grid, np.array([-0.3, 0.9], F32)], {"nbins": 12}),
    (
        "histogram_fixed_width_bins",
        [_grid.astype(F64).reshape(41, 1), np.array([-0.7, 2.2], F64)],
        {"nbins": 9},
    ),
    # keras.ops
    ("ops.digitize", [np.array([0.5, 1.0, 1.5, 2.0, 9.0, -3.0, np.nan], F32), [1.0, 2.0]], {}),
    ("ops.digitize", [np.array([[1, 2], [3, 4]], I32), [1.5, 2.5, 2.5]], {}),
    ("ops.digitize", [np.array([0.1, 0.2, 0.30000001], F64), [0.1, 0.2, 0.3]], {}),
    ("ops.searchsorted", [np.array([1, 3, 5, 5], I32), np.array([0, 5, 6, 3], I32)], {}),
    (
        "ops.searchsorted",
        [np.array([1.0, 3.0, 5.0], F32), np.array([5.0, 0.0, 3.5], F32)],
        {"side": "right"},
    ),
    ("ops.bincount", [np.array([1, 2, 2, 3], I32)], {}),
    ("ops.bincount", [np.array([1, 2, 2, 3], I64)], {"minlength": 6}),
    ("ops.bincount", [np.array([1, 2, 2], I32)], {"weights": np.array([1.0, 2.0, 3.5], F32)}),
    ("ops.bincount", [np.array([1, 2, 2], I32)], {"weights": np.array([1, 2, 3], I32)}),
    ("ops.bincount", [np.array([[1, 2, 2], [0, 0, 4]], I32)], {"minlength": 3}),
    ("ops.unique", [np.array([3, 1, 3, 2, 1], I32)], {}),
    (
        "ops.unique",
        [np.array([3, 1, 3, 2, 1], I32)],
        {"sorted": False, "return_index": True, "return_inverse": True, "return_counts": True},
    ),
    (
        "ops.unique",
        [np.array([[3, 1], [3, 2], [0, 1]], I32)],
        {"return_index": True, "return_inverse": True, "return_counts": True},
    ),
    (
        "ops.unique",
        [np.array([[3, 1, 3], [2, 1, 2], [0, 5, 0]], F32)],
        {"axis": 1, "return_inverse": True, "return_counts": True},
    ),
    (
        "ops.unique",
        [np.array([[5, 1], [0, 2], [5, 1], [0, 1]], I64)],
        {"axis": 0, "return_index": True, "return_inverse": True},
    ),
    (
        "ops.unique",
        [np.array([3.0, 1.0, 3.0, 2.0], F32)],
        {"size": 5, "fill_value": -1, "return_index": True, "return_counts": True},
    ),
    ("ops.unique", [np.array([3, 1, 3, 2, 4, 4], I32)], {"size": 2, "return_counts": True}),
    ("ops.histogram", [np.array([0.0, 1.0, 2.0, 3.0, 10.0], F32)], {"bins": 3}),
    ("ops.histogram", [np.array([0.0, 1.0, 2.0, 3.0, 10.0], F32)], {"bins": 3, "range": (0, 9)}),
    ("ops.histogram", [_grid], {"bins": 7, "range": (-0.5, 2.0)}),
    ("ops.histogram", [_grid.astype(F64)], {"bins": 5}),
]


def call(
    module_tf: Any, module_ops: Any, name: str, args: list[Any], kwargs: dict[str, Any]
) -> Any:
    """`name` from `module_ops` (keras.ops) or `module_tf` (tf, else tf.math)."""
    if name.startswith("ops."):
        return getattr(module_ops, name[4:])(*args, **kwargs)
    fn = getattr(module_tf, name, None) or getattr(module_tf.math, name)
    return fn(*args, **kwargs)


def outputs(result: Any) -> list[np.ndarray]:
    """A result's arrays: one, or each of a tuple's."""
    items = list(result) if isinstance(result, tuple) else [result]
    return [np.asarray(r) for r in items]


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for i, (name, args, kwargs) in enumerate(CASES):
        kw = dict(kwargs)
        for key in ("out_type", "out_idx", "dtype"):
            if key in kw:
                kw[key] = getattr(tf, kw[key])
        for k, array in enumerate(outputs(call(tf, keras.ops, name, args, kw))):
            out[f"{i}/{k}"] = array
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "search.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
