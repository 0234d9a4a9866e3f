"""TensorFlow's random values: the stateless samplers, `tf.random.Generator`, the global
samplers after `tf.random.set_seed`, and Keras 3's random functions and seeded initializers,
written to random_tf.npz (arrays) and random_tf.json (how each array was drawn) beside this
file (see README.md). tests/python/test_random_tf.py draws the same and compares bit for bit.

Shapes include odd sizes (a last partial group of a Philox output), seeds negative and large.

Run with TensorFlow 2.21 and Keras 3.15: `python tests/reference/gen_random_tf.py`.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
ARRAYS = {}
CASES = []


def put(case, value):
    key = f"c{len(CASES)}"
    ARRAYS[key] = np.asarray(value)
    CASES.append({"key": key, **case})


SEEDS = [[1, 2], [-5, 2**40 + 3], [0, 0], [2**31 - 1, -(2**31)], [2**62, -1]]
SHAPES = [[7], [3, 5], [1], [2, 3, 3]]


def stateless():
    for seed in SEEDS:
        s = tf.constant(seed, tf.int64)
        for shape in SHAPES:
            for dtype in ["float32", "float64"]:
                for bounds in [None, (-2.5, 3.0)]:
                    kw = {} if bounds is None else {"minval": bounds[0], "maxval": bounds[1]}
                    v = tf.random.stateless_uniform(shape, s, dtype=dtype, **kw)
                    put(
                        {
                            "op": "stateless_uniform",
                            "seed": seed,
                            "shape": shape,
                            "dtype": dtype,
                            **kw,
                        },
                        v,
                    )
            for dtype, bounds in [
                ("int32", (-10, 17)),
                ("int32", (0, 1 << 30)),
                ("int64", (-10, 17)),
                ("int64", (-(2**40), 2**50)),
            ]:
                v = tf.random.stateless_uniform(
                    shape, s, minval=bounds[0], maxval=bounds[1], dtype=dtype
                )
                put(
                    {
                        "op": "stateless_uniform",
                        "seed": seed,
                        "shape": shape,
                        "dtype": dtype,
                        "minval": bounds[0],
                        "maxval": bounds[1],
                    },
                    v,
                )
            for dtype in ["int32", "int64"]:
                v = tf.random.stateless_uniform(shape, s, minval=None, maxval=None, dtype=dtype)
                put(
                    {
                        "op": "stateless_uniform",
                        "seed": seed,
                        "shape": shape,
                        "dtype": dtype,
                        "minval": None,
                        "maxval": None,
                    },
                    v,
                )
            for op, fn in [
                ("stateless_normal", tf.random.stateless_normal),
                ("stateless_truncated_normal", tf.random.stateless_truncated_normal),
            ]:
                for dtype in ["float32", "float64"]:
                    for mean, stddev in [(0.0, 1.0), (1.5, 2.0)]:
                        v = fn(shape, s, mean=mean, stddev=stddev, dtype=dtype)
                        put(
                            {
                                "op": op,
                                "seed": seed,
                                "shape": shape,
                                "dtype": dtype,
                                "mean": mean,
                                "stddev": stddev,
                            },
                            v,
                        )
    # Large enough for many groups and for the truncated normal's rejections.
    for dtype in ["float32", "float64"]:
        for op, fn in [
            ("stateless_normal", tf.random.stateless_normal),
            ("stateless_truncated_normal", tf.random.stateless_truncated_normal),
            ("stateless_uniform", tf.random.stateless_uniform),
        ]:
            put(
                {"op": op, "seed": [3, 4], "shape": [1001], "dtype": dtype},
                fn([1001], tf.constant([3, 4], tf.int64), dtype=dtype),
            )
    logits = [[0.0, 1.0, 2.0], [-np.inf, 0.0, 0.5], [3.0, np.inf, 3.0]]
    for seed in SEEDS[:3]:
        for ldtype in ["float32", "float64"]:
            for n, out in [(9, "int64"), (1, "int32")]:
                v = tf.random.stateless_categorical(
                    tf.constant(logits, ldtype), n, tf.constant(seed, tf.int64), dtype=out
                )
                put(
                    {
                        "op": "stateless_categorical",
                        "seed": seed,
                        "logits": "L",
                        "logits_dtype": ldtype,
                        "num_samples": n,
                        "dtype": out,
                    },
                    v,
                )
    for seed, sdtype in [([1, 2], "int32"), ([-5, 7], "int32"), ([-5, 2**40 + 3], "int64")]:
        s = tf.constant(seed, sdtype)
        for num in [2, 3]:
            put(
                {"op": "split", "seed": seed, "seed_dtype": sdtype, "num": num},
                tf.random.split(s, num),
            )
        for data, ddtype in [(7, "int32"), (-3, "int32"), (2**40, "int64")]:
            v = tf.random.fold_in(s, tf.constant(data, ddtype))
            put(
                {
                    "op": "fold_in",
                    "seed": seed,
                    "seed_dtype": sdtype,
                    "data": data,
                    "data_dtype": ddtype,
                },
                v,
            )


GEN_STEPS = [
    ("normal", [5], "float32", {}),
    ("uniform", [3, 3], "float32", {"minval": -1.0, "maxval": 2.0}),
    ("uniform", [4], "int32", {"minval": 0, "maxval": 100}),
    ("truncated_normal", [7], "float64", {}),
    ("uniform_full_int", [3], "int64", {}),
    ("normal", [2, 3], "float64", {"mean": 1.0, "stddev": 0.5}),
    ("uniform", [5], "int64", {"minval": -(2**40), "maxval": 2**41}),
    ("uniform", [], "float64", {}),
]


def generator():
    for seed in [1, 12345, -3, 2**70 + 5]:
        g = tf.random.Generator.from_seed(seed)
        put({"op": "generator_state", "seed": seed, "step": -1}, g.state.numpy())
        for i, (method, shape, dtype, kw) in enumerate(GEN_STEPS):
            v = getattr(g, method)(shape, dtype=dtype, **kw)
            put({"op": "generator", "seed": seed, "step": i}, v)
            put({"op": "generator_state", "seed": seed, "step": i}, g.state.numpy())
        put({"op": "generator_make_seeds", "seed": seed}, g.make_seeds(3))
        children = g.split(2)
        put({"op": "generator_state", "seed": seed, "step": "split"}, g.state.numpy())
        for k, child in enumerate(children):
            put({"op": "generator_child_state", "seed": seed, "child": k}, child.state.numpy())
            put({"op": "generator_child_normal", "seed": seed, "child": k}, child.normal([3]))


LOGITS = [[0.0, 1.0, 2.0], [0.5, -1.0, 0.0]]


def global_sequence():
    """The calls of `global_steps` in tests/python/test_random_tf.py, in order."""
    out = [
        tf.random.uniform([5]),
        tf.random.normal([3, 3], dtype=tf.float64),
        tf.random.uniform([4], seed=7),
        tf.random.uniform([4], seed=7),
        tf.random.truncated_normal([6]),
        tf.random.categorical(tf.constant(LOGITS), 5),
        tf.random.shuffle(tf.range(10)),
        tf.random.uniform([6], 0, 10, dtype=tf.int32),
        tf.random.normal([2], seed=3),
        tf.random.uniform([3], minval=-1.0, maxval=1.0, dtype=tf.float64),
        tf.random.shuffle(tf.constant([[1, 2], [3, 4], [5, 6]])),
        tf.random.uniform([3], maxval=4.0),
        tf.random.normal([5], mean=1.0, stddev=2.0),
    ]
    return out


def global_samplers():
    for seed in [7, 0, -1, 2**40]:
        tf.random.set_seed(seed)
        for i, v in enumerate(global_sequence()):
            put({"op": "global", "seed": seed, "step": i}, v)
    tf.random.set_seed(None)
    for i in range(2):
        put({"op": "op_seed_only", "step": i}, tf.random.uniform([4], seed=11))


def keras_values():
    import keras

    ini = keras.initializers
    for name, init, shape in [
        ("GlorotUniform", ini.GlorotUniform(seed=1), (3, 4)),
        ("GlorotNormal", ini.GlorotNormal(seed=2), (5, 3)),
        ("HeNormal", ini.HeNormal(seed=3), (4, 4)),
        ("RandomNormal", ini.RandomNormal(seed=4), (3,)),
        ("RandomUniform", ini.RandomUniform(seed=5), (7,)),
        ("TruncatedNormal", ini.TruncatedNormal(seed=6), (9,)),
        ("LecunUniform", ini.LecunUniform(seed=2**33 + 5), (2, 3)),
    ]:
        put({"op": "keras_init", "name": name, "shape": list(shape)}, init(shape))
    r = keras.random
    g = r.SeedGenerator(1337)
    put({"op": "keras_random", "name": "normal_gen0"}, r.normal((2, 3), seed=g))
    put({"op": "keras_random", "name": "normal_gen1"}, r.normal((2, 3), seed=g))
    put({"op": "keras_random", "name": "uniform"}, r.uniform((4,), minval=-1.0, maxval=2.0, seed=3))
    put({"op": "keras_random", "name": "randint"}, r.randint((5,), 0, 10, seed=4))
    put({"op": "keras_random", "name": "truncated_normal"}, r.truncated_normal((6,), seed=5))
    put(
        {"op": "keras_random", "name": "categorical"}, r.categorical(tf.constant(LOGITS), 6, seed=6)
    )
    put({"op": "keras_random", "name": "dropout"}, r.dropout(tf.ones([8]), 0.5, seed=7))
    put({"op": "keras_random", "name": "shuffle"}, r.shuffle(tf.range(6), seed=8))
    put({"op": "keras_random", "name": "normal_big_seed"}, r.normal((3,), seed=2**33 + 5))
    put({"op": "keras_random", "name": "gamma"}, r.gamma((2, 3), 0.7, seed=9))
    put({"op": "keras_random", "name": "beta"}, r.beta((5,), 2.0, 0.5, seed=10))
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(2)])
    for k, w in enumerate(model.weights):
        put({"op": "keras_model", "index": k}, w.numpy())


IMAGE = np.linspace(0.0, 1.0, 4 * 2 * 3 * 3, dtype=np.float32).reshape(4, 2, 3, 3)


def image_ops():
    """`tf.image.stateless_random_*` on a batch and on one image."""
    for seed in [[1, 2], [5, -7], [2**40, 3]]:
        s = tf.constant(seed, tf.int64)
        for rank in [4, 3]:
            x = IMAGE if rank == 4 else IMAGE[1]
            im = tf.image
            for name, v in [
                ("flip_left_right", im.stateless_random_flip_left_right(x, s)),
                ("flip_up_down", im.stateless_random_flip_up_down(x, s)),
                ("brightness", im.stateless_random_brightness(x, 0.3, s)),
                ("contrast", im.stateless_random_contrast(x, 0.2, 1.8, s)),
                ("hue", im.stateless_random_hue(x, 0.2, s)),
                ("saturation", im.stateless_random_saturation(x, 0.3, 1.7, s)),
            ]:
                put({"op": "image", "name": name, "seed": seed, "rank": rank}, v)


def gamma():
    """`tf.random.stateless_gamma` (alpha below, at and above 1; broadcast over the last
    dimensions; beta) and `tf.random.gamma` after `set_seed`."""
    for seed in [[1, 2], [-5, 2**40 + 3]]:
        s = tf.constant(seed, tf.int64)
        for dtype in ["float32", "float64"]:
            for shape, alpha, beta in [
                ([5], 0.5, None),
                ([5], 1.0, None),
                ([3, 2], [2.5, 0.3], None),
                ([4, 3], [0.7, 1.0, 9.0], 2.0),
            ]:
                v = tf.random.stateless_gamma(shape, s, alpha=alpha, beta=beta, dtype=dtype)
                put(
                    {
                        "op": "stateless_gamma",
                        "seed": seed,
                        "shape": shape,
                        "alpha": alpha,
                        "beta": beta,
                        "dtype": dtype,
                    },
                    v,
                )
    # The implicit reparameterisation gradient of sum(samples * w) in alpha and beta.
    for dtype in ["float32", "float64"]:
        alpha = tf.constant([0.3, 1.0, 2.5, 9.0], dtype)
        beta = tf.constant(1.5, dtype)
        with tf.GradientTape() as tape:
            tape.watch([alpha, beta])
            v = tf.random.stateless_gamma(
                [3, 4], tf.constant([7, 8], tf.int64), alpha=alpha, beta=beta, dtype=dtype
            )
            loss = tf.reduce_sum(v * tf.reshape(tf.range(1.0, 13.0, dtype=dtype), [3, 4]))
        ga, gb = tape.gradient(loss, [alpha, beta])
        put({"op": "stateless_gamma_grad", "dtype": dtype, "part": "value"}, v)
        put({"op": "stateless_gamma_grad", "dtype": dtype, "part": "alpha"}, ga)
        put({"op": "stateless_gamma_grad", "dtype": dtype, "part": "beta"}, gb)
    for seed in [3, 2**40]:
        tf.random.set_seed(seed)
        for step, (shape, alpha, dtype) in enumerate(
            [([4], 2.5, "float32"), ([3], [0.5, 1.0], "float64"), ([2], 0.8, "float32")]
        ):
            v = tf.random.gamma(shape, alpha, dtype=dtype)
            put({"op": "gamma", "seed": seed, "step": step}, v)


def main():
    stateless()
    image_ops()
    gamma()
    generator()
    global_samplers()
    keras_values()
    np.savez(os.path.join(HERE, "random_tf.npz"), **ARRAYS)
    with open(os.path.join(HERE, "random_tf.json"), "w") as f:
        json.dump({"cases": CASES}, f, indent=0)
    print(len(CASES), "cases")


if __name__ == "__main__":
    main()
