"""Keras 3's callbacks that write files: `ModelCheckpoint`, `BackupAndRestore` and
`CSVLogger` (exported from `rt.keras.callbacks`).

>>> import os, tempfile, numpy as np, rustape as rt
>>> model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
>>> model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
>>> folder = tempfile.mkdtemp()
>>> log = rt.keras.callbacks.CSVLogger(os.path.join(folder, "log.csv"))
>>> keep = rt.keras.callbacks.ModelCheckpoint(
...     os.path.join(folder, "{epoch:02d}.weights.h5"), save_weights_only=True)
>>> _ = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, callbacks=[log, keep])
>>> sorted(os.listdir(folder))
['01.weights.h5', '02.weights.h5', 'log.csv']
"""

from __future__ import annotations

import collections
import csv
import json
import os
import shutil
import warnings
from typing import Any, TextIO

import numpy as np

from .callbacks import Callback, Logs
from .callbacks_training import _MonitorCallback

__all__ = ["BackupAndRestore", "CSVLogger", "ModelCheckpoint"]


class ModelCheckpoint(_MonitorCallback):
    """Saves the model (`model.save`, a `.keras` file) or with `save_weights_only` its weights
    (`model.save_weights`) at the end of every epoch, or every
    `save_freq` batches; with `save_best_only`, only when `monitor` improved (`mode` "min",
    "max" or "auto"; `initial_value_threshold` the value to beat first). `filepath` may
    name the epoch and any logged value: `"ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5"`.

    A weights file holds rustape's weights format (read it with `model.load_weights`), a
    `.keras` file rustape's model format (read it with `rt.keras.models.load_model`); nothing
    in either can run code.

    >>> import rustape as rt
    >>> rt.keras.callbacks.ModelCheckpoint("best.weights.h5", save_weights_only=True,
    ...                                    save_best_only=True).monitor
    'val_loss'
    """

    def __init__(
        self,
        filepath: Any,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: Any = "epoch",
        initial_value_threshold: Any = None,
    ) -> None:
        super().__init__(monitor, mode, initial_value_threshold, 0.0)
        self.filepath = os.fspath(filepath)
        self.verbose = verbose
        self.save_best_only = bool(save_best_only)
        self.save_weights_only = bool(save_weights_only)
        if save_freq != "epoch" and (
            not isinstance(save_freq, int) or isinstance(save_freq, bool) or save_freq < 1
        ):
            raise ValueError(
                f"Unrecognized save_freq: {save_freq!r}. Expected save_freq are 'epoch' or "
                "positive integer values"
            )
        self.save_freq = save_freq
        if not self.save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError(
                "The filepath provided must end in `.keras` (Keras model format). Received: "
                f"filepath={self.filepath}"
            )
        self._epoch = 0
        self._batches_since_save = 0

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        self._epoch = epoch

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        if self.save_freq == "epoch":
            return
        self._batches_since_save += 1
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            self._save(self._epoch, batch, logs or {})

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save(epoch, None, logs or {})

    def _path(self, epoch: int, batch: int | None, logs: Logs) -> str:
        fields: dict[str, Any] = dict(logs)
        fields["epoch"] = epoch + 1
        if batch is not None and "batch" not in logs:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(**fields)
        except KeyError as e:
            raise KeyError(
                f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}'
            ) from None

    def _save(self, epoch: int, batch: int | None, logs: Logs) -> None:
        path = self._path(epoch, batch, logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(
                    f"Can save best model only with {self.monitor} available.", stacklevel=2
                )
            elif self._is_improvement(current, self.best):
                if self.verbose > 0:
                    best = "None" if self.best is None else f"{self.best:.5f}"
                    print(
                        f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                        f"{current:.5f}, saving model to {path}"
                    )
                self.best = current
            else:
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve")
                return
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if os.path.isdir(path):
            raise OSError(
                "Please specify a non-directory filepath for ModelCheckpoint. Filepath used is "
                f"an existing directory: {path}"
            )
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)


class BackupAndRestore(Callback):
    """Lets an interrupted `fit` resume where it stopped (Keras 3's): after every epoch (or
    every `save_freq` batches) the model's and the optimizer's variables and the epoch reached
    go to `backup_dir`; a `fit` that starts with a backup there loads it and continues from
    that epoch. The backup is removed when training ends normally (`delete_checkpoint`);
    `double_checkpoint` keeps the previous one too, used if the latest cannot be read.

    >>> import os, tempfile, numpy as np, rustape as rt
    >>> model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
    >>> model.compile(optimizer="adam", loss="mse")
    >>> backup = rt.keras.callbacks.BackupAndRestore(os.path.join(tempfile.mkdtemp(), "b"))
    >>> len(model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=3,
    ...               callbacks=[backup]).history["loss"])
    3
    """

    def __init__(
        self,
        backup_dir: Any,
        save_freq: Any = "epoch",
        double_checkpoint: bool = False,
        delete_checkpoint: bool = True,
    ) -> None:
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and (
            not isinstance(save_freq, int) or isinstance(save_freq, bool) or save_freq < 1
        ):
            raise ValueError(
                f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. "
                "Expected either 'epoch' or an integer value."
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._weights_path = os.path.join(self.backup_dir, "latest.weights.npz")
        self._metadata_path = os.path.join(self.backup_dir, "training_metadata.json")
        self._current_epoch = 0
        self._batches_since_save = 0
        self._last_batch = 0

    def on_train_begin(self, logs: Logs | None = None) -> None:
        previous = (f"{self._weights_path}.bkp", f"{self._metadata_path}.bkp")
        try:
            self._restore()
        except (OSError, ValueError):
            if not os.path.exists(previous[0]):
                raise
            shutil.copyfile(previous[0], self._weights_path)
            if os.path.exists(previous[1]):
                shutil.copyfile(previous[1], self._metadata_path)
            self._restore()

    def _restore(self) -> None:
        from .saving import load_training_state

        if not self.model.built:
            raise ValueError(
                "To use the BackupAndRestore callback, your model must be built before you "
                "call `fit()`. You can build it beforehand by calling it on a batch of data."
            )
        if os.path.exists(self._weights_path):
            load_training_state(self.model, self._weights_path)
        if os.path.exists(self._metadata_path):
            with open(self._metadata_path) as f:
                metadata = json.load(f)
            epoch = metadata.get("epoch") if isinstance(metadata, dict) else None
            if not isinstance(epoch, int) or epoch < 0:
                raise ValueError(f"{self._metadata_path}: no valid `epoch` in {metadata!r}")
            self._current_epoch = epoch
            self.model._initial_epoch = epoch

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        self._current_epoch = epoch + 1
        self._last_batch = 0
        if self.save_freq == "epoch":
            self._save()

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        if self.save_freq == "epoch":
            return
        self._batches_since_save += (
            batch + 1 if batch <= self._last_batch else batch - self._last_batch
        )
        self._last_batch = batch
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            self._save()

    def _save(self) -> None:
        from .saving import save_training_state

        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            for path in (self._weights_path, self._metadata_path):
                if os.path.exists(path):
                    shutil.copyfile(path, f"{path}.bkp")
        save_training_state(self.model, self._weights_path)
        with open(self._metadata_path, "w") as f:
            json.dump({"epoch": self._current_epoch, "batch": self._last_batch}, f)

    def on_train_end(self, logs: Logs | None = None) -> None:
        if self.delete_checkpoint and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir)


class CSVLogger(Callback):
    """Writes each epoch's logs to a CSV file: a header `epoch,<logs sorted by name>` (with
    the `val_` columns even before validation runs, as Keras), then one row per epoch.
    `append=True` adds to an existing file (its header once).

    >>> import rustape as rt
    >>> rt.keras.callbacks.CSVLogger("training.log", separator=";").sep
    ';'
    """

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = bool(append)
        self.keys: list[str] | None = None
        self._file: TextIO | None = None
        self._writer: Any = None
        self._header = True

    def on_train_begin(self, logs: Logs | None = None) -> None:
        self._close()
        if self.append and os.path.exists(self.filename):
            with open(self.filename) as f:
                self._header = not f.readline()
        else:
            self._header = True
        self._file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self._writer = None
        self.keys = None

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self._writer is None:
            assert self._file is not None, "CSVLogger: on_train_begin opens the file"
            self._writer = csv.DictWriter(
                self._file, fieldnames=["epoch", *self.keys], dialect="excel", delimiter=self.sep
            )
            if self._header:
                self._writer.writeheader()
        row: dict[str, Any] = collections.OrderedDict(epoch=epoch)
        row.update((k, _cell(logs.get(k, "NA"))) for k in self.keys)
        self._writer.writerow(row)
        assert self._file is not None
        self._file.flush()

    def on_train_end(self, logs: Logs | None = None) -> None:
        self._close()

    def _close(self) -> None:
        if self._file is not None and not self._file.closed:
            self._file.close()
        self._writer = None


def _cell(value: Any) -> Any:
    """A log value as Keras writes it: a list as `"[a, b]"`, anything else as is."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim > 0):
        return f'"[{", ".join(map(str, value))}]"'
    return value
