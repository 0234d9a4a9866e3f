"""`rt.nest` (the package's `_structure`): flatten / pack_sequence_as as tf.nest does them."""

import collections

import pytest
import rustape as rt
from rustape import nest

Point = collections.namedtuple("Point", ["x", "y"])


def test_flatten_orders_dicts_by_sorted_key():
    s = {"b": 1, "a": [2, (3, None)], "c": Point(4, {"z": 5, "y": 6})}
    assert nest.flatten(s) == [2, 3, None, 1, 4, 6, 5]


def test_leaves():
    assert nest.flatten(None) == [None]
    assert nest.flatten(3) == [3]
    t = rt.constant([1.0, 2.0])
    assert nest.flatten(t)[0] is t
    v = rt.Variable(1.0)
    assert nest.flatten([v])[0] is v
    assert nest.flatten([]) == []
    assert nest.flatten({}) == []


def test_pack_round_trip_keeps_types_and_key_order():
    od = collections.OrderedDict([("q", 1), ("p", 2)])
    s = {"b": [1, (2, None)], "a": Point(3, {"z": 4, "y": 5}), "c": od, "d": ()}
    flat = nest.flatten(s)
    packed = nest.pack_sequence_as(s, [None if v is None else v * 10 for v in flat])
    assert packed == {
        "b": [10, (20, None)],
        "a": Point(30, {"z": 40, "y": 50}),
        "c": collections.OrderedDict([("q", 10), ("p", 20)]),
        "d": (),
    }
    assert isinstance(packed["a"], Point)
    assert list(packed["c"]) == ["q", "p"]
    assert isinstance(packed["b"][1], tuple)


def test_pack_errors():
    with pytest.raises(ValueError):
        nest.pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError):
        nest.pack_sequence_as(1, [1, 2])


def test_map_structure():
    assert nest.map_structure(lambda a, b: a + b, {"x": [1, 2]}, {"x": [10, 20]}) == {"x": [11, 22]}
    with pytest.raises(ValueError):
        nest.map_structure(lambda a, b: a, [1], [1, 2])


def test_deep_nesting_has_no_recursion_limit():
    s = 0
    for _ in range(5000):
        s = [s]
    assert nest.flatten(s) == [0]
    packed = nest.pack_sequence_as(s, [7])
    for _ in range(5000):
        packed = packed[0]
    assert packed == 7


def test_flatten_up_to():
    assert nest.flatten_up_to({"b": 0, "a": [0, 0]}, {"a": [[1, 2], 3], "b": [4]}) == [
        [1, 2],
        3,
        [4],
    ]
    assert nest.flatten_up_to(0, [1, 2]) == [[1, 2]]
    with pytest.raises(ValueError):
        nest.flatten_up_to([0, 0], [1])
    with pytest.raises(ValueError):
        nest.flatten_up_to({"a": 0}, {"b": 1})
