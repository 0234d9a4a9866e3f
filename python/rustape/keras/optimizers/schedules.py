"""`rt.keras.optimizers.schedules`: Keras 3's learning-rate schedules (computed in Rust, float32).

A schedule is called with the optimizer's step and returns the rate as a float32 scalar tensor;
pass one as an optimizer's `learning_rate`. Subclass `LearningRateSchedule` (define
`__call__(step)`) for a schedule of your own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _rustape as _rt

__all__ = [
    "CosineDecay",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "PolynomialDecay",
]


def _step(step: Any) -> int:
    return int(np.asarray(step))


class LearningRateSchedule:
    """Base class: `schedule(step)` gives the learning rate at optimizer step `step`.

    >>> class Halving(LearningRateSchedule):
    ...     def __call__(self, step):
    ...         return 1.0 / 2 ** int(step)
    >>> Halving()(3)
    0.125
    """

    _engine: Any = None
    _config: dict[str, Any] = {}  # noqa: RUF012 (replaced per instance, never mutated)

    def __call__(self, step: Any) -> Any:
        if self._engine is None:
            raise NotImplementedError(
                f"Learning rate schedule '{type(self).__name__}' must override `__call__(self, step)`."
            )
        return _rt.constant(self._engine(_step(step)), dtype=_rt.float32)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return dict(self._config)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LearningRateSchedule:
        """A schedule from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in getattr(self, "_config", {}).items())
        return f"{type(self).__name__}({args})"


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (floored exponent if `staircase`).

    >>> s = ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> round(float(s(10)), 6)
    0.05
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        self._config = {
            "initial_learning_rate": initial_learning_rate,
            "decay_steps": decay_steps,
            "decay_rate": decay_rate,
            "staircase": staircase,
            "name": name,
        }
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        self._engine = _rt.Schedule.exponential(
            float(initial_learning_rate), float(decay_steps), float(decay_rate), bool(staircase)
        )


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` while `step <= boundaries[0]`, then `values[i + 1]` once `step > boundaries[i]`.

    >>> s = PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    >>> [float(s(k)) for k in (10, 11, 21)]
    [1.0, 0.5, 0.10000000149011612]
    """

    def __init__(
        self, boundaries: Sequence[Any], values: Sequence[Any], name: str = "PiecewiseConstant"
    ) -> None:
        self._config = {"boundaries": list(boundaries), "values": list(values), "name": name}
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name
        self._engine = _rt.Schedule.piecewise(
            [int(b) for b in boundaries], [float(v) for v in values]
        )


class InverseTimeDecay(LearningRateSchedule):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)`.

    >>> round(float(InverseTimeDecay(0.1, 1, 1.0)(1)), 6)
    0.05
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        decay_rate: float,
        staircase: bool = False,
        name: str = "InverseTimeDecay",
    ) -> None:
        self._config = {
            "initial_learning_rate": initial_learning_rate,
            "decay_steps": decay_steps,
            "decay_rate": decay_rate,
            "staircase": staircase,
            "name": name,
        }
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        self._engine = _rt.Schedule.inverse_time(
            float(initial_learning_rate), float(decay_steps), float(decay_rate), bool(staircase)
        )


class PolynomialDecay(LearningRateSchedule):
    """`(initial - end) * (1 - step / decay_steps) ** power + end` (cyclic with `cycle=True`).

    >>> round(float(PolynomialDecay(1.0, 10, end_learning_rate=0.0)(5)), 6)
    0.5
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        self._config = {
            "initial_learning_rate": initial_learning_rate,
            "decay_steps": decay_steps,
            "end_learning_rate": end_learning_rate,
            "power": power,
            "cycle": cycle,
            "name": name,
        }
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        self._engine = _rt.Schedule.polynomial(
            float(initial_learning_rate),
            float(decay_steps),
            float(end_learning_rate),
            float(power),
            bool(cycle),
        )


class CosineDecay(LearningRateSchedule):
    """Cosine decay to `alpha` times the rate over `decay_steps`, after an optional linear warmup.

    >>> round(float(CosineDecay(1.0, decay_steps=10)(5)), 6)
    0.5
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: float,
        alpha: float = 0.0,
        name: str = "CosineDecay",
        warmup_target: float | None = None,
        warmup_steps: float = 0,
    ) -> None:
        self._config = {
            "initial_learning_rate": initial_learning_rate,
            "decay_steps": decay_steps,
            "alpha": alpha,
            "name": name,
            "warmup_target": warmup_target,
            "warmup_steps": warmup_steps,
        }
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps
        self._engine = _rt.Schedule.cosine(
            float(initial_learning_rate),
            float(decay_steps),
            float(alpha),
            None if warmup_target is None else float(warmup_target),
            float(warmup_steps),
        )
