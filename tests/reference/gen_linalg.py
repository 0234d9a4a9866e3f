"""Reference values for `rt.linalg` from TensorFlow 2.21: forward outputs, first-order and
second-order gradients of each factorisation and matrix function on fixed inputs.

Run under TensorFlow (see README.md); writes `linalg.json` beside itself. The tests
(tests/linalg_reference.rs, tests/python/test_linalg_reference.py) rebuild each loss from the
case's description and never import TensorFlow.

Each case: `op` and `attrs` name the call; `inputs` (float64 or float32 arrays); `outputs`
(TensorFlow's results); the loss is `sum_k sum(weights[k] * h_k(outputs[k]))` over the outputs
that have `weights`, where `h_k` is the identity, or the square for outputs whose sign
TensorFlow leaves to its solver (`squared` lists them: eigenvectors and singular vectors);
`grads` is d loss / d inputs[i] for each input in `wrt`; `grads2` is the gradient of
`sum_i sum(grads[i] * directions[i])` (nested tapes), when TensorFlow gives one.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(20261123)


def rand(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape)


def spd(*shape: int) -> np.ndarray:
    """Symmetric positive definite matrices `[..., n, n]`."""
    a = rand(*shape)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def well_conditioned(*shape: int) -> np.ndarray:
    return rand(*shape) + shape[-1] * np.eye(shape[-1])


def lower(*shape: int) -> np.ndarray:
    return np.tril(rand(*shape)) + 2.0 * np.eye(shape[-1])


def upper(*shape: int) -> np.ndarray:
    return np.triu(rand(*shape)) + 2.0 * np.eye(shape[-1])


def call(op: str, attrs: dict[str, Any], xs: list[tf.Tensor]) -> list[tf.Tensor]:
    """Runs `op` and returns its outputs as a list."""
    L = tf.linalg
    out: Any
    if op == "cholesky":
        out = L.cholesky(xs[0])
    elif op == "triangular_solve":
        out = L.triangular_solve(xs[0], xs[1], **attrs)
    elif op == "cholesky_solve":
        out = L.cholesky_solve(xs[0], xs[1])
    elif op == "logdet":
        out = L.logdet(xs[0])
    elif op == "det":
        out = L.det(xs[0])
    elif op == "slogdet":
        out = L.slogdet(xs[0])
    elif op == "qr":
        out = L.qr(xs[0], **attrs)
    elif op == "eigh":
        out = L.eigh(xs[0])
    elif op == "eigvalsh":
        out = L.eigvalsh(xs[0])
    elif op == "svd":
        out = L.svd(xs[0], **attrs)
    elif op == "lstsq":
        out = L.lstsq(xs[0], xs[1], **attrs)
    elif op == "pinv":
        out = L.pinv(xs[0])
    elif op == "expm":
        out = L.expm(xs[0])
    elif op == "band_part":
        out = L.band_part(xs[0], **attrs)
    elif op == "diag":
        out = L.diag(xs[0], **attrs)
    elif op == "diag_part":
        out = L.diag_part(xs[0], **attrs)
    elif op == "set_diag":
        out = L.set_diag(xs[0], xs[1], **attrs)
    else:
        raise ValueError(op)
    return list(out) if isinstance(out, (tuple, list)) else [out]


def encode(x: Any) -> dict[str, Any]:
    a = np.asarray(x, dtype=np.float64)
    # JSON has no inf or NaN: those are written as the strings "inf", "-inf", "nan".
    values = [float(v) if np.isfinite(v) else str(v) for v in a.ravel()]
    return {"shape": list(a.shape), "values": values}


cases: dict[str, Any] = {}


def case(
    name: str,
    op: str,
    inputs: list[np.ndarray],
    attrs: dict[str, Any] | None = None,
    dtype: str = "float64",
    weighted: list[int] | None = None,
    squared: list[int] | None = None,
    wrt: list[int] | None = None,
    second_order: bool = True,
    first_order: bool = True,
) -> None:
    attrs = attrs or {}
    squared = squared or []
    xs = [tf.constant(x.astype(dtype)) for x in inputs]
    outs = call(op, attrs, xs)
    weighted = list(range(len(outs))) if weighted is None else weighted
    weights = {k: rng.uniform(0.5, 1.5, size=outs[k].shape) for k in weighted}
    wrt = list(range(len(xs))) if wrt is None else wrt
    directions = {i: rng.uniform(0.5, 1.5, size=xs[i].shape) for i in wrt}
    entry: dict[str, Any] = {
        "op": op,
        "attrs": attrs,
        "dtype": dtype,
        "inputs": [encode(x) for x in inputs],
        "outputs": [encode(o.numpy()) for o in outs],
        "weights": {str(k): encode(w) for k, w in weights.items()},
        "squared": squared,
        "wrt": wrt,
    }

    def loss(ys: list[tf.Tensor]) -> tf.Tensor:
        total = tf.constant(0.0, dtype)
        for k, w in weights.items():
            y = tf.square(ys[k]) if k in squared else ys[k]
            total += tf.reduce_sum(y * tf.constant(w.astype(dtype)))
        return total

    if first_order:
        with tf.GradientTape(persistent=True) as outer:
            outer.watch(xs)
            with tf.GradientTape() as inner:
                inner.watch(xs)
                value = loss(call(op, attrs, xs))
            grads = inner.gradient(value, [xs[i] for i in wrt])
            projected = tf.add_n(
                [
                    tf.reduce_sum(g * tf.constant(directions[i].astype(dtype)))
                    for g, i in zip(grads, wrt)
                ]
            )
        entry["grads"] = [encode(g.numpy()) for g in grads]
        if second_order:
            grads2 = outer.gradient(projected, [xs[i] for i in wrt])
            entry["directions"] = [encode(directions[i]) for i in wrt]
            # A linear op's gradient does not depend on its input: TensorFlow says None (zeros).
            entry["grads2"] = [
                encode(np.zeros(xs[i].shape) if g is None else g.numpy())
                for g, i in zip(grads2, wrt)
            ]
    cases[name] = entry


def main() -> None:
    case("cholesky", "cholesky", [spd(3, 3)])
    case("cholesky_batch", "cholesky", [spd(2, 4, 4)])
    case("cholesky_f32", "cholesky", [spd(3, 3)], dtype="float32", second_order=False)
    for lo in (True, False):
        for adj in (False, True):
            a = lower(3, 3) if lo else upper(3, 3)
            case(
                f"triangular_solve_{'lower' if lo else 'upper'}_{'adjoint' if adj else 'plain'}",
                "triangular_solve",
                [a, rand(3, 2)],
                {"lower": lo, "adjoint": adj},
            )
    case(
        "triangular_solve_broadcast",
        "triangular_solve",
        [lower(2, 3, 3), rand(3, 2)],
        {"lower": True, "adjoint": False},
    )
    case("cholesky_solve", "cholesky_solve", [np.linalg.cholesky(spd(3, 3)), rand(3, 2)])
    case("logdet", "logdet", [spd(2, 3, 3)])
    case("det", "det", [well_conditioned(3, 3)])
    case("det_batch", "det", [rand(2, 3, 3)])
    case("det_f32", "det", [well_conditioned(3, 3)], dtype="float32", second_order=False)
    case("det_singular", "det", [np.array([[1.0, 2.0], [2.0, 4.0]])], first_order=False)
    case("slogdet", "slogdet", [rand(2, 3, 3)], weighted=[1])
    case("slogdet_singular", "slogdet", [np.array([[1.0, 2.0], [2.0, 4.0]])], first_order=False)
    case("qr_deep", "qr", [rand(4, 3)])
    case("qr_square", "qr", [rand(3, 3)])
    case("qr_wide", "qr", [rand(3, 5)])
    case("qr_wide_full", "qr", [rand(2, 3, 4)], {"full_matrices": True})
    case("qr_deep_full", "qr", [rand(4, 3)], {"full_matrices": True}, first_order=False)
    case("qr_f32", "qr", [rand(4, 3)], dtype="float32", second_order=False)
    case("eigh", "eigh", [spd(3, 3)], squared=[1])
    case("eigh_batch", "eigh", [rand(2, 4, 4)], squared=[1])
    case("eigh_values_only", "eigh", [spd(3, 3)], weighted=[0], squared=[1])
    case("eigvalsh", "eigvalsh", [rand(4, 4)])
    case("eigh_f32", "eigh", [spd(3, 3)], dtype="float32", squared=[1], second_order=False)
    case("svd_deep", "svd", [rand(4, 3)], squared=[1, 2])
    case("svd_wide", "svd", [rand(3, 5)], squared=[1, 2])
    case("svd_square_batch", "svd", [rand(2, 3, 3)], squared=[1, 2])
    case("svd_full_deep", "svd", [rand(4, 3)], {"full_matrices": True}, squared=[1, 2])
    case("svd_full_wide", "svd", [rand(2, 3)], {"full_matrices": True}, squared=[1, 2])
    case("svd_values_only", "svd", [rand(4, 3)], {"compute_uv": False})
    case("svd_f32", "svd", [rand(4, 3)], dtype="float32", squared=[1, 2], second_order=False)
    case("lstsq_over", "lstsq", [rand(5, 3), rand(5, 2)])
    case("lstsq_under", "lstsq", [rand(2, 4), rand(2, 3)])
    case("lstsq_l2", "lstsq", [rand(5, 3), rand(5, 2)], {"l2_regularizer": 0.5})
    case("lstsq_batch", "lstsq", [rand(2, 4, 3), rand(2, 4, 1)])
    case("lstsq_slow", "lstsq", [rand(5, 3), rand(5, 2)], {"fast": False}, first_order=False)
    case(
        "lstsq_slow_rank_deficient",
        "lstsq",
        [np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]), rand(3, 1)],
        {"fast": False},
        first_order=False,
    )
    case("pinv", "pinv", [rand(4, 3)])
    case("pinv_wide_batch", "pinv", [rand(2, 2, 3)])
    case("expm_small", "expm", [0.01 * rand(3, 3)])
    case("expm", "expm", [rand(3, 3)])
    case("expm_scaled", "expm", [3.0 * rand(2, 3, 3)])
    case("expm_f32", "expm", [rand(3, 3)], dtype="float32", second_order=False)
    case("band_part", "band_part", [rand(2, 3, 4)], {"num_lower": 1, "num_upper": 0})
    case("band_part_upper", "band_part", [rand(4, 3)], {"num_lower": 0, "num_upper": -1})
    case("diag", "diag", [rand(2, 3)])
    case("diag_k", "diag", [rand(2)], {"k": -1, "num_rows": 3, "num_cols": 4, "padding_value": 9.0})
    case("diag_part_k", "diag_part", [rand(2, 3, 4)], {"k": 1})
    case("set_diag_k", "set_diag", [rand(2, 3, 4), rand(2, 3)], {"k": 1})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg.json")
    with open(path, "w") as f:
        json.dump(
            {"tensorflow": tf.__version__, "cases": cases},
            f,
            separators=(",", ":"),
            allow_nan=False,
        )
        f.write("\n")
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
