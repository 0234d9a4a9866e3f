"""`rt.data` against TensorFlow 2.21's `tf.data` (tests/reference/gen_data.py): each
pipeline's elements (values, dtypes, shapes, structure), cardinality and element spec; folds
with `reduce`; and Keras's `fit` / `evaluate` / `predict` reading datasets."""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_data

with open(os.path.join(HERE, "..", "reference", "data.json")) as f:
    REFERENCE = json.load(f)

#: Cases whose element spec TensorFlow derives by tracing a function, where a dimension that
#: varies from element to element reads None; rustape reads the spec off the first element.
SPEC_FROM_FIRST_ELEMENT = {
    "bucket_by_length",
    "bucket_drop_no_padding",
    "bucket_to_boundary",
    "group_by_window",
    "group_by_window_sizes",
    "padded",
    "padded_drop",
    "padded_tuple",
    "padded_2d_float",
    "padded_dict",
    "window",
    "window_stride_drop",
    "window_long_shift",
    "window_tuple",
    "window_cardinality",
}


def _same(expected: Any, got: Any, where: str) -> None:
    if "dict" in expected:
        assert "dict" in got and list(got["dict"]) == list(expected["dict"]), where
        for k in expected["dict"]:
            _same(expected["dict"][k], got["dict"][k], f"{where}[{k!r}]")
    elif "tuple" in expected:
        assert "tuple" in got and len(got["tuple"]) == len(expected["tuple"]), where
        for i, (e, g) in enumerate(zip(expected["tuple"], got["tuple"])):
            _same(e, g, f"{where}[{i}]")
    else:
        assert got["dtype"] == expected["dtype"], where
        assert got["shape"] == expected["shape"], where
        if expected["dtype"].startswith("float"):
            np.testing.assert_allclose(got["values"], expected["values"], rtol=2e-6, err_msg=where)
        else:
            assert got["values"] == expected["values"], where


@pytest.mark.parametrize("name", sorted(gen_data.CASES))
def test_pipeline_matches_tensorflow(name: str) -> None:
    expected = REFERENCE["cases"][name]
    got = gen_data.run_case(rt, name)
    assert len(got["elements"]) == len(expected["elements"])
    for i, (e, g) in enumerate(zip(expected["elements"], got["elements"])):
        _same(e, g, f"{name} element {i}")
    assert got["cardinality"] == expected["cardinality"]
    if name not in SPEC_FROM_FIRST_ELEMENT:
        assert got["spec"] == expected["spec"]


def test_every_case_has_reference() -> None:
    assert sorted(REFERENCE["cases"]) == sorted(gen_data.CASES)


@pytest.mark.parametrize("name", sorted(gen_data.REDUCTIONS))
def test_reduce_matches_tensorflow(name: str) -> None:
    result = gen_data.REDUCTIONS[name](rt)
    got = gen_data._record(
        tuple(np.asarray(r) for r in result) if isinstance(result, tuple) else np.asarray(result)
    )
    _same(REFERENCE["reductions"][name], got, name)


def test_fit_on_datasets_matches_keras() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = gen_data.fit_run(rt, rt.keras)
    expected = REFERENCE["fit"]
    assert sorted(got) == sorted(expected)
    for key, leaf in expected.items():
        value = np.asarray(got[key], np.float32)
        assert list(value.shape) == leaf["shape"], key
        np.testing.assert_allclose(value.ravel(), leaf["values"], rtol=2e-5, atol=2e-6, err_msg=key)


def _same_datasets(expected: list[Any], got: list[Any], name: str) -> None:
    assert len(got) == len(expected), name
    for d, (e_elements, g_elements) in enumerate(zip(expected, got)):
        assert len(g_elements) == len(e_elements), f"{name} dataset {d}"
        for i, (e, g) in enumerate(zip(e_elements, g_elements)):
            _same(e, g, f"{name} dataset {d} element {i}")


@pytest.mark.parametrize("name", sorted(gen_data.UTILS))
def test_keras_dataset_utils_match_keras(name: str) -> None:
    _same_datasets(REFERENCE["utils"][name], gen_data.run_utils(rt, rt.keras, name), name)


@pytest.mark.parametrize("name", sorted(gen_data.SPLITS))
def test_split_of_datasets_matches_keras(name: str) -> None:
    _same_datasets(REFERENCE["splits"][name], gen_data.run_split(rt, rt.keras, name), name)
