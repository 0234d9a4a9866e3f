"""Merging layers (Keras 3): a list of inputs to one output. `Concatenate`, `Add`, `Subtract`,
`Multiply`, `Average`, `Maximum`, `Minimum`, `Dot`, and their functional forms (`add(inputs)`
is `Add()(inputs)`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _rustape as _rt
from .._util import check_number
from ._args import reject_options
from .base import Layer

__all__ = [
    "Add",
    "Average",
    "Concatenate",
    "Dot",
    "Maximum",
    "Minimum",
    "Multiply",
    "Subtract",
    "add",
    "average",
    "concatenate",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]


def _broadcast_dim(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None if a != 1 and b != 1 else (b if a == 1 else a)
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    raise ValueError(f"dimensions {a} and {b} do not broadcast")


class _Merge(Layer):
    """Folds the inputs with `_combine`, left to right (as Keras does)."""

    _min_inputs = 2

    def __init__(self, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        reject_options(type(self).__name__, kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """Keras's: a timestep is kept where any input keeps it (None unless every input has
        a mask)."""
        if previous_mask is None or any(m is None for m in previous_mask):
            return None
        out = previous_mask[0]
        for m in previous_mask[1:]:
            out = _rt.logical_or(out, m)
        return out

    def _check(self, inputs: Any) -> list[Any]:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < self._min_inputs:
            raise ValueError(
                f"{type(self).__name__} {self.name}: expects a list of at least "
                f"{self._min_inputs} inputs, got {inputs!r}"
            )
        return list(inputs)

    def _combine(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def call(self, inputs: Sequence[Any]) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        xs = self._check(inputs)
        out = xs[0]
        for x in xs[1:]:
            out = self._combine(out, x)
        return out

    def compute_output_shape(self, input_shape: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
        """The inputs' shapes broadcast together."""
        shapes = [tuple(s) for s in input_shape]
        rank = max(len(s) for s in shapes)
        out: list[Any] = [1] * rank
        for s in shapes:
            padded = (1,) * (rank - len(s)) + s
            try:
                out = [_broadcast_dim(a, b) for a, b in zip(out, padded)]
            except ValueError as e:
                raise ValueError(
                    f"{type(self).__name__} {self.name}: inputs of shapes {shapes} "
                    f"do not broadcast ({e})"
                ) from None
        return tuple(out)


class Add(_Merge):
    """The sum of the inputs (Keras 3's `Add`).

    >>> import rustape as rt
    >>> float(rt.reduce_sum(rt.keras.layers.Add()([rt.ones([2, 3]), rt.ones([2, 3])])))
    12.0
    """

    def _combine(self, a: Any, b: Any) -> Any:
        return _rt.add(a, b)


class Subtract(_Merge):
    """The first input minus the second (Keras 3's `Subtract`).

    >>> import rustape as rt
    >>> rt.keras.layers.Subtract()([rt.ones([2]), rt.ones([2])]).numpy().tolist()
    [0.0, 0.0]
    """

    def _check(self, inputs: Any) -> list[Any]:
        xs = super()._check(inputs)
        if len(xs) != 2:
            raise ValueError(f"Subtract {self.name}: expects exactly 2 inputs, got {len(xs)}")
        return xs

    def _combine(self, a: Any, b: Any) -> Any:
        return _rt.subtract(a, b)


class Multiply(_Merge):
    """The elementwise product of the inputs (Keras 3's `Multiply`).

    >>> import rustape as rt
    >>> rt.keras.layers.Multiply()([rt.constant([2.0]), rt.constant([3.0])]).numpy().tolist()
    [6.0]
    """

    def _combine(self, a: Any, b: Any) -> Any:
        return _rt.multiply(a, b)


class Maximum(_Merge):
    """The elementwise maximum of the inputs (Keras 3's `Maximum`).

    >>> import rustape as rt
    >>> rt.keras.layers.Maximum()([rt.constant([1.0, 5.0]), rt.constant([3.0, 2.0])]).numpy().tolist()
    [3.0, 5.0]
    """

    def _combine(self, a: Any, b: Any) -> Any:
        return _rt.maximum(a, b)


class Minimum(_Merge):
    """The elementwise minimum of the inputs (Keras 3's `Minimum`).

    >>> import rustape as rt
    >>> rt.keras.layers.Minimum()([rt.constant([1.0, 5.0]), rt.constant([3.0, 2.0])]).numpy().tolist()
    [1.0, 2.0]
    """

    def _combine(self, a: Any, b: Any) -> Any:
        return _rt.minimum(a, b)


class Average(_Merge):
    """The mean of the inputs (Keras 3's `Average`: their sum divided by their count).

    >>> import rustape as rt
    >>> rt.keras.layers.Average()([rt.constant([1.0]), rt.constant([2.0])]).numpy().tolist()
    [1.5]
    """

    def call(self, inputs: Sequence[Any]) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        xs = self._check(inputs)
        out = xs[0]
        for x in xs[1:]:
            out = _rt.add(out, x)
        return _rt.divide(out, float(len(xs)))


class Concatenate(_Merge):
    """The inputs joined along `axis` (Keras 3's `Concatenate`, axis -1).

    >>> import rustape as rt
    >>> rt.keras.layers.Concatenate()([rt.ones([2, 3]), rt.ones([2, 4])]).shape
    (2, 7)
    """

    _min_inputs = 1

    def __init__(
        self, axis: int = -1, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.axis = check_number("Concatenate", "axis", axis, integer=True)

    def call(self, inputs: Sequence[Any]) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return _rt.concat(self._check(inputs), axis=self.axis)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """Keras's: each input's mask (all True where it has none) widened to the input's
        shape, joined along `axis`, then kept where any feature is kept."""
        if previous_mask is None:
            return None
        masks = []
        for x, m in zip(inputs, previous_mask):
            if m is None:
                m = _rt.ones(list(x.shape), dtype=_rt.bool)
            elif len(m.shape) < len(x.shape):
                m = _rt.broadcast_to(_rt.expand_dims(m, -1), list(x.shape))
            masks.append(m)
        return _rt.reduce_any(_rt.concat(masks, axis=self.axis), axis=-1)

    def compute_output_shape(self, input_shape: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
        """The inputs' shapes with the `axis` sizes added."""
        shapes = [list(s) for s in input_shape]
        rank = len(shapes[0])
        axis = self.axis % rank
        out = list(shapes[0])
        for s in shapes[1:]:
            if len(s) != rank or any(
                a != b and None not in (a, b) for i, (a, b) in enumerate(zip(out, s)) if i != axis
            ):
                raise ValueError(
                    f"Concatenate {self.name}: inputs of shapes {shapes} do not "
                    f"match except along axis {self.axis}"
                )
            out[axis] = None if out[axis] is None or s[axis] is None else out[axis] + s[axis]
        return tuple(out)


class Dot(_Merge):
    """The dot product of two inputs' samples along `axes` (one axis for both, or one each;
    negative counts from the end), with `normalize=True` L2-normalising them along those
    axes first (cosine similarity). The result keeps `x`'s other axes, then `y`'s other
    non-batch axes; two `[batch, d]` inputs give `[batch, 1]` (Keras's `Dot`).

    >>> import rustape as rt
    >>> x, y = rt.ones([2, 3, 4]), rt.ones([2, 5, 4])
    >>> rt.keras.layers.Dot(axes=(2, 2))([x, y]).shape
    (2, 3, 5)
    >>> rt.keras.layers.Dot(axes=1)([rt.ones([2, 3]), rt.ones([2, 3])]).numpy().tolist()
    [[3.0], [3.0]]
    """

    def __init__(
        self,
        axes: Any,
        normalize: bool = False,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(axes, int) and not isinstance(axes, bool):
            pair: tuple[int, int] | None = None
        elif (
            isinstance(axes, (list, tuple))
            and len(axes) == 2
            and all(isinstance(a, int) and not isinstance(a, bool) for a in axes)
        ):
            pair = (int(axes[0]), int(axes[1]))
        else:
            raise ValueError(
                f"Dot: `axes` must be an integer or a list of two integers. Received: axes={axes!r}"
            )
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.axes = axes if pair is None else pair
        self.normalize = bool(normalize)

    def _check(self, inputs: Any) -> list[Any]:
        xs = super()._check(inputs)
        if len(xs) != 2:
            raise ValueError(f"Dot {self.name}: expects exactly 2 inputs, got {len(xs)}")
        return xs

    def _axes_of(self, x: Any, y: Any) -> tuple[int, int]:
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else self.axes
        axes = (pair[0] % len(x.shape), pair[1] % len(y.shape))
        if 0 in axes or x.shape[0] != y.shape[0] or x.shape[axes[0]] != y.shape[axes[1]]:
            raise ValueError(
                f"Dot {self.name}: cannot take the dot product of shapes {tuple(x.shape)} and "
                f"{tuple(y.shape)} along axes {self.axes} (the batches and the two axes must "
                "match, and the batch axis cannot be one of them)"
            )
        return axes

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        x, y = self._check(inputs)
        ax, ay = self._axes_of(x, y)
        if self.normalize:
            x, y = _unit(x, ax), _unit(y, ay)
        # One einsum: z the batch, c the contracted pair, fresh letters for the rest.
        letters = iter("abdefghijklmnopqrstuvwxy")
        xs = ["z"] + [next(letters) for _ in range(len(x.shape) - 1)]
        xs[ax] = "c"
        ys = ["z"] + ["c" if i == ay else next(letters) for i in range(1, len(y.shape))]
        out = [a for a in xs if a != "c"] + [a for a in ys[1:] if a != "c"]
        result = _rt.einsum(f"{''.join(xs)},{''.join(ys)}->{''.join(out)}", x, y)
        return _rt.expand_dims(result, -1) if len(result.shape) == 1 else result

    def compute_output_shape(self, input_shape: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
        """`x`'s shape without its axis, then `y`'s without its batch and axis."""
        sx, sy = (tuple(s) for s in input_shape)
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else self.axes
        ax, ay = pair[0] % len(sx), pair[1] % len(sy)
        out = sx[:ax] + sx[ax + 1 :] + sy[1:ay] + sy[ay + 1 :]
        return out if len(out) > 1 else out + (1,)


def _unit(x: Any, axis: int) -> Any:
    """Keras's `normalize`: `x * min(rsqrt(sum of squares), 1 / epsilon)` along `axis`."""
    from ..._ops import rsqrt

    inv = _rt.minimum(
        rsqrt(_rt.reduce_sum(_rt.square(x), axis=axis, keepdims=True)),
        _rt.cast(1e7, x.dtype),
    )
    return x * inv


def add(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """`Add(**kwargs)(inputs)`: the elementwise sum.

    >>> import rustape as rt
    >>> rt.keras.layers.add([rt.constant([1.0]), rt.constant([2.0])]).numpy()
    array([3.], dtype=float32)
    """
    return Add(**kwargs)(inputs)


def subtract(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """`Subtract(**kwargs)(inputs)`: the first input minus the second.

    >>> import rustape as rt
    >>> rt.keras.layers.subtract([rt.constant([1.0]), rt.constant([2.0])]).numpy()
    array([-1.], dtype=float32)
    """
    return Subtract(**kwargs)(inputs)


def multiply(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """`Multiply(**kwargs)(inputs)`: the elementwise product.

    >>> import rustape as rt
    >>> rt.keras.layers.multiply([rt.constant([3.0]), rt.constant([2.0])]).numpy()
    array([6.], dtype=float32)
    """
    return Multiply(**kwargs)(inputs)


def average(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """`Average(**kwargs)(inputs)`: the elementwise mean.

    >>> import rustape as rt
    >>> rt.keras.layers.average([rt.constant([1.0]), rt.constant([2.0])]).numpy()
    array([1.5], dtype=float32)
    """
    return Average(**kwargs)(inputs)


def maximum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """`Maximum(**kwargs)(inputs)`: the elementwise maximum.

    >>> import rustape as rt
    >>> rt.keras.layers.maximum([rt.constant([1.0]), rt.constant([2.0])]).numpy()
    array([2.], dtype=float32)
    """
    return Maximum(**kwargs)(inputs)


def minimum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """`Minimum(**kwargs)(inputs)`: the elementwise minimum.

    >>> import rustape as rt
    >>> rt.keras.layers.minimum([rt.constant([1.0]), rt.constant([2.0])]).numpy()
    array([1.], dtype=float32)
    """
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: Sequence[Any], axis: int = -1, **kwargs: Any) -> Any:
    """`Concatenate(axis=axis, **kwargs)(inputs)`.

    >>> import rustape as rt
    >>> rt.keras.layers.concatenate([rt.ones([1, 2]), rt.zeros([1, 1])]).numpy()
    array([[1., 1., 0.]], dtype=float32)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: Sequence[Any], axes: Any = -1, normalize: bool = False, **kwargs: Any) -> Any:
    """`Dot(axes=axes, normalize=normalize, **kwargs)(inputs)`: sample-wise dot products.

    >>> import rustape as rt
    >>> rt.keras.layers.dot([rt.constant([[1.0, 2.0]]), rt.constant([[3.0, 4.0]])], axes=1).numpy()
    array([[11.]], dtype=float32)
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
