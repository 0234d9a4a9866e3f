"""`rt.keras.optimizers`: Keras 3's optimizers over fused Rust update kernels.

Each update of a variable is one pass over its elements in Rust (clipping, weight decay and the
rule together), never recorded on a tape; slots are `rt.Variable`s. The numbers follow Keras 3
in TensorFlow 2.21 step for step in float32.

>>> import rustape as rt
>>> w = rt.Variable([1.0, 2.0])
>>> opt = rt.keras.optimizers.SGD(learning_rate=0.5)
>>> with rt.GradientTape() as tape:
...     loss = rt.reduce_sum(w * w)
>>> _ = opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
>>> w.numpy().tolist(), int(opt.iterations.numpy())
([0.0, 0.0], 1)
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from ... import _rustape as _rt
from .. import constraints as _constraints
from .._util import check_number
from . import schedules
from .schedules import LearningRateSchedule

__all__ = [
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lamb",
    "Lion",
    "LossScaleOptimizer",
    "Muon",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "get",
    "schedules",
]


class Optimizer:
    """The shared machinery: learning rate, options, `iterations`, slots and the update calls.

    Use a subclass (`SGD`, `Adam`, ...). `learning_rate` is a float, an `rt.Variable`, a
    `LearningRateSchedule` or a callable of no arguments.

    >>> import rustape as rt
    >>> opt = SGD(learning_rate=0.5)
    >>> isinstance(opt, Optimizer), float(opt.learning_rate)
    (True, 0.5)
    """

    _algorithm = ""

    def __init__(
        self,
        learning_rate: Any,
        hyperparameters: dict[str, Any],
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(
                f"{type(self).__name__} got unexpected keyword arguments: {sorted(kwargs)}"
            )
        if use_ema:
            raise ValueError(f"{type(self).__name__}: use_ema=True is not supported")
        if loss_scale_factor is not None or gradient_accumulation_steps is not None:
            raise ValueError(
                f"{type(self).__name__}: loss_scale_factor and gradient_accumulation_steps are "
                "not supported"
            )
        owner = type(self).__name__
        weight_decay = check_number(owner, "weight_decay", weight_decay, none_ok=True)
        clipnorm = check_number(owner, "clipnorm", clipnorm, none_ok=True)
        clipvalue = check_number(owner, "clipvalue", clipvalue, none_ok=True)
        global_clipnorm = check_number(owner, "global_clipnorm", global_clipnorm, none_ok=True)
        hyperparameters = {
            key: value
            if isinstance(value, bool) or value is None
            else check_number(owner, key, value)
            for key, value in hyperparameters.items()
        }
        self.name = name if name is not None else type(self).__name__.lower()
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = False
        for key, value in hyperparameters.items():
            setattr(self, key, value)
        self._hyperparameters = dict(hyperparameters)
        self._learning_rate: Any = learning_rate
        self._exclude_vars: list[Any] = []
        self._exclude_names: list[str] = []
        self._built_with: list[Any] = []
        self._core = _rt.Optimizer(
            self._algorithm,
            self._engine_rate(learning_rate, owner),
            hyperparameters,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
        )

    @staticmethod
    def _engine_rate(learning_rate: Any, owner: str = "Optimizer") -> Any:
        """What the Rust optimizer holds: a number, a Variable, a built-in schedule, or a
        placeholder 0 for rates computed in Python at each step. A number must be finite
        (ValueError naming `owner`, never an OverflowError)."""
        if isinstance(learning_rate, _rt.Variable):
            return learning_rate
        engine = getattr(learning_rate, "_engine", None)
        if isinstance(learning_rate, LearningRateSchedule) and engine is not None:
            return engine
        if callable(learning_rate):
            return 0.0
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
            try:
                float(learning_rate)
            except (TypeError, ValueError):
                raise ValueError(
                    "Argument `learning_rate` should be float, or an instance of "
                    "LearningRateSchedule, or a callable (that takes in the current iteration "
                    f"value and returns the corresponding learning rate value). Received instead: "
                    f"learning_rate={learning_rate!r}"
                ) from None
        try:
            return check_number(owner, "learning_rate", learning_rate)
        except TypeError as e:
            raise ValueError(str(e)) from None

    def _python_rate(self) -> float | None:
        """The rate for this step when only Python can compute it, else None."""
        lr = self._learning_rate
        if isinstance(lr, _rt.Variable) or getattr(lr, "_engine", None) is not None:
            return None
        if isinstance(lr, LearningRateSchedule):
            rate = lr(self.iterations)
        elif callable(lr):
            rate = lr()
        else:
            return None
        return check_number(type(self).__name__, "learning_rate (this step's)", rate)

    @property
    def iterations(self) -> Any:
        """The number of updates applied (an int64 `rt.Variable`)."""
        return self._core.iterations

    @property
    def learning_rate(self) -> Any:
        """The current rate: the learning-rate Variable, or the schedule's value at this step."""
        variable = self._core.learning_rate_variable
        if variable is not None and not callable(self._learning_rate):
            return variable
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return lr(self.iterations)
        if callable(lr):
            return lr()
        return _rt.constant(self._core.current_learning_rate(), dtype=_rt.float32)

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        variable = self._core.learning_rate_variable
        if (
            variable is not None
            and not callable(self._learning_rate)
            and not callable(value)
            and not isinstance(value, _rt.Variable)
        ):
            variable.assign(check_number(type(self).__name__, "learning_rate", value))
            return
        self._learning_rate = value
        self._core.set_learning_rate(self._engine_rate(value, type(self).__name__))

    @property
    def variables(self) -> list[Any]:
        """Every variable of the optimizer in Keras's order (iterations, learning rate, slots)."""
        return self._core.variables()

    @property
    def built(self) -> bool:
        """Whether the slots exist."""
        return self._core.built

    def build(self, var_list: Sequence[Any]) -> None:
        """Creates the slots of `var_list` (the first update does it too)."""
        var_list = list(var_list)
        if self._core.built:
            return
        if self._exclude_vars or self._exclude_names:
            pattern = (
                re.compile("|".join(set(self._exclude_names))) if self._exclude_names else None
            )
            excluded = [
                v
                for v in var_list
                if any(v is e for e in self._exclude_vars)
                or (pattern is not None and pattern.search(v.name) is not None)
            ]
            self._core.exclude_from_weight_decay(excluded, [])
        self._built_with = var_list
        self._core.build(var_list)

    def exclude_from_weight_decay(
        self, var_list: Sequence[Any] | None = None, var_names: Sequence[str] | None = None
    ) -> None:
        """Leaves `var_list` and variables whose name matches one of `var_names` out of weight
        decay. Only before the optimizer is built."""
        if self._core.built:
            raise ValueError(
                "`exclude_from_weight_decay()` can only be configured before the optimizer is built."
            )
        names = list(var_names or [])
        for name in names:
            if not isinstance(name, str):
                raise TypeError(
                    f"{type(self).__name__}.exclude_from_weight_decay: `var_names` must be "
                    f"strings (regular expressions), got {name!r}"
                )
            try:
                re.compile(name)
            except re.error as e:
                raise ValueError(
                    f"{type(self).__name__}.exclude_from_weight_decay: {name!r} is not a "
                    f"regular expression ({e})"
                ) from None
        self._exclude_vars = list(var_list or [])
        self._exclude_names = names

    def get_slot(self, variable: Any, name: str) -> Any:
        """Slot `name` ("momentum", "velocity", ...) of `variable`, or None."""
        return self._core.slot(variable, name)

    def apply_gradients(self, grads_and_vars: Iterable[Any]) -> Any:
        """Applies `(gradient, variable)` pairs; None gradients are skipped (with Keras's
        warning). Returns `iterations`."""
        pairs = list(grads_and_vars)
        if not pairs:
            return self.iterations
        grads, variables = zip(*pairs)
        self.apply(list(grads), list(variables))
        return self.iterations

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> None:
        """Applies `grads[i]` to `trainable_variables[i]` (the built list when omitted)."""
        grads = list(grads)
        if trainable_variables is None:
            if not self._core.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be "
                    "built on a list of variables. Call `optimizer.build(trainable_variables)` "
                    "first."
                )
            trainable_variables = self.variables_built_with
        variables = list(trainable_variables)
        for v in variables:
            if not isinstance(v, _rt.Variable):
                raise TypeError(
                    f"{type(self).__name__}.apply_gradients: expected rt.Variable, got "
                    f"{type(v).__name__}"
                )
        if not grads:
            return
        missing = [v.name for g, v in zip(grads, variables) if g is None]
        if missing and len(missing) < len(grads):
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the loss. If "
                "using `model.compile()`, did you forget to provide a `loss` argument?",
                stacklevel=3,
            )
        if not self._core.built:
            self.build(variables)
        self._core.apply(grads, variables, self._python_rate())
        # Keras applies each updated variable's constraint right after the update.
        for g, v in zip(grads, variables):
            constraint = _constraints.constraint_of(v) if g is not None else None
            if constraint is not None:
                v.assign(constraint(v))

    @property
    def variables_built_with(self) -> list[Any]:
        """The trainable variables the optimizer was built with."""
        return list(self._built_with)

    def minimize(self, loss: Any, var_list: Any, tape: Any = None) -> Any:
        """Computes the gradients of `loss` (a callable, or a tensor recorded on `tape`) with
        respect to `var_list` (a list or a callable returning one) and applies them."""
        from ..._tape import GradientTape

        if callable(loss):
            with GradientTape() as recording:
                if not callable(var_list):
                    recording.watch(var_list)
                loss = loss()
            tape = recording
        elif tape is None:
            raise ValueError(
                f"`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, "
                "tape=None."
            )
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def scale_loss(self, loss: Any) -> Any:
        """The loss as the gradients should see it: unchanged (`LossScaleOptimizer` scales it).

        >>> import rustape as rt
        >>> float(SGD().scale_loss(rt.constant(2.0)))
        2.0
        """
        return loss

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        lr = self._learning_rate
        if isinstance(lr, _rt.Variable):
            lr = float(lr.numpy())
        config = {
            "name": self.name,
            "learning_rate": lr,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "clipvalue": self.clipvalue,
            "global_clipnorm": self.global_clipnorm,
        }
        config.update(self._hyperparameters)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Optimizer:
        """An optimizer from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<rt.keras.optimizers.{type(self).__name__} name={self.name!r}>"


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum.

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> opt = SGD(learning_rate=0.1, momentum=0.9)
    >>> _ = opt.apply_gradients([(rt.constant([1.0]), w)])
    >>> round(float(w.numpy()[0]), 6)
    0.9
    """

    _algorithm = "SGD"

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        **kwargs: Any,
    ) -> None:
        if (
            isinstance(momentum, bool)
            or not isinstance(momentum, (int, float))
            or not 0 <= momentum <= 1
        ):
            raise ValueError(f"SGD: `momentum` must be a float between [0, 1], got {momentum!r}.")
        super().__init__(
            learning_rate, {"momentum": float(momentum), "nesterov": bool(nesterov)}, **kwargs
        )


class Adam(Optimizer):
    """Adam (with `amsgrad=True`, AMSGrad).

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> _ = Adam(learning_rate=0.1).apply_gradients([(rt.constant([5.0]), w)])
    >>> round(float(w.numpy()[0]), 5)
    0.9
    """

    _algorithm = "Adam"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate,
            {"beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon, "amsgrad": bool(amsgrad)},
            **kwargs,
        )


class AdamW(Optimizer):
    """Adam with decoupled weight decay (`weight_decay`, 0.004 by default).

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> _ = AdamW(learning_rate=0.1, weight_decay=0.5).apply_gradients([(rt.constant([0.0]), w)])
    >>> round(float(w.numpy()[0]), 5)
    0.95
    """

    _algorithm = "AdamW"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(
            learning_rate,
            {"beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon, "amsgrad": bool(amsgrad)},
            weight_decay=weight_decay,
            **kwargs,
        )


class RMSprop(Optimizer):
    """RMSprop, with optional momentum and the centered variant.

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> _ = RMSprop(learning_rate=0.01).apply_gradients([(rt.constant([2.0]), w)])
    >>> round(float(w.numpy()[0]), 4)
    0.9684
    """

    _algorithm = "RMSprop"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate,
            {"rho": rho, "momentum": momentum, "epsilon": epsilon, "centered": bool(centered)},
            **kwargs,
        )


class Adagrad(Optimizer):
    """Adagrad.

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> _ = Adagrad(learning_rate=0.1).apply_gradients([(rt.constant([1.0]), w)])
    >>> round(float(w.numpy()[0]), 4)
    0.9047
    """

    _algorithm = "Adagrad"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate,
            {"initial_accumulator_value": initial_accumulator_value, "epsilon": epsilon},
            **kwargs,
        )


class Adadelta(Optimizer):
    """Adadelta.

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> _ = Adadelta(learning_rate=1.0).apply_gradients([(rt.constant([1.0]), w)])
    >>> float(w.numpy()[0]) < 1.0
    True
    """

    _algorithm = "Adadelta"

    def __init__(
        self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7, **kwargs: Any
    ) -> None:
        super().__init__(learning_rate, {"rho": rho, "epsilon": epsilon}, **kwargs)


class Nadam(Optimizer):
    """Nadam (Adam with Nesterov momentum).

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> _ = Nadam(learning_rate=0.1).apply_gradients([(rt.constant([1.0]), w)])
    >>> float(w.numpy()[0]) < 1.0
    True
    """

    _algorithm = "Nadam"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate, {"beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon}, **kwargs
        )


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm).

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> _ = Adamax(learning_rate=0.1).apply_gradients([(rt.constant([3.0]), w)])
    >>> round(float(w.numpy()[0]), 5)
    0.9
    """

    _algorithm = "Adamax"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate, {"beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon}, **kwargs
        )


class Lion(Optimizer):
    """Lion: steps of the learning rate times the sign of an interpolated momentum.

    >>> import rustape as rt
    >>> w = rt.Variable([1.0, 1.0])
    >>> _ = Lion(learning_rate=0.1).apply_gradients([(rt.constant([3.0, -0.5]), w)])
    >>> [round(x, 5) for x in w.numpy().tolist()]
    [0.9, 1.1]
    """

    _algorithm = "Lion"

    def __init__(
        self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.99, **kwargs: Any
    ) -> None:
        super().__init__(learning_rate, {"beta_1": beta_1, "beta_2": beta_2}, **kwargs)


class Ftrl(Optimizer):
    """FTRL ("Follow The Regularized Leader"), with online L1/L2 and shrinkage L2
    regularization; suited to shallow models with large sparse inputs.

    >>> import rustape as rt
    >>> w = rt.Variable([1.0, -1.0])
    >>> opt = Ftrl(learning_rate=0.1, l1_regularization_strength=0.01)
    >>> _ = opt.apply_gradients([(rt.constant([0.5, -0.5]), w)])
    >>> [round(x, 4) for x in w.numpy().tolist()]
    [0.3793, -0.3793]
    """

    _algorithm = "Ftrl"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate,
            {
                "learning_rate_power": learning_rate_power,
                "initial_accumulator_value": initial_accumulator_value,
                "l1_regularization_strength": l1_regularization_strength,
                "l2_regularization_strength": l2_regularization_strength,
                "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength,
                "beta": beta,
            },
            **kwargs,
        )


class Lamb(Optimizer):
    """Lamb: Adam's moments with each variable's step scaled by the ratio of its norm to the
    norm of its Adam update (a per-variable trust ratio, for large batches).

    >>> import rustape as rt
    >>> w = rt.Variable([3.0, 4.0])
    >>> _ = Lamb(learning_rate=0.1).apply_gradients([(rt.constant([1.0, 1.0]), w)])
    >>> [round(x, 4) for x in w.numpy().tolist()]
    [2.6464, 3.6464]
    """

    _algorithm = "Lamb"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate, {"beta_1": beta_1, "beta_2": beta_2, "epsilon": epsilon}, **kwargs
        )


class Adafactor(Optimizer):
    """Adafactor: for variables of rank 2 or more, the second moment is kept as row and column
    means over the last two axes (memory of a row plus a column, not a matrix); steps are
    relative to the variable's RMS and clipped to `clip_threshold` in RMS.

    >>> import rustape as rt
    >>> w = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    >>> opt = Adafactor(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(rt.constant([[1.0, 1.0], [1.0, 1.0]]), w)])
    >>> [round(x, 4) for x in w.numpy().ravel().tolist()]
    [0.7261, 1.7261, 2.7261, 3.7261]
    >>> [tuple(v.shape) for v in opt.variables[2:]]
    [(2,), (2,), (2, 2)]
    """

    _algorithm = "Adafactor"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
        relative_step: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate,
            {
                "beta_2_decay": beta_2_decay,
                "epsilon_1": epsilon_1,
                "epsilon_2": epsilon_2,
                "clip_threshold": clip_threshold,
                "relative_step": bool(relative_step),
            },
            **kwargs,
        )


# Last: they subclass Optimizer above.
from .loss_scale import LossScaleOptimizer
from .muon import Muon

# Keras 3's names for `get` and `compile(optimizer=...)` (Lamb has none there).
_BY_NAME = {
    cls.__name__.lower(): cls
    for cls in (
        SGD,
        Adam,
        AdamW,
        RMSprop,
        Adagrad,
        Adadelta,
        Nadam,
        Adamax,
        Lion,
        Ftrl,
        Adafactor,
        Muon,
    )
}


def get(identifier: Any) -> Optimizer:
    """An optimizer from a name (`"adam"`) or an optimizer (returned as is).

    >>> type(get("rmsprop")).__name__
    'RMSprop'
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")
