"""Reference values of Keras 3's `keras.ops` activations, normalizations, `psnr` and linear
algebra (TensorFlow 2.21 backend).

Run with TensorFlow's venv (see README.md); writes keras_ops_nn_linalg.npz beside this file.
`CASES` (inputs and arguments) is imported by the test, which calls `rt.keras.ops.<name>` and
compares values and dtypes. Factorizations whose factors are unique only up to signs (`qr`,
`svd`, `eigh`) are compared through what is unique (values, products)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_rng = np.random.default_rng(21)
X = np.linspace(-2.5, 2.5, 12).reshape(3, 4).astype(np.float32)
X64 = _rng.normal(size=(3, 4))
_m = _rng.normal(size=(4, 4))
SPD = (_m @ _m.T + 4 * np.eye(4)).astype(np.float32)
SPD64 = _m @ _m.T + 4 * np.eye(4)
SQ = _rng.normal(size=(2, 3, 3)).astype(np.float32)
TALL = _rng.normal(size=(5, 3))
LOW = np.tril(_rng.normal(size=(3, 3)) + 3 * np.eye(3)).astype(np.float32)
RANK2 = (_rng.normal(size=(4, 2)) @ _rng.normal(size=(2, 5))).astype(np.float32)

CASES: list[tuple[str, list[Any], dict[str, Any]]] = [
    ("celu", [X], {}),
    ("celu", [X64], {"alpha": 0.5}),
    ("glu", [X], {}),
    ("glu", [X64.T], {"axis": 0}),
    ("hard_shrink", [X], {}),
    ("hard_shrink", [X64], {"threshold": 0.3}),
    ("hard_silu", [X], {}),
    ("hard_swish", [X64], {}),
    ("hard_tanh", [X], {}),
    ("soft_shrink", [X], {}),
    ("soft_shrink", [X64], {"threshold": 1.0}),
    ("sparse_plus", [X], {}),
    ("sparse_sigmoid", [X64], {}),
    ("sparsemax", [X], {}),
    ("sparsemax", [X64], {"axis": 0}),
    ("squareplus", [X], {}),
    ("squareplus", [X64], {"b": 2}),
    ("tanh_shrink", [X], {}),
    ("threshold", [X, 0.5, -3.0], {}),
    (
        "batch_normalization",
        [
            X,
            np.array([0.1, 0.2, -0.3, 0.0], np.float32),
            np.array([1.0, 2.0, 0.5, 4.0], np.float32),
        ],
        {"axis": -1, "offset": np.ones(4, np.float32), "scale": np.full(4, 2.0, np.float32)},
    ),
    (
        "batch_normalization",
        [X64, np.array([0.1, 0.2, -0.3]), np.array([1.0, 2.0, 0.5])],
        {"axis": 0, "epsilon": 0.01},
    ),
    ("layer_normalization", [X], {}),
    (
        "layer_normalization",
        [X],
        {"gamma": np.linspace(0.5, 2.0, 4).astype(np.float32), "beta": np.ones(4, np.float32)},
    ),
    ("layer_normalization", [X64.reshape(3, 2, 2)], {"axis": [1, 2], "epsilon": 0.1}),
    ("layer_normalization", [X], {"rms_scaling": True, "gamma": np.full(4, 3.0, np.float32)}),
    ("rms_normalization", [X], {}),
    ("rms_normalization", [X64], {"scale": np.linspace(1, 2, 4), "axis": 1, "epsilon": 0.01}),
    ("psnr", [X, X * 0.9, 3.0], {}),
    ("psnr", [X64, X64 + 0.01, 1.0], {}),
    ("cholesky", [SPD], {}),
    ("cholesky", [SPD64], {"upper": True}),
    ("cholesky_inverse", [np.linalg.cholesky(SPD64)], {}),
    ("cholesky_inverse", [np.linalg.cholesky(SPD).T.copy()], {"upper": True}),
    ("det", [SQ], {}),
    ("inv", [SPD64], {}),
    ("logdet", [SPD], {}),
    ("slogdet", [SQ], {}),
    ("solve", [SPD, X.T.copy()], {}),
    ("solve", [SPD64, X64[0]], {}),
    ("solve_triangular", [LOW, X[:, :3].T.copy()], {"lower": True}),
    ("solve_triangular", [LOW.T.copy(), np.array([1.0, 2.0, 3.0], np.float32)], {}),
    ("pinv", [RANK2], {}),
    ("pinv", [TALL], {"rcond": 0.1}),
    ("matrix_rank", [RANK2], {}),
    ("matrix_rank", [TALL], {"tol": 0.5}),
    ("lstsq", [TALL, X64[0, :3].repeat(2)[:5]], {}),
    ("lstsq", [RANK2.T.copy(), X[:, :2].repeat(2, axis=0)[:5]], {}),
    ("svd", [TALL], {"compute_uv": False}),
    ("eigh", [SPD64], {}),
    ("qr", [TALL], {}),
    ("qr", [TALL], {"mode": "complete"}),
    ("svd", [TALL], {}),
    ("svd", [TALL], {"full_matrices": False}),
    ("erfinv", [np.linspace(-0.999, 0.999, 12).astype(np.float32)], {}),
    ("erfinv", [np.concatenate([np.linspace(-1, 1, 9), [1 - 1e-12, -1e-300, 0.5]])], {}),
]


def outputs(result: Any) -> list[np.ndarray]:
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    return [np.asarray(r) for r in items]


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for i, (name, args, kwargs) in enumerate(CASES):
        for k, array in enumerate(outputs(getattr(keras.ops, name)(*args, **kwargs))):
            out[f"{i}/{k}"] = array
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_ops_nn_linalg.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
