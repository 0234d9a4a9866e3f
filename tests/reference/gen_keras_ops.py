"""Keras 3's `keras.ops` (TensorFlow 2.21 backend) on the calls listed in keras_ops_cases.py:
each result's value and dtype; and the gradient of a weighted sum of the differentiable
float results. Run with TensorFlow's venv (see README.md); writes keras_ops.npz beside this
file.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from keras_ops_cases import cases


def arguments(convert: Any, args: tuple[Any, ...]) -> list[Any]:
    """The case's arguments with `("list", [...])` as a list of converted arrays."""
    out: list[Any] = []
    for a in args:
        if isinstance(a, tuple) and len(a) == 2 and a[0] == "list":
            out.append([convert(x) for x in a[1]])
        elif isinstance(a, np.ndarray):
            out.append(convert(a))
        else:
            out.append(a)
    return out


def flatten(result: Any) -> list[Any]:
    """A result as a list of arrays (tuples and lists in order)."""
    if isinstance(result, (list, tuple)):
        return [r for item in result for r in flatten(item)]
    return [result]


def main() -> None:
    import keras
    import tensorflow as tf

    out: dict[str, np.ndarray] = {}
    for case, name, args, kwargs in cases():
        fn = getattr(keras.ops, name)
        results = flatten(fn(*arguments(tf.constant, args), **kwargs))
        for k, r in enumerate(results):
            value = np.asarray(keras.ops.convert_to_numpy(r))
            out[f"{case}/{k}"] = value
            kind = (
                keras.backend.standardize_dtype(r.dtype)
                if hasattr(r, "dtype")
                else type(r).__name__
            )
            out[f"{case}/{k}/dtype"] = np.array(str(kind))
        # The gradient of sum(weights * result) w.r.t. each float input, where one exists.
        watched = [
            tf.constant(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else None
            for a in args
        ]
        if any(w is not None for w in watched) and name not in ("shape", "ndim", "size"):
            with tf.GradientTape() as tape:
                for w in watched:
                    if w is not None:
                        tape.watch(w)
                real = tuple(w if w is not None else a for w, a in zip(watched, args))
                results = flatten(fn(*arguments(tf.constant, real), **kwargs))
                terms = []
                for k, r in enumerate(results):
                    if r.dtype.is_floating:
                        weight = np.random.default_rng(k).normal(size=tuple(r.shape))
                        terms.append(tf.reduce_sum(r * weight.astype(r.dtype.as_numpy_dtype)))
                loss = tf.add_n(terms) if terms else None
            if loss is not None:
                grads = tape.gradient(loss, [w for w in watched if w is not None])
                for k, g in enumerate(grads):
                    if g is not None:
                        out[f"{case}/grad{k}"] = np.asarray(tf.convert_to_tensor(g))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_ops.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {path}: {len(out)} arrays, tensorflow {tf.__version__}, keras {keras.__version__}"
    )


if __name__ == "__main__":
    main()
