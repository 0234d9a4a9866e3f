"""Reference values of Keras 3's `Discretization` layer (TensorFlow 2.21 backend): outputs
for given boundaries in each output mode, and boundaries learned by `adapt` from arrays and
from several batches (Keras's quantile summaries, merged and compressed).

Run with TensorFlow's venv (see README.md); writes discretization.npz beside this file.
`CALLS` and `ADAPTS` (inputs and arguments) are imported by the test.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_rng = np.random.default_rng(11)
X = _rng.normal(size=(4, 6)).astype(np.float32)
EDGES = [-1.0, -0.25, 0.0, 0.8]

# name -> (constructor arguments, input)
CALLS: dict[str, tuple[dict[str, Any], np.ndarray]] = {
    "int": ({"bin_boundaries": EDGES}, X),
    "int_float64_input": ({"bin_boundaries": EDGES}, X.astype(np.float64)),
    "one_hot": ({"bin_boundaries": EDGES, "output_mode": "one_hot"}, X[:, :1]),
    "one_hot_vector": ({"bin_boundaries": EDGES, "output_mode": "one_hot"}, X[0]),
    "multi_hot": ({"bin_boundaries": EDGES, "output_mode": "multi_hot"}, X),
    "count": ({"bin_boundaries": EDGES, "output_mode": "count"}, X),
    "count_vector": ({"bin_boundaries": EDGES, "output_mode": "count"}, X[1]),
    "edges_exactly": ({"bin_boundaries": [0.5, 1.5]}, np.array([0.5, 1.5, 1.0, -2.0], np.float32)),
}

# name -> (constructor arguments, batches (one array, or a list of batches), adapt steps)
ADAPTS: dict[str, tuple[dict[str, Any], Any, int | None]] = {
    "normal_5": ({"num_bins": 5}, _rng.normal(size=1000).astype(np.float32), None),
    "uniform_4_matrix": ({"num_bins": 4}, _rng.uniform(-3, 3, size=(50, 8)), None),
    "small_3": ({"num_bins": 3}, np.arange(10, dtype=np.float32)[::-1].copy(), None),
    "epsilon_0.1": (
        {"num_bins": 6, "epsilon": 0.1},
        _rng.exponential(size=777).astype(np.float32),
        None,
    ),
    "batches": (
        {"num_bins": 4},
        [_rng.normal(loc=k, size=300).astype(np.float32) for k in range(4)],
        None,
    ),
    "batches_steps": (
        {"num_bins": 7, "epsilon": 0.05},
        [_rng.normal(loc=-k, size=(40, 3)).astype(np.float32) for k in range(5)],
        3,
    ),
    "counted": (
        {"num_bins": 3, "output_mode": "count"},
        _rng.normal(size=200).astype(np.float32),
        None,
    ),
}


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for name, (kwargs, x) in CALLS.items():
        out[f"call/{name}"] = np.asarray(keras.layers.Discretization(**kwargs)(x))
    for name, (kwargs, data, steps) in ADAPTS.items():
        layer = keras.layers.Discretization(**kwargs)
        layer.adapt(data, steps=steps)
        out[f"adapt/{name}/boundaries"] = np.array(layer.bin_boundaries, np.float64)
        out[f"adapt/{name}/output"] = np.asarray(layer(X))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "discretization.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
