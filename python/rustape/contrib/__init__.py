"""`rt.contrib`: TensorFlow 1.x's `tf.contrib.eager` names, for old examples."""

from . import eager

__all__ = ["eager"]
