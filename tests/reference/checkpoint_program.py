"""The program both sides of the checkpoint reference run (TensorFlow in gen_checkpoint.py,
rustape in tests/python/test_checkpoint.py): fixed weights, three Adam steps, a module of
variables. `ns` is `tf` or `rt` (same names)."""

from __future__ import annotations

from typing import Any

import numpy as np

RNG = np.random.default_rng(7)
KERNEL0 = RNG.normal(size=(3, 4)).astype(np.float32)
BIAS0 = RNG.normal(size=(4,)).astype(np.float32)
KERNEL1 = RNG.normal(size=(4, 2)).astype(np.float32)
BIAS1 = RNG.normal(size=(2,)).astype(np.float32)
X = RNG.normal(size=(5, 3)).astype(np.float32)
Y = RNG.normal(size=(5, 2)).astype(np.float32)


def keras_program(ns: Any, keras: Any, shift: float = 0.0) -> tuple[Any, Any]:
    """A Sequential of two Dense layers and an Adam after three steps (weights + `shift`)."""
    model = keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)]
    )
    model.set_weights([w + shift for w in (KERNEL0, BIAS0, KERNEL1, BIAS1)])
    opt = keras.optimizers.Adam(0.01)
    for _ in range(3):
        with ns.GradientTape() as tape:
            loss = ns.reduce_mean((model(X) - Y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    return model, opt


def module_program(ns: Any, shift: float = 0.0) -> Any:
    """A module with a variable, a list (float32 and float64) and a dict (int32)."""

    class Holder(ns.Module):
        def __init__(self) -> None:
            super().__init__()
            self.v = ns.Variable(np.array([1.5, -2.0], np.float32) + shift)
            self.items = [
                ns.Variable(np.float32(3.25 + shift)),
                ns.Variable(np.arange(4, dtype=np.float64).reshape(2, 2) + shift),
            ]
            self.table = {"a": ns.Variable(np.int32(7 + int(shift)))}

    return Holder()
