"""rt.strings forward cases (strings have no gradient): each op against Python's own string
methods on bytes. TensorFlow's values are in test_strings_reference.py."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import rustape as rt

WORDS = ["Hello, World", "", " a\tb ", "x1y22"]
B = [w.encode() for w in WORDS]


def objects(items: list[Any]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


FORWARD: dict[str, tuple[Any, ...]] = {
    "lower": (rt.strings.lower, [WORDS], lambda x: objects([b.lower() for b in B])),
    "upper": (rt.strings.upper, [WORDS], lambda x: objects([b.upper() for b in B])),
    "strip": (rt.strings.strip, [WORDS], lambda x: objects([b.strip() for b in B])),
    "length": (rt.strings.length, [WORDS], lambda x: np.array([len(b) for b in B], np.int32)),
    "substr": (
        lambda x: rt.strings.substr(x, 0, 3),
        [WORDS],
        lambda x: objects([b[:3] for b in B]),
    ),
    "join": (
        lambda x: rt.strings.join([x, x], separator="+"),
        [WORDS],
        lambda x: objects([b + b"+" + b for b in B]),
    ),
    "reduce_join": (
        lambda x: rt.strings.reduce_join(x, separator="|"),
        [WORDS],
        lambda x: np.array(b"|".join(B)),
    ),
    "regex_full_match": (
        lambda x: rt.strings.regex_full_match(x, r"[a-z0-9]+"),
        [WORDS],
        lambda x: np.array([re.fullmatch(rb"[a-z0-9]+", b) is not None for b in B]),
    ),
    "regex_replace": (
        lambda x: rt.strings.regex_replace(x, r"\d", "#"),
        [WORDS],
        lambda x: objects([re.sub(rb"\d", b"#", b) for b in B]),
    ),
    "split": (
        lambda x: rt.strings.split(x).to_tensor(),
        [["a b", "c"]],
        lambda x: np.array([[b"a", b"b"], [b"c", b""]], dtype=object),
    ),
    "bytes_split": (
        lambda x: rt.strings.bytes_split(x),
        ["abc"],
        lambda x: objects([b"a", b"b", b"c"]),
    ),
    "unicode_split": (
        lambda x: rt.strings.unicode_split(x),
        ["hé"],
        lambda x: objects([b"h", "é".encode()]),
    ),
    "to_number": (
        lambda x: rt.strings.to_number(x, out_type=rt.float64),
        [["1.5", "-2", "1e3"]],
        lambda x: np.array([1.5, -2.0, 1000.0]),
    ),
    "as_string": (
        rt.strings.as_string,
        [[1, -2, 30]],
        lambda x: objects([b"1", b"-2", b"30"]),
    ),
    "to_hash_bucket_fast": (
        # the buckets themselves are TensorFlow's (test_strings_reference.py)
        lambda x: rt.strings.to_hash_bucket_fast(x, 7) < 7,
        [WORDS],
        lambda x: np.ones(len(WORDS), dtype=bool),
    ),
}
