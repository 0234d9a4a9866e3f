"""`compile`, `fit`, `evaluate` and `predict` for `rt.keras.Model`, with Keras 3's protocol.

`fit` runs `train_step(data)` on each batch, `evaluate` runs `test_step(data)` and `predict`
runs `predict_step(data)`; override them to customise what a step does ("Customizing what
happens in fit()"). `data` is what Keras passes: `x` alone when there is no `y`, else
`(x, y)`, or `(x, y, sample_weight)`. A step returns the logs, a dict of metric values;
`fit` and `evaluate` reset `self.metrics` at the start of every epoch and evaluation.

>>> import numpy as np, rustape as rt
>>> class Custom(rt.keras.Model):
...     def __init__(self):
...         super().__init__()
...         self.dense = rt.keras.layers.Dense(1)
...         self.tracker = rt.keras.metrics.Mean(name="loss")
...     def call(self, x):
...         return self.dense(x)
...     def train_step(self, data):
...         x, y = data
...         with rt.GradientTape() as tape:
...             loss = rt.reduce_mean((self(x, training=True) - y) ** 2)
...         grads = tape.gradient(loss, self.trainable_variables)
...         self.optimizer.apply(grads, self.trainable_variables)
...         self.tracker.update_state(loss)
...         return {"loss": self.tracker.result()}
>>> rt.random.set_seed(0)
>>> model = Custom()
>>> model.compile(optimizer=rt.keras.optimizers.SGD(0.1))
>>> x = np.random.default_rng(0).normal(size=(64, 2)).astype(np.float32)
>>> h = model.fit(x, x.sum(1, keepdims=True), epochs=10, shuffle=False)
>>> h.history["loss"][-1] < 0.01 * h.history["loss"][0]
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _rustape as _rt
from .._tape import GradientTape as _GradientTape
from ._data import (
    ArrayBatches,
    Batches,
    _arrays,
    _batch_size,
    _floats,
    _leaves,
    _samples,
    _take,
    batches,
    class_weights,
    data_batch_size,
    is_batch_source,
    pack_x_y_sample_weight,
    unpack_x_y_sample_weight,
)
from ._util import check_number

__all__ = ["Trainer"]


class _CompileMetrics:
    """The metrics given to `compile`, as one metric (Keras's `CompileMetrics`), built on the
    first batch (`"accuracy"` picks its kind from the shapes and dtypes, as Keras does), each
    named as it was given. `metrics` never see the sample weights, `weighted_metrics` do.
    `result()` is a dict of their results under Keras's names (a repeated name gets `_1`,
    `_2`...; a weighted metric named like an unweighted one is `weighted_<name>`)."""

    name = "compile_metrics"

    def __init__(self, specs: list[Any], weighted_specs: list[Any]) -> None:
        self.specs, self.weighted_specs = specs, weighted_specs
        self.built: tuple[list[Any], list[Any]] | None = None

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if self.built is None:
            self.built = (
                [self._make(spec, y_true, y_pred) for spec in self.specs],
                [self._make(spec, y_true, y_pred) for spec in self.weighted_specs],
            )
        plain, weighted = self.built
        for m in plain:
            m.update_state(y_true, y_pred)
        for m in weighted:
            m.update_state(y_true, y_pred, sample_weight=sample_weight)

    def result(self) -> dict[str, Any]:
        results: dict[str, Any] = {}
        counts: dict[str, int] = {}

        def unique(name: str) -> str:
            if name not in counts:
                counts[name] = 1
                return name
            counts[name] += 1
            return f"{name}_{counts[name] - 1}"

        plain, weighted = self.built or ([], [])
        for m in plain:
            results[unique(m.name)] = m.result()
        for m in weighted:
            name = m.name if m.name not in counts else f"weighted_{m.name}"
            results[unique(name)] = m.result()
        return results

    def reset_state(self) -> None:
        for group in self.built or ():
            for m in group:
                m.reset_state()

    @staticmethod
    def _make(spec: Any, y: Any, y_pred: Any) -> Any:
        from . import metrics as _metrics

        if isinstance(spec, str) and spec.lower() in ("accuracy", "acc"):
            width = int(y_pred.shape[-1]) if len(y_pred.shape) else 1
            if width == 1:
                metric = _metrics.BinaryAccuracy()
            elif np.issubdtype(np.asarray(y).dtype, np.integer) or np.ndim(y) < len(y_pred.shape):
                metric = _metrics.SparseCategoricalAccuracy()
            else:
                metric = _metrics.CategoricalAccuracy()
        else:
            metric = _metrics.get(spec)
        if isinstance(spec, str):
            metric.name = spec  # Keras logs a metric under the name it was given
        return metric


class Trainer:
    """The training half of `rt.keras.Model` (as Keras 3 splits it): compile and the loops.

    >>> import numpy as np, rustape as rt
    >>> model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    >>> sorted(model.evaluate(np.ones((4, 2)), np.ones((4, 1)), return_dict=True))
    ['loss', 'mae']
    """

    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        metrics: Any = None,
        weighted_metrics: Any = None,
        **kwargs: Any,
    ) -> None:
        """Sets the optimizer, loss and metrics the default steps use (names or objects):
        `metrics` ignore the sample weights, `weighted_metrics` apply them.

        `loss` may be None when `train_step` computes its own. Keras's other arguments
        (`loss_weights`, `run_eagerly`, `jit_compile`, `steps_per_execution`, ...) are accepted
        and have no effect: rustape always runs eagerly.
        """
        from . import losses as _losses
        from . import metrics as _metrics
        from . import optimizers as _optimizers

        self.optimizer = _optimizers.get(optimizer)
        self.loss: Any = None
        if loss is not None:
            fn = _losses.get(loss)
            self.loss = fn if isinstance(fn, _losses.Loss) else _losses.LossFunctionWrapper(fn)
        self._compile_metrics = _CompileMetrics(list(metrics or []), list(weighted_metrics or []))
        self._loss_tracker = _metrics.Mean(name="loss")
        self.compiled = True
        # What Model.save writes, to compile the loaded model the same way.
        self.__dict__["_compile_arguments"] = {
            "optimizer": self.optimizer,
            "loss": loss,
            "metrics": list(metrics or []),
            "weighted_metrics": list(weighted_metrics or []),
        }

    @property
    def metrics(self) -> list[Any]:
        """The metrics `fit` and `evaluate` reset and report: the loss tracker and the compiled
        metrics (after `compile`), then metrics held in the model's attributes."""
        from . import metrics as _metrics

        out: list[Any] = []
        if getattr(self, "compiled", False):
            out.append(self._loss_tracker)
            if self._compile_metrics.specs or self._compile_metrics.weighted_specs:
                out.append(self._compile_metrics)
        known = {id(m) for m in out}
        for v in self.__dict__.values():
            if isinstance(v, _metrics.Metric) and id(v) not in known:
                known.add(id(v))
                out.append(v)
        return out

    @property
    def metrics_names(self) -> list[str]:
        """The names of `self.metrics`."""
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        """Resets the state of every metric in `self.metrics`."""
        for m in self.metrics:
            m.reset_state()

    def compute_loss(
        self,
        x: Any = None,
        y: Any = None,
        y_pred: Any = None,
        sample_weight: Any = None,
        training: bool = True,
    ) -> Any:
        """The compiled loss of `(y, y_pred)` plus the losses layers added (`self.losses`)."""
        terms = []
        if getattr(self, "loss", None) is not None and y is not None:
            terms.append(self.loss(y, y_pred, sample_weight=sample_weight))
        terms.extend(self.losses)  # type: ignore[attr-defined]
        if not terms:
            return _rt.constant(0.0)
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        return total

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Updates the compiled metrics with a batch; returns `get_metrics_result()`."""
        if y is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight=sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, Any]:
        """Every metric's current result, by name (the compiled metrics' each by its own)."""
        out: dict[str, Any] = {}
        for m in self.metrics:
            result = m.result()
            if isinstance(result, dict):
                out.update(result)
            else:
                out[m.name] = result
        return out

    def _require_compiled(self, method: str) -> None:
        if not getattr(self, "compiled", False):
            raise RuntimeError(f"You must call `compile()` before `{method}()`.")

    def train_step(self, data: Any) -> Any:
        """One optimizer step on a batch (Keras 3's): the loss under a tape, its gradient
        applied, the loss tracker and metrics updated; returns the logs."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with _GradientTape() as tape:
            y_pred = self(x, training=True)  # type: ignore[operator]
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
            # Keras: the optimizer may scale the loss the gradients see (LossScaleOptimizer).
            scale_loss = getattr(self.optimizer, "scale_loss", None)
            scaled = loss if scale_loss is None else scale_loss(loss)
        self._loss_tracker.update_state(loss, sample_weight=float(len(_leaves(x)[0])))
        variables = self.trainable_variables  # type: ignore[attr-defined]
        if variables:
            grads = tape.gradient(scaled, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> Any:
        """The loss and metrics of a batch without training (Keras 3's); returns the logs."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)  # type: ignore[operator]
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=float(len(_leaves(x)[0])))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's outputs for a batch."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)  # type: ignore[operator]

    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = 0,
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: int = 1,
    ) -> Any:
        """Trains for `epochs` passes over `x` (and `y`, `sample_weight`: NumPy arrays, or
        lists and dicts of them) in batches, running `train_step` on each; returns a History
        whose `history` maps each log (the loss, the metrics, their "val_" forms) to per-epoch
        values. `callbacks` (`rt.keras.callbacks.Callback`s) are called around epochs and
        batches. `validation_split` (in `[0, 1)`) holds out the last fraction of the samples
        for validation, as Keras does, unless `validation_data` is given (every
        `validation_freq` epochs). `class_weight` maps a class to the weight of its samples'
        losses.

        `x` may instead yield whole batches (`x`, `(x, y)` or `(x, y, sample_weight)`): a
        `rt.keras.utils.PyDataset`, a generator (`steps_per_epoch` batches per epoch, or until
        it runs out) or another iterable; `validation_data` likewise.

        >>> import numpy as np, rustape as rt
        >>> rt.random.set_seed(0)
        >>> model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)])
        >>> model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
        >>> x = np.random.default_rng(0).normal(size=(64, 2)).astype(np.float32)
        >>> h = model.fit(x, x.sum(1, keepdims=True), epochs=20, shuffle=False)
        >>> h.history["loss"][-1] < 0.01 * h.history["loss"][0]
        True
        >>> model.predict(x[:3]).shape
        (3, 1)
        """
        from . import callbacks as _callbacks

        self._require_compiled("fit")
        data = batches(
            "fit", x, y, sample_weight, batch_size, shuffle, steps_per_epoch, class_weight
        )
        epochs = check_number("Model.fit", "epochs", epochs, low=0, integer=True)
        initial_epoch = check_number(
            "Model.fit", "initial_epoch", initial_epoch, low=0, integer=True
        )
        validation_freq = check_number(
            "Model.fit", "validation_freq", validation_freq, low=1, integer=True
        )
        split = check_number("Model.fit", "validation_split", validation_split, low=0.0)
        if split >= 1:
            raise ValueError(
                f"Model.fit: `validation_split` must be in [0, 1), got {validation_split!r}"
            )
        if split and validation_data is None:
            if not isinstance(data, ArrayBatches):
                raise ValueError(
                    "Model.fit: `validation_split` is only supported for arrays (give "
                    "`validation_data` for a generator or PyDataset)"
                )
            validation_data = tuple(v for v in data.split(split) if v is not None)
        if validation_data is not None and not is_batch_source(validation_data):
            val_x, val_y, val_w = unpack_x_y_sample_weight(tuple(validation_data))
            validation = batches(
                "fit",
                val_x,
                val_y,
                val_w,
                validation_batch_size or data_batch_size(data),
                False,
                validation_steps,
            )
        elif validation_data is not None:
            validation = batches("fit", validation_data, steps=validation_steps)
        history = _callbacks.History()
        hooks = [*(callbacks or []), history]
        params = {"epochs": epochs, "steps": data.steps, "verbose": verbose}
        for cb in hooks:
            cb.set_model(self)
            cb.set_params(params)
        self.stop_training = False
        self._initial_epoch: int | None = None
        data.start()
        for cb in hooks:
            cb.on_train_begin({})
        # A callback restoring a backup (BackupAndRestore) says where training resumes.
        initial_epoch = self._initial_epoch or initial_epoch
        logs: dict[str, Any] = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            for cb in hooks:
                cb.on_epoch_begin(epoch, {})
            step_logs: Any = None
            for step, batch in enumerate(data.epoch(epoch)):
                for cb in hooks:
                    cb.on_train_batch_begin(step, {})
                step_logs = self.train_step(batch)
                if len(hooks) > 1:  # the running logs, only when a callback can read them
                    batch_logs = _floats(step_logs)
                    for cb in hooks:
                        cb.on_train_batch_end(step, batch_logs)
            if step_logs is None and getattr(data, "ran_out", False):
                break  # a generator that ran out: Keras stops training (it warned)
            logs = _floats(step_logs or {})
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                val = self._evaluate_batches(validation, start=False, hooks=hooks)
                logs.update({f"val_{k}": v for k, v in val.items()})
            for cb in hooks:
                cb.on_epoch_end(epoch, logs)
            if verbose:
                print(
                    f"Epoch {epoch + 1}/{epochs} - "
                    + " - ".join(f"{k}: {v:.4f}" for k, v in logs.items())
                )
            if self.stop_training:
                break
        for cb in hooks:
            cb.on_train_end(logs)
        return history

    def _evaluate_batches(
        self, data: Batches, start: bool = True, hooks: Any = ()
    ) -> dict[str, float]:
        if start:
            data.start()
        self.reset_metrics()
        for cb in hooks:
            cb.on_test_begin({})
        step_logs: Any = {}
        for step, batch in enumerate(data.epoch(0)):
            for cb in hooks:
                cb.on_test_batch_begin(step, {})
            step_logs = self.test_step(batch)
            if hooks:
                batch_logs = _floats(step_logs)
                for cb in hooks:
                    cb.on_test_batch_end(step, batch_logs)
        logs = _floats(step_logs)
        for cb in hooks:
            cb.on_test_end(logs)
        return logs

    def _hooks(self, method: str, callbacks: Any, steps: Any) -> list[Any]:
        """`callbacks` of `evaluate` / `predict`, each given the model and the settings."""
        hooks = list(callbacks or [])
        for cb in hooks:
            cb.set_model(self)
            cb.set_params({"epochs": 1, "steps": steps, "verbose": 0})
        return hooks

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = 0,
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: Any = None,
        return_dict: bool = False,
    ) -> Any:
        """The loss and metrics over `x` (and `y`), running `test_step` batch by batch (`x`
        may yield batches, as in `fit`; `steps` of them); `callbacks` get the `on_test_*`
        hooks.

        Returns a dict with `return_dict=True`; else the loss alone when it is the only
        value, or the values in `metrics_names` order."""
        self._require_compiled("evaluate")
        data = batches("evaluate", x, y, sample_weight, batch_size, False, steps)
        logs = self._evaluate_batches(data, hooks=self._hooks("evaluate", callbacks, data.steps))
        if verbose:
            print(" - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
        if return_dict:
            return logs
        return list(logs.values()) if len(logs) > 1 else next(iter(logs.values()), None)

    def predict(
        self,
        x: Any,
        batch_size: Any = None,
        verbose: int = 0,
        steps: Any = None,
        callbacks: Any = None,
    ) -> Any:
        """The model's outputs for `x`, batch by batch (`predict_step`), as NumPy arrays (`x`
        may yield batches, as in `fit`; `steps` of them); `callbacks` get the `on_predict_*`
        hooks."""
        if is_batch_source(x):
            source = batches("predict", x, steps=steps)
            inputs: Any = source.epoch(0)
            hooks = self._hooks("predict", callbacks, source.steps)
        else:
            x = _arrays(x)
            n = _samples("predict", x)
            if any(leaf.ndim == 0 for leaf in _leaves(x)):
                raise ValueError(f"Model.predict: `x` must have a batch axis, got a scalar {x!r}")
            size = _batch_size("predict", batch_size)
            # An empty `x` is still called once: the result keeps the model's output shape.
            inputs = (
                pack_x_y_sample_weight(_take(x, np.arange(i, min(i + size, n))))
                for i in range(0, max(n, 1), size)
            )
            hooks = self._hooks("predict", callbacks, -(-max(n, 1) // size))
        for cb in hooks:
            cb.on_predict_begin({})
        parts = []
        for step, batch in enumerate(inputs):
            for cb in hooks:
                cb.on_predict_batch_begin(step, {})
            parts.append(self.predict_step(batch))
            for cb in hooks:
                cb.on_predict_batch_end(step, {"outputs": parts[-1]})
        for cb in hooks:
            cb.on_predict_end({})
        if not parts:
            raise ValueError("Model.predict: the generator yielded no batches")
        return _concat(parts)

    def _batch_logs(self, logs: Any, return_dict: bool) -> Any:
        values = _floats(logs)
        if return_dict:
            return values
        return list(values.values()) if len(values) > 1 else next(iter(values.values()), None)

    def train_on_batch(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        class_weight: Any = None,
        return_dict: bool = False,
    ) -> Any:
        """One `train_step` on one batch (Keras 3's: the metrics are reset first, so the logs
        are this batch's). Returns the logs as a dict with `return_dict=True`, else the loss
        alone or the values in `metrics_names` order.

        >>> import numpy as np, rustape as rt
        >>> m = rt.keras.Sequential([rt.keras.Input((2,)), rt.keras.layers.Dense(1)])
        >>> m.compile(optimizer="sgd", loss="mse")
        >>> isinstance(m.train_on_batch(np.ones((4, 2)), np.zeros((4, 1))), float)
        True
        """
        self._require_compiled("train_on_batch")
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError(
                    "Arguments `sample_weight` and `class_weight` cannot be specified at the "
                    "same time."
                )
            sample_weight = class_weights(y, class_weight)
        self.reset_metrics()
        y = None if y is None else _arrays(y)
        logs = self.train_step(pack_x_y_sample_weight(_arrays(x), y, sample_weight))
        return self._batch_logs(logs, return_dict)

    def test_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False
    ) -> Any:
        """One `test_step` on one batch (Keras 3's: the metrics are reset first).

        >>> import numpy as np, rustape as rt
        >>> m = rt.keras.Sequential([rt.keras.Input((2,)), rt.keras.layers.Dense(1)])
        >>> m.compile(optimizer="sgd", loss="mse", metrics=["mae"])
        >>> sorted(m.test_on_batch(np.ones((4, 2)), np.zeros((4, 1)), return_dict=True))
        ['loss', 'mae']
        """
        self._require_compiled("test_on_batch")
        self.reset_metrics()
        y = None if y is None else _arrays(y)
        logs = self.test_step(pack_x_y_sample_weight(_arrays(x), y, sample_weight))
        return self._batch_logs(logs, return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's outputs for one batch (`predict_step`), as NumPy arrays.

        >>> import numpy as np, rustape as rt
        >>> m = rt.keras.Sequential([rt.keras.Input((2,)), rt.keras.layers.Dense(3)])
        >>> m.predict_on_batch(np.ones((4, 2))).shape
        (4, 3)
        """
        return _concat([self.predict_step(pack_x_y_sample_weight(_arrays(x)))])


def _concat(parts: list[Any]) -> Any:
    """Batch outputs (tensors, or lists, tuples and dicts of them) joined along axis 0."""
    first = parts[0]
    if isinstance(first, dict):
        return {k: _concat([p[k] for p in parts]) for k in first}
    if isinstance(first, (list, tuple)):
        return type(first)(_concat([p[i] for p in parts]) for i in range(len(first)))
    arrays = [np.asarray(p.numpy() if isinstance(p, _rt.Tensor) else p) for p in parts]
    return np.concatenate(arrays, axis=0)
