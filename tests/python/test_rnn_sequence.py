"""`lstm_sequence` (the LSTM layer's whole loop as one op) against the same loop written step by
step with `lstm_cell`: values and gradients, in float32 and float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import rustape as rt
from rustape import _rustape


def _step_by_step(x: Any, u: Any, h: Any, c: Any) -> tuple[Any, Any]:
    outputs = []
    for x_t in rt.unstack(x):
        h, c = _rustape.lstm_cell(rt.add(x_t, rt.matmul(h, u)), c)
        outputs.append(h)
    return rt.stack(outputs), c


# The larger size is above the op's split threshold: blocks of batch rows (of unequal size
# here) run the loop on their own threads.
@pytest.mark.parametrize("sizes", [(5, 3, 4), (12, 27, 64)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstm_sequence_equals_the_step_by_step_loop(
    dtype: Any, sizes: tuple[int, int, int]
) -> None:
    rng = np.random.default_rng(7)
    steps, batch, units = sizes
    arrays = [
        rng.standard_normal((steps, batch, 4 * units)),
        rng.standard_normal((units, 4 * units)) * 0.5,
        rng.standard_normal((batch, units)),
        rng.standard_normal((batch, units)),
    ]
    weights = rng.standard_normal((steps, batch, units))
    results = []
    for fn in (_rustape.lstm_sequence, _step_by_step):
        inputs = [rt.Variable(a.astype(dtype)) for a in arrays]
        with rt.GradientTape() as tape:
            hs, c = fn(*inputs)
            loss = rt.reduce_sum(hs * weights.astype(dtype)) + rt.reduce_sum(c * c)
        grads = tape.gradient(loss, inputs)
        results.append([hs.numpy(), c.numpy()] + [g.numpy() for g in grads])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for fused, stepwise in zip(*results):
        np.testing.assert_allclose(fused, stepwise, rtol=tol, atol=tol)


def test_lstm_sequence_gradient_of_the_last_state_alone() -> None:
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in [(4, 2, 12), (3, 12), (2, 3), (2, 3)]]
    results = []
    for fn in (_rustape.lstm_sequence, _step_by_step):
        inputs = [rt.constant(a) for a in arrays]
        with rt.GradientTape() as tape:
            for t in inputs:
                tape.watch(t)
            _, c = fn(*inputs)
        results.append([g.numpy() for g in tape.gradient(c, inputs)])
    for fused, stepwise in zip(*results):
        np.testing.assert_allclose(fused, stepwise, rtol=1e-12, atol=1e-12)


def test_lstm_sequence_rejects_mismatched_shapes() -> None:
    x = rt.zeros([3, 2, 8])
    with pytest.raises(ValueError, match="lstm_sequence"):
        _rustape.lstm_sequence(x, rt.zeros([2, 4]), rt.zeros([2, 2]), rt.zeros([2, 2]))
    with pytest.raises(ValueError, match="lstm_sequence"):
        _rustape.lstm_sequence(x, rt.zeros([2, 8]), rt.zeros([3, 2]), rt.zeros([3, 2]))
    with pytest.raises(TypeError, match="lstm_sequence"):
        _rustape.lstm_sequence(
            x, rt.zeros([2, 8], dtype=rt.float64), rt.zeros([2, 2]), rt.zeros([2, 2])
        )
