"""`Model.train_on_batch`, `test_on_batch` and `predict_on_batch` against Keras 3
(tests/reference/gen_on_batch.py): the returned logs (each call's own batch: Keras 3 resets
the metrics first), class weights, the weights after three steps, a prediction."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_on_batch as gen

REF = np.load(os.path.join(HERE, "..", "reference", "on_batch.npz"), allow_pickle=False)


def test_on_batch_methods_match_keras():
    model = rt.keras.Sequential(
        [rt.keras.Input((4,)), rt.keras.layers.Dense(1, activation="sigmoid")]
    )
    model.compile(
        optimizer=rt.keras.optimizers.SGD(0.1), loss="binary_crossentropy", metrics=["mae"]
    )
    model.layers[0].kernel.assign(gen.KERNEL)
    model.layers[0].bias.assign(gen.BIAS)
    for i in range(2):
        np.testing.assert_allclose(
            model.train_on_batch(gen.X[i], gen.Y[i]), REF[f"train{i}"], rtol=1e-6
        )
    logs = model.train_on_batch(gen.X[2], gen.Y[2], class_weight=gen.CLASS_WEIGHT, return_dict=True)
    np.testing.assert_allclose([logs["loss"], logs["mae"]], REF["train2"], rtol=1e-6)
    np.testing.assert_allclose(model.layers[0].kernel.numpy(), REF["kernel"], rtol=1e-6)
    model.reset_metrics()
    for i in range(2):
        np.testing.assert_allclose(
            model.test_on_batch(gen.X[i], gen.Y[i]), REF[f"test{i}"], rtol=1e-6
        )
    np.testing.assert_allclose(model.predict_on_batch(gen.X[0]), REF["predict"], rtol=1e-6)


def test_on_batch_needs_compile_and_one_kind_of_weight():
    model = rt.keras.Sequential([rt.keras.Input((2,)), rt.keras.layers.Dense(1)])
    with pytest.raises(RuntimeError, match="compile"):
        model.train_on_batch(np.ones((2, 2)), np.ones((2, 1)))
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="cannot be specified at the same time"):
        model.train_on_batch(
            np.ones((2, 2)), np.ones((2, 1)), sample_weight=np.ones(2), class_weight={0: 1.0}
        )
