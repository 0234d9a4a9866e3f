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
from ._util import check_number
from .metrics_base import Metric
from .metrics_confusion import (
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from .metrics_operating_point import (
    PrecisionAtRecall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
)
from .metrics_scores import (
    BinaryIoU,
    F1Score,
    FBetaScore,
    IoU,
    MeanIoU,
    OneHotIoU,
    OneHotMeanIoU,
)

__all__ = [
    "AUC",
    "Accuracy",
    "BinaryAccuracy",
    "BinaryCrossentropy",
    "BinaryIoU",
    "CategoricalAccuracy",
    "CategoricalCrossentropy",
    "CategoricalHinge",
    "ConcordanceCorrelation",
    "CosineSimilarity",
    "F1Score",
    "FBetaScore",
    "FalseNegatives",
    "FalsePositives",
    "Hinge",
    "IoU",
    "KLDivergence",
    "LogCoshError",
    "Mean",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanIoU",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Metric",
    "OneHotIoU",
    "OneHotMeanIoU",
    "PearsonCorrelation",
    "Poisson",
    "Precision",
    "PrecisionAtRecall",
    "R2Score",
    "Recall",
    "RecallAtPrecision",
    "RootMeanSquaredError",
    "SensitivityAtSpecificity",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy",
    "SpecificityAtSensitivity",
    "SquaredHinge",
    "Sum",
    "TopKCategoricalAccuracy",
    "TrueNegatives",
    "TruePositives",
    "accuracy",
    "binary_accuracy",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_accuracy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "concordance_correlation",
    "deserialize",
    "get",
    "hinge",
    "huber",
    "kl_divergence",
    "log_cosh",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "pearson_correlation",
    "poisson",
    "serialize",
    "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy",
    "squared_hinge",
    "top_k_categorical_accuracy",
]


def _array(x: Any) -> Any:
    """NumPy arrays of a Python function's values (a Tensor or Variable is read)."""
    if isinstance(x, (_rt.Tensor, _rt.Variable)):
        return x.numpy()
    return x


#: The most thresholds an AUC accumulates over (2^20 is finer than float32 probabilities).
_MAX_THRESHOLDS = 2**20


class _StateMetric(Metric):
    """A metric whose state and arithmetic live in the engine (`rustape.metrics` in Rust)."""

    _state: Any

    def result(self) -> Any:
        return _rt.constant(self._state.result(), dtype=_rt.float32)

    def reset_state(self) -> None:
        self._state.reset()

    def _variable(self, name: str) -> Any:
        return dict(self._state.variables())[name].numpy()


class Sum(_StateMetric):
    """The (weighted) sum of every value seen.

    >>> s = Sum(); s.update_state([1.0, 2.0], sample_weight=[1.0, 0.5]); float(s.result())
    2.0
    """

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._state = _rt.MetricState.sum()

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds `values` times their weights (broadcast as Keras does)."""
        self._state.update(values, None, sample_weight)

    @property
    def total(self) -> Any:
        """The float32 total so far.

        >>> s = Sum(); s.update_state([1.5]); float(s.total)
        1.5
        """
        return self._variable("total")


class Mean(_StateMetric):
    """The (weighted) mean of every value seen.

    >>> m = Mean(); m.update_state([1.0, 3.0], sample_weight=[3.0, 1.0]); float(m.result())
    1.5
    """

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._state = _rt.MetricState.mean()

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds `values` (averaged over their non-batch axes) with their weights."""
        self._state.update(values, None, sample_weight)

    @property
    def total(self) -> Any:
        """The float32 weighted total so far.

        >>> m = Mean(); m.update_state([1.0, 2.0]); float(m.total)
        3.0
        """
        return self._variable("total")

    @property
    def count(self) -> Any:
        """The float32 total weight (or number of samples) so far.

        >>> m = Mean(); m.update_state([1.0, 2.0]); float(m.count)
        2.0
        """
        return self._variable("count")


#: The engine's name of each metric function computed there.
_ENGINE_FUNCTIONS: dict[Callable[..., Any], str] = {}


class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred, **kwargs)` over every sample seen.

    Keras's metric functions run in the engine; any other `fn` runs here and its values are
    averaged there.

    >>> m = MeanMetricWrapper(accuracy); m.update_state([1, 2], [1, 3]); float(m.result())
    0.5
    """

    def __init__(
        self, fn: Callable, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(
            name=name if name is not None else getattr(fn, "__name__", "mean"), dtype=dtype
        )
        self._fn = fn
        self._fn_kwargs = kwargs
        engine_name = _ENGINE_FUNCTIONS.get(fn)
        if engine_name is not None:
            self._state = _rt.MetricState.matcher(engine_name, **kwargs)
        self._in_engine = engine_name is not None

    def update_state(  # type: ignore[override]  # Keras's signature
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> None:
        """Adds the function's values on one batch, weighted by `sample_weight`."""
        if self._in_engine:
            self._state.update(y_true, y_pred, sample_weight)
        else:
            values = self._fn(y_true, y_pred, **self._fn_kwargs)
            self._state.update(_array(values), None, sample_weight)


def _values(metric: str, y_true: Any, y_pred: Any, **kwargs: Any) -> np.ndarray:
    return np.asarray(_rt.metric_values(metric, y_true, y_pred, **kwargs).numpy())


def accuracy(y_true: Any, y_pred: Any) -> np.ndarray:
    """1.0 where `y_true == y_pred`, else 0.0.

    >>> accuracy([1, 2], [1, 3]).tolist()
    [1.0, 0.0]
    """
    return _values("accuracy", y_true, y_pred)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> np.ndarray:
    """1.0 where `y_true == (y_pred > threshold)`, else 0.0.

    >>> binary_accuracy([[1.0, 0.0]], [[0.7, 0.6]]).tolist()
    [[1.0, 0.0]]
    """
    return _values("binary_accuracy", y_true, y_pred, threshold=float(threshold))


def categorical_accuracy(y_true: Any, y_pred: Any) -> np.ndarray:
    """1.0 where the argmax of `y_pred` is the argmax of the one-hot `y_true`.

    >>> categorical_accuracy([[0, 1], [1, 0]], [[0.3, 0.7], [0.4, 0.6]]).tolist()
    [1.0, 0.0]
    """
    return _values("categorical_accuracy", y_true, y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> np.ndarray:
    """1.0 where the argmax of `y_pred` equals the integer label.

    >>> sparse_categorical_accuracy([1, 0], [[0.3, 0.7], [0.4, 0.6]]).tolist()
    [1.0, 0.0]
    """
    return _values("sparse_categorical_accuracy", y_true, y_pred)


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> np.ndarray:
    """1.0 where the true class is among the `k` highest scores (`in_top_k`: ties count in).

    >>> top_k_categorical_accuracy([[0, 0, 1]], [[0.5, 0.3, 0.2]], k=2).tolist()
    [0.0]
    """
    return _values("top_k_categorical_accuracy", y_true, y_pred, k=int(k))


def _mse(y_true: Any, y_pred: Any) -> np.ndarray:
    return _values("mean_squared_error", y_true, y_pred)


def _mae(y_true: Any, y_pred: Any) -> np.ndarray:
    return _values("mean_absolute_error", y_true, y_pred)


_ENGINE_FUNCTIONS.update(
    {
        accuracy: "accuracy",
        binary_accuracy: "binary_accuracy",
        categorical_accuracy: "categorical_accuracy",
        sparse_categorical_accuracy: "sparse_categorical_accuracy",
        top_k_categorical_accuracy: "top_k_categorical_accuracy",
        _mse: "mean_squared_error",
        _mae: "mean_absolute_error",
    }
)


def _wrapped(
    fn: Callable,
    class_name: str,
    default_name: str,
    doc: str,
    direction: str = "up",
    **defaults: Any,
) -> type:
    def __init__(self: Any, name: str = default_name, dtype: Any = None, **kwargs: Any) -> None:
        options = dict(defaults)
        for key, value in kwargs.items():
            if key not in defaults:
                raise TypeError(f"{class_name} got an unexpected keyword argument {key!r}")
            options[key] = value
        if "threshold" in options:
            options["threshold"] = check_number(class_name, "threshold", options["threshold"])
        if "k" in options:
            options["k"] = check_number(class_name, "k", options["k"], low=1, integer=True)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **options)
        for key, value in options.items():
            setattr(self, key, value)

    # `_direction`: whether larger is better, for callbacks monitoring it (mode="auto").
    attributes = {"__init__": __init__, "__doc__": doc, "_direction": direction}
    cls = type(class_name, (MeanMetricWrapper,), attributes)
    cls.__qualname__ = class_name
    return cls


Accuracy = _wrapped(
    accuracy,
    "Accuracy",
    "accuracy",
    """How often predictions equal labels.

    >>> m = Accuracy(); m.update_state([1, 2, 3], [1, 2, 0]); round(float(m.result()), 4)
    0.6667
    """,
)
BinaryAccuracy = _wrapped(
    binary_accuracy,
    "BinaryAccuracy",
    "binary_accuracy",
    """How often `y_pred > threshold` matches the binary labels.

    >>> m = BinaryAccuracy(); m.update_state([1, 0], [0.8, 0.6]); float(m.result())
    0.5
    """,
    threshold=0.5,
)
CategoricalAccuracy = _wrapped(
    categorical_accuracy,
    "CategoricalAccuracy",
    "categorical_accuracy",
    """How often the argmax matches the one-hot label.

    >>> m = CategoricalAccuracy(); m.update_state([[0, 1]], [[0.1, 0.9]]); float(m.result())
    1.0
    """,
)
SparseCategoricalAccuracy = _wrapped(
    sparse_categorical_accuracy,
    "SparseCategoricalAccuracy",
    "sparse_categorical_accuracy",
    """How often the argmax matches the integer label.

    >>> m = SparseCategoricalAccuracy(); m.update_state([1], [[0.1, 0.9]]); float(m.result())
    1.0
    """,
)
TopKCategoricalAccuracy = _wrapped(
    top_k_categorical_accuracy,
    "TopKCategoricalAccuracy",
    "top_k_categorical_accuracy",
    """How often the true class is among the `k` (5) highest scores.

    >>> m = TopKCategoricalAccuracy(k=1); m.update_state([[0, 1]], [[0.1, 0.9]]); float(m.result())
    1.0
    """,
    k=5,
)
MeanSquaredError = _wrapped(
    _mse,
    "MeanSquaredError",
    "mean_squared_error",
    """The mean of squared errors over every sample seen.

    >>> m = MeanSquaredError(); m.update_state([[0.0, 1.0]], [[1.0, 1.0]]); float(m.result())
    0.5
    """,
    direction="down",
)
MeanAbsoluteError = _wrapped(
    _mae,
    "MeanAbsoluteError",
    "mean_absolute_error",
    """The mean of absolute errors over every sample seen.

    >>> m = MeanAbsoluteError(); m.update_state([[0.0, 1.0]], [[1.0, 3.0]]); float(m.result())
    1.5
    """,
    direction="down",
)


class RootMeanSquaredError(Mean):
    """The square root of the (weighted) mean of squared errors over every element seen
    (Keras 3's `RootMeanSquaredError`).

    >>> m = RootMeanSquaredError(); m.update_state([[0.0, 1.0]], [[3.0, 5.0]]); float(m.result())
    3.535533905029297
    """

    _direction = "down"

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(  # type: ignore[override]  # Keras's signature
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> None:
        """Adds the squared errors of a batch."""
        from .losses import _pair, squeeze_or_expand_to_same_rank

        y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
        super().update_state(_rt.square(_rt.subtract(y_pred, y_true)), sample_weight)

    def result(self) -> Any:
        """The root of the mean so far."""
        return _rt.sqrt(super().result())


class AUC(_StateMetric):
    """Area under the ROC (or PR) curve, from confusion counts at `num_thresholds` thresholds.

    `summation_method` is `"interpolation"` (PR: Davis & Goadrich's interpolation),
    `"minoring"` or `"majoring"`, as in Keras. With `multi_label=True` (a rank-2 `y_pred`,
    one column per label) counts are kept per label and the result is the mean of the labels'
    areas, weighted by `label_weights` when given; otherwise the labels are flattened into one
    curve (each weighted by `label_weights`).

    >>> m = AUC(); m.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]); round(float(m.result()), 4)
    0.75
    >>> m = AUC(multi_label=True, label_weights=[1.0, 0.0])
    >>> m.update_state([[0, 1], [1, 0]], [[0.2, 0.3], [0.9, 0.8]]); float(m.result())
    1.0
    """

    _direction = "up"  # larger is better (callbacks monitoring it, mode="auto")

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: list[float] | None = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        super().__init__(name=name if name is not None else "auc", dtype=dtype)
        # The accumulators hold num_thresholds x num_labels values: both are bounded so that
        # they stay a size a machine has (a clear error rather than an aborted allocation).
        num_thresholds = check_number(
            "AUC", "num_thresholds", num_thresholds, low=2, high=_MAX_THRESHOLDS, integer=True
        )
        num_labels = check_number(
            "AUC", "num_labels", num_labels, low=1, high=_MAX_THRESHOLDS, integer=True, none_ok=True
        )
        if thresholds is not None:
            if isinstance(thresholds, (int, float)):
                thresholds = [thresholds]
            thresholds = [check_number("AUC", "thresholds", t) for t in thresholds]
            if len(thresholds) + 2 > _MAX_THRESHOLDS:
                raise ValueError(f"AUC: at most {_MAX_THRESHOLDS - 2} `thresholds`")
        if num_labels is not None and max(num_thresholds, len(thresholds or [])) * num_labels > (
            _MAX_THRESHOLDS * 16
        ):
            raise ValueError(
                f"AUC: num_thresholds x num_labels must be at most {_MAX_THRESHOLDS * 16}, got "
                f"{num_thresholds} x {num_labels}"
            )
        self._state = _rt.MetricState.auc(
            num_thresholds,
            curve,
            summation_method,
            thresholds,
            bool(multi_label),
            num_labels,
            label_weights,
            bool(from_logits),
        )
        self._init_from_thresholds = thresholds is not None
        self.num_thresholds = len(self._state.thresholds())
        self.curve = curve.upper()
        self.summation_method = summation_method.lower()
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        self.label_weights = (
            None if label_weights is None else np.asarray(_array(label_weights), np.float32)
        )
        self._from_logits = bool(from_logits)

    @property
    def thresholds(self) -> list[float]:
        """The thresholds, the outer two just beyond 0 and 1.

        >>> AUC(num_thresholds=3).thresholds
        [-1e-07, 0.5, 1.0000001]
        """
        return list(self._state.thresholds())

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds one batch's confusion counts (weights broadcast to `y_pred` as Keras does)."""
        self._state.update(y_true, y_pred, sample_weight)

    @property
    def true_positives(self) -> np.ndarray:
        """Float32 counts per threshold (and label, with `multi_label`).

        >>> m = AUC(num_thresholds=3); m.update_state([1], [0.7]); m.true_positives.tolist()
        [1.0, 1.0, 0.0]
        """
        return self._variable("true_positives")

    @property
    def false_positives(self) -> np.ndarray:
        """Float32 counts per threshold (and label).

        >>> m = AUC(num_thresholds=3); m.update_state([0], [0.7]); m.false_positives.tolist()
        [1.0, 1.0, 0.0]
        """
        return self._variable("false_positives")

    @property
    def true_negatives(self) -> np.ndarray:
        """Float32 counts per threshold (and label).

        >>> m = AUC(num_thresholds=3); m.update_state([0], [0.7]); m.true_negatives.tolist()
        [0.0, 0.0, 1.0]
        """
        return self._variable("true_negatives")

    @property
    def false_negatives(self) -> np.ndarray:
        """Float32 counts per threshold (and label).

        >>> m = AUC(num_thresholds=3); m.update_state([1], [0.7]); m.false_negatives.tolist()
        [0.0, 0.0, 1.0]
        """
        return self._variable("false_negatives")

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments (Keras's)."""
        config: dict[str, Any] = {
            "name": self.name,
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None if self.label_weights is None else self.label_weights.tolist(),
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config


# Keras 3's metrics that are a loss's or a correlation's mean (metrics_more.py builds them on
# `_wrapped` above).
from .metrics_more import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    ConcordanceCorrelation,
    CosineSimilarity,
    Hinge,
    KLDivergence,
    LogCoshError,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    PearsonCorrelation,
    Poisson,
    R2Score,
    SparseCategoricalCrossentropy,
    SparseTopKCategoricalAccuracy,
    SquaredHinge,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    concordance_correlation,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    pearson_correlation,
    poisson,
    sparse_categorical_crossentropy,
    sparse_top_k_categorical_accuracy,
    squared_hinge,
)

_BY_NAME: dict[str, Any] = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "mse": MeanSquaredError,
    "mae": MeanAbsoluteError,
    "root_mean_squared_error": RootMeanSquaredError,
    "mean_absolute_error": MeanAbsoluteError,
    "mean_squared_error": MeanSquaredError,
    "auc": AUC,
    "precision": Precision,
    "recall": Recall,
    "mean": Mean,
    "sum": Sum,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "categorical_hinge": CategoricalHinge,
    "kl_divergence": KLDivergence,
    "kld": KLDivergence,
    "poisson": Poisson,
    "logcosh": LogCoshError,
    "log_cosh": LogCoshError,
    "mape": MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "cosine_similarity": CosineSimilarity,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "r2_score": R2Score,
    "pearson_correlation": PearsonCorrelation,
    "concordance_correlation": ConcordanceCorrelation,
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


def serialize(metric: Any) -> Any:
    """A metric's config as JSON-able data (`{"class_name": ..., "config": ...}`).

    >>> serialize(Mean(name="m"))["class_name"]
    'Mean'
    """
    from .saving import serialize_keras_object

    return serialize_keras_object(metric)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The metric `serialize`'s data (or a Keras name) describes.

    >>> type(deserialize("auc")).__name__
    'AUC'
    """
    if isinstance(config, str):
        return get(config)
    from .saving import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects)
