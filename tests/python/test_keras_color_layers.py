"""Keras 3's colour layers (`RandomHue`, `RandomSaturation`, `RandomColorJitter`,
`RandomInvert`, `RandomPosterization`, `RandomColorDegeneration`, `RandomSharpness`) and
`RandomShear`, `RandomGaussianBlur`: their
draws (ranges, distribution, repeatability with `seed=`), `channels_first`, rank-3 images and
bad arguments. The transforms for given parameters are checked against Keras in
test_image_color_reference.py."""

from __future__ import annotations

import numpy as np
import pytest
import rustape as rt

L = rt.keras.layers
_X = np.random.default_rng(3).uniform(0, 255, size=(4, 5, 6, 3)).astype(np.float32)


def _draw(layer, n: int = 4000):
    rt.random.set_seed(11)
    return layer.get_random_transformation(rt.zeros([n, 1, 1, 3]))


def test_hue_factors_are_signed_halves_of_the_range() -> None:
    f = _draw(L.RandomHue((0.2, 0.6), seed=1))["factor"].numpy()
    assert np.all((np.abs(f) >= 0.1 - 1e-7) & (np.abs(f) <= 0.3 + 1e-7))
    assert 0.45 < np.mean(f > 0) < 0.55  # the sign is a fair coin


def test_saturation_factors_follow_keras_odds() -> None:
    f = _draw(L.RandomSaturation((0.25, 0.75), seed=1))["factor"].numpy()
    u = f / (1 + f)  # factor = u / (1 - u)
    assert np.all((u >= 0.25 - 1e-5) & (u <= 0.75 + 1e-5))
    assert abs(np.mean(u) - 0.5) < 0.02


def test_invert_posterization_degeneration_sharpness_draws() -> None:
    chosen = _draw(L.RandomInvert(0.5, seed=1))["apply_inversion"].numpy()
    assert 0.2 < chosen.mean() < 0.3  # probability ~ U(0, 0.5): a quarter on average
    shifts = _draw(L.RandomPosterization((2, 6), seed=1))["shift_factor"].numpy()
    assert set(np.unique(shifts).tolist()) == {3, 4, 5, 6}  # bits in [2, 6)
    fixed = _draw(L.RandomPosterization((3, 3), seed=1), 5)["shift_factor"].numpy()
    assert fixed.tolist() == [5] * 5
    f = _draw(L.RandomColorDegeneration((0.2, 0.4), seed=1))["factor"].numpy()
    assert f.shape == (4000, 1, 1, 1) and f.min() >= 0.2 and f.max() <= 0.4
    f = _draw(L.RandomSharpness(0.3, seed=1))["factor"].numpy()
    assert f.min() >= 0.0 and f.max() <= 0.3
    s = _draw(L.RandomShear((0.1, 0.3), 0.2, seed=1))["shear_factor"].numpy()
    assert s.shape == (4000, 2)
    assert np.all((np.abs(s[:, 0]) >= 0.1 - 1e-7) & (np.abs(s[:, 0]) <= 0.3 + 1e-7))
    assert np.all(np.abs(s[:, 1]) <= 0.2 + 1e-7)


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.RandomHue(0.5, seed=4),
        lambda: L.RandomSaturation(0.5, seed=4),
        lambda: L.RandomInvert(0.5, seed=4),
        lambda: L.RandomPosterization((2, 7), seed=4),
        lambda: L.RandomColorDegeneration(0.5, seed=4),
        lambda: L.RandomSharpness(0.5, seed=4),
        lambda: L.RandomShear(0.3, 0.2, seed=4),
        lambda: L.RandomGaussianBlur(0.7, 5, 0.8, seed=4),
        lambda: L.RandomColorJitter(
            brightness_factor=0.2,
            contrast_factor=0.3,
            saturation_factor=0.4,
            hue_factor=0.2,
            seed=4,
        ),
    ],
)
def test_seeded_layers_repeat_and_keep_shapes_and_ranges(make) -> None:
    layer = make()
    rt.random.set_seed(7)
    a = layer(_X, training=True).numpy()
    rt.random.set_seed(7)
    b = layer(_X, training=True).numpy()
    np.testing.assert_array_equal(a, b)
    assert a.shape == _X.shape and a.dtype == np.float32
    assert a.min() >= -1e-3 and a.max() <= 255.0 + 1e-3
    assert layer(_X[0], training=True).shape == _X.shape[1:]
    np.testing.assert_array_equal(layer(_X, training=False).numpy(), _X)


@pytest.mark.parametrize(
    "make, transformation",
    [
        (lambda f: L.RandomHue(0.5, data_format=f), {"factor": [0.2, -0.1, 0.4, 0.0]}),
        (lambda f: L.RandomSaturation(0.5, data_format=f), {"factor": [0.3, 2.0, 1.0, 0.0]}),
        (
            lambda f: L.RandomColorDegeneration(0.5, data_format=f),
            {"factor": np.full((4, 1, 1, 1), 0.4, np.float32)},
        ),
        (lambda f: L.RandomSharpness(0.5, data_format=f), {"factor": [0.1, 0.9, 0.5, 0.0]}),
    ],
)
def test_channels_first_is_the_transposed_channels_last(make, transformation) -> None:
    given = {k: rt.constant(v) for k, v in transformation.items()}
    last = make("channels_last").transform_images(_X, given).numpy()
    first = make("channels_first").transform_images(np.transpose(_X, (0, 3, 1, 2)), given)
    np.testing.assert_allclose(np.transpose(first.numpy(), (0, 2, 3, 1)), last, rtol=1e-6)


def test_bad_arguments_raise_as_keras() -> None:
    with pytest.raises(ValueError, match="factor"):
        L.RandomHue(1.5)
    with pytest.raises(ValueError, match="factor"):
        L.RandomPosterization(9)
    with pytest.raises(ValueError, match="value_range"):
        L.RandomSaturation(0.5, value_range=5)
    with pytest.raises(ValueError, match="value_range"):
        L.RandomColorJitter(value_range=(1, 2, 3))


def test_keras_ops_pad_and_crop_images() -> None:
    ops = rt.keras.ops.image
    x = np.arange(2 * 3 * 4 * 1, dtype=np.float32).reshape(2, 3, 4, 1)
    padded = ops.pad_images(x, 1, 2, target_height=6, target_width=7).numpy()
    assert padded.shape == (2, 6, 7, 1)
    np.testing.assert_array_equal(padded[:, 1:4, 2:6], x)
    assert padded.sum() == x.sum()
    same = ops.pad_images(x, bottom_padding=2, right_padding=1, top_padding=1, left_padding=2)
    np.testing.assert_array_equal(same.numpy(), padded)
    back = ops.crop_images(padded, 1, 2, target_height=3, target_width=4).numpy()
    np.testing.assert_array_equal(back, x)
    first = ops.crop_images(
        np.transpose(padded, (0, 3, 1, 2)), 1, 2, 2, 1, data_format="channels_first"
    )
    np.testing.assert_array_equal(np.transpose(first.numpy(), (0, 2, 3, 1)), x)
    with pytest.raises(ValueError, match="exactly two"):
        ops.pad_images(x, 1, 1)
    with pytest.raises(ValueError, match=">= 0"):
        ops.crop_images(x, 2, 0, target_height=2, target_width=4)


def test_keras_ops_colour_conversions() -> None:
    ops = rt.keras.ops.image
    x = _X / 255.0
    np.testing.assert_array_equal(ops.rgb_to_hsv(x).numpy(), rt.image.rgb_to_hsv(x).numpy())
    first = ops.hsv_to_rgb(np.transpose(x, (0, 3, 1, 2)), data_format="channels_first")
    np.testing.assert_array_equal(
        np.transpose(first.numpy(), (0, 2, 3, 1)), rt.image.hsv_to_rgb(x).numpy()
    )
    assert ops.rgb_to_grayscale(x).shape == (4, 5, 6, 1)
    with pytest.raises(ValueError, match="float"):
        ops.rgb_to_hsv(np.ones((2, 2, 3), np.int32))
