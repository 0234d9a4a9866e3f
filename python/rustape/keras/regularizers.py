"""`rt.keras.regularizers`: weight and activity penalties with Keras 3's names and defaults.

A regularizer is called on a tensor and returns a scalar penalty. Given to a layer
(`kernel_regularizer=`, `bias_regularizer=`, `activity_regularizer=`, ...), its penalty joins
the layer's `losses`, which `Model.fit` adds to the loss (a custom loop adds
`sum(model.losses)` itself).

>>> import rustape as rt
>>> layer = rt.keras.layers.Dense(2, kernel_initializer="ones", kernel_regularizer="l2")
>>> _ = layer(rt.ones([1, 3]))
>>> [round(float(p), 4) for p in layer.losses]  # 0.01 * (6 ones squared)
[0.06]
"""

from __future__ import annotations

import math
from typing import Any, Callable

from .. import _rustape as _rt
from .._ops import rsqrt
from ._util import from_config_dict, object_from

__all__ = [
    "L1",
    "L1L2",
    "L2",
    "OrthogonalRegularizer",
    "Regularizer",
    "deserialize",
    "get",
    "l1",
    "l1_l2",
    "l2",
    "orthogonal_regularizer",
    "serialize",
]

#: Keras's `backend.epsilon()`: the smallest norm `OrthogonalRegularizer` divides by.
_EPSILON = 1e-7


def _penalty_factor(value: Any, name: str) -> float:
    """A non-negative finite float, or Keras's ValueError."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (float, int))
        or math.isinf(value)
        or math.isnan(value)
        or value < 0
    ):
        raise ValueError(
            f"Invalid value for argument {name}: expected a non-negative float. "
            f"Received: {name}={value!r}"
        )
    return float(value)


def _as_tensor(x: Any) -> Any:
    return x if isinstance(x, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(x)


class Regularizer:
    """Base class: `regularizer(x)` returns a scalar penalty (0 here).

    >>> import rustape as rt
    >>> class Sum(rt.keras.regularizers.Regularizer):
    ...     def __call__(self, x):
    ...         return rt.reduce_sum(x)
    >>> float(Sum()(rt.constant([1.0, 2.0])))
    3.0
    """

    def __call__(self, x: Any) -> Any:
        return _rt.constant(0.0)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments (subclasses with arguments override it)."""
        raise NotImplementedError(f"{self} does not implement get_config()")

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        """A regularizer from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        try:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        except NotImplementedError:
            args = ""
        return f"{type(self).__name__}({args})"


class L1L2(Regularizer):
    """`l1 * reduce_sum(abs(x)) + l2 * reduce_sum(square(x))` (each term only when its factor
    is not 0).

    >>> import rustape as rt
    >>> float(rt.keras.regularizers.L1L2(l1=0.5, l2=0.25)(rt.constant([1.0, -2.0])))
    2.75
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _penalty_factor(0.0 if l1 is None else l1, "l1")
        self.l2 = _penalty_factor(0.0 if l2 is None else l2, "l2")

    def __call__(self, x: Any) -> Any:
        x = _as_tensor(x)
        penalty = _rt.zeros([], dtype=x.dtype)
        if self.l1 != 0.0:
            penalty = penalty + _rt.cast(self.l1, x.dtype) * _rt.reduce_sum(_rt.abs(x))
        if self.l2 != 0.0:
            penalty = penalty + _rt.cast(self.l2, x.dtype) * _rt.reduce_sum(_rt.square(x))
        return penalty

    def get_config(self) -> dict[str, Any]:
        """`{"l1": ..., "l2": ...}`."""
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """`l1 * reduce_sum(abs(x))`.

    >>> import rustape as rt
    >>> float(rt.keras.regularizers.L1(0.5)(rt.constant([1.0, -2.0])))
    1.5
    """

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = _penalty_factor(0.01 if l1 is None else l1, "l1")

    def __call__(self, x: Any) -> Any:
        x = _as_tensor(x)
        return _rt.cast(self.l1, x.dtype) * _rt.reduce_sum(_rt.abs(x))

    def get_config(self) -> dict[str, Any]:
        """`{"l1": ...}`."""
        return {"l1": self.l1}


class L2(Regularizer):
    """`l2 * reduce_sum(square(x))`.

    >>> import rustape as rt
    >>> float(rt.keras.regularizers.L2(0.5)(rt.constant([1.0, -2.0])))
    2.5
    """

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _penalty_factor(0.01 if l2 is None else l2, "l2")

    def __call__(self, x: Any) -> Any:
        x = _as_tensor(x)
        return _rt.cast(self.l2, x.dtype) * _rt.reduce_sum(_rt.square(x))

    def get_config(self) -> dict[str, Any]:
        """`{"l2": ...}`."""
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (`mode="rows"`) or columns of a rank-2 tensor towards orthogonality:
    `factor * 0.5 * sum(|dot products of the L2-normalised rows, off the diagonal|) / pairs`.

    >>> import rustape as rt
    >>> reg = rt.keras.regularizers.OrthogonalRegularizer(factor=1.0)
    >>> round(float(reg(rt.eye(2))), 6), round(float(reg(rt.ones([2, 2]))), 6)
    (0.0, 1.0)
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = _penalty_factor(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(
                'Invalid value for argument `mode`. Expected one of {"rows", "columns"}. '
                f"Received: mode={mode!r}"
            )
        self.mode = mode

    def __call__(self, x: Any) -> Any:
        x = _as_tensor(x)
        if len(x.shape) != 2:
            raise ValueError(
                "Inputs to OrthogonalRegularizer must have rank 2. Received: "
                f"inputs.shape={tuple(x.shape)}"
            )
        axis = 1 if self.mode == "rows" else 0
        # Keras's normalize: x * min(rsqrt(sum of squares), 1 / epsilon).
        inv_norm = _rt.minimum(
            rsqrt(_rt.reduce_sum(_rt.square(x), axis=axis, keepdims=True)),
            _rt.cast(1.0 / _EPSILON, x.dtype),
        )
        unit = x * inv_norm
        if self.mode == "rows":
            product = _rt.matmul(unit, unit, transpose_b=True)
        else:
            product = _rt.matmul(unit, unit, transpose_a=True)
        size = int(product.shape[0])
        off_diagonal = product * (1.0 - _rt.eye(size, dtype=x.dtype))
        pairs = size * (size - 1.0) / 2.0
        total = _rt.reduce_sum(_rt.abs(off_diagonal))
        return _rt.cast(self.factor * 0.5, x.dtype) * total / _rt.cast(pairs, x.dtype)

    def get_config(self) -> dict[str, Any]:
        """`{"factor": ..., "mode": ...}`."""
        return {"factor": self.factor, "mode": self.mode}


# Keras's lower-case aliases name the same classes.
l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer

_BY_NAME: dict[str, type[Regularizer]] = {
    "Regularizer": Regularizer,
    "L1": L1,
    "L2": L2,
    "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "regularizer": Regularizer,
    "l1": L1,
    "l2": L2,
    "l1l2": L1L2,
    "l1_l2": L1L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}


def serialize(regularizer: Regularizer) -> dict[str, Any]:
    """`{"class_name": ..., "config": ...}` for a built-in regularizer.

    >>> import rustape as rt
    >>> rt.keras.regularizers.serialize(rt.keras.regularizers.L2(0.5))
    {'class_name': 'L2', 'config': {'l2': 0.5}}
    """
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
    """The regularizer `serialize` described (classes in `custom_objects` too).

    >>> import rustape as rt
    >>> rt.keras.regularizers.deserialize({"class_name": "L1", "config": {"l1": 0.5}})
    L1(l1=0.5)
    """
    return from_config_dict("regularizer", config, _BY_NAME, custom_objects)


def get(identifier: Any) -> Callable[[Any], Any] | None:
    """A regularizer from a name (`"l1"`, `"l2"`, `"l1l2"`, `"L2"`, ... with the class's
    defaults), a `serialize` dict, a class or a callable; None stays None.

    >>> import rustape as rt
    >>> rt.keras.regularizers.get("l2")
    L2(l2=0.01)
    """
    return object_from("regularizer", identifier, _BY_NAME, deserialize)
