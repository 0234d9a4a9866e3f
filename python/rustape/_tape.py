"""`rt.GradientTape`: TensorFlow's tape protocol over the Rust engine's `Tape`.

What lives here is what must be Python: the `with` protocol, nested structures of targets and
sources, argument checking with TensorFlow's errors and warnings. Recording, the backward
sweep and the jacobians are the engine's (`rustape._rustape.Tape`).
"""

from __future__ import annotations

import contextlib
import enum
import logging
import math
import warnings
from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from . import _config
from . import _rustape as _rt
from ._structure import flatten, flatten_up_to, is_nested, pack_sequence_as

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["GradientTape", "UnconnectedGradients"]


class UnconnectedGradients(enum.Enum):
    """What `gradient` / `jacobian` give for a source the target does not depend on.

    `NONE` (the default) gives `None`; `ZERO` gives zeros of the source's shape and dtype;
    `RAISE` (beyond TensorFlow) raises a ValueError that says why the source is disconnected:
    not watched, an integer dtype, behind `stop_gradient`, or read outside the tape.
    The strings `'none'`, `'zero'` and `'raise'` are accepted wherever a value of this enum is.

    >>> x, z = rt.constant(1.0), rt.constant(2.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch([x, z])
    ...     y = x * x
    >>> float(tape.gradient(y, z, unconnected_gradients=rt.UnconnectedGradients.ZERO))
    0.0
    """

    NONE = "none"
    ZERO = "zero"
    RAISE = "raise"


def _unconnected_value(value: Any) -> str:
    if isinstance(value, UnconnectedGradients):
        return value.value
    if isinstance(value, str):
        try:
            return UnconnectedGradients(value.lower()).value
        except ValueError:
            pass
    raise ValueError(
        f"Unknown value for unconnected_gradients: {value!r}; expected "
        "rt.UnconnectedGradients.NONE, .ZERO, .RAISE, 'none', 'zero' or 'raise'"
    )


def _is_tensor(x: Any) -> bool:
    return isinstance(x, _rt.Tensor)


def _is_variable(x: Any) -> bool:
    return isinstance(x, _rt.Variable)


def _type_name(x: Any) -> str:
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class GradientTape:
    """Records operations for automatic differentiation (`tf.GradientTape`).

    Operations run inside the `with` block are recorded when at least one of their inputs is
    watched: tensors passed to `watch`, trainable variables read inside the block (unless
    `watch_accessed_variables=False`), and the outputs of recorded operations.

    Args:
      persistent: allow more than one call to `gradient` / `jacobian` / `batch_jacobian`.
        A non-persistent tape frees what it recorded as its one gradient is computed.
      watch_accessed_variables: watch every trainable variable read while recording.

    >>> x = rt.constant(3.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> float(tape.gradient(y, x))
    6.0
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._tape = _rt.Tape(
            persistent=self._persistent, watch_accessed_variables=self._watch_accessed_variables
        )
        # True between __enter__ and __exit__ (the Rust tape knows too; this mirrors TF's flag).
        self._recording = False

    # -- the recording context -------------------------------------------------------------
    def __enter__(self) -> Self:
        """Enters a context inside which operations are recorded on this tape."""
        self._tape.push()
        self._recording = True
        return self

    def __exit__(
        self,
        typ: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        """Exits the recording context; always leaves the tape stack consistent."""
        self._recording = False
        self._tape.exit()
        return False  # never swallow the exception

    @property
    def persistent(self) -> bool:
        """Whether the tape allows several `gradient` / `jacobian` calls."""
        return self._persistent

    @property
    def watch_accessed_variables(self) -> bool:
        """Whether trainable variables read while recording are watched automatically."""
        return self._watch_accessed_variables

    def _is_recording(self) -> bool:
        return self._tape.is_recording

    # -- watching ----------------------------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Ensures that `tensor` (a Tensor, a Variable, or a nested structure of them) is traced.

        Raises:
          ValueError: if it encounters something that is not a Tensor or a Variable.
        """
        for t in flatten(tensor):
            if not (_is_tensor(t) or _is_variable(t)):
                raise ValueError(
                    f"Passed in object of type {_type_name(t)}, not rt.Tensor or rt.Variable "
                    "(GradientTape.watch)"
                )
            if not (t.dtype.is_floating or t.dtype.is_complex):
                warnings.warn(
                    "The dtype of the watched tensor must be floating (e.g. rt.float32), "
                    f"got rt.{t.dtype.name}",
                    UserWarning,
                    stacklevel=2,
                )
            self._tape.watch(t)

    def watched_variables(self) -> tuple:
        """The variables watched by this tape, in the order they were created (TensorFlow's).

        >>> import rustape as rt
        >>> a, b = rt.Variable(1.0, name="a"), rt.Variable(2.0, name="b")
        >>> with rt.GradientTape() as tape:
        ...     y = b * a
        >>> [v.name for v in tape.watched_variables()]
        ['a:0', 'b:0']
        """
        return tuple(self._tape.watched_variables())

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording operations on this tape.

        Raises:
          RuntimeError: if the tape is not currently recording.
        """
        if not self._is_recording():
            raise RuntimeError(
                "GradientTape.stop_recording: the tape is not recording (stop_recording is only "
                "valid inside the tape's `with` block, and does not nest)"
            )
        self._tape.pause_recording()
        try:
            yield
        finally:
            self._tape.resume_recording()

    def reset(self) -> None:
        """Clears all information stored in this tape (it keeps recording if it was).

        Equivalent to exiting and re-entering the tape context manager with a new tape.
        """
        self._tape.reset()

    # -- gradients ---------------------------------------------------------------------------
    def _before_backward(self, method: str) -> None:
        """TensorFlow's rule for a backward pass called inside the tape's own context (not
        inside `stop_recording`, where the tape is not recording)."""
        if not self._is_recording():
            return
        if self._persistent:
            warnings.warn(
                f"Calling GradientTape.{method} on a persistent tape inside its context is "
                "significantly less efficient than calling it outside the context (it causes the "
                "gradient ops to be recorded on the tape, leading to increased CPU and memory "
                f"usage). Only call GradientTape.{method} inside the context if you actually want "
                "to trace the gradient in order to compute higher order derivatives.",
                UserWarning,
                stacklevel=3,
            )
        else:
            # A non-persistent tape is used up by this call: it stops recording, as in TF.
            self._recording = False
            self._tape.exit()

    @staticmethod
    def _flat_sources(sources: Any, method: str) -> list:
        flat = flatten(sources)
        for i, s in enumerate(flat):
            if not (_is_tensor(s) or _is_variable(s)):
                where = "" if len(flat) == 1 else f" (at position {i} of the flattened sources)"
                raise TypeError(
                    f"GradientTape.{method}: sources must be Tensors or Variables, got "
                    f"{_type_name(s)}{where}"
                )
        return flat

    @staticmethod
    def _as_target(t: Any, method: str) -> Any:
        # A variable target is the variable itself (TensorFlow's handle): `gradient(v, v)` is
        # ones, `gradient(v, w)` None; the engine takes it as it is.
        if _is_tensor(t) or _is_variable(t):
            return t
        if t is None:
            raise ValueError(f"GradientTape.{method}: a target is None")
        return _rt.convert_to_tensor(t)

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
        """The gradient of `target` with respect to `sources`, computed from what was recorded.

        Args:
          target: a Tensor or a nested structure of Tensors. A non-scalar target is summed.
          sources: a Tensor, a Variable, or a nested structure of them.
          output_gradients: one gradient per (flattened) target to seed the backward pass, or
            None for ones.
          unconnected_gradients: `rt.UnconnectedGradients.NONE` / `'none'` or `ZERO` / `'zero'`.

        Returns:
          The gradients, nested like `sources`; None (or zeros) where unconnected.

        Raises:
          RuntimeError: called twice on a non-persistent tape.
          ValueError: the target is a Variable, or `unconnected_gradients` is unknown.
        """
        unconnected = _unconnected_value(unconnected_gradients)
        flat_targets = [self._as_target(t, "gradient") for t in flatten(target)]
        flat_sources = self._flat_sources(sources, "gradient")
        flat_output_gradients = None
        if output_gradients is not None:
            flat_output_gradients = _flat_output_gradients(
                target, output_gradients, len(flat_targets)
            )
            if len(flat_output_gradients) != len(flat_targets):
                raise ValueError(
                    "GradientTape.gradient: output_gradients must have one entry per target: "
                    f"{len(flat_targets)} targets, {len(flat_output_gradients)} output_gradients"
                )
            flat_output_gradients = [
                _as_gradient_seed(g, t) for g, t in zip(flat_output_gradients, flat_targets)
            ]
        if _config.get_nonscalar_target_warning():
            _warn_nonscalar(flat_targets)
        self._before_backward("gradient")
        self._log("gradient")
        grads = self._tape.gradient(flat_targets, flat_sources, flat_output_gradients, unconnected)
        return pack_sequence_as(sources, list(grads))

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
        progress: bool = False,
    ) -> Any:
        """The Jacobian of `target` with respect to each source: shape `target.shape + source.shape`.

        Args:
          target: a single Tensor.
          sources: a Tensor, a Variable, or a nested structure of them.
          unconnected_gradients: as in `gradient`.
          parallel_iterations: how many rows are computed at once (bounds memory).
          experimental_use_pfor: False uses a plain sequential loop (same numbers).
          progress: draw a progress bar on stderr counting the rows (beyond TensorFlow).

        Returns:
          The Jacobians, nested like `sources`.

        >>> x = rt.constant([1.0, 2.0])
        >>> with rt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x).numpy()
        array([[2., 0.],
               [0., 4.]], dtype=float32)
        """
        unconnected = _unconnected_value(unconnected_gradients)
        target = self._as_target(target, "jacobian")
        flat_sources = self._flat_sources(sources, "jacobian")
        self._before_backward("jacobian")
        self._log("jacobian")
        jacobians = self._tape.jacobian(
            target, flat_sources, unconnected, parallel_iterations, experimental_use_pfor, progress
        )
        return pack_sequence_as(sources, list(jacobians))

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
        progress: bool = False,
    ) -> Any:
        """Per-example Jacobians: target `[b, y...]`, source `[b, x...]` give `[b, y..., x...]`.

        `target[i, ...]` must depend only on `source[i, ...]`. `progress=True` draws a
        progress bar on stderr counting the rows (beyond TensorFlow).

        Raises:
          ValueError: if the first dimensions of target and source differ.

        >>> x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> with rt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.batch_jacobian(y, x).shape
        (2, 2, 2)
        """
        unconnected = _unconnected_value(unconnected_gradients)
        target = self._as_target(target, "batch_jacobian")
        (source,) = self._flat_sources([source], "batch_jacobian")
        self._before_backward("batch_jacobian")
        self._log("batch_jacobian")
        return self._tape.batch_jacobian(
            target, source, unconnected, parallel_iterations, experimental_use_pfor, progress
        )

    def hessian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        progress: bool = False,
    ) -> Any:
        """The Hessian of a one-element `target` with respect to each source, without nesting a
        second tape: shape `source.shape + source.shape` per source, nested like `sources`.

        (Beyond `tf.GradientTape`, which needs two nested tapes and `jacobian` for this.)
        `progress=True` draws a progress bar on stderr counting the rows.

        >>> x = rt.constant([1.0, 2.0])
        >>> with rt.GradientTape(persistent=True) as tape:
        ...     tape.watch(x)
        ...     y = rt.reduce_sum(x ** 3)
        >>> tape.hessian(y, x).numpy()
        array([[ 6.,  0.],
               [ 0., 12.]], dtype=float32)
        """
        unconnected = _unconnected_value(unconnected_gradients)
        target = self._as_target(target, "hessian")
        flat_sources = self._flat_sources(sources, "hessian")
        self._before_backward("hessian")
        self._log("hessian")
        hessians = self._tape.hessian(target, flat_sources, unconnected, progress)
        return pack_sequence_as(sources, list(hessians))

    def _log(self, method: str) -> None:
        if _config.logger.isEnabledFor(logging.DEBUG):
            _config.logger.debug(
                "GradientTape.%s: %d recorded ops, %d bytes held", method, len(self), self.nbytes
            )

    # -- introspection -----------------------------------------------------------------------
    def __len__(self) -> int:
        """The number of operations recorded."""
        return len(self._tape)

    @property
    def nbytes(self) -> int:
        """Bytes of tensor data this tape keeps alive for its backward pass."""
        return self._tape.nbytes

    def summary(self) -> str:
        """A text listing of the recorded operations."""
        return self._tape.summary()

    def to_dot(self) -> str:
        """The recorded graph in Graphviz DOT."""
        return self._tape.to_dot()

    def __repr__(self) -> str:
        state = "recording" if self._recording else "not recording"
        return f"<rt.GradientTape persistent={self._persistent} {state}, {len(self)} ops>"


def _warn_nonscalar(targets: list) -> None:
    """rt.config's optional warning: a target of several elements is summed."""
    for t in targets:
        if t.ndim > 0 and math.prod(t.shape) != 1:
            warnings.warn(
                f"GradientTape.gradient: the target of shape {tuple(t.shape)} is summed (the "
                "gradient of reduce_sum(target)); reduce it yourself if that is not what you "
                "meant (rt.config.set_nonscalar_target_warning(False) silences this)",
                UserWarning,
                stacklevel=3,
            )
            return


def _flat_output_gradients(target: Any, output_gradients: Any, n_targets: int) -> list:
    """One seed per flattened target. A seed may itself be a (nested) list of numbers, so
    the structure is matched against the target's rather than flattened blindly."""
    if not is_nested(target):
        if isinstance(output_gradients, (list, tuple)) and len(output_gradients) == 1:
            return [output_gradients[0]]
        return [output_gradients]
    try:
        return flatten_up_to(target, output_gradients)
    except ValueError:
        pass
    if isinstance(output_gradients, (list, tuple)) and len(output_gradients) == n_targets:
        return list(output_gradients)  # a flat list, one per flattened target
    return flatten(output_gradients)


def _as_gradient_seed(g: Any, target: Any) -> Any:
    if g is None or _is_tensor(g):
        return g
    if _is_variable(g):
        return g.value()
    return _rt.convert_to_tensor(g, dtype=target.dtype)
