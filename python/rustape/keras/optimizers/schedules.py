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
from .._util import check_number

__all__ = [
    "CosineDecay",
    "CosineDecayRestarts",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "PolynomialDecay",
    "deserialize",
    "serialize",
]


def _step(owner: str, step: Any) -> int:
    """The optimizer step as an int64 (ValueError / TypeError naming `owner` otherwise)."""
    if isinstance(step, (_rt.Tensor, _rt.Variable)):
        step = step.numpy()
    if isinstance(step, int) and not isinstance(step, bool):
        return check_number(owner, "step", step, integer=True)
    value = np.asarray(step)
    if value.shape != () or value.dtype.kind not in "iuf":
        raise TypeError(f"{owner}: the step must be a scalar number, got {step!r}")
    item = value.item()
    if isinstance(item, float):
        check_number(owner, "step", item)
        if not item.is_integer():
            raise ValueError(f"{owner}: the step must be a whole number, got {step!r}")
        item = int(item)
    return check_number(owner, "step", item, integer=True)


def _decay_steps(owner: str, decay_steps: Any) -> float:
    """`decay_steps` as a positive finite float (Keras's ValueError for `<= 0`)."""
    value = check_number(owner, "decay_steps", decay_steps)
    if value <= 0:
        raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
    return value


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
        return _rt.constant(self._engine(_step(type(self).__name__, step)), dtype=_rt.float32)

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
        owner = type(self).__name__
        self._engine = _rt.Schedule.exponential(
            check_number(owner, "initial_learning_rate", initial_learning_rate),
            _decay_steps(owner, decay_steps),
            check_number(owner, "decay_rate", decay_rate),
            bool(staircase),
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
        owner = type(self).__name__
        self._engine = _rt.Schedule.piecewise(
            [_step(owner, b) for b in boundaries],
            [check_number(owner, "values", v) for v in values],
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
        owner = type(self).__name__
        self._engine = _rt.Schedule.inverse_time(
            check_number(owner, "initial_learning_rate", initial_learning_rate),
            _decay_steps(owner, decay_steps),
            check_number(owner, "decay_rate", decay_rate),
            bool(staircase),
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
        owner = type(self).__name__
        self._engine = _rt.Schedule.polynomial(
            check_number(owner, "initial_learning_rate", initial_learning_rate),
            _decay_steps(owner, decay_steps),
            check_number(owner, "end_learning_rate", end_learning_rate),
            check_number(owner, "power", power),
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
        owner = type(self).__name__
        self._engine = _rt.Schedule.cosine(
            check_number(owner, "initial_learning_rate", initial_learning_rate),
            _decay_steps(owner, decay_steps),
            check_number(owner, "alpha", alpha),
            check_number(owner, "warmup_target", warmup_target, none_ok=True),
            check_number(owner, "warmup_steps", warmup_steps, low=0.0),
        )


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): each period restarts from the rate times
    `m_mul` per restart and lasts `t_mul` times the one before; the first lasts
    `first_decay_steps` (Keras 3's `CosineDecayRestarts`).

    >>> s = CosineDecayRestarts(1.0, first_decay_steps=10)
    >>> [round(float(s(step)), 4) for step in (0, 5, 10, 20)]
    [1.0, 0.5, 1.0, 0.5]
    """

    def __init__(
        self,
        initial_learning_rate: float,
        first_decay_steps: float,
        t_mul: float = 2.0,
        m_mul: float = 1.0,
        alpha: float = 0.0,
        name: str = "SGDRDecay",
    ) -> None:
        self._config = {
            "initial_learning_rate": initial_learning_rate,
            "first_decay_steps": first_decay_steps,
            "t_mul": t_mul,
            "m_mul": m_mul,
            "alpha": alpha,
            "name": name,
        }
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.alpha = alpha
        self.name = name
        owner = type(self).__name__
        self._engine = _rt.Schedule.cosine_restarts(
            check_number(owner, "initial_learning_rate", initial_learning_rate),
            check_number(owner, "first_decay_steps", first_decay_steps),
            check_number(owner, "t_mul", t_mul),
            check_number(owner, "m_mul", m_mul),
            check_number(owner, "alpha", alpha),
        )


def serialize(schedule: LearningRateSchedule) -> dict[str, Any]:
    """A schedule's config as JSON-able data (`{"class_name": ..., "config": ...}`).

    >>> serialize(CosineDecay(0.1, 100))["class_name"]
    'CosineDecay'
    """
    from ..saving import serialize_keras_object

    return serialize_keras_object(schedule)  # type: ignore[no-any-return]


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
    """The schedule `serialize`'s data describes.

    >>> deserialize(serialize(ExponentialDecay(0.1, 10, 0.5)))
    ExponentialDecay(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5, staircase=False, name='ExponentialDecay')
    """
    from ..saving import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects)
