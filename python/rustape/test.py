"""`rt.test`: checking gradients against finite differences.

    rt.test.gradcheck(lambda x, y: rt.reduce_sum(x * rt.sin(y)), [np.ones(3), np.arange(3.0)])

The inputs are converted to float64 Tensors; `f` is called with them as positional
arguments. Central finite differences check the first derivatives and, with
`second_order=True`, the derivatives of the gradient (Hessian-vector products), so a VJP that
is right at first order but not itself differentiable is caught.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as _np

from . import _rustape as _rt

__all__ = ["gradcheck"]


def _to_float64(x: Any) -> Any:
    if isinstance(x, _rt.Variable):
        x = x.value()
    if isinstance(x, _rt.Tensor):
        return x if x.dtype == _rt.float64 else _rt.cast(x, _rt.float64)
    return _rt.constant(_np.asarray(x, dtype=_np.float64), dtype=_rt.float64)


def gradcheck(
    f: Callable[..., Any],
    inputs: Any,
    second_order: bool = True,
    eps: float = 1e-6,
    atol: float = 1e-6,
    rtol: float = 1e-5,
) -> bool:
    """Checks `f`'s gradients (and second derivatives) against finite differences in float64.

    Args:
      f: a function of the inputs (positional arguments) returning a Tensor; a non-scalar
        result is summed, as `GradientTape.gradient` does.
      inputs: a Tensor / array / list of numbers, or a list of them.

    Returns:
      True when every derivative agrees within `atol + rtol * |expected|`.

    Raises:
      AssertionError: naming the input and the largest mismatch (or the extension's error).

    >>> import numpy as np
    >>> rt.test.gradcheck(lambda x: rt.reduce_sum(rt.sin(x) * x), [np.array([0.5, -1.0])])
    True
    """
    if isinstance(inputs, (_rt.Tensor, _rt.Variable, _np.ndarray)):
        inputs = [inputs]
    tensors = [_to_float64(x) for x in inputs]

    def call(*args: Any) -> Any:
        # The extension may pass the inputs as one list or as separate arguments.
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        return f(*args)

    result = _rt.gradcheck(call, tensors, second_order=second_order, eps=eps, atol=atol, rtol=rtol)
    return True if result is None else bool(result)
