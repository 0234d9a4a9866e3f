"""An MLP's Adam steps give the same bits on one and on two threads.

The benchmark's MLP (benches/train.py: 784 -> 512 relu -> 512 relu -> 10, batch 256) is large
enough that its GEMMs split across threads, its bias adds and relus split when a helper thread
is awake, and Adam's update of the two large kernels runs in chunks on both threads. Every split
is by the shapes alone, so a child process per thread count must end with the same weights, bit
for bit, after a few steps.
"""

from __future__ import annotations

import os
import textwrap

import numpy as np
from conftest import arrays_from_child

STEPS = textwrap.dedent(
    """
    import sys
    import numpy as np
    import rustape as rt

    rng = np.random.default_rng(0)
    model = rt.keras.Sequential([rt.keras.Input(shape=(784,)),
                                 rt.keras.layers.Dense(512, activation="relu"),
                                 rt.keras.layers.Dense(512, activation="relu"),
                                 rt.keras.layers.Dense(10)])
    model.set_weights([rng.uniform(-0.08, 0.08, w.shape).astype(np.float32)
                       for w in model.get_weights()])
    x = rt.constant(rng.standard_normal((256, 784)).astype(np.float32))
    y = rt.constant(rng.integers(0, 10, size=256).astype(np.int32))
    opt = rt.keras.optimizers.Adam(1e-3)
    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses = []
    for _ in range(4):
        with rt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    np.savez(sys.argv[1], np.array(losses, np.float32), *model.get_weights())
    """
)


def trained(threads: int, path: str) -> list[np.ndarray]:
    return arrays_from_child(STEPS, threads, path)


def test_mlp_adam_steps_have_the_same_bits_on_one_and_two_threads(tmp_path: object) -> None:
    one = trained(1, os.path.join(str(tmp_path), "one.npz"))
    two = trained(2, os.path.join(str(tmp_path), "two.npz"))
    losses = one[0]
    # Adam on a fixed batch: the loss falls from about log(10) (small weights).
    assert 1.0 < losses[0] < 4.0 and losses[-1] < losses[0], losses
    assert [w.shape for w in one[1:]] == [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
    for k, (a, b) in enumerate(zip(one, two)):
        assert np.array_equal(a, b), f"array {k} differs between 1 and 2 threads"
        assert np.all(np.isfinite(a)), f"array {k}"
