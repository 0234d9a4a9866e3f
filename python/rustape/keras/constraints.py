"""`rt.keras.constraints`: projections applied to a weight after each optimizer update, with
Keras 3's names and defaults.

Given to a layer (`kernel_constraint=`, `bias_constraint=`, ...), a constraint is applied by
every `rt.keras.optimizers` optimizer right after it updates the weight, as Keras does.

>>> import rustape as rt
>>> layer = rt.keras.layers.Dense(1, kernel_initializer="ones", kernel_constraint="non_neg")
>>> _ = layer(rt.ones([1, 2]))
>>> opt = rt.keras.optimizers.SGD(learning_rate=2.0)
>>> _ = opt.apply_gradients([(rt.ones([2, 1]), layer.kernel)])
>>> layer.kernel.numpy().ravel().tolist()  # 1 - 2 = -1, projected to 0
[0.0, 0.0]
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from .. import _rustape as _rt
from ._util import from_config_dict, object_from

__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "deserialize",
    "get",
    "max_norm",
    "min_max_norm",
    "non_neg",
    "serialize",
    "unit_norm",
]

#: Keras's `backend.epsilon()`, added to the norms the constraints divide by.
_EPSILON = 1e-7


def _norms(w: Any, axis: Any) -> Any:
    axes = list(axis) if isinstance(axis, (list, tuple)) else axis
    return _rt.sqrt(_rt.reduce_sum(_rt.square(w), axis=axes, keepdims=True))


def _as_tensor(w: Any) -> Any:
    return w if isinstance(w, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(w)


class Constraint:
    """Base class: `constraint(w)` returns the projected weight (`w` itself here).

    >>> import rustape as rt
    >>> class Clip(rt.keras.constraints.Constraint):
    ...     def __call__(self, w):
    ...         return rt.clip_by_value(w, -1.0, 1.0)
    >>> Clip()(rt.constant([-3.0, 0.5])).numpy().tolist()
    [-1.0, 0.5]
    """

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Constraint:
        """A constraint from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class MaxNorm(Constraint):
    """Scales the weight vectors along `axis` whose L2 norm exceeds `max_value` down to it:
    `w * clip(norm, 0, max_value) / (epsilon + norm)`.

    >>> import rustape as rt
    >>> w = rt.keras.constraints.MaxNorm(1.0)(rt.constant([[3.0], [4.0]]))
    >>> [round(v, 5) for v in w.numpy().ravel().tolist()]
    [0.6, 0.8]
    """

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        w = _as_tensor(w)
        norms = _norms(w, self.axis)
        desired = _rt.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (_EPSILON + norms))

    def get_config(self) -> dict[str, Any]:
        """`{"max_value": ..., "axis": ...}`."""
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Negative entries become 0.

    >>> import rustape as rt
    >>> rt.keras.constraints.NonNeg()(rt.constant([-1.0, 2.0])).numpy().tolist()
    [0.0, 2.0]
    """

    def __call__(self, w: Any) -> Any:
        w = _as_tensor(w)
        return _rt.maximum(w, _rt.zeros([], dtype=w.dtype))


class UnitNorm(Constraint):
    """Each weight vector along `axis` divided by its L2 norm (plus epsilon).

    >>> import rustape as rt
    >>> w = rt.keras.constraints.UnitNorm()(rt.constant([[3.0], [4.0]]))
    >>> [round(v, 5) for v in w.numpy().ravel().tolist()]
    [0.6, 0.8]
    """

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        w = _as_tensor(w)
        return w / (_EPSILON + _norms(w, self.axis))

    def get_config(self) -> dict[str, Any]:
        """`{"axis": ...}`."""
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each weight vector's L2 norm along `axis` into `[min_value, max_value]` at
    `rate` (1: all the way): `w * (rate * clip(norm) + (1 - rate) * norm) / (epsilon + norm)`.

    >>> import rustape as rt
    >>> w = rt.keras.constraints.MinMaxNorm(2.0, 3.0)(rt.constant([[0.6], [0.8]]))
    >>> [round(v, 5) for v in w.numpy().ravel().tolist()]
    [1.2, 1.6]
    """

    def __init__(
        self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: Any = 0
    ) -> None:
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        w = _as_tensor(w)
        norms = _norms(w, self.axis)
        clipped = _rt.clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (_EPSILON + norms))

    def get_config(self) -> dict[str, Any]:
        """`{"min_value": ..., "max_value": ..., "rate": ..., "axis": ...}`."""
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


# Keras's lower-case aliases name the same classes.
max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm

_BY_NAME: dict[str, type[Constraint]] = {
    "Constraint": Constraint,
    "MaxNorm": MaxNorm,
    "NonNeg": NonNeg,
    "UnitNorm": UnitNorm,
    "MinMaxNorm": MinMaxNorm,
    "constraint": Constraint,
    "max_norm": MaxNorm,
    "non_neg": NonNeg,
    "unit_norm": UnitNorm,
    "min_max_norm": MinMaxNorm,
}


def serialize(constraint: Constraint) -> dict[str, Any]:
    """`{"class_name": ..., "config": ...}` for a built-in constraint.

    >>> import rustape as rt
    >>> rt.keras.constraints.serialize(rt.keras.constraints.MaxNorm(3))
    {'class_name': 'MaxNorm', 'config': {'max_value': 3, 'axis': 0}}
    """
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
    """The constraint `serialize` described (classes in `custom_objects` too).

    >>> import rustape as rt
    >>> rt.keras.constraints.deserialize({"class_name": "UnitNorm", "config": {"axis": 1}})
    UnitNorm(axis=1)
    """
    return from_config_dict("constraint", config, _BY_NAME, custom_objects)


def get(identifier: Any) -> Callable[[Any], Any] | None:
    """A constraint from a name (`"non_neg"`, `"MaxNorm"`, ... with the class's defaults), a
    `serialize` dict, a class or a callable; None stays None.

    >>> import rustape as rt
    >>> rt.keras.constraints.get("max_norm")
    MaxNorm(max_value=2, axis=0)
    """
    return object_from("constraint", identifier, _BY_NAME, deserialize)


#: Each constrained variable's constraint, by the variable's engine id (never reused); an
#: entry goes when its variable does. rt.Variable holds no Python attributes, so the
#: optimizers look constraints up here.
_BY_VARIABLE: dict[int, Callable[[Any], Any]] = {}


def attach(variable: Any, constraint: Callable[[Any], Any] | None) -> None:
    """Makes the `rt.keras.optimizers` apply `constraint` to `variable` after each update
    (None removes it); `add_weight(constraint=)` calls it.

    >>> import rustape as rt
    >>> v = rt.Variable([-1.0, 1.0])
    >>> rt.keras.constraints.attach(v, rt.keras.constraints.NonNeg())
    >>> rt.keras.constraints.constraint_of(v)
    NonNeg()
    """
    key = variable._id
    if constraint is None:
        _BY_VARIABLE.pop(key, None)
        return
    if not callable(constraint):
        raise TypeError(f"The `constraint` argument must be a callable, got {constraint!r}")
    if key not in _BY_VARIABLE:
        weakref.finalize(variable, _BY_VARIABLE.pop, key, None)
    _BY_VARIABLE[key] = constraint


def constraint_of(variable: Any) -> Callable[[Any], Any] | None:
    """The constraint `attach` gave `variable`, or None.

    >>> import rustape as rt
    >>> rt.keras.constraints.constraint_of(rt.Variable(1.0)) is None
    True
    """
    return _BY_VARIABLE.get(variable._id)
