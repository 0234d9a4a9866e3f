"""Keras 3's callbacks that steer training: `EarlyStopping`, `ReduceLROnPlateau`,
`LearningRateScheduler` and `TerminateOnNaN` (exported from `rt.keras.callbacks`).

>>> import numpy as np, rustape as rt
>>> model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
>>> model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
>>> halve = rt.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
>>> h = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=3, callbacks=[halve])
>>> [round(v, 4) for v in h.history["learning_rate"]]
[0.05, 0.025, 0.0125]
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np

from ._util import check_number
from .callbacks import Callback, Logs

__all__ = ["EarlyStopping", "LearningRateScheduler", "ReduceLROnPlateau", "TerminateOnNaN"]


def _less(a: float, b: float) -> bool:
    return a < b


def _greater(a: float, b: float) -> bool:
    return a > b


class _MonitorCallback(Callback):
    """Watches `monitor` in the epoch logs (Keras 3's `MonitorCallback`): `mode` "min", "max" or
    "auto" (from the metric: the loss and errors fall, accuracies and AUC rise)."""

    def __init__(self, monitor: str, mode: str, baseline: Any, min_delta: float) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.",
                stacklevel=3,
            )
            mode = "auto"
        self.monitor, self.mode, self.best = monitor, mode, baseline
        self.min_delta = abs(check_number(type(self).__name__, "min_delta", min_delta))
        self.monitor_op: Callable[[float, float], bool] | None = None

    def _set_monitor_op(self) -> None:
        if self.mode == "min":
            self.monitor_op = _less
        elif self.mode == "max":
            self.monitor_op = _greater
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = _less
            for metric in _compiled_metrics(self.model):
                direction = getattr(metric, "_direction", None)
                if metric.name == name and direction is not None:
                    self.monitor_op = _greater if direction == "up" else _less
            if self.monitor_op is None:
                raise ValueError(
                    f"{type(self).__name__} callback received monitor={self.monitor}, but "
                    "rustape cannot tell whether that metric should be maximized or minimized. "
                    "Pass `mode='max'` or `mode='min'`."
                )
        if self.monitor_op is _less:
            self.min_delta *= -1

    def _is_improvement(self, value: float, reference: Any) -> bool:
        if reference is None:
            return True
        assert self.monitor_op is not None
        return self.monitor_op(value - self.min_delta, reference)


def _compiled_metrics(model: Any) -> list[Any]:
    compiled = getattr(model, "_compile_metrics", None)
    built: tuple[list[Any], list[Any]] = getattr(compiled, "built", None) or ([], [])
    return [m for group in built for m in group]


class EarlyStopping(_MonitorCallback):
    """Stops training when `monitor` has not improved (by more than `min_delta`) for
    `patience` epochs; with `restore_best_weights`, the weights of the best epoch come back at
    the end (Keras 3's `EarlyStopping`, step for step).

    >>> import numpy as np, rustape as rt
    >>> model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
    >>> model.compile(optimizer=rt.keras.optimizers.SGD(0.0), loss="mse")  # never improves
    >>> stop = rt.keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    >>> len(model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=10, callbacks=[stop]).epoch)
    3
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: Any = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__(monitor, mode, None, min_delta)
        self.patience = int(
            check_number("EarlyStopping", "patience", patience, low=0, integer=True)
        )
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = int(
            check_number("EarlyStopping", "start_from_epoch", start_from_epoch, low=0, integer=True)
        )
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights: list[np.ndarray] | None = None
        self.best_epoch = 0

    def on_train_begin(self, logs: Logs | None = None) -> None:
        self.wait, self.stopped_epoch = 0, 0
        self.best, self.best_weights, self.best_epoch = None, None, 0

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not "
                f"available. Available metrics are: {','.join(logs or {})}",
                stacklevel=2,
            )
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = self.model.get_weights(), epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Logs | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)


def _rate(optimizer: Any) -> float:
    return float(np.asarray(optimizer.learning_rate.numpy()))


class ReduceLROnPlateau(_MonitorCallback):
    """Multiplies the learning rate by `factor` (down to `min_lr`) when `monitor` has not
    improved for `patience` epochs, then waits `cooldown` epochs; logs "learning_rate" (Keras
    3's `ReduceLROnPlateau`, step for step).

    >>> import numpy as np, rustape as rt
    >>> model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
    >>> model.compile(optimizer=rt.keras.optimizers.SGD(0.0), loss="mse")
    >>> cut = rt.keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5)
    >>> h = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, callbacks=[cut])
    >>> h.history["learning_rate"]
    [0.0, 0.0]
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(monitor, mode, None, min_delta)
        factor = check_number("ReduceLROnPlateau", "factor", factor)
        if factor >= 1.0:
            raise ValueError(
                f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}"
            )
        self.factor = factor
        self.min_lr = check_number("ReduceLROnPlateau", "min_lr", min_lr)
        self.patience = int(
            check_number("ReduceLROnPlateau", "patience", patience, low=0, integer=True)
        )
        self.verbose = verbose
        self.cooldown = int(
            check_number("ReduceLROnPlateau", "cooldown", cooldown, low=0, integer=True)
        )
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: Logs | None = None) -> None:
        self.best, self.cooldown_counter, self.wait = None, 0, 0

    def in_cooldown(self) -> bool:
        """Whether the cooldown after a reduction is still running."""
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = _rate(optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is "
                f"not available. Available metrics are: {','.join(logs)}.",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best, self.wait = current, 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old = _rate(optimizer)
                if old > np.float32(self.min_lr):
                    new = max(old * self.factor, self.min_lr)
                    optimizer.learning_rate = new
                    if self.verbose > 0:
                        print(
                            f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}."
                        )
                    self.cooldown_counter, self.wait = self.cooldown, 0


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of every epoch to `schedule(epoch, lr)` (or
    `schedule(epoch)`); logs "learning_rate" (Keras 3's `LearningRateScheduler`).

    >>> import rustape as rt
    >>> rt.keras.callbacks.LearningRateScheduler(lambda epoch: 0.1 / (epoch + 1)).schedule(1)
    0.05
    """

    def __init__(self, schedule: Callable[..., Any], verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        optimizer = self.model.optimizer
        try:
            rate = self.schedule(epoch, _rate(optimizer))
        except TypeError:  # the older one-argument form
            rate = self.schedule(epoch)
        if not isinstance(rate, (float, np.float32, np.float64)) or not math.isfinite(rate):
            raise ValueError(
                f"The output of the `schedule` function should be a finite float. Got: {rate!r}"
            )
        optimizer.learning_rate = float(rate)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {rate}.")

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        if logs is not None:
            logs["learning_rate"] = _rate(self.model.optimizer)


class TerminateOnNaN(Callback):
    """Stops training as soon as a batch's loss is NaN or infinite (Keras 3's
    `TerminateOnNaN`).

    >>> import rustape as rt
    >>> rt.keras.callbacks.TerminateOnNaN().__class__.__name__
    'TerminateOnNaN'
    """

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
