"""`tf.contrib.eager` (TensorFlow r1.x): `import rustape.contrib.eager as tfe`."""
from .._tape import GradientTape
from ..custom_gradient import custom_gradient
from .. import _rustape as _rt

Variable = _rt.Variable

__all__ = ["GradientTape", "custom_gradient", "Variable"]
