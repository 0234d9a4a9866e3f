"""`tf.contrib.eager` (TensorFlow r1.x): `import rustape.contrib.eager as tfe`."""

from .. import _rustape as _rt
from .._tape import GradientTape
from ..custom_gradient import custom_gradient

Variable = _rt.Variable

__all__ = ["GradientTape", "Variable", "custom_gradient"]
