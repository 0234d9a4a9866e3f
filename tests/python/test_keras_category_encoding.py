"""`rt.keras.layers.CategoryEncoding` against Keras 3 (tests/reference/gen_category_encoding.py):
every mode on tokens of rank 0 to 2, weighted counts, dtypes; errors for bad tokens."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_category_encoding

REF = np.load(os.path.join(HERE, "..", "reference", "category_encoding.npz"), allow_pickle=False)
OURS = gen_category_encoding.run(rt.keras)


@pytest.mark.parametrize("key", sorted(REF.files))
def test_matches_keras(key: str) -> None:
    assert OURS[key].shape == REF[key].shape and OURS[key].dtype == REF[key].dtype, key
    np.testing.assert_array_equal(OURS[key], REF[key])


def test_every_case_has_a_reference() -> None:
    assert sorted(OURS) == sorted(REF.files)


def test_shapes_and_errors() -> None:
    layer = rt.keras.layers.CategoryEncoding(num_tokens=3, output_mode="multi_hot")
    assert layer.compute_output_shape((None, 5)) == (None, 3)
    with pytest.raises(ValueError, match=r"tokens in \[0, 3\)"):
        layer(rt.constant([[0, 3]]))
    with pytest.raises(ValueError, match="count_weights"):
        layer(rt.constant([[0, 1]]), count_weights=rt.constant([[1.0, 1.0]]))
    with pytest.raises(TypeError, match="int32 or int64"):
        layer(rt.constant([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="num_tokens"):
        rt.keras.layers.CategoryEncoding()
    with pytest.raises(ValueError, match="output_mode"):
        rt.keras.layers.CategoryEncoding(3, output_mode="tf_idf")
    one_hot = rt.keras.layers.CategoryEncoding(num_tokens=3, output_mode="one_hot")
    assert one_hot(rt.constant([5, -1])).numpy().tolist() == [[0.0] * 3] * 2  # out of range: zeros
