"""A CNN training step's gradients have the same bits on one and on two threads.

The convolution and pooling kernels split a batch over threads in chunks sized from the shapes
alone (never from the thread count), and the filter gradient sums its per-chunk partials in
chunk order; this runs the benchmark's CNN (benches/train.py) in a child process per thread
count and compares every gradient bit for bit, and against central finite differences of the
loss in float64 along one random direction.
"""

from __future__ import annotations

import os
import textwrap

import numpy as np
import rustape as rt
from conftest import arrays_from_child

STEP = textwrap.dedent(
    """
    import sys
    import numpy as np
    import rustape as rt

    rng = np.random.default_rng(0)
    layers = rt.keras.layers
    model = rt.keras.Sequential([
        rt.keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(10)])
    model.set_weights([0.1 * rng.standard_normal(w.shape).astype(np.float32)
                       for w in model.get_weights()])
    x = rt.constant(rng.standard_normal((64, 28, 28, 1)).astype(np.float32))
    y = rt.constant(rng.integers(0, 10, size=64).astype(np.int32))
    loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with rt.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    np.savez(sys.argv[1], *[g.numpy() for g in grads])
    """
)


def step_gradients(threads: int, path: str) -> list[np.ndarray]:
    return arrays_from_child(STEP, threads, path)


def test_cnn_step_gradients_have_the_same_bits_on_one_and_two_threads(tmp_path: object) -> None:
    one = step_gradients(1, os.path.join(str(tmp_path), "one.npz"))
    two = step_gradients(2, os.path.join(str(tmp_path), "two.npz"))
    assert [g.shape for g in one] == [
        (3, 3, 1, 32),
        (32,),
        (3, 3, 32, 64),
        (64,),
        (1600, 128),
        (128,),
        (128, 10),
        (10,),
    ]
    for k, (a, b) in enumerate(zip(one, two)):
        assert np.array_equal(a, b), f"gradient {k} differs between 1 and 2 threads"
        assert np.all(np.isfinite(a)) and np.any(a != 0), f"gradient {k}"


def test_batched_conv_pool_gradient_matches_finite_differences() -> None:
    # Enough images for 14 chunks (14 partial filter gradients summed); float64, so central
    # differences are exact to ~1e-8 (window maxima lie far more than the step apart).
    rng = np.random.default_rng(1)
    x = rt.constant(rng.standard_normal((40, 12, 12, 3)))
    k1 = rt.constant(rng.standard_normal((3, 3, 3, 8)))
    k2 = rt.constant(rng.standard_normal((3, 3, 8, 4)))
    w = rt.constant(rng.standard_normal((40, 3, 3, 4)))

    def loss(a: object, b: object) -> object:
        h = rt.nn.max_pool2d(rt.nn.relu(rt.nn.conv2d(x, a, 1, "SAME")), 2, 2, "VALID")
        return rt.reduce_sum(rt.nn.conv2d(h, b, 1, "SAME")[:, :3, :3, :] * w)

    with rt.GradientTape() as tape:
        tape.watch([k1, k2])
        value = loss(k1, k2)
    g1, g2 = tape.gradient(value, [k1, k2])
    d1, d2 = rng.standard_normal(k1.shape), rng.standard_normal(k2.shape)
    eps = 1e-6
    plus = float(loss(k1 + eps * d1, k2 + eps * d2))
    minus = float(loss(k1 - eps * d1, k2 - eps * d2))
    numeric = (plus - minus) / (2 * eps)
    analytic = float(np.sum(g1.numpy() * d1) + np.sum(g2.numpy() * d2))
    assert abs(numeric - analytic) <= 1e-6 * max(1.0, abs(analytic))


def test_bias_add_split_across_threads_matches_numpy() -> None:
    # 2.1M elements split in chunks that start mid-row (7 channels do not divide a chunk).
    rng = np.random.default_rng(2)
    value = rng.standard_normal((300_001, 7)).astype(np.float32)
    bias = rng.standard_normal(7).astype(np.float32)
    got = rt.nn.bias_add(rt.constant(value), rt.constant(bias)).numpy()
    assert np.array_equal(got, value + bias)


def test_conv_layer_bias_gradient_matches_numpy() -> None:
    # 43264 rows of 32 channels (the CNN's first conv layer).
    rng = np.random.default_rng(3)
    value = rt.constant(rng.standard_normal((64, 26, 26, 32)))
    bias = rt.constant(rng.standard_normal(32))
    dy = rng.standard_normal((64, 26, 26, 32))
    with rt.GradientTape() as tape:
        tape.watch(bias)
        y = rt.nn.bias_add(value, bias)
    got = tape.gradient(y, bias, output_gradients=rt.constant(dy)).numpy()
    np.testing.assert_allclose(got, dy.sum(axis=(0, 1, 2)), rtol=1e-12, atol=1e-10)
