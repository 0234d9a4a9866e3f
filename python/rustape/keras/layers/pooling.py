"""Pooling layers (Keras 3): `MaxPooling1D/2D/3D`, `AveragePooling1D/2D/3D` over windows, and
the global poolings over every spatial position."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from ._args import (
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    reject_options,
    to_channels_first,
    to_channels_last,
)
from .base import Layer

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
]


class _Pooling(Layer):
    """A window reduction over `rank` spatial axes; `strides` default to `pool_size`."""

    _rank = 2
    #: The extension function that pools (by name).
    _op = "max_pool2d"

    def __init__(
        self,
        pool_size: Any = 2,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options(type(self).__name__, kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        self.pool_size = normalize_tuple(pool_size, self._rank, "pool_size", owner=owner)
        self.strides = (
            self.pool_size
            if strides is None
            else normalize_tuple(strides, self._rank, "strides", owner=owner)
        )
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if len(inputs.shape) != self._rank + 2:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs of rank "
                f"{self._rank + 2}, got shape {list(inputs.shape)}"
            )
        x = inputs if self.data_format == "channels_last" else to_channels_last(inputs)
        window = self.pool_size if self._rank > 1 else self.pool_size[0]
        strides = self.strides if self._rank > 1 else self.strides[0]
        y = getattr(_rt, self._op)(x, window, strides, self.padding.upper())
        return y if self.data_format == "channels_last" else to_channels_first(y)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The output shape for inputs of `input_shape` (None for unknown dimensions)."""
        s = tuple(input_shape)
        spatial = s[1:-1] if self.data_format == "channels_last" else s[2:]
        out = tuple(
            conv_output_length(n, k, self.padding, st)
            for n, k, st in zip(spatial, self.pool_size, self.strides)
        )
        if self.data_format == "channels_last":
            return (s[0], *out, s[-1])
        return (s[0], s[1], *out)


class MaxPooling2D(_Pooling):
    """The maximum of each `pool_size` window (Keras 3's `MaxPooling2D`).

    >>> import rustape as rt
    >>> rt.keras.layers.MaxPooling2D()(rt.ones([1, 26, 26, 32])).shape
    (1, 13, 13, 32)
    """

    _op = "max_pool2d"


class AveragePooling2D(_Pooling):
    """The mean of each `pool_size` window, padding not counted (Keras 3's
    `AveragePooling2D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AveragePooling2D(3, strides=1, padding="same")(rt.ones([1, 4, 4, 2])).shape
    (1, 4, 4, 2)
    """

    _op = "avg_pool2d"

    def __init__(
        self,
        pool_size: Any,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        # Keras 3 gives average pooling no default window.
        super().__init__(pool_size, strides, padding, data_format, name, dtype, **kwargs)


class MaxPooling1D(_Pooling):
    """The maximum of each `pool_size` window along the steps (Keras 3's `MaxPooling1D`).

    >>> import rustape as rt
    >>> rt.keras.layers.MaxPooling1D(3)(rt.ones([2, 9, 4])).shape
    (2, 3, 4)
    """

    _rank = 1
    _op = "max_pool1d"


class AveragePooling1D(_Pooling):
    """The mean of each `pool_size` window along the steps (Keras 3's `AveragePooling1D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AveragePooling1D(2)(rt.ones([2, 9, 4])).shape
    (2, 4, 4)
    """

    _rank = 1
    _op = "avg_pool1d"

    def __init__(
        self,
        pool_size: Any,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        # Keras 3 gives average pooling no default window.
        super().__init__(pool_size, strides, padding, data_format, name, dtype, **kwargs)


class _GlobalPooling(Layer):
    _rank = 2
    #: The extension reduction (by name).
    _op = "reduce_mean"

    def __init__(
        self,
        data_format: str | None = None,
        keepdims: bool = False,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options(type(self).__name__, kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.data_format = normalize_data_format(data_format)
        self.keepdims = bool(keepdims)

    def _axes(self) -> list:
        first = 1 if self.data_format == "channels_last" else 2
        return list(range(first, first + self._rank))

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if len(inputs.shape) != self._rank + 2:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs of rank "
                f"{self._rank + 2}, got shape {list(inputs.shape)}"
            )
        return getattr(_rt, self._op)(inputs, axis=self._axes(), keepdims=self.keepdims)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The output shape for inputs of `input_shape`."""
        s = list(input_shape)
        axes = self._axes()
        if self.keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(s))
        return tuple(d for i, d in enumerate(s) if i not in axes)


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over height and width (Keras 3's `GlobalAveragePooling2D`).

    >>> import rustape as rt
    >>> rt.keras.layers.GlobalAveragePooling2D()(rt.ones([2, 5, 5, 8])).shape
    (2, 8)
    """

    _op = "reduce_mean"


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over height and width (Keras 3's `GlobalMaxPooling2D`).

    >>> import rustape as rt
    >>> rt.keras.layers.GlobalMaxPooling2D(keepdims=True)(rt.ones([2, 5, 5, 8])).shape
    (2, 1, 1, 8)
    """

    _op = "reduce_max"


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps (Keras 3's `GlobalAveragePooling1D`).

    >>> import rustape as rt
    >>> rt.keras.layers.GlobalAveragePooling1D()(rt.ones([2, 7, 3])).shape
    (2, 3)
    """

    _rank = 1
    _op = "reduce_mean"
    supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        """The mean over the steps; with a `[batch, steps]` mask, over the kept steps."""
        if mask is None:
            return super().call(inputs)
        steps = 1 if self.data_format == "channels_last" else 2
        keep = _rt.expand_dims(_rt.cast(mask, _rt.bool), 2 if steps == 1 else 1)
        kept = _rt.where(keep, inputs, _rt.zeros([], dtype=inputs.dtype))
        counts = _rt.reduce_sum(_rt.cast(keep, inputs.dtype), axis=steps, keepdims=self.keepdims)
        return _rt.reduce_sum(kept, axis=steps, keepdims=self.keepdims) / counts

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """None: the steps are gone."""
        return None


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps (Keras 3's `GlobalMaxPooling1D`).

    >>> import rustape as rt
    >>> rt.keras.layers.GlobalMaxPooling1D()(rt.ones([2, 7, 3])).shape
    (2, 3)
    """

    _rank = 1
    _op = "reduce_max"


class MaxPooling3D(_Pooling):
    """The maximum of each `pool_size` window of a volume (Keras 3's `MaxPooling3D`).

    >>> import rustape as rt
    >>> rt.keras.layers.MaxPooling3D()(rt.ones([1, 4, 6, 6, 3])).shape
    (1, 2, 3, 3, 3)
    """

    _rank = 3
    _op = "max_pool3d"


class AveragePooling3D(_Pooling):
    """The mean of each `pool_size` window of a volume, padding not counted (Keras 3's
    `AveragePooling3D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AveragePooling3D(2, padding="same")(rt.ones([1, 3, 4, 5, 2])).shape
    (1, 2, 2, 3, 2)
    """

    _rank = 3
    _op = "avg_pool3d"

    def __init__(
        self,
        pool_size: Any,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        # Keras 3 gives average pooling no default window.
        super().__init__(pool_size, strides, padding, data_format, name, dtype, **kwargs)


class GlobalAveragePooling3D(_GlobalPooling):
    """The mean over depth, height and width (Keras 3's `GlobalAveragePooling3D`).

    >>> import rustape as rt
    >>> rt.keras.layers.GlobalAveragePooling3D()(rt.ones([2, 3, 5, 5, 8])).shape
    (2, 8)
    """

    _rank = 3
    _op = "reduce_mean"


class GlobalMaxPooling3D(_GlobalPooling):
    """The maximum over depth, height and width (Keras 3's `GlobalMaxPooling3D`).

    >>> import rustape as rt
    >>> rt.keras.layers.GlobalMaxPooling3D(keepdims=True)(rt.ones([2, 3, 5, 5, 8])).shape
    (2, 1, 1, 1, 8)
    """

    _rank = 3
    _op = "reduce_max"
