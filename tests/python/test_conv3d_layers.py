"""rt.keras.layers' volumetric layers against Keras 3 (TensorFlow 2.21): outputs and gradients
with set weights, a small fit of a Conv3D model (losses per epoch), and saving.

tests/reference/gen_conv3d_layers.py built each layer in Keras, set its weights to fixed
values, and stored the numbers; here the same layer is built in rustape, given the same weights
(in `layer.weights` order, whose names must match Keras'), and run on the same input.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rustape as rt

L = rt.keras.layers
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference")
with open(os.path.join(HERE, "conv3d_layers.json")) as fh:
    REFERENCE = json.load(fh)
CASES = REFERENCE["cases"]
ARRAYS = np.load(os.path.join(HERE, "conv3d_layers.npz"), allow_pickle=False)

#: float32: products and sums in another order differ in the last bits.
RTOL, ATOL = 2e-5, 2e-5


def weights(shape: tuple, salt: int) -> np.ndarray:
    """gen_conv3d_layers.py's fixed weights."""
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 7 + salt * 13) % 17) / 17.0).reshape(shape).astype(np.float32)


def close(got: Any, want: np.ndarray, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs Keras' {want.shape}"
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_keras(case: dict) -> None:
    name = case["name"]
    layer = getattr(L, case["layer"])(**case["kwargs"])
    x = rt.constant(ARRAYS[f"{name}:x"])
    layer(x)  # build
    assert [v.name.split("/")[-1].split(":")[0] for v in layer.weights] == case["weights"], name
    for j, v in enumerate(layer.weights):
        v.assign(ARRAYS[f"{name}:w{j}"])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = rt.reduce_sum(y * weights(tuple(y.shape), 0))
    grads = tape.gradient(loss, [x, *layer.trainable_weights])
    close(y, ARRAYS[f"{name}:y"], f"{name}: output")
    close(grads[0], ARRAYS[f"{name}:dx"], f"{name}: gradient of the input")
    for j, g in enumerate(grads[1:]):
        close(g, ARRAYS[f"{name}:dw{j}"], f"{name}: gradient of {case['weights'][j]}")
    # compute_output_shape agrees with the output (the batch dimension left unknown).
    predicted = layer.compute_output_shape((None, *case["shape"][1:]))
    assert tuple(predicted) == (None, *y.shape[1:]), name


def test_every_volumetric_layer_is_covered() -> None:
    assert {c["layer"] for c in CASES} == {
        "Conv3D",
        "Conv3DTranspose",
        "MaxPooling3D",
        "AveragePooling3D",
        "GlobalAveragePooling3D",
        "GlobalMaxPooling3D",
        "ZeroPadding3D",
        "UpSampling3D",
        "Cropping3D",
    }


def fit_model() -> Any:
    return rt.keras.Sequential(
        [
            rt.keras.Input((4, 6, 6, 2)),
            L.Conv3D(4, 3, padding="same", activation="relu"),
            L.MaxPooling3D(2),
            L.GlobalAveragePooling3D(),
            L.Dense(3),
        ]
    )


def test_fit_matches_keras_losses_per_epoch() -> None:
    fit = REFERENCE["fit"]
    model = fit_model()
    model.set_weights([ARRAYS[f"fit:w{j}"] for j in range(len(model.weights))])
    model.compile(optimizer=rt.keras.optimizers.SGD(learning_rate=0.1), loss=fit["loss"])
    history = model.fit(
        ARRAYS["fit:x"],
        ARRAYS["fit:y"],
        batch_size=fit["batch_size"],
        epochs=fit["epochs"],
        shuffle=False,
        verbose=0,
    )
    np.testing.assert_allclose(history.history["loss"], ARRAYS["fit:losses"], rtol=1e-5)


def test_saved_models_load_with_the_same_outputs(tmp_path: Path) -> None:
    model = rt.keras.Sequential(
        [
            rt.keras.Input((4, 6, 6, 2)),
            L.ZeroPadding3D(1),
            L.Conv3D(4, 3, strides=(1, 2, 2), groups=2, activation="relu"),
            L.Conv3DTranspose(2, 2, strides=2, output_padding=1),
            L.Cropping3D(((1, 0), (0, 1), 1)),
            L.UpSampling3D((1, 1, 2)),
            L.AveragePooling3D(2, padding="same", data_format="channels_first"),
            L.MaxPooling3D((1, 2, 2)),
            L.GlobalMaxPooling3D(),
        ]
    )
    x = np.random.default_rng(5).normal(size=(2, 4, 6, 6, 2)).astype(np.float32)
    model.save(tmp_path / "volumes.keras")
    loaded = rt.keras.models.load_model(tmp_path / "volumes.keras")
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    assert [type(a) for a in loaded.layers] == [type(b) for b in model.layers]


def test_channels_first_is_channels_last_transposed() -> None:
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 3, 4, 5, 6)).astype(np.float32)
    last = np.transpose(x, (0, 2, 3, 4, 1))
    for make in (
        lambda f: L.Conv3D(6, 2, padding="same", groups=3, data_format=f),
        lambda f: L.Conv3DTranspose(2, 2, strides=2, data_format=f),
        lambda f: L.MaxPooling3D(2, data_format=f),
        lambda f: L.ZeroPadding3D(((1, 0), 2, 0), data_format=f),
        lambda f: L.UpSampling3D((2, 1, 1), data_format=f),
        lambda f: L.Cropping3D(1, data_format=f),
        lambda f: L.GlobalAveragePooling3D(data_format=f),
    ):
        a, b = make("channels_first"), make("channels_last")
        ya = a(x)
        b(last)
        b.set_weights(a.get_weights())
        yb = b(last).numpy()
        ya = ya.numpy()
        if ya.ndim == 5:
            ya = np.transpose(ya, (0, 2, 3, 4, 1))
        np.testing.assert_allclose(ya, yb, rtol=1e-6, atol=1e-6, err_msg=type(a).__name__)


def test_grouped_conv3d_is_per_group_convolutions() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(1, 3, 4, 4, 4)).astype(np.float32)
    layer = L.Conv3D(6, 2, groups=2, use_bias=False)
    y = layer(x).numpy()
    k = layer.kernel.numpy()  # [2, 2, 2, 2, 6]: two input channels per group, 3 outputs each
    for g in range(2):
        part = rt.nn.conv3d(x[..., 2 * g : 2 * g + 2], k[..., 3 * g : 3 * g + 3], 1, "VALID")
        np.testing.assert_allclose(y[..., 3 * g : 3 * g + 3], part.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda: L.Conv3D(4, 3)(rt.ones([1, 4, 4, 2])), ValueError),
        (lambda: L.Conv3D(4, 0), ValueError),
        (lambda: L.Conv3D(3, 2, groups=2), ValueError),
        (lambda: L.Conv3D(4, 2, strides=2, dilation_rate=2), ValueError),
        (lambda: L.Conv3DTranspose(2, 2, strides=2, output_padding=2), ValueError),
        (lambda: L.MaxPooling3D(2)(rt.ones([1, 4, 4, 2])), ValueError),
        (lambda: L.ZeroPadding3D((1, 2)), ValueError),
        (lambda: L.ZeroPadding3D(-1), ValueError),
        (lambda: L.ZeroPadding3D("a"), TypeError),
        (lambda: L.Cropping3D(2)(rt.ones([1, 4, 4, 4, 1])), ValueError),
        (lambda: L.UpSampling3D((2, 2))(rt.ones([1, 2, 2, 2, 1])), ValueError),
    ],
)
def test_bad_arguments(make: Any, error: type) -> None:
    with pytest.raises(error):
        make()


def test_positional_arguments_in_keras_order() -> None:
    t = L.Conv3DTranspose(2, 3, 2, "same", "channels_first", 1)
    assert (t.data_format, t.output_padding) == ("channels_first", (1, 1, 1))
    c = L.Conv3D(4, 3, 1, "valid", "channels_last", 2, 2)
    assert (c.dilation_rate, c.groups) == ((2, 2, 2), 2)
    assert L.ZeroPadding3D(2).padding == ((2, 2), (2, 2), (2, 2))
    assert L.Cropping3D((1, 2, 3)).cropping == ((1, 1), (2, 2), (3, 3))
