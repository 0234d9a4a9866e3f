"""Keras 3's newer losses (re-exported by `rt.keras.losses`): mean squared logarithmic error,
the focal cross-entropies, generalized cross-entropy, Dice, Tversky, Circle and CTC, as functions
(per-sample values) and classes (with reductions), each Keras's formula in `keras.ops`.

>>> import rustape as rt
>>> round(float(rt.keras.losses.Dice()([[1.0, 0.0]], [[0.8, 0.1]])), 4)
0.1579
"""

from __future__ import annotations

from typing import Any

from .. import _rustape as _rt
from . import ops
from ._util import check_number
from .losses import EPSILON, LossFunctionWrapper, _wrapper

__all__ = [
    "CTC",
    "BinaryFocalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalGeneralizedCrossEntropy",
    "Circle",
    "Dice",
    "MeanSquaredLogarithmicError",
    "Tversky",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy",
    "circle",
    "ctc",
    "dice",
    "mean_squared_logarithmic_error",
    "msle",
    "tversky",
]


def _pred_and_true(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    """`y_pred` as a floating tensor and `y_true` cast to its dtype (Keras's order)."""
    y_pred = ops.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = ops.cast(y_pred, "float32")
    return ops.cast(y_true, y_pred.dtype), y_pred


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    """`mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)`.

    >>> import rustape as rt
    >>> round(float(rt.keras.losses.mean_squared_logarithmic_error([1.0], [3.0])), 4)
    0.4805
    """
    from .losses import squeeze_or_expand_to_same_rank

    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    eps = ops.convert_to_tensor(EPSILON, dtype=y_pred.dtype)
    first = ops.log(ops.maximum(y_pred, eps) + 1.0)
    second = ops.log(ops.maximum(y_true, eps) + 1.0)
    return ops.mean(ops.square(first - second), axis=-1)


msle = mean_squared_logarithmic_error


def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Binary cross-entropy scaled by `(1 - p_t) ** gamma` (Lin et al.'s focal loss), with
    `alpha` weighting the classes when `apply_class_balancing`; averaged over `axis`.

    >>> import rustape as rt
    >>> round(float(rt.keras.losses.binary_focal_crossentropy([1.0, 0.0], [0.9, 0.2])), 5)
    0.00499
    """
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = ops.sigmoid(y_pred)
    bce = ops.binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = ops.power(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return ops.mean(focal, axis=axis)


def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Categorical cross-entropy of the renormalised, clipped `y_pred`, each class's term
    scaled by `alpha * (1 - p) ** gamma`; summed over `axis`.

    >>> import rustape as rt
    >>> round(float(rt.keras.losses.categorical_focal_crossentropy([[0.0, 1.0]], [[0.4, 0.6]])), 5)
    0.02043
    """
    if isinstance(axis, bool):
        raise ValueError(  # noqa: TRY004  (Keras's error)
            f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}"
        )
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    classes = int(y_true.shape[-1]) if len(y_true.shape) else 1
    if label_smoothing and classes:  # nothing to smooth over an empty class axis
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        y_pred = ops.softmax(y_pred, axis=axis)
    output = y_pred / ops.sum(y_pred, axis=axis, keepdims=True)
    output = ops.clip(output, EPSILON, 1.0 - EPSILON)
    cce = -y_true * ops.log(output)
    focal = ops.power(1.0 - output, gamma) * alpha * cce
    return ops.sum(focal, axis=axis)


def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: float) -> Any:
    """Zhang and Sabuncu's generalized cross-entropy `(1 - p ** q) / q` of the probability
    `p` of each sample's integer label, robust to noisy labels.

    >>> import rustape as rt
    >>> round(float(rt.keras.losses.categorical_generalized_cross_entropy([1], [[0.2, 0.8]], 0.5)[0]), 4)
    0.2111
    """
    y_pred = ops.convert_to_tensor(y_pred)
    labels = ops.cast(y_true, "int32")
    one_hot = ops.cast(ops.one_hot(labels, y_pred.shape[-1]), y_pred.dtype)
    p = ops.sum(y_pred * one_hot, axis=-1)
    return (1.0 - ops.power(p, q)) / q


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Any:
    """`1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + eps)` over `axis` (all
    axes when None).

    >>> import rustape as rt
    >>> round(float(rt.keras.losses.dice([[1.0, 0.0]], [[0.8, 0.1]])), 4)
    0.1579
    """
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    intersection = ops.sum(y_true * y_pred, axis=axis)
    total = ops.sum(y_true, axis=axis) + ops.sum(y_pred, axis=axis) + EPSILON
    return 1.0 - ops.divide(2.0 * intersection, total)


def tversky(
    y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5, axis: Any = None
) -> Any:
    """`1 - TP / (TP + alpha * FP + beta * FN + eps)` over `axis`, with soft counts
    (Salehi et al.'s Tversky loss; `alpha = beta = 0.5` is the Dice loss).

    >>> import rustape as rt
    >>> round(float(rt.keras.losses.tversky([[1.0, 0.0]], [[0.8, 0.1]], alpha=0.7, beta=0.3)), 4)
    0.1753
    """
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    intersection = ops.sum(y_true * y_pred, axis=axis)
    false_positive = ops.sum((1.0 - y_pred) * y_true, axis=axis)
    false_negative = ops.sum(y_pred * (1.0 - y_true), axis=axis)
    denominator = intersection + false_positive * alpha + false_negative * beta + EPSILON
    return 1.0 - ops.divide(intersection, denominator)


def _circle_with_mask(
    y_true: Any,
    y_pred: Any,
    ref_labels: Any = None,
    ref_embeddings: Any = None,
    remove_diagonal: bool = True,
    gamma: float = 80.0,
    margin: float = 0.4,
) -> tuple[Any, Any]:
    y_pred = ops.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = ops.cast(y_pred, "float32")
    labels = ops.cast(y_true, "int32")
    keys = y_pred if ref_embeddings is None else ops.convert_to_tensor(ref_embeddings)
    key_labels = labels if ref_labels is None else ops.cast(ref_labels, "int32")
    distances = ops.maximum(1.0 - ops.matmul(y_pred, ops.transpose(keys)), 0.0)
    queries = ops.reshape(labels, (-1, 1)) if len(labels.shape) == 1 else labels
    key_column = ops.reshape(key_labels, (-1, 1)) if len(key_labels.shape) == 1 else key_labels
    positive = ops.equal(queries, ops.transpose(key_column))
    negative = ops.logical_not(positive)
    if remove_diagonal:
        rows, cols = int(positive.shape[0]), int(positive.shape[1])
        positive = ops.logical_and(positive, ops.logical_not(ops.eye(rows, cols, dtype="bool")))
    positive_f = ops.cast(positive, distances.dtype)
    negative_f = ops.cast(negative, distances.dtype)
    positive_weights = ops.maximum((margin + distances) * positive_f, 0.0)
    negative_weights = ops.maximum((1.0 + margin - distances) * negative_f, 0.0)
    positive_terms = -gamma * positive_weights * (margin - distances)
    negative_terms = gamma * negative_weights * ((1.0 - margin) - distances)
    minus_inf = ops.full_like(distances, float("-inf"))
    positive_loss = ops.logsumexp(ops.where(positive, positive_terms, minus_inf), axis=1)
    negative_loss = ops.logsumexp(ops.where(negative, negative_terms, minus_inf), axis=1)
    loss = ops.softplus(positive_loss + negative_loss)
    return loss, ops.greater(loss, 0.0)


def circle(
    y_true: Any,
    y_pred: Any,
    ref_labels: Any = None,
    ref_embeddings: Any = None,
    remove_diagonal: bool = True,
    gamma: float = 80.0,
    margin: float = 0.4,
) -> Any:
    """Sun et al.'s Circle loss per sample of L2-normalised embeddings `y_pred` with integer
    labels `y_true` (pairs within the batch, or against `ref_embeddings` / `ref_labels`).
    The `Circle` class averages over the samples whose loss is positive, as Keras does.

    >>> import rustape as rt
    >>> e = rt.keras.ops.normalize([[1.0, 0.0], [0.0, 1.0], [0.9, 0.2], [0.1, 0.9]])
    >>> [round(v, 2) for v in rt.keras.losses.circle([0, 0, 1, 1], e).numpy().tolist()]
    [130.64, 133.42, 87.26, 90.05]
    """
    loss, _ = _circle_with_mask(
        y_true, y_pred, ref_labels, ref_embeddings, remove_diagonal, gamma, margin
    )
    return loss


def _named(cls: type, name: str) -> type:
    cls.__name__ = cls.__qualname__ = name
    return cls


MeanSquaredLogarithmicError = _named(
    _wrapper(
        mean_squared_logarithmic_error,
        "mean_squared_logarithmic_error",
        """Mean squared logarithmic error.

    >>> round(float(MeanSquaredLogarithmicError()([[1.0, 0.0]], [[3.0, 0.0]])), 4)
    0.2402
    """,
    ),
    "MeanSquaredLogarithmicError",
)
BinaryFocalCrossentropy = _named(
    _wrapper(
        binary_focal_crossentropy,
        "binary_focal_crossentropy",
        """Binary focal cross-entropy (`apply_class_balancing=False`, `alpha=0.25`,
    `gamma=2.0`, `from_logits=False`, `label_smoothing=0.0`, `axis=-1`).

    >>> round(float(BinaryFocalCrossentropy(gamma=1.0)([[1.0, 0.0]], [[0.9, 0.2]])), 5)
    0.02758
    """,
        apply_class_balancing=False,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
    ),
    "BinaryFocalCrossentropy",
)
CategoricalFocalCrossentropy = _named(
    _wrapper(
        categorical_focal_crossentropy,
        "categorical_focal_crossentropy",
        """Categorical focal cross-entropy (`alpha=0.25`, `gamma=2.0`, `from_logits=False`,
    `label_smoothing=0.0`, `axis=-1`).

    >>> round(float(CategoricalFocalCrossentropy()([[0.0, 1.0]], [[0.4, 0.6]])), 5)
    0.02043
    """,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
    ),
    "CategoricalFocalCrossentropy",
)


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """Generalized cross-entropy with integer labels (`q` in (0, 1): 1 is MAE-like, near 0
    cross-entropy-like).

    >>> round(float(CategoricalGeneralizedCrossEntropy(q=0.5)([1], [[0.2, 0.8]])), 4)
    0.2111
    """

    def __init__(
        self,
        q: float = 0.5,
        reduction: Any = "sum_over_batch_size",
        name: str = "categorical_generalized_cross_entropy",
        dtype: Any = None,
    ) -> None:
        q = check_number("CategoricalGeneralizedCrossEntropy", "q", q)
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(
            categorical_generalized_cross_entropy, reduction=reduction, name=name, dtype=dtype, q=q
        )
        self.q = q


class Dice(LossFunctionWrapper):
    """The Dice loss, `1 - dice coefficient`, over `axis` (all axes when None).

    >>> round(float(Dice()([[1.0, 0.0]], [[0.8, 0.1]])), 4)
    0.1579
    """

    def __init__(
        self,
        reduction: Any = "sum_over_batch_size",
        name: str = "dice",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        axis = list(axis) if isinstance(axis, tuple) else axis  # as a saved config has it
        super().__init__(dice, reduction=reduction, name=name, dtype=dtype, axis=axis)
        self.axis = axis


class Tversky(LossFunctionWrapper):
    """The Tversky loss (`alpha` weighs false positives, `beta` false negatives).

    >>> round(float(Tversky(alpha=0.7, beta=0.3)([[1.0, 0.0]], [[0.8, 0.1]])), 4)
    0.1753
    """

    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        reduction: Any = "sum_over_batch_size",
        name: str = "tversky",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        alpha = check_number("Tversky", "alpha", alpha)
        beta = check_number("Tversky", "beta", beta)
        axis = list(axis) if isinstance(axis, tuple) else axis  # as a saved config has it
        super().__init__(
            tversky,
            reduction=reduction,
            name=name,
            dtype=dtype,
            alpha=alpha,
            beta=beta,
            axis=axis,
        )
        self.alpha, self.beta, self.axis = alpha, beta, axis


class Circle(LossFunctionWrapper):
    """The Circle loss of a batch of L2-normalised embeddings and integer labels, averaged
    over the samples whose loss is positive (Keras's mask).

    >>> e = rt.keras.ops.normalize([[1.0, 0.0], [0.0, 1.0], [0.9, 0.2], [0.1, 0.9]])
    >>> round(float(Circle()([0, 0, 1, 1], e)), 3)
    110.341
    """

    def __init__(
        self,
        gamma: float = 80.0,
        margin: float = 0.4,
        remove_diagonal: bool = True,
        reduction: Any = "sum_over_batch_size",
        name: str = "circle",
        dtype: Any = None,
    ) -> None:
        gamma = check_number("Circle", "gamma", gamma)
        margin = check_number("Circle", "margin", margin)
        super().__init__(
            circle,
            reduction=reduction,
            name=name,
            dtype=dtype,
            gamma=gamma,
            margin=margin,
            remove_diagonal=bool(remove_diagonal),
        )
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, bool(remove_diagonal)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return _circle_with_mask(y_true, y_pred, **self._fn_kwargs)


def ctc(y_true: Any, y_pred: Any) -> Any:
    """Keras's `ctc`: the CTC loss per example of integer labels `y_true` `(batch, max_length)`
    (0 is the blank and pads; each label's length is its count of non-zero entries) under logits
    `y_pred` `(batch, frames, classes)`, every frame used.

    >>> round(float(ctc([[1, 0]], rt.zeros([1, 3, 3]))[0]), 4)
    1.5041
    """
    from .ops import ctc_loss

    y_true, y_pred = _rt.convert_to_tensor(y_true), _rt.convert_to_tensor(y_pred)
    if y_true.ndim != 2:
        raise ValueError(
            "Targets `y_true` are expected to be a tensor of shape `(batch_size, max_length)` "
            f"in integer format. Received: y_true.shape={tuple(y_true.shape)}"
        )
    if y_pred.ndim != 3:
        raise ValueError(
            "Logits `y_pred` are expected to be a tensor of shape `(batch_size, max_length, "
            f"num_classes)`. Received: y_pred.shape={tuple(y_pred.shape)}"
        )
    batch, frames = int(y_pred.shape[0]), int(y_pred.shape[1])
    input_length = _rt.fill([batch], frames)
    label_length = _rt.reduce_sum(_rt.cast(_rt.not_equal(y_true, 0), _rt.int32), axis=-1)
    return ctc_loss(y_true, y_pred, label_length, input_length, mask_index=0)


CTC = _wrapper(
    ctc,
    "ctc",
    """CTC (connectionist temporal classification) loss: `ctc` averaged over the batch.

    >>> round(float(CTC()([[1, 0]], rt.zeros([1, 3, 3]))), 4)
    1.5041
    """,
)
CTC.__name__ = CTC.__qualname__ = "CTC"
