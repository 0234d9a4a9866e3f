"""Keras 3's `keras.ops` for differentiation: `custom_gradient`, `jvp` (forward-mode products
by reverse mode twice, on nested tapes) and `erfinv`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import _rustape as _rt
from ... import math as _math
from ... import nest as _nest
from ..._tape import GradientTape
from ...custom_gradient import custom_gradient as _custom_gradient
from ._core import floating


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    """Keras 3's `keras.ops.custom_gradient`: `f(*args)` returns `(output, grad_fn)`, and
    `grad_fn(*upstream)` the gradients of `output` w.r.t. `args` (as `rt.custom_gradient`).

    >>> import rustape as rt
    >>> @rt.keras.ops.custom_gradient
    ... def clipped(x):
    ...     return x * 1.0, lambda upstream: rt.clip_by_value(upstream, -1.0, 1.0)
    >>> x = rt.Variable(2.0)
    >>> with rt.GradientTape() as tape:
    ...     y = 5.0 * clipped(x)
    >>> float(tape.gradient(y, x))
    1.0
    """
    wrapped: Callable[..., Any] = _custom_gradient(f)
    return wrapped


def jvp(
    fun: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool = False
) -> tuple[Any, ...]:
    """Keras 3's `keras.ops.jvp`: `fun(*primals)` and its Jacobian-vector product with
    `tangents` (the same structure as `primals`); with `has_aux`, `fun` returns
    `(output, aux)` and `aux` comes third. Computed as the gradient, with respect to a
    cotangent `u`, of `u`'s vector-Jacobian product.

    >>> import rustape as rt
    >>> y, dy = rt.keras.ops.jvp(lambda x: x * x, (rt.constant(3.0),), (rt.constant(1.0),))
    >>> float(y), float(dy)
    (9.0, 6.0)
    """
    flat_primals = [floating(p) for p in _nest.flatten(primals)]
    flat_tangents = [_rt.cast(t, p.dtype) for t, p in zip(_nest.flatten(tangents), flat_primals)]
    if len(flat_tangents) != len(flat_primals):
        raise ValueError(
            f"jvp: tangents must have the structure of primals: {len(flat_primals)} primals, "
            f"{len(flat_tangents)} tangents"
        )
    args = _nest.pack_sequence_as(primals, flat_primals)
    with GradientTape(persistent=True) as inner:
        inner.watch(flat_primals)
        result = fun(*args)
    outputs, aux = (result[0], result[1]) if has_aux else (result, None)
    flat_outputs = _nest.flatten(outputs)
    cotangents = [_rt.zeros_like(y) for y in flat_outputs]
    with GradientTape() as outer:
        outer.watch(cotangents)
        vjps = inner.gradient(
            flat_outputs,
            flat_primals,
            output_gradients=cotangents,
            unconnected_gradients="zero",
        )
    products = outer.gradient(
        vjps, cotangents, output_gradients=flat_tangents, unconnected_gradients="zero"
    )
    tangents_out = _nest.pack_sequence_as(outputs, list(products))
    if has_aux:
        return outputs, tangents_out, aux
    return outputs, tangents_out


def erfinv(x: Any) -> Any:
    """Keras 3's `keras.ops.erfinv`: the inverse error function (integers as float32).

    >>> import rustape as rt
    >>> round(float(rt.keras.ops.erfinv(0.5)), 5)
    0.47694
    """
    return _math.erfinv(floating(x))
