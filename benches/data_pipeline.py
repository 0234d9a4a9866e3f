"""Input pipelines: rt.data beside tf.data on the same pipelines (one epoch each).

    python benches/data_pipeline.py            # rustape (rt.data)
    python benches/data_pipeline.py --tf       # TensorFlow (tf.data), from TensorFlow's venv

Pipelines, on MNIST-sized arrays (60,000 x 784 float32, int64 labels):
- rows: from_tensor_slices((x, y)).shuffle(60000).batch(128), every batch read as tensors;
- map: from_tensor_slices((x[:10000], y)).map(scale).batch(128): a Python function per
  element (eager in rustape; traced once into a graph in TensorFlow);
- batch_map: the same with map after batch (a function per batch).
Prints the median of 5 epochs per pipeline. Run each framework on a quiet machine, one after
the other, and compare the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tf", action="store_true", help="measure tf.data instead of rt.data")
    ap.add_argument("--epochs", type=int, default=5)
    a = ap.parse_args()
    if a.tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as m
    else:
        import rustape as m  # type: ignore[no-redef]
    rng = np.random.default_rng(0)
    x = rng.random((60_000, 784), dtype=np.float32)
    y = rng.integers(0, 10, 60_000).astype(np.int64)

    def scale(image, label):  # type: ignore[no-untyped-def]
        return image / 255.0, label

    D = m.data.Dataset
    pipelines = {
        "rows": D.from_tensor_slices((x, y)).shuffle(60_000, seed=1).batch(128),
        "map": D.from_tensor_slices((x[:10_000], y[:10_000])).map(scale).batch(128),
        "batch_map": D.from_tensor_slices((x, y)).batch(128).map(scale),
    }
    name = "tf.data" if a.tf else "rt.data"
    for key, ds in pipelines.items():
        times = []
        for _ in range(a.epochs):
            t0 = time.perf_counter()
            for bx, _by in ds:
                pass
            times.append(time.perf_counter() - t0)
        print(f"{name} {key}: median {statistics.median(times) * 1e3:.1f} ms per epoch "
              f"(last batch {tuple(bx.shape)})")


if __name__ == "__main__":
    main()
