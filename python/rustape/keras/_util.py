"""Names and dtypes shared by the Keras-style modules."""

from __future__ import annotations

import math
import operator
import re
from typing import Any

from .. import _rustape as _rt

_name_counts: dict[str, int] = {}


def _unique_name(base: str) -> str:
    n = _name_counts.get(base, 0)
    _name_counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _snake(name: str) -> str:
    """Keras's default names: `Conv2D` -> "conv2d", `MaxPooling2D` -> "max_pooling2d"."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", re.sub(r"\W+", "", name))
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _as_dtype(dtype: Any) -> Any:
    if dtype is None:
        return _rt.float32
    if isinstance(dtype, str):
        try:
            return getattr(_rt, dtype)
        except AttributeError:
            raise TypeError(f"unknown dtype {dtype!r}") from None
    return dtype


_FLOAT32_MAX = 3.4028234663852886e38
_INT64_MAX = 2**63 - 1


def _shown(value: Any) -> str:
    """`repr(value)`, shortened for numbers of hundreds of digits."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:12]}...{text[-4:]} ({len(text)} characters)"


def check_number(
    owner: str,
    argument: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    integer: bool = False,
    none_ok: bool = False,
) -> Any:
    """`value` as a finite float (an int with `integer=True`) within `[low, high]` (`(low, high]`
    with `low_open`), or a TypeError / ValueError naming `owner` and `argument`: never an
    OverflowError, NaN or infinity. A float must also be finite in float32 (where the engine
    keeps hyperparameters) and an int must fit in int64.

    >>> check_number("SGD", "momentum", 0.5, low=0.0, high=1.0)
    0.5
    >>> check_number("Dense", "units", 2**70, low=1, integer=True)
    Traceback (most recent call last):
    ...
    ValueError: Dense: `units` must be an integer in [1, 9223372036854775807], got 1180591620717411303424
    """
    if value is None and none_ok:
        return None
    if integer:
        if isinstance(value, bool):
            raise TypeError(f"{owner}: `{argument}` must be an integer, got {_shown(value)}")
        if isinstance(value, float):
            # A whole float (2.0) is taken, as Keras's `int(...)` does; 1.5, NaN and inf are not.
            if not value.is_integer():
                raise ValueError(f"{owner}: `{argument}` must be an integer, got {_shown(value)}")
            value = int(value)
        try:
            number: Any = operator.index(value)
        except TypeError:
            raise TypeError(
                f"{owner}: `{argument}` must be an integer, got {_shown(value)}"
            ) from None
        lo = -_INT64_MAX - 1 if low is None else low
        hi = _INT64_MAX if high is None else high
        if not (lo < number if low_open else lo <= number) or number > hi:
            left = "(" if low_open else "["
            raise ValueError(
                f"{owner}: `{argument}` must be an integer in {left}{lo}, {hi}], got {_shown(number)}"
            )
        return number
    if isinstance(value, (bool, str, bytes)) or value is None:
        raise TypeError(f"{owner}: `{argument}` must be a number, got {_shown(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(
            f"{owner}: `{argument}` must be a finite number, got {_shown(value)} (too large)"
        ) from None
    except (TypeError, ValueError):
        raise TypeError(f"{owner}: `{argument}` must be a number, got {_shown(value)}") from None
    if not math.isfinite(number) or abs(number) > _FLOAT32_MAX:
        raise ValueError(
            f"{owner}: `{argument}` must be a finite number (within float32's range), got {_shown(value)}"
        )
    if (low is not None and (number <= low if low_open else number < low)) or (
        high is not None and number > high
    ):
        left = "(" if low_open else "["
        bounds = f"{left}{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValueError(f"{owner}: `{argument}` must be in {bounds}, got {_shown(value)}")
    return number


def from_config_dict(
    kind: str, config: Any, by_name: dict[str, Any], custom_objects: dict[str, Any] | None
) -> Any:
    """The object a `{"class_name": ..., "config": ...}` dict describes, its class found in
    `by_name` or `custom_objects` (Keras's `deserialize` for regularizers and constraints).

    >>> from_config_dict("thing", {"class_name": "C", "config": {}}, {"C": dict}, None)
    {}
    """
    known = dict(by_name)
    known.update(custom_objects or {})
    name = config.get("class_name") if isinstance(config, dict) else None
    if name not in known:
        raise ValueError(f"Could not interpret {kind} config: {config!r}")
    cls = known[name]
    options = dict(config.get("config") or {})
    return cls.from_config(options) if hasattr(cls, "from_config") else cls(**options)


def object_from(kind: str, identifier: Any, by_name: dict[str, Any], deserialize: Any) -> Any:
    """Keras's `get` for regularizers and constraints: None stays None; a name from `by_name`
    or a class is made with its defaults; a config dict goes to `deserialize`; a callable is
    kept.

    >>> object_from("thing", "list", {"list": list}, None)
    []
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    obj: Any = by_name.get(identifier) if isinstance(identifier, str) else identifier
    if isinstance(obj, type):
        return obj()
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret {kind} identifier: {identifier!r}")
