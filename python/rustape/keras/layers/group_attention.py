"""Keras 3's `GroupQueryAttention` (its class `GroupedQueryAttention`): attention where
groups of query heads share one key and value head (Llama, Mistral), with Keras's weight
shapes and names."""

from __future__ import annotations

import math
from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from ..initializers import get_initializer
from ._args import reject_options, weight_options
from .activation import Softmax
from .attention import EinsumDense, _Attention
from .core import Dropout

__all__ = ["GroupQueryAttention"]


class GroupQueryAttention(_Attention):
    """Grouped-query attention (Keras 3's): `num_query_heads` query heads attend over
    `num_key_value_heads` key and value heads, each shared by `num_query_heads //
    num_key_value_heads` query heads. Sublayers `query`, `key`, `value`, `gate` (with
    `use_gate`: the heads' outputs scaled by a sigmoid gate of the query) and
    `attention_output`, kernels `[features, heads, head_dim]`. `sliding_window=w` lets each
    query position attend to keys less than `w` positions away (combined with the causal mask
    by AND, Mistral's window).

    `call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
    attention_mask=None, return_attention_scores=False, training=None, use_causal_mask=False)`
    as `MultiHeadAttention`; scores are `[batch, num_query_heads, T, S]`.

    >>> import rustape as rt
    >>> gqa = rt.keras.layers.GroupQueryAttention(head_dim=4, num_query_heads=4,
    ...                                              num_key_value_heads=2)
    >>> out, scores = gqa(rt.ones([2, 5, 8]), rt.ones([2, 6, 8]), return_attention_scores=True)
    >>> out.shape, scores.shape
    ((2, 5, 8), (2, 4, 5, 6))
    """

    def __init__(
        self,
        head_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        dropout: float = 0.0,
        use_bias: bool = True,
        sliding_window: int | None = None,
        flash_attention: bool | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        use_gate: bool = False,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        options = weight_options(kwargs, ("kernel", "bias"))
        reject_options("GroupQueryAttention", kwargs, ("input_shape",))
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        self._projection_activity = options.pop("activity_regularizer")
        vars(self).update(options)
        owner = "GroupQueryAttention"
        self.head_dim = check_number(owner, "head_dim", head_dim, low=1, integer=True)
        self.num_query_heads = check_number(
            owner, "num_query_heads", num_query_heads, low=1, integer=True
        )
        self.num_key_value_heads = check_number(
            owner, "num_key_value_heads", num_key_value_heads, low=1, integer=True
        )
        if self.num_query_heads % self.num_key_value_heads != 0:
            raise ValueError(
                "GroupQueryAttention: `num_query_heads` must be divisible by "
                f"`num_key_value_heads`; got {self.num_query_heads} and "
                f"{self.num_key_value_heads}"
            )
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        self.dropout = check_number(owner, "dropout", dropout, low=0.0, high=1.0)
        self.use_bias = bool(use_bias)
        if sliding_window is not None and (
            not isinstance(sliding_window, int)
            or isinstance(sliding_window, bool)
            or sliding_window <= 0
        ):
            raise ValueError(
                "GroupQueryAttention: `sliding_window` must be `None` or a positive integer. "
                f"Received: sliding_window={sliding_window!r}"
            )
        self.sliding_window = sliding_window
        # rustape has one attention kernel: `flash_attention` only decides, as in Keras,
        # whether scores may be returned.
        self.flash_attention = flash_attention
        self.use_gate = bool(use_gate)
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.seed = seed
        self._inverse_sqrt_head_dim = 1.0 / math.sqrt(float(self.head_dim))

    def _sublayer(
        self, equation: str, heads: int, bias: str, name: str, activation: Any = None
    ) -> EinsumDense:
        shape = [None, heads, self.head_dim] if heads else [None, self.feature_dim]
        return self._einsum_sublayer(equation, shape, bias, name, activation)

    def build(  # Keras: the three inputs' shapes
        self,
        query_shape: tuple[Any, ...],
        value_shape: tuple[Any, ...] | None = None,
        key_shape: tuple[Any, ...] | None = None,
    ) -> None:
        value_shape = query_shape if value_shape is None else value_shape
        key_shape = value_shape if key_shape is None else key_shape
        for which, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3:
                raise ValueError(
                    f"GroupQueryAttention: `{which}` must be of rank 3 (batch, positions, "
                    f"features); got shape {tuple(shape)}"
                )
        self.feature_dim = int(query_shape[-1])
        # Sublayers in Keras's order, so the weights line up with Keras's.
        self.query_dense = self._sublayer("bqm,muh->bquh", self.num_query_heads, "uh", "query")
        self.query_dense.build(tuple(query_shape))
        self.key_dense = self._sublayer("bkm,mvh->bkvh", self.num_key_value_heads, "vh", "key")
        self.key_dense.build(tuple(key_shape))
        if self.use_gate:
            self.gate_dense = self._sublayer(
                "bqm,muh->bquh", self.num_query_heads, "uh", "gate", activation="sigmoid"
            )
            self.gate_dense.build(tuple(query_shape))
        self.value_dense = self._sublayer("bkm,mvh->bkvh", self.num_key_value_heads, "vh", "value")
        self.value_dense.build(tuple(value_shape))
        self._softmax = Softmax(axis=-1)
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed)
        self.output_dense = self._sublayer("bquh,uhm->bqm", 0, "m", "attention_output")
        self.output_dense.build((None, None, self.num_query_heads, self.head_dim))
        self.built = True

    def call(  # type: ignore[override]  # Keras: call takes what it uses
        self,
        query: Any,
        value: Any,
        key: Any = None,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: Any = None,
        use_causal_mask: bool = False,
    ) -> Any:
        if self.flash_attention and return_attention_scores:
            raise ValueError(
                "GroupQueryAttention: returning attention scores is not supported when "
                "flash attention is enabled; disable flash attention to get the scores"
            )
        key = value if key is None else _rt.convert_to_tensor(key)
        mask = self._attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
        )
        gate = self.gate_dense(query) if self.use_gate else None
        q = self.query_dense(query)
        # Each key and value head serves `num_repeats` consecutive query heads.
        k = _rt.repeat(self.key_dense(key), self.num_repeats, axis=2)
        v = _rt.repeat(self.value_dense(value), self.num_repeats, axis=2)
        q = _rt.multiply(q, _rt.cast(self._inverse_sqrt_head_dim, q.dtype))
        scores = _rt.einsum("bquh,bkuh->buqk", q, k)
        if mask is not None:
            mask = _rt.expand_dims(mask, -3)  # [B, 1, T, S]: every head
        fused = self.dropout == 0 and not return_attention_scores
        weights, final = self._attention_weights(scores, mask, fused, training)
        out = _rt.einsum("buqk,bkuh->bquh", final, v)
        if gate is not None:
            out = out * gate
        out = self.output_dense(out)
        return (out, weights) if return_attention_scores else out

    def compute_output_shape(  # Keras: the three inputs' shapes
        self, query_shape: tuple[Any, ...], value_shape: Any = None, key_shape: Any = None
    ) -> tuple[Any, ...]:
        """The query's shape (the output has the query's features)."""
        return tuple(query_shape)
