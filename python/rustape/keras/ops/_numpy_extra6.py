"""Keras 3's `keras.ops.angle`, `view` and `vectorize` (their TensorFlow backend's
behaviour) over rustape's ops."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _compat
from ... import _rustape as _rt
from ._core import tensor


def angle(x: Any) -> Any:
    """Keras 3's `keras.ops.angle(x)`: the argument of each (complex) element; a real
    element's is 0 or pi. Integers and booleans become float32 first.

    >>> import rustape as rt
    >>> rt.keras.ops.angle([-1.0, 0.0, 2.0]).numpy()
    array([3.1415927, 0.       , 0.       ], dtype=float32)
    """
    t = tensor(x)
    if t.dtype not in (_rt.float32, _rt.float64, _rt.complex64, _rt.complex128):
        t = _rt.cast(t, _rt.float32)
    return _rt.angle(t)


def view(x: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.view(x, dtype)`: the same bytes read as `dtype` (the last axis
    grows or shrinks by the ratio of the item sizes). Not differentiable (a bitcast).

    >>> import rustape as rt
    >>> rt.keras.ops.view(rt.constant([1.0, 2.0]), "int32").numpy()
    array([1065353216, 1073741824], dtype=int32)
    """
    t = tensor(x)
    new = _rt.as_dtype(dtype) if dtype is not None else t.dtype
    old_size = np.dtype(t.dtype.as_numpy_dtype).itemsize
    new_size = np.dtype(new.as_numpy_dtype).itemsize
    shape = list(t.shape)
    last = shape[-1] if shape else -1
    if (last == -1 and old_size != new_size) or (last * old_size % new_size != 0):
        raise ValueError(
            f"Cannot view array of shape {tuple(shape)} and dtype {t.dtype.name} as dtype "
            f"{new.name} because the total number of bytes is not divisible by the new itemsize."
        )
    array = np.ascontiguousarray(t.numpy())
    return _rt.constant(array.view(new.as_numpy_dtype), dtype=new)


_ARG = r"\(\w*(?:,\s*\w+)*\)"


def _core_dims(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The core dimensions of a NumPy gufunc signature `"(m,n),(n)->(m)"`."""
    compact = signature.replace(" ", "")
    pattern = rf"^{_ARG}(?:,{_ARG})*->{_ARG}(?:,{_ARG})*$"
    if not re.match(pattern, compact):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = compact.split("->")

    def parse(part: str) -> list[tuple[str, ...]]:
        return [tuple(d for d in group.split(",") if d) for group in re.findall(r"\((.*?)\)", part)]

    return parse(inputs), parse(outputs)


def vectorize(
    pyfunc: Callable[..., Any], *, excluded: Any = None, signature: str | None = None
) -> Callable[..., Any]:
    """Keras 3's `keras.ops.vectorize(pyfunc, signature=...)`: a function that broadcasts its
    arguments over their leading (loop) axes and calls `pyfunc` on each cell, through
    `rt.vectorized_map` (one batched call where rustape can prove the cells independent).
    `signature` is NumPy's gufunc signature (`"(n),(n)->()"`); without one every argument is
    looped over elementwise. As in Keras's TensorFlow backend, `excluded` has no effect.

    >>> import rustape as rt
    >>> dot = rt.keras.ops.vectorize(lambda a, b: rt.reduce_sum(a * b), signature="(n),(n)->()")
    >>> dot(rt.ones([3, 2]), rt.constant([1.0, 2.0])).numpy()
    array([3., 3., 3.], dtype=float32)
    """

    def wrapped(*args: Any) -> Any:
        tensors = [tensor(a) for a in args]
        if signature is not None:
            ins, outs = _core_dims(signature)
            if len(ins) != len(tensors):
                raise TypeError(
                    f"vectorize: wrong number of positional arguments: expected {len(ins)}, "
                    f"got {len(tensors)}"
                )
        else:
            ins, outs = [()] * len(tensors), None
        sizes: dict[str, int] = {}
        loops = []
        for t, core in zip(tensors, ins):
            shape = list(t.shape)
            if len(shape) < len(core):
                raise ValueError(
                    f"vectorize: input with shape {shape} has fewer dimensions than its core "
                    f"dimensions {core}"
                )
            for name, size in zip(core, shape[len(shape) - len(core) :]):
                if sizes.setdefault(name, size) != size:
                    raise ValueError(f"vectorize: inconsistent size for core dimension {name!r}")
            loops.append(tuple(shape[: len(shape) - len(core)]))
        batch = list(np.broadcast_shapes(*loops)) if loops else []
        count = int(np.prod(batch, dtype=np.int64))
        flat = []
        for t, core in zip(tensors, ins):
            core_shape = list(t.shape)[len(t.shape) - len(core) :]
            full = _rt.broadcast_to(t, batch + core_shape)
            flat.append(_rt.reshape(full, [count] + core_shape))
        result = _compat.vectorized_map(lambda row: pyfunc(*row), tuple(flat), warn=False)
        single = not isinstance(result, (tuple, list))
        results = [result] if single else list(result)
        if outs is not None and len(outs) != len(results):
            raise ValueError(
                f"vectorize: wrong number of outputs from pyfunc: expected {len(outs)}, "
                f"got {len(results)}"
            )
        shaped = [_rt.reshape(r, batch + list(r.shape[1:])) for r in results]
        return shaped[0] if single else tuple(shaped)

    wrapped.__doc__ = pyfunc.__doc__
    wrapped.__name__ = getattr(pyfunc, "__name__", "vectorized")
    return wrapped


def _groups(side: str, pattern: str) -> list[list[str]]:
    """The axes of one side of an einops pattern: a name, or a parenthesised group of names."""
    tokens = re.findall(r"\(([^()]*)\)|(\w+)|(\S)", side)
    groups = []
    for group, name, other in tokens:
        if other:
            raise ValueError(f"rearrange: cannot parse pattern {pattern!r} near {other!r}")
        groups.append(group.split() if not name else [name])
    return groups


def rearrange(tensor_: Any, pattern: str, **axes_lengths: int) -> Any:
    """Keras 3's `keras.ops.rearrange` (einops): splits, moves and merges axes by name, as
    `"b (h1 h) w c -> (b h1) h w c"` with `h1=2` (one length per group may be inferred).
    A reshape, a transpose and a reshape, so it differentiates like them.

    >>> import rustape as rt
    >>> rt.keras.ops.rearrange(rt.ones([2, 6, 4, 3]), "b (h1 h) w c -> (b h1) c h w", h1=2).shape
    (4, 3, 3, 4)
    """
    t = tensor(tensor_)
    if pattern.count("->") != 1:
        raise ValueError(f"rearrange: pattern must have one '->', got {pattern!r}")
    left, right = (s.strip() for s in pattern.split("->"))
    inputs, outputs = _groups(left, pattern), _groups(right, pattern)
    shape = list(t.shape)
    if len(inputs) != len(shape):
        raise ValueError(
            f"rearrange: pattern {pattern!r} names {len(inputs)} axes, input has shape {shape}"
        )
    sizes: dict[str, int] = {}
    for group, dim in zip(inputs, shape):
        unknown = [a for a in group if a not in axes_lengths]
        if len(unknown) > 1 or (len(group) == 1 and not unknown and axes_lengths[group[0]] != dim):
            raise ValueError(f"rearrange: cannot infer the sizes of {group} from {dim}")
        known = int(np.prod([axes_lengths[a] for a in group if a in axes_lengths], dtype=np.int64))
        for a in group:
            sizes[a] = int(axes_lengths[a]) if a in axes_lengths else dim // max(known, 1)
        if int(np.prod([sizes[a] for a in group], dtype=np.int64)) != dim:
            raise ValueError(f"rearrange: axes {group} of sizes {sizes} do not make {dim}")
    flat_in = [a for g in inputs for a in g]
    flat_out = [a for g in outputs for a in g]
    if sorted(flat_in) != sorted(flat_out) or len(set(flat_in)) != len(flat_in):
        raise ValueError(f"rearrange: both sides of {pattern!r} must name the same axes, once each")
    t = _rt.reshape(t, [sizes[a] for a in flat_in])
    t = _rt.transpose(t, [flat_in.index(a) for a in flat_out])
    out_shape = [int(np.prod([sizes[a] for a in g], dtype=np.int64)) for g in outputs]
    return _rt.reshape(t, out_shape)
