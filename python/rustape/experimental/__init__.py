"""`rt.experimental`: TensorFlow's `tf.experimental` names rustape has (`dlpack`)."""

from __future__ import annotations

from . import dlpack

__all__ = ["dlpack"]
