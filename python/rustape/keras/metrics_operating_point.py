"""Keras 3's "rate at rate" metrics: `PrecisionAtRecall`, `RecallAtPrecision`,
`SensitivityAtSpecificity` and `SpecificityAtSensitivity`. Each keeps confusion counts at
`num_thresholds` evenly spaced thresholds in [0, 1] (in Rust, `rustape::metrics::AtOperatingPoint`)
and reports the best value of one rate among the thresholds where the other reaches a target."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _rustape as _rt
from ._util import check_number
from .metrics_base import Metric

__all__ = [
    "PrecisionAtRecall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
]

#: The most thresholds the counts hold (2^20 is finer than float32 probabilities).
_MAX_THRESHOLDS = 2**20


class _AtOperatingPoint(Metric):
    """The counting and bookkeeping shared by the four metrics."""

    _direction = "up"  # larger is better (callbacks monitoring it, mode="auto")
    _target = ""

    def __init__(
        self,
        target: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        owner = type(self).__name__
        target = check_number(owner, self._target, target)
        if not 0 <= target <= 1:
            raise ValueError(
                f"{owner}: Argument `{self._target}` must be in the range [0, 1]. Received: "
                f"{self._target}={target}"
            )
        num_thresholds = check_number(
            owner, "num_thresholds", num_thresholds, low=1, high=_MAX_THRESHOLDS, integer=True
        )
        class_id = check_number(owner, "class_id", class_id, low=0, integer=True, none_ok=True)
        super().__init__(name=name, dtype=dtype)
        setattr(self, self._target, target)
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        self._state = _rt.MetricState.at_operating_point(owner, target, num_thresholds, class_id)

    @property
    def thresholds(self) -> list[float]:
        """The thresholds: `[0, 1/(n-1), ..., 1]` (`[0.5]` for one).

        >>> PrecisionAtRecall(0.5, num_thresholds=3).thresholds
        [0.0, 0.5, 1.0]
        """
        return list(self._state.thresholds())

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds one batch's confusion counts (weights broadcast to `y_pred` as Keras does)."""
        self._state.update(y_true, y_pred, sample_weight)

    def result(self) -> Any:
        """The best rate where its pair reaches the target (0 where none does)."""
        return _rt.constant(self._state.result(), dtype=_rt.float32)

    def reset_state(self) -> None:
        """Sets every count to 0."""
        self._state.reset()

    def _counts(self, name: str) -> np.ndarray:
        return dict(self._state.variables())[name].numpy()

    @property
    def true_positives(self) -> np.ndarray:
        """Float32 counts per threshold.

        >>> m = RecallAtPrecision(0.5, num_thresholds=3)
        >>> m.update_state([1], [0.7]); m.true_positives.tolist()
        [1.0, 1.0, 0.0]
        """
        return self._counts("true_positives")

    @property
    def false_positives(self) -> np.ndarray:
        """Float32 counts per threshold.

        >>> m = RecallAtPrecision(0.5, num_thresholds=3)
        >>> m.update_state([0], [0.7]); m.false_positives.tolist()
        [1.0, 1.0, 0.0]
        """
        return self._counts("false_positives")

    @property
    def true_negatives(self) -> np.ndarray:
        """Float32 counts per threshold.

        >>> m = RecallAtPrecision(0.5, num_thresholds=3)
        >>> m.update_state([0], [0.7]); m.true_negatives.tolist()
        [0.0, 0.0, 1.0]
        """
        return self._counts("true_negatives")

    @property
    def false_negatives(self) -> np.ndarray:
        """Float32 counts per threshold.

        >>> m = RecallAtPrecision(0.5, num_thresholds=3)
        >>> m.update_state([1], [0.7]); m.false_negatives.tolist()
        [0.0, 0.0, 1.0]
        """
        return self._counts("false_negatives")

    @property
    def variables(self) -> list[np.ndarray]:
        """The counts in Keras's order: true/false positives, true/false negatives."""
        return [v.numpy() for _, v in self._state.variables()]

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {
            "name": self.name,
            "dtype": self.dtype.name,
            "class_id": self.class_id,
            "num_thresholds": self.num_thresholds,
            self._target: getattr(self, self._target),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """A metric from `get_config()`'s dict."""
        return cls(**config)


class PrecisionAtRecall(_AtOperatingPoint):
    """The best precision among the thresholds where recall is at least `recall`.

    >>> m = PrecisionAtRecall(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]); float(m.result())
    0.5
    """

    _target = "recall"

    def __init__(
        self,
        recall: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(recall, num_thresholds, class_id, name, dtype)


class RecallAtPrecision(_AtOperatingPoint):
    """The best recall among the thresholds where precision is at least `precision`.

    >>> m = RecallAtPrecision(0.8)
    >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]); float(m.result())
    0.5
    """

    _target = "precision"

    def __init__(
        self,
        precision: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(precision, num_thresholds, class_id, name, dtype)


class SensitivityAtSpecificity(_AtOperatingPoint):
    """The best sensitivity (recall) among the thresholds where specificity
    (`tn / (tn + fp)`) is at least `specificity`.

    >>> m = SensitivityAtSpecificity(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]); float(m.result())
    0.5
    """

    _target = "specificity"

    def __init__(
        self,
        specificity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(specificity, num_thresholds, class_id, name, dtype)


class SpecificityAtSensitivity(_AtOperatingPoint):
    """The best specificity among the thresholds where sensitivity (recall) is at least
    `sensitivity`.

    >>> m = SpecificityAtSensitivity(0.5)
    >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]); round(float(m.result()), 4)
    0.6667
    """

    _target = "sensitivity"

    def __init__(
        self,
        sensitivity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)
