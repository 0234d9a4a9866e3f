"""Keras 3's adaptive pooling layers: `AdaptiveAveragePooling1D/2D/3D` and
`AdaptiveMaxPooling1D/2D/3D` (`keras.ops.adaptive_average_pool` / `adaptive_max_pool` to a
fixed output size, whatever the input's)."""

from __future__ import annotations

from typing import Any

from ..ops import _nn_blocks
from ._args import normalize_data_format, reject_options
from .base import Layer

__all__ = [
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
]


class _AdaptivePooling(Layer):
    _rank = 2
    _max = False

    def __init__(
        self,
        output_size: Any,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options(type(self).__name__, kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if isinstance(output_size, int):
            sizes = (output_size,) * self._rank
        elif isinstance(output_size, (tuple, list)) and len(output_size) == self._rank:
            sizes = tuple(int(s) for s in output_size)
        else:
            raise TypeError(
                f"`output_size` must be an integer or a tuple of {self._rank} integers. "
                f"Received: {output_size} of type {type(output_size)}"
            )
        self.output_size = sizes
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if len(inputs.shape) != self._rank + 2:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs of rank "
                f"{self._rank + 2}, got shape {list(inputs.shape)}"
            )
        pool = _nn_blocks.adaptive_max_pool if self._max else _nn_blocks.adaptive_average_pool
        return pool(inputs, self.output_size, self.data_format)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The output shape for inputs of `input_shape`."""
        s = list(input_shape)
        if self.data_format == "channels_last":
            return (s[0], *self.output_size, s[-1])
        return (s[0], s[1], *self.output_size)


class AdaptiveAveragePooling1D(_AdaptivePooling):
    """The mean over `output_size` bins of the steps (Keras 3's `AdaptiveAveragePooling1D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AdaptiveAveragePooling1D(2)(rt.ones([2, 7, 3])).shape
    (2, 2, 3)
    """

    _rank = 1


class AdaptiveAveragePooling2D(_AdaptivePooling):
    """The mean over `output_size` bins of height and width (Keras 3's
    `AdaptiveAveragePooling2D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AdaptiveAveragePooling2D((2, 3))(rt.ones([2, 7, 8, 3])).shape
    (2, 2, 3, 3)
    """

    _rank = 2


class AdaptiveAveragePooling3D(_AdaptivePooling):
    """The mean over `output_size` bins of each spatial axis (Keras 3's
    `AdaptiveAveragePooling3D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AdaptiveAveragePooling3D(2)(rt.ones([1, 5, 5, 5, 3])).shape
    (1, 2, 2, 2, 3)
    """

    _rank = 3


class AdaptiveMaxPooling1D(_AdaptivePooling):
    """The maximum over `output_size` bins of the steps (Keras 3's `AdaptiveMaxPooling1D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AdaptiveMaxPooling1D(2)(rt.ones([2, 7, 3])).shape
    (2, 2, 3)
    """

    _rank = 1
    _max = True


class AdaptiveMaxPooling2D(_AdaptivePooling):
    """The maximum over `output_size` bins of height and width (Keras 3's
    `AdaptiveMaxPooling2D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AdaptiveMaxPooling2D(2, data_format="channels_first")(
    ...     rt.ones([2, 3, 7, 8])).shape
    (2, 3, 2, 2)
    """

    _rank = 2
    _max = True


class AdaptiveMaxPooling3D(_AdaptivePooling):
    """The maximum over `output_size` bins of each spatial axis (Keras 3's
    `AdaptiveMaxPooling3D`).

    >>> import rustape as rt
    >>> rt.keras.layers.AdaptiveMaxPooling3D(2)(rt.ones([1, 5, 5, 5, 3])).shape
    (1, 2, 2, 2, 3)
    """

    _rank = 3
    _max = True
