"""`rt.config`: how rustape runs — its thread count, its devices, its warnings and its logging.

- `set_num_threads(n)` / `get_num_threads()`: the threads of the parallel kernels, matrix
  products and Jacobian blocks (`RAYON_NUM_THREADS` in the environment sets them too;
  `rt.config.threading` has TensorFlow's names for them);
- `list_physical_devices()` / `list_logical_devices()`: TensorFlow's device lists; rustape
  runs on the CPU, so they hold the CPU and no GPU (`rt.config.experimental` has TensorFlow's
  older names and the GPU memory settings);
- `set_nonscalar_target_warning(True)`: warn when `GradientTape.gradient` sums a target with
  more than one element (TensorFlow sums it silently; off by default, as in TensorFlow);
- `set_log_level(level)`: the level of the `"rustape"` logger (what the tapes report about
  their backward passes at DEBUG).
"""

from __future__ import annotations

from .. import _config  # noqa: F401  (its @export rows)
from .._export import fill as _fill
from . import experimental, threading

__all__ = list(_fill(globals(), "config"))
__all__ += ["experimental", "threading"]
