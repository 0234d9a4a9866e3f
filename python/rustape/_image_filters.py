"""`rt.image`'s filters, measures and random adjustments, composed from rustape's ops (so they
differentiate like them), with `tf.image`'s names and arithmetic: `image_gradients`,
`sobel_edges`, `total_variation`, `psnr`, `adjust_gamma`, `random_brightness`,
`random_contrast` and the stateless (seed-pair) variants of the random adjustments and flips.
The random draws are rustape's (TensorFlow's values cannot be matched); a seed pair gives the
same draw every call."""

from __future__ import annotations

from typing import Any

import rustape as rt

from ._export import export
from ._image import _image, adjust_brightness, adjust_contrast, convert_image_dtype
from ._rustape import Tensor
from ._typing import TensorLike


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_floating else convert_image_dtype(x, rt.float32)


@export("image")
def image_gradients(image: TensorLike) -> tuple[Tensor, Tensor]:
    """`tf.image.image_gradients`: `(dy, dx)` of a `[batch, h, w, d]` image, the forward
    differences `x[i + 1, j] - x[i, j]` and `x[i, j + 1] - x[i, j]`, zero on the last row
    (`dy`) and column (`dx`).

    >>> x = rt.reshape(rt.constant([1.0, 2.0, 4.0, 8.0]), [1, 2, 2, 1])
    >>> dy, dx = rt.image.image_gradients(x)
    >>> dy[0, :, :, 0].numpy().tolist(), dx[0, :, :, 0].numpy().tolist()
    ([[3.0, 6.0], [0.0, 0.0]], [[1.0, 0.0], [4.0, 0.0]])
    """
    x = rt.convert_to_tensor(image)
    if x.ndim != 4:
        raise ValueError(
            "image.image_gradients: expected a 4-D [batch_size, h, w, d] image, got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    dy = x[:, 1:, :, :] - x[:, :-1, :, :]
    dx = x[:, :, 1:, :] - x[:, :, :-1, :]
    dy = rt.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = rt.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


@export("image")
def sobel_edges(image: TensorLike) -> Tensor:
    """`tf.image.sobel_edges`: the Sobel responses `[batch, h, w, d, 2]` (vertical then
    horizontal derivative) of each channel, the image padded by reflection.

    >>> x = rt.reshape(rt.constant([0.0, 0.0, 1.0] * 3), [1, 3, 3, 1])
    >>> rt.image.sobel_edges(x)[0, 1, :, 0, 1].numpy().tolist()
    [0.0, 4.0, 0.0]
    """
    x = rt.convert_to_tensor(image)
    if x.ndim != 4:
        raise ValueError(
            "image.sobel_edges: expected a 4-D [batch_size, h, w, d] image, got shape "
            f"{list(x.shape)} ({x.dtype.name})"
        )
    p = rt.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")

    def at(rows: slice, cols: slice) -> Tensor:
        return p[:, rows, cols, :]

    top, mid, bottom = slice(None, -2), slice(1, -1), slice(2, None)
    left, centre, right = slice(None, -2), slice(1, -1), slice(2, None)
    vertical = (at(bottom, left) + 2.0 * at(bottom, centre) + at(bottom, right)) - (
        at(top, left) + 2.0 * at(top, centre) + at(top, right)
    )
    horizontal = (at(top, right) + 2.0 * at(mid, right) + at(bottom, right)) - (
        at(top, left) + 2.0 * at(mid, left) + at(bottom, left)
    )
    return rt.stack([vertical, horizontal], axis=-1)


@export("image")
def total_variation(images: TensorLike) -> Tensor:
    """`tf.image.total_variation`: the sum of absolute differences of neighbouring pixels
    (rows and columns); a scalar for one `[h, w, c]` image, one value per image of a batch.

    >>> rt.image.total_variation(rt.reshape(rt.constant([0.0, 1.0, 3.0, 2.0]), [2, 2, 1]))
    <rt.Tensor: shape=(), dtype=float32, numpy=6.0>
    """
    x = _image(images, "total_variation")
    dh = x[..., 1:, :, :] - x[..., :-1, :, :]
    dw = x[..., :, 1:, :] - x[..., :, :-1, :]
    axes = [-3, -2, -1]
    return rt.reduce_sum(rt.abs(dh), axis=axes) + rt.reduce_sum(rt.abs(dw), axis=axes)


@export("image")
def psnr(a: TensorLike, b: TensorLike, max_val: Any) -> Tensor:
    """`tf.image.psnr`: the peak signal-to-noise ratio `20 log10(max_val) - 10 log10(mse)` of
    each image pair (the last three axes), in float32 for integer images.

    >>> a = rt.zeros([1, 2, 2, 1])
    >>> float(rt.image.psnr(a, a + 0.1, 1.0)[0])  # doctest: +ELLIPSIS
    20.0...
    """
    x, y = rt.convert_to_tensor(a), rt.convert_to_tensor(b)
    if x.dtype != y.dtype:
        raise TypeError(
            f"image.psnr: a and b must have the same dtype, got {x.dtype.name} and {y.dtype.name}"
        )
    if x.ndim < 3:
        raise ValueError(f"image.psnr: images must have rank at least 3, got shape {list(x.shape)}")
    top = _float(rt.cast(max_val, x.dtype))
    x, y = _float(x), _float(y)
    mse = rt.reduce_mean(rt.square(x - y), axis=[-3, -2, -1])
    ln10 = rt.math.log(rt.constant(10.0, x.dtype))
    return 20.0 * rt.math.log(top) / ln10 - 10.0 / ln10 * rt.math.log(mse)


@export("image")
def adjust_gamma(image: TensorLike, gamma: float = 1, gain: float = 1) -> Tensor:
    """`tf.image.adjust_gamma`: `gain * image ** gamma` (integer images converted to float32
    and back, saturating).

    >>> rt.image.adjust_gamma(rt.fill([1, 1, 1], 0.25), gamma=0.5, gain=2.0).numpy().ravel()
    array([1.], dtype=float32)
    """
    x = rt.convert_to_tensor(image)
    if float(gamma) < 0:
        raise ValueError(f"image.adjust_gamma: gamma must be non-negative, got {gamma}")
    flt = _float(x)
    out = rt.cast(gain, flt.dtype) * flt ** rt.cast(gamma, flt.dtype)
    return convert_image_dtype(out, x.dtype, saturate=True)


@export("image")
def random_brightness(image: TensorLike, max_delta: float, seed: int | None = None) -> Tensor:
    """`tf.image.random_brightness`: `adjust_brightness` by one delta drawn uniformly from
    `[-max_delta, max_delta)` for the whole input.

    >>> y = rt.image.random_brightness(rt.zeros([2, 2, 1]), 0.2, seed=1)
    >>> bool(abs(float(y[0, 0, 0])) <= 0.2)
    True
    """
    if max_delta < 0:
        raise ValueError(
            f"image.random_brightness: max_delta must be non-negative, got {max_delta}"
        )
    delta = rt.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


@export("image")
def random_contrast(
    image: TensorLike, lower: float, upper: float, seed: int | None = None
) -> Tensor:
    """`tf.image.random_contrast`: `adjust_contrast` by one factor drawn uniformly from
    `[lower, upper)` for the whole input.

    >>> x = rt.reshape(rt.constant([0.0, 1.0]), [1, 2, 1])
    >>> y = rt.image.random_contrast(x, 2.0, 2.5, seed=1)[0, :, 0].numpy()
    >>> bool(-0.75 <= y[0] <= -0.5)
    True
    """
    _check_contrast("random_contrast", lower, upper)
    factor = rt.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def _check_contrast(op: str, lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError(f"image.{op}: upper must be greater than lower, got {lower}, {upper}")
    if lower < 0:
        raise ValueError(f"image.{op}: lower must be non-negative, got {lower}")


@export("image")
def stateless_random_brightness(image: TensorLike, max_delta: float, seed: Any) -> Tensor:
    """`tf.image.stateless_random_brightness`: `random_brightness` with the delta drawn by
    `rt.random.stateless_uniform` from the seed pair `seed` (the same seed, the same result).

    >>> a = rt.image.stateless_random_brightness(rt.zeros([1, 1, 1]), 0.5, seed=[1, 2])
    >>> b = rt.image.stateless_random_brightness(rt.zeros([1, 1, 1]), 0.5, seed=[1, 2])
    >>> bool(a.numpy() == b.numpy())
    True
    """
    if max_delta < 0:
        raise ValueError(
            f"image.stateless_random_brightness: max_delta must be non-negative, got {max_delta}"
        )
    delta = rt.random.stateless_uniform([], seed, -max_delta, max_delta)
    return adjust_brightness(image, delta)


@export("image")
def stateless_random_contrast(image: TensorLike, lower: float, upper: float, seed: Any) -> Tensor:
    """`tf.image.stateless_random_contrast`: `random_contrast` with the factor drawn by
    `rt.random.stateless_uniform` from the seed pair `seed`.

    >>> x = rt.reshape(rt.constant([0.0, 1.0]), [1, 2, 1])
    >>> y = rt.image.stateless_random_contrast(x, 1.0, 3.0, seed=[3, 4])
    >>> bool(float(y[0, 1, 0]) >= 1.0)
    True
    """
    _check_contrast("stateless_random_contrast", lower, upper)
    factor = rt.random.stateless_uniform([], seed, lower, upper)
    return adjust_contrast(image, factor)


def _stateless_flip(image: TensorLike, seed: Any, axis: int, op: str) -> Tensor:
    x = _image(image, op)
    shape = [int(x.shape[0])] if x.ndim == 4 else []
    draws = rt.random.stateless_uniform(shape, seed, 0.0, 1.0)
    # TensorFlow flips one image when its draw is below 0.5, a batch's images where theirs
    # round to 1 (above 0.5).
    flip = rt.reshape(draws > 0.5 if shape else draws < 0.5, shape + [1, 1, 1])
    return rt.where(flip, rt.reverse(x, [axis]), x)


@export("image")
def stateless_random_flip_left_right(image: TensorLike, seed: Any) -> Tensor:
    """`tf.image.stateless_random_flip_left_right`: each image flipped left-right when its
    draw of `rt.random.stateless_uniform(seed)` is below 0.5.

    >>> x = rt.reshape(rt.range(2.0), [1, 2, 1])
    >>> sorted(rt.image.stateless_random_flip_left_right(x, [1, 2])[0, :, 0].numpy().tolist())
    [0.0, 1.0]
    """
    return _stateless_flip(image, seed, -2, "stateless_random_flip_left_right")


@export("image")
def stateless_random_flip_up_down(image: TensorLike, seed: Any) -> Tensor:
    """`tf.image.stateless_random_flip_up_down`: each image flipped upside down when its
    draw of `rt.random.stateless_uniform(seed)` is below 0.5.

    >>> x = rt.reshape(rt.range(2.0), [2, 1, 1])
    >>> sorted(rt.image.stateless_random_flip_up_down(x, [1, 2])[:, 0, 0].numpy().tolist())
    [0.0, 1.0]
    """
    return _stateless_flip(image, seed, -3, "stateless_random_flip_up_down")
