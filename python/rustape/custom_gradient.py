"""`rt.custom_gradient`: a function whose gradient is given by the user.

    @rt.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return rt.clip_by_norm(dy, 0.5)
        return y, backward

The forward function runs with every tape paused (its ops are not recorded) while the
variables it reads are collected. The result is then recorded as one op whose inputs are the
Tensor arguments plus one fresh read of each trainable variable used (so tapes auto-watch
them as usual), and whose VJP calls the user's `grad_fn`. The VJP runs inside the engine's
backward sweep on the calling thread, so what `grad_fn` computes is recorded on any outer tape
that is recording: custom gradients nest to any order.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from . import _rustape as _rt
from ._structure import flatten, pack_sequence_as

__all__ = ["custom_gradient"]


def _is_tensor(x: Any) -> bool:
    return isinstance(x, _rt.Tensor)


def _is_variable(x: Any) -> bool:
    return isinstance(x, _rt.Variable)


def _same_variable(a: Any, b: Any) -> bool:
    if a is b:
        return True
    ia, ib = getattr(a, "_id", None), getattr(b, "_id", None)
    return ia is not None and ia == ib


def _accepts_variables(fn: Callable) -> bool:
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:
        return True  # a builtin or callable we cannot inspect: let the call decide
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def _to_output(x: Any) -> Any:
    if _is_tensor(x):
        return x
    if _is_variable(x):
        return x.value()
    return _rt.convert_to_tensor(x)


class _CustomGradientFunction:
    """The decorated function. A descriptor, so that decorating a method binds `self` first."""

    def __init__(self, f: Callable) -> None:
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        return _CustomGradientFunction(self._f.__get__(instance, owner))

    def __repr__(self) -> str:
        return f"<rt.custom_gradient {getattr(self._f, '__qualname__', self._f)!r}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        f = self._f
        name = getattr(f, "__name__", "custom_gradient")
        # 1. The forward function, unrecorded, collecting the variables it reads.
        _rt.begin_variable_watch()
        _rt.pause_all_tapes()
        try:
            result, grad_fn = f(*args, **kwargs)
            flat_result = flatten(result)
            outputs = [_to_output(r) for r in flat_result]
        finally:
            _rt.resume_all_tapes()
            read = _rt.end_variable_watch()

        flat_args = flatten(args)
        arg_variables = [a for a in flat_args if _is_variable(a)]
        # Trainable variables read by f that are not arguments (TF's VariableWatcher rule).
        variables: list[Any] = [
            v for v in read if v.trainable and not any(_same_variable(v, a) for a in arg_variables)
        ]
        if variables and not _accepts_variables(grad_fn):
            names = ", ".join(repr(getattr(v, "name", v)) for v in variables)
            raise TypeError(
                f"@rt.custom_gradient grad_fn must accept keyword argument 'variables', since "
                f"function {name} uses variables: {names}"
            )
        if not _rt.any_tape_recording():
            return pack_sequence_as(result, outputs)

        # 2. The recorded op's inputs: Tensor arguments, variable arguments read now, and one
        #    read of each variable used (recorded normally, so tapes auto-watch it).
        input_positions: list[int] = []
        inputs: list[Any] = []
        for i, a in enumerate(flat_args):
            if _is_tensor(a):
                input_positions.append(i)
                inputs.append(a)
            elif _is_variable(a):
                input_positions.append(i)
                inputs.append(a.value())
        variable_reads = [v.value() for v in variables]
        n_args = len(flat_args)

        def backward(output_grads: list[Any]) -> list[Any]:
            dys = [
                _rt.zeros_like(out) if dy is None else dy for dy, out in zip(output_grads, outputs)
            ]
            if variables:
                returned = grad_fn(*dys, variables=variables)
                try:
                    input_grads, variable_grads = returned
                except (TypeError, ValueError):
                    raise ValueError(
                        f"@rt.custom_gradient {name}: grad_fn takes `variables`, so it must return "
                        "(input_gradients, variable_gradients)"
                    ) from None
                variable_grads = flatten(variable_grads)
                if len(variable_grads) != len(variables):
                    raise ValueError(
                        f"@rt.custom_gradient {name}: must return a gradient for each variable "
                        f"from grad_fn: {len(variables)} variables, {len(variable_grads)} gradients"
                    )
            else:
                input_grads = grad_fn(*dys)
                variable_grads = []
            flat_grads = flatten(input_grads)
            if len(flat_grads) != n_args:
                raise ValueError(
                    f"@rt.custom_gradient {name}: grad_fn was expected to return {n_args} "
                    f"gradient{'s' if n_args != 1 else ''} (one per argument), but returned "
                    f"{len(flat_grads)} instead"
                )
            grads = [flat_grads[i] for i in input_positions] + list(variable_grads)
            like = inputs + variable_reads
            return [_as_gradient(g, x, name) for g, x in zip(grads, like)]

        recorded = _rt.record_custom_gradient(name, inputs + variable_reads, outputs, backward)
        return pack_sequence_as(result, list(recorded))


def _as_gradient(g: Any, like: Any, name: str) -> Any:
    if g is None:
        return None
    if _is_variable(g):
        g = g.value()
    elif not _is_tensor(g):
        g = _rt.convert_to_tensor(g, dtype=like.dtype)
    if tuple(g.shape) != tuple(like.shape):
        raise ValueError(
            f"@rt.custom_gradient {name}: grad_fn returned a gradient of shape {list(g.shape)} "
            f"for an input of shape {list(like.shape)}"
        )
    if g.dtype != like.dtype:
        raise TypeError(
            f"@rt.custom_gradient {name}: grad_fn returned a gradient of dtype {g.dtype!r} for "
            f"an input of dtype {like.dtype!r}"
        )
    return g


def custom_gradient(f: Callable[..., Any] | None = None) -> Any:
    """Decorator for a function `f(*x) -> (y, grad_fn)` with a user-defined gradient.

    `y` is a Tensor or a nested structure of Tensors. `grad_fn(*dy)` receives one gradient per
    (flattened) output and returns the gradients of the inputs, one per (flattened) argument
    (None where there is none). If `f` reads trainable variables that are not its arguments,
    `grad_fn` must accept `variables=` (the list of them) and return
    `(input_gradients, variable_gradients)`.

    >>> @rt.custom_gradient
    ... def clip_gradients(y):
    ...     return y, lambda dy: rt.clip_by_norm(dy, 0.5)
    >>> v = rt.Variable(2.0)
    >>> with rt.GradientTape() as t:
    ...     out = clip_gradients(v * v)
    >>> float(t.gradient(out, v))
    2.0
    """
    if f is None:
        return custom_gradient
    return _CustomGradientFunction(f)
