"""Keras 3's random augmentation layers: each layer's transform against Keras 3.15 for the
parameters Keras drew (tests/reference/gen_augment.py, float32 to 1e-5), and the draws by
their definitions (ranges, per-image independence, seeds reproducible), training against
inference, configs and bad arguments."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import rustape as rt

L = rt.keras.layers
_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "augment.npz"), allow_pickle=False
)
_CASES = sorted({k[3:-6] for k in _DATA.files if k.startswith("ly_") and k.endswith("_class")})
_PARAMETERS = (
    "flips",
    "angle",
    "height_zoom",
    "width_zoom",
    "translations",
    "contrast_factor",
    "rgb_delta",
)


def _layer(case: str):
    cls = str(_DATA[f"ly_{case}_class"])
    kwargs = json.loads(str(_DATA[f"ly_{case}_kwargs"]))
    return getattr(L, cls)(**kwargs)


def test_the_reference_covers_every_layer() -> None:
    classes = {str(_DATA[f"ly_{c}_class"]) for c in _CASES}
    assert classes == {
        "RandomFlip",
        "RandomRotation",
        "RandomZoom",
        "RandomTranslation",
        "RandomCrop",
        "RandomContrast",
        "RandomBrightness",
    }
    assert len(_CASES) == 16


@pytest.mark.parametrize("case", _CASES)
def test_transform_matches_keras_for_given_parameters(case: str) -> None:
    layer = _layer(case)
    x = _DATA[f"ly_{case}_x"]
    key = f"ly_{case}"
    if f"{key}_crop" in _DATA.files:
        transformation: object = tuple(int(v) for v in _DATA[f"{key}_crop"])
    elif f"{key}_angle" in _DATA.files:
        h, w = layer._hw(x.shape)
        transformation = layer.rotation_transformation(_DATA[f"{key}_angle"], h, w)
        matrix = transformation["rotation_matrix"].numpy()
        np.testing.assert_allclose(
            matrix.reshape(-1, 8), _DATA[f"{key}_rotation_matrix"].reshape(-1, 8), atol=2e-6
        )
    else:
        transformation = {
            p: _DATA[f"{key}_{p}"] for p in _PARAMETERS if f"{key}_{p}" in _DATA.files
        }
    y = layer.transform_images(x, transformation)
    want = _DATA[f"{key}_y"]
    assert y.shape == want.shape and y.dtype == rt.float32
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5 * scale)


def _draws(layer, x, key: str) -> np.ndarray:
    return np.asarray(layer.get_random_transformation(x)[key])


def test_draws_follow_their_definitions() -> None:
    x = rt.zeros([400, 4, 6, 1])
    rotation = L.RandomRotation((-0.1, 0.25), seed=3)
    angle = _draws(rotation, x, "angle")
    assert angle.shape == (400,) and angle.min() >= -36.0 and angle.max() <= 90.0
    assert angle.min() < -30.0 and angle.max() > 80.0  # spread over the range
    zoom = L.RandomZoom(0.3, (-0.5, 0.2), seed=4).get_random_transformation(x)
    hz, wz = np.asarray(zoom["height_zoom"]), np.asarray(zoom["width_zoom"])
    assert hz.shape == (400, 1) and 0.7 <= hz.min() and hz.max() <= 1.3
    assert 0.5 <= wz.min() and wz.max() <= 1.2 and not np.array_equal(hz, wz)
    same = L.RandomZoom(0.3, seed=4).get_random_transformation(x)
    np.testing.assert_array_equal(same["height_zoom"], same["width_zoom"])
    shift = _draws(L.RandomTranslation(0.5, (0.0, 0.25), seed=5), x, "translations")
    assert shift.shape == (400, 2)
    assert 0.0 <= shift[:, 0].min() and shift[:, 0].max() <= 0.25 * 6  # width: pixels
    assert -2.0 <= shift[:, 1].min() and shift[:, 1].max() <= 2.0
    flips = _draws(L.RandomFlip(seed=6), x, "flips")
    assert flips.shape == (400, 1, 1, 1) and 0.35 < flips.mean() < 0.65
    contrast = _draws(L.RandomContrast(0.4, seed=7), x, "contrast_factor")
    assert contrast.shape == (400, 1, 1, 1) and 1.0 <= contrast.min() and contrast.max() <= 1.4
    delta = _draws(L.RandomBrightness(0.2, value_range=(0, 10), seed=8), x, "rgb_delta")
    assert -2.0 <= delta.min() and delta.max() <= 2.0 and len(np.unique(delta)) == 400
    tops = {L.RandomCrop(2, 3, seed=9).get_random_transformation(x)[0] for _ in range(40)}
    assert tops == {0, 1, 2}  # every window start is drawn


def test_seeded_draws_repeat_after_set_seed() -> None:
    x = np.random.default_rng(0).uniform(size=(3, 5, 5, 2)).astype(np.float32)
    results = []
    for _ in range(2):
        rt.random.set_seed(11)
        layer = L.RandomRotation(0.2, seed=1)
        results.append([layer(x).numpy(), layer(x).numpy()])
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert not np.array_equal(results[0][0], results[0][1])  # each call draws anew


@pytest.mark.parametrize(
    "layer",
    [
        L.RandomFlip(),
        L.RandomRotation(0.3),
        L.RandomZoom(0.3),
        L.RandomTranslation(0.2, 0.2),
        L.RandomCrop(3, 3),
        L.RandomContrast(0.5),
        L.RandomBrightness(0.5),
    ],
    ids=lambda layer: type(layer).__name__,
)
def test_training_only(layer) -> None:
    x = np.random.default_rng(1).uniform(0, 255, size=(4, 6, 5, 3)).astype(np.float32)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
    y = layer(x)  # a direct call trains, as in Keras
    assert y.shape == (4, 3, 3, 3) if isinstance(layer, L.RandomCrop) else y.shape == x.shape
    model = rt.keras.Sequential([rt.keras.Input(shape=(6, 5, 3)), layer])
    np.testing.assert_array_equal(model.predict(x, verbose=0), x)


def test_gradients_flow_through_the_geometric_layers() -> None:
    x = rt.constant(np.random.default_rng(2).uniform(size=(2, 5, 6, 1)))
    layer = L.RandomRotation(0.2, seed=2, dtype="float64")
    t = layer.get_random_transformation(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = layer.transform_images(x, t)
    g = tape.gradient(y, x, output_gradients=rt.ones_like(y))
    want = rt.image.affine_transform_adjoint(
        rt.ones_like(y), t["rotation_matrix"], "bilinear", "reflect"
    )
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="RandomRotation.*factor"):
        L.RandomRotation(1.5)
    with pytest.raises(ValueError, match="RandomRotation.*fill_mode 'mirror'"):
        L.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match=r"RandomZoom.*\(-1.0, 1.0\]"):
        L.RandomZoom(-1.0)
    with pytest.raises(ValueError, match="RandomTranslation.*width_factor"):
        L.RandomTranslation(0.1, (0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match="RandomFlip.*diagonal"):
        L.RandomFlip("diagonal")
    with pytest.raises(ValueError, match="RandomContrast.*factor"):
        L.RandomContrast(-0.5)
    with pytest.raises(ValueError, match="RandomBrightness.*value_range"):
        L.RandomBrightness(0.1, value_range=1)
    with pytest.raises(ValueError, match="RandomCrop.*positive"):
        L.RandomCrop(0, 3)
    with pytest.raises(ValueError, match=r"RandomFlip.*rank 3 or 4.*\[4, 4\]"):
        L.RandomFlip()(np.zeros((4, 4), np.float32))
    with pytest.raises(ValueError, match="data_format"):
        L.RandomFlip(data_format="channels_middle")
