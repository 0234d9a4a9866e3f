"""rt.string tensors: conversion in and out (TensorFlow's forms), the dtype-generic ops, and
a clear TypeError naming the op and the dtype from every numeric op."""

from __future__ import annotations

import numpy as np
import pytest
import rustape as rt


def test_scalars_lists_and_numpy_arrays_convert():
    s = rt.constant("héllo")
    assert s.dtype == rt.string and s.shape == () and s.numpy() == "héllo".encode()
    v = rt.constant([b"x", "y"])
    assert v.dtype is rt.string and v.shape == (2,)
    assert v.numpy().dtype == object and v.numpy().tolist() == [b"x", b"y"]
    for array in (
        np.array([["a", "bc"], ["", "d"]]),
        np.array([[b"a", b"bc"], [b"", b"d"]]),
        np.array([["a", b"bc"], ["", "d"]], dtype=object),
    ):
        t = rt.convert_to_tensor(array)
        assert t.shape == (2, 2)
        assert t.numpy().tolist() == [[b"a", b"bc"], [b"", b"d"]]
    assert rt.constant(np.str_("z")).numpy() == b"z"
    assert rt.constant([[]], dtype=rt.string).shape == (1, 0)


def test_repr_and_dtype_names():
    assert "dtype=string" in repr(rt.constant(["a"]))
    assert rt.as_dtype("string") is rt.string
    assert rt.as_dtype(str) is rt.string and rt.as_dtype(bytes) is rt.string
    assert rt.zeros([2], rt.string).numpy().tolist() == [b"", b""]


def test_mixed_or_wrong_elements_are_errors():
    with pytest.raises(TypeError, match="str or bytes"):
        rt.constant(["a", 1])
    with pytest.raises(TypeError, match="float32"):
        rt.constant("a", dtype=rt.float32)
    with pytest.raises(TypeError, match="string"):
        rt.constant(1.5, dtype=rt.string)


@pytest.mark.parametrize(
    "op",
    [
        lambda s: s + s,
        lambda s: rt.add(s, s),
        lambda s: rt.reduce_sum(s),
        lambda s: rt.exp(s),
        lambda s: rt.matmul(s, s),
        lambda s: rt.cast(s, rt.float32),
        lambda s: rt.argmax(s),
        lambda s: rt.sort(s),
        lambda s: rt.one_hot(s, 3),
        lambda s: rt.strings.as_string(s),
        lambda s: rt.strings.lower(rt.constant([1.0])),
    ],
)
def test_numeric_ops_refuse_strings(op):
    s = rt.constant([["a", "b"], ["c", "d"]])
    with pytest.raises(TypeError, match="string|float32"):
        op(s)


def test_shape_ops_and_indexing():
    g = rt.constant([["a", "b", "c"], ["d", "e", "f"]])
    assert g[1, ::-1].numpy().tolist() == [b"f", b"e", b"d"]
    assert g[:, 1].numpy().tolist() == [b"b", b"e"]
    assert rt.boolean_mask(g, [[True, False, True], [False, True, False]]).numpy().tolist() == [
        b"a",
        b"c",
        b"e",
    ]
    assert rt.pad(rt.constant(["a"]), [[1, 1]]).numpy().tolist() == [b"", b"a", b""]
    assert rt.reverse(rt.constant(["a", "b"]), [0]).numpy().tolist() == [b"b", b"a"]
    values, idx = rt.unique(rt.constant(["b", "a", "b"]))
    assert values.numpy().tolist() == [b"b", b"a"] and idx.numpy().tolist() == [0, 1, 0]
    assert (rt.constant(["a", "b"]) == "a").numpy().tolist() == [True, False]


def test_strings_are_never_watched_or_differentiated():
    s = rt.constant(["a"])
    with rt.GradientTape() as tape:
        tape.watch(s)
        y = rt.strings.length(s)
    assert tape.gradient(y, s) is None


def test_no_buffer_or_dlpack_export():
    s = rt.constant(["a"])
    with pytest.raises(BufferError):
        memoryview(s)
    with pytest.raises(BufferError):
        s.__dlpack__()


def test_ragged_tensor():
    r = rt.strings.split(["a b c", "", "d"])
    assert r.shape.as_list() == [3, None]
    assert r.row_lengths().numpy().tolist() == [3, 0, 1]
    assert r[0].numpy().tolist() == [b"a", b"b", b"c"] and r[-1].numpy().tolist() == [b"d"]
    assert r[1:].to_list() == [[], [b"d"]]
    assert r.to_tensor(default_value="?", shape=[3, 2]).numpy().tolist() == [
        [b"a", b"b"],
        [b"?", b"?"],
        [b"d", b"?"],
    ]
    with pytest.raises(ValueError, match="row_splits"):
        rt.RaggedTensor.from_row_splits([1, 2], [0, 3])
    with pytest.raises(ValueError, match="scalar or a vector"):
        rt.strings.split([["a"]])


def test_as_string_precision_is_bounded():
    assert rt.strings.as_string([0.5], precision=3).numpy().tolist() == [b"0.500"]
    with pytest.raises(ValueError, match="precision"):
        rt.strings.as_string([0.5], precision=2**31 - 1)
