"""Reshaping layers (Keras 3): `Flatten`, `Reshape`, `Permute`, `RepeatVector`, zero padding,
upsampling and cropping in one and two dimensions."""

from __future__ import annotations

import math
from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from ._args import (
    normalize_data_format,
    normalize_tuple,
    reject_options,
    to_channels_last,
)
from .base import Layer

__all__ = [
    "Cropping1D",
    "Cropping2D",
    "Flatten",
    "Permute",
    "RepeatVector",
    "Reshape",
    "UpSampling1D",
    "UpSampling2D",
    "ZeroPadding1D",
    "ZeroPadding2D",
]


def _product(dims: Any) -> int | None:
    n = 1
    for d in dims:
        if d is None:
            return None
        n *= int(d)
    return n


class Flatten(Layer):
    """`[batch, ...]` to `[batch, n]` (Keras 3's `Flatten`; channels-first inputs are moved to
    channels last first, as Keras does).

    >>> import rustape as rt
    >>> rt.keras.layers.Flatten()(rt.ones([2, 5, 5, 64])).shape
    (2, 1600)
    """

    def __init__(
        self,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Flatten", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = inputs
        if self.data_format == "channels_first" and len(x.shape) > 2:
            x = to_channels_last(x)
        # The sample size spelled out, not -1: an empty batch has no size to infer it from.
        return _rt.reshape(x, [x.shape[0], math.prod(x.shape[1:])])

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """`(batch, product of the other dimensions)`."""
        s = tuple(input_shape)
        return (s[0], _product(s[1:]) if len(s) > 1 else 1)


class Reshape(Layer):
    """Each sample reshaped to `target_shape` (one entry may be -1) (Keras 3's `Reshape`).

    >>> import rustape as rt
    >>> rt.keras.layers.Reshape((3, -1))(rt.ones([2, 12])).shape
    (2, 3, 4)
    """

    def __init__(
        self, target_shape: Any, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("Reshape", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if isinstance(target_shape, (str, bytes)) or not hasattr(target_shape, "__iter__"):
            raise TypeError(
                f"Reshape: `target_shape` must be a tuple of ints, got {target_shape!r}"
            )
        self.target_shape = tuple(
            check_number("Reshape", "target_shape", d, low=-1, integer=True) for d in target_shape
        )
        if sum(1 for d in self.target_shape if d == -1) > 1 or any(
            d < -1 for d in self.target_shape
        ):
            raise ValueError(
                f"Reshape: target_shape may hold one -1 and otherwise sizes >= 0, "
                f"got {target_shape!r}"
            )

    def _resolved(self, sample_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        total = _product(sample_shape)
        known = _product([d for d in self.target_shape if d != -1])
        if -1 not in self.target_shape:
            if total is not None and total != known:
                raise ValueError(
                    f"Reshape {self.name}: cannot reshape a sample of shape "
                    f"{list(sample_shape)} ({total} elements) to {list(self.target_shape)}"
                )
            return self.target_shape
        if total is None or known is None:
            return tuple(None if d == -1 else d for d in self.target_shape)
        if known == 0 or total % known != 0:
            raise ValueError(
                f"Reshape {self.name}: cannot reshape a sample of shape "
                f"{list(sample_shape)} ({total} elements) to {list(self.target_shape)}"
            )
        return tuple(total // known if d == -1 else d for d in self.target_shape)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        shape = self._resolved(tuple(inputs.shape[1:]))
        return _rt.reshape(inputs, [inputs.shape[0], *shape])

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """`(batch,) + target_shape` with the -1 resolved."""
        s = tuple(input_shape)
        return (s[0], *self._resolved(s[1:]))


class ZeroPadding2D(Layer):
    """Zeros around the height and width (Keras 3's `ZeroPadding2D`): `padding` an int, a pair
    `(rows, cols)` or `((top, bottom), (left, right))`.

    >>> import rustape as rt
    >>> rt.keras.layers.ZeroPadding2D(((1, 0), (2, 1)))(rt.ones([1, 3, 3, 2])).shape
    (1, 4, 6, 2)
    """

    def __init__(
        self,
        padding: Any = (1, 1),
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("ZeroPadding2D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        pads: tuple[tuple[int, ...], tuple[int, ...]]
        owner = "ZeroPadding2D"
        if isinstance(padding, (int, float)) or hasattr(padding, "__index__"):
            pads = (
                normalize_tuple(padding, 2, "padding", allow_zero=True, owner=owner),
                normalize_tuple(padding, 2, "padding", allow_zero=True, owner=owner),
            )
        elif not isinstance(padding, (list, tuple)):
            raise TypeError(
                f"ZeroPadding2D: `padding` should be an int, a tuple of 2 ints or "
                f"a tuple of 2 tuples of 2 ints, got {padding!r}"
            )
        elif len(padding) == 2 and all(isinstance(p, int) for p in padding):
            rows, cols = (
                normalize_tuple(p, 2, "padding", allow_zero=True, owner=owner) for p in padding
            )
            pads = (rows, cols)
        elif len(padding) == 2:
            pads = (
                normalize_tuple(padding[0], 2, "padding", allow_zero=True, owner=owner),
                normalize_tuple(padding[1], 2, "padding", allow_zero=True, owner=owner),
            )
        else:
            raise ValueError(
                f"ZeroPadding2D: `padding` should be an int, a tuple of 2 ints or "
                f"a tuple of 2 tuples of 2 ints, got {padding!r}"
            )
        if any(p < 0 for pair in pads for p in pair):
            raise ValueError(f"ZeroPadding2D: padding must be >= 0, got {padding!r}")
        self.padding = (tuple(pads[0]), tuple(pads[1]))
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        (t, b), (left, r) = self.padding
        if self.data_format == "channels_last":
            return _rt.pad(inputs, [[0, 0], [t, b], [left, r], [0, 0]])
        return _rt.pad(inputs, [[0, 0], [0, 0], [t, b], [left, r]])

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """Height and width grown by the padding."""
        s = list(input_shape)
        first = 1 if self.data_format == "channels_last" else 2
        for k, (a, b) in enumerate(self.padding):
            if s[first + k] is not None:
                s[first + k] = s[first + k] + a + b
        return tuple(s)


class UpSampling2D(Layer):
    """Each pixel repeated `size` times along height and width (Keras 3's `UpSampling2D`,
    `interpolation='nearest'`).

    >>> import rustape as rt
    >>> rt.keras.layers.UpSampling2D((2, 3))(rt.ones([1, 2, 2, 1])).shape
    (1, 4, 6, 1)
    """

    def __init__(
        self,
        size: Any = (2, 2),
        data_format: str | None = None,
        interpolation: str = "nearest",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("UpSampling2D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.size = normalize_tuple(size, 2, "size", owner="UpSampling2D")
        self.data_format = normalize_data_format(data_format)
        if interpolation != "nearest":
            raise ValueError(
                f"UpSampling2D: interpolation {interpolation!r} is not supported (only 'nearest')"
            )
        self.interpolation = interpolation

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = inputs if self.data_format == "channels_last" else to_channels_last(inputs)
        n, h, w, c = x.shape
        sh, sw = self.size
        # [n, h, 1, w, 1, c] broadcast to [n, h, sh, w, sw, c]: each pixel repeated in place.
        x = _rt.broadcast_to(_rt.reshape(x, [n, h, 1, w, 1, c]), [n, h, sh, w, sw, c])
        y = _rt.reshape(x, [n, h * sh, w * sw, c])
        if self.data_format == "channels_first":
            y = _rt.transpose(y, [0, 3, 1, 2])
        return y

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """Height and width multiplied by `size`."""
        s = list(input_shape)
        first = 1 if self.data_format == "channels_last" else 2
        for k in range(2):
            if s[first + k] is not None:
                s[first + k] = s[first + k] * self.size[k]
        return tuple(s)


def _pair(layer: str, name: str, value: Any) -> tuple[int, int]:
    """An int or a pair of ints >= 0, as `(before, after)`."""
    pair = normalize_tuple(value, 2, name, allow_zero=True, owner=layer)
    if any(v < 0 for v in pair):
        raise ValueError(f"{layer}: `{name}` must be >= 0, got {value!r}")
    return (int(pair[0]), int(pair[1]))


class ZeroPadding1D(Layer):
    """Zeros before and after the steps of `[batch, steps, features]` (Keras 3's
    `ZeroPadding1D`): `padding` an int or `(before, after)`.

    >>> import rustape as rt
    >>> rt.keras.layers.ZeroPadding1D((1, 2))(rt.ones([2, 3, 4])).shape
    (2, 6, 4)
    """

    def __init__(
        self,
        padding: Any = 1,
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("ZeroPadding1D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.padding = _pair("ZeroPadding1D", "padding", padding)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        a, b = self.padding
        if self.data_format == "channels_last":
            return _rt.pad(inputs, [[0, 0], [a, b], [0, 0]])
        return _rt.pad(inputs, [[0, 0], [0, 0], [a, b]])

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The steps grown by the padding."""
        s = list(input_shape)
        axis = 1 if self.data_format == "channels_last" else 2
        if s[axis] is not None:
            s[axis] = s[axis] + sum(self.padding)
        return tuple(s)


class UpSampling1D(Layer):
    """Each step of `[batch, steps, features]` repeated `size` times (Keras 3's
    `UpSampling1D`).

    >>> import rustape as rt
    >>> rt.keras.layers.UpSampling1D(3)(rt.ones([2, 4, 5])).shape
    (2, 12, 5)
    """

    def __init__(
        self, size: int = 2, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("UpSampling1D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.size = int(check_number("UpSampling1D", "size", size, low=1, integer=True))

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return _rt.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The steps multiplied by `size`."""
        s = list(input_shape)
        if s[1] is not None:
            s[1] = s[1] * self.size
        return tuple(s)


class Cropping1D(Layer):
    """Drops steps at the start and end of `[batch, steps, features]` (Keras 3's
    `Cropping1D`): `cropping` an int or `(start, end)`.

    >>> import rustape as rt
    >>> rt.keras.layers.Cropping1D((1, 2))(rt.ones([2, 6, 4])).shape
    (2, 3, 4)
    """

    def __init__(
        self, cropping: Any = (1, 1), name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("Cropping1D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.cropping = _pair("Cropping1D", "cropping", cropping)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        a, b = self.cropping
        if len(x.shape) != 3 or a + b >= x.shape[1]:
            raise ValueError(
                f"Cropping1D: `cropping` {self.cropping} must leave steps of inputs "
                f"[batch, steps, features], got shape {tuple(x.shape)}"
            )
        return x[:, a : x.shape[1] - b, :]

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The steps less the cropping."""
        s = list(input_shape)
        if s[1] is not None:
            s[1] = s[1] - sum(self.cropping)
        return tuple(s)


class Cropping2D(Layer):
    """Drops rows and columns at the edges of images (Keras 3's `Cropping2D`): `cropping` an
    int, `(rows, cols)` or `((top, bottom), (left, right))`.

    >>> import rustape as rt
    >>> rt.keras.layers.Cropping2D(((1, 0), (2, 1)))(rt.ones([1, 5, 6, 3])).shape
    (1, 4, 3, 3)
    """

    def __init__(
        self,
        cropping: Any = ((0, 0), (0, 0)),
        data_format: str | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Cropping2D", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if isinstance(cropping, (list, tuple)) and len(cropping) == 2:
            rows, cols = cropping
        elif isinstance(cropping, (list, tuple)):
            raise ValueError(
                "Cropping2D: `cropping` should be an int, a tuple of 2 ints or a tuple of 2 "
                f"tuples of 2 ints, got {cropping!r}"
            )
        else:
            rows = cols = cropping
        self.cropping = (
            _pair("Cropping2D", "cropping", rows),
            _pair("Cropping2D", "cropping", cols),
        )
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        (t, b), (left, r) = self.cropping
        first = 1 if self.data_format == "channels_last" else 2
        if len(x.shape) != 4 or t + b >= x.shape[first] or left + r >= x.shape[first + 1]:
            raise ValueError(
                f"Cropping2D: `cropping` {self.cropping} must leave rows and columns of 4-d "
                f"images ({self.data_format}), got shape {tuple(x.shape)}"
            )
        h, w = x.shape[first], x.shape[first + 1]
        if self.data_format == "channels_last":
            return x[:, t : h - b, left : w - r, :]
        return x[:, :, t : h - b, left : w - r]

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """Height and width less the cropping."""
        s = list(input_shape)
        first = 1 if self.data_format == "channels_last" else 2
        for k, (a, b) in enumerate(self.cropping):
            if s[first + k] is not None:
                s[first + k] = s[first + k] - a - b
        return tuple(s)


class RepeatVector(Layer):
    """`[batch, features]` to `[batch, n, features]`, the vector repeated (Keras 3's
    `RepeatVector`).

    >>> import rustape as rt
    >>> rt.keras.layers.RepeatVector(3)(rt.ones([2, 4])).shape
    (2, 3, 4)
    """

    def __init__(self, n: int, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        reject_options("RepeatVector", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.n = int(check_number("RepeatVector", "n", n, low=0, integer=True))

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        if len(x.shape) != 2:
            raise ValueError(
                f"RepeatVector: expected inputs of rank 2 [batch, features], got shape "
                f"{tuple(x.shape)}"
            )
        return _rt.tile(_rt.expand_dims(x, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """`(batch, n, features)`."""
        return (input_shape[0], self.n, input_shape[1])


class Permute(Layer):
    """Permutes the axes of each sample (Keras 3's `Permute`): `dims` numbers them from 1
    (the batch axis stays first).

    >>> import rustape as rt
    >>> rt.keras.layers.Permute((2, 1))(rt.ones([5, 3, 4])).shape
    (5, 4, 3)
    """

    def __init__(
        self, dims: Any, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        reject_options("Permute", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                f"Permute: `dims` must be a permutation of 1..{len(self.dims)}, got {dims!r}"
            )

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x = _rt.convert_to_tensor(inputs)
        if len(x.shape) != len(self.dims) + 1:
            raise ValueError(
                f"Permute: dims {self.dims} need inputs of rank {len(self.dims) + 1}, got "
                f"shape {tuple(x.shape)}"
            )
        return _rt.transpose(x, (0, *self.dims))

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The sample axes in `dims` order."""
        return (input_shape[0], *(input_shape[d] for d in self.dims))
