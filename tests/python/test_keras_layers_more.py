"""Keras 3 layers added after the first layer set, against Keras (tests/reference/
gen_layers_more.py): RMSNormalization, UnitNormalization, ActivityRegularization, Identity,
DepthwiseConv1D, SeparableConv1D and the functional merges: outputs, losses and gradients
with Keras's weights; float64 central differences; Keras's other class names; bad axes."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_layers_more as gen

REF = np.load(os.path.join(HERE, "..", "reference", "layers_more.npz"), allow_pickle=False)
L = rt.keras.layers
CLOSE = {"rtol": 1e-5, "atol": 1e-6}


@pytest.mark.parametrize("name", sorted(gen.LAYERS))
def test_layer_matches_keras(name):
    cls, kwargs, shape = gen.LAYERS[name]
    layer = getattr(L, cls)(**kwargs)
    x = rt.Variable(gen.x_for(name, shape))
    layer(rt.zeros(shape))
    assert len(layer.weights) == sum(1 for k in REF.files if k.startswith(f"{name}/weight"))
    for i, w in enumerate(layer.weights):
        w.assign(REF[f"{name}/weight{i}"])
    with rt.GradientTape() as tape:
        y = layer(x)
        total = rt.reduce_sum(y * gen.x_for(name + "w", tuple(y.shape))) + sum(
            layer.losses, rt.constant(0.0)
        )
    np.testing.assert_allclose(y.numpy(), REF[f"{name}/y"], **CLOSE)
    np.testing.assert_allclose([float(v) for v in layer.losses], REF[f"{name}/losses"], rtol=1e-6)
    grads = tape.gradient(total, [x, *layer.trainable_weights])
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), REF[f"{name}/grad{i}"], **CLOSE)


@pytest.mark.parametrize("name", sorted(gen.MERGES))
def test_functional_merge_matches_keras(name):
    fn, kwargs, n, shape = gen.MERGES[name]
    xs = [rt.Variable(gen.x_for(name, shape, k)) for k in range(n)]
    with rt.GradientTape() as tape:
        y = getattr(L, fn)(xs, **kwargs)
        total = rt.reduce_sum(y * gen.x_for(name + "w", tuple(y.shape)))
    np.testing.assert_allclose(y.numpy(), REF[f"merge/{name}/y"], **CLOSE)
    for k, g in enumerate(tape.gradient(total, xs)):
        np.testing.assert_allclose(g.numpy(), REF[f"merge/{name}/grad{k}"], **CLOSE)


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.RMSNormalization(axis=[1, 2], epsilon=0.1, dtype="float64"),
        lambda: L.UnitNormalization(axis=[1, 2], dtype="float64"),
        lambda: L.DepthwiseConv1D(3, depth_multiplier=2, padding="same", dtype="float64"),
        lambda: L.SeparableConv1D(2, 3, strides=2, dtype="float64"),
    ],
)
def test_gradients_match_central_differences(make):
    layer = make()
    x = np.random.default_rng(0).normal(size=(2, 6, 4))
    layer(rt.constant(x))
    weights = [w.numpy() for w in layer.trainable_weights]

    def f(x, *ws):
        for v, w in zip(layer.trainable_weights, ws):
            v.assign(w)
        return rt.reduce_sum(rt.sin(layer(x)))

    assert rt.test.gradcheck(lambda x: f(x, *weights), [x], second_order=False)


def test_keras_other_names_are_the_same_classes():
    assert L.MaxPool2D is L.MaxPooling2D and L.AvgPool1D is L.AveragePooling1D
    assert L.GlobalAvgPool3D is L.GlobalAveragePooling3D
    assert L.GlobalMaxPool1D is L.GlobalMaxPooling1D
    assert L.Convolution2D is L.Conv2D and L.Convolution3DTranspose is L.Conv3DTranspose
    assert L.SeparableConvolution1D is L.SeparableConv1D


def test_serialize_and_deserialize_round_trip():
    layer = L.RMSNormalization(axis=[1, 2], epsilon=0.25)
    again = L.deserialize(L.serialize(layer))
    assert type(again) is L.RMSNormalization and again.epsilon == 0.25 and again.axis == [1, 2]


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="out of bounds"):
        L.RMSNormalization(axis=3)(rt.ones([2, 3]))
    with pytest.raises(ValueError, match="out of bounds"):
        L.UnitNormalization(axis=-3)(rt.ones([2, 3]))
    with pytest.raises(TypeError, match="axis"):
        L.UnitNormalization(axis="last")
    with pytest.raises(ValueError, match="l1"):
        L.ActivityRegularization(l1=-1.0)
