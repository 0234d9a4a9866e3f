"""Keras 3's argument forms for the layers: tuples of ints, padding and data-format names,
output lengths, and the options rustape accepts only at their defaults."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from .._util import check_number

#: The largest window, stride, dilation or padding a layer takes (TensorFlow's int32 sizes):
#: products of two of them stay far from overflowing.
MAX_WINDOW = 2**31 - 1


def normalize_tuple(
    value: Any, n: int, name: str, allow_zero: bool = False, owner: str = "Layer"
) -> tuple[int, ...]:
    """An int or a sequence of `n` ints as a tuple of `n` ints (Keras' `standardize_tuple`),
    each at least 1 (0 with `allow_zero`) and at most `MAX_WINDOW`: ValueError or TypeError
    naming `owner` and the argument otherwise."""
    if isinstance(value, (int, float)) or hasattr(value, "__index__"):
        items: list[Any] = [value] * n
    else:
        try:
            items = list(value)
        except TypeError:
            raise ValueError(
                f"{owner}: the `{name}` argument must be an int or a tuple of {n} ints, got "
                f"{value!r}"
            ) from None
        if len(items) != n:
            raise ValueError(
                f"{owner}: the `{name}` argument must be a tuple of {n} integers. Received "
                f"{name}={value!r}"
            )
    low = 0 if allow_zero else 1
    return tuple(
        check_number(owner, name, v, low=low, high=MAX_WINDOW, integer=True) for v in items
    )


def normalize_padding(value: Any, allow_causal: bool = False) -> str:
    """'valid', 'same' (or 'causal' where allowed), in any case."""
    padding = str(value).lower()
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be one of {allowed}. Received: {value!r}")
    return padding


def normalize_data_format(value: Any) -> str:
    """'channels_last' (the default) or 'channels_first'."""
    fmt = "channels_last" if value is None else str(value).lower()
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(
            "The `data_format` argument must be one of 'channels_first', "
            f"'channels_last'. Received: {value!r}"
        )
    return fmt


def reject_options(layer: str, kwargs: dict, none_ok: Sequence[str] = ()) -> None:
    """Keras options rustape accepts only when unset (regularizers, constraints, ...), and no
    unknown keyword."""
    for key in list(kwargs):
        if key in none_ok and kwargs[key] is None:
            del kwargs[key]
    if kwargs:
        raise TypeError(
            f"{layer} got unexpected or unsupported keyword arguments: {sorted(kwargs)}"
        )


def weight_options(kwargs: dict, weights: Sequence[str]) -> dict[str, Any]:
    """Takes `<weight>_regularizer` and `<weight>_constraint` for each named weight, and
    `activity_regularizer`, out of `kwargs`, resolved by `regularizers.get` and
    `constraints.get`: the attributes a Keras layer has under those names."""
    from .. import constraints, regularizers

    options: dict[str, Any] = {}
    for weight in weights:
        options[f"{weight}_regularizer"] = regularizers.get(
            kwargs.pop(f"{weight}_regularizer", None)
        )
        options[f"{weight}_constraint"] = constraints.get(kwargs.pop(f"{weight}_constraint", None))
    options["activity_regularizer"] = regularizers.get(kwargs.pop("activity_regularizer", None))
    return options


#: Options of the weighted layers rustape accepts only at None.
WEIGHT_OPTIONS = (
    "lora_rank",
    "lora_alpha",
    "input_shape",
    "input_dim",
    "batch_input_shape",
    "batch_size",
)


def conv_output_length(
    length: int | None, kernel: int, padding: str, stride: int, dilation: int = 1
) -> int | None:
    """The output length of a convolution or pooling window along one axis (None if unknown)."""
    if length is None:
        return None
    effective = (kernel - 1) * dilation + 1
    if padding == "same":
        return -(-length // stride)
    if padding == "causal":
        return -(-length // stride)
    return (length - effective) // stride + 1


def deconv_output_length(
    length: int | None,
    kernel: int,
    padding: str,
    output_padding: int | None,
    stride: int,
    dilation: int = 1,
) -> int | None:
    """The output length of a transposed convolution (Keras 3's rule)."""
    if length is None:
        return None
    effective = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(effective, stride) - effective if output_padding is None else output_padding
        return (length - 1) * stride + effective + extra
    if output_padding is None:
        return length * stride
    return (length - 1) * stride + effective % 2 + output_padding


def to_channels_last(x: Any) -> Any:
    """`[N, C, ...]` as `[N, ..., C]`."""
    rank = len(x.shape)
    return _rt.transpose(x, [0, *range(2, rank), 1])


def to_channels_first(x: Any) -> Any:
    """`[N, ..., C]` as `[N, C, ...]`."""
    rank = len(x.shape)
    return _rt.transpose(x, [0, rank - 1, *range(1, rank - 1)])
