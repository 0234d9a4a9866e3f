"""Keras 3's `keras.ops` that make arrays, convert them, and the neural-network functions
(softmax, one-hot, moments, cross-entropies): thin wrappers of rustape's ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _rustape as _rt
from ... import math as _math
from ... import nn as _nn
from ._core import floating, promoted, result_type, tensor


def _shape(shape: Any) -> list[int]:
    return [int(shape)] if isinstance(shape, int) else [int(d) for d in shape]


def convert_to_tensor(x: Any, dtype: Any = None, sparse: Any = None) -> Any:
    """Keras 3's `keras.ops.convert_to_tensor`: a rustape tensor (Python floats become
    float32, ints int32), cast to `dtype` when given.

    >>> import rustape as rt
    >>> rt.keras.ops.convert_to_tensor([1, 2]).dtype
    rt.int32
    """
    if sparse:
        raise ValueError("convert_to_tensor: sparse tensors are not supported")
    t = tensor(x, None if dtype is None else str(getattr(dtype, "name", dtype)))
    if dtype is None and not isinstance(x, (_rt.Tensor, _rt.Variable)):
        t = _rt.cast(t, result_type(x))
    return t


def convert_to_numpy(x: Any) -> np.ndarray:
    """Keras 3's `keras.ops.convert_to_numpy`.

    >>> import rustape as rt
    >>> rt.keras.ops.convert_to_numpy(rt.ones([2]))
    array([1., 1.], dtype=float32)
    """
    return np.asarray(tensor(x).numpy())


def is_tensor(x: Any) -> bool:
    """Keras 3's `keras.ops.is_tensor`: whether `x` is a rustape tensor.

    >>> import rustape as rt
    >>> rt.keras.ops.is_tensor(rt.ones([2])), rt.keras.ops.is_tensor([1.0])
    (True, False)
    """
    return isinstance(x, _rt.Tensor)


def cast(x: Any, dtype: Any) -> Any:
    """Keras 3's `keras.ops.cast`.

    >>> import rustape as rt
    >>> rt.keras.ops.cast([1.7, -1.7], "int32").numpy()
    array([ 1, -1], dtype=int32)
    """
    return _rt.cast(tensor(x), dtype)


def zeros(shape: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.zeros` (float32 by default).

    >>> import rustape as rt
    >>> rt.keras.ops.zeros((2,)).numpy()
    array([0., 0.], dtype=float32)
    """
    return _rt.zeros(_shape(shape), dtype=dtype or "float32")


def ones(shape: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.ones` (float32 by default).

    >>> import rustape as rt
    >>> rt.keras.ops.ones((2,), dtype="int32").numpy()
    array([1, 1], dtype=int32)
    """
    return _rt.ones(_shape(shape), dtype=dtype or "float32")


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.full`: `shape` filled with `fill_value`.

    >>> import rustape as rt
    >>> rt.keras.ops.full((2,), 1.5).numpy()
    array([1.5, 1.5], dtype=float32)
    """
    value = tensor(fill_value, None if dtype is None else str(dtype))
    if dtype is None and not isinstance(fill_value, (_rt.Tensor, _rt.Variable)):
        value = _rt.cast(value, result_type(fill_value))
    return _rt.broadcast_to(value, _shape(shape))


def zeros_like(x: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.zeros_like`.

    >>> import rustape as rt
    >>> rt.keras.ops.zeros_like([1, 2]).numpy()
    array([0, 0], dtype=int32)
    """
    t = tensor(x)
    return _rt.zeros(list(t.shape), dtype=dtype or t.dtype)


def ones_like(x: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.ones_like`.

    >>> import rustape as rt
    >>> rt.keras.ops.ones_like([1.0, 2.0]).numpy()
    array([1., 1.], dtype=float32)
    """
    t = tensor(x)
    return _rt.ones(list(t.shape), dtype=dtype or t.dtype)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.full_like`: `x`'s shape (and dtype) filled with `fill_value`.

    >>> import rustape as rt
    >>> rt.keras.ops.full_like([1.0, 2.0], 7).numpy()
    array([7., 7.], dtype=float32)
    """
    t = tensor(x)
    return _rt.broadcast_to(_rt.cast(fill_value, dtype or t.dtype), list(t.shape))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.eye`: ones on the `k`-th diagonal of an `N` x `M` matrix.

    >>> import rustape as rt
    >>> rt.keras.ops.eye(2, 3, k=1).numpy()
    array([[0., 1., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    m = N if M is None else M
    rows = _rt.reshape(_rt.range(N, dtype="int32"), [N, 1])
    cols = _rt.reshape(_rt.range(m, dtype="int32"), [1, m])
    return _rt.cast(_rt.equal(cols, _rt.add(rows, k)), dtype or "float32")


def identity(n: int, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.identity`: the `n` x `n` identity matrix.

    >>> import rustape as rt
    >>> rt.keras.ops.identity(2).numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    return eye(n, dtype=dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    """Keras 3's `keras.ops.arange`: `start, start + step, ...` below `stop` (from 0 to
    `start` with one argument); int32 for integer arguments, float32 otherwise.

    >>> import rustape as rt
    >>> rt.keras.ops.arange(0.0, 1.0, 0.25).numpy()
    array([0.  , 0.25, 0.5 , 0.75], dtype=float32)
    """
    if stop is None:
        start, stop = 0, start
    kind = dtype or result_type(start, stop, step)
    return _rt.range(start, stop, step, dtype=kind)


def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """Keras 3's `keras.ops.linspace`: `num` evenly spaced values from `start` to `stop`
    (float32 unless `dtype`).

    >>> import rustape as rt
    >>> rt.keras.ops.linspace(0.0, 1.0, 5).numpy()
    array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    kind = dtype or "float32"
    a, b = _rt.cast(start, "float64"), _rt.cast(stop, "float64")
    count = num if endpoint else num + 1
    values = _rt.linspace(a, b, count, axis=axis)
    if not endpoint:
        values = values[:num] if axis == 0 else _rt.split(values, [num, 1], axis=axis)[0]
    values = _rt.cast(values, kind)
    if retstep:
        step = (float(stop) - float(start)) / max(count - 1, 1)
        return values, step
    return values


def meshgrid(*x: Any, indexing: str = "xy") -> list[Any]:
    """Keras 3's `keras.ops.meshgrid`: coordinate grids of the vectors (`indexing` "xy" or
    "ij").

    >>> import rustape as rt
    >>> [g.shape for g in rt.keras.ops.meshgrid([1, 2, 3], [4, 5])]
    [(2, 3), (2, 3)]
    """
    return list(_rt.meshgrid(*promoted(*x), indexing=indexing))


def softmax(x: Any, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.softmax` along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.softmax([0.0, 0.0]).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    return _nn.softmax(floating(x), axis=axis)


def log_softmax(x: Any, axis: int = -1) -> Any:
    """Keras 3's `keras.ops.log_softmax` along `axis`.

    >>> import rustape as rt
    >>> rt.keras.ops.log_softmax([0.0, 0.0]).numpy().round(4)
    array([-0.6931, -0.6931], dtype=float32)
    """
    return _nn.log_softmax(floating(x), axis=axis)


def one_hot(
    x: Any, num_classes: int, axis: int = -1, dtype: Any = None, sparse: bool = False
) -> Any:
    """Keras 3's `keras.ops.one_hot`: a new axis `axis` of `num_classes`, one at each index
    (float32 by default).

    >>> import rustape as rt
    >>> rt.keras.ops.one_hot([1, 0], 3).numpy()
    array([[0., 1., 0.],
           [1., 0., 0.]], dtype=float32)
    """
    if sparse:
        raise ValueError("one_hot: sparse tensors are not supported")
    return _rt.one_hot(
        _rt.cast(tensor(x), "int32"), num_classes, axis=axis, dtype=dtype or "float32"
    )


def moments(
    x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False
) -> tuple[Any, Any]:
    """Keras 3's `keras.ops.moments`: the mean and the population variance over `axes`.

    >>> import rustape as rt
    >>> [m.numpy() for m in rt.keras.ops.moments([1.0, 3.0], axes=0)]
    [np.float32(2.0), np.float32(1.0)]
    """
    items = [axes] if isinstance(axes, int) else list(axes)
    mean, variance = _nn.moments(floating(x), items, keepdims=keepdims)
    return mean, variance


def normalize(
    x: Any, axis: int | list[int] = -1, order: int = 2, epsilon: float | None = None
) -> Any:
    """Keras 3's `keras.ops.normalize`: `x / max(norm(x), epsilon)` along `axis` (the norm of
    `order` 1 or 2).

    >>> import rustape as rt
    >>> rt.keras.ops.normalize([3.0, 4.0]).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    t = floating(x)
    eps = _rt.cast(1e-7 if epsilon is None else epsilon, t.dtype)
    if order == 2:
        norm = _rt.sqrt(_rt.reduce_sum(_rt.square(t), axis=axis, keepdims=True))
    elif order == 1:
        norm = _rt.reduce_sum(_rt.abs(t), axis=axis, keepdims=True)
    else:
        raise ValueError(f"normalize: `order` must be 1 or 2, got {order!r}")
    return _rt.divide(t, _rt.maximum(norm, eps))


def segment_sum(
    data: Any, segment_ids: Any, num_segments: int | None = None, sorted: bool = False
) -> Any:
    """Keras 3's `keras.ops.segment_sum`: the rows of `data` summed per segment id.

    >>> import rustape as rt
    >>> rt.keras.ops.segment_sum([1.0, 2.0, 3.0], [0, 0, 1]).numpy()
    array([3., 3.], dtype=float32)
    """
    ids = _rt.cast(tensor(segment_ids), "int32")
    if num_segments is None:
        num_segments = int(np.max(ids.numpy())) + 1 if ids.shape[0] else 0
    return _math.unsorted_segment_sum(tensor(data), ids, num_segments)


def top_k(x: Any, k: int, sorted: bool = True) -> tuple[Any, Any]:
    """Keras 3's `keras.ops.top_k`: the `k` largest values along the last axis and their
    indices (int32).

    >>> import rustape as rt
    >>> values, indices = rt.keras.ops.top_k([1.0, 3.0, 2.0], 2)
    >>> values.numpy(), indices.numpy()
    (array([3., 2.], dtype=float32), array([1, 2], dtype=int32))
    """
    values, indices = _math.top_k(tensor(x), k=k, sorted=sorted)
    return values, _rt.cast(indices, "int32")


def _epsilon(dtype: Any) -> Any:
    return _rt.cast(1e-7, dtype)


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    """Keras 3's `keras.ops.binary_crossentropy`, elementwise (no mean): probabilities are
    clipped to `[1e-7, 1 - 1e-7]`.

    >>> import rustape as rt
    >>> rt.keras.ops.binary_crossentropy([1.0, 0.0], [0.9, 0.2]).numpy().round(4)
    array([0.1054, 0.2231], dtype=float32)
    """
    t, o = promoted(floating(target), floating(output))
    if from_logits:
        return _nn.sigmoid_cross_entropy_with_logits(labels=t, logits=o)
    eps = _epsilon(o.dtype)
    one = _rt.cast(1.0, o.dtype)
    o = _rt.clip_by_value(o, eps, _rt.subtract(one, eps))
    return _rt.negative(
        _rt.add(
            _rt.multiply(t, _rt.log(o)),
            _rt.multiply(_rt.subtract(one, t), _rt.log(_rt.subtract(one, o))),
        )
    )


def categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    """Keras 3's `keras.ops.categorical_crossentropy` over `axis`: probabilities are
    renormalised and clipped to `[1e-7, 1 - 1e-7]`.

    >>> import rustape as rt
    >>> rt.keras.ops.categorical_crossentropy([[0.0, 1.0]], [[0.2, 0.8]]).numpy().round(4)
    array([0.2231], dtype=float32)
    """
    t, o = promoted(floating(target), floating(output))
    if from_logits:
        return _rt.negative(
            _rt.reduce_sum(_rt.multiply(t, _nn.log_softmax(o, axis=axis)), axis=axis)
        )
    o = _rt.divide(o, _rt.reduce_sum(o, axis=axis, keepdims=True))
    eps = _epsilon(o.dtype)
    o = _rt.clip_by_value(o, eps, _rt.subtract(_rt.cast(1.0, o.dtype), eps))
    return _rt.negative(_rt.reduce_sum(_rt.multiply(t, _rt.log(o)), axis=axis))


def sparse_categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    """Keras 3's `keras.ops.sparse_categorical_crossentropy`: the cross-entropy of integer
    class targets.

    >>> import rustape as rt
    >>> rt.keras.ops.sparse_categorical_crossentropy([1], [[0.2, 0.8]]).numpy().round(4)
    array([0.2231], dtype=float32)
    """
    o = floating(output)
    classes = int(o.shape[axis])
    labels = _rt.one_hot(_rt.cast(tensor(target), "int32"), classes, axis=axis, dtype=o.dtype)
    return categorical_crossentropy(labels, o, from_logits=from_logits, axis=axis)
