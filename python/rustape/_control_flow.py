"""TensorFlow's control flow (`tf.cond`, `tf.case`, `tf.switch_case`, `tf.while_loop`,
`tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr`) as TensorFlow runs it eagerly: the branch
chosen and the loop run in Python, each step recorded by the tape like any other op, so
gradients (of every order) flow through them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _rustape as _rt
from . import nest


def _truth(op: str, pred: Any) -> bool:
    """`pred` (a bool scalar tensor or a Python bool) as a Python bool."""
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    value = _rt.convert_to_tensor(pred)
    if value.dtype != _rt.bool or value.shape.rank != 0:
        raise TypeError(
            f"rt.{op}: the predicate must be a bool scalar, got shape {tuple(value.shape)} "
            f"dtype {value.dtype.name}"
        )
    return bool(value.numpy())


def _callable(op: str, name: str, fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"rt.{op}: `{name}` must be callable, got {type(fn).__name__}")


def cond(
    pred: Any,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    name: str | None = None,
) -> Any:
    """`true_fn()` if `pred` (a bool scalar) is true, else `false_fn()`: only the chosen
    branch runs, and its result is returned as it is.

    >>> import rustape as rt
    >>> x = rt.constant(2.0)
    >>> rt.cond(x > 1.0, lambda: x * 10.0, lambda: x - 1.0)
    <rt.Tensor: shape=(), dtype=float32, numpy=20.0>
    """
    _callable("cond", "true_fn", true_fn)
    _callable("cond", "false_fn", false_fn)
    assert true_fn is not None and false_fn is not None
    return true_fn() if _truth("cond", pred) else false_fn()


def case(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str | None = None,
) -> Any:
    """The result of the function paired with the first true predicate in `pred_fn_pairs`
    (a list of `(bool scalar, function)`), else of `default` (or, without one, of the last
    pair's function). `exclusive=True` checks that at most one predicate is true.

    >>> import rustape as rt
    >>> x = rt.constant(5)
    >>> rt.case([(x < 0, lambda: -1), (x < 10, lambda: 1)], default=lambda: 2)
    1
    """
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise TypeError("rt.case: `pred_fn_pairs` must be a non-empty list of (predicate, fn)")
    pairs = []
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(
                f"rt.case: each entry of `pred_fn_pairs` must be a 2-tuple, got {pair!r}"
            )
        _callable("case", "fn", pair[1])
        pairs.append(pair)
    if default is None:
        default = pairs.pop()[1]
    _callable("case", "default", default)
    truths = [_truth("case", pred) for pred, _ in pairs]
    if exclusive and sum(truths) > 1:
        raise ValueError(
            f"rt.case: exclusive=True, but {sum(truths)} predicates are true "
            f"(of pairs {[i for i, t in enumerate(truths) if t]})"
        )
    for truth, (_, fn) in zip(truths, pairs):
        if truth:
            return fn()
    return default()


def switch_case(
    branch_index: Any,
    branch_fns: Any,
    default: Callable[[], Any] | None = None,
    name: str | None = None,
) -> Any:
    """The result of `branch_fns[branch_index]()` (a list of functions, a list of
    `(index, function)` pairs or a dict); an index out of range runs `default`, or the last
    branch when there is none.

    >>> import rustape as rt
    >>> rt.switch_case(rt.constant(1), [lambda: "zero", lambda: "one"], default=lambda: "other")
    'one'
    """
    if (
        isinstance(branch_fns, dict)
        or isinstance(branch_fns, (list, tuple))
        and all(isinstance(b, tuple) and len(b) == 2 for b in branch_fns)
    ):
        branches = dict(branch_fns)
    elif isinstance(branch_fns, (list, tuple)):
        branches = dict(enumerate(branch_fns))
    else:
        raise TypeError("rt.switch_case: `branch_fns` must be a list, tuple or dict of functions")
    if not branches:
        raise ValueError("rt.switch_case: `branch_fns` is empty")
    for key, fn in branches.items():
        if not isinstance(key, int):
            raise TypeError(f"rt.switch_case: branch keys must be ints, got {key!r}")
        _callable("switch_case", f"branch_fns[{key}]", fn)
    index = _rt.convert_to_tensor(branch_index)
    if index.dtype not in (_rt.int32, _rt.int64) or index.shape.rank != 0:
        raise TypeError(
            "rt.switch_case: `branch_index` must be an int32 or int64 scalar, got shape "
            f"{tuple(index.shape)} dtype {index.dtype.name}"
        )
    i = int(index.numpy())
    if i in branches:
        return branches[i]()
    fallback = default if default is not None else branches[max(branches)]
    _callable("switch_case", "default", fallback)
    return fallback()


def _as_tensors(structure: Any) -> Any:
    return nest.map_structure(
        lambda x: x if isinstance(x, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(x),
        structure,
    )


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    maximum_iterations: Any = None,
    name: str | None = None,
) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true (at most
    `maximum_iterations` times) and returns the final `loop_vars`, as tensors, in their
    structure. The body must keep the structure (and, to port back to graphs, the shapes).

    >>> import rustape as rt
    >>> i, total = rt.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), [0, 0])
    >>> int(i), int(total)
    (4, 6)
    """
    _callable("while_loop", "cond", cond)
    _callable("while_loop", "body", body)
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise ValueError("rt.while_loop: `loop_vars` must be a non-empty list or tuple")
    limit = None
    if maximum_iterations is not None:
        limit = int(_rt.convert_to_tensor(maximum_iterations).numpy())
    state = loop_vars
    steps = 0
    while (limit is None or steps < limit) and _truth("while_loop", cond(*state)):
        result = body(*state)
        if len(state) == 1 and not isinstance(result, (list, tuple)):
            result = type(state)([result]) if isinstance(state, list) else (result,)
        if not _same_structure(state, result):
            raise ValueError(
                "rt.while_loop: `body` must return the structure of `loop_vars` "
                f"({_describe(loop_vars)}); it returned {_describe(result)}"
            )
        state = result
        steps += 1
    return _as_tensors(state)


def _same_structure(a: Any, b: Any) -> bool:
    try:
        nest.assert_same_structure(list(a), list(b))
    except (ValueError, TypeError):
        return False
    return True


def _describe(structure: Any) -> str:
    return repr(nest.map_structure(lambda x: type(x).__name__, structure))


def _slices(op: str, elems: Any) -> tuple[list[Any], int]:
    """`elems` (a tensor, or a structure of them sharing their first dimension) as the
    flat list of its tensors, and that first dimension."""
    flat = [_rt.convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"rt.{op}: `elems` holds no tensors")
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError(f"rt.{op}: the elements must have a first dimension; got a scalar")
    n = int(flat[0].shape[0])
    if any(int(e.shape[0]) != n for e in flat):
        raise ValueError(
            f"rt.{op}: the tensors in `elems` have different first dimensions: "
            f"{[tuple(e.shape) for e in flat]}"
        )
    return flat, n


def _stack_results(op: str, results: list[Any], structure: Any) -> Any:
    flat_results = [nest.flatten(r) for r in results]
    width = len(nest.flatten(structure))
    if any(len(r) != width for r in flat_results):
        raise ValueError(f"rt.{op}: the function returned results of different structures")
    stacked = [_rt.stack([r[i] for r in flat_results]) for i in range(width)]
    return nest.pack_sequence_as(structure, stacked)


def _empty(signature: Any) -> Any:
    """Stacks of no results, shaped as `signature` (specs or dtypes) says."""

    def one(spec: Any) -> Any:
        shape = list(getattr(spec, "shape", None) or [])
        dtype = getattr(spec, "dtype", spec)
        return _rt.zeros([0, *shape], dtype)

    return nest.map_structure(one, signature)


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
    fn_output_signature: Any = None,
) -> Any:
    """`fn` applied to each slice of `elems` along its first axis (a tensor, or a structure
    of tensors sliced together), the results stacked. `fn_output_signature` (dtypes or
    `rt.TensorSpec`s) sets the results' dtypes, and their shapes when `elems` is empty.

    >>> import rustape as rt
    >>> rt.map_fn(lambda row: rt.reduce_sum(row), rt.constant([[1.0, 2.0], [3.0, 4.0]]))
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([3., 7.], dtype=float32)>
    """
    _callable("map_fn", "fn", fn)
    flat, n = _slices("map_fn", elems)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if n == 0:
        if signature is None:
            signature = nest.map_structure(
                lambda e: _SpecLike(tuple(e.shape[1:]), e.dtype),
                nest.pack_sequence_as(elems, flat),
            )
        return _empty(signature)
    columns = [_rt.unstack(e) for e in flat]
    results = []
    for i in range(n):
        out = fn(nest.pack_sequence_as(elems, [c[i] for c in columns]))
        if signature is not None:
            out = nest.map_structure(
                lambda x, s: _rt.convert_to_tensor(x, getattr(s, "dtype", s)), out, signature
            )
        results.append(out)
    return _stack_results("map_fn", results, results[0])


class _SpecLike:
    """A shape and a dtype (the spec of `elems`' slices, for an empty `map_fn`)."""

    def __init__(self, shape: tuple[Any, ...], dtype: Any) -> None:
        self.shape, self.dtype = shape, dtype


def _fold(
    op: str, fn: Callable[[Any, Any], Any], elems: Any, initializer: Any, reverse: bool
) -> tuple[list[Any], Any]:
    """Every accumulator `fn` gives along `elems` (the first is `elems[0]` when there is no
    `initializer`), in order of the elements, and the last one."""
    _callable(op, "fn", fn)
    flat, n = _slices(op, elems)
    columns = [_rt.unstack(e) for e in flat]
    order = list(range(n))[::-1] if reverse else list(range(n))

    def element(i: int) -> Any:
        return nest.pack_sequence_as(elems, [c[i] for c in columns])

    if initializer is None:
        if n == 0:
            raise ValueError(f"rt.{op}: `elems` is empty and there is no `initializer`")
        acc = element(order[0])
        accumulated = [acc]
        order = order[1:]
    else:
        acc = _as_tensors(initializer)
        accumulated = []
    for i in order:
        acc = fn(acc, element(i))
        accumulated.append(acc)
    if reverse:
        accumulated.reverse()
    return accumulated, acc


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """The accumulators `acc = fn(acc, x)` over the slices `x` of `elems` along its first
    axis, stacked (from `initializer`, or from `elems[0]`, which is then the first output);
    `reverse=True` scans from the last slice, each output kept at its slice's position.

    >>> import rustape as rt
    >>> rt.scan(lambda acc, x: acc + x, rt.constant([1, 2, 3, 4]))
    <rt.Tensor: shape=(4,), dtype=int32, numpy=array([ 1,  3,  6, 10], dtype=int32)>
    """
    accumulated, _ = _fold("scan", fn, elems, initializer, reverse)
    if not accumulated:
        return _empty(
            nest.map_structure(
                lambda a: _SpecLike(tuple(a.shape), a.dtype), _as_tensors(initializer)
            )
        )
    return _stack_results("scan", accumulated, accumulated[0])


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """`fn(acc, x)` folded over the slices of `elems` from the first (`tf.foldl`).

    >>> import rustape as rt
    >>> int(rt.foldl(lambda acc, x: acc * 10 + x, rt.constant([1, 2, 3])))
    123
    """
    return _fold("foldl", fn, elems, initializer, False)[1]


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """`fn(acc, x)` folded over the slices of `elems` from the last (`tf.foldr`).

    >>> import rustape as rt
    >>> int(rt.foldr(lambda acc, x: acc * 10 + x, rt.constant([1, 2, 3])))
    321
    """
    return _fold("foldr", fn, elems, initializer, True)[1]


__all__: Sequence[str] = [
    "case",
    "cond",
    "foldl",
    "foldr",
    "map_fn",
    "scan",
    "switch_case",
    "while_loop",
]
