"""TensorFlow 2.21's input pipelines (`tf.data.Dataset`) on deterministic cases: every
element, the cardinality and the element spec of each pipeline in `CASES`; and Keras 3's
`fit` / `evaluate` / `predict` reading datasets (a finite one per epoch, a repeated one with
`steps_per_epoch`, a finite one with fewer `steps_per_epoch` than batches, validation data).

`CASES` and `fit_run(m)` are imported by the test and run on rustape (`m` is `rt` there, `tf`
here). Run with TensorFlow's venv (see README.md); writes data.json beside this file.
"""

from __future__ import annotations

import itertools
import json
import os
from typing import Any

import numpy as np


def _x(n: int = 10, width: int = 3, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, width)).astype(np.float32)


def _ragged(m: Any) -> Any:
    return m.data.Dataset.range(1, 6).map(lambda n: m.fill([n], n))


CASES: dict[str, Any] = {
    "slices_ints": lambda m: m.data.Dataset.from_tensor_slices([1, 2, 3]),
    "slices_floats": lambda m: m.data.Dataset.from_tensor_slices([1.5, 2.0]),
    "slices_float64": lambda m: m.data.Dataset.from_tensor_slices(np.arange(3.0)),
    "slices_matrix": lambda m: m.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]),
    "slices_tuple": lambda m: m.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0])),
    "slices_dict": lambda m: m.data.Dataset.from_tensor_slices(
        {"a": [1, 2], "b": np.array([[1.0, 2.0], [3.0, 4.0]])}
    ),
    "slices_nested": lambda m: m.data.Dataset.from_tensor_slices(
        ({"x": _x(4), "m": np.array([True, False, True, True])}, np.arange(4))
    ),
    "from_tensors": lambda m: m.data.Dataset.from_tensors(([1, 2], 3)),
    "range_stop": lambda m: m.data.Dataset.range(4),
    "range_step": lambda m: m.data.Dataset.range(2, 11, 3),
    "range_negative": lambda m: m.data.Dataset.range(5, 0, -2),
    "range_empty": lambda m: m.data.Dataset.range(5, 2),
    "range_float": lambda m: m.data.Dataset.range(3, output_type=m.float32),
    "batch": lambda m: m.data.Dataset.range(7).batch(3),
    "batch_drop": lambda m: m.data.Dataset.range(7).batch(3, drop_remainder=True),
    "batch_rows": lambda m: m.data.Dataset.from_tensor_slices((_x(10), np.arange(10))).batch(4),
    "batch_dict": lambda m: m.data.Dataset.from_tensor_slices(
        {"a": np.arange(5.0), "b": np.arange(10).reshape(5, 2)}
    ).batch(2),
    "batch_of_batches": lambda m: m.data.Dataset.range(10).batch(2).batch(2, drop_remainder=True),
    "padded": lambda m: _ragged(m).padded_batch(2),
    "padded_shape_value": lambda m: _ragged(m).padded_batch(
        3, padded_shapes=[6], padding_values=m.constant(-1, m.int64)
    ),
    "padded_drop": lambda m: _ragged(m).padded_batch(2, drop_remainder=True),
    "padded_tuple": lambda m: (
        m.data.Dataset.range(1, 4)
        .map(lambda n: (m.fill([n], n), n))
        .padded_batch(2, padding_values=(np.int64(-1), np.int64(0)))
    ),
    "padded_2d_float": lambda m: (
        m.data.Dataset.range(1, 4)
        .map(lambda n: m.fill([n, 4 - n], m.cast(n, m.float32)))
        .padded_batch(3)
    ),
    "padded_dict": lambda m: (
        m.data.Dataset.from_tensor_slices({"a": [1, 2, 3]})
        .map(lambda d: {"a": m.fill([d["a"]], d["a"])})
        .padded_batch(2)
    ),
    "padded_scalars": lambda m: m.data.Dataset.range(5).padded_batch(2),
    "unbatch": lambda m: m.data.Dataset.range(7).batch(3).unbatch(),
    "unbatch_tuple": lambda m: m.data.Dataset.from_tensors(
        (np.arange(3), np.arange(6).reshape(3, 2))
    ).unbatch(),
    "filter": lambda m: m.data.Dataset.range(10).filter(lambda x: x % 3 == 0),
    "take_while": lambda m: m.data.Dataset.range(10).take_while(lambda x: x < 4),
    "take_while_tuple": lambda m: m.data.Dataset.from_tensor_slices(
        ([1, 2, 3], [3, 2, 1])
    ).take_while(lambda a, b: a < b),
    "repeat_twice": lambda m: m.data.Dataset.range(3).repeat(2),
    "repeat_forever_take": lambda m: m.data.Dataset.range(3).repeat().take(8),
    "repeat_batch": lambda m: m.data.Dataset.range(5).repeat(3).batch(4),
    "take_all": lambda m: m.data.Dataset.range(3).take(-1),
    "skip": lambda m: m.data.Dataset.range(5).skip(2),
    "skip_all": lambda m: m.data.Dataset.range(3).skip(-1),
    "shard": lambda m: m.data.Dataset.range(10).shard(3, 1),
    "shard_batch_rows": lambda m: (
        m.data.Dataset.from_tensor_slices(_x(11)).shard(2, 0).skip(1).take(4).batch(3)
    ),
    "enumerate": lambda m: m.data.Dataset.from_tensor_slices([5.0, 6.0]).enumerate(3),
    "enumerate_tuple": lambda m: m.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).enumerate(),
    "zip": lambda m: m.data.Dataset.zip(m.data.Dataset.range(3), m.data.Dataset.range(10, 15)),
    "zip_nested": lambda m: m.data.Dataset.zip(
        {"a": m.data.Dataset.range(2), "b": (m.data.Dataset.range(3), m.data.Dataset.range(5, 9))}
    ),
    "concatenate": lambda m: m.data.Dataset.range(3).concatenate(m.data.Dataset.range(10, 12)),
    "flat_map": lambda m: m.data.Dataset.range(4).flat_map(lambda x: m.data.Dataset.range(x)),
    "flat_map_tuple": lambda m: m.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).flat_map(
        lambda a, b: m.data.Dataset.from_tensors((a, b)).repeat(2)
    ),
    "interleave_block": lambda m: m.data.Dataset.range(1, 4).interleave(
        lambda x: m.data.Dataset.from_tensors(x).repeat(3), cycle_length=2, block_length=2
    ),
    "interleave_ranges": lambda m: m.data.Dataset.range(1, 6).interleave(
        lambda x: m.data.Dataset.range(x), cycle_length=2
    ),
    "interleave_wide": lambda m: m.data.Dataset.range(1, 8).interleave(
        lambda x: m.data.Dataset.range(10 * x, 10 * x + x % 4 + 1), cycle_length=3, block_length=2
    ),
    "window": lambda m: m.data.Dataset.range(7).window(3, shift=2).flat_map(lambda w: w.batch(3)),
    "window_stride_drop": lambda m: (
        m.data.Dataset.range(10)
        .window(3, shift=1, stride=2, drop_remainder=True)
        .flat_map(lambda w: w.batch(3))
    ),
    "window_long_shift": lambda m: (
        m.data.Dataset.range(10).window(2, shift=4).flat_map(lambda w: w.batch(2))
    ),
    "window_tuple": lambda m: (
        m.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6]))
        .window(2)
        .flat_map(lambda a, b: m.data.Dataset.zip((a.batch(2), b.batch(2))))
    ),
    "map_tuple": lambda m: m.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).map(
        lambda a, b: (a + b, a * b)
    ),
    "map_list": lambda m: m.data.Dataset.range(3).map(lambda x: [x, x * 2]),
    "map_python_float": lambda m: m.data.Dataset.range(3).map(lambda x: 1.5),
    "map_dict": lambda m: m.data.Dataset.from_tensor_slices({"a": [1, 2]}).map(
        lambda d: {"twice": d["a"] * 2, "a": d["a"]}
    ),
    "map_float_math": lambda m: m.data.Dataset.from_tensor_slices(_x(5)).map(
        lambda r: (m.reduce_sum(r * r), m.exp(r[0]))
    ),
    "map_after_batch": lambda m: (
        m.data.Dataset.from_tensor_slices(_x(7)).batch(3).map(lambda b: m.reduce_mean(b, axis=0))
    ),
    "scan": lambda m: m.data.Dataset.range(5).scan(np.int64(0), lambda s, x: (s + x, s * 10)),
    "scan_tuple": lambda m: m.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).scan(
        0, lambda s, e: (s + e[0], e[1] + s)
    ),
    "cache": lambda m: m.data.Dataset.range(4).map(lambda x: x * x).cache().repeat(2),
    "unique": lambda m: m.data.Dataset.from_tensor_slices([3, 1, 3, 2, 1, 5]).unique(),
    "choose": lambda m: m.data.Dataset.choose_from_datasets(
        [m.data.Dataset.range(3), m.data.Dataset.range(10, 13)],
        m.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 0, 0, 1], np.int64)),
    ),
    "choose_no_stop": lambda m: m.data.Dataset.choose_from_datasets(
        [m.data.Dataset.range(3), m.data.Dataset.range(10, 13)],
        m.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 0, 0, 1], np.int64)),
        stop_on_empty_dataset=False,
    ),
    "generator_signature": lambda m: m.data.Dataset.from_generator(
        lambda: ((i, [i] * i) for i in range(4)),
        output_signature=(m.TensorSpec([], m.int32), m.TensorSpec([None], m.int32)),
    ),
    "generator_types": lambda m: m.data.Dataset.from_generator(
        lambda: iter([1.5, 2.5]), output_types=m.float32
    ),
    "generator_types_shapes": lambda m: m.data.Dataset.from_generator(
        lambda: ((np.full(2, i), float(i)) for i in range(3)),
        output_types=(m.int64, m.float64),
        output_shapes=([2], []),
    ),
    "generator_args": lambda m: m.data.Dataset.from_generator(
        lambda n: iter(range(n)), output_signature=m.TensorSpec([], m.int64), args=(3,)
    ).batch(2),
    "apply": lambda m: m.data.Dataset.range(6).apply(lambda ds: ds.skip(2).batch(3)),
    "infinite_batch": lambda m: m.data.Dataset.range(3).repeat().batch(2).take(4),
    "unknown_take": lambda m: m.data.Dataset.range(5).filter(lambda x: x > 0).take(3),
    "unknown_repeat": lambda m: m.data.Dataset.range(5).filter(lambda x: x > 0).repeat().take(9),
    "empty_repeat": lambda m: m.data.Dataset.range(0).repeat(),
    "zip_unknown": lambda m: m.data.Dataset.zip(
        m.data.Dataset.range(5).filter(lambda x: x > 2), m.data.Dataset.range(3)
    ),
    "zip_infinite": lambda m: m.data.Dataset.zip(
        m.data.Dataset.range(5).repeat(), m.data.Dataset.range(3).repeat()
    ).take(4),
    "concat_unknown": lambda m: m.data.Dataset.range(3).concatenate(
        m.data.Dataset.range(3).filter(lambda x: x > 0)
    ),
    "group_by_window": lambda m: m.data.Dataset.range(11).group_by_window(
        lambda x: x % 3, lambda key, w: w.batch(2).map(lambda b: (b, b * 0 + key)), window_size=3
    ),
    "group_by_window_sizes": lambda m: m.data.Dataset.range(12).group_by_window(
        lambda x: m.cast(x > 4, m.int64),
        lambda key, w: w.batch(5),
        window_size_func=lambda key: key + 2,
    ),
    "bucket_by_length": lambda m: (
        _ragged(m)
        .concatenate(_ragged(m))
        .map(lambda x: (x, m.shape(x)[0]))
        .bucket_by_sequence_length(lambda x, n: n, [2, 4], [2, 3, 2])
    ),
    "bucket_to_boundary": lambda m: (
        m.data.Dataset.range(1, 7)
        .map(lambda n: m.fill([n], n))
        .bucket_by_sequence_length(
            lambda x: m.shape(x)[0],
            [3, 8],
            [2, 2, 2],
            pad_to_bucket_boundary=True,
            padding_values=m.constant(-1, m.int64),
        )
    ),
    "bucket_drop_no_padding": lambda m: (
        m.data.Dataset.range(10)
        .map(lambda n: m.fill([2], n))
        .bucket_by_sequence_length(
            lambda x: m.cast(x[0] % 3, m.int32),
            [1, 2],
            [2, 2, 2],
            no_padding=True,
            drop_remainder=True,
        )
    ),
    "window_cardinality": lambda m: (
        m.data.Dataset.range(10)
        .window(3, shift=2, stride=2, drop_remainder=True)
        .flat_map(lambda w: w.batch(3))
    ),
}

#: Reductions: (name, pipeline, initial state, function).
REDUCTIONS: dict[str, Any] = {
    "sum": lambda m: m.data.Dataset.range(10).reduce(np.int64(0), lambda s, x: s + x),
    "tuple_elements": lambda m: m.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).reduce(
        0, lambda s, e: s + e[0] * e[1]
    ),
    "state_pair": lambda m: m.data.Dataset.from_tensor_slices(_x(6)).reduce(
        (np.float32(0.0), np.int64(0)),
        lambda s, r: (s[0] + m.reduce_sum(r), s[1] + 1),
    ),
}

#: `keras.utils`'s datasets cut from arrays: each gives one dataset or a (left, right) pair.
_series = np.arange(60.0).reshape(30, 2)
UTILS: dict[str, Any] = {
    "timeseries_targets": lambda k: k.utils.timeseries_dataset_from_array(
        _series, np.arange(30) * 10, sequence_length=3, sampling_rate=2, batch_size=4
    ),
    "timeseries_stride": lambda k: k.utils.timeseries_dataset_from_array(
        np.arange(10), None, sequence_length=3, sequence_stride=2, batch_size=None
    ),
    "timeseries_range": lambda k: k.utils.timeseries_dataset_from_array(
        _series, np.arange(30), sequence_length=4, start_index=5, end_index=25, batch_size=5
    ),
    "timeseries_short_targets": lambda k: k.utils.timeseries_dataset_from_array(
        _series, np.arange(6), sequence_length=5, batch_size=4
    ),
    "timeseries_default_batch": lambda k: k.utils.timeseries_dataset_from_array(
        np.arange(400.0, dtype=np.float32), np.arange(400), sequence_length=7
    ),
    "split_array": lambda k: k.utils.split_dataset(np.arange(10), left_size=0.8),
    "split_tuple_shuffled": lambda k: k.utils.split_dataset(
        (np.arange(10), np.arange(10.0) * 2), left_size=3, shuffle=True, seed=4
    ),
    "split_list": lambda k: k.utils.split_dataset(
        [np.arange(12).reshape(6, 2), np.arange(6)], right_size=2
    ),
}


def run_utils(m: Any, keras: Any, name: str) -> list[Any]:
    """The elements of the dataset(s) `UTILS[name]` makes."""
    made = UTILS[name](keras)
    datasets = made if isinstance(made, tuple) else (made,)
    return [[_record(e) for e in ds.as_numpy_iterator()] for ds in datasets]


#: Splits of datasets (run on `m.data`): (dataset, keyword arguments).
SPLITS: dict[str, Any] = {
    "batched": lambda m: (m.data.Dataset.range(10).batch(3), {"right_size": 0.3}),
    "tuple_elements": lambda m: (
        m.data.Dataset.from_tensor_slices((np.arange(8), np.arange(16).reshape(8, 2))),
        {"left_size": 0.5, "right_size": 0.25, "shuffle": True, "seed": 7},
    ),
}


def run_split(m: Any, keras: Any, name: str) -> list[Any]:
    dataset, kwargs = SPLITS[name](m)
    return [
        [_record(e) for e in ds.as_numpy_iterator()]
        for ds in keras.utils.split_dataset(dataset, **kwargs)
    ]


#: How many elements a case's record keeps (cases are finite except the `take`n ones).
LIMIT = 40


def _leaf(value: Any) -> dict[str, Any]:
    a = np.asarray(value)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": a.ravel().tolist()}


def _record(element: Any) -> Any:
    if isinstance(element, dict):
        return {"dict": {k: _record(v) for k, v in element.items()}}
    if isinstance(element, tuple):
        return {"tuple": [_record(v) for v in element]}
    return _leaf(element)


def _spec(spec: Any) -> Any:
    if isinstance(spec, dict):
        return {"dict": {k: _spec(v) for k, v in spec.items()}}
    if isinstance(spec, tuple):
        return {"tuple": [_spec(v) for v in spec]}
    shape = (
        None if spec.shape is None or getattr(spec.shape, "rank", 0) is None else list(spec.shape)
    )
    return {"dtype": spec.dtype.name, "shape": shape}


def run_case(m: Any, name: str) -> dict[str, Any]:
    ds = CASES[name](m)
    elements = [_record(e) for e in itertools.islice(ds.as_numpy_iterator(), LIMIT)]
    return {
        "elements": elements,
        "cardinality": int(ds.cardinality()),
        "spec": _spec(ds.element_spec),
    }


def _fit_model(keras: Any) -> Any:
    model = keras.Sequential(
        [keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)]
    )
    rng = np.random.default_rng(7)
    model.set_weights([(rng.normal(size=w.shape) * 0.5).astype(np.float32) for w in model.weights])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


def fit_run(m: Any, keras: Any) -> dict[str, np.ndarray]:
    """`fit` on datasets: losses per epoch and the final weights of each run."""
    x = _x(20, 3, seed=3)
    y = (x @ np.array([[0.5], [-1.0], [2.0]], np.float32) + 0.1).astype(np.float32)
    D = m.data.Dataset
    runs = {
        "finite": (D.from_tensor_slices((x, y)).batch(6), {"epochs": 3}),
        "repeated": (
            D.from_tensor_slices((x, y)).batch(6).repeat(),
            {"epochs": 3, "steps_per_epoch": 5},
        ),
        "fewer_steps": (D.from_tensor_slices((x, y)).batch(8), {"epochs": 3, "steps_per_epoch": 2}),
        "validation": (
            D.from_tensor_slices((x[:14], y[:14])).batch(5),
            {"epochs": 2, "validation_data": D.from_tensor_slices((x[14:], y[14:])).batch(4)},
        ),
        "mapped": (
            D.from_tensor_slices((x, y)).map(lambda a, b: (a * 2.0, b)).batch(7),
            {"epochs": 2},
        ),
    }
    out: dict[str, np.ndarray] = {}
    for name, (ds, kwargs) in runs.items():
        model = _fit_model(keras)
        history = model.fit(ds, verbose=0, **kwargs)
        for k, v in history.history.items():
            out[f"{name}/{k}"] = np.array(v, np.float32)
        for i, w in enumerate(model.get_weights()):
            out[f"{name}/w{i}"] = np.asarray(w, np.float32)
    model = _fit_model(keras)
    evaluated = model.evaluate(D.from_tensor_slices((x, y)).batch(6), verbose=0)
    out["evaluate"] = np.array(evaluated, np.float32)
    out["predict"] = np.asarray(model.predict(D.from_tensor_slices(x).batch(7), verbose=0))
    return out


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    record: dict[str, Any] = {"cases": {}, "reductions": {}, "fit": {}}
    for case in CASES:
        record["cases"][case] = run_case(tf, case)
    for name, reduction in REDUCTIONS.items():
        result = reduction(tf)
        record["reductions"][name] = _record(
            tuple(np.asarray(r) for r in result)
            if isinstance(result, tuple)
            else np.asarray(result)
        )
    record["utils"] = {name: run_utils(tf, tf.keras, name) for name in UTILS}
    record["splits"] = {name: run_split(tf, tf.keras, name) for name in SPLITS}
    for k, v in fit_run(tf, tf.keras).items():
        record["fit"][k] = _leaf(v)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=None, separators=(",", ":"))
    print(f"wrote {path}: {len(record['cases'])} pipelines, {len(record['fit'])} fit arrays")
