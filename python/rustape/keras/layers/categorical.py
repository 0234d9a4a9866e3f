"""Keras 3's `CategoryEncoding` (integer tokens as one-hot rows, multi-hot rows or counts) and
`Discretization` (numbers as the index of their bin, encoded the same ways)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _rustape as _rt
from .._util import check_number
from ..ops._search import digitize
from ._args import reject_options
from .base import Layer

__all__ = ["CategoryEncoding", "Discretization"]


def encode_categorical(
    tokens: Any, output_mode: str, depth: int, dtype: Any, count_weights: Any = None
) -> Any:
    """Integer `tokens` in `[0, depth)` encoded as Keras's `encode_categorical_inputs` does:
    `"int"` cast to `dtype`; `"one_hot"` a row per token (a trailing axis of 1 replaced);
    `"multi_hot"` / `"count"` per sample (the last axis) which tokens occur / how often."""
    if output_mode == "int":
        return _rt.cast(tokens, dtype)
    if tokens.shape.rank == 0:
        tokens = _rt.reshape(tokens, [1])
    if output_mode == "one_hot":
        if tokens.shape.rank > 1 and tokens.shape[-1] == 1:
            tokens = _rt.squeeze(tokens, -1)
        return _rt.one_hot(tokens, depth, dtype=dtype)
    encoded = _rt.one_hot(tokens, depth, dtype=dtype)  # [..., k, depth]
    if output_mode == "multi_hot":
        return _rt.reduce_max(encoded, axis=-2)
    if count_weights is not None:
        weights = _rt.convert_to_tensor(count_weights, dtype=dtype)
        encoded = encoded * _rt.expand_dims(weights, -1)
    return _rt.reduce_sum(encoded, axis=-2)


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
        depth = self.num_tokens
        if self.output_mode != "one_hot":
            values = np.asarray(inputs.numpy())
            if values.size and (values.min() < 0 or values.max() >= depth):
                bad = values[(values < 0) | (values >= depth)]
                raise ValueError(
                    f"CategoryEncoding: output_mode={self.output_mode!r} needs tokens in "
                    f"[0, {depth}); got {bad.ravel()[:5].tolist()} in inputs of shape "
                    f"{tuple(values.shape)}"
                )
        return encode_categorical(inputs, self.output_mode, depth, self.dtype, count_weights)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape with the token axis turned into `num_tokens`."""
        shape = tuple(input_shape) or (1,)
        if self.output_mode == "one_hot":
            if len(shape) > 1 and shape[-1] == 1:
                shape = shape[:-1]
            return (*shape, self.num_tokens)
        return (*shape[:-1], self.num_tokens)


class Discretization(Layer):
    """Numbers as the index of the bin they fall in (`bin_boundaries[i - 1] <= x <
    bin_boundaries[i]`), as int32 or encoded like `CategoryEncoding` (`output_mode` "int",
    "one_hot", "multi_hot", "count"). The boundaries are given, or learned by `adapt(data)`
    as the approximate quantiles of `num_bins` bins of equal weight (Keras's algorithm, to
    within `epsilon`; the summary is computed in Rust).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    >>> layer(rt.constant([[-1.5, 1.0, 3.4, 0.5]])).numpy().tolist()
    [[0, 2, 3, 1]]
    >>> layer = rt.keras.layers.Discretization(num_bins=4)
    >>> layer.adapt(list(range(12)))
    >>> layer.bin_boundaries
    [2.0, 5.0, 8.0]
    """

    def __init__(
        self,
        bin_boundaries: Any = None,
        num_bins: int | None = None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        sparse: bool = False,
        dtype: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Discretization", kwargs, ("input_shape", "batch_size", "trainable"))
        super().__init__(name=name, dtype=dtype, trainable=kwargs.get("trainable", True))
        if sparse:
            raise ValueError("Discretization: rustape has no sparse tensors; use sparse=False")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(
                "Discretization: Invalid value for argument output_mode. Expected one of "
                f"('int', 'one_hot', 'multi_hot', 'count'). Received: output_mode={output_mode!r}"
            )
        if num_bins is not None and num_bins < 0:
            raise ValueError(
                f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`"
            )
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(
                "Both `num_bins` and `bin_boundaries` should not be set. Received: "
                f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`"
            )
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.epsilon = check_number("Discretization", "epsilon", epsilon, low=0.0)
        if not 0.0 < self.epsilon <= 1.0:
            raise ValueError(f"Discretization: epsilon must be in (0, 1], got {epsilon}")
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in bin_boundaries]
        self.num_bins = num_bins
        self.output_mode = output_mode
        self.sparse = False
        self._summary: tuple[list[float], list[float]] = ([], [])

    @property
    def output_dtype(self) -> Any:
        """int32 for `output_mode="int"`, else the layer's dtype."""
        return _rt.int32 if self.output_mode == "int" else self.dtype

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """Learns `num_bins - 1` boundaries from `data`: an array or tensor, a dataset or an
        iterable of batches (at most `steps` of them)."""
        if self.num_bins is None:
            raise ValueError(
                "Cannot adapt a Discretization layer that has been initialized with "
                "`bin_boundaries`, use `num_bins` instead."
            )
        if isinstance(data, (np.ndarray, _rt.Tensor, _rt.Variable)) or not hasattr(
            data, "__iter__"
        ):
            batches: Any = [data]
        else:
            batches = data
        values: list[float] = []
        weights: list[float] = []
        for i, batch in enumerate(batches):
            if steps is not None and i >= steps:
                break
            values, weights = _rt.quantile_summary_update(values, weights, batch, self.epsilon)
        self._summary = (values, weights)
        self.bin_boundaries = [
            float(b) for b in _rt.quantile_bin_boundaries(values, weights, self.num_bins)
        ]

    def _convert_input(self, x: Any) -> Any:
        return x if isinstance(x, (_rt.Tensor, _rt.Variable)) else _rt.convert_to_tensor(x)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if self.bin_boundaries is None:
            raise ValueError(
                "You need to either pass the `bin_boundaries` argument at construction time "
                "or call `adapt(dataset)` before you can start using the `Discretization` "
                "layer."
            )
        indices = digitize(inputs, self.bin_boundaries)
        depth = len(self.bin_boundaries) + 1
        return encode_categorical(indices, self.output_mode, depth, self.output_dtype)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape ("int"), or with the bin axis of `len(bin_boundaries) + 1`."""
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else self.num_bins
        shape = tuple(input_shape)
        if self.output_mode == "one_hot":
            if len(shape) > 1 and shape[-1] == 1:
                shape = shape[:-1]
            return (*shape, depth)
        return (*shape[:-1], depth) if len(shape) >= 2 else (depth,)

    def get_config(self) -> dict[str, Any]:
        """Keras's config: the boundaries (learned ones too) and `num_bins`."""
        config = super().get_config()
        config.update(
            {
                "bin_boundaries": self.bin_boundaries,
                "num_bins": self.num_bins,
                "epsilon": self.epsilon,
                "output_mode": self.output_mode,
                "sparse": False,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """A layer from `get_config()`; an adapted layer keeps its learned boundaries."""
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            boundaries = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = boundaries
            return layer
        return cls(**config)
