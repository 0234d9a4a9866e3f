"""How `rt.vectorized_map` runs: `fn` once on the whole batch when the tape proves the rows stayed
apart (the axis tracking `batch_jacobian` uses), a loop over the rows otherwise.

The batched run records on a private persistent tape watching the floating-point elems; the
engine's `Tape.batch_rows` follows each elem's axis 0 through the recorded ops to every output.
Python code can still read shapes (`x * x.shape[0]`) or mix rows through values the tape does
not record (integer ops, comparisons), so `fn` also runs on the first and last rows alone: every
batched output must have shape `[n] + shape` of the single result and those rows must equal the
single results. An output that no recorded op connects to the elems and that equals the single
result (a constant, a variable) is loop-invariant and is tiled, as TensorFlow's pfor does.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _rustape as _rt
from . import nest

#: How many calls took each path ("vectorized" or "loop"); read by the tests.
PATHS: collections.Counter[str] = collections.Counter()


def _as_tensor(x: Any) -> Any:
    # A Variable's value as a tensor: its read records on outer tapes, as the loop's rows do.
    return x if isinstance(x, _rt.Tensor) else _rt.convert_to_tensor(x)


def _tolerance(dtype: Any) -> float:
    name = dtype.name
    if name in ("float16", "bfloat16"):
        return 1e-2
    if name in ("float32", "complex64"):
        return 1e-4
    if name in ("float64", "complex128"):
        return 1e-9
    return 0.0  # integers and booleans compare exactly


def _same_values(x: np.ndarray, y: np.ndarray, dtype: Any) -> bool:
    """Whether two arrays of one shape hold the same numbers of `dtype` (up to rounding: the
    batched ops may sum in another order than the single ones)."""
    rtol = _tolerance(dtype)
    if rtol == 0.0:
        return bool(np.array_equal(x, y))
    with np.errstate(invalid="ignore", over="ignore"):
        # The common case, cheaply (a stricter bound than the one below).
        if bool((np.abs(x - y) <= rtol * (1.0 + np.abs(y))).all()):
            return True
    finite = np.abs(y[np.isfinite(y)]) if y.size else np.zeros(0)
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return bool(np.allclose(x, y, rtol=rtol, atol=rtol * scale, equal_nan=True))


def _shape(t: Any) -> tuple[int, ...]:
    return tuple(t.shape)


def _row(flat: list, elems: Any, i: int) -> Any:
    return nest.pack_sequence_as(elems, [x[i] for x in flat])


def loop(fn: Callable[..., Any], elems: Any, flat: list, n: int) -> Any:
    """`fn` on each row, results stacked along a new axis 0 (None outputs stay None)."""
    if n == 0:
        raise ValueError(
            "rt.vectorized_map: elems has a first dimension of 0 and fn cannot run on the "
            "empty batch"
        )
    rows = [_rt.unstack(x, axis=0) for x in flat]
    results = [fn(nest.pack_sequence_as(elems, [r[i] for r in rows])) for i in range(n)]
    outs = [nest.flatten(r) for r in results]
    stacked = [
        None if outs[0][j] is None else _rt.stack([o[j] for o in outs], axis=0)
        for j in range(len(outs[0]))
    ]
    return nest.pack_sequence_as(results[0], stacked)


def _empty(fn: Callable[..., Any], elems: Any, flat: list, batched: Any) -> Any:
    """The result for a batch of no rows: fn on a row of zeros gives each output's structure,
    shape and dtype (TensorFlow traces fn for them); the result has 0 rows of that shape."""
    zero_row = nest.pack_sequence_as(elems, [_rt.zeros(_shape(x)[1:], x.dtype) for x in flat])
    single = fn(zero_row)
    outs = nest.flatten(batched)
    if len(outs) != len(nest.flatten(single)):
        outs = [None] * len(nest.flatten(single))
    result: list[Any] = []
    for b, s in zip(outs, nest.flatten(single)):
        if s is None:
            result.append(None)
            continue
        s = _as_tensor(s)
        if b is not None and _shape(_as_tensor(b)) == (0, *_shape(s)):
            result.append(_as_tensor(b))
        else:
            result.append(_empty_from(flat, (0, *_shape(s)), s.dtype))
    return nest.pack_sequence_as(single, result)


def _floating(dtype: Any) -> bool:
    return bool(dtype.is_floating or dtype.is_complex)


def _empty_from(flat: list, shape: tuple[int, ...], dtype: Any) -> Any:
    """An empty tensor of `shape` built from the (empty) elems, so that a gradient through it
    is zeros of each elem's shape, as TensorFlow's, rather than None."""
    parts = [
        _rt.reshape(x if x.dtype == dtype else _rt.cast(x, dtype), list(shape))
        for x in flat
        if _floating(dtype) and (x.dtype == dtype or (x.dtype.is_floating and dtype.is_floating))
    ]
    if not parts:
        return _rt.zeros(shape, dtype)
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


def vectorized(fn: Callable[..., Any], elems: Any, flat: list, n: int) -> tuple[Any, str | None]:
    """`fn` run once on the whole batch: `(result, None)` when the rows provably stayed apart,
    `(None, why not)` otherwise."""
    float_elems = all(x.dtype.is_floating or x.dtype.is_complex for x in flat)
    if not float_elems and n > 0:
        dtypes = sorted({f"rt.{x.dtype.name}" for x in flat})
        return None, (
            f"elems include non-floating tensors ({', '.join(dtypes)}), whose rows the tape "
            "cannot follow"
        )
    tape = _rt.Tape(persistent=True, watch_accessed_variables=False)
    tape.push()
    try:
        for x in flat:
            if x.dtype.is_floating or x.dtype.is_complex:
                tape.watch(x)
        try:
            batched = fn(nest.pack_sequence_as(elems, flat))
        except Exception as e:  # noqa: BLE001 - any failure of the batched run means "loop"
            if n == 0:
                return _empty(fn, elems, flat, None), None
            return None, f"fn raised {type(e).__name__} on the whole batch: {e}"
    finally:
        tape.exit()
    if n == 0:
        return _empty(fn, elems, flat, batched), None
    singles = [fn(_row(flat, elems, i)) for i in sorted({0, n - 1})]
    try:
        for single in singles:
            nest.assert_same_structure(batched, single)
    except (ValueError, TypeError):
        return None, "fn returns a different structure for the whole batch than for one row"
    outs = nest.flatten(batched)
    per_row = [nest.flatten(s) for s in singles]
    rows_at = sorted({0, n - 1})
    to_check: list[int] = []
    result: list[Any] = []
    tiled: list[int] = []
    for j, b in enumerate(outs):
        s = per_row[0][j]
        if b is None or s is None:
            if b is not None or s is not None:
                return None, f"output {j} of fn is None for the whole batch or for one row only"
            result.append(None)
            continue
        b, s = _as_tensor(b), _as_tensor(s)
        if b.dtype != s.dtype:
            return None, (
                f"output {j} of fn has dtype rt.{b.dtype.name} for the whole batch but "
                f"rt.{s.dtype.name} for one row"
            )
        if _shape(b) == (n, *_shape(s)):
            to_check.append(j)
        elif _shape(b) == _shape(s):
            tiled.append(j)
        else:
            return None, (
                f"output {j} of fn has shape {list(_shape(b))} for the batch of {n} rows but "
                f"{list(_shape(s))} for one row (does fn read the batch's shape?)"
            )
        result.append(b)
    rows = tape.batch_rows([result[j] for j in to_check + tiled], flat, n)
    for j, (kind, why) in zip(to_check + tiled, rows):
        if j in tiled:
            if kind != "free":
                return None, (
                    f"output {j} of fn has the shape of one row's output on the whole batch "
                    "but depends on the elems"
                )
        elif kind == "free":
            return None, (
                f"output {j} of fn is not computed from the elems by ops the tape records "
                "(integer or other non-differentiable ops), so rustape cannot follow its rows"
            )
        elif kind != "apart":
            return None, f"output {j} of fn: {why}"
    for j in to_check + tiled:
        # NumPy reads, not ops: nothing here is recorded on the caller's tapes.
        values = np.asarray(result[j].numpy())
        for k, i in enumerate(rows_at):
            got = values[i] if j in to_check else values
            single = np.asarray(_as_tensor(per_row[k][j]).numpy())
            if not _same_values(got, single, result[j].dtype):
                return None, (
                    f"row {i} of output {j} of fn differs between the whole batch and that row "
                    "alone (a random op, or rows mixed through values the tape does not record)"
                )
    for j in tiled:
        b = result[j]
        result[j] = _rt.tile(_rt.expand_dims(b, 0), [n] + [1] * len(_shape(b)))
    return nest.pack_sequence_as(batched, result), None
