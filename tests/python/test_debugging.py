"""`rt.debugging` against TensorFlow 2.21 (tests/reference/gen_debugging.py): which checks pass
and which exception each failing one raises (InvalidArgumentError for values, ValueError or
TypeError for shapes, ranks and dtypes); `rt.errors`' classes and codes."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_debugging as gen

with open(os.path.join(HERE, "..", "reference", "debugging.json")) as f:
    REF = json.load(f)


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_outcome_matches_tensorflow(name):
    fn, args, kwargs = gen.CASES[name]
    f = getattr(rt.debugging, fn)
    if fn == "assert_shapes":
        args = [[(rt.constant(t), s) for t, s in args[0]]]
    else:
        args = [rt.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    try:
        f(*args, **kwargs)
        outcome = "pass"
    except (ValueError, TypeError) as e:
        outcome = type(e).__name__
    assert outcome == REF[name]


def test_errors_are_tensorflows_classes_and_pythons():
    with pytest.raises(rt.errors.InvalidArgumentError, match="Condition x < y did not hold"):
        rt.assert_less(rt.constant([1.0, 5.0]), 3.0, message="too big")
    with pytest.raises(ValueError, match="too big"):
        rt.debugging.assert_less([1.0, 5.0], 3.0, message="too big")
    with pytest.raises(rt.errors.InvalidArgumentError, match="Tensor had NaN values"):
        rt.debugging.check_numerics(rt.constant([np.nan]), "loss")
    err = rt.errors.InvalidArgumentError(None, None, "bad")
    assert err.error_code == rt.errors.INVALID_ARGUMENT == 3 and err.message == "bad"
    assert issubclass(rt.errors.ResourceExhaustedError, MemoryError)
    assert issubclass(rt.errors.UnimplementedError, NotImplementedError)
    with pytest.raises(rt.errors.InvalidArgumentError, match="assertion failed"):
        rt.debugging.Assert(rt.constant(False), ["x was", rt.constant([1, 2])])
    assert rt.assert_equal is rt.debugging.assert_equal
    assert rt.debugging.assert_same_float_dtype([rt.constant(1.0)]) == rt.float32
    with pytest.raises(ValueError, match="floating"):
        rt.debugging.assert_same_float_dtype([rt.constant(1.0), rt.constant(1.0, rt.float64)])
