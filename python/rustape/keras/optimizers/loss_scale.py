"""`LossScaleOptimizer`: Keras 3's dynamic loss scaling around another optimizer.

rustape has no float16, so the scaling changes no result: a program written for mixed
precision runs with its loss scaled, its gradients unscaled, and steps with a non-finite
gradient skipped, as in Keras.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from . import Optimizer

__all__ = ["LossScaleOptimizer"]

_BASE_DEFAULTS: dict[str, Any] = {
    "weight_decay": None,
    "clipnorm": None,
    "global_clipnorm": None,
    "clipvalue": None,
    "use_ema": False,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}


class LossScaleOptimizer(Optimizer):
    """Wraps `inner_optimizer` with dynamic loss scaling: `scale_loss` multiplies the loss by
    the scale; `apply_gradients` divides the gradients by it and applies them when all are
    finite (the scale doubles after `dynamic_growth_steps` such steps), else skips the step
    and halves the scale.

    >>> import rustape as rt
    >>> w = rt.Variable([1.0])
    >>> opt = LossScaleOptimizer(rt.keras.optimizers.SGD(0.5), initial_scale=4.0)
    >>> with rt.GradientTape() as tape:
    ...     loss = opt.scale_loss(rt.reduce_sum(w * w))
    >>> _ = opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    >>> w.numpy().tolist(), float(opt.dynamic_scale.numpy())
    ([0.0], 4.0)
    >>> _ = opt.apply_gradients([(rt.constant([float("inf")]), w)])
    >>> w.numpy().tolist(), float(opt.dynamic_scale.numpy())
    ([0.0], 2.0)
    """

    def __init__(
        self,
        inner_optimizer: Optimizer,
        initial_scale: float = 2.0**15,
        dynamic_growth_steps: int = 2000,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError(
                "LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                "`loss_scale_factor` directly on the `inner_optimizer`."
            )
        for arg, default in _BASE_DEFAULTS.items():
            if arg in kwargs and kwargs.pop(arg) != default:
                raise ValueError(
                    f"LossScaleOptimizer does not support `{arg}`. Instead, set `{arg}` on the "
                    "`inner_optimizer`."
                )
        if kwargs:
            raise ValueError(
                f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`."
            )
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(
                "LossScaleOptimizer: `inner_optimizer` must be an rt.keras.optimizers.Optimizer,"
                f" got {type(inner_optimizer).__name__}"
            )
        self.initial_scale = check_number(
            "LossScaleOptimizer", "initial_scale", initial_scale, low=0, low_open=True
        )
        self.dynamic_growth_steps = check_number(
            "LossScaleOptimizer", "dynamic_growth_steps", dynamic_growth_steps, low=1, integer=True
        )
        self.inner_optimizer = inner_optimizer
        self.name = name if name is not None else "loss_scale_optimizer"
        self.use_ema = False
        # Keras's own variables: its unused step count and rate, then the scaling state.
        self._own = [
            _rt.Variable(0, dtype=_rt.int64, name="iteration", trainable=False),
            _rt.Variable(0.0, dtype=_rt.float32, name="learning_rate", trainable=False),
        ]
        self.step_counter: Any = None
        self.dynamic_scale: Any = None

    @property
    def built(self) -> bool:
        """Whether the scaling state and the inner optimizer's slots exist."""
        return self.dynamic_scale is not None

    def build(self, var_list: Sequence[Any]) -> None:
        """Creates the step counter and the scale, and builds the inner optimizer."""
        if self.built:
            return
        self.step_counter = _rt.Variable(0, dtype=_rt.int64, name="step_counter", trainable=False)
        self.dynamic_scale = _rt.Variable(
            float(self.initial_scale), dtype=_rt.float32, name="dynamic_scale", trainable=False
        )
        self.inner_optimizer.build(var_list)

    @property
    def variables(self) -> list[Any]:
        """Keras's order: the wrapper's variables, then the inner optimizer's."""
        own = list(self._own)
        if self.built:
            own += [self.step_counter, self.dynamic_scale]
        return own + self.inner_optimizer.variables

    @property
    def iterations(self) -> Any:
        """The inner optimizer's step count (skipped steps are not counted)."""
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self) -> Any:
        """The inner optimizer's learning rate."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self.inner_optimizer.learning_rate = value

    @property
    def variables_built_with(self) -> list[Any]:
        """The trainable variables the inner optimizer was built with."""
        return self.inner_optimizer.variables_built_with

    def scale_loss(self, loss: Any) -> Any:
        """`loss` times the current loss scale."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        loss = loss if isinstance(loss, (_rt.Tensor, _rt.Variable)) else _rt.constant(loss)
        return _rt.multiply(loss, _rt.cast(scale, loss.dtype))

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> None:
        """Unscales and applies `grads` when all are finite, else skips the step; then updates
        the scale."""
        grads = list(grads)
        if trainable_variables is None:
            trainable_variables = self.variables_built_with
        variables = list(trainable_variables)
        if not self.built:
            self.build(variables)
        tensors = [
            None if g is None else g if isinstance(g, _rt.Tensor) else _rt.convert_to_tensor(g)
            for g in grads
        ]
        finite = all(
            bool(_rt.reduce_all(_rt.is_finite(g)).numpy()) for g in tensors if g is not None
        )
        if not finite:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(_rt.multiply(self.dynamic_scale, 0.5))
            return
        unscaled = [
            None if g is None else _rt.divide(g, _rt.cast(self.dynamic_scale, g.dtype))
            for g in tensors
        ]
        self.inner_optimizer.apply(unscaled, variables)
        if int(self.step_counter.numpy()) == self.dynamic_growth_steps - 1:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(_rt.multiply(self.dynamic_scale, 2.0))
        else:
            self.step_counter.assign_add(1)

    def get_slot(self, variable: Any, name: str) -> Any:
        """The inner optimizer's slot `name` of `variable`."""
        return self.inner_optimizer.get_slot(variable, name)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments (the inner optimizer as its class name and config)."""
        return {
            "name": self.name,
            "inner_optimizer": {
                "class_name": type(self.inner_optimizer).__name__,
                "config": self.inner_optimizer.get_config(),
            },
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LossScaleOptimizer:
        """A LossScaleOptimizer from `get_config()`'s dict."""
        from .. import optimizers

        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            inner = getattr(optimizers, inner["class_name"]).from_config(inner["config"])
        return cls(inner, **config)
