"""rt.keras.layers.Discretization against Keras 3 (tests/reference/gen_discretization.py):
outputs for given boundaries in every output mode, boundaries learned by `adapt` from arrays
and from batches (Keras's quantile summaries), config round trips and bad arguments."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_discretization as gen

REF = np.load(os.path.join(HERE, "..", "reference", "discretization.npz"), allow_pickle=False)
L = rt.keras.layers


@pytest.mark.parametrize("name", sorted(gen.CALLS))
def test_outputs_match_keras(name: str) -> None:
    kwargs, x = gen.CALLS[name]
    got = np.asarray(L.Discretization(**kwargs)(x))
    want = REF[f"call/{name}"]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(gen.ADAPTS))
def test_adapted_boundaries_match_keras(name: str) -> None:
    kwargs, data, steps = gen.ADAPTS[name]
    layer = L.Discretization(**kwargs)
    layer.adapt(data, steps=steps)
    # Keras's summaries round to float32 after each merge; rustape follows it step by step.
    want = REF[f"adapt/{name}/boundaries"]
    assert len(layer.bin_boundaries) == len(want)
    np.testing.assert_allclose(layer.bin_boundaries, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(np.asarray(layer(gen.X)), REF[f"adapt/{name}/output"])


def test_adapt_reads_a_dataset_and_learned_boundaries_survive_a_round_trip() -> None:
    data = np.random.default_rng(0).normal(size=400).astype(np.float32)
    from_array = L.Discretization(num_bins=4)
    from_array.adapt(data)
    from_dataset = L.Discretization(num_bins=4)
    from_dataset.adapt(rt.data.Dataset.from_tensor_slices(data).batch(400))
    assert from_dataset.bin_boundaries == from_array.bin_boundaries
    again = L.Discretization.from_config(from_array.get_config())
    assert again.bin_boundaries == from_array.bin_boundaries and again.num_bins == 4
    model = rt.keras.Sequential([rt.keras.Input((3,)), from_array])
    np.testing.assert_array_equal(
        model.predict(np.array([[-2.0, 0.0, 2.0]], np.float32), verbose=0),
        from_array(np.array([[-2.0, 0.0, 2.0]], np.float32)).numpy(),
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({}, "either `num_bins` or `bin_boundaries`"),
        ({"num_bins": 2, "bin_boundaries": [0.0]}, "should not be set"),
        ({"num_bins": -1}, "greater than or equal to 0"),
        ({"num_bins": 2, "output_mode": "tf_idf"}, "output_mode"),
        ({"num_bins": 2, "epsilon": 0.0}, "epsilon"),
        ({"bin_boundaries": [1.0, 0.0]}, "sorted"),
    ],
)
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        L.Discretization(**kwargs)(np.zeros(2, np.float32))


def test_adapt_needs_num_bins_and_call_needs_boundaries() -> None:
    with pytest.raises(ValueError, match="use `num_bins` instead"):
        L.Discretization(bin_boundaries=[0.0]).adapt(np.zeros(3))
    with pytest.raises(ValueError, match="needs num_bins >= 1 and some data"):
        L.Discretization(num_bins=3).adapt([])
