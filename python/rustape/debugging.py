"""`rt.debugging`: TensorFlow's run-time checks (`tf.debugging`). Eagerly, every check runs
where it is called: a value check that fails raises `rt.errors.InvalidArgumentError` (a
`ValueError`) with TensorFlow's message and the first values; a shape, rank or dtype check
raises TensorFlow's `ValueError` or `TypeError`. A check that passes returns None (the
`Operation` TensorFlow returns in a graph).

>>> import rustape as rt
>>> rt.debugging.assert_less(rt.constant([1.0, 2.0]), 3.0) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _rustape as _rt
from .errors import InvalidArgumentError

__all__ = [
    "Assert",
    "assert_all_finite",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "check_numerics",
    "is_numeric_tensor",
]

#: How many values a failed check shows unless `summarize` says otherwise (TensorFlow's 3).
_SUMMARIZE = 3


def _values(x: Any, like: np.ndarray | None = None) -> np.ndarray:
    if isinstance(x, (_rt.Tensor, _rt.Variable)):
        return np.asarray(x.numpy())
    if like is not None:
        return np.asarray(x, dtype=like.dtype)
    return np.asarray(x)


def _shown(a: np.ndarray, summarize: int | None) -> str:
    n = _SUMMARIZE if summarize is None else int(summarize)
    flat = a.reshape(-1)
    text = " ".join(str(v) for v in flat[:n])
    return f"[{text}{' ...' if flat.size > n else ''}]"


def _compare(
    name: str, relation: str, test: Any, x: Any, y: Any, message: str | None, summarize: int | None
) -> None:
    a = _values(x)
    b = _values(y, a)
    try:
        ok = np.broadcast_to(test(a, b), np.broadcast_shapes(a.shape, b.shape))
    except ValueError:
        raise ValueError(
            f"{name}: x of shape {list(a.shape)} and y of shape {list(b.shape)} do not broadcast"
        ) from None
    if not ok.all():
        prefix = f"{message}\n" if message else ""
        raise InvalidArgumentError(
            None,
            None,
            f"{prefix}Condition x {relation} y did not hold.\n"
            f"First {_SUMMARIZE if summarize is None else summarize} elements of x:\n"
            f"{_shown(a, summarize)}\nFirst elements of y:\n{_shown(b, summarize)}",
        )


def assert_equal(
    x: Any,
    y: Any,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises `InvalidArgumentError` unless `x == y` everywhere (broadcast).

    >>> rt.debugging.assert_equal([1, 2], [1, 2]) is None
    True
    """
    _compare("assert_equal", "==", np.equal, x, y, message, summarize)


def assert_none_equal(
    x: Any,
    y: Any,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises `InvalidArgumentError` unless `x != y` everywhere.

    >>> rt.debugging.assert_none_equal([1, 2], [3, 4]) is None
    True
    """
    _compare("assert_none_equal", "!=", np.not_equal, x, y, message, summarize)


def assert_less(
    x: Any,
    y: Any,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises `InvalidArgumentError` unless `x < y` everywhere.

    >>> rt.debugging.assert_less([1, 2], 3) is None
    True
    """
    _compare("assert_less", "<", np.less, x, y, message, summarize)


def assert_less_equal(
    x: Any,
    y: Any,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises `InvalidArgumentError` unless `x <= y` everywhere.

    >>> rt.debugging.assert_less_equal([1, 3], 3) is None
    True
    """
    _compare("assert_less_equal", "<=", np.less_equal, x, y, message, summarize)


def assert_greater(
    x: Any,
    y: Any,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises `InvalidArgumentError` unless `x > y` everywhere.

    >>> rt.debugging.assert_greater([4, 5], 3) is None
    True
    """
    _compare("assert_greater", ">", np.greater, x, y, message, summarize)


def assert_greater_equal(
    x: Any,
    y: Any,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises `InvalidArgumentError` unless `x >= y` everywhere.

    >>> rt.debugging.assert_greater_equal([3, 5], 3) is None
    True
    """
    _compare("assert_greater_equal", ">=", np.greater_equal, x, y, message, summarize)


def assert_positive(
    x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> None:
    """Raises `InvalidArgumentError` unless `x > 0` everywhere.

    >>> rt.debugging.assert_positive([0.5]) is None
    True
    """
    _compare("assert_positive", ">", np.greater, x, 0, message, summarize)


def assert_negative(
    x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> None:
    """Raises `InvalidArgumentError` unless `x < 0` everywhere.

    >>> rt.debugging.assert_negative([-0.5]) is None
    True
    """
    _compare("assert_negative", "<", np.less, x, 0, message, summarize)


def assert_non_negative(
    x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> None:
    """Raises `InvalidArgumentError` unless `x >= 0` everywhere.

    >>> rt.debugging.assert_non_negative([0.0, 1.0]) is None
    True
    """
    _compare("assert_non_negative", ">=", np.greater_equal, x, 0, message, summarize)


def assert_non_positive(
    x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> None:
    """Raises `InvalidArgumentError` unless `x <= 0` everywhere.

    >>> rt.debugging.assert_non_positive([0.0, -1.0]) is None
    True
    """
    _compare("assert_non_positive", "<=", np.less_equal, x, 0, message, summarize)


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raises `InvalidArgumentError` unless `|x - y| <= atol + rtol * |y|` everywhere (both
    tolerances default to 10 machine epsilons of the dtype).

    >>> rt.debugging.assert_near(rt.constant([1.0]), rt.constant([1.0000001])) is None
    True
    """
    a = _values(x)
    b = _values(y, a)
    eps = float(np.finfo(a.dtype).eps) if a.dtype.kind in "fc" else 0.0
    r = 10 * eps if rtol is None else float(_values(rtol))
    t = 10 * eps if atol is None else float(_values(atol))
    _compare(
        "assert_near",
        "~=",
        lambda p, q: np.abs(p - q) <= t + r * np.abs(q),
        a,
        b,
        message,
        summarize,
    )


def assert_all_finite(
    t: Any, msg: str, name: str | None = None, x: Any = None, message: str | None = None
) -> Any:
    """`t` itself, or `InvalidArgumentError` naming `msg` if it holds an infinity or a NaN.

    >>> rt.debugging.assert_all_finite(rt.constant([1.0]), "bad").numpy()
    array([1.], dtype=float32)
    """
    return check_numerics(t if x is None else x, msg if message is None else message)


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Any:
    """`tensor` itself, or `InvalidArgumentError` ("... : Tensor had NaN values" / "Inf
    values") if it holds one.

    >>> rt.debugging.check_numerics(rt.constant([1.0, 2.0]), "ok").numpy()
    array([1., 2.], dtype=float32)
    """
    t = tensor if isinstance(tensor, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(tensor)
    if not (t.dtype.is_floating or t.dtype.is_complex):
        raise TypeError(f"check_numerics: needs a floating tensor, got {t.dtype.name}")
    a = np.asarray(t.numpy())
    for bad, what in ((np.isnan(a), "NaN"), (np.isinf(a), "Inf")):
        if bad.any():
            raise InvalidArgumentError(None, None, f"{message} : Tensor had {what} values")
    return t


def Assert(
    condition: Any, data: Sequence[Any], summarize: int | None = None, name: str | None = None
) -> None:
    """Raises `InvalidArgumentError` showing `data` unless `condition` (a bool scalar) holds.

    >>> rt.debugging.Assert(rt.constant(True), ["never shown"]) is None
    True
    """
    if not bool(np.all(_values(condition))):
        shown = ", ".join(
            _shown(_values(d), summarize) if not isinstance(d, str) else d for d in data
        )
        raise InvalidArgumentError(None, None, f"assertion failed: [{shown}]")


def _rank(x: Any) -> int:
    return len(x.shape) if hasattr(x, "shape") else np.ndim(x)


def assert_rank(x: Any, rank: int, message: str | None = None, name: str | None = None) -> None:
    """Raises `ValueError` unless `x` has rank `rank`.

    >>> rt.debugging.assert_rank(rt.zeros([2, 3]), 2) is None
    True
    """
    if _rank(x) != int(rank):
        prefix = f"{message}. " if message else ""
        raise ValueError(f"{prefix}Tensor must have rank {int(rank)}. Received rank {_rank(x)}")


def assert_rank_at_least(
    x: Any, rank: int, message: str | None = None, name: str | None = None
) -> None:
    """Raises `ValueError` unless `x` has rank `rank` or more.

    >>> rt.debugging.assert_rank_at_least(rt.zeros([2, 3]), 1) is None
    True
    """
    if _rank(x) < int(rank):
        prefix = f"{message}. " if message else ""
        raise ValueError(
            f"{prefix}Tensor must have rank at least {int(rank)}. Received rank {_rank(x)}"
        )


def assert_rank_in(
    x: Any, ranks: Sequence[int], message: str | None = None, name: str | None = None
) -> None:
    """Raises `ValueError` unless `x`'s rank is one of `ranks`.

    >>> rt.debugging.assert_rank_in(rt.zeros([2]), [1, 2]) is None
    True
    """
    allowed = [int(r) for r in ranks]
    if _rank(x) not in allowed:
        prefix = f"{message}. " if message else ""
        raise ValueError(f"{prefix}Tensor must have rank in {allowed}. Received rank {_rank(x)}")


def assert_scalar(tensor: Any, message: str | None = None, name: str | None = None) -> None:
    """Raises `ValueError` unless `tensor` is a scalar.

    >>> rt.debugging.assert_scalar(rt.constant(1.0)) is None
    True
    """
    if _rank(tensor) != 0:
        prefix = f"{message}. " if message else ""
        raise ValueError(f"{prefix}Expected scalar shape, saw shape: {list(tensor.shape)}.")


def assert_type(
    tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None
) -> None:
    """Raises `TypeError` unless `tensor`'s dtype is `tf_type`.

    >>> rt.debugging.assert_type(rt.constant(1.0), rt.float32) is None
    True
    """
    want = _rt.as_dtype(tf_type)
    if tensor.dtype != want:
        prefix = f"{message}: " if message else ""
        raise TypeError(f"{prefix}tensor's dtype {tensor.dtype.name} does not match {want.name}")


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> None:
    """Raises `TypeError` unless `x` has an integer dtype.

    >>> rt.debugging.assert_integer(rt.constant([1, 2])) is None
    True
    """
    if x.dtype not in (_rt.int32, _rt.int64):
        prefix = f"{message}: " if message else ""
        raise TypeError(f"{prefix}Expected integer type, got {x.dtype.name}")


def assert_same_float_dtype(tensors: Sequence[Any] | None = None, dtype: Any = None) -> Any:
    """The one floating dtype of `tensors` (and `dtype`); `ValueError` if they differ or one
    is not floating.

    >>> rt.debugging.assert_same_float_dtype([rt.constant(1.0), rt.constant(2.0)]).name
    'float32'
    """
    dtypes = [t.dtype for t in tensors or []] + ([_rt.as_dtype(dtype)] if dtype is not None else [])
    if not dtypes:
        return _rt.float32
    first = dtypes[0]
    if not first.is_floating or any(d != first for d in dtypes):
        raise ValueError(f"Expected floating dtypes all equal, got {[d.name for d in dtypes]}")
    return first


def assert_shapes(
    shapes: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> None:
    """Checks the shapes of several tensors against symbolic dimensions: `shapes` is a list
    of `(tensor, ("N", "Q"))` pairs (or a dict); each name stands for one size across the
    checks, an int for itself, and a leading "*" for any leading dimensions.

    >>> x, y = rt.zeros([4, 3]), rt.zeros([4])
    >>> rt.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N",))]) is None
    True
    """
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes: dict[str, int] = {}
    for tensor, spec in pairs:
        shape = list(tensor.shape) if hasattr(tensor, "shape") else list(np.shape(tensor))
        dims = list(spec) if not isinstance(spec, str) else [spec]
        if dims and dims[0] == "*":
            dims = dims[1:]
            if len(shape) < len(dims):
                raise ValueError(
                    f"Specified by tensor with shape {shape}: rank must be at least {len(dims)}"
                )
            shape = shape[len(shape) - len(dims) :]
        elif len(shape) != len(dims):
            raise ValueError(
                f"Specified by tensor with shape {shape}: rank must be {len(dims)}, not "
                f"{len(shape)}"
            )
        for size, dim in zip(shape, dims):
            if isinstance(dim, str):
                if sizes.setdefault(dim, size) != size:
                    raise ValueError(
                        f"{message + ': ' if message else ''}dimension {dim!r} must be "
                        f"{sizes[dim]} (as before), got {size} in shape {list(tensor.shape)}"
                    )
            elif dim is not None and int(dim) != size:
                raise ValueError(
                    f"{message + ': ' if message else ''}dimension must be {int(dim)}, got "
                    f"{size} in shape {list(tensor.shape)}"
                )


def is_numeric_tensor(tensor: Any) -> bool:
    """Whether `tensor` is a tensor of a numeric dtype (not bool).

    >>> rt.debugging.is_numeric_tensor(rt.constant(1.0)), rt.debugging.is_numeric_tensor(1.0)
    (True, False)
    """
    return isinstance(tensor, (_rt.Tensor, _rt.Variable)) and tensor.dtype != _rt.bool
