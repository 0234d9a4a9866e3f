"""`keras.ops.nn`: Keras 3's neural-network ops (activations, convolutions, pools,
normalizations, losses) under their namespace; each is the `keras.ops` function of the same
name; names rustape does not have yet are absent (an AttributeError).

>>> import rustape as rt
>>> rt.keras.ops.nn.relu([-1.0, 2.0]).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations

from ._namespace import fill

#: Keras 3.15's names in this namespace.
KERAS_NAMES = (
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "ctc_decode", "ctc_loss", "depth_to_space", "depthwise_conv", "dot_product_attention",
    "elu", "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish",
    "hard_tanh", "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax",
    "max_pool", "moments", "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu",
    "relu6", "rms_normalization", "selu", "separable_conv", "sigmoid", "silu",
    "soft_shrink", "softmax", "softplus", "softsign", "space_to_depth",
    "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid", "sparsemax",
    "squareplus", "swish", "tanh_shrink", "threshold", "unfold",
)

__all__ = list(fill(globals(), KERAS_NAMES))
