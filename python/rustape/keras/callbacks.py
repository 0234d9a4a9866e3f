"""`rt.keras.callbacks`: hooks `Model.fit` calls around training, as Keras 3's.

`fit` calls each callback's `set_model`, then `on_train_begin`, per epoch `on_epoch_begin` /
`on_epoch_end(epoch, logs)` around `on_train_batch_begin` / `on_train_batch_end(batch, logs)`,
then `on_train_end`. `logs` maps "loss", each metric and their "val_" forms to floats. A
callback that sets `model.stop_training = True` ends training after the current epoch.

>>> import numpy as np, rustape as rt
>>> seen = []
>>> model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
>>> model.compile(optimizer="sgd", loss="mse")
>>> cb = rt.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch))
>>> history = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=3, callbacks=[cb])
>>> seen, history.epoch, sorted(history.history)
([0, 1, 2], [0, 1, 2], ['loss'])
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["Callback", "History", "LambdaCallback"]

Logs = dict[str, float]


class Callback:
    """Base class of the hooks `fit` calls (each does nothing here).

    >>> class Count(Callback):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.batches = 0
    ...     def on_train_batch_end(self, batch, logs=None):
    ...         self.batches += 1
    >>> c = Count(); c.on_train_batch_end(0); c.batches
    1
    """

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict[str, Any] = {}

    def set_model(self, model: Any) -> None:
        """The model being trained."""
        self.model = model

    def set_params(self, params: dict[str, Any]) -> None:
        """`fit`'s settings: `epochs`, `steps` (batches per epoch), `verbose`."""
        self.params = params

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """Before the first epoch."""

    def on_train_end(self, logs: Logs | None = None) -> None:
        """After the last epoch (`logs`: the last epoch's)."""

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """Before epoch `epoch` (from 0)."""

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """After epoch `epoch`, with its loss, metrics and validation values."""

    def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Before a training step."""

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """After a training step (`logs`: the epoch's running loss and metrics)."""

    def on_test_begin(self, logs: Logs | None = None) -> None:
        """Before `evaluate` (or `fit`'s validation) runs its batches."""

    def on_test_end(self, logs: Logs | None = None) -> None:
        """After `evaluate` (or `fit`'s validation), with its loss and metrics."""

    def on_test_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Before an evaluation step."""

    def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """After an evaluation step (`logs`: the running loss and metrics)."""

    def on_predict_begin(self, logs: Logs | None = None) -> None:
        """Before `predict` runs its batches."""

    def on_predict_end(self, logs: Logs | None = None) -> None:
        """After `predict`."""

    def on_predict_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """Before a prediction step."""

    def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """After a prediction step (`logs["outputs"]`: the batch's outputs)."""


class History(Callback):
    """Records every epoch's logs; `fit` returns it (and sets it as `model.history`).

    >>> h = History(); h.on_train_begin(); h.on_epoch_end(0, {"loss": 0.5})
    >>> h.epoch, h.history
    ([0], {'loss': [0.5]})
    """

    def __init__(self) -> None:
        super().__init__()
        self.epoch: list[int] = []
        self.history: dict[str, list[float]] = {}

    def on_train_begin(self, logs: Logs | None = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


class LambdaCallback(Callback):
    """A callback from functions (Keras's argument names; each optional).

    >>> cb = LambdaCallback(on_epoch_end=lambda epoch, logs: print(epoch, logs))
    >>> cb.on_epoch_end(2, {"loss": 1.0})
    2 {'loss': 1.0}
    """

    def __init__(
        self,
        on_epoch_begin: Callable[..., Any] | None = None,
        on_epoch_end: Callable[..., Any] | None = None,
        on_train_begin: Callable[..., Any] | None = None,
        on_train_end: Callable[..., Any] | None = None,
        on_train_batch_begin: Callable[..., Any] | None = None,
        on_train_batch_end: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__()
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
        }
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


class CallbackList(Callback):
    """Callbacks called together, for a training loop of your own (Keras 3's
    `CallbackList`): each hook calls it on every callback in order. `add_history=True` adds
    a `History` (kept as `history`); `model` and the other keyword arguments (`epochs`,
    `steps`, `verbose`) go to each callback's `set_model` / `set_params`.

    >>> seen = []
    >>> cbs = CallbackList([LambdaCallback(on_epoch_end=lambda e, logs: seen.append(logs))],
    ...                    add_history=True)
    >>> cbs.on_train_begin(); cbs.on_epoch_end(0, {"loss": 0.5}); cbs.on_train_end()
    >>> seen, cbs.history.history
    ([{'loss': 0.5}], {'loss': [0.5]})
    """

    def __init__(
        self,
        callbacks: Any = None,
        add_history: bool = False,
        add_progbar: bool = False,
        model: Any = None,
        **params: Any,
    ) -> None:
        super().__init__()
        self.callbacks: list[Callback] = list(callbacks or [])
        for cb in self.callbacks:
            if not callable(getattr(cb, "on_epoch_end", None)):
                raise TypeError(f"CallbackList: {cb!r} is not a callback")
        self.history: History | None = None
        if add_history:
            self.history = next((c for c in self.callbacks if isinstance(c, History)), None)
            if self.history is None:
                self.history = History()
                self.callbacks.append(self.history)
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback: Callback) -> None:
        """Adds one more callback."""
        self.callbacks.append(callback)

    def set_model(self, model: Any) -> None:
        """Gives every callback the model."""
        super().set_model(model)
        for cb in self.callbacks:
            cb.set_model(model)

    def set_params(self, params: dict[str, Any]) -> None:
        """Gives every callback the training settings."""
        super().set_params(params)
        for cb in self.callbacks:
            cb.set_params(params)

    def _call(self, hook: str, *args: Any) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def on_train_begin(self, logs: Logs | None = None) -> None:
        """`on_train_begin` of every callback."""
        self._call("on_train_begin", logs)

    def on_train_end(self, logs: Logs | None = None) -> None:
        """`on_train_end` of every callback."""
        self._call("on_train_end", logs)

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        """`on_epoch_begin` of every callback."""
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        """`on_epoch_end` of every callback."""
        self._call("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """`on_train_batch_begin` of every callback."""
        self._call("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """`on_train_batch_end` of every callback."""
        self._call("on_train_batch_end", batch, logs)

    def on_test_begin(self, logs: Logs | None = None) -> None:
        """`on_test_begin` of every callback."""
        self._call("on_test_begin", logs)

    def on_test_end(self, logs: Logs | None = None) -> None:
        """`on_test_end` of every callback."""
        self._call("on_test_end", logs)

    def on_test_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """`on_test_batch_begin` of every callback."""
        self._call("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """`on_test_batch_end` of every callback."""
        self._call("on_test_batch_end", batch, logs)

    def on_predict_begin(self, logs: Logs | None = None) -> None:
        """`on_predict_begin` of every callback."""
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs: Logs | None = None) -> None:
        """`on_predict_end` of every callback."""
        self._call("on_predict_end", logs)

    def on_predict_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        """`on_predict_batch_begin` of every callback."""
        self._call("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        """`on_predict_batch_end` of every callback."""
        self._call("on_predict_batch_end", batch, logs)

    def __iter__(self) -> Any:
        return iter(self.callbacks)


__all__ += ["CallbackList"]

# The training-steering callbacks live in their own module (they need `Callback` above).
from .callbacks_files import BackupAndRestore, CSVLogger, ModelCheckpoint
from .callbacks_tensorboard import TensorBoard
from .callbacks_training import (
    EarlyStopping,
    LearningRateScheduler,
    ReduceLROnPlateau,
    TerminateOnNaN,
)

__all__ += [
    "BackupAndRestore",
    "CSVLogger",
    "EarlyStopping",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ReduceLROnPlateau",
    "TensorBoard",
    "TerminateOnNaN",
]
