"""`rt.keras.losses`: Keras 3's losses, as classes (with reductions and `sample_weight`) and
functions (per-sample values).

Cross-entropies from logits go through `rt.nn`'s stable forms (log-sum-exp inside), so logits of
±1e4 give finite values and gradients.

>>> import rustape as rt
>>> mse = rt.keras.losses.MeanSquaredError()
>>> float(mse([[0.0, 1.0]], [[1.0, 1.0]]))
0.5
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

from .. import _rustape as _rt
from .. import nn as _nn
from ._util import _snake, check_number

__all__ = [
    "CTC",
    "KLD",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "BinaryCrossentropy",
    "BinaryFocalCrossentropy",
    "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalGeneralizedCrossEntropy",
    "CategoricalHinge",
    "Circle",
    "CosineSimilarity",
    "Dice",
    "Hinge",
    "Huber",
    "KLDivergence",
    "LogCosh",
    "Loss",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "SparseCategoricalCrossentropy",
    "SquaredHinge",
    "Tversky",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy",
    "categorical_hinge",
    "circle",
    "cosine_similarity",
    "ctc",
    "deserialize",
    "dice",
    "get",
    "hinge",
    "huber",
    "kl_divergence",
    "kld",
    "log_cosh",
    "logcosh",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
    "poisson",
    "serialize",
    "sparse_categorical_crossentropy",
    "squared_hinge",
    "tversky",
]

EPSILON = 1e-7
_REDUCTIONS = {"sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight"}


def _tensor(x: Any, dtype: Any = None) -> Any:
    if isinstance(x, _rt.Variable):
        x = x.value()
    if isinstance(x, _rt.Tensor):
        if dtype is not None and x.dtype != dtype:
            x = _rt.cast(x, dtype)
        return x
    return _rt.convert_to_tensor(x, dtype=dtype)


def _pair(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = _rt.cast(y_pred, _rt.float32)
    return _tensor(y_true, y_pred.dtype), y_pred


def squeeze_or_expand_to_same_rank(x1: Any, x2: Any, expand_rank_1: bool = True) -> tuple[Any, Any]:
    """Keras's rank matching: a trailing axis of 1 on one side is dropped (or added to a rank-1
    other side)."""
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = _rt.expand_dims(x2, -1)
        else:
            x1 = _rt.squeeze(x1, -1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = _rt.expand_dims(x1, -1)
        else:
            x2 = _rt.squeeze(x2, -1)
    return x1, x2


def _mean_last(x: Any) -> Any:
    return _rt.reduce_mean(x, axis=-1)


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """`mean(square(y_true - y_pred), axis=-1)`.

    >>> float(mean_squared_error([1.0, 3.0], [2.0, 1.0]))
    2.5
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    return _mean_last(_rt.square(_rt.subtract(y_true, y_pred)))


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    """`mean(abs(y_true - y_pred), axis=-1)`.

    >>> float(mean_absolute_error([1.0, 3.0], [2.0, 1.0]))
    1.5
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    return _mean_last(_rt.abs(_rt.subtract(y_true, y_pred)))


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    """`100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)`.

    >>> round(float(mean_absolute_percentage_error([2.0, 4.0], [1.0, 4.0])), 4)
    25.0
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    diff = _rt.abs(_rt.divide(_rt.subtract(y_true, y_pred), _rt.maximum(_rt.abs(y_true), EPSILON)))
    return _rt.multiply(100.0, _mean_last(diff))


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    """Quadratic within `delta` of the target, linear beyond it; mean over the last axis.

    >>> float(huber([0.0, 0.0], [0.5, 3.0]))
    1.3125
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    d = _rt.constant(check_number("huber", "delta", delta), dtype=y_pred.dtype)
    error = _rt.subtract(y_pred, y_true)
    abs_error = _rt.abs(error)
    half = _rt.constant(0.5, dtype=y_pred.dtype)
    quadratic = _rt.multiply(half, _rt.square(error))
    linear = _rt.subtract(_rt.multiply(d, abs_error), _rt.multiply(half, _rt.square(d)))
    return _mean_last(_rt.where(_rt.less_equal(abs_error, d), quadratic, linear))


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    """`mean(log(cosh(y_pred - y_true)), axis=-1)`, computed as `x + softplus(-2x) - log 2`.

    >>> round(float(log_cosh([0.0], [1.0])), 6)
    0.433781
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    x = _rt.subtract(y_pred, y_true)
    log2 = _rt.constant(math.log(2.0), dtype=y_pred.dtype)
    return _mean_last(_rt.subtract(_rt.add(x, _rt.softplus(_rt.multiply(x, -2.0))), log2))


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    """`sum(y_true * log(y_true / y_pred), axis=-1)`, both clipped to `[epsilon, 1]`.

    >>> round(float(kl_divergence([0.5, 0.5], [0.25, 0.75])), 6)
    0.143841
    """
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _rt.clip_by_value(y_true, EPSILON, 1.0)
    y_pred = _rt.clip_by_value(y_pred, EPSILON, 1.0)
    return _rt.reduce_sum(_rt.multiply(y_true, _rt.log(_rt.divide(y_true, y_pred))), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    """`mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)`.

    >>> round(float(poisson([1.0], [1.0])), 6)
    1.0
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return _mean_last(_rt.subtract(y_pred, _rt.multiply(y_true, _rt.log(_rt.add(y_pred, EPSILON)))))


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Minus the cosine of the angle between `y_true` and `y_pred` along `axis`.

    >>> round(float(cosine_similarity([1.0, 0.0], [1.0, 1.0])), 6)
    -0.707107
    """
    y_true, y_pred = squeeze_or_expand_to_same_rank(*_pair(y_true, y_pred))
    y_pred = _nn.l2_normalize(y_pred, axis=axis)
    y_true = _nn.l2_normalize(y_true, axis=axis)
    return _rt.negative(_rt.reduce_sum(_rt.multiply(y_true, y_pred), axis=axis))


def hinge(y_true: Any, y_pred: Any) -> Any:
    """`mean(max(1 - y_true * y_pred, 0), axis=-1)`; labels in {0, 1} become {-1, 1}.

    >>> float(hinge([1.0, 0.0], [0.5, 0.5]))
    1.0
    """
    y_true, y_pred = _pair(y_true, y_pred)
    return _mean_last(
        _rt.maximum(_rt.subtract(1.0, _rt.multiply(_hinge_labels(y_true), y_pred)), 0.0)
    )


def _hinge_labels(y_true: Any) -> Any:
    """Labels in {0, 1} as {-1, 1} (Keras's `convert_binary_labels_to_hinge`)."""
    values = y_true.numpy()
    if ((values == 0) | (values == 1)).all():
        return _rt.subtract(_rt.multiply(2.0, y_true), 1.0)
    return y_true


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    """`mean(square(max(1 - y_true * y_pred, 0)), axis=-1)`; labels in {0, 1} become {-1, 1}.

    >>> float(squared_hinge([1.0, 0.0], [0.5, 0.5]))
    1.25
    """
    y_true, y_pred = _pair(y_true, y_pred)
    margin = _rt.maximum(_rt.subtract(1.0, _rt.multiply(_hinge_labels(y_true), y_pred)), 0.0)
    return _mean_last(_rt.square(margin))


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """`max(neg - pos + 1, 0)` with `pos = sum(y_true * y_pred)` and `neg = max((1 - y_true) *
    y_pred)` along the last axis (one-hot labels).

    >>> float(categorical_hinge([0.0, 1.0], [0.3, 0.8]))
    0.5
    """
    y_true, y_pred = _pair(y_true, y_pred)
    pos = _rt.reduce_sum(_rt.multiply(y_true, y_pred), axis=-1)
    neg = _rt.reduce_max(_rt.multiply(_rt.subtract(1.0, y_true), y_pred), axis=-1)
    return _rt.maximum(_rt.add(_rt.subtract(neg, pos), 1.0), 0.0)


def binary_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Binary cross-entropy per element, averaged over `axis`.

    >>> round(float(binary_crossentropy([1.0, 0.0], [0.9, 0.2])), 6)
    0.164252
    """
    label_smoothing = check_number(
        "binary_crossentropy", "label_smoothing", label_smoothing, low=0.0, high=1.0
    )
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = _rt.add(_rt.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. Received: "
            f"target.shape={tuple(y_true.shape)}, output.shape={tuple(y_pred.shape)}"
        )
    if from_logits:
        # One Rust op; its gradient at a logit of 0 is TensorFlow's sigmoid(0) - z.
        bce = _nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = _rt.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        bce = _rt.add(
            _rt.multiply(y_true, _rt.log(p)),
            _rt.multiply(_rt.subtract(1.0, y_true), _rt.log(_rt.subtract(1.0, p))),
        )
        bce = _rt.negative(bce)
    return _rt.reduce_mean(bce, axis=axis)


def categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Cross-entropy between one-hot (or soft) labels and probabilities (or logits) along `axis`.

    >>> round(float(categorical_crossentropy([0.0, 1.0], [0.4, 0.6])), 6)
    0.510826
    """
    if isinstance(axis, bool):
        # Keras raises ValueError here.
        raise ValueError(  # noqa: TRY004
            f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}"
        )
    label_smoothing = check_number(
        "categorical_crossentropy", "label_smoothing", label_smoothing, low=0.0, high=1.0
    )
    y_true, y_pred = _pair(y_true, y_pred)
    if len(y_pred.shape) and y_pred.shape[-1] == 1:
        warnings.warn(
            "In loss categorical_crossentropy, expected y_pred.shape to be (batch_size, "
            f"num_classes) with num_classes > 1. Received: y_pred.shape={tuple(y_pred.shape)}. "
            "Consider using 'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning,
            stacklevel=2,
        )
    if label_smoothing:
        # No classes: nothing to smooth (Keras divides by a zero tensor; the sum is empty).
        classes = float(y_true.shape[-1]) or 1.0
        y_true = _rt.add(_rt.multiply(y_true, 1.0 - label_smoothing), label_smoothing / classes)
    if len(y_true.shape) < 1 or tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. Received: "
            f"target.shape={tuple(y_true.shape)}, output.shape={tuple(y_pred.shape)}"
        )
    if from_logits:
        return _nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = _rt.divide(y_pred, _rt.reduce_sum(y_pred, axis=axis, keepdims=True))
    p = _rt.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return _rt.negative(_rt.reduce_sum(_rt.multiply(y_true, _rt.log(p)), axis=axis))


def sparse_categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    ignore_class: int | None = None,
    axis: int = -1,
    _return_mask: bool = False,
) -> Any:
    """Cross-entropy between integer class labels and probabilities (or logits).

    >>> round(float(sparse_categorical_crossentropy(1, [0.4, 0.6])), 6)
    0.510826
    """
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = _rt.cast(y_pred, _rt.float32)
    rank = len(y_pred.shape)
    if axis not in (-1, rank - 1):
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    labels = _tensor(y_true)
    if len(labels.shape) == rank and labels.shape[-1] == 1:
        labels = _rt.squeeze(labels, -1)
    if labels.dtype.is_floating:
        labels = _rt.cast(labels, _rt.int64)
    if tuple(labels.shape) != tuple(y_pred.shape[:-1]):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape up until the last "
            f"dimension: target.shape={tuple(labels.shape)}, output.shape={tuple(y_pred.shape)}"
        )
    valid = None
    if ignore_class is not None:
        valid = _rt.not_equal(labels, _rt.cast(ignore_class, labels.dtype))
        labels = _rt.where(valid, labels, _rt.zeros_like(labels))
        y_pred = _rt.where(_rt.expand_dims(valid, -1), y_pred, _rt.zeros_like(y_pred))
    logits = y_pred
    if not from_logits:
        logits = _rt.log(_rt.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON))
    result = _nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    if valid is not None:
        result = _rt.where(valid, result, _rt.zeros_like(result))
        if _return_mask:
            return result, valid
    return result


class Loss:
    """Base class: `loss(y_true, y_pred, sample_weight=None)` applies `call` then the reduction.

    `reduction` is `"sum_over_batch_size"` (the default: the weighted sum divided by the number
    of values), `"sum"`, `"mean"`, `"mean_with_sample_weight"` (divided by the weights' sum) or
    `None`/`"none"` (per-sample values).

    >>> class Twice(Loss):
    ...     def call(self, y_true, y_pred):
    ...         return 2.0 * (rt.convert_to_tensor(y_pred) - y_true)
    >>> import rustape as rt
    >>> float(Twice()([0.0, 0.0], [1.0, 2.0]))
    3.0
    """

    def __init__(
        self, name: str | None = None, reduction: Any = "sum_over_batch_size", dtype: Any = None
    ) -> None:
        if reduction not in _REDUCTIONS:
            raise ValueError(
                f"Invalid value for argument `reduction`. Expected one of {_REDUCTIONS}. "
                f"Received: reduction={reduction}"
            )
        self.name = name if name is not None else _snake(type(self).__name__)
        self.reduction = reduction
        self.dtype = _rt.as_dtype(dtype) if dtype is not None else _rt.float32

    def call(self, y_true: Any, y_pred: Any) -> Any:
        """The per-sample losses."""
        raise NotImplementedError

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_pred = _tensor(y_pred, self.dtype)
        y_true = _tensor(y_true, self.dtype)
        out = self.call(y_true, y_pred)
        mask = None
        if isinstance(out, tuple):
            # (values, mask): masked-out values count as absent, as Keras's masks do.
            out, mask = out
        values = _tensor(out, self.dtype)
        if mask is not None:
            sample_weight = _mask_weights(mask, sample_weight, self.reduction, values.dtype)
        return reduce_weighted_values(values, sample_weight, self.reduction, self.dtype)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """A loss from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<rt.keras.losses.{type(self).__name__} name={self.name!r}>"


def _mask_weights(mask: Any, sample_weight: Any, reduction: Any, dtype: Any) -> Any:
    """Keras's `apply_mask`: masked entries weigh 0; with a mean reduction the others weigh
    `total / valid`, so the mean runs over the valid entries only."""
    float_mask = _rt.cast(mask, dtype)
    if reduction in ("mean", "sum_over_batch_size"):
        total = 1
        for d in mask.shape:
            total *= int(d)
        valid = _rt.reduce_sum(float_mask)
        safe = _rt.where(_rt.equal(valid, 0.0), _rt.ones_like(valid), valid)
        weight = _rt.where(
            _rt.equal(valid, 0.0),
            _rt.zeros_like(valid),
            _rt.divide(_rt.constant(float(total), dtype=dtype), safe),
        )
        float_mask = _rt.where(
            mask, _rt.multiply(_rt.ones_like(float_mask), weight), _rt.zeros_like(float_mask)
        )
    if sample_weight is not None:
        weight = _tensor(sample_weight, dtype)
        float_mask, weight = squeeze_or_expand_to_same_rank(float_mask, weight)
        return _rt.multiply(weight, float_mask)
    return float_mask


def reduce_weighted_values(values: Any, sample_weight: Any, reduction: Any, dtype: Any) -> Any:
    """Keras's `reduce_weighted_values`: weight the values, then reduce them."""
    if sample_weight is not None:
        weight = _tensor(sample_weight, values.dtype)
        values, weight = squeeze_or_expand_to_same_rank(values, weight)
        values = _rt.multiply(values, weight)
    if reduction is None or reduction == "none" or tuple(values.shape) in ((), (0,)):
        return values
    loss = _rt.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = _rt.reduce_sum(_tensor(sample_weight, values.dtype))
        else:
            size = 1
            for d in values.shape:
                size *= int(d)
            divisor = _rt.constant(float(size), dtype=values.dtype)
        # divide_no_nan: a zero divisor gives 0.
        safe = _rt.where(_rt.equal(divisor, 0.0), _rt.ones_like(divisor), divisor)
        loss = _rt.where(_rt.equal(divisor, 0.0), _rt.zeros_like(loss), _rt.divide(loss, safe))
    return loss


class LossFunctionWrapper(Loss):
    """A `Loss` around a per-sample function `fn(y_true, y_pred, **kwargs)`.

    >>> float(LossFunctionWrapper(mean_absolute_error)([[1.0, 2.0]], [[2.0, 2.0]]))
    0.5
    """

    def __init__(
        self,
        fn: Callable,
        reduction: Any = "sum_over_batch_size",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if (
            self.fn is sparse_categorical_crossentropy
            and self._fn_kwargs.get("ignore_class") is not None
        ):
            return self.fn(y_true, y_pred, _return_mask=True, **self._fn_kwargs)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(self._fn_kwargs)
        return config


def _check_options(owner: str, options: dict[str, Any]) -> None:
    """The numeric options of a loss class, checked when it is made (ValueError / TypeError
    naming the class and the option)."""
    if "delta" in options:
        options["delta"] = check_number(owner, "delta", options["delta"])
    if "label_smoothing" in options:
        options["label_smoothing"] = check_number(
            owner, "label_smoothing", options["label_smoothing"], low=0.0, high=1.0
        )
    if "axis" in options and not isinstance(options["axis"], (list, tuple)):
        options["axis"] = check_number(owner, "axis", options["axis"], integer=True)
    if options.get("ignore_class") is not None:
        options["ignore_class"] = check_number(
            owner, "ignore_class", options["ignore_class"], integer=True
        )


def _wrapper(fn: Callable, default_name: str, doc: str, **defaults: Any) -> type:
    def __init__(
        self: Any,
        *args: Any,
        reduction: Any = "sum_over_batch_size",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        options = dict(defaults)
        names = list(defaults)
        if len(args) > len(names):
            raise TypeError(f"{default_name}: too many positional arguments")
        options.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in defaults:
                raise TypeError(f"{default_name} got an unexpected keyword argument {key!r}")
            options[key] = value
        _check_options(type(self).__name__, options)
        LossFunctionWrapper.__init__(
            self,
            fn,
            reduction=reduction,
            name=name if name is not None else default_name,
            dtype=dtype,
            **options,
        )

    return type(default_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc})


MeanSquaredError = _wrapper(
    mean_squared_error,
    "mean_squared_error",
    """Mean of squared errors.

    >>> float(MeanSquaredError()([[0.0, 1.0]], [[1.0, 1.0]]))
    0.5
    """,
)
MeanSquaredError.__name__ = MeanSquaredError.__qualname__ = "MeanSquaredError"
MeanAbsoluteError = _wrapper(
    mean_absolute_error,
    "mean_absolute_error",
    """Mean of absolute errors.

    >>> float(MeanAbsoluteError()([[0.0, 1.0]], [[1.0, 1.0]]))
    0.5
    """,
)
MeanAbsoluteError.__name__ = MeanAbsoluteError.__qualname__ = "MeanAbsoluteError"
MeanAbsolutePercentageError = _wrapper(
    mean_absolute_percentage_error,
    "mean_absolute_percentage_error",
    """Mean absolute percentage error.

    >>> float(MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 4.0]]))
    25.0
    """,
)
MeanAbsolutePercentageError.__name__ = MeanAbsolutePercentageError.__qualname__ = (
    "MeanAbsolutePercentageError"
)
Huber = _wrapper(
    huber,
    "huber_loss",
    """Huber loss (`delta=1.0`).

    >>> float(Huber()([[0.0, 0.0]], [[0.5, 3.0]]))
    1.3125
    """,
    delta=1.0,
)
Huber.__name__ = Huber.__qualname__ = "Huber"
LogCosh = _wrapper(
    log_cosh,
    "log_cosh",
    """Mean of `log(cosh(error))`.

    >>> round(float(LogCosh()([[0.0]], [[1.0]])), 6)
    0.433781
    """,
)
LogCosh.__name__ = LogCosh.__qualname__ = "LogCosh"
BinaryCrossentropy = _wrapper(
    binary_crossentropy,
    "binary_crossentropy",
    """Binary cross-entropy (`from_logits`, `label_smoothing`, `axis`).

    >>> round(float(BinaryCrossentropy(from_logits=True)([[1.0]], [[10000.0]])), 6)
    0.0
    """,
    from_logits=False,
    label_smoothing=0.0,
    axis=-1,
)
BinaryCrossentropy.__name__ = BinaryCrossentropy.__qualname__ = "BinaryCrossentropy"
CategoricalCrossentropy = _wrapper(
    categorical_crossentropy,
    "categorical_crossentropy",
    """Categorical cross-entropy (`from_logits`, `label_smoothing`, `axis`).

    >>> round(float(CategoricalCrossentropy()([[0.0, 1.0]], [[0.4, 0.6]])), 6)
    0.510826
    """,
    from_logits=False,
    label_smoothing=0.0,
    axis=-1,
)
CategoricalCrossentropy.__name__ = CategoricalCrossentropy.__qualname__ = "CategoricalCrossentropy"
SparseCategoricalCrossentropy = _wrapper(
    sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    """Cross-entropy for integer labels (`from_logits`, `ignore_class`, `axis`).

    >>> round(float(SparseCategoricalCrossentropy()([1], [[0.4, 0.6]])), 6)
    0.510826
    """,
    from_logits=False,
    ignore_class=None,
    axis=-1,
)
SparseCategoricalCrossentropy.__name__ = SparseCategoricalCrossentropy.__qualname__ = (
    "SparseCategoricalCrossentropy"
)
KLDivergence = _wrapper(
    kl_divergence,
    "kl_divergence",
    """Kullback-Leibler divergence.

    >>> round(float(KLDivergence()([[0.5, 0.5]], [[0.25, 0.75]])), 6)
    0.143841
    """,
)
KLDivergence.__name__ = KLDivergence.__qualname__ = "KLDivergence"
Poisson = _wrapper(
    poisson,
    "poisson",
    """Poisson loss.

    >>> round(float(Poisson()([[1.0]], [[1.0]])), 6)
    1.0
    """,
)
Poisson.__name__ = Poisson.__qualname__ = "Poisson"
CosineSimilarity = _wrapper(
    cosine_similarity,
    "cosine_similarity",
    """Minus the cosine similarity.

    >>> round(float(CosineSimilarity()([[1.0, 0.0]], [[1.0, 1.0]])), 6)
    -0.707107
    """,
    axis=-1,
)
CosineSimilarity.__name__ = CosineSimilarity.__qualname__ = "CosineSimilarity"
Hinge = _wrapper(
    hinge,
    "hinge",
    """Hinge loss.

    >>> float(Hinge()([[1.0, 0.0]], [[0.5, 0.5]]))
    1.0
    """,
)
Hinge.__name__ = Hinge.__qualname__ = "Hinge"
SquaredHinge = _wrapper(
    squared_hinge,
    "squared_hinge",
    """Squared hinge loss.

    >>> float(SquaredHinge()([[1.0, 0.0]], [[0.5, 0.5]]))
    1.25
    """,
)
SquaredHinge.__name__ = SquaredHinge.__qualname__ = "SquaredHinge"
CategoricalHinge = _wrapper(
    categorical_hinge,
    "categorical_hinge",
    """Categorical hinge loss (one-hot labels).

    >>> float(CategoricalHinge()([[0.0, 1.0]], [[0.3, 0.8]]))
    0.5
    """,
)
CategoricalHinge.__name__ = CategoricalHinge.__qualname__ = "CategoricalHinge"

# Keras 3's newer losses live in losses_more.py (it builds on the helpers above).
from .losses_more import (
    CTC,
    BinaryFocalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    Circle,
    Dice,
    MeanSquaredLogarithmicError,
    Tversky,
    binary_focal_crossentropy,
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    circle,
    ctc,
    dice,
    mean_squared_logarithmic_error,
    msle,
    tversky,
)

MSLE = msle

mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
kld = KLD = kl_divergence
logcosh = log_cosh

_BY_NAME: dict[str, Any] = {
    name: obj
    for name, obj in globals().items()
    if name in __all__ and name not in ("get", "Loss") and callable(obj)
}


def get(identifier: Any) -> Any:
    """A loss from a name (class or function name) or a callable (returned as is).

    >>> get("mse") is mean_squared_error
    True
    """
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        obj = _BY_NAME[identifier]
        return obj() if isinstance(obj, type) else obj
    raise ValueError(f"Could not interpret loss identifier: {identifier!r}")


def serialize(loss: Any) -> Any:
    """A loss's config as JSON-able data (a function: its name).

    >>> serialize(MeanSquaredError())["class_name"]
    'MeanSquaredError'
    """
    from .saving import serialize_keras_object

    return serialize_keras_object(loss)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The loss `serialize`'s data (or a Keras name) describes.

    >>> deserialize("dice") is dice
    True
    """
    if isinstance(config, str):
        return get(config)
    from .saving import deserialize_keras_object

    return deserialize_keras_object(config, custom_objects)
