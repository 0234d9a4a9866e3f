"""`rt.image.crop_and_resize`: TensorFlow's `CropAndResize` composed from gathers and
elementwise ops, so it differentiates with respect to the image and the boxes as TensorFlow's
registered gradients do (bilinear). Sample positions follow TensorFlow's kernel:
`in_y = y1 (h - 1) + i (y2 - y1) (h - 1) / (crop_h - 1)` (the box centre for a crop of one
row), samples outside `[0, h - 1]` take `extrapolation_value`."""

from __future__ import annotations

from typing import Any

import numpy as np

import rustape as rt

from ._export import export
from ._rustape import Tensor
from ._typing import TensorLike


def _positions(lo: Tensor, hi: Tensor, size: int, crop: int) -> Tensor:
    """`[boxes, crop]` sample positions along one axis of an image of `size` pixels."""
    extent = float(size - 1)
    if crop > 1:
        scale = (hi - lo) * extent / float(crop - 1)
        steps = rt.cast(rt.range(crop), lo.dtype)
        return lo[:, None] * extent + steps[None, :] * scale[:, None]
    return (0.5 * (lo + hi) * extent)[:, None]


@export("image")
def crop_and_resize(
    image: TensorLike,
    boxes: TensorLike,
    box_indices: TensorLike,
    crop_size: Any,
    method: str = "bilinear",
    extrapolation_value: float = 0.0,
    name: str | None = None,
) -> Tensor:
    """`tf.image.crop_and_resize`: for each box `[y1, x1, y2, x2]` (normalised coordinates,
    flipped when `y1 > y2`) of image `box_indices[k]`, a `crop_size` crop sampled bilinearly
    (or at the nearest pixel): `[num_boxes, crop_height, crop_width, depth]` in float32.
    Differentiable with respect to the image and (bilinear) the boxes.

    >>> x = rt.reshape(rt.range(9.0), [1, 3, 3, 1])
    >>> rt.image.crop_and_resize(x, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])[0, ..., 0].numpy().tolist()
    [[0.0, 2.0], [6.0, 8.0]]
    """
    x = rt.convert_to_tensor(image)
    if x.ndim != 4:
        raise ValueError(
            "image.crop_and_resize: image must have rank 4 [batch, height, width, depth], got "
            f"shape {list(x.shape)} ({x.dtype.name})"
        )
    if not x.dtype.is_floating:
        x = rt.cast(x, rt.float32)
    b = rt.cast(rt.convert_to_tensor(boxes), x.dtype)
    idx = np.asarray(rt.convert_to_tensor(box_indices).numpy(), dtype=np.int64)
    n = int(b.shape[0]) if b.ndim == 2 else -1
    if b.ndim != 2 or int(b.shape[1]) != 4 or idx.shape != (n,):
        raise ValueError(
            "image.crop_and_resize: boxes must be [num_boxes, 4] and box_indices [num_boxes], "
            f"got {list(b.shape)} and {list(idx.shape)}"
        )
    batch, h, w, c = (int(d) for d in x.shape)
    if n and (idx.min() < 0 or idx.max() >= batch):
        raise ValueError(
            f"image.crop_and_resize: box_indices must be in [0, {batch}), got {idx.tolist()}"
        )
    ch, cw = (int(v) for v in crop_size)
    if ch < 1 or cw < 1:
        raise ValueError(f"image.crop_and_resize: crop_size must be positive, got {crop_size}")
    if method not in ("bilinear", "nearest"):
        raise ValueError(
            f"image.crop_and_resize: method must be 'bilinear' or 'nearest', got {method!r}"
        )
    ys = _positions(b[:, 0], b[:, 2], h, ch)  # [n, ch]
    xs = _positions(b[:, 1], b[:, 3], w, cw)  # [n, cw]
    inside = (
        ((ys >= 0.0) & (ys <= float(h - 1)))[:, :, None]
        & ((xs >= 0.0) & (xs <= float(w - 1)))[:, None, :]
    )[..., None]
    flat = rt.reshape(x, [batch * h * w, c])
    base = rt.constant(idx * h * w, rt.int64)[:, None, None]

    def clamp(v: Tensor, top: int) -> Tensor:
        return rt.cast(rt.clip_by_value(v, 0.0, float(top)), rt.int64)

    def pick(rows: Tensor, cols: Tensor) -> Tensor:
        at = base + rows[:, :, None] * w + cols[:, None, :]
        return rt.gather(flat, at)

    if method == "nearest":
        # C's roundf (halves away from zero; the positions used are not negative)
        out = pick(clamp(rt.floor(ys + 0.5), h - 1), clamp(rt.floor(xs + 0.5), w - 1))
    else:
        y0, x0 = rt.floor(ys), rt.floor(xs)
        ty, tx = clamp(y0, h - 1), clamp(x0, w - 1)
        by, bx = clamp(-rt.floor(-ys), h - 1), clamp(-rt.floor(-xs), w - 1)
        y_lerp = (ys - rt.stop_gradient(y0))[:, :, None, None]
        x_lerp = (xs - rt.stop_gradient(x0))[:, None, :, None]
        top_left, top_right = pick(ty, tx), pick(ty, bx)
        bottom_left, bottom_right = pick(by, tx), pick(by, bx)
        top = top_left + (top_right - top_left) * x_lerp
        bottom = bottom_left + (bottom_right - bottom_left) * x_lerp
        out = top + (bottom - top) * y_lerp
    fill = rt.constant(extrapolation_value, dtype=out.dtype)
    return rt.where(inside, out, fill)
