"""The `tf.strings` calls gen_strings.py runs on TensorFlow and test_strings_reference.py on
rustape: `CASES[name](lib)` with `lib` either `tf` or `rt` (both spell these calls alike)."""

from __future__ import annotations

from typing import Any, Callable

WORDS = ["Hello, World!", "", "  padded\t\n", "ÀÉÎ õü ß", "a", "MiXeD 123 x", "tab\tsep  spaces"]
HASHED = [
    "",
    "a",
    "ab",
    "abc",
    "abcd",
    "hello",
    "12345678",
    "hello world!",
    "0123456789abcdef",
    "0123456789abcdefg",
    "x" * 31,
    "y" * 32,
    "z" * 33,
    "the quick brown fox jumps over the lazy dog",
    "w" * 64,
    "v" * 65,
    "pack my box with five dozen liquor jugs, " * 3,
    "u" * 128,
    "t" * 129,
    "naïve café ünïcode",
    "s" * 1000,
]
GRID = [["ab", "cd", ""], ["é", "f", "ghi"]]

CASES: dict[str, Callable[[Any], Any]] = {
    "lower": lambda lib: lib.strings.lower(WORDS),
    "lower_utf8": lambda lib: lib.strings.lower(WORDS, encoding="utf-8"),
    "upper": lambda lib: lib.strings.upper(WORDS),
    "upper_utf8": lambda lib: lib.strings.upper(WORDS, encoding="utf-8"),
    "strip": lambda lib: lib.strings.strip(WORDS),
    "length_byte": lambda lib: lib.strings.length(WORDS),
    "length_char": lambda lib: lib.strings.length(WORDS, unit="UTF8_CHAR"),
    "length_grid": lambda lib: lib.strings.length(GRID),
    "substr": lambda lib: lib.strings.substr(["hello", "hi", "abc"], 1, 3),
    "substr_neg": lambda lib: lib.strings.substr(["hello", "abc"], -2, 5),
    "substr_zero_len": lambda lib: lib.strings.substr(["hello"], 2, 0),
    "substr_end": lambda lib: lib.strings.substr(["hello"], 5, 2),
    "substr_char": lambda lib: lib.strings.substr(["héllo", "ñaña"], 1, 2, unit="UTF8_CHAR"),
    "substr_out_of_range": lambda lib: lib.strings.substr(["hi"], 3, 1),
    "join": lambda lib: lib.strings.join([["a", "b"], ["c", "d"]], separator="-"),
    "join_broadcast": lambda lib: lib.strings.join([GRID, "!"]),
    "reduce_join_all": lambda lib: lib.strings.reduce_join(GRID),
    "reduce_join_0": lambda lib: lib.strings.reduce_join(GRID, axis=0, separator="|"),
    "reduce_join_1": lambda lib: lib.strings.reduce_join(GRID, axis=1, separator=" "),
    "reduce_join_neg_keep": lambda lib: lib.strings.reduce_join(GRID, axis=-1, keepdims=True),
    "regex_full_match": lambda lib: lib.strings.regex_full_match(WORDS, r"[a-zA-Z ,!]*"),
    "regex_full_match_digits": lambda lib: lib.strings.regex_full_match(["123", "12a", ""], r"\d+"),
    "regex_replace_punct": lambda lib: lib.strings.regex_replace(
        WORDS, r"[!\"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~']", ""
    ),
    "regex_replace_groups": lambda lib: lib.strings.regex_replace(
        ["a1b22c333", "none"], r"(\d)(\d*)", r"<\2|\1>"
    ),
    "regex_replace_first": lambda lib: lib.strings.regex_replace(
        ["aaa", "bab"], "a", "X", replace_global=False
    ),
    "regex_replace_dollar": lambda lib: lib.strings.regex_replace(["cost"], "cost", "$5"),
    "regex_replace_empty_match": lambda lib: lib.strings.regex_replace(["abc"], "x*", "-"),
    "split_scalar": lambda lib: lib.strings.split("  hello   big\tworld "),
    "split_empty_scalar": lambda lib: lib.strings.split(""),
    "split_sep": lambda lib: lib.strings.split("a,,b,", sep=","),
    "split_sep_multi": lambda lib: lib.strings.split("a<>b<><>c", sep="<>"),
    "split_maxsplit": lambda lib: lib.strings.split("a b c d", maxsplit=2),
    "split_sep_maxsplit": lambda lib: lib.strings.split("a,b,c,d", sep=",", maxsplit=1),
    "split_vector": lambda lib: lib.strings.split(WORDS),
    "split_vector_sep": lambda lib: lib.strings.split(["a,b", "", "c"], sep=","),
    "bytes_split": lambda lib: lib.strings.bytes_split("abc"),
    "bytes_split_vector": lambda lib: lib.strings.bytes_split(["ab", "", "é"]),
    "unicode_split": lambda lib: lib.strings.unicode_split(["héllo", "", "ñ"], "UTF-8"),
    "to_number_float": lambda lib: lib.strings.to_number(["1.5", "-2", "3e2", "0.1", "inf"]),
    "to_number_f64": lambda lib: lib.strings.to_number(["0.1", "-1e-300"], out_type="float64"),
    "to_number_int": lambda lib: lib.strings.to_number(["12", "-7"], out_type="int32"),
    "to_number_int64": lambda lib: lib.strings.to_number(["9000000000"], out_type="int64"),
    "to_number_bad": lambda lib: lib.strings.to_number(["abc"]),
    "to_number_bad_int": lambda lib: lib.strings.to_number(["1.5"], out_type="int32"),
    "as_string_int": lambda lib: lib.strings.as_string([1, -20, 300]),
    "as_string_float": lambda lib: lib.strings.as_string([1.5, -0.25, 1e10, 3.14159265]),
    "as_string_precision": lambda lib: lib.strings.as_string([1.5, 2.0, -0.125], precision=2),
    "as_string_bool": lambda lib: lib.strings.as_string([True, False]),
    "hash_fast_10": lambda lib: lib.strings.to_hash_bucket_fast(HASHED, 10),
    "hash_fast_1000": lambda lib: lib.strings.to_hash_bucket_fast(HASHED, 1000),
    "hash_fast_big": lambda lib: lib.strings.to_hash_bucket_fast(HASHED, 2**62 + 1),
    "hash_fast_one": lambda lib: lib.strings.to_hash_bucket_fast(HASHED, 1),
    # dtype-generic ops on strings
    "reshape": lambda lib: lib.reshape(lib.constant(GRID), [3, 2]),
    "transpose": lambda lib: lib.transpose(lib.constant(GRID)),
    "concat": lambda lib: lib.concat([lib.constant(GRID), lib.constant(GRID)], axis=1),
    "stack": lambda lib: lib.stack([lib.constant(["a", "b"]), lib.constant(["c", "d"])]),
    "gather": lambda lib: lib.gather(lib.constant(WORDS), [3, 0, 0]),
    "tile": lambda lib: lib.tile(lib.constant(["a", "b"]), [3]),
    "expand_squeeze": lambda lib: lib.squeeze(lib.expand_dims(lib.constant(["a"]), 0)),
    "slice": lambda lib: lib.constant(GRID)[:, 1:],
    "boolean_mask": lambda lib: lib.boolean_mask(
        lib.constant(["a", "b", "c"]), [True, False, True]
    ),
    "where": lambda lib: lib.where(
        [True, False], lib.constant(["a", "b"]), lib.constant(["c", "d"])
    ),
    "equal": lambda lib: lib.equal(lib.constant(["a", "b", ""]), lib.constant(["a", "c", ""])),
    "not_equal": lambda lib: lib.not_equal(lib.constant(["a", "b"]), "a"),
    "unique": lambda lib: lib.unique(lib.constant(["b", "a", "b", "c", "a"]))[0],
    "unique_idx": lambda lib: lib.unique(lib.constant(["b", "a", "b", "c", "a"]))[1],
}
