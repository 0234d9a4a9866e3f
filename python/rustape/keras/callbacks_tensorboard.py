"""Keras 3's `TensorBoard` callback over `rt.summary` (exported from `rt.keras.callbacks`)."""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

import numpy as np

from .. import summary
from .callbacks import Callback, Logs


class TensorBoard(Callback):
    """Writes what `fit` reports for TensorBoard, under `log_dir/train` and
    `log_dir/validation`, with Keras's tags: `epoch_<name>` each epoch (and the learning
    rate), `evaluation_<name>_vs_iterations` after each validation, `batch_<name>` every
    `update_freq` batches (`"batch"`: every one), weight histograms every `histogram_freq`
    epochs (`write_images`: also as images), `steps_per_second` with
    `write_steps_per_second`, and the model's config (`write_graph`). Run
    `tensorboard --logdir <log_dir>` to see them. rustape builds no graphs, so there is no
    profiling (`profile_batch` must be 0) and `embeddings_freq` is not supported.

    >>> import os, tempfile, numpy as np, rustape as rt
    >>> model = rt.keras.Sequential([rt.keras.Input((2,)), rt.keras.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> logs = tempfile.mkdtemp()
    >>> _ = model.fit(np.ones((8, 2)), np.ones((8, 1)), epochs=2, verbose=0,
    ...               callbacks=[rt.keras.callbacks.TensorBoard(logs)])
    >>> os.listdir(logs)
    ['train']
    """

    def __init__(
        self,
        log_dir: Any = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: Any = "epoch",
        profile_batch: Any = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: Any = None,
    ) -> None:
        super().__init__()
        if profile_batch:
            raise ValueError(
                "TensorBoard: profiling is not available in rustape (it builds no graphs); "
                f"profile_batch must be 0, got {profile_batch!r}"
            )
        if embeddings_freq:
            raise ValueError(
                "TensorBoard: embeddings are not supported in rustape; embeddings_freq must be "
                f"0, got {embeddings_freq!r}"
            )
        if (
            update_freq != "epoch"
            and update_freq != "batch"
            and (not isinstance(update_freq, int) or update_freq < 1)
        ):
            raise ValueError(
                "TensorBoard: update_freq must be 'epoch', 'batch' or a positive int, got "
                f"{update_freq!r}"
            )
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.write_graph = bool(write_graph)
        self.write_images = bool(write_images)
        self.write_steps_per_second = bool(write_steps_per_second)
        self.update_freq: Any = 1 if update_freq == "batch" else update_freq
        self._writers: dict[str, summary.SummaryWriter] = {}
        self._pushed: list[contextlib.ExitStack] = []
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._batch_start = 0.0
        self._epoch_start = 0.0
        self._epoch_iterations = 0

    def _writer(self, which: str) -> summary.SummaryWriter:
        if which not in self._writers:
            folder = "train" if which == "train" else "validation"
            self._writers[which] = summary.create_file_writer(os.path.join(self.log_dir, folder))
        return self._writers[which]

    def set_model(self, model: Any) -> None:
        self.model = model
        self._writers = {}
        if self.write_graph and type(model).__name__ in ("Sequential", "Functional", "Model"):
            config = getattr(model, "get_config", None)
            if config is not None:
                with self._writer("train").as_default():
                    text = json.dumps(
                        {"class_name": type(model).__name__, "config": config()}, default=repr
                    )
                    summary.write(
                        "keras",
                        np.array([text], dtype=object)[0],
                        step=0,
                        metadata="graph_keras_model",
                    )

    # Batch-level summaries go to the writer pushed for the current step, recorded every
    # `update_freq` steps (Keras's pattern, so users' own summaries in `call` follow too).
    def _push(self, which: str, step: int) -> None:
        if self.update_freq == "epoch":
            return
        stack = contextlib.ExitStack()
        stack.enter_context(self._writer(which).as_default(step))
        stack.enter_context(summary.record_if(lambda: step % self.update_freq == 0))
        self._pushed.append(stack)

    def _pop(self) -> None:
        if self.update_freq != "epoch" and self._pushed:
            self._pushed.pop().close()

    def on_train_begin(self, logs: Logs | None = None) -> None:
        self._global_train_batch = 0
        self._epoch_iterations = 0
        self._push("train", 0)

    def on_train_end(self, logs: Logs | None = None) -> None:
        self._pop()
        for writer in self._writers.values():
            writer.close()

    def on_test_begin(self, logs: Logs | None = None) -> None:
        self._push("val", self._global_test_batch)

    def on_test_end(self, logs: Logs | None = None) -> None:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            with self._writer("val").as_default():
                for name, value in (logs or {}).items():
                    summary.scalar(
                        f"evaluation_{name}_vs_iterations", value, step=optimizer.iterations
                    )
        self._pop()

    def on_train_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop()
            self._push("train", self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start = time.time()

    def on_train_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        if self.write_steps_per_second:
            seconds = max(time.time() - self._batch_start, 1e-9)
            summary.scalar("batch_steps_per_second", 1.0 / seconds, step=self._global_train_batch)
        for name, value in (logs or {}).items():
            summary.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_test_batch_begin(self, batch: int, logs: Logs | None = None) -> None:
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop()
            self._push("val", self._global_test_batch)

    def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        if self.write_steps_per_second:
            self._epoch_iterations = int(self.model.optimizer.iterations.numpy())
            self._epoch_start = time.time()

    def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        self._log_epoch(epoch, dict(logs or {}))
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    def _log_epoch(self, epoch: int, logs: dict[str, Any]) -> None:
        if not logs:
            return
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            train["learning_rate"] = float(np.asarray(optimizer.learning_rate))
        if self.write_steps_per_second and optimizer is not None:
            done = int(optimizer.iterations.numpy()) - self._epoch_iterations
            train["steps_per_second"] = done / max(time.time() - self._epoch_start, 1e-9)
        for which, values in (("train", train), ("val", val)):
            if values:
                with self._writer(which).as_default():
                    for name, value in values.items():
                        summary.scalar(f"epoch_{name}", value, step=epoch)

    def _log_weights(self, epoch: int) -> None:
        with self._writer("train").as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    path = f"{self.model.name}/{weight.name.split(':')[0]}".replace(":", "_")
                    summary.histogram(f"{path}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_image(weight, f"{path}/image", epoch)

    def _log_image(self, weight: Any, tag: str, epoch: int) -> None:
        """A weight as Keras shows it: a bias as a row, a kernel as a matrix (wider than
        tall), a convolution's kernels one image each."""
        w = np.squeeze(np.asarray(weight.numpy()))
        if w.ndim == 1:
            w = w.reshape(1, w.shape[0], 1, 1)
        elif w.ndim == 2:
            if w.shape[0] > w.shape[1]:
                w = w.T
            w = w.reshape(1, w.shape[0], w.shape[1], 1)
        elif w.ndim == 3:
            w = np.transpose(w, (2, 0, 1))
            w = w.reshape(w.shape[0], w.shape[1], w.shape[2], 1)
        if w.ndim == 4 and w.shape[-1] in (1, 3, 4):
            summary.image(tag, w, step=epoch)
