"""What `rt.config` holds besides the extension's thread count: the non-scalar-target warning
and the logger's level (rows of the binding table's `config` namespace, declared with `@export`)."""

from __future__ import annotations

import logging

from ._export import export

#: The package's logger: tapes log their backward passes (op counts, bytes held) at DEBUG.
logger = logging.getLogger("rustape")

_warn_on_nonscalar_target = False


@export("config")
def set_nonscalar_target_warning(enabled: bool) -> None:
    """Turns the warning for a non-scalar gradient target on or off (off by default).

    `GradientTape.gradient(y, x)` with a `y` of more than one element differentiates
    `reduce_sum(y)`, as TensorFlow does; when that is a mistake (a loss left unreduced), the
    warning says so.

    >>> import warnings
    >>> rt.config.set_nonscalar_target_warning(True)
    >>> x = rt.constant([1.0, 2.0])
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = tape.gradient(y, x)
    >>> "summed" in str(caught[0].message)
    True
    >>> rt.config.set_nonscalar_target_warning(False)
    """
    global _warn_on_nonscalar_target
    _warn_on_nonscalar_target = bool(enabled)


@export("config")
def get_nonscalar_target_warning() -> bool:
    """Whether `GradientTape.gradient` warns when it sums a non-scalar target.

    >>> rt.config.get_nonscalar_target_warning()
    False
    """
    return _warn_on_nonscalar_target


@export("config")
def set_log_level(level: int | str) -> None:
    """Sets the level of the `"rustape"` logger (`logging.DEBUG`, `"INFO"`, ...).

    At DEBUG, every backward pass (gradient, jacobian, batch_jacobian, hessian) logs the tape's
    op count and the bytes it holds. The logger has no handler of its own: configure logging
    as usual (`logging.basicConfig()`) to see the messages.

    >>> import logging
    >>> rt.config.set_log_level("DEBUG")
    >>> rt.config.get_log_level() == logging.DEBUG
    True
    >>> rt.config.set_log_level(logging.WARNING)
    """
    logger.setLevel(level.upper() if isinstance(level, str) else level)


@export("config")
def get_log_level() -> int:
    """The effective level of the `"rustape"` logger (`logging.WARNING` unless set).

    >>> import logging
    >>> rt.config.get_log_level() >= logging.DEBUG
    True
    """
    return logger.getEffectiveLevel()
