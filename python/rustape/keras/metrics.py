"""`rt.keras.metrics`: Keras 3's streaming metrics (`update_state` / `result` / `reset_state`).

Metrics accumulate float32 totals as Keras does; they are not differentiable (nothing is
recorded on a tape).

>>> import rustape as rt
>>> m = rt.keras.metrics.Mean()
>>> m.update_state([1.0, 2.0, 6.0])
>>> float(m.result())
3.0
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _rustape as _rt
from ._util import _snake

__all__ = [
    "AUC",
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "Mean",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "Metric",
    "SparseCategoricalAccuracy",
    "Sum",
    "TopKCategoricalAccuracy",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "get",
    "sparse_categorical_accuracy",
    "top_k_categorical_accuracy",
]

EPSILON = 1e-7


def _array(x: Any, dtype: Any = None) -> np.ndarray:
    if isinstance(x, (_rt.Tensor, _rt.Variable)):
        x = x.numpy()
    a = np.asarray(x)
    return a.astype(dtype) if dtype is not None else a


def _same_rank(x1: np.ndarray, x2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keras's `squeeze_or_expand_to_same_rank`."""
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1:
            x2 = x2[..., None]
        else:
            x1 = x1[..., 0]
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1:
            x1 = x1[..., None]
        else:
            x2 = x2[..., 0]
    return x1, x2


class Metric:
    """Base class: state that `update_state` accumulates and `result` reads.

    >>> class Count(Metric):
    ...     def __init__(self):
    ...         super().__init__(name="count")
    ...         self.n = 0
    ...     def update_state(self, values):
    ...         self.n += len(values)
    ...     def result(self):
    ...         return self.n
    ...     def reset_state(self):
    ...         self.n = 0
    >>> c = Count(); c.update_state([1, 2]); c.result()
    2
    """

    def __init__(self, name: str | None = None, dtype: Any = None) -> None:
        self.name = name if name is not None else _snake(type(self).__name__)
        self.dtype = _rt.float32 if dtype is None else _rt.as_dtype(dtype)

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulates statistics."""
        raise NotImplementedError

    def result(self) -> Any:
        """The metric's value from the accumulated statistics."""
        raise NotImplementedError

    def reset_state(self) -> None:
        """Forgets every statistic."""
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {"name": self.name}

    def __repr__(self) -> str:
        return f"<rt.keras.metrics.{type(self).__name__} name={self.name!r}>"


def _samplewise(values: np.ndarray, sample_weight: Any,
                reduce: Callable) -> tuple[np.ndarray, np.ndarray | None]:
    """Keras's `reduce_to_samplewise_values`."""
    values = values.astype(np.float32)
    weight = None
    if sample_weight is not None:
        weight = _array(sample_weight, np.float32)
        values, weight = _same_rank(values, weight)
        if values.ndim > weight.ndim:
            values = reduce(values, axis=tuple(range(weight.ndim, values.ndim)))
        weight = np.broadcast_to(weight, values.shape)
        values = values * weight
        if weight.ndim > 1:
            weight = reduce(weight, axis=tuple(range(1, weight.ndim)))
    if values.ndim > 1:
        values = reduce(values, axis=tuple(range(1, values.ndim)))
    return values, weight


class Sum(Metric):
    """The (weighted) sum of every value seen.

    >>> s = Sum(); s.update_state([1.0, 2.0], sample_weight=[1.0, 0.5]); float(s.result())
    2.0
    """

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = np.float32(0)

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        v, _ = _samplewise(_array(values), sample_weight, np.sum)
        self.total = np.float32(self.total + np.sum(v, dtype=np.float32))

    def result(self) -> Any:
        return _rt.constant(self.total, dtype=_rt.float32)

    def reset_state(self) -> None:
        self.total = np.float32(0)


class Mean(Metric):
    """The (weighted) mean of every value seen.

    >>> m = Mean(); m.update_state([1.0, 3.0], sample_weight=[3.0, 1.0]); float(m.result())
    1.5
    """

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = np.float32(0)
        self.count = np.float32(0)

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        v, w = _samplewise(_array(values), sample_weight, np.mean)
        self.total = np.float32(self.total + np.sum(v, dtype=np.float32))
        if w is not None:
            n = np.sum(w, dtype=np.float32)
        elif v.ndim >= 1:
            n = np.float32(v.shape[0])
        else:
            n = np.float32(1)
        self.count = np.float32(self.count + n)

    def result(self) -> Any:
        value = np.float32(0) if self.count == 0 else np.float32(self.total / self.count)
        return _rt.constant(value, dtype=_rt.float32)

    def reset_state(self) -> None:
        self.total = np.float32(0)
        self.count = np.float32(0)


class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred, **kwargs)` over every sample seen.

    >>> m = MeanMetricWrapper(accuracy); m.update_state([1, 2], [1, 3]); float(m.result())
    0.5
    """

    def __init__(self, fn: Callable, name: str | None = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name if name is not None else getattr(fn, "__name__", "mean"),
                         dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(  # type: ignore[override]  # Keras's signature
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> None:
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values, sample_weight=sample_weight)


def accuracy(y_true: Any, y_pred: Any) -> np.ndarray:
    """1.0 where `y_true == y_pred`, else 0.0.

    >>> accuracy([1, 2], [1, 3]).tolist()
    [1.0, 0.0]
    """
    t, p = _same_rank(_array(y_true), _array(y_pred))
    return (t.astype(p.dtype) == p).astype(np.float32)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> np.ndarray:
    """1.0 where `y_true == (y_pred > threshold)`, else 0.0.

    >>> binary_accuracy([[1.0, 0.0]], [[0.7, 0.6]]).tolist()
    [[1.0, 0.0]]
    """
    t, p = _same_rank(_array(y_true, np.float32), _array(y_pred, np.float32))
    return (t == (p > np.float32(threshold)).astype(np.float32)).astype(np.float32)


def categorical_accuracy(y_true: Any, y_pred: Any) -> np.ndarray:
    """1.0 where the argmax of `y_pred` is the argmax of the one-hot `y_true`.

    >>> categorical_accuracy([[0, 1], [1, 0]], [[0.3, 0.7], [0.4, 0.6]]).tolist()
    [1.0, 0.0]
    """
    return sparse_categorical_accuracy(np.argmax(_array(y_true), axis=-1), y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> np.ndarray:
    """1.0 where the argmax of `y_pred` equals the integer label.

    >>> sparse_categorical_accuracy([1, 0], [[0.3, 0.7], [0.4, 0.6]]).tolist()
    [1.0, 0.0]
    """
    t, p = _array(y_true), _array(y_pred)
    if t.ndim == p.ndim and t.ndim > 0 and t.shape[-1] == 1:
        t = t[..., 0]
    return (np.argmax(p, axis=-1) == t.astype(np.int64)).astype(np.float32)


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> np.ndarray:
    """1.0 where the true class is among the `k` highest scores (`in_top_k`: ties count in).

    >>> top_k_categorical_accuracy([[0, 0, 1]], [[0.5, 0.3, 0.2]], k=2).tolist()
    [0.0]
    """
    t, p = _array(y_true), _array(y_pred, np.float32)
    labels = np.argmax(t, axis=-1)
    target = np.take_along_axis(p, labels[..., None], axis=-1)
    higher = np.sum(p > target, axis=-1)
    return (higher < k).astype(np.float32)


def _wrapped(fn: Callable, class_name: str, default_name: str, doc: str,
             **defaults: Any) -> type:
    def __init__(self: Any, name: str = default_name, dtype: Any = None, **kwargs: Any) -> None:
        options = dict(defaults)
        for key, value in kwargs.items():
            if key not in defaults:
                raise TypeError(f"{class_name} got an unexpected keyword argument {key!r}")
            options[key] = value
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **options)
        for key, value in options.items():
            setattr(self, key, value)

    cls = type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc})
    cls.__qualname__ = class_name
    return cls


Accuracy = _wrapped(accuracy, "Accuracy", "accuracy", """How often predictions equal labels.

    >>> m = Accuracy(); m.update_state([1, 2, 3], [1, 2, 0]); round(float(m.result()), 4)
    0.6667
    """)
BinaryAccuracy = _wrapped(binary_accuracy, "BinaryAccuracy", "binary_accuracy",
                          """How often `y_pred > threshold` matches the binary labels.

    >>> m = BinaryAccuracy(); m.update_state([1, 0], [0.8, 0.6]); float(m.result())
    0.5
    """, threshold=0.5)
CategoricalAccuracy = _wrapped(categorical_accuracy, "CategoricalAccuracy", "categorical_accuracy",
                               """How often the argmax matches the one-hot label.

    >>> m = CategoricalAccuracy(); m.update_state([[0, 1]], [[0.1, 0.9]]); float(m.result())
    1.0
    """)
SparseCategoricalAccuracy = _wrapped(
    sparse_categorical_accuracy, "SparseCategoricalAccuracy", "sparse_categorical_accuracy",
    """How often the argmax matches the integer label.

    >>> m = SparseCategoricalAccuracy(); m.update_state([1], [[0.1, 0.9]]); float(m.result())
    1.0
    """)
TopKCategoricalAccuracy = _wrapped(
    top_k_categorical_accuracy, "TopKCategoricalAccuracy", "top_k_categorical_accuracy",
    """How often the true class is among the `k` (5) highest scores.

    >>> m = TopKCategoricalAccuracy(k=1); m.update_state([[0, 1]], [[0.1, 0.9]]); float(m.result())
    1.0
    """, k=5)


def _mse(y_true: Any, y_pred: Any) -> Any:
    t, p = _same_rank(_array(y_true, np.float32), _array(y_pred, np.float32))
    return np.mean(np.square(t - p), axis=-1, dtype=np.float32)


MeanSquaredError = _wrapped(_mse, "MeanSquaredError", "mean_squared_error",
                            """The mean of squared errors over every sample seen.

    >>> m = MeanSquaredError(); m.update_state([[0.0, 1.0]], [[1.0, 1.0]]); float(m.result())
    0.5
    """)


class AUC(Metric):
    """Area under the ROC (or PR) curve, from confusion counts at `num_thresholds` thresholds.

    `summation_method` is `"interpolation"` (PR: Davis & Goadrich's interpolation),
    `"minoring"` or `"majoring"`, as in Keras.

    >>> m = AUC(); m.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]); round(float(m.result()), 4)
    0.75
    """

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: str | None = None,
                 dtype: Any = None, thresholds: list[float] | None = None,
                 multi_label: bool = False, num_labels: int | None = None,
                 label_weights: Any = None, from_logits: bool = False) -> None:
        super().__init__(name=name if name is not None else "auc", dtype=dtype)
        if multi_label or num_labels is not None or label_weights is not None:
            raise ValueError("AUC: multi_label, num_labels and label_weights are not supported")
        curve = curve.upper()
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid `curve` argument value "{curve}". Expected one of: ROC, PR')
        summation_method = summation_method.lower()
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(
                f'Invalid `summation_method` argument value "{summation_method}". Expected one '
                "of: interpolation, minoring, majoring"
            )
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            self.num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    "Argument `num_thresholds` must be an integer > 1. "
                    f"Received: num_thresholds={num_thresholds}"
                )
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._thresholds = np.array([0.0 - EPSILON] + inner + [1.0 + EPSILON])
        self.curve = curve
        self.summation_method = summation_method
        self._from_logits = from_logits
        self.reset_state()

    @property
    def thresholds(self) -> list[float]:
        """The thresholds, the outer two just beyond 0 and 1."""
        return list(self._thresholds)

    def reset_state(self) -> None:
        n = self.num_thresholds
        self.true_positives = np.zeros(n, np.float32)
        self.false_positives = np.zeros(n, np.float32)
        self.true_negatives = np.zeros(n, np.float32)
        self.false_negatives = np.zeros(n, np.float32)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        t = _array(y_true).astype(bool).reshape(-1)
        p = _array(y_pred, np.float32).reshape(-1)
        if self._from_logits:
            p = (1.0 / (1.0 + np.exp(-p))).astype(np.float32)
        if sample_weight is None:
            w = np.ones_like(p)
        else:
            w = np.broadcast_to(_array(sample_weight, np.float32), _array(y_pred).shape).reshape(-1)
        above = p[None, :] > self._thresholds.astype(np.float32)[:, None]
        pos, neg = (w * t)[None, :], (w * ~t)[None, :]
        self.true_positives += np.sum(above * pos, axis=1, dtype=np.float32)
        self.false_negatives += np.sum(~above * pos, axis=1, dtype=np.float32)
        self.false_positives += np.sum(above * neg, axis=1, dtype=np.float32)
        self.true_negatives += np.sum(~above * neg, axis=1, dtype=np.float32)

    @staticmethod
    def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(b == 0, np.float32(0), a / np.where(b == 0, np.float32(1), b)).astype(np.float32)

    def _interpolate_pr(self) -> Any:  # a float32 scalar
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = self._div(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        ratio = np.where((p[:-1] > 0) & (p[1:] > 0), self._div(p[:-1], np.maximum(p[1:], 0)),
                         np.ones_like(p[1:]))
        increment = self._div(slope * (dtp + intercept * np.log(ratio).astype(np.float32)),
                              np.maximum(tp[1:] + fn[1:], 0))
        return np.sum(increment, dtype=np.float32)

    def result(self) -> Any:
        if self.curve == "PR" and self.summation_method == "interpolation":
            return _rt.constant(self._interpolate_pr(), dtype=_rt.float32)
        tp, fp, tn, fn = (self.true_positives, self.false_positives, self.true_negatives,
                          self.false_negatives)
        recall = self._div(tp, tp + fn)
        if self.curve == "ROC":
            x, y = self._div(fp, fp + tn), recall
        else:
            x, y = recall, self._div(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / np.float32(2)
        elif self.summation_method == "minoring":
            heights = np.minimum(y[:-1], y[1:])
        else:
            heights = np.maximum(y[:-1], y[1:])
        return _rt.constant(np.sum((x[:-1] - x[1:]) * heights, dtype=np.float32), dtype=_rt.float32)


_BY_NAME: dict[str, Any] = {
    "accuracy": Accuracy, "acc": Accuracy, "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy, "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError, "auc": AUC, "mean": Mean, "sum": Sum,
}


def get(identifier: Any) -> Any:
    """A metric from a name (`"accuracy"`, `"auc"`, ...) or a metric (returned as is).

    >>> type(get("auc")).__name__
    'AUC'
    """
    if isinstance(identifier, Metric) or callable(identifier) and not isinstance(identifier, str):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Could not interpret metric identifier: {identifier!r}")
