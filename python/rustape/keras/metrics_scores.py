"""F-scores (`FBetaScore`, `F1Score`) and intersection over union (`IoU`, `MeanIoU`,
`BinaryIoU`, `OneHotIoU`, `OneHotMeanIoU`), as Keras 3 computes them: counts accumulated over
batches in the metric's dtype, the score read from the counts."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from .. import _rustape as _rt
from .. import linalg as _linalg
from .. import math as _math
from ._util import check_number
from .metrics_base import Metric

__all__ = [
    "BinaryIoU",
    "F1Score",
    "FBetaScore",
    "IoU",
    "MeanIoU",
    "OneHotIoU",
    "OneHotMeanIoU",
]

#: Keras's `backend.epsilon()`, which its F-score adds to every denominator.
_EPSILON = 1e-7


def _tensor(x: Any, dtype: Any) -> Any:
    t = x.value() if isinstance(x, _rt.Variable) else x
    t = t if isinstance(t, _rt.Tensor) else _rt.convert_to_tensor(t)
    return t if t.dtype == dtype else _rt.cast(t, dtype)


class FBetaScore(Metric):
    """The F-beta score of multi-label or one-hot predictions `[batch, classes]`: a
    prediction counts as positive above `threshold`, or where it is its row's largest when
    `threshold` is None; `average` None (one score per class), "micro", "macro" or
    "weighted" (by each class's true count).

    >>> import rustape as rt
    >>> metric = rt.keras.metrics.FBetaScore(beta=2.0, threshold=0.5)
    >>> metric.update_state([[1, 0], [1, 1]], [[0.9, 0.2], [0.4, 0.7]])
    >>> metric.result().numpy().round(4)
    array([0.5556, 1.    ], dtype=float32)
    """

    def __init__(
        self,
        average: str | None = None,
        beta: float = 1.0,
        threshold: float | None = None,
        name: str = "fbeta_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(
                "Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                f"'weighted'}}. Received: average={average}"
            )
        self.average = average
        self.beta = check_number(owner, "beta", beta, low=0.0, low_open=True)
        self.threshold = check_number(
            owner, "threshold", threshold, low=0.0, high=1.0, low_open=True, none_ok=True
        )
        self._counts: dict[str, Any] | None = None

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) true positives, false positives and negatives."""
        y_true, y_pred = _tensor(y_true, self.dtype), _tensor(y_pred, self.dtype)
        if len(y_pred.shape) != 2 or len(y_true.shape) != 2:
            raise ValueError(
                "FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received "
                f"input shapes: y_pred.shape={tuple(y_pred.shape)} and "
                f"y_true.shape={tuple(y_true.shape)}."
            )
        if self.threshold is None:
            top = _rt.reduce_max(y_pred, axis=-1, keepdims=True)
            positive = _rt.logical_and(
                _rt.greater_equal(y_pred, top), _rt.greater(_rt.abs(y_pred), 1e-9)
            )
        else:
            positive = _rt.greater(y_pred, self.threshold)
        pred = _rt.cast(positive, self.dtype)
        one = _rt.ones([], dtype=self.dtype)
        weights = None if sample_weight is None else _tensor(sample_weight, self.dtype)
        axis = None if self.average == "micro" else 0

        def total(values: Any) -> Any:
            if weights is not None:
                values = _rt.multiply(values, _rt.expand_dims(weights, 1))
            return _rt.reduce_sum(values, axis=axis)

        batch = {
            "tp": total(_rt.multiply(pred, y_true)),
            "fp": total(_rt.multiply(pred, _rt.subtract(one, y_true))),
            "fn": total(_rt.multiply(_rt.subtract(one, pred), y_true)),
            "weights": total(y_true),
        }
        if self._counts is None:
            self._counts = batch
        else:
            self._counts = {k: _rt.add(self._counts[k], v) for k, v in batch.items()}

    def result(self) -> Any:
        """The score (per class with `average=None`), 0 before any update."""
        if self._counts is None:
            return _rt.zeros([], dtype=self.dtype)
        c = self._counts
        eps = _rt.cast(_EPSILON, self.dtype)
        precision = _rt.divide(c["tp"], _rt.add(_rt.add(c["tp"], c["fp"]), eps))
        recall = _rt.divide(c["tp"], _rt.add(_rt.add(c["tp"], c["fn"]), eps))
        beta2 = _rt.cast(self.beta**2, self.dtype)
        mean = _rt.divide(
            _rt.multiply(precision, recall),
            _rt.add(_rt.add(_rt.multiply(beta2, precision), recall), eps),
        )
        score = _rt.multiply(mean, _rt.add(beta2, _rt.ones([], dtype=self.dtype)))
        if self.average == "weighted":
            weights = _rt.divide(c["weights"], _rt.add(_rt.reduce_sum(c["weights"]), eps))
            return _rt.reduce_sum(_rt.multiply(score, weights))
        if self.average is not None:
            return _rt.reduce_mean(score)
        return score

    def reset_state(self) -> None:
        """Forgets the counts."""
        self._counts = None

    def get_config(self) -> dict[str, Any]:
        """`{"name", "dtype", "average", "beta", "threshold"}`."""
        return {
            "name": self.name,
            "dtype": self.dtype.name,
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """The F1 score (`FBetaScore` with `beta=1`).

    >>> import rustape as rt
    >>> metric = rt.keras.metrics.F1Score(average="macro")
    >>> metric.update_state([[1, 0, 0], [0, 1, 0]], [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1]])
    >>> round(float(metric.result()), 4)
    0.2222
    """

    def __init__(
        self,
        average: str | None = None,
        threshold: float | None = None,
        name: str = "f1_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """`{"name", "dtype", "average", "threshold"}`."""
        config = super().get_config()
        del config["beta"]
        return config


class IoU(Metric):
    """Intersection over union of integer class labels, averaged over `target_class_ids`
    (classes absent from both labels and predictions are left out): a confusion matrix
    accumulated in the metric's dtype (int32 by default, as Keras's, so weights are cast to
    it); `ignore_class` leaves a label out; with `sparse_y_true` / `sparse_y_pred` False the
    arg-max along `axis` gives the class.

    >>> import rustape as rt
    >>> metric = rt.keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    >>> metric.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> round(float(metric.result()), 4)
    0.3333
    """

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Sequence[int],
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        super().__init__(name=name, dtype="int32" if dtype is None else dtype)
        owner = type(self).__name__
        self.num_classes = check_number(owner, "num_classes", num_classes, low=1, integer=True)
        self.target_class_ids = [int(c) for c in target_class_ids]
        if self.target_class_ids and max(self.target_class_ids) >= self.num_classes:
            raise ValueError(
                f"Target class id {max(self.target_class_ids)} is out of range, which is "
                f"[0, {self.num_classes})."
            )
        self.ignore_class = ignore_class
        self.sparse_y_true = bool(sparse_y_true)
        self.sparse_y_pred = bool(sparse_y_pred)
        self.axis = axis
        self.total_cm: Any = None
        self.reset_state()

    def _classes(self, values: Any, sparse: bool) -> Any:
        t = values.value() if isinstance(values, _rt.Variable) else values
        t = t if isinstance(t, _rt.Tensor) else _rt.convert_to_tensor(t)
        if not sparse:
            t = _rt.argmax(t, axis=self.axis)
        return _rt.reshape(_rt.cast(t, self.dtype), [-1])

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's (weighted) label/prediction pairs to the confusion matrix."""
        true = self._classes(y_true, self.sparse_y_true)
        pred = self._classes(y_pred, self.sparse_y_pred)
        if sample_weight is None:
            weights = _rt.ones_like(true)
        else:
            given = getattr(sample_weight, "dtype", None)
            if given is not None and "float" in str(given) and not self.dtype.is_floating:
                warnings.warn(
                    "You are passing weight as `float`, but dtype is `int`. This may result in "
                    "an incorrect weight due to type casting Consider using integer weights.",
                    stacklevel=2,
                )
            weights = _rt.reshape(_tensor(sample_weight, self.dtype), [-1])
            weights = _rt.broadcast_to(weights, list(true.shape))
        n = _rt.cast(self.num_classes, self.dtype)
        zero = _rt.zeros([], dtype=self.dtype)
        valid = _rt.logical_and(
            _rt.logical_and(_rt.greater_equal(true, zero), _rt.less(true, n)),
            _rt.logical_and(_rt.greater_equal(pred, zero), _rt.less(pred, n)),
        )
        if self.ignore_class is not None:
            valid = _rt.logical_and(
                valid, _rt.not_equal(true, _rt.cast(self.ignore_class, self.dtype))
            )
        true, pred = _rt.where(valid, true, zero), _rt.where(valid, pred, zero)
        weights = _rt.where(valid, weights, zero)
        cells = _rt.cast(_rt.add(_rt.multiply(true, n), pred), _rt.int32)
        counts = _math.unsorted_segment_sum(weights, cells, self.num_classes**2)
        batch = _rt.reshape(counts, [self.num_classes, self.num_classes])
        self.total_cm = _rt.add(self.total_cm, batch)

    def result(self) -> Any:
        """The mean IoU over the target classes that occur (a float32 scalar)."""
        cm = _rt.cast(self.total_cm, _rt.float32)
        rows = _rt.reduce_sum(cm, axis=0)
        cols = _rt.reduce_sum(cm, axis=1)
        ids = _rt.constant(self.target_class_ids, dtype=_rt.int32)
        diagonal = _linalg.diag_part(cm)
        tp = _rt.gather(diagonal, ids)
        denominator = _rt.subtract(_rt.add(_rt.gather(rows, ids), _rt.gather(cols, ids)), tp)
        valid = _rt.greater(denominator, 1e-9)
        iou = _rt.where(valid, _rt.divide(tp, _rt.where(valid, denominator, 1.0)), 0.0)
        count = _rt.reduce_sum(_rt.cast(valid, _rt.float32))
        return _math.divide_no_nan(_rt.reduce_sum(iou), count)

    def reset_state(self) -> None:
        """Sets the confusion matrix to zeros."""
        self.total_cm = _rt.zeros([self.num_classes, self.num_classes], dtype=self.dtype)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {
            "name": self.name,
            "dtype": self.dtype.name,
            "num_classes": self.num_classes,
            "target_class_ids": list(self.target_class_ids),
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class MeanIoU(IoU):
    """`IoU` averaged over every class.

    >>> import rustape as rt
    >>> metric = rt.keras.metrics.MeanIoU(num_classes=2)
    >>> metric.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    >>> round(float(metric.result()), 4)
    0.3333
    """

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes,
            list(range(int(num_classes))) if isinstance(num_classes, int) else [],
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        config = super().get_config()
        del config["target_class_ids"]
        return config


class BinaryIoU(IoU):
    """`IoU` of binary labels, a prediction counting as class 1 at or above `threshold`.

    >>> import rustape as rt
    >>> metric = rt.keras.metrics.BinaryIoU(target_class_ids=[1], threshold=0.5)
    >>> metric.update_state([0, 1, 1], [0.2, 0.7, 0.4])
    >>> round(float(metric.result()), 4)
    0.5
    """

    def __init__(
        self,
        target_class_ids: Sequence[int] = (0, 1),
        threshold: float = 0.5,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = check_number("BinaryIoU", "threshold", threshold)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Thresholds `y_pred`, then counts as `IoU` does."""
        pred = _rt.cast(_rt.greater_equal(_tensor(y_pred, _rt.float32), self.threshold), self.dtype)
        super().update_state(y_true, pred, sample_weight)

    def get_config(self) -> dict[str, Any]:
        """`{"name", "dtype", "target_class_ids", "threshold"}`."""
        return {
            "name": self.name,
            "dtype": self.dtype.name,
            "target_class_ids": list(self.target_class_ids),
            "threshold": self.threshold,
        }


class _OneHotLabels(IoU):
    """The one-hot forms: labels are always dense, so their config has no `sparse_y_true`."""

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotIoU(_OneHotLabels):
    """`IoU` of one-hot labels and per-class scores (the arg-max of each).

    >>> import rustape as rt
    >>> metric = rt.keras.metrics.OneHotIoU(num_classes=2, target_class_ids=[1])
    >>> metric.update_state([[1, 0], [0, 1]], [[0.2, 0.8], [0.3, 0.7]])
    >>> round(float(metric.result()), 4)
    0.5
    """

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Sequence[int],
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes,
            target_class_ids,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )


class OneHotMeanIoU(_OneHotLabels, MeanIoU):
    """`MeanIoU` of one-hot labels and per-class scores (the arg-max of each).

    >>> import rustape as rt
    >>> metric = rt.keras.metrics.OneHotMeanIoU(num_classes=2)
    >>> metric.update_state([[1, 0], [0, 1]], [[0.2, 0.8], [0.3, 0.7]])
    >>> round(float(metric.result()), 4)
    0.25
    """

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )
