"""TensorFlow 2.21's control flow run eagerly (`tf.cond`, `tf.case`, `tf.switch_case`,
`tf.while_loop`, `tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr`) and Keras 3's `keras.ops`
control flow (`cond`, `switch`, `while_loop`, `fori_loop`, `map`, `scan`,
`associative_scan`): values, and gradients through them taken with a tape.

`run(m, ops)` is imported by the test and runs the same code on rustape (`m` is `rt` and `ops`
`rt.keras.ops` there). Run with TensorFlow's venv (see README.md); writes control_flow.npz
beside this file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def _grad(m: Any, f: Any, *values: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    variables = [m.Variable(v) for v in values]
    with m.GradientTape() as tape:
        y = f(*variables)
        loss = (
            m.reduce_sum(y * y)
            if not isinstance(y, (tuple, list))
            else sum(m.reduce_sum(t * t) for t in y)
        )
    grads = tape.gradient(loss, variables)
    flat = list(y) if isinstance(y, (tuple, list)) else [y]
    return np.concatenate([np.ravel(np.asarray(t)) for t in flat]), [np.asarray(g) for g in grads]


def _record(out: dict[str, np.ndarray], name: str, result: Any) -> None:
    value, grads = result
    out[f"{name}/value"] = value
    for i, g in enumerate(grads):
        out[f"{name}/grad{i}"] = g


def run(m: Any, ops: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    x3 = rng.normal(size=(3,)).astype(np.float32)
    rows = rng.normal(size=(4, 3)).astype(np.float32)
    w = rng.normal(size=(3, 2)).astype(np.float32)
    seq = rng.normal(size=(5, 2)).astype(np.float32)
    out: dict[str, np.ndarray] = {}

    # tf.cond / case / switch_case, both ways, with gradients through the branch taken.
    for which, scale in (("true", 2.0), ("false", -2.0)):
        _record(
            out,
            f"cond/{which}",
            _grad(
                m,
                lambda x, s=scale: m.cond(
                    m.reduce_sum(x) * s > 0, lambda: m.sin(x) * x, lambda: x * 3.0
                ),
                x3,
            ),
        )
    for k in (0, 1, 5):
        _record(
            out,
            f"switch_case/{k}",
            _grad(
                m,
                lambda x, k=k: m.switch_case(
                    m.constant(k), [lambda: x * 2.0, lambda: m.exp(x)], default=lambda: x - 1.0
                ),
                x3,
            ),
        )
    for v in (-3.0, 0.5, 4.0):
        _record(
            out,
            f"case/{v}",
            _grad(
                m,
                lambda x, v=v: m.case(
                    [
                        (m.constant(v) < 0.0, lambda: x * x),
                        (m.constant(v) < 1.0, lambda: m.tanh(x)),
                    ],
                    default=lambda: x + 5.0,
                ),
                x3,
            ),
        )
    # tf.while_loop: a state and a counter, with and without maximum_iterations.
    for limit in (None, 3):

        def loop(x: Any, limit: Any = limit) -> Any:
            _, y = m.while_loop(
                lambda i, y: i < 6,
                lambda i, y: (i + 1, m.sin(y) * 1.5 + y * 0.25),
                (m.constant(0), x),
                maximum_iterations=limit,
            )
            return y

        _record(out, f"while_loop/{limit}", _grad(m, loop, x3))
    # tf.map_fn: a row through a weight; a structure in and out with a signature.
    _record(
        out,
        "map_fn/rows",
        _grad(
            m,
            lambda r, a: m.map_fn(lambda row: m.tanh(m.linalg.matvec(m.transpose(a), row)), r),
            rows,
            w,
        ),
    )
    _record(
        out,
        "map_fn/structure",
        _grad(
            m,
            lambda r: m.map_fn(
                lambda e: (e[0] * e[1], m.reduce_sum(e[0])),
                (r, r * 2.0),
                fn_output_signature=(m.float32, m.float32),
            ),
            rows,
        ),
    )
    out["map_fn/empty_shape"] = np.asarray(
        m.map_fn(
            lambda e: e, m.zeros([0, 3]), fn_output_signature=m.TensorSpec([3], m.float32)
        ).shape
    )
    # tf.scan / foldl / foldr, forwards and reversed, with and without an initializer.
    for reverse in (False, True):
        _record(
            out,
            f"scan/plain/{reverse}",
            _grad(
                m,
                lambda s, r=reverse: m.scan(lambda acc, x: acc * 0.5 + m.sin(x), s, reverse=r),
                seq,
            ),
        )
        _record(
            out,
            f"scan/init/{reverse}",
            _grad(
                m,
                lambda s, r=reverse: m.scan(
                    lambda acc, x: (acc[0] + x, acc[1] * x[0]),
                    s,
                    initializer=(m.zeros([2]), m.constant(1.0)),
                    reverse=r,
                ),
                seq,
            ),
        )
    _record(out, "foldl", _grad(m, lambda s: m.foldl(lambda acc, x: acc * m.cos(x), s), seq))
    _record(
        out,
        "foldr",
        _grad(m, lambda s: m.foldr(lambda acc, x: acc * 2.0 - x, s, initializer=m.ones([2])), seq),
    )

    # keras.ops control flow.
    _record(
        out,
        "ops/cond",
        _grad(m, lambda x: ops.cond(ops.sum(x) > 100.0, lambda: x, lambda: ops.exp(x)), x3),
    )
    _record(
        out,
        "ops/switch",
        _grad(m, lambda x: ops.switch(7, [lambda a: a * 2.0, lambda a: a * a], x), x3),
    )
    _record(
        out,
        "ops/while_single",
        _grad(
            m,
            lambda x: ops.while_loop(
                lambda y: ops.sum(y) < 50.0, lambda y: y * 1.7 + 1.0, x, maximum_iterations=20
            ),
            x3,
        ),
    )
    _record(
        out,
        "ops/while_tuple",
        _grad(
            m,
            lambda x: ops.while_loop(
                lambda i, y: i < 4, lambda i, y: (i + 1, ops.sin(y) + y), (0, x)
            )[1],
            x3,
        ),
    )
    _record(
        out,
        "ops/fori_loop",
        _grad(
            m,
            lambda x: ops.fori_loop(1, 5, lambda i, y: y * ops.cast(i, "float32") * 0.5 + 1.0, x),
            x3,
        ),
    )
    _record(out, "ops/map", _grad(m, lambda r: ops.map(lambda row: ops.sum(row * row), r), rows))
    for reverse in (False, True):
        _record(
            out,
            f"ops/scan/{reverse}",
            _grad(
                m,
                lambda s, r=reverse: ops.scan(
                    lambda c, x: (c * 0.9 + x, c * x), ops.zeros([2]), s, reverse=r
                ),
                seq,
            ),
        )
    _record(
        out,
        "ops/scan_length",
        _grad(m, lambda x: ops.scan(lambda c, _: (c * 1.1, c + 1.0), x, None, length=4), x3),
    )
    sums = rng.normal(size=(7, 2)).astype(np.float32)
    for reverse in (False, True):
        _record(
            out,
            f"ops/associative_scan/add/{reverse}",
            _grad(
                m, lambda e, r=reverse: ops.associative_scan(lambda a, b: a + b, e, reverse=r), sums
            ),
        )
    _record(
        out,
        "ops/associative_scan/axis1",
        _grad(
            m,
            lambda e: ops.associative_scan(lambda a, b: a * b, e, axis=1),
            rng.normal(size=(2, 6)).astype(np.float32),
        ),
    )
    # Composition of affine maps x -> a x + b (associative, not commutative), 8 and 9 long.
    for n in (8, 9):
        a = rng.uniform(0.5, 1.5, size=(n,)).astype(np.float32)
        b = rng.normal(size=(n,)).astype(np.float32)
        _record(
            out,
            f"ops/associative_scan/affine/{n}",
            _grad(
                m,
                lambda a, b: ops.associative_scan(
                    lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), (a, b)
                ),
                a,
                b,
            ),
        )
    return out


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    import tensorflow as tf

    out = run(tf, keras.ops)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "control_flow.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
