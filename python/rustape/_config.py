"""What `rt.config` holds besides the extension's thread count: the non-scalar-target warning
and the logger's level (rows of the binding table's `config` namespace, declared with `@export`)."""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

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


# -- devices: rustape runs on the CPU -------------------------------------------------------


class PhysicalDevice(NamedTuple):
    """A device of the machine (TensorFlow's `tf.config.PhysicalDevice`)."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device ops run on (TensorFlow's `tf.config.LogicalDevice`)."""

    name: str
    device_type: str


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_soft_placement = True


def _of_type(devices: list[Any], device_type: str | None) -> list[Any]:
    if device_type is None:
        return list(devices)
    if not isinstance(device_type, str):
        raise TypeError(f"config: device_type must be a string, got {device_type!r}")
    return [d for d in devices if d.device_type == device_type.upper()]


@export("config")
def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The machine's devices of `device_type` ("CPU", "GPU", ...; all when None): rustape
    runs on the CPU, so the list is the CPU or empty.

    >>> rt.config.list_physical_devices()
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    >>> rt.config.list_physical_devices("GPU")
    []
    """
    return _of_type([_CPU], device_type)


@export("config")
def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The devices ops run on, of `device_type` (all when None): the CPU.

    >>> rt.config.list_logical_devices("CPU")
    [LogicalDevice(name='/device:CPU:0', device_type='CPU')]
    """
    return _of_type([LogicalDevice("/device:CPU:0", "CPU")], device_type)


@export("config")
def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The devices rustape may use, of `device_type`: the CPU.

    >>> rt.config.get_visible_devices()
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    return _of_type([_CPU], device_type)


@export("config")
def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """TensorFlow's device visibility: rustape accepts the devices `list_physical_devices`
    gives (hiding every GPU changes nothing: there is none); the CPU cannot be hidden.

    >>> rt.config.set_visible_devices([], "GPU")
    >>> rt.config.set_visible_devices(rt.config.list_physical_devices("CPU"))
    """
    if device_type is not None and not isinstance(device_type, str):
        raise TypeError(f"set_visible_devices: device_type must be a string, got {device_type!r}")
    if isinstance(devices, PhysicalDevice):
        listed = [devices]
    elif isinstance(devices, (list, tuple)):
        listed = list(devices)
    else:
        raise TypeError(f"set_visible_devices: devices must be a list of devices, got {devices!r}")
    for device in listed:
        if device != _CPU:
            raise ValueError(f"set_visible_devices: {device!r} is not a device of this machine")
    if device_type is not None and device_type.upper() == "CPU" and _CPU not in listed:
        raise ValueError("set_visible_devices: the CPU cannot be hidden (rustape runs on it)")
    if device_type is None and _CPU not in listed:
        raise ValueError("set_visible_devices: the CPU cannot be hidden (rustape runs on it)")


@export("config")
def set_soft_device_placement(enabled: bool) -> None:
    """TensorFlow's soft placement (remembered; every op runs on the CPU either way).

    >>> rt.config.set_soft_device_placement(True)
    >>> rt.config.get_soft_device_placement()
    True
    """
    global _soft_placement
    _soft_placement = bool(enabled)


@export("config")
def get_soft_device_placement() -> bool:
    """Whether soft placement is on (the default).

    >>> rt.config.get_soft_device_placement()
    True
    """
    return _soft_placement


@export("config")
def run_functions_eagerly(run_eagerly: bool) -> None:
    """TensorFlow's switch for `tf.function`: `rt.function` always runs eagerly, so this
    changes nothing.

    >>> rt.config.run_functions_eagerly(True)
    >>> rt.config.functions_run_eagerly()
    True
    """
    bool(run_eagerly)


@export("config")
def functions_run_eagerly() -> bool:
    """Whether functions run eagerly: always, in rustape.

    >>> rt.config.functions_run_eagerly()
    True
    """
    return True
