"""Recurrent cells and the generic `RNN` layer (Keras 3): `SimpleRNNCell`, `LSTMCell`,
`GRUCell` run one step; `StackedRNNCells` chains cells; `RNN` runs any cell over the
timesteps of `[batch, timesteps, features]`.

A cell is any object with `call(inputs, states)` returning `(output, new_states)` and a
`state_size` (an int, or a list with one size per state); `output_size` and
`get_initial_state(batch_size)` are optional. The built-in cells compute the same step as
`SimpleRNN`, `LSTM` and `GRU` (one place: rnn.py's step classes), so a cell inside `RNN`
gives the layer's numbers; the layers are faster, projecting every step's input at once.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from ._args import WEIGHT_OPTIONS
from .base import Layer
from .rnn import (
    _GRUStep,
    _LSTMStep,
    _Recurrent,
    _SimpleRNNStep,
    run_steps,
    sequence_mask,
    sequence_result,
    step_keeps,
)

__all__ = ["RNN", "GRUCell", "LSTMCell", "SimpleRNNCell", "StackedRNNCells"]


class _Cell(_Recurrent):
    """One step: `call(inputs [batch, features], states)` -> `(output, new_states)`."""

    _input_rank = 2
    _unset_options = WEIGHT_OPTIONS + ("implementation",)

    @property
    def state_size(self) -> Any:
        """The size of each state: an int for one state, a list for several (Keras's)."""
        return self.units if self._states == 1 else [self.units] * self._states

    @property
    def output_size(self) -> int:
        """The size of the output (`units`)."""
        return int(self.units)

    def get_initial_state(self, batch_size: int) -> list[Any]:
        """Zero states, one `[batch_size, units]` per state."""
        return [_rt.zeros([batch_size, self.units], dtype=self.dtype) for _ in range(self._states)]

    def call(  # type: ignore[override]  # Keras: call takes what it uses
        self, inputs: Any, states: Any, training: Any = None
    ) -> tuple[Any, Any]:
        if isinstance(training, _rt.Tensor):
            training = bool(training.numpy())
        nested = isinstance(states, (list, tuple))
        held = [self._convert_input(s) for s in (states if nested else [states])]
        shape = tuple(inputs.shape)
        if len(shape) != 2 or len(held) != self._states:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expected inputs [batch, features] and "
                f"{self._states} state(s) of shape [batch, {self.units}], got inputs of shape "
                f"{list(shape)} and {len(held)} state(s)"
            )
        for s in held:
            if tuple(s.shape) != (shape[0], self.units):
                raise ValueError(
                    f"{type(self).__name__} {self.name}: a state must have shape "
                    f"{[shape[0], self.units]}, got {list(s.shape)}"
                )
        input_mask, recurrent_mask = self._dropout_masks(shape[0], shape[1], training)
        x = inputs if input_mask is None else _rt.multiply(inputs, input_mask)
        projected = _rt.matmul(x, self.kernel)
        bias = self._input_bias() if self.use_bias else None
        if bias is not None:
            projected = _rt.add(projected, bias)
        self._prepare()
        output, new_states = self._step(
            projected, held, self.recurrent_kernel.value(), recurrent_mask
        )
        # Keras: one state comes back as it was given, bare or in a list.
        return output, (new_states if nested or self._states > 1 else new_states[0])


class SimpleRNNCell(_SimpleRNNStep, _Cell):
    """One step of `SimpleRNN`: `h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)`;
    `state_size` is `units`.

    >>> import rustape as rt
    >>> cell = rt.keras.layers.SimpleRNNCell(4)
    >>> out, state = cell(rt.ones([2, 3]), [rt.zeros([2, 4])])
    >>> out.shape, len(state)
    ((2, 4), 1)
    >>> rt.keras.layers.RNN(cell)(rt.ones([2, 5, 3])).shape
    (2, 4)
    """


class LSTMCell(_LSTMStep, _Cell):
    """One step of `LSTM`: states `[h, c]` (`state_size` `[units, units]`), gates `i, f, c, o`.

    >>> import rustape as rt
    >>> cell = rt.keras.layers.LSTMCell(4)
    >>> h, (h_again, c) = cell(rt.ones([2, 3]), cell.get_initial_state(2))
    >>> h.shape, c.shape
    ((2, 4), (2, 4))
    """


class GRUCell(_GRUStep, _Cell):
    """One step of `GRU`: gates `z, r, h`; with `reset_after=True` (the default) a bias of
    `[2, 3 * units]`; `state_size` is `units`.

    >>> import rustape as rt
    >>> cell = rt.keras.layers.GRUCell(4)
    >>> out, state = cell(rt.ones([2, 3]), rt.zeros([2, 4]))
    >>> out.shape, state.shape
    ((2, 4), (2, 4))
    """


def _is_nested(x: Any) -> bool:
    return isinstance(x, (list, tuple))


def _check_cell(owner: str, cell: Any) -> None:
    for needed in ("call", "state_size"):
        if not hasattr(cell, needed):
            raise ValueError(
                f"{owner}: a cell must have a `call` method and a `state_size` attribute (an "
                f"int, or a list of ints: one per state); {cell!r} has no `{needed}`"
            )


def _call_cell(cell: Any, inputs: Any, states: Any, training: Any) -> tuple[Any, Any]:
    """`cell(inputs, states)`, with the mode when the cell is a layer that takes one."""
    if isinstance(cell, Layer):
        return cell(inputs, states, training=training)  # type: ignore[no-any-return]
    fn = cell if callable(cell) else cell.call
    return fn(inputs, states)  # type: ignore[no-any-return]


def _output_size(cell: Any) -> int:
    size = getattr(cell, "output_size", None)
    if size is None:
        size = cell.state_size[0] if _is_nested(cell.state_size) else cell.state_size
    return int(size)


def _initial_state(cell: Any, batch_size: int, dtype: Any) -> Any:
    """The cell's own initial state, or zeros of each of its `state_size`."""
    own = getattr(cell, "get_initial_state", None)
    if own is not None:
        return own(batch_size=batch_size)
    sizes = cell.state_size
    if _is_nested(sizes):
        return [_rt.zeros([batch_size, int(d)], dtype=dtype) for d in sizes]
    return _rt.zeros([batch_size, int(sizes)], dtype=dtype)


class StackedRNNCells(Layer):
    """Cells run one after another as one cell: each step's output is the next cell's input;
    the states are one entry per cell.

    >>> import rustape as rt
    >>> cells = [rt.keras.layers.LSTMCell(4), rt.keras.layers.GRUCell(3)]
    >>> layer = rt.keras.layers.RNN(rt.keras.layers.StackedRNNCells(cells), return_state=True)
    >>> out, (h, c), [g] = layer(rt.ones([2, 5, 6]))
    >>> out.shape, c.shape, g.shape
    ((2, 3), (2, 4), (2, 3))
    """

    def __init__(
        self,
        cells: Sequence[Any],
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        cells = list(cells)
        if not cells:
            raise ValueError("StackedRNNCells: give at least one cell")
        for cell in cells:
            _check_cell("StackedRNNCells", cell)
        if dtype is None:  # the cells' own (a stack of float64 cells computes in float64)
            dtype = getattr(cells[0], "dtype", None)
        super().__init__(name=name, dtype=dtype, trainable=trainable, **kwargs)
        self.cells = cells

    @property
    def state_size(self) -> list[Any]:
        """Each cell's `state_size`."""
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self) -> int:
        """The last cell's output size."""
        return _output_size(self.cells[-1])

    def get_initial_state(self, batch_size: int) -> list[Any]:
        """Each cell's initial state."""
        return [_initial_state(cell, batch_size, self.dtype) for cell in self.cells]

    def build(self, input_shape: Any) -> None:
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(shape)
                cell.built = True
            shape = (shape[0], _output_size(cell))

    def call(  # type: ignore[override]  # Keras: call takes what it uses
        self, inputs: Any, states: Any, training: Any = None
    ) -> tuple[Any, Any]:
        if not _is_nested(states) or len(states) != len(self.cells):
            raise ValueError(
                f"StackedRNNCells {self.name}: expected one state entry per cell "
                f"({len(self.cells)}), got {states!r}"
            )
        new_states = []
        for cell, state in zip(self.cells, states):
            given_list = _is_nested(state)
            inputs, state = _call_cell(
                cell, inputs, list(state) if given_list else [state], training
            )
            if _is_nested(state) and len(state) == 1 and not given_list:
                state = state[0]
            new_states.append(state)
        return inputs, new_states


class RNN(Layer):
    """Runs `cell` over the timesteps of `[batch, timesteps, ...]` (Keras 3's `RNN`): the
    built-in cells, a list of cells (stacked), or your own layer with `call(inputs, states)`
    returning `(output, new_states)` and a `state_size`. `return_sequences`, `return_state`,
    `go_backwards`, masks and `zero_output_for_mask` work as in `SimpleRNN`.

    >>> import rustape as rt
    >>> class Minimal(rt.keras.layers.Layer):
    ...     def __init__(self, units):
    ...         super().__init__()
    ...         self.units = self.state_size = units
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight("w", (input_shape[-1], self.units), "ones")
    ...     def call(self, inputs, states):
    ...         out = rt.matmul(inputs, self.w) + 0.5 * states[0]
    ...         return out, [out]
    >>> rt.keras.layers.RNN(Minimal(2))(rt.ones([1, 3, 4])).numpy()
    array([[7., 7.]], dtype=float32)
    """

    supports_masking = True

    def __init__(
        self,
        cell: Any,
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
        super().__init__(name=name, dtype=dtype, trainable=trainable, **kwargs)
        if _is_nested(cell):
            cell = StackedRNNCells(cell)
        _check_cell("RNN", cell)
        sizes = cell.state_size
        if not (isinstance(sizes, int) or _is_nested(sizes)):
            raise ValueError(
                "RNN: a cell's state_size must be an integer, or a list/tuple of integers "
                f"(one for each state tensor); got {sizes!r}"
            )
        if stateful:
            raise ValueError("RNN: stateful=True is not supported")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)

    @property
    def state_size(self) -> list[Any]:
        """The cell's state sizes as a list (one entry per state)."""
        sizes = self.cell.state_size
        return list(sizes) if _is_nested(sizes) else [sizes]

    @property
    def _states(self) -> int:
        return len(self.state_size)

    def _unbuilt_copy(self, name: str, go_backwards: bool) -> RNN:
        """The same layer with a copy of its unbuilt cell, renamed, running forwards or
        backwards (`Bidirectional`'s two directions)."""
        if isinstance(self.cell, Layer) and self.cell.built:
            raise ValueError(
                f"Bidirectional: the cell of {self.name} is built already; wrap an RNN whose "
                "cell has no weights yet"
            )
        clone = copy.copy(self)
        vars(clone).update(
            name=name,
            go_backwards=go_backwards,
            built=False,
            cell=copy.deepcopy(self.cell),
            _variables=[],
            _losses=[],
            _regularizers=[],
        )
        return clone

    def build(self, input_shape: tuple[Any, ...]) -> None:
        if len(input_shape) < 3:
            raise ValueError(
                f"RNN {self.name}: expected inputs of rank 3 or more [batch, timesteps, ...], "
                f"got shape {list(input_shape)}"
            )
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build((input_shape[0],) + tuple(input_shape[2:]))
            self.cell.built = True

    def get_initial_state(self, batch_size: int) -> list[Any]:
        """The cell's initial states, in a list."""
        state = _initial_state(self.cell, batch_size, self.dtype)
        return list(state) if _is_nested(state) else [state]

    def _recurrent_cells(self) -> list[_Recurrent]:
        cells = self.cell.cells if isinstance(self.cell, StackedRNNCells) else [self.cell]
        return [c for c in cells if isinstance(c, _Recurrent)]

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
        if len(shape) < 3:
            raise ValueError(
                f"RNN {self.name}: expected inputs of rank 3 or more [batch, timesteps, ...], "
                f"got shape {list(shape)}"
            )
        batch, steps = shape[0], shape[1]
        if initial_state is None:
            states = self.get_initial_state(batch)
        else:
            states = list(initial_state) if _is_nested(initial_state) else [initial_state]
            if len(states) != len(self.state_size):
                raise ValueError(
                    f"RNN {self.name}: expected {len(self.state_size)} initial state(s), got "
                    f"{len(states)}"
                )

        def step(x_t: Any, states: list[Any]) -> tuple[Any, list[Any]]:
            out, new_states = _call_cell(self.cell, x_t, states, training)
            return out, list(new_states) if _is_nested(new_states) else [new_states]

        # The built-in cells draw their dropout masks once for the whole sequence.
        cells = self._recurrent_cells()
        for cell in cells:
            cell._sequence_masks = {}
        try:
            outputs, states = run_steps(
                step,
                _rt.unstack(sequences, axis=1) if steps else [],
                states,
                step_keeps(mask, steps),
                self.go_backwards,
                self.zero_output_for_mask,
            )
        finally:
            for cell in cells:
                cell._sequence_masks = None
        size = _output_size(self.cell)
        last = outputs[-1] if outputs else _rt.zeros([batch, size], dtype=self.dtype)
        return sequence_result(
            outputs,
            last,
            states,
            [batch, 0, size],
            self.return_sequences,
            self.return_state,
            self.dtype,
        )

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """The input's mask when the output keeps the timesteps (`return_sequences`), else
        None; None for each returned state."""
        return sequence_mask(
            previous_mask, self.return_sequences, self.return_state, len(self.state_size)
        )

    def compute_output_shape(self, input_shape: Sequence[Any]) -> Any:
        """`(batch, timesteps, output_size)` with `return_sequences`, else `(batch,
        output_size)`; with `return_state`, a list adding each state's shape (a list of
        shapes for a cell of the stack with several)."""
        s = tuple(input_shape)
        size = _output_size(self.cell)
        out = (s[0], s[1], size) if self.return_sequences else (s[0], size)
        if not self.return_state:
            return out
        states = [
            [(s[0], int(d)) for d in sizes] if _is_nested(sizes) else (s[0], int(sizes))
            for sizes in self.state_size
        ]
        return [out, *states]
