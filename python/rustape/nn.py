"""`rt.nn`: activations, normalisation and losses, with TensorFlow's names."""
from __future__ import annotations

from ._export import export as _export

__all__ = _export(globals(), [
    "relu", "relu6", "elu", "leaky_relu", "sigmoid", "tanh", "softplus", "silu", "swish",
    "softmax", "log_softmax", "l2_normalize", "l2_loss", "moments", "batch_normalization",
    "sigmoid_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
])
