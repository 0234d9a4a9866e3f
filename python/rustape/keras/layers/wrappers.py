"""Layer wrappers (Keras 3): `Bidirectional` runs a recurrent layer both ways,
`TimeDistributed` applies a layer to every timestep."""

from __future__ import annotations

from typing import Any

from ... import _rustape as _rt
from .base import Layer, _takes_mask
from .rnn import _RNN
from .rnn_cells import RNN

__all__ = ["Bidirectional", "TimeDistributed"]

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _without_prefix(name: str, prefix: str) -> str:
    return name.removeprefix(prefix)


class Bidirectional(Layer):
    """A recurrent layer run forwards and backwards over the sequence, the two outputs merged
    (`merge_mode`: `"concat"` (default), `"sum"`, `"mul"`, `"ave"`, or None for both).
    With `return_sequences`, the backward outputs are put back in time order first. Weights:
    `forward_layer`'s, then `backward_layer`'s (Keras's order).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Bidirectional(rt.keras.layers.LSTM(4, return_sequences=True))
    >>> layer(rt.ones([2, 5, 3])).shape, len(layer.weights)
    ((2, 5, 8), 6)
    """

    supports_masking = True

    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        backward_layer: Any = None,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        if not isinstance(layer, (_RNN, RNN)):
            raise TypeError(
                "Bidirectional: `layer` must be a recurrent layer instance (SimpleRNN, LSTM, "
                f"GRU, RNN). Received: {layer!r}"
            )
        if backward_layer is not None and not isinstance(backward_layer, (_RNN, RNN)):
            raise TypeError(
                f"Bidirectional: `backward_layer` must be a recurrent layer. Received: "
                f"{backward_layer!r}"
            )
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode!r}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        if kwargs.pop("weights", None) is not None:
            raise ValueError("Bidirectional: `weights=` is not supported (use set_weights)")
        if kwargs:
            raise TypeError(f"Bidirectional got unexpected keyword arguments: {sorted(kwargs)}")
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        base = layer.name
        self.forward_layer = layer._unbuilt_copy(
            f"forward_{_without_prefix(base, 'forward_')}", layer.go_backwards
        )
        if backward_layer is None:
            backward_layer = layer._unbuilt_copy(
                f"backward_{_without_prefix(base, 'backward_')}", not layer.go_backwards
            )
        self.backward_layer = backward_layer
        if self.forward_layer.go_backwards == self.backward_layer.go_backwards:
            raise ValueError(
                "Bidirectional: the forward and backward layers should run in different "
                "directions (go_backwards)"
            )
        for attr in ("return_sequences", "return_state"):
            if getattr(self.forward_layer, attr) != getattr(self.backward_layer, attr):
                raise ValueError(
                    f"Bidirectional: the forward and backward layers must have the same {attr}"
                )
        # Keras: with whole sequences, masked steps give zeros (not the previous output).
        for direction in (self.forward_layer, self.backward_layer):
            direction.zero_output_for_mask = direction.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = self.forward_layer.return_sequences
        self.return_state = self.forward_layer.return_state

    def build(self, input_shape: tuple[Any, ...]) -> None:
        self.forward_layer.build(input_shape)
        self.backward_layer.build(input_shape)

    def call(  # type: ignore[override]  # Keras: call takes what it uses
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: Any = None,
    ) -> Any:
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, mask=mask, training=training)
        y_rev = self.backward_layer(
            sequences, initial_state=backward_state, mask=mask, training=training
        )
        states: list[Any] = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = _rt.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output: Any = _rt.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            head = output if isinstance(output, list) else [output]
            return head + states
        return output

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """The input's mask for whole sequences (one per output without a merge), else None;
        None for each state."""
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0]
        out = previous_mask if self.return_sequences else None
        masks = [out] if self.merge_mode else [out, out]
        if self.return_state:
            return masks + [None] * (2 * self.forward_layer._states)
        return masks[0] if self.merge_mode else masks

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> Any:
        """The forward layer's shapes, the features doubled by `"concat"`."""
        shapes = self.forward_layer.compute_output_shape(input_shape)
        out, states = (shapes[0], shapes[1:]) if self.return_state else (shapes, [])
        if self.merge_mode == "concat":
            out = tuple(out[:-1]) + (None if out[-1] is None else 2 * out[-1],)
        head = [out, out] if self.merge_mode is None else [out]
        if self.return_state:
            return head + list(states) * 2
        return head[0] if self.merge_mode else head


class TimeDistributed(Layer):
    """Applies `layer` to every timestep (axis 1) of its input, one step at a time (as Keras
    does, so a layer that looks across the batch, like BatchNormalization, sees each step's
    batch).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.TimeDistributed(rt.keras.layers.Dense(4))
    >>> layer(rt.ones([2, 5, 3])).shape, tuple(layer.layer.kernel.shape)
    ((2, 5, 4), (3, 4))
    """

    supports_masking = True

    def __init__(
        self,
        layer: Any,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        if not isinstance(layer, Layer):
            raise TypeError(
                "TimeDistributed: please initialize `TimeDistributed` layer with a "
                f"`keras.layers.Layer` instance. Received: {layer!r}"
            )
        if kwargs:
            raise TypeError(f"TimeDistributed got unexpected keyword arguments: {sorted(kwargs)}")
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        self.layer = layer

    def build(self, input_shape: tuple[Any, ...]) -> None:
        if len(input_shape) < 3:
            raise ValueError(
                "TimeDistributed: `input_shape` must have at least 3 dimensions (batch, time, "
                f"features...). Received: input_shape={tuple(input_shape)}"
            )
        if not self.layer.built:
            self.layer.build((input_shape[0],) + tuple(input_shape[2:]))
            self.layer.built = True

    def call(  # type: ignore[override]  # Keras: call takes what it uses
        self, inputs: Any, training: Any = None, mask: Any = None
    ) -> Any:
        shape = tuple(inputs.shape)
        if len(shape) < 3:
            raise ValueError(
                f"TimeDistributed: expected inputs with at least 3 dimensions (batch, time, "
                f"features...), got shape {shape}"
            )
        steps = _rt.unstack(inputs, axis=1)
        masks = _rt.unstack(mask, axis=1) if mask is not None else [None] * len(steps)
        outputs = []
        for x_t, m_t in zip(steps, masks):
            kwargs: dict[str, Any] = {}
            if training is not None:
                kwargs["training"] = training
            if m_t is not None and _takes_mask(type(self.layer).call):
                kwargs["mask"] = m_t
            outputs.append(self.layer(x_t, **kwargs))
        return _rt.stack(outputs, axis=1)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The layer's output shape for one step, with the time axis put back."""
        step = self.layer.compute_output_shape(  # type: ignore[attr-defined]  # Keras's layers have it
            (input_shape[0],) + tuple(input_shape[2:])
        )
        return (step[0], input_shape[1]) + tuple(step[1:])
