"""`keras.ops`' control flow: `cond`, `switch`, `while_loop`, `fori_loop`, `map`, `scan`
(JAX's form: a carry and stacked outputs) and `associative_scan`, run eagerly over rustape's
ops so the tape records every step."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from ... import _control_flow as _cf
from ... import _rustape as _rt
from ... import nest

__all__ = ["associative_scan", "cond", "fori_loop", "map", "scan", "switch", "while_loop"]


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """`true_fn()` if `pred` is true, else `false_fn()`.

    >>> from rustape.keras import ops
    >>> ops.cond(ops.convert_to_tensor(3) > 2, lambda: "big", lambda: "small")
    'big'
    """
    return _cf.cond(pred, true_fn, false_fn)


def switch(index: Any, branches: list[Callable[..., Any]], *operands: Any) -> Any:
    """`branches[index](*operands)`, the index clipped to the branches' range.

    >>> from rustape.keras import ops
    >>> ops.switch(5, [lambda x: x + 1, lambda x: x * 10], 3)
    30
    """
    if not branches:
        raise ValueError("keras.ops.switch: `branches` is empty")
    i = int(_rt.convert_to_tensor(index).numpy())
    return branches[builtins.min(builtins.max(i, 0), len(branches) - 1)](*operands)


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    maximum_iterations: int | None = None,
) -> Any:
    """`loop_vars = body(*loop_vars)` while `cond(*loop_vars)` (a single value is passed and
    returned as itself; a tuple or list is unpacked).

    >>> from rustape.keras import ops
    >>> int(ops.while_loop(lambda x: x < 100, lambda x: x * 3, 1))
    243
    """
    is_tuple = isinstance(loop_vars, (tuple, list))
    state = tuple(loop_vars) if is_tuple else (loop_vars,)

    def step(*args: Any) -> Any:
        out = body(*args)
        return tuple(out) if is_tuple else (out,)

    result = _cf.while_loop(cond, step, state, maximum_iterations=maximum_iterations)
    return result if is_tuple else result[0]


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """`val = body_fun(i, val)` for `i` from `lower` up to `upper`.

    >>> from rustape.keras import ops
    >>> int(ops.fori_loop(0, 4, lambda i, total: total + i, 0))
    6
    """
    return _cf.while_loop(
        lambda i, val: i < upper, lambda i, val: (i + 1, body_fun(i, val)), (lower, init_val)
    )[1]


def map(f: Callable[[Any], Any], xs: Any) -> Any:
    """`f` applied to each slice of `xs` along its first axis, the results stacked.

    >>> from rustape.keras import ops
    >>> ops.map(lambda x: x * x, ops.convert_to_tensor([1.0, 2.0, 3.0])).numpy().tolist()
    [1.0, 4.0, 9.0]
    """
    return _cf.map_fn(f, xs)


def scan(
    f: Callable[[Any, Any], Any],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[Any, Any]:
    """`(carry, y) = f(carry, x)` over the slices `x` of `xs` (or `length` times with `x`
    None); returns the last carry and the stacked `y`s (JAX's `lax.scan`).

    >>> from rustape.keras import ops
    >>> carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0, ops.convert_to_tensor([1, 2, 3]))
    >>> int(carry), ys.numpy().tolist()
    (6, [0, 2, 9])
    """
    if not callable(f):
        raise TypeError(f"keras.ops.scan: `f` should be a callable. Received: f={f}")
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError(
            f"keras.ops.scan: `unroll` must be a positive integer or a boolean, got {unroll!r}"
        )
    if xs is None and length is None:
        raise ValueError("keras.ops.scan: got no `xs` to scan over and `length` not provided")
    if xs is None:
        n, columns = int(length), []  # type: ignore[arg-type]
    else:
        flat = [_rt.convert_to_tensor(x) for x in nest.flatten(xs)]
        n = int(length) if length is not None else int(flat[0].shape[0])
        columns = [_rt.unstack(x) for x in flat]
    carry = nest.map_structure(_rt.convert_to_tensor, init)
    ys: list[Any] = [None] * n
    for i in range(n - 1, -1, -1) if reverse else range(n):
        x = None if xs is None else nest.pack_sequence_as(xs, [c[i] for c in columns])
        carry, ys[i] = f(carry, x)
    if n == 0:
        return carry, None
    flat_ys = [nest.flatten(y) for y in ys]
    stacked = [_rt.stack([y[k] for y in flat_ys]) for k in range(len(flat_ys[0]))]
    return carry, nest.pack_sequence_as(ys[0], stacked)


def associative_scan(
    f: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0
) -> Any:
    """Prefix combinations `f(...f(f(e0, e1), e2)..., ei)` along `axis` for an associative
    `f`, computed in O(log n) rounds of whole-array calls (as Keras and JAX do).

    >>> from rustape.keras import ops
    >>> ops.associative_scan(lambda a, b: a + b, ops.convert_to_tensor([1, 2, 3, 4])).numpy().tolist()
    [1, 3, 6, 10]
    """
    if not callable(f):
        raise TypeError(f"keras.ops.associative_scan: `f` should be a callable. Received: f={f}")
    flat = [_rt.convert_to_tensor(e) for e in nest.flatten(elems)]
    rank = flat[0].shape.rank
    ax = axis if axis >= 0 else axis + rank
    n = int(flat[0].shape[ax])
    if any(int(e.shape[ax]) != n for e in flat):
        raise ValueError(
            "keras.ops.associative_scan: the inputs must have the same length along `axis`, "
            f"got {[tuple(e.shape) for e in flat]}"
        )
    if reverse:
        flat = [_rt.reverse(e, [ax]) for e in flat]

    def cut(x: Any, start: int, stop: int | None, step: int = 1) -> Any:
        index = [builtins.slice(None)] * rank
        index[ax] = builtins.slice(start, stop, step)
        return x[tuple(index)]

    def combine(a: list[Any], b: list[Any]) -> list[Any]:
        out = f(nest.pack_sequence_as(elems, a), nest.pack_sequence_as(elems, b))
        return [_rt.convert_to_tensor(o) for o in nest.flatten(out)]

    def interleave(even: Any, odd: Any) -> Any:
        # even[0], odd[0], even[1], odd[1], ...: even holds as many or one more.
        pairs = builtins.min(int(even.shape[ax]), int(odd.shape[ax]))
        woven = _rt.stack([cut(even, 0, pairs), cut(odd, 0, pairs)], axis=ax + 1)
        shape = list(woven.shape)
        merged = _rt.reshape(woven, shape[:ax] + [2 * pairs] + shape[ax + 2 :])
        if int(even.shape[ax]) > pairs:
            merged = _rt.concat([merged, cut(even, pairs, None)], axis=ax)
        return merged

    # Rounds of pairwise combination down to one element, then back up (Blelloch's scan),
    # kept on an explicit stack of the levels' inputs.
    levels: list[list[Any]] = []
    current = flat
    while int(current[0].shape[ax]) >= 2:
        levels.append(current)
        current = combine(
            [cut(e, 0, -1, 2) for e in current], [cut(e, 1, None, 2) for e in current]
        )
    scanned = current
    while levels:
        level = levels.pop()
        length = int(level[0].shape[ax])
        odd = scanned
        if length % 2 == 0:
            tail = combine([cut(o, 0, -1) for o in odd], [cut(e, 2, None, 2) for e in level])
        else:
            tail = combine(odd, [cut(e, 2, None, 2) for e in level])
        even = [_rt.concat([cut(e, 0, 1), t], axis=ax) for e, t in zip(level, tail)]
        scanned = [interleave(e, o) for e, o in zip(even, odd)]
    if reverse:
        scanned = [_rt.reverse(s, [ax]) for s in scanned]
    return nest.pack_sequence_as(elems, scanned)
