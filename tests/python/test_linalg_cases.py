"""Runs the gradient cases of `cases_linalg.py` (pytest collects only `test_*.py` files)."""

from cases_linalg import test_linalg_gradient_matches_finite_differences

__all__ = ["test_linalg_gradient_matches_finite_differences"]
