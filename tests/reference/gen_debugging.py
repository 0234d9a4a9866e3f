"""Reference outcomes of TensorFlow 2.21's `tf.debugging` checks, eagerly: for each case,
whether the check passed or which exception class it raised.

Run with TensorFlow's venv (see README.md); writes debugging.json beside this file. `CASES`
is imported by the test: name -> (function, positional arguments, keyword arguments).
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

F = np.array([1.0, 2.0, 3.0], np.float32)
CASES: dict[str, tuple[str, list[Any], dict[str, Any]]] = {
    "equal_pass": ("assert_equal", [F, F.copy()], {}),
    "equal_fail": ("assert_equal", [F, F[::-1].copy()], {}),
    "equal_broadcast": ("assert_equal", [np.ones((2, 3), np.float32), np.float32(1.0)], {}),
    "none_equal_fail": ("assert_none_equal", [F, np.array([0.0, 2.0, 0.0], np.float32)], {}),
    "less_pass": ("assert_less", [F, np.float32(3.5)], {}),
    "less_fail": ("assert_less", [F, np.float32(3.0)], {}),
    "less_equal_pass": ("assert_less_equal", [F, np.float32(3.0)], {}),
    "greater_fail": ("assert_greater", [F, np.float32(1.0)], {}),
    "greater_equal_pass": ("assert_greater_equal", [F, np.float32(1.0)], {}),
    "positive_fail": ("assert_positive", [np.array([1.0, 0.0], np.float32)], {}),
    "negative_pass": ("assert_negative", [np.array([-1.0], np.float32)], {}),
    "non_negative_pass": ("assert_non_negative", [np.array([0.0, 1.0], np.float32)], {}),
    "non_positive_fail": ("assert_non_positive", [np.array([0.5], np.float32)], {}),
    "near_pass": ("assert_near", [F, F + np.float32(1e-6)], {}),
    "near_fail": ("assert_near", [F, F + np.float32(1e-3)], {}),
    "near_tolerances": ("assert_near", [F, F + np.float32(1e-3)], {"atol": 1e-2}),
    "rank_pass": ("assert_rank", [np.zeros((2, 3), np.float32), 2], {}),
    "rank_fail": ("assert_rank", [np.zeros((2, 3), np.float32), 1], {}),
    "rank_at_least_fail": ("assert_rank_at_least", [F, 2], {}),
    "rank_in_pass": ("assert_rank_in", [F, [1, 2]], {}),
    "scalar_fail": ("assert_scalar", [F], {}),
    "type_fail": ("assert_type", [F, "float64"], {}),
    "integer_fail": ("assert_integer", [F], {}),
    "check_numerics_nan": ("check_numerics", [np.array([1.0, np.nan], np.float32), "x"], {}),
    "check_numerics_inf": ("check_numerics", [np.array([np.inf], np.float32), "x"], {}),
    "all_finite_pass": ("assert_all_finite", [F, "x"], {}),
    "shapes_pass": ("assert_shapes", [[(np.zeros((4, 3)), ("N", "Q")), (np.zeros(4), ("N",))]], {}),
    "shapes_fail": ("assert_shapes", [[(np.zeros((4, 3)), ("N", "Q")), (np.zeros(5), ("N",))]], {}),
    "shapes_ellipsis": (
        "assert_shapes",
        [[(np.zeros((2, 4, 3)), ("...", "Q")), (np.zeros(3), ("Q",))]],
        {},
    ),
    "shapes_rank_fail": ("assert_shapes", [[(np.zeros((4, 3)), ("N",))]], {}),
    "shapes_star": (
        "assert_shapes",
        [[(np.zeros((2, 4, 3)), ("*", "Q")), (np.zeros(3), ("Q",))]],
        {},
    ),
    "shapes_star_fail": (
        "assert_shapes",
        [[(np.zeros((2, 4, 3)), ("*", "Q")), (np.zeros(2), ("Q",))]],
        {},
    ),
    "shapes_int": ("assert_shapes", [[(np.zeros((4, 3)), (4, "Q"))]], {}),
}


def main() -> None:
    import tensorflow as tf

    out: dict[str, str] = {}
    for name, (fn, args, kwargs) in CASES.items():
        f = getattr(tf.debugging, fn)
        targs = [
            tf.constant(a) if isinstance(a, np.ndarray) and fn != "assert_shapes" else a
            for a in args
        ]
        if fn == "assert_shapes":
            targs = [[(tf.constant(t), s) for t, s in args[0]]]
        try:
            f(*targs, **kwargs)
            out[name] = "pass"
        except Exception as e:  # noqa: BLE001  (recording which class TF raises)
            out[name] = type(e).__name__
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debugging.json")
    with open(path, "w") as file:
        json.dump(out, file, indent=1, sort_keys=True)
        file.write("\n")
    print(f"wrote {len(out)} outcomes to {path}")


if __name__ == "__main__":
    main()
