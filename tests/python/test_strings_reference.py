"""rt.strings and the dtype-generic ops on string tensors against TensorFlow 2.21
(tests/reference/strings.json, written by gen_strings.py from the calls in
tests/reference/strings_cases.py): the same values, shapes, dtypes and row splits, and an
error where TensorFlow raises one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import rustape as rt

REFERENCE = Path(__file__).resolve().parent.parent / "reference"
sys.path.insert(0, str(REFERENCE))
from strings_cases import CASES

EXPECTED = json.loads((REFERENCE / "strings.json").read_text())


def check(got, want, name):
    if "ragged" in want:
        assert isinstance(got, rt.RaggedTensor), name
        assert got.row_splits.numpy().tolist() == want["row_splits"], name
        check(got.values, want["values"], name)
        return
    assert got.dtype.name == want["dtype"], name
    assert list(got.shape) == want["shape"], name
    values = np.asarray(got.numpy()).reshape(-1)
    if want["dtype"] == "string":
        assert [bytes(v).hex() for v in values] == want["hex"], name
    else:
        np.testing.assert_array_equal(values, np.asarray(want["values"]), err_msg=name)


def test_every_case_has_a_reference():
    assert set(CASES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    want = EXPECTED[name]
    if "error" in want:
        with pytest.raises((ValueError, TypeError)):
            CASES[name](rt)
        return
    check(CASES[name](rt), want, name)
