"""Confusion-count metrics (Keras 3's): `TruePositives`, `FalsePositives`, `TrueNegatives`,
`FalseNegatives`, `Precision` and `Recall`, counted at one or several thresholds
(`y_pred > threshold` is a positive), optionally over each row's `top_k` predictions or one
`class_id` column, weighted by `sample_weight`."""

from __future__ import annotations

from typing import Any

from .. import _rustape as _rt
from ._util import check_number
from .metrics_base import Metric

__all__ = [
    "FalseNegatives",
    "FalsePositives",
    "Precision",
    "Recall",
    "TrueNegatives",
    "TruePositives",
]

#: Keras's NEG_INF: where predictions outside the top k go, and the threshold below them.
_BELOW_ALL = -1e10


def _as_float(x: Any, dtype: Any) -> Any:
    t = x if isinstance(x, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(x)
    return _rt.cast(t, dtype)


def _same_rank(y_pred: Any, y_true: Any) -> tuple[Any, Any]:
    """Keras's `squeeze_or_expand_to_same_rank`: a trailing axis of 1 dropped or added."""
    rp, rt_ = len(y_pred.shape), len(y_true.shape)
    if rp == rt_ + 1 and y_pred.shape[-1] == 1:
        y_pred = _rt.squeeze(y_pred, [-1])
    elif rt_ == rp + 1 and y_true.shape[-1] == 1:
        y_true = _rt.squeeze(y_true, [-1])
    return y_pred, y_true


def _top_k_only(y_pred: Any, k: int) -> Any:
    """`y_pred` with all but each row's `k` largest predictions set far below any threshold."""
    _, index = _rt.top_k(y_pred, k=k)
    keep = _rt.reduce_sum(_rt.one_hot(index, int(y_pred.shape[-1]), dtype=y_pred.dtype), axis=-2)
    return _rt.where(_rt.cast(keep, _rt.bool), y_pred, _rt.cast(_BELOW_ALL, y_pred.dtype))


class _Confusion:
    """The counting shared by the metrics below (their state: one count per threshold)."""

    def _setup(
        self, owner: str, kinds: tuple[str, ...], thresholds: Any, top_k: Any, class_id: Any
    ) -> None:
        single = thresholds is None or isinstance(thresholds, (int, float))
        # Keras: with top_k, every kept prediction is a positive unless thresholds say otherwise.
        default = 0.5 if top_k is None else _BELOW_ALL
        values = [default] if thresholds is None else [thresholds] if single else list(thresholds)
        self.thresholds = [check_number(owner, "thresholds", t) for t in values]
        if not self.thresholds:
            raise ValueError(f"{owner}: `thresholds` must not be empty")
        self._single = single
        self.top_k = check_number(owner, "top_k", top_k, low=1, integer=True, none_ok=True)
        self.class_id = check_number(owner, "class_id", class_id, low=0, integer=True, none_ok=True)
        self._kinds = kinds
        self._reset_counts()

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds the batch's weighted counts at each threshold."""
        self._count(y_true, y_pred, sample_weight)

    def reset_state(self) -> None:
        """Sets the counts to 0."""
        self._reset_counts()

    def _reset_counts(self) -> None:
        n = len(self.thresholds)
        self._counts = {kind: _rt.zeros([n], dtype=_rt.float32) for kind in self._kinds}

    def _count(self, y_true: Any, y_pred: Any, sample_weight: Any) -> None:
        y_true = _as_float(y_true, _rt.float32)
        y_pred = _as_float(y_pred, _rt.float32)
        y_pred, y_true = _same_rank(y_pred, y_true)
        if tuple(y_true.shape) != tuple(y_pred.shape):
            y_true = _rt.broadcast_to(y_true, list(y_pred.shape))
        weights = None
        if sample_weight is not None:
            weights = _as_float(sample_weight, _rt.float32)
            while len(weights.shape) < len(y_pred.shape):
                weights = _rt.expand_dims(weights, -1)
            weights = _rt.broadcast_to(weights, list(y_pred.shape))
        if self.top_k is not None:
            y_pred = _top_k_only(y_pred, self.top_k)
        if self.class_id is not None:
            if len(y_pred.shape) < 2 or self.class_id >= int(y_pred.shape[-1]):
                raise ValueError(
                    f"{type(self).__name__}: class_id {self.class_id} needs y_pred of shape "
                    f"(samples, classes > {self.class_id}), got {tuple(y_pred.shape)}"
                )
            y_true, y_pred = y_true[..., self.class_id], y_pred[..., self.class_id]
            weights = None if weights is None else weights[..., self.class_id]
        pred = _rt.reshape(y_pred, [1, -1])
        label = _rt.cast(_rt.reshape(y_true, [1, -1]), _rt.bool)
        w = _rt.ones_like(pred) if weights is None else _rt.reshape(weights, [1, -1])
        thresholds = _rt.reshape(_rt.constant(self.thresholds, dtype=_rt.float32), [-1, 1])
        positive = _rt.greater(pred, thresholds)  # [thresholds, values]
        cases = {
            "tp": _rt.logical_and(label, positive),
            "fp": _rt.logical_and(_rt.logical_not(label), positive),
            "tn": _rt.logical_and(_rt.logical_not(label), _rt.logical_not(positive)),
            "fn": _rt.logical_and(label, _rt.logical_not(positive)),
        }
        zero = _rt.zeros([], dtype=_rt.float32)
        for kind in self._kinds:
            counted = _rt.reduce_sum(_rt.where(cases[kind], w, zero), axis=1)
            self._counts[kind] = _rt.add(self._counts[kind], counted)

    def _thresholds_given(self) -> Any:
        return self.thresholds[0] if self._single else list(self.thresholds)

    def _shaped(self, values: Any) -> Any:
        """A scalar for one threshold given as a number (or by default), else one value per
        threshold."""
        return _rt.reshape(values, []) if self._single else values


class _Count(_Confusion, Metric):
    _kind = "tp"

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        Metric.__init__(self, name=name, dtype=dtype)
        self._setup(type(self).__name__, (self._kind,), thresholds, None, None)

    def result(self) -> Any:
        """The count (one per threshold when several were given)."""
        return self._shaped(self._counts[self._kind])

    def get_config(self) -> dict[str, Any]:
        """`{"name", "thresholds"}`."""
        return {"name": self.name, "thresholds": self._thresholds_given()}


class TruePositives(_Count):
    """The weighted number of positives predicted positive (`y_pred > threshold`, 0.5 by
    default; one count per threshold when given several).

    >>> import rustape as rt
    >>> m = rt.keras.metrics.TruePositives()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1]); float(m.result())
    2.0
    """

    _kind = "tp"


class FalsePositives(_Count):
    """The weighted number of negatives predicted positive.

    >>> import rustape as rt
    >>> m = rt.keras.metrics.FalsePositives()
    >>> m.update_state([0, 1, 0, 0], [0, 0, 1, 1]); float(m.result())
    2.0
    """

    _kind = "fp"


class TrueNegatives(_Count):
    """The weighted number of negatives predicted negative.

    >>> import rustape as rt
    >>> m = rt.keras.metrics.TrueNegatives()
    >>> m.update_state([0, 1, 0, 0], [1, 1, 0, 0]); float(m.result())
    2.0
    """

    _kind = "tn"


class FalseNegatives(_Count):
    """The weighted number of positives predicted negative.

    >>> import rustape as rt
    >>> m = rt.keras.metrics.FalseNegatives()
    >>> m.update_state([0, 1, 1, 1], [0, 1, 0, 0]); float(m.result())
    2.0
    """

    _kind = "fn"


class _Ratio(_Confusion, Metric):
    _other = "fp"
    _direction = "up"  # larger is better (callbacks monitoring it, mode="auto")

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        Metric.__init__(self, name=name, dtype=dtype)
        self._setup(type(self).__name__, ("tp", self._other), thresholds, top_k, class_id)

    def result(self) -> Any:
        """`tp / (tp + other)` (0 where nothing was counted)."""
        tp = self._counts["tp"]
        return self._shaped(_rt.divide_no_nan(tp, tp + self._counts[self._other]))

    def get_config(self) -> dict[str, Any]:
        """`{"name", "thresholds", "top_k", "class_id"}`."""
        return {
            "name": self.name,
            "thresholds": self._thresholds_given(),
            "top_k": self.top_k,
            "class_id": self.class_id,
        }


class Precision(_Ratio):
    """The share of predicted positives (`y_pred > threshold`, 0.5 by default) that are
    positive: `tp / (tp + fp)`; over each row's `top_k` predictions or the `class_id` column
    when given.

    >>> import rustape as rt
    >>> m = rt.keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1]); round(float(m.result()), 4)
    0.6667
    """

    _other = "fp"


class Recall(_Ratio):
    """The share of positives predicted positive: `tp / (tp + fn)`.

    >>> import rustape as rt
    >>> m = rt.keras.metrics.Recall()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1]); round(float(m.result()), 4)
    0.6667
    """

    _other = "fn"
