"""Bad arguments of rt.nn's volumetric ops raise a clear ValueError or TypeError naming the op,
the shapes and the dtypes (never a panic)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import rustape as rt

X = rt.ones([1, 3, 4, 4, 2])
F = rt.ones([2, 2, 2, 2, 1])

BAD: list[tuple[str, Callable[[], Any], type, list[str]]] = [
    (
        "rank of the input",
        lambda: rt.nn.conv3d(rt.ones([1, 4, 4, 2]), F, 1, "SAME"),
        ValueError,
        ["conv3d", "rank at least 5", "[1, 4, 4, 2]"],
    ),
    (
        "rank of the filter",
        lambda: rt.nn.conv3d(X, rt.ones([2, 2, 2, 1]), 1, "SAME"),
        ValueError,
        ["conv3d", "rank 5", "[2, 2, 2, 1]"],
    ),
    (
        "channels",
        lambda: rt.nn.conv3d(X, rt.ones([2, 2, 2, 3, 1]), 1, "SAME"),
        ValueError,
        ["conv3d", "[3, 4, 4, 2]", "2 channels", "[2, 2, 2, 3, 1]"],
    ),
    ("zero stride", lambda: rt.nn.conv3d(X, F, [1, 0, 1], "SAME"), ValueError, ["conv3d"]),
    ("negative stride", lambda: rt.nn.conv3d(X, F, -1, "SAME"), ValueError, ["conv3d"]),
    ("stride count", lambda: rt.nn.conv3d(X, F, [1, 2], "SAME"), ValueError, ["conv3d"]),
    (
        "window larger than a VALID input",
        lambda: rt.nn.conv3d(X, rt.ones([4, 1, 1, 2, 1]), 1, "VALID"),
        ValueError,
        ["conv3d", "negative"],
    ),
    (
        "dtypes",
        lambda: rt.nn.conv3d(X, rt.ones([2, 2, 2, 2, 1], dtype="float64"), 1, "SAME"),
        TypeError,
        ["conv3d", "float32", "float64"],
    ),
    (
        "integers",
        lambda: rt.nn.conv3d(
            rt.constant(np.ones([1, 2, 2, 2, 1], np.int32)),
            rt.constant(np.ones([1, 1, 1, 1, 1], np.int32)),
            1,
            "SAME",
        ),
        TypeError,
        ["conv3d", "int32"],
    ),
    (
        "channels first",
        lambda: rt.nn.conv3d(X, F, 1, "SAME", data_format="NCDHW"),
        ValueError,
        ["conv3d", "NCDHW"],
    ),
    (
        "explicit padding pairs",
        lambda: rt.nn.conv3d(X, F, 1, [[1, 1], [0, 0]]),
        ValueError,
        ["conv3d", "3 spatial pairs"],
    ),
    (
        "transpose output shape",
        lambda: rt.nn.conv3d_transpose(X, rt.ones([2, 2, 2, 2, 2]), [1, 3, 9, 9, 2], 1, "SAME"),
        ValueError,
        ["conv3d_transpose", "[1, 3, 9, 9, 2]", "[1, 3, 4, 4, 2]"],
    ),
]


@pytest.mark.parametrize("what, call, kind, words", BAD, ids=[b[0] for b in BAD])
def test_bad_arguments_raise_clear_errors(
    what: str, call: Callable[[], Any], kind: type, words: list[str]
) -> None:
    with pytest.raises(kind) as info:
        call()
    for word in words:
        assert word in str(info.value), f"{what}: {word!r} not in {info.value}"
