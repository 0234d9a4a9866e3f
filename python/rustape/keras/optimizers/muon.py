"""`Muon`: Keras 3's optimizer that steps matrices along their orthogonalised momentum and every
other variable with AdamW. The choice of which variables take which step is made here, from
their names; the steps themselves run in Rust (`rustape::optim::Muon`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from . import Optimizer

__all__ = ["Muon"]


class Muon(Optimizer):
    """Muon: a matrix steps along its momentum made nearly orthogonal by `ns_steps`
    Newton–Schulz iterations (its singular values pushed towards 1), scaled by
    `sqrt(max(rows, cols)) * rms_rate`; every variable that is not a matrix, matrices of
    embeddings (`exclude_embeddings`) and matrices whose name matches one of `exclude_layers`
    (regular expressions; typically the output layer) take an AdamW step instead, with
    `learning_rate * adam_lr_ratio` and `adam_weight_decay`.

    >>> import rustape as rt
    >>> w = rt.Variable([[1.0, 0.0], [0.0, 1.0]], name="w")
    >>> opt = Muon(learning_rate=0.1, weight_decay=None)
    >>> _ = opt.apply_gradients([(rt.constant([[1.0, 0.0], [0.0, 1.0]]), w)])
    >>> [round(x, 4) for x in w.numpy().ravel().tolist()]
    [0.9687, 0.0, 0.0, 0.9687]
    >>> [v.name.split(":")[0] for v in opt.variables[2:]]
    ['muon/w_momentum']
    """

    _algorithm = "Muon"

    def __init__(
        self,
        learning_rate: Any = 0.001,
        adam_beta_1: float = 0.9,
        adam_beta_2: float = 0.999,
        adam_weight_decay: float | None = 0.004,
        epsilon: float = 1e-7,
        weight_decay: float | None = 0.004,
        exclude_layers: Sequence[str] | None = None,
        exclude_embeddings: bool = True,
        muon_a: float = 3.4445,
        muon_b: float = -4.7750,
        muon_c: float = 2.0315,
        adam_lr_ratio: float = 1,
        momentum: float = 0.95,
        ns_steps: int = 5,
        nesterov: bool = True,
        rms_rate: float | None = 0.2,
        **kwargs: Any,
    ) -> None:
        layers = list(exclude_layers or [])
        for pattern in layers:
            if not isinstance(pattern, str):
                raise TypeError(
                    f"Muon: `exclude_layers` must be strings (regular expressions), got {pattern!r}"
                )
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(
                    f"Muon: `exclude_layers` entry {pattern!r} is not a regular expression ({e})"
                ) from None
        if isinstance(ns_steps, bool) or not isinstance(ns_steps, int):
            raise TypeError(f"Muon: `ns_steps` must be an integer, got {ns_steps!r}")
        super().__init__(
            learning_rate,
            {
                "adam_beta_1": adam_beta_1,
                "adam_beta_2": adam_beta_2,
                "epsilon": epsilon,
                "adam_weight_decay": adam_weight_decay,
                "adam_lr_ratio": adam_lr_ratio,
                "momentum": momentum,
                "ns_steps": ns_steps,
                "nesterov": bool(nesterov),
                "muon_a": muon_a,
                "muon_b": muon_b,
                "muon_c": muon_c,
                "rms_rate": rms_rate,
            },
            weight_decay=weight_decay,
            **kwargs,
        )
        self.ns_steps = self._hyperparameters["ns_steps"] = ns_steps
        self.exclude_layers = layers
        self.exclude_embeddings = bool(exclude_embeddings)

    def _should_use_adamw(self, variable: Any) -> bool:
        """Whether `variable` takes the AdamW step (Keras's rule, on its path or name)."""
        if len(variable.shape) != 2:
            return True
        path = str(getattr(variable, "path", None) or variable.name).split(":")[0]
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(pattern, path) for pattern in self.exclude_layers)

    def build(self, var_list: Sequence[Any]) -> None:
        """Creates the slots of `var_list`: a momentum for each, a velocity for those that take
        the AdamW step."""
        var_list = list(var_list)
        if not self._core.built:
            self._core.use_adamw_for(
                [v for v in var_list if len(v.shape) == 2 and self._should_use_adamw(v)]
            )
        super().build(var_list)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        config = super().get_config()
        config["exclude_layers"] = list(self.exclude_layers)
        config["exclude_embeddings"] = self.exclude_embeddings
        return config
