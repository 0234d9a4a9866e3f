"""`rt.image.extract_patches`: TensorFlow's `ExtractImagePatches` as a gather (so it
differentiates like one: the gradient scatters each patch value back to its pixel). The
indices are computed once per call from the static shapes; padded positions read an appended
zero pixel."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import rustape as rt

from ._export import export
from ._rustape import Tensor
from ._typing import TensorLike


def _four(value: Any, name: str) -> tuple[int, int]:
    items = [int(v) for v in value]
    if len(items) != 4 or items[0] != 1 or items[3] != 1 or min(items[1:3]) < 1:
        raise ValueError(
            f"image.extract_patches: {name} must be [1, rows, cols, 1] with positive rows and "
            f"cols, got {list(value)}"
        )
    return items[1], items[2]


def _axis(size: int, k: int, stride: int, rate: int, padding: str) -> np.ndarray:
    """`[out, k]` input positions along one axis (-1 where the window reads padding)."""
    span = k + (k - 1) * (rate - 1)
    if padding == "VALID":
        out = max(math.ceil((size - span + 1) / stride), 0)
        before = 0
    else:
        out = math.ceil(size / stride)
        before = max((out - 1) * stride + span - size, 0) // 2
    pos = np.arange(out)[:, None] * stride - before + np.arange(k)[None, :] * rate
    return np.where((pos >= 0) & (pos < size), pos, -1)


@export("image")
def extract_patches(
    images: TensorLike,
    sizes: Any,
    strides: Any,
    rates: Any,
    padding: str,
    name: str | None = None,
) -> Tensor:
    """`tf.image.extract_patches`: every `sizes` window (rows spaced by `rates`, windows by
    `strides`) of `[batch, h, w, depth]` images, flattened into the depth axis in `(row,
    column, channel)` order: `[batch, out_rows, out_cols, rows * cols * depth]`. `padding`:
    `'VALID'` (windows inside the image) or `'SAME'` (zeros around it, as TensorFlow
    places them). Differentiable with respect to the images.

    >>> x = rt.reshape(rt.range(16.0), [1, 4, 4, 1])
    >>> p = rt.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    >>> p.shape, p[0, 0, 1].numpy().tolist()
    ((1, 2, 2, 4), [2.0, 3.0, 6.0, 7.0])
    """
    x = rt.convert_to_tensor(images)
    if x.ndim != 4:
        raise ValueError(
            "image.extract_patches: images must have rank 4 [batch, height, width, depth], "
            f"got shape {list(x.shape)} ({x.dtype.name})"
        )
    kh, kw = _four(sizes, "sizes")
    sh, sw = _four(strides, "strides")
    rh, rw = _four(rates, "rates")
    mode = str(padding).upper()
    if mode not in ("VALID", "SAME"):
        raise ValueError(
            f"image.extract_patches: padding must be 'VALID' or 'SAME', got {padding!r}"
        )
    b, h, w, c = (int(d) for d in x.shape)
    rows = _axis(h, kh, sh, rh, mode)
    cols = _axis(w, kw, sw, rw, mode)
    oh, ow = rows.shape[0], cols.shape[0]
    r = rows[:, None, :, None]
    q = cols[None, :, None, :]
    index = np.where((r >= 0) & (q >= 0), r * w + q, h * w).astype(np.int64)
    flat = rt.concat([rt.reshape(x, [b, h * w, c]), rt.zeros([b, 1, c], x.dtype)], axis=1)
    picked = rt.gather(flat, index.reshape(-1), axis=1)
    return rt.reshape(picked, [b, oh, ow, kh * kw * c])
