"""Keras 3's metrics whose values are a loss's or a correlation's (re-exported by
`rt.keras.metrics`): the cross-entropies, hinges, KL divergence, Poisson, log-cosh, MAPE,
MSLE, cosine similarity, sparse top-k accuracy, Pearson and concordance correlations (each the
mean of Keras's per-sample function) and `R2Score` (running sums, as Keras keeps them).

>>> import rustape as rt
>>> m = rt.keras.metrics.BinaryCrossentropy()
>>> m.update_state([[0.0, 1.0]], [[0.2, 0.6]])
>>> round(float(m.result()), 4)
0.367
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import _rustape as _rt
from . import ops
from .losses import (
    EPSILON,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
    squeeze_or_expand_to_same_rank,
)
from .metrics import _wrapped
from .metrics_base import Metric

__all__ = [
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "CategoricalHinge",
    "ConcordanceCorrelation",
    "CosineSimilarity",
    "Hinge",
    "KLDivergence",
    "LogCoshError",
    "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError",
    "PearsonCorrelation",
    "Poisson",
    "R2Score",
    "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy",
    "SquaredHinge",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "concordance_correlation",
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
    "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy",
    "squared_hinge",
]


def _pair(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    y_pred = ops.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = ops.cast(y_pred, "float32")
    y_true = ops.cast(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def _cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """The cosine of the angle between `y_true` and `y_pred` along `axis` (Keras's metric:
    not negated, unlike the loss)."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_pred = ops.normalize(y_pred, axis=axis)
    y_true = ops.normalize(y_true, axis=axis)
    return ops.sum(y_true * y_pred, axis=axis)


def pearson_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Pearson's correlation of `y_true` and `y_pred` along `axis`.

    >>> import rustape as rt
    >>> round(float(rt.keras.metrics.pearson_correlation([1.0, 2.0, 3.0], [1.0, 2.5, 2.9])), 4)
    0.9484
    """
    y_true, y_pred = _pair(y_true, y_pred)
    true_centred = y_true - ops.mean(y_true, axis=axis, keepdims=True)
    pred_centred = y_pred - ops.mean(y_pred, axis=axis, keepdims=True)
    true_centred = true_centred / ops.std(true_centred, axis=axis, keepdims=True)
    pred_centred = pred_centred / ops.std(pred_centred, axis=axis, keepdims=True)
    return ops.mean(true_centred * pred_centred, axis=axis)


def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Lin's concordance correlation along `axis`, as Keras 3.15 computes it (its covariance
    term centres `y_true` on the mean of `y_pred`).

    >>> import rustape as rt
    >>> round(float(rt.keras.metrics.concordance_correlation([1.0, 2.0, 3.0], [1.0, 2.5, 2.9])), 4)
    0.936
    """
    y_true, y_pred = _pair(y_true, y_pred)
    true_mean = ops.mean(y_true, axis=axis, keepdims=True)
    pred_mean = ops.mean(y_pred, axis=axis, keepdims=True)
    true_var = ops.var(y_true - true_mean, axis=axis, keepdims=True)
    pred_var = ops.var(y_pred - pred_mean, axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + ops.square(true_mean - pred_mean)
    return ops.mean(2.0 * covariance / (norm + EPSILON), axis=axis)


def sparse_top_k_categorical_accuracy(
    y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False
) -> Any:
    """1.0 where the integer label is among the `k` highest scores (ties at the boundary count
    in, as `in_top_k`), else 0.0; with `from_sorted_ids`, `y_pred` holds class ids sorted by
    score and the label must be among the first `k`.

    >>> import rustape as rt
    >>> rt.keras.metrics.sparse_top_k_categorical_accuracy([2, 0], [[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]], k=2).numpy()
    array([0., 0.], dtype=float32)
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true, dtype=y_pred.dtype if from_sorted_ids else "int32")
    shape = tuple(y_true.shape)
    if len(y_pred.shape) > 2:
        y_pred = ops.reshape(y_pred, (-1, y_pred.shape[-1]))
    if len(shape) > 1:
        y_true = ops.reshape(y_true, (-1,))
    if from_sorted_ids:
        matches = ops.any(ops.equal(ops.expand_dims(y_true, 1), y_pred[:, :k]), axis=1)
    else:
        from .. import math as _math

        matches = _math.in_top_k(y_true, y_pred, k)
    matches = ops.cast(matches, "float32")
    return ops.reshape(matches, shape) if len(shape) > 1 else matches


def _metric(fn: Any, class_name: str, name: str, doc: str, direction: str, **defaults: Any) -> Any:
    cls = _wrapped(fn, class_name, name, doc, direction=direction, **defaults)
    cls.__module__ = __name__
    return cls


BinaryCrossentropy = _metric(
    binary_crossentropy,
    "BinaryCrossentropy",
    "binary_crossentropy",
    """The mean binary cross-entropy (`from_logits=False`, `label_smoothing=0`).

    >>> m = BinaryCrossentropy(); m.update_state([[0.0, 1.0]], [[0.2, 0.6]])
    >>> round(float(m.result()), 4)
    0.367
    """,
    "down",
    from_logits=False,
    label_smoothing=0.0,
)
CategoricalCrossentropy = _metric(
    categorical_crossentropy,
    "CategoricalCrossentropy",
    "categorical_crossentropy",
    """The mean categorical cross-entropy of one-hot labels (`from_logits=False`,
    `label_smoothing=0`, `axis=-1`).

    >>> m = CategoricalCrossentropy(); m.update_state([[0.0, 1.0]], [[0.2, 0.8]])
    >>> round(float(m.result()), 4)
    0.2231
    """,
    "down",
    from_logits=False,
    label_smoothing=0.0,
    axis=-1,
)
_SparseCrossentropyMean = _metric(
    sparse_categorical_crossentropy,
    "SparseCategoricalCrossentropy",
    "sparse_categorical_crossentropy",
    """The mean cross-entropy of integer labels (`from_logits=False`, `ignore_class=None`,
    `axis=-1`). With `ignore_class` and sample weights, the ignored labels weigh nothing (as
    in Keras; unweighted, they count as zeros).

    >>> m = SparseCategoricalCrossentropy(); m.update_state([1], [[0.2, 0.8]])
    >>> round(float(m.result()), 4)
    0.2231
    """,
    "down",
    from_logits=False,
    ignore_class=None,
    axis=-1,
)


class SparseCategoricalCrossentropy(_SparseCrossentropyMean):  # type: ignore[misc,valid-type]
    __doc__ = _SparseCrossentropyMean.__doc__

    def update_state(  # type: ignore[override]  # Keras's signature
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> None:
        """Adds one batch's cross-entropies, weighted by `sample_weight`."""
        if sample_weight is None or self._fn_kwargs.get("ignore_class") is None:
            super().update_state(y_true, y_pred, sample_weight)
            return
        values, valid = sparse_categorical_crossentropy(
            y_true, y_pred, _return_mask=True, **self._fn_kwargs
        )
        weight = ops.convert_to_tensor(sample_weight, dtype=values.dtype)
        weight = weight * ops.cast(valid, values.dtype)
        self._state.update(values.numpy(), None, weight.numpy())


Hinge = _metric(
    hinge,
    "Hinge",
    "hinge",
    """The mean hinge loss (labels -1/1 or 0/1).

    >>> m = Hinge(); m.update_state([[1.0, 0.0]], [[0.5, 0.5]]); float(m.result())
    1.0
    """,
    "down",
)
SquaredHinge = _metric(
    squared_hinge,
    "SquaredHinge",
    "squared_hinge",
    """The mean squared hinge loss.

    >>> m = SquaredHinge(); m.update_state([[1.0, 0.0]], [[0.5, 0.5]]); float(m.result())
    1.25
    """,
    "down",
)
CategoricalHinge = _metric(
    categorical_hinge,
    "CategoricalHinge",
    "categorical_hinge",
    """The mean categorical hinge loss of one-hot labels.

    >>> m = CategoricalHinge(); m.update_state([[0.0, 1.0]], [[0.3, 0.8]]); float(m.result())
    0.5
    """,
    "down",
)
KLDivergence = _metric(
    kl_divergence,
    "KLDivergence",
    "kl_divergence",
    """The mean Kullback-Leibler divergence from `y_true` to `y_pred`.

    >>> m = KLDivergence(); m.update_state([[0.5, 0.5]], [[0.25, 0.75]])
    >>> round(float(m.result()), 4)
    0.1438
    """,
    "down",
)
Poisson = _metric(
    poisson,
    "Poisson",
    "poisson",
    """The mean Poisson loss `y_pred - y_true * log(y_pred)`.

    >>> m = Poisson(); m.update_state([[1.0, 2.0]], [[1.0, 2.0]])
    >>> round(float(m.result()), 4)
    0.8069
    """,
    "down",
)
LogCoshError = _metric(
    log_cosh,
    "LogCoshError",
    "logcosh",
    """The mean of `log(cosh(y_pred - y_true))`.

    >>> m = LogCoshError(); m.update_state([[0.0, 0.0]], [[1.0, 0.0]])
    >>> round(float(m.result()), 4)
    0.2169
    """,
    "down",
)
MeanAbsolutePercentageError = _metric(
    mean_absolute_percentage_error,
    "MeanAbsolutePercentageError",
    "mean_absolute_percentage_error",
    """The mean absolute percentage error.

    >>> m = MeanAbsolutePercentageError(); m.update_state([[2.0, 4.0]], [[1.0, 4.0]])
    >>> float(m.result())
    25.0
    """,
    "down",
)
MeanSquaredLogarithmicError = _metric(
    mean_squared_logarithmic_error,
    "MeanSquaredLogarithmicError",
    "mean_squared_logarithmic_error",
    """The mean squared logarithmic error.

    >>> m = MeanSquaredLogarithmicError(); m.update_state([[1.0, 0.0]], [[3.0, 0.0]])
    >>> round(float(m.result()), 4)
    0.2402
    """,
    "down",
)
CosineSimilarity = _metric(
    _cosine_similarity,
    "CosineSimilarity",
    "cosine_similarity",
    """The mean cosine similarity of `y_true` and `y_pred` along `axis` (-1).

    >>> m = CosineSimilarity(); m.update_state([[1.0, 0.0]], [[1.0, 1.0]])
    >>> round(float(m.result()), 4)
    0.7071
    """,
    "up",
    axis=-1,
)
SparseTopKCategoricalAccuracy = _metric(
    sparse_top_k_categorical_accuracy,
    "SparseTopKCategoricalAccuracy",
    "sparse_top_k_categorical_accuracy",
    """How often the integer label is among the `k` (5) highest scores (`from_sorted_ids`:
    `y_pred` holds class ids sorted by score).

    >>> m = SparseTopKCategoricalAccuracy(k=1); m.update_state([1, 0], [[0.1, 0.9], [0.2, 0.8]])
    >>> float(m.result())
    0.5
    """,
    "up",
    k=5,
    from_sorted_ids=False,
)
PearsonCorrelation = _metric(
    pearson_correlation,
    "PearsonCorrelation",
    "pearson_correlation",
    """The mean of the per-sample Pearson correlations along `axis` (-1).

    >>> m = PearsonCorrelation(); m.update_state([[1.0, 2.0, 3.0]], [[1.0, 2.5, 2.9]])
    >>> round(float(m.result()), 4)
    0.9484
    """,
    "up",
    axis=-1,
)
ConcordanceCorrelation = _metric(
    concordance_correlation,
    "ConcordanceCorrelation",
    "concordance_correlation",
    """The mean of the per-sample concordance correlations along `axis` (-1).

    >>> m = ConcordanceCorrelation(); m.update_state([[1.0, 2.0, 3.0]], [[1.0, 2.5, 2.9]])
    >>> round(float(m.result()), 4)
    0.936
    """,
    "up",
    axis=-1,
)


class R2Score(Metric):
    """The coefficient of determination `1 - SS_res / SS_tot` per output column, from running
    (weighted) sums over every batch seen; `class_aggregation` is `"uniform_average"`,
    `"variance_weighted_average"` or None (one score per column); `num_regressors` > 0 gives
    the adjusted score (Keras 3's `R2Score`).

    >>> m = R2Score()
    >>> m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    >>> round(float(m.result()), 4)
    0.5714
    """

    _direction = "up"

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str = "r2_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        allowed = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in allowed:
            raise ValueError(
                "Invalid value for argument `class_aggregation`. Expected one of "
                f"{allowed}. Received: class_aggregation={class_aggregation}"
            )
        if not isinstance(num_regressors, int) or num_regressors < 0:
            raise ValueError(
                "Invalid value for argument `num_regressors`. Expected a value >= 0. "
                f"Received: num_regressors={num_regressors}"
            )
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self._sums: dict[str, Any] | None = None
        self._num_samples = 0

    def update_state(  # type: ignore[override]  # Keras's signature
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> None:
        """Adds one batch `[batch, outputs]` to the running sums."""
        dtype = self.dtype.name
        y_true = ops.convert_to_tensor(y_true, dtype=dtype)
        y_pred = ops.convert_to_tensor(y_pred, dtype=dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if len(y_true.shape) != 2 or len(y_pred.shape) != 2:
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim). Received "
                f"input shapes: y_pred.shape={tuple(y_pred.shape)} and "
                f"y_true.shape={tuple(y_true.shape)}."
            )
        weight = ops.convert_to_tensor(1.0 if sample_weight is None else sample_weight, dtype)
        if len(weight.shape) == 1:
            weight = ops.expand_dims(weight, 1)
        weight = ops.broadcast_to(weight, tuple(y_true.shape))
        weighted = y_true * weight
        batch = {
            "sum": ops.sum(weighted, axis=0),
            "squared_sum": ops.sum(y_true * weighted, axis=0),
            "residual": ops.sum(ops.square(y_true - y_pred) * weight, axis=0),
            "count": ops.sum(weight, axis=0),
        }
        if self._sums is None:
            self._sums = batch
        else:
            if tuple(self._sums["sum"].shape) != tuple(batch["sum"].shape):
                raise ValueError(
                    f"R2Score: a batch with {batch['sum'].shape[0]} outputs after batches "
                    f"with {self._sums['sum'].shape[0]}"
                )
            self._sums = {key: self._sums[key] + value for key, value in batch.items()}
        self._num_samples += int(y_true.shape[0]) * int(y_true.shape[1])

    def result(self) -> Any:
        """The score over every batch seen."""
        if self._sums is None:
            return _rt.constant(float("nan"), dtype=self.dtype)
        s = self._sums
        mean = s["sum"] / s["count"]
        total = s["squared_sum"] - s["sum"] * mean
        raw = 1.0 - s["residual"] / total
        raw = ops.where(ops.isinf(raw), ops.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = ops.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = ops.sum(total * raw) / ops.sum(total)
        else:
            return raw
        n, p = self._num_samples, self.num_regressors
        if p != 0:
            if p > n - 1:
                warnings.warn(
                    "More independent predictors than datapoints in adjusted R2 score. "
                    "Falling back to standard R2 score.",
                    stacklevel=2,
                )
            elif p == n - 1:
                warnings.warn(
                    "Division by zero in Adjusted R2 score. Falling back to standard R2 score.",
                    stacklevel=2,
                )
            else:
                score = 1.0 - (1.0 - score) * float(n - 1) / float(n - p - 1)
        return score

    def reset_state(self) -> None:
        """Forgets every batch."""
        self._sums = None
        self._num_samples = 0
