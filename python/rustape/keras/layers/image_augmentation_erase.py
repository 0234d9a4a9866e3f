"""Keras 3's `Equalization` (histogram equalisation per channel), `RandomErasing` (a random
rectangle per image replaced by a fill value) and `RandomPerspective` (random corner shifts
through `keras.ops.image.perspective_transform`). The shared machinery is
image_augmentation.py's."""

from __future__ import annotations

from typing import Any

import rustape as rt

from .image_augmentation import _RandomImageLayer, _training, check_value_range

__all__ = ["Equalization", "RandomErasing", "RandomPerspective"]


def _affine(x: Any, source: list[float], target: list[float]) -> Any:
    """Keras's `_scale_values`: `x * scale + offset` mapping `source` onto `target` (the
    constants computed in double, as Keras's Python does)."""
    scale = (target[1] - target[0]) / (source[1] - source[0])
    offset = target[0] - source[0] * scale
    return x * scale + offset


def _unit_bounds(owner: str, value: Any, name: str) -> tuple[float, float]:
    """Keras's `_set_factor` with bounds `[0, 1]`: a number `f` is `(0, f)`, a pair sorted."""
    message = (
        f"{owner}: the `{name}` argument should be a number (or a list of two numbers) in the "
        f"range [0.0, 1.0]. Received: {name}={value!r}"
    )
    if isinstance(value, (tuple, list)):
        if len(value) != 2 or value[0] > 1.0 or value[1] < 0.0:
            raise ValueError(message)
        low, high = sorted(float(v) for v in value)
        return low, high
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not 0.0 <= value <= 1.0:
            raise ValueError(message)
        return 0.0, float(abs(value))
    raise ValueError(message)


class Equalization(_RandomImageLayer):
    """Histogram equalisation of each channel (Keras 3's `Equalization`): the channel's values
    (over the whole batch, as Keras's layer pools them) are binned into `bins` bins on the
    `[0, 255]` scale and mapped through the rounded, normalised cumulative histogram; a
    channel with at most one occupied bin is left as it was. With `training=False` the images
    pass unchanged (as Keras). Keras's float32 arithmetic, step for step.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Equalization()
    >>> x = rt.reshape(rt.constant([0.0, 0.0, 100.0, 200.0]), [2, 2, 1])
    >>> layer(x)[..., 0].numpy().tolist()
    [[0.0, 0.0], [128.0, 255.0]]
    """

    def __init__(
        self,
        value_range: Any = (0, 255),
        bins: int = 256,
        data_format: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(None, data_format, name, dtype, kwargs)
        check_value_range("Equalization", value_range)
        if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2:
            raise ValueError(f"Equalization: bins must be an integer >= 2, got {bins!r}")
        self.value_range = sorted(value_range)
        self.bins = bins

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """None: the layer has no random part."""
        return None

    def _equalize(self, channel: Any) -> Any:
        bins = self.bins
        lo, hi = float(self.value_range[0]), float(self.value_range[1])
        # Keras compares its sorted list with the tuple (0, 255), which always differs: the
        # rescale always runs (for [0, 255] it multiplies by 1 and adds 0).
        channel = _affine(channel, [lo, hi], [0.0, 255.0])
        scaled = (channel - 0.0) * float(bins - 1) / 255.0
        index = rt.clip_by_value(rt.cast(scaled, rt.int32), 0, bins - 1)
        hist = rt.math.bincount(rt.reshape(index, [-1]), minlength=bins, maxlength=bins)
        cdf = rt.cumsum(hist)
        occupied = rt.cast(hist > 0, rt.int32)
        first = rt.gather(cdf, rt.argmax(occupied))
        denominator = cdf[-1] - first
        denominator = rt.where(denominator == 0, rt.ones_like(denominator), denominator)
        # Keras divides the int32 counts in float64, so the table, the pixels read from it and
        # the rescale back are float64 until the layer's final cast.
        table = rt.cast((cdf - first) * 255, rt.float64) / rt.cast(denominator, rt.float64)
        table = rt.clip_by_value(rt.round(table), 0.0, 255.0)
        position = rt.clip_by_value((channel / 255.0) * float(bins - 1), 0.0, float(bins - 1))
        equalized = rt.gather(table, rt.cast(position, rt.int32))
        if int(rt.math.count_nonzero(hist)) <= 1:
            equalized = rt.cast(channel, rt.float64)
        return rt.cast(_affine(equalized, [0.0, 255.0], [lo, hi]), channel.dtype)

    def transform_images(
        self, images: Any, transformation: Any = None, training: bool = True
    ) -> Any:
        """Every channel equalised (unchanged when not training)."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training:
            return images
        axis = -3 if self.data_format == "channels_first" else -1
        channels = rt.unstack(images, axis=axis)
        return rt.stack([self._equalize(c) for c in channels], axis=axis)

    def call(self, inputs: Any, training: Any = True) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return self.transform_images(inputs, None, training=_training(training))


class RandomErasing(_RandomImageLayer):
    """Erases a random rectangle of each image with a probability drawn uniformly from
    `factor` (Keras 3's `RandomErasing`; `factor=1.0` is the range `(0, 1)`, `(1.0, 1.0)` always
    erases): the rectangle's sides are `sqrt(u) * side` for `u` uniform in `scale`
    (one draw per side), its corner uniform inside the image; erased pixels take `fill_value`
    (a number, or 3 per-channel numbers; `None`: Gaussian noise times `value_range[1]`),
    clipped to `value_range`. Seeded draws are rustape's own (Keras's generator differs); with
    `training=False` the images pass unchanged. Differentiable with respect to the images
    (zero gradient where erased).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomErasing(factor=(1.0, 1.0), scale=(0.25, 0.25), fill_value=0.0, seed=3)
    >>> out = layer(rt.ones([1, 8, 8, 1]))
    >>> int(rt.reduce_sum(rt.cast(out == 0.0, rt.int32)))
    16
    """

    def __init__(
        self,
        factor: Any = 1.0,
        scale: Any = (0.02, 0.33),
        fill_value: Any = None,
        value_range: Any = (0, 255),
        seed: int | None = None,
        data_format: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _unit_bounds("RandomErasing", factor, "factor")
        self.scale = _unit_bounds("RandomErasing", scale, "scale")
        if fill_value is not None and not (
            isinstance(fill_value, (int, float))
            or (isinstance(fill_value, (tuple, list)) and len(fill_value) == 3)
        ):
            raise ValueError(
                "RandomErasing: the `fill_value` argument should be a number (or a list of "
                f"three numbers). Received: fill_value={fill_value!r}"
            )
        check_value_range("RandomErasing", value_range)
        self.fill_value = fill_value
        self.value_range = value_range

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """The rectangles `[batch, 4]` (`x0, x1, y0, y1` in pixels) and which images are erased
        (None when not training)."""
        if not training:
            return None
        images = rt.convert_to_tensor(data)
        batch = int(images.shape[0]) if images.ndim == 4 else 1
        h, w = self._hw(images.shape)
        side = rt.sqrt(self._uniform([batch, 2], self.scale[0], self.scale[1]))
        start = self._uniform([batch, 2], 0.0, 1.0)
        width, height = side[:, 0] * float(w), side[:, 1] * float(h)
        x0 = start[:, 0] * (float(w) - width)
        y0 = start[:, 1] * (float(h) - height)
        probability = self._uniform([batch], self.factor[0], self.factor[1])
        apply = self._uniform([batch], 0.0, 1.0) < probability
        return {"box": rt.stack([x0, x0 + width, y0, y0 + height], axis=1), "apply": apply}

    def _fill(self, images: Any) -> Any:
        low, high = float(self.value_range[0]), float(self.value_range[1])
        if self.fill_value is None:
            noise = rt.random.normal(list(images.shape), dtype=images.dtype, seed=self.seed)
            fill = noise * high
        elif isinstance(self.fill_value, (tuple, list)):
            fill = rt.ones_like(images) * rt.constant(
                [float(v) for v in self.fill_value], dtype=images.dtype
            )
        else:
            fill = rt.ones_like(images) * float(self.fill_value)
        return rt.clip_by_value(fill, low, high)

    def transform_images(
        self, images: Any, transformation: Any = None, training: bool = True
    ) -> Any:
        """The rectangles of the transformation filled (unchanged when not training)."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        unbatched = images.ndim == 3
        x = rt.expand_dims(images, 0) if unbatched else images
        h, w = self._hw(x.shape)
        box = rt.cast(transformation["box"], x.dtype)
        rows = rt.reshape(rt.range(0, h, dtype=x.dtype), [1, h, 1])
        cols = rt.reshape(rt.range(0, w, dtype=x.dtype), [1, 1, w])

        def edge(k: int) -> Any:
            return rt.reshape(box[:, k], [-1, 1, 1])

        inside = (cols >= edge(0)) & (cols < edge(1)) & (rows >= edge(2)) & (rows < edge(3))
        inside = inside & rt.reshape(transformation["apply"], [-1, 1, 1])
        axis = 1 if self.data_format == "channels_first" else 3
        mask = rt.expand_dims(inside, axis)
        mask = rt.broadcast_to(mask, x.shape)
        out = rt.where(mask, self._fill(x), x)
        return out[0] if unbatched else out


class RandomPerspective(_RandomImageLayer):
    """Moves each image's corners by random fractions of its size (Keras 3's
    `RandomPerspective`), with probability drawn from `factor`: corner `p` goes to `p + p * u`
    for `u` uniform in `[-scale / 2, scale / 2]` per coordinate, and the image is resampled
    through the homography mapping the moved corners back (`keras.ops.image.
    perspective_transform`, constant `fill_value` outside). Seeded draws are rustape's own;
    with `training=False` the images pass unchanged. Differentiable with respect to the images.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.RandomPerspective(factor=(1.0, 1.0), scale=0.0, seed=1)
    >>> bool(rt.reduce_all(layer(rt.ones([1, 4, 4, 1])) == 1.0))
    True
    """

    def __init__(
        self,
        factor: Any = 1.0,
        scale: float = 1.0,
        interpolation: str = "bilinear",
        fill_value: float = 0.0,
        seed: int | None = None,
        data_format: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed, data_format, name, dtype, kwargs)
        self.factor = _unit_bounds("RandomPerspective", factor, "factor")
        if not 0.0 <= scale <= 1.0:
            raise ValueError(
                "RandomPerspective: the `scale` argument should be a number in the range [0,1]. "
                f"Received: scale={scale!r}"
            )
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(
                f"RandomPerspective: unknown `interpolation` {interpolation!r}. Expected one "
                "of ('nearest', 'bilinear')."
            )
        self.scale, self.interpolation, self.fill_value = float(scale), interpolation, fill_value

    def get_random_transformation(self, data: Any, training: bool = True, seed: Any = None) -> Any:
        """Which images move and their start and end corners (`[batch, 4, 2]`, `(x, y)`);
        None when not training."""
        if not training:
            return None
        images = rt.convert_to_tensor(data)
        batch = int(images.shape[0]) if images.ndim == 4 else 1
        h, w = self._hw(images.shape)
        probability = self._uniform([batch], self.factor[0], self.factor[1])
        apply = self._uniform([batch], 0.0, 1.0) < probability
        shift = self._uniform([batch, 4, 2], -0.5 * self.scale, 0.5 * self.scale)
        corners = [[0.0, 0.0], [w - 1.0, 0.0], [0.0, h - 1.0], [w - 1.0, h - 1.0]]
        start = rt.tile(rt.constant([corners], dtype=rt.float32), [batch, 1, 1])
        return {"apply": apply, "start_points": start, "end_points": start + start * shift}

    def transform_images(
        self, images: Any, transformation: Any = None, training: bool = True
    ) -> Any:
        """The images warped by the transformation's corners (unchanged when not training)."""
        images = rt.cast(rt.convert_to_tensor(images), self.dtype)
        if not training or transformation is None:
            return images
        unbatched = images.ndim == 3
        x = rt.expand_dims(images, 0) if unbatched else images
        out = rt.keras.ops.image.perspective_transform(
            x,
            transformation["start_points"],
            transformation["end_points"],
            interpolation=self.interpolation,
            fill_value=float(self.fill_value),
            data_format=self.data_format,
        )
        out = rt.where(rt.reshape(transformation["apply"], [-1, 1, 1, 1]), out, x)
        return out[0] if unbatched else out
