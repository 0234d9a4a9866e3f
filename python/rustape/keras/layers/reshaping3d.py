"""Reshaping layers of volumes (Keras 3): `ZeroPadding3D`, `UpSampling3D`, `Cropping3D` over
the depth, height and width of `[batch, depth, height, width, channels]` inputs (or channels
first)."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from ._args import normalize_data_format, normalize_tuple, reject_options, to_channels_last
from .base import Layer

__all__ = ["Cropping3D", "UpSampling3D", "ZeroPadding3D"]

Pairs = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]


def _pairs(layer: str, name: str, value: Any) -> Pairs:
    """Keras' three-axis argument: an int, 3 ints, or 3 `(before, after)` pairs, all >= 0."""
    usage = f"an int, a tuple of 3 ints or a tuple of 3 tuples of 2 ints, got {value!r}"
    if isinstance(value, (list, tuple)):
        if len(value) != 3:
            raise ValueError(f"{layer}: `{name}` should be {usage}")
        pairs = [
            normalize_tuple(v, 2, name, allow_zero=True, owner=layer)
            if isinstance(v, (list, tuple)) or hasattr(v, "__index__")
            else None
            for v in value
        ]
        if any(p is None for p in pairs):
            raise TypeError(f"{layer}: `{name}` should be {usage}")
    elif hasattr(value, "__index__"):
        pairs = [normalize_tuple(value, 2, name, allow_zero=True, owner=layer)] * 3
    else:
        raise TypeError(f"{layer}: `{name}` should be {usage}")
    out = tuple((int(p[0]), int(p[1])) for p in pairs if p is not None)
    if any(v < 0 for pair in out for v in pair):
        raise ValueError(f"{layer}: `{name}` must be >= 0, got {value!r}")
    return out  # type: ignore[return-value]  # three pairs, checked above


class _Volume(Layer):
    """A layer over the three spatial axes of rank-5 inputs."""

    data_format: str

    def _first(self) -> int:
        """The first spatial axis."""
        return 1 if self.data_format == "channels_last" else 2

    def _check_rank(self, x: Any) -> None:
        if len(x.shape) != 5:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs of rank 5 "
                f"({self.data_format}), got shape {list(x.shape)}"
            )

    def _resize(self, input_shape: tuple[Any, ...], change: Any) -> tuple[Any, ...]:
        s = list(input_shape)
        for k in range(3):
            i = self._first() + k
            if s[i] is not None:
                s[i] = change(k, s[i])
        return tuple(s)


class ZeroPadding3D(_Volume):
    """Zeros around the depth, height and width (Keras 3's `ZeroPadding3D`): `padding` an int,
    3 ints, or 3 `(before, after)` pairs.

    >>> import rustape as rt
    >>> rt.keras.layers.ZeroPadding3D(((1, 0), (2, 1), 0))(rt.ones([1, 3, 3, 3, 2])).shape
    (1, 4, 6, 3, 2)
    """

    def __init__(
        self,
        padding: Any = ((1, 1), (1, 1), (1, 1)),
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("ZeroPadding3D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.padding = _pairs("ZeroPadding3D", "padding", padding)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        self._check_rank(x)
        pads = [list(p) for p in self.padding]
        if self.data_format == "channels_last":
            return _rt.pad(x, [[0, 0], *pads, [0, 0]])
        return _rt.pad(x, [[0, 0], [0, 0], *pads])

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """Depth, height and width grown by the padding."""
        return self._resize(input_shape, lambda k, n: n + sum(self.padding[k]))


class UpSampling3D(_Volume):
    """Each voxel repeated `size` times along depth, height and width (Keras 3's
    `UpSampling3D`).

    >>> import rustape as rt
    >>> rt.keras.layers.UpSampling3D((1, 2, 3))(rt.ones([1, 2, 2, 2, 1])).shape
    (1, 2, 4, 6, 1)
    """

    def __init__(
        self,
        size: Any = (2, 2, 2),
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("UpSampling3D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.size = normalize_tuple(size, 3, "size", owner="UpSampling3D")
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        self._check_rank(x)
        x = x if self.data_format == "channels_last" else to_channels_last(x)
        n, d, h, w, c = x.shape
        sd, sh, sw = self.size
        # [n, d, 1, h, 1, w, 1, c] broadcast over the ones: each voxel repeated in place.
        grid = _rt.reshape(x, [n, d, 1, h, 1, w, 1, c])
        y = _rt.reshape(
            _rt.broadcast_to(grid, [n, d, sd, h, sh, w, sw, c]), [n, d * sd, h * sh, w * sw, c]
        )
        if self.data_format == "channels_first":
            y = _rt.transpose(y, [0, 4, 1, 2, 3])
        return y

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """Depth, height and width multiplied by `size`."""
        return self._resize(input_shape, lambda k, n: n * self.size[k])


class Cropping3D(_Volume):
    """Drops planes, rows and columns at the edges of volumes (Keras 3's `Cropping3D`):
    `cropping` an int, 3 ints, or 3 `(before, after)` pairs.

    >>> import rustape as rt
    >>> rt.keras.layers.Cropping3D(((1, 0), (2, 1), 1))(rt.ones([1, 5, 6, 4, 3])).shape
    (1, 4, 3, 2, 3)
    """

    def __init__(
        self,
        cropping: Any = ((1, 1), (1, 1), (1, 1)),
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Cropping3D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.cropping = _pairs("Cropping3D", "cropping", cropping)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        self._check_rank(x)
        first = self._first()
        sizes = [x.shape[first + k] for k in range(3)]
        if any(a + b >= n for (a, b), n in zip(self.cropping, sizes)):
            raise ValueError(
                f"Cropping3D: `cropping` {self.cropping} must leave part of each spatial axis "
                f"({self.data_format}), got shape {tuple(x.shape)}"
            )
        spatial = tuple(slice(a, n - b) for (a, b), n in zip(self.cropping, sizes))
        if self.data_format == "channels_last":
            return x[(slice(None), *spatial, slice(None))]
        return x[(slice(None), slice(None), *spatial)]

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """Depth, height and width less the cropping."""
        return self._resize(input_shape, lambda k, n: n - sum(self.cropping[k]))
