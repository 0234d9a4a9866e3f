"""Keras 3's small core `keras.ops`: item access, dtypes, complex views, block moves
between space and depth, and `vectorized_map`, over rustape's differentiable ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import _compat
from ... import _rustape as _rt
from ._core import tensor


def get_item(x: Any, key: Any) -> Any:
    """Keras 3's `keras.ops.get_item(x, key)`: `x[key]` (ints, slices, `None`, `...`).

    >>> import rustape as rt
    >>> rt.keras.ops.get_item([[1, 2], [3, 4]], (1, slice(None, 1))).numpy()
    array([3], dtype=int32)
    """
    return tensor(x)[key]


def dtype(x: Any) -> str:
    """Keras 3's `keras.ops.dtype(x)`: the dtype's standard name (`"float32"`, ...).

    >>> import rustape as rt
    >>> rt.keras.ops.dtype(rt.zeros([2]))
    'float32'
    """
    return str(tensor(x).dtype.name)


def polar(abs_: Any, angle: Any) -> Any:
    """Keras 3's `keras.ops.polar(abs_, angle)`: the complex numbers
    `abs_ * (cos(angle) + 1j * sin(angle))` (complex64 from float32).

    >>> import rustape as rt
    >>> rt.keras.ops.polar([2.0], [0.0]).numpy()
    array([2.+0.j], dtype=complex64)
    """
    r, theta = tensor(abs_), tensor(angle)
    if not r.dtype.is_floating:
        r = _rt.cast(r, "float32")
    theta = _rt.cast(theta, r.dtype.name)
    return _rt.complex(_rt.multiply(r, _rt.cos(theta)), _rt.multiply(r, _rt.sin(theta)))


def view_as_real(x: Any) -> Any:
    """Keras 3's `keras.ops.view_as_real(x)`: a complex tensor as real and imaginary parts
    along a new last axis of size 2.

    >>> import rustape as rt
    >>> rt.keras.ops.view_as_real(rt.complex(rt.constant([1.0]), rt.constant([2.0]))).numpy()
    array([[1., 2.]], dtype=float32)
    """
    t = tensor(x)
    if not t.dtype.is_complex:
        return _rt.stack([t, _rt.zeros_like(t)], axis=-1)
    return _rt.stack([_rt.real(t), _rt.imag(t)], axis=-1)


def view_as_complex(x: Any) -> Any:
    """Keras 3's `keras.ops.view_as_complex(x)`: a real tensor whose last axis holds
    (real, imaginary) pairs as complex64 numbers.

    >>> import rustape as rt
    >>> rt.keras.ops.view_as_complex([[1.0, 2.0], [3.0, 4.0]]).numpy()
    array([1.+2.j, 3.+4.j], dtype=complex64)
    """
    t = tensor(x)
    if len(t.shape) < 1 or int(t.shape[-1]) != 2:
        raise ValueError(
            "view_as_complex: the last axis must have size 2 (real and imaginary), got shape "
            f"{list(t.shape)}"
        )
    t = _rt.cast(t, "float32")
    return _rt.complex(t[..., 0], t[..., 1])


def _check_block(x: Any, block_size: int, data_format: str, name: str) -> tuple[Any, bool]:
    t = tensor(x)
    if block_size < 2:
        raise ValueError(f"{name}: block_size must be at least 2, got {block_size}")
    if len(t.shape) != 4:
        raise ValueError(f"{name}: expected a rank-4 batch of images, got shape {list(t.shape)}")
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"{name}: data_format must be 'channels_last' or 'channels_first', got {data_format!r}"
        )
    first = data_format == "channels_first"
    return (_rt.transpose(t, [0, 2, 3, 1]) if first else t), first


def depth_to_space(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    """Keras 3's `keras.ops.depth_to_space(x, block_size)`: channels moved into
    `block_size x block_size` spatial blocks (TensorFlow's DCR order).

    >>> import rustape as rt
    >>> rt.keras.ops.depth_to_space(rt.reshape(rt.range(4), [1, 1, 1, 4]), 2)[0, ..., 0].numpy()
    array([[0, 1],
           [2, 3]], dtype=int32)
    """
    t, first = _check_block(x, block_size, data_format, "depth_to_space")
    n, h, w, c = (int(d) for d in t.shape)
    b = block_size
    if c % (b * b):
        raise ValueError(f"depth_to_space: {c} channels do not divide into blocks of {b}x{b}")
    out = _rt.reshape(t, [n, h, w, b, b, c // (b * b)])
    out = _rt.transpose(out, [0, 1, 3, 2, 4, 5])
    out = _rt.reshape(out, [n, h * b, w * b, c // (b * b)])
    return _rt.transpose(out, [0, 3, 1, 2]) if first else out


def space_to_depth(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    """Keras 3's `keras.ops.space_to_depth(x, block_size)`: each `block_size x block_size`
    spatial block moved into the channels (the inverse of `depth_to_space`).

    >>> import rustape as rt
    >>> rt.keras.ops.space_to_depth(rt.zeros([1, 4, 4, 3]), 2).shape
    (1, 2, 2, 12)
    """
    t, first = _check_block(x, block_size, data_format, "space_to_depth")
    n, h, w, c = (int(d) for d in t.shape)
    b = block_size
    if h % b or w % b:
        raise ValueError(
            f"space_to_depth: height {h} and width {w} must be multiples of block_size {b}"
        )
    out = _rt.reshape(t, [n, h // b, b, w // b, b, c])
    out = _rt.transpose(out, [0, 1, 3, 2, 4, 5])
    out = _rt.reshape(out, [n, h // b, w // b, b * b * c])
    return _rt.transpose(out, [0, 3, 1, 2]) if first else out


def vectorized_map(function: Callable[..., Any], elements: Any) -> Any:
    """Keras 3's `keras.ops.vectorized_map(function, elements)`: `function` of each slice
    of `elements` along axis 0, stacked (batched into one call where rustape can prove the
    rows independent; see `rt.vectorized_map`).

    >>> import rustape as rt
    >>> rt.keras.ops.vectorized_map(lambda r: r * 2.0, rt.ones([2, 2])).numpy()
    array([[2., 2.],
           [2., 2.]], dtype=float32)
    """
    return _compat.vectorized_map(function, elements, warn=False)
