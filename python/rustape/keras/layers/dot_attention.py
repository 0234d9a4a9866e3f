"""Single-head attention layers (Keras 3): `Attention` (Luong's dot-product, or "concat"
scores) and `AdditiveAttention` (Bahdanau's), called on `[query, value]` or
`[query, value, key]`."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from ._args import reject_options
from .base import Layer
from .core import Dropout

__all__ = ["AdditiveAttention", "Attention"]


class Attention(Layer):
    """Dot-product attention: `scores = query @ key^T` (times a learned `scale` with
    `use_scale`), or with `score_mode="concat"` `sum(tanh(scale * (query + key)))` over the
    features; softmax over the keys (masked keys, from `mask=[query_mask, value_mask]` or a
    causal mask, get none); the weights then average `value`. Masked query rows give 0.

    >>> import rustape as rt
    >>> out, scores = rt.keras.layers.Attention()(
    ...     [rt.ones([2, 3, 4]), rt.ones([2, 5, 4])], return_attention_scores=True)
    >>> out.shape, scores.shape
    ((2, 3, 4), (2, 3, 5))
    """

    supports_masking = True
    _score_mode_default = "dot"

    def __init__(
        self,
        use_scale: bool = False,
        score_mode: str = "dot",
        dropout: float = 0.0,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        reject_options(owner, kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                "Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                f"Received: score_mode={score_mode!r}"
            )
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = check_number(owner, "dropout", dropout, low=0.0, high=1.0)
        self.seed = check_number(owner, "seed", seed, integer=True, none_ok=True)
        self._dropout_layer = Dropout(self.dropout, seed=self.seed)
        self.scale: Any = None
        self.concat_score_weight: Any = None

    def _check(self, inputs: Any, mask: Any = None) -> None:
        owner = type(self).__name__
        if not isinstance(inputs, (list, tuple)) or not 2 <= len(inputs) <= 3:
            raise ValueError(
                f"{owner} layer must be called on a list of inputs, namely [query, value] or "
                f"[query, value, key]. Received: inputs={inputs!r}"
            )
        if mask is not None and (not isinstance(mask, (list, tuple)) or not 2 <= len(mask) <= 3):
            raise ValueError(
                f"{owner} layer mask must be a list of length 2, namely [query_mask, "
                f"value_mask]. Received: mask={mask!r}"
            )

    def build(self, input_shape: Any) -> None:
        self._check(input_shape)
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                name="concat_score_weight", shape=(), initializer="ones"
            )

    def _scores(self, query: Any, key: Any) -> Any:
        if self.score_mode == "dot":
            scores = _rt.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        pairs = _rt.expand_dims(query, -2) + _rt.expand_dims(key, -3)
        if self.scale is not None:
            pairs = self.scale * pairs
        return self.concat_score_weight * _rt.reduce_sum(_rt.tanh(pairs), axis=-1)

    def call(  # type: ignore[override]  # Keras: call takes what it uses
        self,
        inputs: Any,
        mask: Any = None,
        training: Any = None,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        self._check(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        scores = self._scores(query, key)
        keep = None if value_mask is None else _rt.expand_dims(_rt.cast(value_mask, _rt.bool), -2)
        if use_causal_mask:
            t, s = int(scores.shape[-2]), int(scores.shape[-1])
            causal = _rt.greater_equal(
                _rt.reshape(_rt.range(t), [1, t, 1]), _rt.reshape(_rt.range(s), [1, 1, s])
            )
            keep = causal if keep is None else _rt.logical_and(keep, causal)
        if keep is not None:
            # Keras subtracts 1e9 from the masked scores.
            scores = _rt.where(keep, scores, scores - _rt.cast(1e9, scores.dtype))
        weights = _rt.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = self._dropout_layer(weights, training=True)
        output = _rt.matmul(weights, value)
        if query_mask is not None:
            keep_rows = _rt.expand_dims(_rt.cast(query_mask, _rt.bool), -1)
            output = _rt.where(keep_rows, output, _rt.zeros([], dtype=output.dtype))
        return (output, weights) if return_attention_scores else output

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The query's mask."""
        if previous_mask is None or previous_mask[0] is None:
            return None
        return previous_mask[0]

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        """The query's shape with the value's features."""
        return (*input_shape[0][:-1], input_shape[1][-1])


class AdditiveAttention(Attention):
    """Bahdanau-style attention: `scores = sum(scale * tanh(query + key))` over the features,
    `scale` a learned vector (Glorot-uniform) with `use_scale` (the default); then as
    `Attention`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.AdditiveAttention()
    >>> layer([rt.ones([2, 3, 4]), rt.ones([2, 5, 4])]).shape, tuple(layer.scale.shape)
    ((2, 3, 4), (4,))
    """

    def __init__(
        self,
        use_scale: bool = True,
        dropout: float = 0.0,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            use_scale=use_scale, dropout=dropout, seed=seed, name=name, dtype=dtype, **kwargs
        )

    def build(self, input_shape: Any) -> None:
        self._check(input_shape)
        if self.use_scale:
            dim = input_shape[0][-1]
            self.scale = self.add_weight(name="scale", shape=(dim,), initializer="glorot_uniform")

    def _scores(self, query: Any, key: Any) -> Any:
        pairs = _rt.tanh(_rt.expand_dims(query, -2) + _rt.expand_dims(key, -3))
        if self.scale is not None:
            pairs = self.scale * pairs
        return _rt.reduce_sum(pairs, axis=-1)
