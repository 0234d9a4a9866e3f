"""Keras 3's `CategoryEncoding`: integer tokens as one-hot rows, multi-hot rows or counts."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _rustape as _rt
from .._util import check_number
from ._args import reject_options
from .base import Layer

__all__ = ["CategoryEncoding"]


class CategoryEncoding(Layer):
    """Encodes integer tokens in `[0, num_tokens)`, as Keras 3 does:
    - `"one_hot"`: each token a row of `num_tokens` (a trailing axis of length 1 is replaced;
      a token out of range gives a row of zeros);
    - `"multi_hot"` (or `"binary"`): for each sample (the last axis of a batch, or all of a
      rank-1 input), which tokens occur;
    - `"count"`: how often each occurs (weighted by `count_weights` when given).
    `multi_hot` and `count` need every token in range (a ValueError otherwise).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.CategoryEncoding(num_tokens=4, output_mode="count")
    >>> layer(rt.constant([[0, 1, 1], [2, 2, 3]])).numpy().tolist()
    [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 1.0]]
    """

    def __init__(
        self,
        num_tokens: int | None = None,
        output_mode: str = "multi_hot",
        sparse: bool = False,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        reject_options("CategoryEncoding", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"CategoryEncoding: unknown output_mode {output_mode!r}")
        if num_tokens is None:
            raise ValueError(
                "CategoryEncoding: num_tokens must be set to use this layer (if the number of "
                "tokens is not known beforehand, use IntegerLookup)"
            )
        self.num_tokens = check_number(
            "CategoryEncoding", "num_tokens", num_tokens, low=1, integer=True
        )
        self.output_mode = output_mode
        if sparse:
            raise ValueError("CategoryEncoding: rustape has no sparse tensors; use sparse=False")
        self.sparse = False

    def _convert_input(self, x: Any) -> Any:
        return x if isinstance(x, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(x)

    def call(self, inputs: Any, count_weights: Any = None) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if count_weights is not None and self.output_mode != "count":
            raise ValueError(
                "CategoryEncoding: `count_weights` is only used with output_mode='count', "
                f"got output_mode={self.output_mode!r}"
            )
        if inputs.dtype not in (_rt.int32, _rt.int64):
            raise TypeError(
                f"CategoryEncoding: tokens must be int32 or int64, got {inputs.dtype.name}"
            )
        tokens = inputs
        if tokens.shape.rank == 0:
            tokens = _rt.reshape(tokens, [1])
        depth = self.num_tokens
        if self.output_mode == "one_hot":
            if tokens.shape.rank > 1 and tokens.shape[-1] == 1:
                tokens = _rt.squeeze(tokens, -1)
            return _rt.one_hot(tokens, depth, dtype=self.dtype)
        values = np.asarray(tokens.numpy())
        if values.size and (values.min() < 0 or values.max() >= depth):
            bad = values[(values < 0) | (values >= depth)]
            raise ValueError(
                f"CategoryEncoding: output_mode={self.output_mode!r} needs tokens in [0, {depth}); "
                f"got {bad.ravel()[:5].tolist()} in inputs of shape {tuple(values.shape)}"
            )
        encoded = _rt.one_hot(tokens, depth, dtype=self.dtype)  # [..., k, depth]
        if self.output_mode == "multi_hot":
            return _rt.reduce_max(encoded, axis=-2)
        if count_weights is not None:
            weights = _rt.convert_to_tensor(count_weights, dtype=self.dtype)
            encoded = encoded * _rt.expand_dims(weights, -1)
        return _rt.reduce_sum(encoded, axis=-2)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape with the token axis turned into `num_tokens`."""
        shape = tuple(input_shape) or (1,)
        if self.output_mode == "one_hot":
            if len(shape) > 1 and shape[-1] == 1:
                shape = shape[:-1]
            return (*shape, self.num_tokens)
        return (*shape[:-1], self.num_tokens)
