"""Keras 3's `Resizing` and `CenterCrop` against Keras on TensorFlow 2.21
(tests/reference/gen_image.py, `LAYERS`): methods, crop and pad to the aspect ratio, fill value,
channels first, crops smaller and larger than the image; gradients through the layers; bad
arguments."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
from gen_image import LAYERS

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "image.npz"), allow_pickle=False
)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_matches_keras(name: str) -> None:
    cls, kwargs, _ = LAYERS[name]
    layer = getattr(rt.keras.layers, cls)(**kwargs)
    x = _DATA[f"layer_{name}_x"]
    want = _DATA[f"layer_{name}_y"]
    got = layer(x)
    assert tuple(got.shape) == want.shape
    assert tuple(layer.compute_output_shape(x.shape)) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)


def test_gradients_flow_through_the_layers() -> None:
    x = rt.constant(np.random.default_rng(3).uniform(size=(1, 5, 6, 2)))
    for layer in (
        rt.keras.layers.Resizing(3, 4, dtype="float64"),
        rt.keras.layers.Resizing(4, 4, pad_to_aspect_ratio=True, dtype="float64"),
        rt.keras.layers.CenterCrop(3, 3, dtype="float64"),
    ):
        with rt.GradientTape() as tape:
            tape.watch(x)
            total = rt.reduce_sum(layer(x))
        g = tape.gradient(total, x).numpy()
        assert g.shape == (1, 5, 6, 2) and np.isfinite(g).all() and g.sum() > 0


def test_bad_arguments_are_errors() -> None:
    with pytest.raises(ValueError, match="Resizing"):
        rt.keras.layers.Resizing(0, 3)
    with pytest.raises(ValueError, match="Resizing"):
        rt.keras.layers.Resizing(3, 3, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(NotImplementedError, match="fill_mode"):
        rt.keras.layers.Resizing(3, 3, pad_to_aspect_ratio=True, fill_mode="reflect")
    with pytest.raises(ValueError, match="CenterCrop.*data_format"):
        rt.keras.layers.CenterCrop(3, 3, data_format="nchw")
