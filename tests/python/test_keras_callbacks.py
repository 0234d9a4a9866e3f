"""`Model.fit(..., callbacks=[...])`: the hooks in Keras's order, the History it returns,
`model.stop_training`, and the training callbacks against Keras 3
(tests/reference/gen_callbacks.py)."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt


def _model() -> Any:
    rt.random.set_seed(3)
    model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.05), loss="mse", metrics=["mse"])
    return model


def _data() -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(1).normal(size=(10, 2)).astype(np.float32)
    return x, x.sum(1, keepdims=True)


def test_hooks_run_in_order_and_history_is_returned() -> None:
    calls: list[tuple[Any, ...]] = []

    class Recorder(rt.keras.callbacks.Callback):
        def on_train_begin(self, logs: Any = None) -> None:
            calls.append(("train_begin", self.params["epochs"], self.params["steps"]))

        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            calls.append(("epoch_begin", epoch))

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            calls.append(("batch_end", batch, sorted(logs)))

        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            calls.append(("epoch_end", epoch, sorted(logs)))

        def on_train_end(self, logs: Any = None) -> None:
            calls.append(("train_end", self.model is not None))

    model = _model()
    x, y = _data()
    history = model.fit(
        x,
        y,
        batch_size=4,
        epochs=2,
        shuffle=False,
        callbacks=[Recorder()],
        validation_data=(x[:4], y[:4]),
    )
    keys = ["loss", "mse", "val_loss", "val_mse"]
    assert calls == [
        ("train_begin", 2, 3),
        ("epoch_begin", 0),
        *[("batch_end", b, ["loss", "mse"]) for b in range(3)],
        ("epoch_end", 0, keys),
        ("epoch_begin", 1),
        *[("batch_end", b, ["loss", "mse"]) for b in range(3)],
        ("epoch_end", 1, keys),
        ("train_end", True),
    ]
    assert isinstance(history, rt.keras.callbacks.History)
    assert model.history is history
    assert history.epoch == [0, 1]
    assert sorted(history.history) == keys
    # The metric "mse" over the training batches is the loss "mse" (the same mean).
    np.testing.assert_allclose(history.history["loss"], history.history["mse"], rtol=1e-6)
    assert history.history["val_loss"][1] == model.evaluate(x[:4], y[:4], batch_size=4)[0]


def test_stop_training_ends_after_the_epoch() -> None:
    model = _model()
    x, y = _data()

    def stop(epoch: int, logs: Any) -> None:
        if epoch == 1:
            model.stop_training = True

    history = model.fit(
        x, y, epochs=5, callbacks=[rt.keras.callbacks.LambdaCallback(on_epoch_end=stop)]
    )
    assert history.epoch == [0, 1]
    assert len(history.history["loss"]) == 2


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_callbacks

CALLBACKS_REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "callbacks.npz"),
    allow_pickle=False,
)


@pytest.mark.parametrize("name", gen_callbacks.RUNS)
def test_training_callbacks_match_keras(name: str) -> None:
    # EarlyStopping (on the loss with min_delta; on val_mae with patience, start_from_epoch and
    # restore_best_weights), ReduceLROnPlateau with cooldown, LearningRateScheduler: the same
    # epochs, logs (with "learning_rate") and final weights as Keras 3.
    out = gen_callbacks.run(rt.keras, name)
    expected = {k for k in CALLBACKS_REF.files if k.startswith(f"{name}/")}
    assert set(out) == expected
    for key in sorted(expected):
        np.testing.assert_allclose(out[key], CALLBACKS_REF[key], rtol=1e-4, atol=1e-6, err_msg=key)


def test_terminate_on_nan_and_monitor_errors() -> None:
    model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
    model.compile(optimizer=rt.keras.optimizers.SGD(1e30), loss="mse")
    x = np.full((8, 1), 1e10, np.float32)
    history = model.fit(
        x, x, batch_size=2, epochs=5, callbacks=[rt.keras.callbacks.TerminateOnNaN()]
    )
    assert len(history.epoch) == 1  # stopped in the first epoch
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    with pytest.raises(ValueError, match="maximized or minimized"):
        model.fit(x, x, callbacks=[rt.keras.callbacks.EarlyStopping(monitor="custom")])
    with pytest.raises(ValueError, match="factor"):
        rt.keras.callbacks.ReduceLROnPlateau(factor=1.5)
    bad = rt.keras.callbacks.LearningRateScheduler(lambda epoch: "fast")
    with pytest.raises(ValueError, match="float"):
        model.fit(x, x, callbacks=[bad])
