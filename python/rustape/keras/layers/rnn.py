"""Recurrent layers (Keras 3): `SimpleRNN`, `LSTM`, `GRU` over `[batch, timesteps, features]`.

The input projection of every step is one matmul over the whole sequence (its bias folded in);
each step then adds the recurrent projection and runs the cell. LSTM and GRU (`reset_after`)
steps are single fused ops (`lstm_cell`, `gru_cell`), forward and backward; an LSTM without
recurrent dropout, `go_backwards` or a mask runs its whole loop as one op (`lstm_sequence`),
whose gradient is backpropagation through time in one pass. A mask (`[batch, timesteps]`,
given or attached by `Embedding(mask_zero=True)`) holds the states and repeats the output over
masked steps, as Keras does. Gate order and
formulas are Keras 3's: LSTM `i, f, c, o`; GRU `z, r, h`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from ..activations import get_activation
from ._args import WEIGHT_OPTIONS, reject_options, weight_options
from ._init import initializer
from .base import Layer

__all__ = ["GRU", "LSTM", "SimpleRNN"]

_RNN_OPTIONS = WEIGHT_OPTIONS + (
    "time_major",
    "use_cudnn",
    "implementation",
)


class _Recurrent(Layer):
    """What a recurrent layer and its cell share: weights `kernel [features, gates * units]`,
    `recurrent_kernel [units, gates * units]`, `bias`; the activation, the dropout rates, and
    one step (`_step`) from the projected input and the states (each `[batch, units]`)."""

    _gates = 1
    _states = 1
    #: The rank of the inputs `build` takes: `[batch, timesteps, features]` for a layer,
    #: `[batch, features]` for a cell.
    _input_rank = 3
    #: The Keras options accepted when left at None.
    _unset_options: tuple[str, ...] = _RNN_OPTIONS

    kernel_regularizer: Any
    kernel_constraint: Any
    recurrent_regularizer: Any
    recurrent_constraint: Any
    bias_regularizer: Any
    bias_constraint: Any

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        cls = type(self).__name__
        options = weight_options(kwargs, ("kernel", "recurrent", "bias"))
        reject_options(cls, kwargs, self._unset_options)
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        self.units = check_number(cls, "units", units, low=1, integer=True)
        self.activation = get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializer(kernel_initializer)
        self.recurrent_initializer = initializer(recurrent_initializer)
        self.bias_initializer = initializer(bias_initializer)
        # Keras clips the rates into [0, 1]; NaN and infinities are refused.
        self.dropout = min(1.0, max(0.0, check_number(cls, "dropout", dropout)))
        self.recurrent_dropout = min(
            1.0, max(0.0, check_number(cls, "recurrent_dropout", recurrent_dropout))
        )
        self.seed = check_number(cls, "seed", seed, integer=True, none_ok=True)
        self.kernel: Any = None
        self.recurrent_kernel: Any = None
        self.bias: Any = None
        # Masks held for a whole sequence (Keras draws a cell's dropout masks once per call
        # of its RNN); None outside one.
        self._sequence_masks: dict[str, Any] | None = None

    def _bias_shape(self) -> tuple[int, ...]:
        return (self._gates * self.units,)

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: tuple[Any, ...]) -> None:
        if len(input_shape) != self._input_rank or input_shape[-1] is None:
            expected = (
                "[batch, timesteps, features]" if self._input_rank == 3 else "[batch, features]"
            )
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs {expected} with known "
                f"features, got shape {list(input_shape)}"
            )
        width = self._gates * self.units
        self.kernel = self.add_weight(
            "kernel",
            (int(input_shape[-1]), width),
            self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            (self.units, width),
            self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                self._bias_shape(),
                self._bias_initializer(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    # -- one step --------------------------------------------------------------------------
    def _input_bias(self) -> Any:
        return self.bias

    def _prepare(self) -> None:
        """Reads what every step of one call uses (GRU's recurrent bias)."""

    def _step(
        self, x_t: Any, states: list[Any], recurrent_kernel: Any, recurrent_mask: Any
    ) -> tuple[Any, list[Any]]:
        raise NotImplementedError

    def _dropout_masks(self, batch: int, features: int, training: Any) -> tuple[Any, Any]:
        """The input mask `[batch, features]` and the recurrent mask `[batch, units]` (None
        where the rate or the mode drops nothing); one pair per sequence while one runs."""
        held = self._sequence_masks
        if held is not None and "input" in held:
            return held["input"], held["recurrent"]
        masks: list[Any] = []
        for rate, width in ((self.dropout, features), (self.recurrent_dropout, self.units)):
            masks.append(
                _rt.dropout(_rt.ones([batch, width], dtype=self.dtype), rate, seed=self.seed)
                if training and 0.0 < rate < 1.0
                else None
            )
        if held is not None:
            held.update(input=masks[0], recurrent=masks[1])
        return masks[0], masks[1]


class _RNN(_Recurrent):
    """A recurrent layer: the input projection of every step in one product, then the loop."""

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation,
            use_bias,
            kernel_initializer,
            recurrent_initializer,
            bias_initializer,
            dropout,
            recurrent_dropout,
            seed,
            name=name,
            dtype=dtype,
            trainable=trainable,
            **kwargs,
        )
        if stateful:
            raise ValueError(f"{type(self).__name__}: stateful=True is not supported")
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)

    def _unbuilt_copy(self, name: str, go_backwards: bool) -> _RNN:
        """The same layer, unbuilt, renamed, running forwards or backwards (`Bidirectional`'s
        two directions; Keras makes them from the layer's config)."""
        clone = copy.copy(self)
        vars(clone).update(
            name=name,
            go_backwards=go_backwards,
            built=False,
            kernel=None,
            recurrent_kernel=None,
            bias=None,
            _variables=[],
            _losses=[],
            _regularizers=[],
        )
        return clone

    @property
    def cell(self) -> _RNN:
        """Keras' `layer.cell` (here the layer itself holds `kernel`, `recurrent_kernel`,
        `bias`)."""
        return self

    # -- the loop --------------------------------------------------------------------------
    def _sequence(
        self, projected: Any, states: list[Any], recurrent_kernel: Any
    ) -> tuple[Any, list[Any]] | None:
        """The whole loop as one op over `projected` `[steps, batch, gates * units]`: every
        step's output `[steps, batch, units]` and the last states; None where no such op
        applies (then the loop runs step by step)."""
        return None

    def _initial_states(self, batch: int, initial_state: Any) -> list[Any]:
        if initial_state is None:
            return [_rt.zeros([batch, self.units], dtype=self.dtype) for _ in range(self._states)]
        states = (
            list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        )
        if len(states) != self._states:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected {self._states} initial "
                f"state(s), got {len(states)}"
            )
        out = []
        for s in states:
            s = self._convert_input(s)
            if tuple(s.shape) != (batch, self.units):
                raise ValueError(
                    f"{type(self).__name__} {self.name}: an initial state must have "
                    f"shape {[batch, self.units]}, got {list(s.shape)}"
                )
            out.append(s)
        return out

    def call(  # type: ignore[override]  # Keras: call takes what it uses
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: Any = None,
    ) -> Any:
        if isinstance(training, _rt.Tensor):
            training = bool(training.numpy())
        shape = tuple(sequences.shape)
        if len(shape) != 3:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs of rank 3 "
                f"[batch, timesteps, features], got shape {list(shape)}"
            )
        batch, steps, features = shape
        states = self._initial_states(batch, initial_state)
        x = sequences
        # One mask for every step (Keras' get_dropout_mask).
        input_mask, recurrent_mask = self._dropout_masks(batch, features, training)
        if input_mask is not None:
            x = _rt.multiply(x, _rt.reshape(input_mask, [batch, 1, features]))
        # Every step's input projection in one product: [steps, batch, gates * units].
        width = self._gates * self.units
        time_major = _rt.reshape(_rt.transpose(x, [1, 0, 2]), [steps * batch, features])
        projected = _rt.matmul(time_major, self.kernel)
        bias = self._input_bias() if self.use_bias else None
        if bias is not None:
            projected = _rt.bias_add(projected, bias)
        projected = _rt.reshape(projected, [steps, batch, width])
        recurrent_kernel = self.recurrent_kernel.value()
        self._prepare()
        whole = None
        if steps and not self.go_backwards and recurrent_mask is None and mask is None:
            whole = self._sequence(projected, states, recurrent_kernel)
        if whole is not None:
            # The whole loop ran as one op: every step's output, time-major.
            sequence, states = whole
            if self.return_sequences:
                output = _rt.transpose(sequence, [1, 0, 2])
            else:
                output = states[0]
            if self.return_state:
                return [output, *states]
            return output

        def step(x_t: Any, states: list[Any]) -> tuple[Any, list[Any]]:
            return self._step(x_t, states, recurrent_kernel, recurrent_mask)

        inputs = _rt.unstack(projected) if steps else []
        outputs, states = run_steps(
            step,
            inputs,
            states,
            step_keeps(mask, steps),
            self.go_backwards,
            self.zero_output_for_mask,
        )
        last = outputs[-1] if outputs else states[0]
        return sequence_result(
            outputs,
            last,
            states,
            [batch, 0, self.units],
            self.return_sequences,
            self.return_state,
            self.dtype,
        )

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """The input's mask when the output keeps the timesteps (`return_sequences`), else
        None; None for each returned state."""
        return sequence_mask(previous_mask, self.return_sequences, self.return_state, self._states)

    def compute_output_shape(self, input_shape: Sequence[Any]) -> Any:
        """`(batch, timesteps, units)` with `return_sequences`, else `(batch, units)`; with
        `return_state`, a list adding one `(batch, units)` per state."""
        s = tuple(input_shape)
        out = (s[0], s[1], self.units) if self.return_sequences else (s[0], self.units)
        if self.return_state:
            return [out] + [(s[0], self.units)] * self._states
        return out


# -- the loop's parts, shared with `RNN` over any cell -------------------------------------


def step_keeps(mask: Any, steps: int) -> list[Any]:
    """For each step, None (no mask) or a `[batch, 1]` bool tensor: True where the step runs."""
    if mask is None or not steps:
        return [None] * steps
    return _rt.unstack(_rt.expand_dims(_rt.cast(mask, _rt.bool), -1), axis=1)


def _select_states(keep: Any, new: Any, old: Any) -> Any:
    """`new` where `keep`, else `old`, over states nested in lists (a stack of cells')."""
    if isinstance(new, (list, tuple)):
        return [_select_states(keep, n, o) for n, o in zip(new, old)]
    return _rt.where(keep, new, old)


def run_steps(
    step: Any,
    inputs: list[Any],
    states: Any,
    keeps: list[Any],
    go_backwards: bool,
    zero_output_for_mask: bool,
) -> tuple[list[Any], Any]:
    """Runs `step(x_t, states) -> (output, states)` over `inputs` (reversed with
    `go_backwards`). Masked steps (Keras's): the states carry over, the output repeats the
    previous one (zeros with `zero_output_for_mask`, or before any output)."""
    if go_backwards:
        inputs, keeps = inputs[::-1], keeps[::-1]
    outputs: list[Any] = []
    for x_t, keep in zip(inputs, keeps):
        out, new_states = step(x_t, states)
        if keep is not None:
            held = _rt.zeros_like(out) if zero_output_for_mask or not outputs else outputs[-1]
            out = _rt.where(keep, out, held)
            new_states = _select_states(keep, new_states, states)
        states = new_states
        outputs.append(out)
    return outputs, states


def sequence_result(
    outputs: list[Any],
    last: Any,
    states: list[Any],
    empty_shape: list[int],
    return_sequences: bool,
    return_state: bool,
    dtype: Any,
) -> Any:
    """A recurrent layer's result: every output stacked along time (`return_sequences`) or
    the `last`, followed by the states with `return_state`."""
    if return_sequences:
        output = _rt.stack(outputs, axis=1) if outputs else _rt.zeros(empty_shape, dtype=dtype)
    else:
        output = last
    if return_state:
        return [output, *states]
    return output


def sequence_mask(
    previous_mask: Any, return_sequences: bool, return_state: bool, states: int
) -> Any:
    """A recurrent layer's output mask: the input's when the timesteps stay, None for each
    returned state."""
    if isinstance(previous_mask, (list, tuple)):
        previous_mask = previous_mask[0]
    out = previous_mask if return_sequences else None
    return [out] + [None] * states if return_state else out


# -- the cells' steps, shared by each layer and its cell ------------------------------------


class _SimpleRNNStep(_Recurrent):
    def _step(
        self, x_t: Any, states: list[Any], recurrent_kernel: Any, recurrent_mask: Any
    ) -> tuple[Any, list[Any]]:
        h = states[0]
        if recurrent_mask is not None:
            h = _rt.multiply(h, recurrent_mask)
        out = self.activation(_rt.add(x_t, _rt.matmul(h, recurrent_kernel)))
        return out, [out]


class _LSTMStep(_Recurrent):
    _gates = 4
    _states = 2

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            **kwargs,
        )
        self.recurrent_activation = get_activation(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self._fused = activation in ("tanh", _rt.tanh) and recurrent_activation in (
            "sigmoid",
            _rt.sigmoid,
        )

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, u = self.bias_initializer, self.units

        def init(shape: tuple[int, ...], dtype: Any = None) -> Any:
            return _rt.concat(
                [base((u,), dtype), _rt.ones([u], dtype=dtype), base((2 * u,), dtype)], 0
            )

        return init

    def _step(
        self, x_t: Any, states: list[Any], recurrent_kernel: Any, recurrent_mask: Any
    ) -> tuple[Any, list[Any]]:
        h, c = states
        if recurrent_mask is not None:
            h = _rt.multiply(h, recurrent_mask)
        z = _rt.add(x_t, _rt.matmul(h, recurrent_kernel))
        if self._fused:
            h, c = _rt.lstm_cell(z, c)
            return h, [h, c]
        u = self.units
        i = self.recurrent_activation(z[:, :u])
        f = self.recurrent_activation(z[:, u : 2 * u])
        c = _rt.add(_rt.multiply(f, c), _rt.multiply(i, self.activation(z[:, 2 * u : 3 * u])))
        o = self.recurrent_activation(z[:, 3 * u :])
        h = _rt.multiply(o, self.activation(c))
        return h, [h, c]


class _GRUStep(_Recurrent):
    _gates = 3

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        reset_after: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            **kwargs,
        )
        self.recurrent_activation = get_activation(recurrent_activation)
        self.reset_after = bool(reset_after)
        self._fused = (
            self.reset_after
            and activation in ("tanh", _rt.tanh)
            and recurrent_activation in ("sigmoid", _rt.sigmoid)
        )
        self._recurrent_bias: Any = None

    def _bias_shape(self) -> tuple[int, ...]:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _input_bias(self) -> Any:
        if self.reset_after:
            return self.bias[0]
        return self.bias

    def _prepare(self) -> None:
        # The recurrent bias, read once per call (a variable read per step would cost more).
        self._recurrent_bias = self.bias[1] if self.use_bias and self.reset_after else None

    def _step(
        self, x_t: Any, states: list[Any], recurrent_kernel: Any, recurrent_mask: Any
    ) -> tuple[Any, list[Any]]:
        h_prev = states[0]
        h_in = h_prev if recurrent_mask is None else _rt.multiply(h_prev, recurrent_mask)
        u = self.units
        if self.reset_after:
            inner = _rt.matmul(h_in, recurrent_kernel)
            if self._recurrent_bias is not None:
                inner = _rt.add(inner, self._recurrent_bias)
            if self._fused:
                h = _rt.gru_cell(x_t, inner, h_prev)
                return h, [h]
            z = self.recurrent_activation(_rt.add(x_t[:, :u], inner[:, :u]))
            r = self.recurrent_activation(_rt.add(x_t[:, u : 2 * u], inner[:, u : 2 * u]))
            hh = self.activation(_rt.add(x_t[:, 2 * u :], _rt.multiply(r, inner[:, 2 * u :])))
        else:
            inner = _rt.matmul(h_in, recurrent_kernel[:, : 2 * u])
            z = self.recurrent_activation(_rt.add(x_t[:, :u], inner[:, :u]))
            r = self.recurrent_activation(_rt.add(x_t[:, u : 2 * u], inner[:, u:]))
            hh = self.activation(
                _rt.add(
                    x_t[:, 2 * u :], _rt.matmul(_rt.multiply(r, h_in), recurrent_kernel[:, 2 * u :])
                )
            )
        h = _rt.add(_rt.multiply(z, h_prev), _rt.multiply(_rt.subtract(1.0, z), hh))
        return h, [h]


# -- the layers ----------------------------------------------------------------------------


class SimpleRNN(_SimpleRNNStep, _RNN):
    """`h = activation(x @ kernel + bias + h @ recurrent_kernel)` at each step (Keras 3's
    `SimpleRNN`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.SimpleRNN(4, return_sequences=True)
    >>> layer(rt.ones([2, 5, 3])).shape
    (2, 5, 4)
    """


class LSTM(_LSTMStep, _RNN):
    """Long short-term memory (Keras 3's `LSTM`): gates `i, f, c, o`, `c = f * c_prev + i * g`,
    `h = o * tanh(c)`; the forget gate's bias starts at 1 (`unit_forget_bias`). With the default
    activations (tanh, sigmoid) each step is one fused op.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.LSTM(8, return_state=True)
    >>> out, h, c = layer(rt.ones([2, 5, 3]))
    >>> out.shape, c.shape
    ((2, 8), (2, 8))
    >>> layer.kernel.shape, layer.recurrent_kernel.shape, layer.bias.shape
    ((3, 32), (8, 32), (32,))
    """

    def _sequence(
        self, projected: Any, states: list[Any], recurrent_kernel: Any
    ) -> tuple[Any, list[Any]] | None:
        if not self._fused:
            return None
        hs, c = _rt.lstm_sequence(projected, recurrent_kernel, states[0], states[1])
        return hs, [hs[-1], c]


class GRU(_GRUStep, _RNN):
    """Gated recurrent unit (Keras 3's `GRU`): gates `z, r, h`; with `reset_after=True` (the
    default) `hh = tanh(xh + r * (h_prev @ Uh + bh))`, bias `[2, 3 * units]` (input and
    recurrent), each step one fused op; `h = z * h_prev + (1 - z) * hh`.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.GRU(6, return_sequences=True)
    >>> layer(rt.ones([2, 4, 3])).shape
    (2, 4, 6)
    >>> layer.bias.shape
    (2, 18)
    """
