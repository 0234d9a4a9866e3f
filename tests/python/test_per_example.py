"""Per-example gradients: `tape.jacobian(losses, variables)` with one loss per batch row (one
sweep inside) equals the gradient of each loss taken alone, and rows that mix still work."""

import numpy as np
import rustape as rt


def _mlp_losses(x: rt.Tensor, params: list[rt.Variable], center: bool) -> rt.Tensor:
    w1, b1, w2 = params
    h = rt.math.tanh(rt.matmul(x, w1) + b1)
    if center:  # every loss then depends on every row
        h = h - rt.reduce_mean(h, axis=0, keepdims=True)
    return rt.reduce_sum(rt.square(rt.matmul(h, w2)), axis=1)


def _params(rng: np.random.Generator) -> list[rt.Variable]:
    shapes = [(5, 4), (4,), (4, 3)]
    return [rt.Variable(rng.standard_normal(s)) for s in shapes]


def _row_by_row(x: np.ndarray, params: list[rt.Variable], center: bool) -> list[np.ndarray]:
    rows = []
    for i in range(x.shape[0]):
        with rt.GradientTape() as tape:
            loss = _mlp_losses(rt.constant(x), params, center)[i]
        rows.append([g.numpy() for g in tape.gradient(loss, params)])
    return [np.stack([r[k] for r in rows]) for k in range(len(params))]


def test_per_example_jacobian_equals_each_rows_gradient() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 5))
    params = _params(rng)
    for center in (False, True):
        with rt.GradientTape() as tape:
            losses = _mlp_losses(rt.constant(x), params, center)
        jac = tape.jacobian(losses, params)
        expected = _row_by_row(x, params, center)
        for j, e, p in zip(jac, expected, params):
            assert j.shape == (6, *p.shape)
            np.testing.assert_allclose(j.numpy(), e, rtol=1e-12, atol=1e-12)


def test_a_keras_cnn_per_example_jacobian_equals_each_rows_gradient() -> None:
    # Conv2D + bias, pooling, Flatten, Dense + bias: every op gives per-example gradients.
    rng = np.random.default_rng(5)
    model = rt.keras.Sequential(
        [
            rt.keras.layers.Conv2D(3, 3, activation="tanh", dtype="float64"),
            rt.keras.layers.MaxPooling2D(2),
            rt.keras.layers.Flatten(),
            rt.keras.layers.Dense(2, dtype="float64"),
        ]
    )
    x = rt.constant(rng.standard_normal((4, 6, 6, 2)))
    model(x)
    params = model.trainable_variables

    def losses(inputs: rt.Tensor) -> rt.Tensor:
        return rt.reduce_sum(rt.square(model(inputs)), axis=1)

    with rt.GradientTape() as tape:
        out = losses(x)
    jac = tape.jacobian(out, params)
    for i in range(4):
        with rt.GradientTape() as tape:
            loss = losses(x)[i]
        for j, g in zip(jac, tape.gradient(loss, params)):
            np.testing.assert_allclose(j.numpy()[i], g.numpy(), rtol=1e-12, atol=1e-12)
