"""Keras 3's `keras.ops.image` over rustape (TensorFlow backend's arithmetic): `affine_transform`,
`perspective_transform`, `resize`, the colour conversions, `pad_images` / `crop_images` and
`ssim`, on `[h, w, c]` or
`[b, h, w, c]` images (`data_format='channels_first'`: channels first).

>>> import rustape as rt
>>> rt.keras.ops.image.resize(rt.ones([1, 4, 4, 3]), (2, 2)).shape
(1, 2, 2, 3)
"""

from __future__ import annotations

from typing import Any

import rustape as _rt

__all__ = [
    "affine_transform",
    "crop_images",
    "gaussian_blur",
    "hsv_to_rgb",
    "pad_images",
    "perspective_transform",
    "resize",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "ssim",
]


def _data_format(op: str, data_format: str | None) -> str:
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"{op}: data_format must be 'channels_last' or 'channels_first', got {data_format!r}"
        )
    return data_format


def _to_last(x: Any, data_format: str) -> Any:
    if data_format == "channels_last":
        return x
    return _rt.transpose(x, [1, 2, 0] if x.ndim == 3 else [0, 2, 3, 1])


def _to_first(x: Any, data_format: str) -> Any:
    if data_format == "channels_last":
        return x
    return _rt.transpose(x, [2, 0, 1] if x.ndim == 3 else [0, 3, 1, 2])


def affine_transform(
    images: Any,
    transform: Any,
    interpolation: str = "bilinear",
    fill_mode: str = "constant",
    fill_value: float = 0,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.affine_transform`: each image resampled at the points its
    transform (`[8]` or `[batch, 8]`: `[a0, a1, a2, b0, b1, b2, c0, c1]`) maps the output
    pixels to, as `rt.image.affine_transform` (TensorFlow's `ImageProjectiveTransformV3`).
    `interpolation`: `'nearest'` or `'bilinear'`; `fill_mode`: `'constant'`, `'nearest'`,
    `'wrap'`, `'mirror'` (SciPy's, which Keras's TensorFlow backend lacks) or `'reflect'`.

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(4.0), [1, 4, 1])
    >>> flip = [-1.0, 0.0, 3.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    >>> rt.keras.ops.image.affine_transform(x, flip)[0, :, 0].numpy().tolist()
    [3.0, 2.0, 1.0, 0.0]
    """
    op = "keras.ops.image.affine_transform"
    data_format = _data_format(op, data_format)
    x = _rt.convert_to_tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError(
            f"{op}: images must have rank 3 (single image) or 4 (batch of images), got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    t = _rt.convert_to_tensor(transform)
    if t.ndim not in (1, 2):
        raise ValueError(
            f"{op}: transform must have rank 1 (single transform) or 2 (batch of transforms), "
            f"got shape {list(t.shape)} ({t.dtype.name})"
        )
    y = _rt.image.affine_transform(
        _to_last(x, data_format), t, interpolation, fill_mode, float(fill_value)
    )
    return _to_first(y, data_format)


def resize(
    images: Any,
    size: Any,
    interpolation: str = "bilinear",
    antialias: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    fill_mode: str = "constant",
    fill_value: float = 0.0,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.resize`: `rt.image.resize` to `size = (height, width)`, first
    cropping (`crop_to_aspect_ratio`) or padding with `fill_value` (`pad_to_aspect_ratio`) to
    the target aspect ratio.

    >>> import rustape as rt
    >>> rt.keras.ops.image.resize(rt.ones([2, 6, 3]), (3, 3), interpolation="area").shape
    (3, 3, 3)
    """
    from ..layers.image_preprocessing import _resize

    op = "keras.ops.image.resize"
    data_format = _data_format(op, data_format)
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(
            f"{op}: only one of crop_to_aspect_ratio and pad_to_aspect_ratio can be True"
        )
    if fill_mode != "constant":
        raise ValueError(f"{op}: fill_mode must be 'constant', got {fill_mode!r}")
    height, width = (int(v) for v in size)
    x = _to_last(_rt.convert_to_tensor(images), data_format)
    y = _resize(
        x,
        height,
        width,
        interpolation,
        antialias,
        crop_to_aspect_ratio,
        pad_to_aspect_ratio,
        fill_value,
    )
    return _to_first(y, data_format)


def _rank(op: str, x: Any) -> None:
    if x.ndim not in (3, 4):
        raise ValueError(
            f"{op}: invalid images rank: expected rank 3 (single image) or rank 4 (batch of "
            f"images), got shape {list(x.shape)}"
        )


def _channelwise(op: str, images: Any, data_format: str | None, fn: Any) -> Any:
    data_format = _data_format(op, data_format)
    x = _rt.convert_to_tensor(images)
    _rank(op, x)
    return _to_first(fn(_to_last(x, data_format)), data_format)


def rgb_to_grayscale(images: Any, data_format: str | None = None) -> Any:
    """Keras 3's `keras.ops.image.rgb_to_grayscale`: `0.2989 R + 0.5870 G + 0.1140 B`, keeping
    a channel axis of one.

    >>> import rustape as rt
    >>> rt.keras.ops.image.rgb_to_grayscale(rt.ones([2, 2, 3])).shape
    (2, 2, 1)
    """
    op = "keras.ops.image.rgb_to_grayscale"
    return _channelwise(op, images, data_format, _rt.image.rgb_to_grayscale)


def _float_images(op: str, fn: Any) -> Any:
    def checked(x: Any) -> Any:
        if not x.dtype.is_floating:
            raise ValueError(
                f"{op}: invalid images dtype: expected float dtype, got {x.dtype.name}"
            )
        return fn(x)

    return checked


def rgb_to_hsv(images: Any, data_format: str | None = None) -> Any:
    """Keras 3's `keras.ops.image.rgb_to_hsv` (`rt.image.rgb_to_hsv` on the channel axis; float
    images only).

    >>> import rustape as rt
    >>> rt.keras.ops.image.rgb_to_hsv(np.array([[[0.0, 0.0, 1.0]]])).numpy().round(4).tolist()
    [[[0.6667, 1.0, 1.0]]]
    """
    op = "keras.ops.image.rgb_to_hsv"
    return _channelwise(op, images, data_format, _float_images(op, _rt.image.rgb_to_hsv))


def hsv_to_rgb(images: Any, data_format: str | None = None) -> Any:
    """Keras 3's `keras.ops.image.hsv_to_rgb` (`rt.image.hsv_to_rgb` on the channel axis; float
    images only).

    >>> import rustape as rt
    >>> rt.keras.ops.image.hsv_to_rgb(rt.constant([[[0.0, 1.0, 1.0]]])).numpy().tolist()
    [[[1.0, 0.0, 0.0]]]
    """
    op = "keras.ops.image.hsv_to_rgb"
    return _channelwise(op, images, data_format, _float_images(op, _rt.image.hsv_to_rgb))


def _sides(
    op: str, what: str, first: Any, second: Any, target: Any, size: int, pad: bool
) -> tuple[int, int, int]:
    names = {
        "height": ("top", "bottom", "target_height"),
        "width": ("left", "right", "target_width"),
    }[what]
    word = "padding" if pad else "cropping"
    given = (first, second, target)
    if given.count(None) != 1:
        raise ValueError(
            f"{op}: must specify exactly two of {names[0]}_{word}, {names[1]}_{word}, "
            f"{names[2]}. Received: {names[0]}_{word}={first}, {names[1]}_{word}={second}, "
            f"{names[2]}={target}"
        )
    for value, name in zip(given, (f"{names[0]}_{word}", f"{names[1]}_{word}", names[2])):
        if value is not None and int(value) < 0:
            raise ValueError(f"{op}: {name} must be >= 0. Received: {name}={value}")
    if pad:
        if first is None:
            first = int(target) - int(second) - size
        if second is None:
            second = int(target) - int(first) - size
        target = int(first) + int(second) + size
    else:
        if first is None:
            first = size - int(target) - int(second)
        if target is None:
            target = size - int(second) - int(first)
        second = size - int(first) - int(target)
    first, second, target = int(first), int(second), int(target)
    for value, name in ((first, f"{names[0]}_{word}"), (second, f"{names[1]}_{word}")):
        if value < 0:
            raise ValueError(f"{op}: {name} must be >= 0. Received: {name}={value}")
    if target < 0:
        raise ValueError(f"{op}: {names[2]} must be >= 0. Received: {names[2]}={target}")
    return first, second, target


def pad_images(
    images: Any,
    top_padding: int | None = None,
    left_padding: int | None = None,
    bottom_padding: int | None = None,
    right_padding: int | None = None,
    target_height: int | None = None,
    target_width: int | None = None,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.pad_images`: zero padding on each side; of the two paddings
    and the target size of each axis, exactly two are given.

    >>> import rustape as rt
    >>> rt.keras.ops.image.pad_images(rt.ones([2, 2, 1]), 1, 0, target_height=4, target_width=3).shape
    (4, 3, 1)
    """
    op = "keras.ops.image.pad_images"

    def pad(x: Any) -> Any:
        h, w = int(x.shape[-3]), int(x.shape[-2])
        top, bottom, _ = _sides(op, "height", top_padding, bottom_padding, target_height, h, True)
        left, right, _ = _sides(op, "width", left_padding, right_padding, target_width, w, True)
        widths = [[top, bottom], [left, right], [0, 0]]
        return _rt.pad(x, ([[0, 0]] if x.ndim == 4 else []) + widths)

    return _channelwise(op, images, data_format, pad)


def crop_images(
    images: Any,
    top_cropping: int | None = None,
    left_cropping: int | None = None,
    bottom_cropping: int | None = None,
    right_cropping: int | None = None,
    target_height: int | None = None,
    target_width: int | None = None,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.crop_images`: the window left after cropping each side; of
    the two croppings and the target size of each axis, exactly two are given.

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(16.0), [4, 4, 1])
    >>> rt.keras.ops.image.crop_images(x, 1, 1, target_height=2, target_width=2)[..., 0].numpy().tolist()
    [[5.0, 6.0], [9.0, 10.0]]
    """
    op = "keras.ops.image.crop_images"

    def crop(x: Any) -> Any:
        h, w = int(x.shape[-3]), int(x.shape[-2])
        top, _, th = _sides(op, "height", top_cropping, bottom_cropping, target_height, h, False)
        left, _, tw = _sides(op, "width", left_cropping, right_cropping, target_width, w, False)
        return x[..., top : top + th, left : left + tw, :]

    return _channelwise(op, images, data_format, crop)


def ssim(
    image1: Any,
    image2: Any,
    max_val: float = 1.0,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.ssim`: the structural similarity of each image pair (a
    Gaussian window, VALID), averaged over pixels and channels: one value per image pair, a
    scalar for single images (`rt.image.ssim`'s arithmetic).

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(192.0) / 192.0, [8, 8, 3])
    >>> float(rt.keras.ops.image.ssim(x, x, filter_size=3))
    1.0
    """
    op = "keras.ops.image.ssim"
    data_format = _data_format(op, data_format)
    a, b = _rt.convert_to_tensor(image1), _rt.convert_to_tensor(image2)
    for name, x in (("image1", a), ("image2", b)):
        if x.ndim not in (3, 4):
            raise ValueError(
                f"{op}: invalid {name} rank: expected rank 3 (single image) or rank 4 (batch "
                f"of images), got shape {list(x.shape)}"
            )
    a, b = _to_last(a, data_format), _to_last(b, data_format)
    return _rt.image.ssim(
        a, b, max_val, filter_size=filter_size, filter_sigma=filter_sigma, k1=k1, k2=k2
    )


def _gaussian_kernel(size: Any, sigma: Any, dtype: Any) -> Any:
    """Keras's TensorFlow-backend kernel: 1-D Gaussians of `size[0]`/`sigma[0]` (x) and
    `size[1]`/`sigma[1]` (y), their outer product `y x^T` laid out as `size[0] x size[1]`."""
    import numpy as np

    np_dtype = np.dtype(dtype.name)

    def one(n: int, s: Any) -> Any:
        x = np.arange(n, dtype=np_dtype) - np_dtype.type((n - 1) / 2)
        k = np.exp(np_dtype.type(-0.5) * (x / np_dtype.type(s)) ** 2)
        return k / k.sum(dtype=np_dtype)

    kx, ky = one(int(size[0]), sigma[0]), one(int(size[1]), sigma[1])
    return np.outer(ky, kx).astype(np_dtype).reshape(int(size[0]), int(size[1]))


def gaussian_blur(
    images: Any, kernel_size: Any = (3, 3), sigma: Any = (1.0, 1.0), data_format: str | None = None
) -> Any:
    """Keras 3's `keras.ops.image.gaussian_blur`: a per-channel Gaussian filter (SAME, zero
    padding) with Keras's kernel.

    >>> import rustape as rt
    >>> y = rt.keras.ops.image.gaussian_blur(rt.ones([1, 5, 5, 2]), (3, 3), (1.0, 1.0))
    >>> round(float(y[0, 2, 2, 0]), 6)
    1.0
    """
    import numpy as np

    op = "keras.ops.image.gaussian_blur"
    sizes = [int(v) for v in np.broadcast_to(np.asarray(kernel_size), (2,))]
    sigmas = [float(v) for v in np.broadcast_to(np.asarray(sigma, dtype=np.float64), (2,))]

    def blur(x: Any) -> Any:
        if not x.dtype.is_floating:
            x = _rt.cast(x, _rt.float32)
        kernel = _gaussian_kernel(sizes, sigmas, x.dtype)
        channels = int(x.shape[-1])
        filt = np.tile(kernel[:, :, None, None], (1, 1, channels, 1))
        batched = x if x.ndim == 4 else _rt.expand_dims(x, 0)
        out = _rt.nn.depthwise_conv2d(batched, filt, [1, 1, 1, 1], "SAME")
        return out if x.ndim == 4 else _rt.squeeze(out, 0)

    return _channelwise(op, images, data_format, blur)


def _homography(start: Any, end: Any) -> Any:
    """Keras's `compute_homography_matrix`: the `[n, 8]` projective transforms mapping each
    `end` quadrilateral (`[n, 4, 2]`, `(x, y)` corners) onto its `start` one (the 8x8 linear
    system solved per image, float32)."""
    zero, one = _rt.zeros_like(end[:, 0, 0]), _rt.ones_like(end[:, 0, 0])
    rows = []
    for k in range(4):
        sx, sy, ex, ey = start[:, k, 0], start[:, k, 1], end[:, k, 0], end[:, k, 1]
        rows.append(_rt.stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], axis=-1))
        rows.append(_rt.stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], axis=-1))
    matrix = _rt.stack(rows, axis=1)
    target = _rt.reshape(start, [-1, 8, 1])
    return _rt.reshape(_rt.linalg.solve(matrix, target), [-1, 8])


def perspective_transform(
    images: Any,
    start_points: Any,
    end_points: Any,
    interpolation: str = "bilinear",
    fill_value: float = 0,
    data_format: str | None = None,
) -> Any:
    """Keras 3's `keras.ops.image.perspective_transform`: each image warped so that its
    quadrilateral `start_points` (`[4, 2]` or `[batch, 4, 2]`, `(x, y)` corners) lands on
    `end_points`; the homography comes from an 8x8 float32 solve (Keras's
    `compute_homography_matrix`) and the resampling is `rt.image.affine_transform` (constant
    fill with `fill_value`). Differentiable with respect to the images.

    >>> import rustape as rt
    >>> x = rt.reshape(rt.range(16.0), [4, 4, 1])
    >>> corners = [[0, 0], [3, 0], [0, 3], [3, 3]]
    >>> shifted = [[1, 0], [4, 0], [1, 3], [4, 3]]  # one pixel to the right
    >>> y = rt.keras.ops.image.perspective_transform(x, corners, shifted)
    >>> [round(float(v), 4) for v in y[0, :, 0]]
    [0.0, 0.0, 1.0, 2.0]
    """
    op = "keras.ops.image.perspective_transform"
    data_format = _data_format(op, data_format)
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(
            f"{op}: invalid interpolation {interpolation!r}; expected 'nearest' or 'bilinear'"
        )
    x = _rt.convert_to_tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError(
            f"{op}: images must have rank 3 (single image) or 4 (batch of images), got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    start = _rt.cast(_rt.convert_to_tensor(start_points), _rt.float32)
    end = _rt.cast(_rt.convert_to_tensor(end_points), _rt.float32)
    for what, p in (("start_points", start), ("end_points", end)):
        if p.ndim not in (2, 3) or tuple(p.shape[-2:]) != (4, 2):
            raise ValueError(
                f"{op}: {what} must have shape (4, 2) for a single image or (N, 4, 2) for a "
                f"batch, got {list(p.shape)}"
            )
    if tuple(start.shape) != tuple(end.shape):
        raise ValueError(
            f"{op}: start_points and end_points must have the same shape, got "
            f"{list(start.shape)} and {list(end.shape)}"
        )
    unbatched = x.ndim == 3
    x = _rt.expand_dims(x, 0) if unbatched else x
    if start.ndim == 2:
        start, end = _rt.expand_dims(start, 0), _rt.expand_dims(end, 0)
    transform = _homography(start, end)
    y = _rt.image.affine_transform(
        _to_last(x, data_format), transform, interpolation, "constant", float(fill_value)
    )
    y = _to_first(y, data_format)
    return y[0] if unbatched else y
