"""`Model.fit(..., callbacks=[...])`: the hooks in Keras's order, the History it returns, and
`model.stop_training`."""

from __future__ import annotations

from typing import Any

import numpy as np
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
