"""Reference values of TensorFlow 2.21's integer and saturating ops (`tf.bitwise.*`,
`tf.math.nextafter`, `tf.dtypes.saturate_cast`, `tf.math.segment_prod`,
`tf.math.unsorted_segment_prod`) and Keras 3's `keras.ops` `bitwise_*`, shifts, `gcd`, `lcm`,
`nextafter`, `saturate_cast`, `argpartition` and `segment_prod`, over int32 and int64 (the
integer dtypes rustape has), with broadcasting and edge values (the extremes, negative and
oversized shift counts, zeros for gcd/lcm).

Run with TensorFlow's venv (see README.md); writes int_ops.npz beside this file. `CASES` (the
inputs and arguments) is imported by the test, which calls rustape's function of the same name
and compares every output exactly (floats to the bit). `GRAD_CASES` store TensorFlow's gradient
of `sum(f(*args) * weights(f(*args)))` with respect to the float arguments named by position.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64
_rng = np.random.default_rng(11)


def _ints(dtype: Any, shape: tuple[int, ...], lo: int = -1000, hi: int = 1000) -> np.ndarray:
    return _rng.integers(lo, hi, size=shape).astype(dtype)


def _edges(dtype: Any) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.array([info.min, info.min + 1, -7, -1, 0, 1, 6, info.max - 1, info.max], dtype)


# Shift counts: negative, 0, ordinary, width - 1, width, beyond.
def _counts(dtype: Any) -> np.ndarray:
    bits = np.iinfo(dtype).bits
    return np.array([-5, -1, 0, 3, bits - 1, bits, bits + 7, 100, 1], dtype)


CASES: list[tuple[str, list[Any], dict[str, Any]]] = []
for _dt in (I32, I64):
    for _op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        CASES += [
            (f"bitwise.{_op}", [_edges(_dt), _edges(_dt)[::-1].copy()], {}),
            (f"bitwise.{_op}", [_ints(_dt, (2, 3, 4)), _ints(_dt, (3, 1))], {}),
            (f"ops.{_op}", [_ints(_dt, (2, 5)), _ints(_dt, (5,))], {}),
        ]
    CASES += [
        ("bitwise.invert", [_edges(_dt)], {}),
        ("bitwise.invert", [_ints(_dt, (3, 4))], {}),
        ("ops.bitwise_invert", [_edges(_dt)], {}),
        ("ops.bitwise_not", [_ints(_dt, (2, 3))], {}),
    ]
    for _op in ("left_shift", "right_shift"):
        _x = np.resize(_edges(_dt), 9).astype(_dt)
        CASES += [
            (f"bitwise.{_op}", [_x, _counts(_dt)], {}),
            (f"bitwise.{_op}", [_x.reshape(9, 1), _counts(_dt)], {}),
            (f"bitwise.{_op}", [_ints(_dt, (2, 4)), np.array([0, 1, 2, 3], _dt)], {}),
            (f"ops.bitwise_{_op}", [_ints(_dt, (2, 4)), 3], {}),
            (f"ops.bitwise_{_op}", [_x, _counts(_dt)], {}),
            (f"ops.{_op}", [_ints(_dt, (4,)), np.array([1, 2, 3, 4], _dt)], {}),
        ]
    CASES += [
        ("ops.gcd", [_edges(_dt), _edges(_dt)[::-1].copy()], {}),
        (
            "ops.gcd",
            [np.array([0, 0, 12, -12, 12, 7, 1], _dt), np.array([0, 5, 18, 18, -18, 0, 1], _dt)],
            {},
        ),
        ("ops.gcd", [_ints(_dt, (3, 4), -60, 60), _ints(_dt, (4,), -60, 60)], {}),
        ("ops.lcm", [np.array([0, 4, -4, 6, 21, 1], _dt), np.array([0, 6, 6, -4, 6, 0], _dt)], {}),
        ("ops.lcm", [_ints(_dt, (3, 4), -60, 60), _ints(_dt, (3, 1), -60, 60)], {}),
        ("ops.lcm", [_edges(_dt), np.resize(np.array([1, 2, 3], _dt), 9).astype(_dt)], {}),
    ]
CASES += [
    ("ops.gcd", [_ints(I32, (5,), -50, 50), _ints(I64, (5,), -50, 50)], {}),
    ("ops.bitwise_and", [_ints(I32, (4,)), _ints(I64, (4,))], {}),
    # argpartition: non-negative distinct values (Keras's TensorFlow backend casts to int32
    # and masks the chosen ones with zeros, so only these partitions are well defined there)
    ("ops.argpartition", [np.array([3, 1, 2, 5, 4, 0], I32), 2], {}),
    ("ops.argpartition", [np.array([3, 1, 2, 5, 4, 0], I32), 0], {}),
    ("ops.argpartition", [np.array([3, 1, 2, 5, 4, 0], I32), 5], {}),
    ("ops.argpartition", [_rng.permutation(12).astype(I64) + 1, 4], {}),
    # (not rank 2 along an axis: Keras's backend sums its mask over the wrong axis and repeats
    # positions; test_int_ops.py checks rustape's partitions there against NumPy's definition)
    ("ops.argpartition", [(_rng.permutation(12) + 1).reshape(3, 4).astype(I32), 6], {"axis": None}),
    # nextafter
    (
        "math.nextafter",
        [
            np.array([0.0, 0.0, 1.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.0, 5e-324], F64),
            np.array([1.0, -1.0, 2.0, 0.0, -np.inf, 0.0, np.inf, 1.0, 3.0, 0.0], F64),
        ],
        {},
    ),
    (
        "math.nextafter",
        [
            np.array([0.0, 1.0, 1.0, -1.0, 3.4028235e38, np.inf, 1e-45], F32),
            np.array([1.0, 2.0, 0.0, -np.inf, np.inf, 0.0, 0.0], F32),
        ],
        {},
    ),
    (
        "math.nextafter",
        [_rng.normal(size=(2, 3)).astype(F32), np.array([0.0, 10.0, -10.0], F32)],
        {},
    ),
    ("ops.nextafter", [np.array([0.0, 1.0, -2.0], F64), np.array([1.0, 2.0, -3.0], F64)], {}),
    ("ops.nextafter", [np.array([0.0, 1.0, -2.0], F32), np.array([1.0, 2.0, -3.0], F32)], {}),
    ("ops.nextafter", [np.array([0, 1, -2], I32), np.array([1, 2, -3], I32)], {}),
    # segment products
    (
        "math.unsorted_segment_prod",
        [_rng.normal(size=(6, 2)).astype(F32), np.array([1, 0, 1, -1, 3, 1], I32), 4],
        {},
    ),
    (
        "math.unsorted_segment_prod",
        [_ints(I32, (5, 3), -4, 5), np.array([2, 0, 2, 2, 0], I64), 3],
        {},
    ),
    (
        "math.unsorted_segment_prod",
        [_rng.normal(size=(2, 3, 2)), np.array([[0, 1, 0], [1, 1, 2]], I32), 3],
        {},
    ),
    ("math.segment_prod", [_rng.normal(size=(5, 2)), np.array([0, 0, 1, 3, 3], I32)], {}),
    ("math.segment_prod", [_ints(I64, (4,), -9, 9), np.array([0, 2, 2, 2], I64)], {}),
    ("ops.segment_prod", [_rng.normal(size=(5,)).astype(F32), np.array([0, 2, 0, 1, 2], I32)], {}),
    (
        "ops.segment_prod",
        [_rng.normal(size=(5, 2)).astype(F32), np.array([0, 2, 0, 1, 2], I32)],
        {"num_segments": 4},
    ),
    (
        "ops.segment_prod",
        [_rng.normal(size=(4,)).astype(F32), np.array([0, 0, 1, 1], I32)],
        {"sorted": True},
    ),
]

# saturate_cast: every (input, output) pair rustape has, except int64 inputs (TensorFlow's
# Python wrapper overflows computing their bounds) and NaN into integers (the cast's undefined
# behaviour); those are tested against their definition in the test.
_SAT_IN = {
    "float32": np.array(
        [
            -np.inf,
            -3e38,
            -1e19,
            -3e9,
            -2.5,
            -0.5,
            0.0,
            0.7,
            1e5,
            2147483520.0,
            2147483647.0,
            3e9,
            9.2e18,
            3e38,
            np.inf,
        ],
        F32,
    ),
    "float64": np.array(
        [
            -np.inf,
            -1e300,
            -1e19,
            -3e9,
            -2.5,
            0.7,
            2147483647.0,
            2147483648.0,
            3e9,
            9.2e18,
            3.5e38,
            1e300,
            np.inf,
        ],
        F64,
    ),
    "int32": np.array([-(2**31), -300, -1, 0, 1, 255, 2**31 - 1], I32),
}
# Where a reference is undefined, the values are left out (test_int_ops.py checks rustape's
# definition there): floats at 2^63 and above into int64 (both clamp to 2^63, whose cast is
# undefined); Keras's float32 bound for int32 (it compares in float32, keeps 2^31 and casts it);
# Keras's int32 into floats (its bound overflows int32, clamping everything to the minimum).
for _in, _v in _SAT_IN.items():
    for _out in ("float32", "float64", "int32", "int64", "complex64", "complex128"):
        _tf = _v[~(_v >= 9.2e18)] if _out == "int64" else _v
        CASES.append(("saturate_cast", [_tf, _out], {}))
        if _in == "int32" and _out not in ("int32", "int64"):
            continue
        _keras = _tf[~(_tf >= 2147483647.0)] if (_in, _out) == ("float32", "int32") else _tf
        CASES.append(("ops.saturate_cast", [_keras, _out], {}))
CASES += [
    ("saturate_cast", [np.array([np.nan, 1.0], F32), "float64"], {}),
    ("saturate_cast", [np.array([np.nan, 1e300], F64), "float32"], {}),
    ("saturate_cast", [np.array([1e300 - 1e300j, np.inf + 2j, 3 + 4j]), "complex64"], {}),
    ("saturate_cast", [np.array([1e300 - 1e300j, np.inf + 2j, 3 + 4j]), "float32"], {}),
    ("saturate_cast", [np.array([1e300 - 1e300j, -np.inf + 2j, 3 + 4j]), "int32"], {}),
    ("saturate_cast", [np.array([-(2**40), -(2**31) - 1, -5, 2**31, 2**40], I64), "int32"], {}),
    ("ops.saturate_cast", [np.array([-(2**40), -(2**31) - 1, -5, 2**31, 2**40], I64), "int32"], {}),
    ("ops.saturate_cast", [np.array([-3.0, 0.0, 0.5, 7.0], F32), "bool"], {}),
]

GRAD_CASES: list[tuple[str, list[Any], dict[str, Any], list[int]]] = [
    (
        "math.unsorted_segment_prod",
        [_rng.normal(size=(6, 2)), np.array([1, 0, 1, -1, 3, 1], I32), 4],
        {},
        [0],
    ),
    # one zero in a segment, two zeros in another
    (
        "math.unsorted_segment_prod",
        [np.array([2.0, 0.0, 3.0, 0.0, 0.0, 5.0, 1.5]), np.array([0, 0, 0, 1, 1, 1, 2], I32), 3],
        {},
        [0],
    ),
    (
        "math.unsorted_segment_prod",
        [np.array([[2.0, 0.0], [3.0, 4.0], [0.0, 0.5]], F32), np.array([0, 0, 1], I64), 2],
        {},
        [0],
    ),
    (
        "math.segment_prod",
        [np.array([2.0, 0.0, 3.0, -1.5, 0.0, 0.0, 4.0]), np.array([0, 0, 0, 1, 2, 2, 3], I32)],
        {},
        [0],
    ),
    ("math.segment_prod", [_rng.normal(size=(5, 3)), np.array([0, 0, 1, 1, 1], I32)], {}, [0]),
    ("math.nextafter", [_rng.normal(size=(2, 3)), _rng.normal(size=(3,))], {}, [0, 1]),
    ("saturate_cast", [np.array([-3e9, 1.0, 3e9, 5.0, -1e300, 1e300]), "float32"], {}, [0]),
    ("saturate_cast", [np.array([-3e38, 1.0, 3e38, 5.0], F32), "float64"], {}, [0]),
    ("ops.segment_prod", [_rng.normal(size=(5,)), np.array([0, 2, 0, 1, 2], I32)], {}, [0]),
]


def weights(shape: tuple[int, ...]) -> np.ndarray:
    """The fixed cotangent of a gradient case: 1, 2, 3, ... over the output."""
    return (np.arange(int(np.prod(shape))) + 1.0).reshape(shape)


def call(tf: Any, ops: Any, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`name` from keras.ops ("ops."), tf.bitwise, tf.math, or tf.saturate_cast."""
    if name.startswith("ops."):
        return getattr(ops, name[4:])(*args, **kwargs)
    # Arrays as tensors of their own dtype (a generated op may read a float64 array as float32).
    args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    if name == "saturate_cast":
        return tf.saturate_cast(*args, **kwargs)
    module, fn = name.split(".")
    return getattr(getattr(tf, module), fn)(*args, **kwargs)


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for i, (name, args, kwargs) in enumerate(CASES):
        out[f"{i}"] = np.asarray(call(tf, keras.ops, name, args, kwargs))
    for i, (name, args, kwargs, wrt) in enumerate(GRAD_CASES):
        tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
        with tf.GradientTape() as tape:
            for k in wrt:
                tape.watch(tensors[k])
            y = call(tf, keras.ops, name, tensors, kwargs)
            w = tf.constant(weights(tuple(y.shape)), dtype=y.dtype)
            loss = tf.reduce_sum(y * w)
        grads = tape.gradient(loss, [tensors[k] for k in wrt])
        out[f"g{i}/value"] = np.asarray(y)
        for k, g in zip(wrt, grads):
            out[f"g{i}/{k}"] = np.asarray(g)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "int_ops.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
