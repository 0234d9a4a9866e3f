"""The public API as a type checker sees it: `mypy --strict tests/typing` must pass (.ci/run).

`RIGHT` uses every namespace the way the documentation does; each call in `WRONG` passes an
argument of a wrong type and carries `# type: ignore[<code>]`, which `--strict`
(`warn_unused_ignores`) reports if mypy stops finding the error. tests/python/test_typing.py
runs both lists: the right calls work and every wrong one raises at runtime too, so the stubs
and the extension agree on what is wrong.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import rustape as rt


def tape_basics() -> rt.Tensor | None:
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    gradient: rt.Tensor | None = tape.gradient(y, x)
    return gradient


def every_namespace() -> list[rt.Tensor]:
    x = rt.constant([[1.0, 2.0], [3.0, 4.0]], dtype=rt.float64)
    v = rt.Variable(np.ones((2, 2)), name="v")
    mean, variance = rt.nn.moments(x, axes=[0])
    parts: list[rt.Tensor] = rt.unstack(x, axis=1)
    dtype: rt.DType = rt.as_dtype("float32")
    shape: tuple[int, ...] = x.shape
    assert dtype.is_floating and shape == (2, 2)
    return [
        rt.math.sin(x) + v,
        rt.reduce_sum(x, axis=[0, 1], keepdims=True),
        rt.math.reduce_std(x, axis=0),
        rt.nn.relu(x - 2.0),
        rt.nn.swish(x),
        rt.nn.softmax(x, axis=-1),
        rt.linalg.matmul(x, v, transpose_b=True),
        rt.linalg.trace(x),
        rt.einsum("ij,jk->ik", x, x),
        rt.random.normal([2, 3], mean=0.0, stddev=2.0, seed=1),
        rt.random.truncated_normal([2]),
        rt.reshape(x, [4]),
        rt.concat([x, [[5.0, 6.0]]], axis=0),
        rt.where(x > 2.0, x, 0.0),
        rt.add_n([x, x, x]),
        rt.cast(x, rt.int32),
        rt.zeros([2], dtype="float64"),
        rt.one_hot([0, 2], 3),
        mean,
        variance,
        *parts,
    ]


def a_layer() -> rt.Tensor:
    dense = rt.keras.layers.Dense(2)
    y: rt.Tensor = dense(rt.ones([1, 3]))
    return y


def interop_and_config() -> list[object]:
    import numpy as np

    t: rt.Tensor = rt.from_dlpack(np.arange(3.0))
    back = np.from_dlpack(t)
    capsule = rt.experimental.dlpack.to_dlpack(t)
    again: rt.Tensor = rt.experimental.dlpack.from_dlpack(capsule)
    threads: int = rt.config.get_num_threads()
    rt.config.set_nonscalar_target_warning(False)
    rt.config.set_log_level("WARNING")
    steps = [i for i in rt.utils.progress_bar(range(3), enabled=False)]
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.reduce_sum(x * x)
    h = tape.hessian(y, x, progress=False)
    return [back, again, threads, steps, h]


RIGHT: list[Callable[[], object]] = [tape_basics, every_namespace, a_layer, interop_and_config]

_x = rt.constant([1.0, 2.0])

#: Each of these is a type error (mypy) and raises TypeError or ValueError (runtime).
WRONG: list[Callable[[], object]] = [
    lambda: rt.sin("text"),  # type: ignore[arg-type]
    lambda: rt.math.exp(None),  # type: ignore[arg-type]
    lambda: rt.reduce_sum(_x, keepdims="yes"),  # type: ignore[arg-type]
    lambda: rt.reduce_mean(_x, axis="0"),  # type: ignore[arg-type]
    lambda: rt.matmul(_x, _x, transpose_a=1),  # type: ignore[arg-type]
    lambda: rt.one_hot([0, 1], depth=2.5),  # type: ignore[arg-type]
    lambda: rt.random.normal([2], stddev="1"),  # type: ignore[arg-type]
    lambda: rt.einsum(3, _x),  # type: ignore[arg-type]
    lambda: rt.nn.leaky_relu(_x, alpha="0.2"),  # type: ignore[arg-type]
    lambda: rt.linalg.tensordot(_x, _x, axes="1"),  # type: ignore[arg-type]
    lambda: rt.Variable(1.0, trainable="no"),  # type: ignore[arg-type]
    lambda: rt.constant(1.0) + "1",  # type: ignore[operator]
    lambda: rt.config.set_num_threads("2"),  # type: ignore[arg-type]
    lambda: rt.from_dlpack(_x, copy="yes"),  # type: ignore[arg-type]
]
