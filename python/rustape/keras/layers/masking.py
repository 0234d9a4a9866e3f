"""`Masking` (Keras 3): the layer that marks padded timesteps."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from ._args import reject_options
from .base import Layer

__all__ = ["Masking"]


class Masking(Layer):
    """Masks the timesteps whose every feature equals `mask_value`: their outputs become 0
    and the mask (`[batch, timesteps]`) goes to the layers after it (LSTM, pooling, ...).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Masking(mask_value=0.0)
    >>> x = rt.constant([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]])
    >>> layer.compute_mask(x, None).numpy().tolist()
    [[True, False, True]]
    """

    supports_masking = True

    def __init__(
        self, mask_value: float = 0.0, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("Masking", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.mask_value = check_number("Masking", "mask_value", mask_value)

    def _keep(self, inputs: Any) -> Any:
        value = _rt.cast(self.mask_value, inputs.dtype)
        return _rt.reduce_any(_rt.not_equal(inputs, value), axis=-1, keepdims=True)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return inputs * _rt.cast(self._keep(inputs), inputs.dtype)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """True where some feature differs from `mask_value`."""
        return _rt.squeeze(self._keep(_rt.convert_to_tensor(inputs)), [-1])

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)
