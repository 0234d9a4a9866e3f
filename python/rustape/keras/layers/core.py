"""Core layers (Keras 3): `Dense`, `Dropout`, `Embedding`, `Lambda`, `Identity`,
`ActivityRegularization`."""

from __future__ import annotations

from typing import Any, Callable

from ... import _rustape as _rt
from .._util import check_number
from ..activations import get_activation
from ..initializers import get_initializer
from ._args import reject_options, weight_options
from ._init import initializer
from .base import Layer

__all__ = ["ActivityRegularization", "Dense", "Dropout", "Embedding", "Identity", "Lambda"]


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`, with kernel `[input_dim, units]`.

    Inputs of rank above 2 are contracted on their last axis (as Keras's Dense does).

    >>> import rustape as rt
    >>> rt.keras.layers.Dense(3)(rt.ones([2, 5])).shape
    (2, 3)
    """

    supports_masking = True

    kernel_regularizer: Any
    kernel_constraint: Any
    bias_regularizer: Any
    bias_constraint: Any

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        options = weight_options(kwargs, ("kernel", "bias"))
        if kwargs:
            raise TypeError(f"Dense got unexpected keyword arguments: {sorted(kwargs)}")
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        self.units = check_number("Dense", "units", units, low=1, integer=True)
        self.activation = get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel: Any = None
        self.bias: Any = None

    def build(self, input_shape: tuple) -> None:
        """Creates `kernel` `[input_dim, units]` and `bias` `[units]`."""
        if len(input_shape) < 1 or input_shape[-1] is None:
            raise ValueError(
                f"Dense {self.name}: the last dimension of the inputs must be known, got shape "
                f"{list(input_shape)}"
            )
        in_dim = int(input_shape[-1])
        self.kernel = self.add_weight(
            "kernel",
            (in_dim, self.units),
            self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.units,),
                self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        """`activation(inputs @ kernel + bias)`."""
        shape = tuple(inputs.shape)
        if len(shape) == 2:
            y = _rt.matmul(inputs, self.kernel)
        elif len(shape) < 2:
            y = _rt.reshape(_rt.matmul(_rt.reshape(inputs, [1, -1]), self.kernel), [self.units])
        else:
            flat = _rt.reshape(inputs, [-1, shape[-1]])
            y = _rt.reshape(_rt.matmul(flat, self.kernel), list(shape[:-1]) + [self.units])
        if self.use_bias:
            # The same sums as Keras' add; BiasAddGrad reduces the rows for the gradient.
            y = _rt.bias_add(y, self.bias) if len(shape) >= 2 else _rt.add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """`input_shape` with its last dimension replaced by `units`."""
        return (*tuple(input_shape)[:-1], self.units)


class Dropout(Layer):
    """Zeroes each input element with probability `rate` and scales the rest by
    `1 / (1 - rate)`, with `training=True` only (Keras 3's `Dropout`). `seed` is the op seed:
    after `rt.random.set_seed`, the same calls give the same masks.

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Dropout(0.5, seed=1)
    >>> layer(rt.ones([2, 3])).numpy().tolist()  # inference: unchanged
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    >>> sorted(set(layer(rt.ones([200]), training=True).numpy().tolist()))
    [0.0, 2.0]
    """

    supports_masking = True

    def __init__(
        self,
        rate: float,
        noise_shape: Any = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Dropout", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        self.rate = check_number("Dropout", "rate", rate, low=0.0, high=1.0)
        self.noise_shape = (
            None
            if noise_shape is None
            else tuple(
                None
                if d is None
                else check_number("Dropout", "noise_shape", d, low=0, integer=True)
                for d in noise_shape
            )
        )
        self.seed = check_number("Dropout", "seed", seed, integer=True, none_ok=True)

    def call(self, inputs: Any, training: Any = None) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if isinstance(training, _rt.Tensor):
            training = bool(training.numpy())
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return _rt.zeros_like(inputs)
        noise = None
        if self.noise_shape is not None:
            noise = [
                inputs.shape[i] if d is None else int(d) for i, d in enumerate(self.noise_shape)
            ]
        return _rt.dropout(inputs, self.rate, noise_shape=noise, seed=self.seed)

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The input shape."""
        return tuple(input_shape)


class Embedding(Layer):
    """Rows of an `[input_dim, output_dim]` table for integer inputs (Keras 3's `Embedding`;
    initializer 'uniform', U(-0.05, 0.05)).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.Embedding(10, 4)
    >>> layer(rt.constant([[1, 2, 3]])).shape
    (1, 3, 4)
    >>> layer.embeddings.shape
    (10, 4)
    """

    embeddings_regularizer: Any
    embeddings_constraint: Any

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        mask_zero: bool = False,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        options = weight_options(kwargs, ("embeddings",))
        reject_options(
            "Embedding",
            kwargs,
            (
                "lora_rank",
                "input_length",
                "input_shape",
                "batch_size",
                "weights",
            ),
        )
        super().__init__(name=name, dtype=dtype, trainable=trainable)
        vars(self).update(options)
        self.input_dim = check_number("Embedding", "input_dim", input_dim, low=1, integer=True)
        self.output_dim = check_number("Embedding", "output_dim", output_dim, low=1, integer=True)
        self.embeddings_initializer = initializer(embeddings_initializer)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self.embeddings: Any = None

    def build(self, input_shape: tuple[Any, ...]) -> None:
        self.embeddings = self.add_weight(
            "embeddings",
            (self.input_dim, self.output_dim),
            self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )
        self.built = True

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        if inputs.dtype not in (_rt.int32, _rt.int64):
            inputs = _rt.cast(inputs, _rt.int32)
        return _rt.embedding_lookup(self.embeddings, inputs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """`inputs != 0` when `mask_zero`, else None."""
        return _rt.not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """`input_shape + (output_dim,)`."""
        return (*tuple(input_shape), self.output_dim)


class Lambda(Layer):
    """Wraps a function of the inputs as a layer (Keras 3's `Lambda`); `arguments` are extra
    keyword arguments to it. The output shape is `output_shape` (a shape per sample, or a
    function of the input shape) or found by running the function once.

    >>> import rustape as rt
    >>> rt.keras.layers.Lambda(lambda x: x * 2.0)(rt.ones([2])).numpy().tolist()
    [2.0, 2.0]
    """

    def __init__(
        self,
        function: Callable[..., Any],
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict | None = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        reject_options("Lambda", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)
        if not callable(function):
            raise TypeError(f"Lambda: `function` must be callable, got {function!r}")
        self.function = function
        self.output_shape = output_shape
        self.mask = mask
        self.arguments = dict(arguments or {})

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape: Any) -> Any:
        """From `output_shape` when given, else by calling the function on zeros."""
        if callable(self.output_shape):
            return self.output_shape(input_shape)
        if self.output_shape is not None:
            return (next(iter(input_shape)), *tuple(self.output_shape))
        probe = _rt.zeros([1 if d is None else int(d) for d in input_shape], dtype=self.dtype)
        out = tuple(self.function(probe, **self.arguments).shape)
        return (next(iter(input_shape)), *out[1:]) if out else out


class Identity(Layer):
    """Returns its inputs unchanged (a placeholder in a model, Keras 3's `Identity`); masks
    pass through.

    >>> import rustape as rt
    >>> rt.keras.layers.Identity()(rt.constant([1.0, 2.0])).numpy()
    array([1., 2.], dtype=float32)
    """

    supports_masking = True

    def __init__(self, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        reject_options("Identity", kwargs, ("input_shape", "batch_size"))
        super().__init__(name=name, dtype=dtype)

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input shape."""
        return input_shape


class ActivityRegularization(Layer):
    """Returns its inputs unchanged and adds `l1 * sum(|x|) + l2 * sum(x^2)` of them (divided
    by the batch size, as Keras does) to `layer.losses` (Keras 3's `ActivityRegularization`).

    >>> import rustape as rt
    >>> layer = rt.keras.layers.ActivityRegularization(l1=0.5)
    >>> _ = layer(rt.constant([[1.0, -3.0]]))
    >>> [float(v) for v in layer.losses]
    [2.0]
    """

    supports_masking = True

    def __init__(
        self,
        l1: float = 0.0,
        l2: float = 0.0,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        from .. import regularizers

        reject_options("ActivityRegularization", kwargs, ("input_shape", "batch_size"))
        l1 = check_number("ActivityRegularization", "l1", l1, low=0.0)
        l2 = check_number("ActivityRegularization", "l2", l2, low=0.0)
        super().__init__(
            name=name, dtype=dtype, activity_regularizer=regularizers.L1L2(l1=l1, l2=l2)
        )
        self.l1, self.l2 = l1, l2

    def call(self, inputs: Any) -> Any:  # type: ignore[override]  # Keras: call takes what it uses
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The input shape."""
        return input_shape
