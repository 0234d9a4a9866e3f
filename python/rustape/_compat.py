"""TensorFlow names a ported program uses around the math: `rt.is_tensor`, `rt.device`,
`rt.print`, `rt.numpy_function` / `rt.py_function`, `rt.recompute_grad`, `rt.vectorized_map`.

Each is written in rustape's own terms (eager tensors, one CPU device, the tape); the
package exports them under `rt`.
"""

from __future__ import annotations

import contextlib
import copyreg
import functools
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

import numpy as np

from . import _rustape as _rt
from ._rustape import Tensor

#: The one device rustape runs on, in TensorFlow's spelling (`Tensor.device`).
CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def is_tensor(x: Any) -> bool:
    """Whether `x` is a tensor-like rustape object (a `Tensor` or a `Variable`), as
    `tf.is_tensor`: NumPy arrays and Python numbers are not.

    >>> import rustape as rt
    >>> rt.is_tensor(rt.constant(1.0)), rt.is_tensor(rt.Variable(1.0)), rt.is_tensor(1.0)
    (True, True, False)
    """
    return isinstance(x, (_rt.Tensor, _rt.Variable))


@contextlib.contextmanager
def device(device_name: str | None) -> Iterator[None]:
    """`tf.device`: a context naming where ops run. rustape runs every op on the CPU, so the
    context changes nothing (any device string is accepted, as TensorFlow's soft placement
    does).

    >>> import rustape as rt
    >>> with rt.device("/GPU:0"):
    ...     y = rt.constant(2.0) * 3.0
    >>> float(y)
    6.0
    """
    if device_name is not None and not isinstance(device_name, str):
        raise TypeError(
            f"rt.device: device_name must be a string or None, got {type(device_name).__name__}"
        )
    yield


def _printable(x: Any, summarize: int) -> str:
    if isinstance(x, (_rt.Tensor, _rt.Variable)):
        value = np.asarray(x.numpy())
        threshold = sys.maxsize if summarize < 0 else max(2 * summarize, 1)
        with np.printoptions(threshold=threshold, edgeitems=max(summarize, 1)):
            return np.array2string(value, separator=" ") if value.ndim else str(value)
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_printable(v, summarize) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_printable(v, summarize)}" for k, v in x.items()) + "}"
    return str(x)


def print(
    *inputs: Any,
    output_stream: TextIO | None = None,
    summarize: int = 3,
    sep: str = " ",
    end: str = "\n",
    name: str | None = None,
) -> None:
    """`tf.print`: prints tensors by value (at most `summarize` items at each end of an axis,
    all of them for -1) and anything else with `str`, to standard error unless
    `output_stream` (a file object such as `sys.stdout`) is given.

    >>> import sys
    >>> import rustape as rt
    >>> rt.print("x:", rt.constant([1, 2, 3]), output_stream=sys.stdout)
    x: [1 2 3]
    """
    stream = sys.stderr if output_stream is None else output_stream
    stream.write(sep.join(_printable(x, summarize) for x in inputs) + end)


def _as_outputs(result: Any, tout: Any, what: str) -> Any:
    """`result` as tensors of the dtypes `tout` (one dtype, or a list of them)."""
    if isinstance(tout, (list, tuple)):
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(tout):
            raise ValueError(
                f"{what}: Tout lists {len(tout)} outputs but the function returned {len(values)}"
            )
        return [
            _rt.convert_to_tensor(v, dtype=d) if d is not None else _rt.convert_to_tensor(v)
            for v, d in zip(values, tout)
        ]
    return (
        _rt.convert_to_tensor(result, dtype=tout)
        if tout is not None
        else _rt.convert_to_tensor(result)
    )


def numpy_function(
    func: Callable[..., Any],
    inp: Sequence[Any],
    Tout: Any,
    stateful: bool = True,
    name: str | None = None,
) -> Any:
    """`tf.numpy_function`: calls `func` on NumPy arrays and returns its results as tensors of
    the dtypes `Tout`. Not differentiable (no gradient flows through it) unless wrapped in
    `rt.custom_gradient`.

    >>> import numpy as np
    >>> import rustape as rt
    >>> rt.numpy_function(np.sort, [rt.constant([3.0, 1.0, 2.0])], rt.float32).numpy().tolist()
    [1.0, 2.0, 3.0]
    """
    arrays = [np.asarray(x.numpy()) if is_tensor(x) else np.asarray(x) for x in inp]
    return _as_outputs(func(*arrays), Tout, "rt.numpy_function")


def py_function(
    func: Callable[..., Any], inp: Sequence[Any], Tout: Any, name: str | None = None
) -> Any:
    """`tf.py_function`: calls `func` on the tensors `inp` and returns its results as tensors of
    the dtypes `Tout`. As in TensorFlow, `func` runs eagerly, so a tape records the ops inside
    it and the result is differentiable.

    >>> import rustape as rt
    >>> x = rt.constant(3.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = rt.py_function(lambda t: t * t, [x], rt.float32)
    >>> float(tape.gradient(y, x))
    6.0
    """
    args = [x if is_tensor(x) else _rt.convert_to_tensor(x) for x in inp]
    result = func(*args)
    if isinstance(Tout, (list, tuple)):
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        return [
            v
            if isinstance(v, Tensor) and (d is None or v.dtype == d)
            else _as_outputs(v, d, "rt.py_function")
            for v, d in zip(values, Tout)
        ]
    if isinstance(result, Tensor) and (Tout is None or result.dtype == Tout):
        return result
    return _as_outputs(result, Tout, "rt.py_function")


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """`tf.recompute_grad`: the same function and gradients, but the forward pass keeps no
    intermediate results for the gradient: the backward pass runs `f` again under a tape (memory
    for time). Variables `f` reads get their gradients too.

    >>> import rustape as rt
    >>> dense = rt.recompute_grad(lambda x: rt.sin(x) * x)
    >>> x = rt.constant(1.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = dense(x)
    >>> round(float(tape.gradient(y, x)), 6)  # cos(1) + sin(1)
    1.381773
    """
    from ._tape import GradientTape
    from .custom_gradient import custom_gradient

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        @custom_gradient
        def recomputed(*xs: Any) -> Any:
            result = f(*xs, **kwargs)

            def grad(*dys: Any, variables: Sequence[Any] | None = None) -> Any:
                watched = [x for x in xs if is_tensor(x) and x.dtype.is_floating]
                variables = list(variables or [])
                with GradientTape() as tape:
                    tape.watch(watched)
                    again = f(*xs, **kwargs)
                seeds = dys[0] if len(dys) == 1 else list(dys)
                grads = tape.gradient(again, watched + variables, output_gradients=seeds)
                by_id = {id(x): g for x, g in zip(watched, grads)}
                input_grads = [by_id.get(id(x)) for x in xs]
                if variables:
                    return input_grads, list(grads[len(watched) :])
                return input_grads

            return result, grad

        return recomputed(*args)

    return wrapper


def vectorized_map(
    fn: Callable[..., Any], elems: Any, fallback_to_while_loop: bool = True, warn: bool = True
) -> Any:
    """`tf.vectorized_map`: `fn` applied to each slice of `elems` along axis 0 (a tensor, or a
    nest of tensors sharing their first dimension), the results stacked along a new axis 0.
    Differentiable through the ops `fn` uses.

    `fn` runs once on the whole batch when rustape can prove that each row was computed on its
    own: the tape follows the batch axis through every recorded op (as `batch_jacobian` does),
    and `fn` also runs on the first and last rows alone, whose results must match the batched
    rows (this catches Python code that reads the batch's shape and random ops). Otherwise it
    loops over the rows (warning when `warn`), or raises a ValueError naming the reason when
    `fallback_to_while_loop` is False. So `fn` may run a few more times than there are rows
    and should not have side effects. `fn` sees the whole batch in the batched run, so write
    it with axes counted from the end (`reduce_sum(row, axis=-1)`, `matmul(a, b)` of the last
    two axes): a reduction over every axis or `row[0]` sums or picks across rows, which the
    check sees, and the loop runs. Outputs that do not depend on `elems` (a constant, a
    variable) are repeated along axis 0, as in TensorFlow.

    >>> import rustape as rt
    >>> x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> rt.vectorized_map(lambda row: rt.reduce_sum(row * row, axis=-1), x).numpy().tolist()
    [5.0, 25.0]
    >>> w = rt.constant([[1.0, 0.0], [1.0, 1.0]])
    >>> rt.vectorized_map(lambda row: rt.linalg.matvec(w, row), x).numpy().tolist()
    [[1.0, 3.0], [3.0, 7.0]]
    """
    from . import _vmap, nest

    flat = [_vmap._as_tensor(x) for x in nest.flatten(elems)]
    if not flat:
        raise ValueError("rt.vectorized_map: elems holds no tensors")
    sizes = {tuple(x.shape)[:1] for x in flat}
    if any(len(s) == 0 for s in sizes) or len(sizes) != 1:
        shapes = [tuple(x.shape) for x in flat]
        raise ValueError(
            f"rt.vectorized_map: every element needs the same first dimension, got shapes {shapes}"
        )
    (n,) = sizes.pop()
    result, why = _vmap.vectorized(fn, elems, flat, n)
    if why is None:
        _vmap.PATHS["vectorized"] += 1
        return result
    if not fallback_to_while_loop:
        raise ValueError(
            f"rt.vectorized_map: cannot vectorise fn ({why}) and fallback_to_while_loop is False"
        )
    if warn:
        warnings.warn(
            f"rt.vectorized_map: using a loop over the {n} row{'' if n == 1 else 's'} because "
            f"{why}",
            UserWarning,
            stacklevel=2,
        )
    _vmap.PATHS["loop"] += 1
    return _vmap.loop(fn, elems, flat, n)


def _rebuild_variable(value: Any, trainable: bool, name: str | None) -> Any:
    return _rt.Variable(value, trainable=trainable, name=name)


def _reduce_variable(v: Any) -> tuple[Any, tuple[Any, ...]]:
    """A Variable pickles (and deep-copies) as its value, trainable flag and name: a new,
    independent variable (no code, no tape history)."""
    name = v.name.removesuffix(":0")
    return _rebuild_variable, (np.array(v.numpy()), bool(v.trainable), name)


copyreg.pickle(_rt.Variable, _reduce_variable)


# -- graph-building names that mean nothing eagerly ------------------------------------------

_name_scopes: list[str] = []


def executing_eagerly() -> bool:
    """Whether ops run as they are called: always, in rustape.

    >>> rt.executing_eagerly()
    True
    """
    return True


def no_op(name: str | None = None) -> None:
    """Does nothing (TensorFlow's placeholder op).

    >>> rt.no_op() is None
    True
    """
    return


def group(*inputs: Any, **kwargs: Any) -> None:
    """TensorFlow's grouping of ops to run together: eager ops have already run.

    >>> rt.group(rt.constant(1.0), rt.constant(2.0)) is None
    True
    """
    return


@contextlib.contextmanager
def control_dependencies(control_inputs: Any) -> Iterator[None]:
    """TensorFlow's ordering of graph ops: eager ops run in program order already.

    >>> with rt.control_dependencies([rt.no_op()]):
    ...     y = rt.constant(2.0) * 3.0
    >>> float(y)
    6.0
    """
    yield


class name_scope:
    """TensorFlow's name scope: `with rt.name_scope("block") as scope:` gives the scope's
    name (`"block/"`, nested scopes joined); ops keep their own names.

    >>> with rt.name_scope("outer"):
    ...     with rt.name_scope("inner") as scope:
    ...         print(scope)
    outer/inner/
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"name_scope: name must be a string, got {name!r}")
        self.name = name

    def __enter__(self) -> str:
        _name_scopes.append(self.name)
        return "/".join(s for s in _name_scopes if s) + "/" if self.name else ""

    def __exit__(self, *exc: object) -> None:
        _name_scopes.pop()


def get_current_name_scope() -> str:
    """The name of the innermost `name_scope` ("" outside every scope).

    >>> with rt.name_scope("a"):
    ...     rt.get_current_name_scope()
    'a'
    """
    return "/".join(s for s in _name_scopes if s)


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """TensorFlow's escape from graph building into eager execution: rustape is eager.

    >>> with rt.init_scope():
    ...     v = rt.Variable(1.0)
    >>> float(v)
    1.0
    """
    yield


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The NumPy value of `tensor` (every eager tensor's value is known); other values as
    NumPy arrays.

    >>> rt.get_static_value(rt.constant([1, 2])).tolist()
    [1, 2]
    """
    if isinstance(tensor, (_rt.Tensor, _rt.Variable)):
        return tensor.numpy()
    return np.asarray(tensor)
