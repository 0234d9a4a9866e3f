"""Attention layers (Keras 3): `EinsumDense` and `MultiHeadAttention`, with Keras's weight
shapes and names, so that `set_weights` takes Keras's arrays."""

from __future__ import annotations

import math
import re
import string
from typing import Any

from ... import _rustape as _rt
from .._masking import get_keras_mask, set_keras_mask
from .._util import check_number
from ..activations import get_activation
from ..initializers import VarianceScaling, get_initializer
from ._args import reject_options, weight_options
from .activation import Softmax
from .base import Layer, _symbolic
from .core import Dropout

__all__ = ["EinsumDense", "MultiHeadAttention"]


def _einsum_shapes(
    equation: str, bias_axes: str | None, input_shape: tuple[Any, ...], output_shape: Any
) -> tuple[list[int], list[int] | None, list[Any], list[int], list[int]]:
    """Keras's reading of an `EinsumDense` equation over `input_shape`: the kernel shape, the
    bias shape (None without `bias_axes`), the full output shape, and which kernel axes are
    contracted with the input (fan in) and which reach the output (fan out).

    The equation is `input,kernel->output` in letters, with `...` for dimensions passed
    through, at the start of the input and output (`...b,bc->...c`) or at their end."""
    match = re.fullmatch(
        r"(\.\.\.)?([a-zA-Z]+)(\.\.\.)?,([a-zA-Z]+)->(\.\.\.)?([a-zA-Z]+)(\.\.\.)?",
        equation.replace(" ", ""),
    )
    if (
        match is None
        or (match.group(1) is None) != (match.group(5) is None)
        or ((match.group(3) is None) != (match.group(7) is None))
        or (match.group(1) and match.group(3))
    ):
        raise ValueError(
            f"EinsumDense: invalid einsum equation {equation!r}. Equations must be in the form "
            "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."
        )
    left = match.group(1) is not None
    input_spec, kernel_spec, output_spec = match.group(2), match.group(4), match.group(6)
    elided = len(input_shape) - len(input_spec)
    if elided < 0 or (elided > 0 and not (left or match.group(3))):
        raise ValueError(
            f"EinsumDense: the equation {equation!r} needs inputs of rank {len(input_spec)}, "
            f"got shape {tuple(input_shape)}"
        )
    out = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    out.insert(0, input_shape[0])
    if elided and left:
        out[1:1] = list(input_shape[1:elided])
    elif elided:
        out.extend(input_shape[len(input_shape) - elided :])
    shift = elided if left else 0
    input_at = {d: i + shift for i, d in enumerate(input_spec)}
    output_at = {d: i + shift for i, d in enumerate(output_spec)}
    if len(out) != len(output_spec) + elided:
        raise ValueError(
            f"EinsumDense: output_shape {output_shape!r} does not fit the equation {equation!r} "
            "(it gives every output dimension after the batch)"
        )
    for d in input_spec:
        if d in output_at and out[output_at[d]] is not None:
            if out[output_at[d]] != input_shape[input_at[d]]:
                raise ValueError(
                    f"EinsumDense: input shape and output shape do not match at shared dimension "
                    f"{d!r}: input {input_shape[input_at[d]]}, output {out[output_at[d]]}"
                )
            out[output_at[d]] = input_shape[input_at[d]]
        elif d in output_at:
            out[output_at[d]] = input_shape[input_at[d]]
    for d in output_spec:
        if d not in input_spec and d not in kernel_spec:
            raise ValueError(
                f"EinsumDense: output dimension {d!r} is in neither the input spec "
                f"{input_spec!r} nor the kernel spec {kernel_spec!r}"
            )
    kernel, fan_in_axes, fan_out_axes = [], [], []
    for i, d in enumerate(kernel_spec):
        if d in output_at:
            kernel.append(out[output_at[d]])
            fan_out_axes.append(i)
        elif d in input_at:
            kernel.append(input_shape[input_at[d]])
            fan_in_axes.append(i)
        else:
            raise ValueError(
                f"EinsumDense: kernel dimension {d!r} is in neither the input spec "
                f"{input_spec!r} nor the output spec {output_spec!r}"
            )
    if any(k is None for k in kernel):
        raise ValueError(
            f"EinsumDense: the kernel's shape {kernel} needs known dimensions (input shape "
            f"{tuple(input_shape)}, output_shape {output_shape!r})"
        )
    bias = None
    if bias_axes:
        for d in bias_axes:
            if d not in output_spec:
                raise ValueError(
                    f"EinsumDense: bias dimension {d!r} is not part of the output spec "
                    f"{output_spec!r}"
                )
        first = min(output_spec.find(d) for d in bias_axes)
        bias = [out[output_at[d]] if d in bias_axes else 1 for d in output_spec[first:]]
        if not left:
            bias.extend([1] * elided)
    return [int(k) for k in kernel], bias, out, fan_in_axes, fan_out_axes


class EinsumDense(Layer):
    """A dense layer written as an einsum: `activation(einsum(equation, inputs, kernel) +
    bias)`, the kernel's shape read from the equation, the input and `output_shape` (every
    output dimension after the batch; None where the input gives it).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 4),
    ...                                     bias_axes="de")
    >>> layer(rt.ones([3, 5, 6])).shape, tuple(layer.kernel.shape), tuple(layer.bias.shape)
    ((3, 5, 2, 4), (6, 2, 4), (2, 4))
    """

    kernel_regularizer: Any
    kernel_constraint: Any
    bias_regularizer: Any
    bias_constraint: Any

    def __init__(
        self,
        equation: str,
        output_shape: Any,
        activation: Any = None,
        bias_axes: str | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        options = weight_options(kwargs, ("kernel", "bias"))
        reject_options("EinsumDense", kwargs, ("lora_rank", "lora_alpha", "input_shape"))
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        self.equation = str(equation)
        self.partial_output_shape = (
            (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
        )
        self.bias_axes = bias_axes
        self.activation = get_activation(activation)
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel: Any = None
        self.bias: Any = None
        self._full_output_shape: list[Any] = []

    def build(self, input_shape: tuple[Any, ...]) -> None:
        kernel, bias, out, fan_in, fan_out = _einsum_shapes(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape
        )
        self._full_output_shape = out
        init = self.kernel_initializer
        if isinstance(init, VarianceScaling):
            # Keras's fans: the contracted axes in, the output axes out (not a conv kernel's).
            fans = (
                math.prod(kernel[i] for i in fan_in),
                math.prod(kernel[i] for i in fan_out),
            )
            init = _reshaped(init, fans)
        self.kernel = self.add_weight(
            "kernel",
            tuple(kernel),
            init,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        if bias is not None:
            self.bias = self.add_weight(
                "bias",
                tuple(bias),
                self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        y = _rt.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            y = _rt.add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The full output shape for `input_shape`."""
        return tuple(
            _einsum_shapes(
                self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape
            )[2]
        )


def _reshaped(init: Any, fans: tuple[int, int]) -> Any:
    """`init` sampling a `fans`-shaped matrix (its fans) reshaped to the kernel's shape."""

    def sample(shape: Any, dtype: Any = None) -> Any:
        return _rt.reshape(init(fans, dtype), list(shape))

    return sample


def _letters(n: int, start: int = 0) -> str:
    return string.ascii_lowercase[start : start + n]


def _projection(free: int, bound: int, out: int) -> tuple[str, str]:
    """Keras's projection equation: `free` batch-like axes pass through, `bound` axes are
    contracted with the kernel, `out` axes come from it; and its bias axes."""
    inputs = _letters(free) + _letters(bound, free)
    kernel = _letters(bound, free) + _letters(out, free + bound)
    output = _letters(free) + _letters(out, free + bound)
    return f"{inputs},{kernel}->{output}", _letters(out, free + bound)


def _attention_equations(rank: int, axes: tuple[int, ...]) -> tuple[str, str, int]:
    """The scores and combination equations over projected tensors of `rank` (`(batch, ...,
    heads, channels)`), attending over `axes`; and the scores' rank."""
    target = _letters(rank)
    batch = [i for i in range(rank) if i not in axes and i != rank - 1]
    source = ""
    offset = rank
    for i in range(rank):
        if i in batch or i == rank - 1:
            source += target[i]
        else:
            source += string.ascii_lowercase[offset]
            offset += 1
    product = (
        "".join(target[i] for i in batch)
        + "".join(target[i] for i in axes)
        + "".join(source[i] for i in axes)
    )
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


class _Attention(Layer):
    """What `MultiHeadAttention` and `GroupQueryAttention` share: building from all three
    inputs' shapes, Keras's masks read off the inputs, and the masks combined into one."""

    supports_masking = True
    # Set by the subclasses' constructors.
    use_bias: bool
    dropout: float
    _softmax: Any
    _dropout_layer: Any
    kernel_initializer: Any
    bias_initializer: Any
    _projection_activity: Any

    def build(  # Keras: the three inputs' shapes
        self,
        query_shape: tuple[Any, ...],
        value_shape: tuple[Any, ...] | None = None,
        key_shape: tuple[Any, ...] | None = None,
    ) -> None:
        raise NotImplementedError

    def _einsum_sublayer(
        self, equation: str, shape: list[Any], bias: str, name: str, activation: Any = None
    ) -> EinsumDense:
        """One of the layer's `EinsumDense` sublayers, with the layer's initializers,
        penalties and constraints (Keras's sublayer arguments)."""
        options = {
            f"{w}_{kind}": getattr(self, f"{w}_{kind}")
            for w in ("kernel", "bias")
            for kind in ("regularizer", "constraint")
        }
        return EinsumDense(
            equation,
            output_shape=shape,
            bias_axes=bias if self.use_bias else None,
            activation=activation,
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            activity_regularizer=self._projection_activity,
            name=name,
            dtype=self.dtype,
            **options,
        )

    def _attention_weights(
        self, scores: Any, mask: Any, fused: bool, training: Any
    ) -> tuple[Any, Any]:
        """The attention weights, and the weights after dropout. Keras's fused path (no
        dropout, no returned scores): masked scores get no probability and a row with every
        key masked attends evenly; otherwise Keras's masked softmax (such a row gets zeros)."""
        if fused:
            if mask is not None:
                scores = _rt.where(mask, scores, _rt.cast(-1e9, scores.dtype))
            weights = _rt.softmax(scores, axis=-1)
        else:
            weights = self._softmax(scores, mask=mask)
        final = self._dropout_layer(weights, training=training) if self.dropout > 0 else weights
        return weights, final

    def __call__(  # type: ignore[override]  # Keras: query and value, then the options
        self, query: Any, value: Any, key: Any = None, **kwargs: Any
    ) -> Any:
        if not self.built and not _symbolic(query):
            # Built from all three inputs' shapes (the base class would see the query's only).
            def shape(x: Any) -> tuple[Any, ...]:
                return tuple(_rt.convert_to_tensor(x).shape)

            self.build(shape(query), shape(value), None if key is None else shape(key))
        if _symbolic(query):
            return super().__call__(query, value, key=key, **kwargs)
        # Keras's masks: the query's, and the value's and key's unless given; taken off the
        # inputs (the projections do not take masks) and put on the output.
        query_mask = kwargs.pop("query_mask", None)
        if query_mask is None:
            query_mask = get_keras_mask(query)
        if kwargs.get("value_mask") is None:
            kwargs["value_mask"] = get_keras_mask(value)
        if key is not None and kwargs.get("key_mask") is None:
            kwargs["key_mask"] = get_keras_mask(key)
        for x in (query, value, key):
            set_keras_mask(x, None)
        outputs = super().__call__(query, value, key=key, query_mask=query_mask, **kwargs)
        first = outputs[0] if isinstance(outputs, tuple) else outputs
        set_keras_mask(first, query_mask)
        return outputs

    def _attention_mask(
        self,
        query: Any,
        value: Any,
        query_mask: Any,
        value_mask: Any,
        key_mask: Any,
        attention_mask: Any,
        use_causal_mask: bool,
    ) -> Any:
        """The masks above combined by AND into one boolean mask `[B, T, S]` (or None)."""
        combined = None

        def both(a: Any, b: Any) -> Any:
            return b if a is None else _rt.logical_and(a, b)

        if query_mask is not None:
            combined = both(combined, _rt.expand_dims(_rt.cast(query_mask, _rt.bool), -1))
        for mask in (value_mask, key_mask):
            if mask is not None:
                combined = both(combined, _rt.expand_dims(_rt.cast(mask, _rt.bool), -2))
        window = getattr(self, "sliding_window", None)
        if use_causal_mask or window is not None:
            t, s = int(query.shape[1]), int(value.shape[1])
            rows = _rt.reshape(_rt.range(t), [1, t, 1])
            cols = _rt.reshape(_rt.range(s), [1, 1, s])
            if use_causal_mask:
                combined = both(combined, _rt.greater_equal(rows, cols))
            if window is not None:  # a band: keys within `window - 1` positions either side
                combined = both(combined, _rt.less(_rt.abs(rows - cols), window))
        if attention_mask is not None:
            combined = both(combined, _rt.cast(attention_mask, _rt.bool))
        return combined


class MultiHeadAttention(_Attention):
    """Multi-head attention as in "Attention Is All You Need" (Keras's): `query`, `key` and
    `value` are projected to `num_heads` heads (`EinsumDense` sublayers `query`, `key`,
    `value`, kernels `[features, num_heads, key_dim]`), attended with scores
    `softmax(q k / sqrt(key_dim))` over `attention_axes` (by default every axis between the
    batch and the features), and projected back by `attention_output` to the query's features
    (or `output_shape`).

    `call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
    attention_mask=None, return_attention_scores=False, training=None, use_causal_mask=False)`:
    the masks are boolean (`[B, T]` for the query, `[B, S]` for the value and key, `[B, T, S]`
    for `attention_mask`) and combine with a causal mask by AND.

    >>> import rustape as rt
    >>> mha = rt.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> out, scores = mha(rt.ones([3, 5, 8]), rt.ones([3, 6, 8]), return_attention_scores=True)
    >>> out.shape, scores.shape
    ((3, 5, 8), (3, 2, 5, 6))
    """

    supports_masking = True

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        options = weight_options(kwargs, ("kernel", "bias"))
        for option in ("sliding_window", "flash_attention"):
            if kwargs.get(option, 0) is None:
                del kwargs[option]
        if kwargs.get("use_gate") is False:
            del kwargs["use_gate"]
        reject_options("MultiHeadAttention", kwargs, ("input_shape",))
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        # The activity penalty is the projections' (Keras's): not of this layer's output.
        self._projection_activity = options.pop("activity_regularizer")
        vars(self).update(options)
        owner = "MultiHeadAttention"
        self.num_heads = check_number(owner, "num_heads", num_heads, low=1, integer=True)
        self.key_dim = check_number(owner, "key_dim", key_dim, low=1, integer=True)
        self.value_dim = (
            self.key_dim
            if value_dim is None
            else check_number(owner, "value_dim", value_dim, low=1, integer=True)
        )
        self.dropout = check_number(owner, "dropout", dropout, low=0.0, high=1.0)
        self.use_bias = bool(use_bias)
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        self.output_shape_arg = tuple(output_shape) if output_shape else None
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(
                "MultiHeadAttention: `attention_axes` must be an int, list, or tuple. "
                f"Received: attention_axes={attention_axes!r}"
            )
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self.key_dim))

    def build(  # Keras: the three inputs' shapes
        self,
        query_shape: tuple[Any, ...],
        value_shape: tuple[Any, ...] | None = None,
        key_shape: tuple[Any, ...] | None = None,
    ) -> None:
        value_shape = query_shape if value_shape is None else value_shape
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(
                "MultiHeadAttention: all dimensions of `value` and `key`, except the last one, "
                f"must be equal. Received: value_shape={tuple(value_shape)} and "
                f"key_shape={tuple(key_shape)}"
            )
        q_rank = len(query_shape)
        if q_rank < 3 or len(value_shape) != q_rank:
            raise ValueError(
                "MultiHeadAttention: query and value must have the same rank, at least 3 "
                f"(batch, positions..., features); got {tuple(query_shape)} and "
                f"{tuple(value_shape)}"
            )
        heads = [self.num_heads, self.key_dim]
        middle = [None] * (q_rank - 2)
        equation, bias = _projection(q_rank - 1, 1, 2)
        self.query_dense = self._einsum_sublayer(equation, middle + heads, bias, "query")
        self.query_dense.build(tuple(query_shape))
        self.key_dense = self._einsum_sublayer(equation, middle + heads, bias, "key")
        self.key_dense.build(tuple(key_shape))
        self.value_dense = self._einsum_sublayer(
            equation, middle + [self.num_heads, self.value_dim], bias, "value"
        )
        self.value_dense.build(tuple(value_shape))
        rank = q_rank + 1
        axes = self.attention_axes
        if axes is None:
            axes = tuple(range(1, rank - 2))
        else:
            axes = tuple(a if a >= 0 else (rank - 1) + a for a in axes)
            if any(not 1 <= a < rank - 2 for a in axes):
                raise ValueError(
                    f"MultiHeadAttention: attention_axes {self.attention_axes} are out of range "
                    f"for inputs of rank {q_rank} (the batch and feature axes cannot be attended)"
                )
        self._axes = axes
        self._dot_product, self._combine, scores_rank = _attention_equations(rank, axes)
        self._softmax = Softmax(axis=tuple(range(scores_rank - len(axes), scores_rank)))
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed)
        out_shape = self.output_shape_arg or (query_shape[-1],)
        equation, bias = _projection(q_rank - 1, 2, len(out_shape))
        self.output_dense = self._einsum_sublayer(
            equation, middle + list(out_shape), bias, "attention_output"
        )
        self.output_dense.build(tuple(query_shape[:-1]) + (self.num_heads, self.value_dim))
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
        key = value if key is None else _rt.convert_to_tensor(key)
        mask = self._attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
        )
        q = self.query_dense(query)
        k = self.key_dense(key)
        v = self.value_dense(value)
        q = _rt.multiply(q, _rt.cast(self._inverse_sqrt_key_dim, q.dtype))
        scores = _rt.einsum(self._dot_product, k, q)
        # Keras takes its fused path for rank-3 inputs without dropout or returned scores:
        # masked scores get no probability, and a row with every key masked attends evenly.
        fused = len(q.shape) == 4 and self.dropout == 0 and not return_attention_scores
        if mask is not None:
            for _ in range(len(scores.shape) - len(mask.shape)):
                mask = _rt.expand_dims(mask, -len(self._axes) * 2 - 1)
        weights, final = self._attention_weights(scores, mask, fused, training)
        out = self.output_dense(_rt.einsum(self._combine, final, v))
        return (out, weights) if return_attention_scores else out

    def compute_output_shape(  # Keras: the three inputs' shapes
        self, query_shape: tuple[Any, ...], value_shape: Any = None, key_shape: Any = None
    ) -> tuple[Any, ...]:
        """The query's shape with the last axis `output_shape` (the query's features)."""
        out = self.output_shape_arg or (query_shape[-1],)
        return tuple(query_shape[:-1]) + tuple(out)
