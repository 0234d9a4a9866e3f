"""`rt.data` beyond TensorFlow's stored values (test_data_reference.py): random orders
(shuffle buffers, sampling) by their statistics and seeding rules, the row-gathering path
against the element-by-element one, file caches, `fit`'s use of datasets, and clear errors."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import pytest
import rustape as rt

D = rt.data.Dataset


def _ints(ds: Any) -> list[int]:
    return [int(x) for x in ds]


def test_elements_are_tensors_and_numpy_iterator_gives_arrays() -> None:
    ds = D.from_tensor_slices((np.arange(4.0), [1, 2, 3, 4])).batch(3)
    x, y = next(iter(ds))
    assert isinstance(x, rt.Tensor) and x.dtype == rt.float64 and y.dtype == rt.int32
    first = next(ds.as_numpy_iterator())
    assert isinstance(first[0], np.ndarray) and first[1].tolist() == [1, 2, 3]
    scalar = next(D.range(2).as_numpy_iterator())
    assert isinstance(scalar, np.int64)


def test_with_options_returns_a_new_dataset() -> None:
    base = D.range(3)
    options = rt.data.Options()
    options.deterministic = False
    tuned = base.with_options(options)
    assert tuned.options().deterministic is False and base.options().deterministic is None
    assert _ints(tuned) == [0, 1, 2]


def test_every_pass_is_new() -> None:
    calls = []
    ds = D.range(3).map(lambda x: calls.append(1) or x * 2)
    assert _ints(ds) == [0, 2, 4] and _ints(ds) == [0, 2, 4]
    assert len(calls) == 6


@pytest.mark.parametrize("buffer", [1, 3, 10, 50])
def test_shuffle_is_a_permutation_within_the_buffer(buffer: int) -> None:
    n = 30
    order = _ints(D.range(n).shuffle(buffer, seed=4))
    assert sorted(order) == list(range(n))
    # The k-th output comes from the first k + buffer inputs (TensorFlow's buffer).
    assert all(v < k + buffer for k, v in enumerate(order))
    if buffer == 1:
        assert order == list(range(n))


def test_full_buffer_shuffle_is_uniform() -> None:
    # The first element over many seeds: each of 6 values equally likely (chi-square, 5 dof).
    n, trials = 6, 3000
    counts = np.zeros(n)
    for seed in range(trials):
        counts[int(next(iter(D.range(n).shuffle(n, seed=seed))))] += 1
    chi2 = ((counts - trials / n) ** 2 / (trials / n)).sum()
    assert chi2 < 20.5  # p = 0.001


def test_partial_buffer_first_element_is_uniform_over_the_buffer() -> None:
    counts = np.zeros(4)
    trials = 2000
    for seed in range(trials):
        first = int(next(iter(D.range(20).shuffle(4, seed=seed))))
        assert first < 4
        counts[first] += 1
    chi2 = ((counts - trials / 4) ** 2 / (trials / 4)).sum()
    assert chi2 < 16.3  # p = 0.001, 3 dof


def test_shuffle_seeds_and_reshuffling() -> None:
    ds = D.range(40).shuffle(40, seed=3)
    first, second = _ints(ds), _ints(ds)
    assert first != second  # a new order each pass
    again = D.range(40).shuffle(40, seed=3)
    assert _ints(again) == first and _ints(again) == second  # the same sequence of orders
    fixed = D.range(40).shuffle(40, seed=3, reshuffle_each_iteration=False)
    assert _ints(fixed) == _ints(fixed)
    repeated = _ints(D.range(10).shuffle(10, seed=1).repeat(2))
    assert sorted(repeated[:10]) == sorted(repeated[10:]) == list(range(10))
    assert repeated[:10] != repeated[10:]


def test_global_seed_makes_shuffles_repeat() -> None:
    rt.random.set_seed(11)
    a = _ints(D.range(50).shuffle(50))
    rt.random.set_seed(11)
    b = _ints(D.range(50).shuffle(50))
    assert a == b and sorted(a) == list(range(50))


@pytest.mark.parametrize("buffer", [7, 100])
def test_gathered_rows_equal_element_by_element(buffer: int) -> None:
    rows = np.random.default_rng(0).normal(size=(37, 5)).astype(np.float32)
    labels = np.arange(37)

    def pipeline(source: Any) -> list[Any]:
        return list(
            source.shuffle(buffer, seed=9).repeat(2).skip(3).take(60).batch(8).as_numpy_iterator()
        )

    gathered = pipeline(D.from_tensor_slices((rows, labels)))
    one_by_one = pipeline(D.from_tensor_slices((rows, labels)).map(lambda x, y: (x, y)))
    assert len(gathered) == len(one_by_one) == 8
    for (xa, ya), (xb, yb) in zip(gathered, one_by_one):
        np.testing.assert_array_equal(xa, xb)
        np.testing.assert_array_equal(ya, yb)
        np.testing.assert_array_equal(xa, rows[ya])


def test_large_shuffled_epoch_holds_every_row_once() -> None:
    x = np.arange(100_000, dtype=np.int64)
    ds = D.from_tensor_slices((x, x * 2)).shuffle(100_000, seed=0).batch(256)
    seen = []
    for a, b in ds.as_numpy_iterator():
        np.testing.assert_array_equal(b, a * 2)
        seen.append(a)
    assert np.array_equal(np.sort(np.concatenate(seen)), x)


def test_sample_from_datasets_follows_weights() -> None:
    ds = D.sample_from_datasets(
        [D.from_tensors(0).repeat(), D.from_tensors(1).repeat()], weights=[0.8, 0.2], seed=5
    )
    draws = np.array(_ints(ds.take(5000)))
    ones = draws.sum()
    assert abs(ones - 1000) < 4 * np.sqrt(5000 * 0.2 * 0.8)
    finite = [D.range(5), D.range(100, 103)]
    assert sorted(_ints(D.sample_from_datasets(finite, seed=2))) == [0, 1, 2, 3, 4, 100, 101, 102]
    # Stopping at the first draw of an empty dataset: a prefix of the other's elements.
    lengths = set()
    for seed in range(20):
        stopped = _ints(
            D.sample_from_datasets([D.range(0), D.range(3)], seed=seed, stop_on_empty_dataset=True)
        )
        assert stopped == list(range(len(stopped)))
        lengths.add(len(stopped))
    assert 0 in lengths and len(lengths) > 1


def test_file_cache_is_reused_and_reads_no_code(tmp_path: Any) -> None:
    calls = []
    prefix = str(tmp_path / "squares")

    def pipeline() -> Any:
        return (
            D.range(4)
            .map(lambda x: calls.append(1) or (x * x, rt.cast(x, rt.float32)))
            .cache(prefix)
        )

    first = list(pipeline().as_numpy_iterator())
    assert len(calls) == 4 and os.path.exists(prefix + ".rustape-cache.npz")
    second = list(pipeline().as_numpy_iterator())  # a new dataset reads the file
    assert len(calls) == 4
    assert [(int(a), float(b)) for a, b in second] == [(int(a), float(b)) for a, b in first]
    # A file holding a pickled object array is refused, not unpickled.
    objects = np.empty(1, dtype=object)
    objects[0] = {"run": "code"}
    with open(prefix + ".rustape-cache.npz", "wb") as f:
        np.savez(
            f,
            count=np.asarray(1),
            structure=np.asarray('{"tuple": [0, 0]}'),
            e0_0=objects,
            e0_1=objects,
        )
    with pytest.raises(ValueError, match="pickle"):
        list(pipeline())


def test_fit_reads_datasets_like_keras() -> None:
    x = np.random.default_rng(1).normal(size=(30, 2)).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 0).astype(np.float32)
    model = rt.keras.Sequential(
        [rt.keras.Input((2,)), rt.keras.layers.Dense(1, activation="sigmoid")]
    )
    model.compile(optimizer="sgd", loss="binary_crossentropy")
    history = model.fit(
        D.from_tensor_slices((x, y)).shuffle(30, seed=0).batch(8), epochs=2, verbose=0
    )
    assert len(history.history["loss"]) == 2
    with pytest.raises(ValueError, match="steps_per_epoch"):
        model.fit(D.from_tensor_slices((x, y)).batch(8).repeat(), epochs=1, verbose=0)
    with pytest.raises(ValueError, match="steps"):
        model.evaluate(D.from_tensor_slices((x, y)).batch(8).repeat(), verbose=0)
    weighted = model.fit(
        D.from_tensor_slices((x, y)).batch(10), class_weight={0: 1.0, 1: 3.0}, epochs=1, verbose=0
    )
    assert np.isfinite(weighted.history["loss"][0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(D.from_tensor_slices((x, y)).batch(10), steps_per_epoch=2, epochs=2, verbose=0)
    assert any("ran out of data" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: D.range(3).batch(0), ValueError, "batch_size"),
        (lambda: D.range(3).batch(2.5), TypeError, "batch_size"),
        (lambda: D.range(3).shard(2, 2), ValueError, "index"),
        (lambda: D.range(3).shuffle(0), ValueError, "buffer_size"),
        (lambda: D.range(3).window(0), ValueError, "size"),
        (lambda: D.range(1, 2, 0), ValueError, "step"),
        (lambda: D.from_tensor_slices(3), ValueError, "rank"),
        (lambda: D.from_tensor_slices((np.arange(3), np.arange(4))), ValueError, "first"),
        (lambda: D.from_tensor_slices([object(), object()]), TypeError, "from_tensor_slices"),
        (lambda: D.range(3).map(3), TypeError, "function"),
        (
            lambda: D.range(2).concatenate(D.range(2).map(lambda x: rt.cast(x, rt.float32))),
            TypeError,
            "dtype",
        ),
        (lambda: D.from_generator(5), TypeError, "callable"),
        (lambda: D.sample_from_datasets([D.range(2)], weights=[-1.0]), ValueError, "weights"),
        (
            lambda: D.range(3).group_by_window(lambda x: x, lambda k, w: w),
            ValueError,
            "exactly one",
        ),
        (lambda: D.range(3).bucket_by_sequence_length(lambda x: 1, [2], [1]), ValueError, "len"),
    ],
)
def test_bad_arguments_raise_at_once(make: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: D.range(1, 4).map(lambda n: rt.fill([n], n)).batch(2), ValueError, "padded_batch"),
        (lambda: D.range(3).filter(lambda x: x), ValueError, "bool scalar"),
        (lambda: D.range(3).map(lambda x: None), TypeError, "None"),
        (lambda: D.range(3).unbatch(), ValueError, "scalar"),
        (lambda: D.from_tensors((np.arange(3), np.arange(4))).unbatch(), ValueError, "leading"),
        (
            lambda: D.range(1, 4).map(lambda n: rt.fill([n], n)).padded_batch(3, padded_shapes=[2]),
            ValueError,
            "longer",
        ),
        (lambda: D.range(3).flat_map(lambda x: x), TypeError, "Dataset"),
        (
            lambda: D.from_generator(
                lambda: iter([[1, 2]]), output_signature=rt.TensorSpec([3], rt.int32)
            ),
            ValueError,
            "shape",
        ),
        (lambda: D.range(3).scan(0, lambda s, x: s), ValueError, "pair"),
        (
            lambda: D.range(3).scan(np.int64(0), lambda s, x: (rt.cast(s, rt.float32), x)),
            ValueError,
            "state",
        ),
        (lambda: D.from_tensor_slices([0.5, 1.5]).unique(), TypeError, "integer"),
        (
            lambda: D.range(3).group_by_window(lambda x: rt.cast(x, rt.int32), lambda k, w: w, 2),
            ValueError,
            "int64",
        ),
        (lambda: D.range(3).group_by_window(lambda x: x, lambda k, w: 3, 1), TypeError, "Dataset"),
    ],
)
def test_bad_elements_raise_while_iterating(make: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        list(make())


def test_lengths_and_single_elements() -> None:
    assert len(D.range(7).batch(3)) == 3
    with pytest.raises(TypeError, match="infinite"):
        len(D.range(3).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(D.range(3).filter(lambda x: x > 0))
    assert int(D.range(1).get_single_element()) == 0
    with pytest.raises(ValueError, match="more than one"):
        D.range(2).get_single_element()
    with pytest.raises(ValueError, match="empty"):
        D.range(0).get_single_element()
    assert (
        int(rt.data.experimental.cardinality(D.range(3).filter(lambda x: x > 0)))
        == rt.data.UNKNOWN_CARDINALITY
    )


def test_shuffled_timeseries_windows_are_whole_and_paired() -> None:
    data = np.arange(100.0).reshape(50, 2)
    ds = rt.keras.utils.timeseries_dataset_from_array(
        data,
        np.arange(50) * 3,
        sequence_length=4,
        sampling_rate=2,
        batch_size=5,
        shuffle=True,
        seed=3,
    )
    starts = []
    for windows, targets in ds.as_numpy_iterator():
        for window, target in zip(windows, targets):
            start = int(window[0, 0]) // 2
            np.testing.assert_array_equal(window, data[start : start + 8 : 2])
            assert target == start * 3
            starts.append(start)
    assert sorted(starts) == list(range(44)) and starts != sorted(starts)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sampling_rate": 0}, "sampling_rate"),
        ({"sequence_stride": 20}, "sequence_stride"),
        ({"start_index": 12}, "start_index"),
        ({"start_index": 4, "end_index": 3}, "end_index"),
    ],
)
def test_timeseries_bad_arguments(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rt.keras.utils.timeseries_dataset_from_array(np.arange(10), None, 3, **kwargs)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((np.arange(5),), ValueError, "At least one"),
        ((np.arange(5), 5), ValueError, "left_size"),
        ((np.arange(5), 0.6, 0.6), ValueError, "greater than 1"),
        ((np.arange(5), np.int64(2)), TypeError, "left_size"),
        ((np.arange(5), 4, 3), ValueError, "smaller than"),
        (("text", 2), TypeError, "rt.data.Dataset"),
        (((np.arange(3), np.arange(4)), 1), ValueError, "different lengths"),
    ],
)
def test_split_dataset_bad_arguments(args: tuple[Any, ...], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        rt.keras.utils.split_dataset(*args)
