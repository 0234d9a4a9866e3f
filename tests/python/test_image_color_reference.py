"""`rt.image`'s colour spaces, hue and saturation, SSIM and MS-SSIM, and Keras's colour layers and
`RandomShear` against TensorFlow 2.21 / Keras 3.15 (tests/reference/gen_image_color.py).

Tolerances: `rgb_to_hsv` / `hsv_to_rgb` are TensorFlow's arithmetic to the bit;
`adjust_hue` / `adjust_saturation` go through `hsv_to_rgb`'s formula where TensorFlow's fused
kernels interpolate between the minimum and maximum channel (a few float32 ulps apart); SSIM
filters with two 1-D passes where TensorFlow runs one 2-D filter (sums in another order)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "image_color.npz"),
    allow_pickle=False,
)
_BITS = {"32": np.float32, "64": np.float64}
_TOL = {"32": 2e-6, "64": 1e-13}
DELTAS = [-1.0, -0.7, -0.3, 0.0, 0.05, 0.25, 0.5, 0.9, 1.0]
FACTORS = [0.0, 0.3, 1.0, 1.7, 5.0]


def _close(actual, expected, tol: float) -> None:
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("bits", ["32", "64"])
def test_rgb_to_hsv_and_back_match_tensorflow(bits: str) -> None:
    dtype = _BITS[bits]
    x = rt.constant(_DATA["rgb"].astype(dtype))
    w = rt.constant(_DATA["w"].astype(dtype))
    with rt.GradientTape() as tape:
        tape.watch(x)
        hsv = rt.image.rgb_to_hsv(x)
        total = rt.reduce_sum(hsv * w)
    assert hsv.dtype == x.dtype
    # TensorFlow's arithmetic in the same order: the same bits
    np.testing.assert_array_equal(hsv.numpy(), _DATA[f"rgb_to_hsv_{bits}"])
    # TensorFlow's RGBToHSV gradient, on pixels without ties, is the exact derivative.
    _close(
        tape.gradient(total, x), _DATA[f"rgb_to_hsv_grad_{bits}"], 1e-4 if bits == "32" else 1e-9
    )
    edges = rt.image.rgb_to_hsv(_DATA["edges"].astype(dtype))
    np.testing.assert_array_equal(edges.numpy(), _DATA[f"edges_to_hsv_{bits}"])
    back = rt.image.hsv_to_rgb(_DATA["hsv"].astype(dtype))
    np.testing.assert_array_equal(back.numpy(), _DATA[f"hsv_to_rgb_{bits}"])


@pytest.mark.parametrize("bits", ["32", "64"])
@pytest.mark.parametrize("name", ["rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb"])
def test_yiq_and_yuv_match_tensorflow(name: str, bits: str) -> None:
    dtype = _BITS[bits]
    x = rt.constant(_DATA["rgb"].astype(dtype))
    w = rt.constant(_DATA["w"].astype(dtype))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = getattr(rt.image, name)(x)
        total = rt.reduce_sum(y * w)
    _close(y, _DATA[f"{name}_{bits}"], _TOL[bits])
    _close(tape.gradient(total, x), _DATA[f"{name}_grad_{bits}"], _TOL[bits] * 10)


@pytest.mark.parametrize("index", range(len(DELTAS)))
def test_adjust_hue_matches_tensorflow(index: int) -> None:
    y = rt.image.adjust_hue(_DATA["adjust_in"], DELTAS[index])
    _close(y, _DATA[f"adjust_hue_{index}"], 2e-6)


#: The edge pixel (0.9, 0.1, 0.1000001), whose hue rounds to exactly 1.0 in float32:
#: TensorFlow's AdjustSaturation kernel finds no sector for it and drops the red channel
#: (it returns grey even at factor 1); rustape wraps the hue and keeps the colour.
_WRAPPED = 70 + 8


@pytest.mark.parametrize("index", range(len(FACTORS)))
def test_adjust_saturation_matches_tensorflow(index: int) -> None:
    y = rt.image.adjust_saturation(_DATA["adjust_in"], FACTORS[index]).numpy()
    want = _DATA[f"adjust_saturation_{index}"]
    keep = np.arange(want.shape[1]) != _WRAPPED
    _close(y[:, keep], want[:, keep], 2e-6)
    # where TensorFlow's kernel is wrong: the red channel stays, the others follow the factor
    assert y[0, _WRAPPED, 0] == np.float32(0.9)
    _close(y[0, _WRAPPED, 1:], want[0, _WRAPPED, 1:], 2e-6)


def test_integer_images_adjust_through_float32() -> None:
    x = rt.constant([[[2**31 - 1, 0, 0]]], rt.int32)
    y = rt.image.adjust_hue(x, 1 / 3)
    assert y.dtype == rt.int32
    assert y.numpy()[0, 0, 1] > 2**30 and y.numpy()[0, 0, 0] == 0


#: (name, filter_size, filter_sigma, max_val) as in the generator.
SSIM_CASES = [
    ("small", 11, 1.5, 1.0),
    ("filter7", 7, 1.0, 1.0),
    ("filter3", 3, 0.8, 2.0),
    ("broadcast", 5, 1.5, 1.0),
    ("unbatched", 11, 1.5, 1.0),
]


@pytest.mark.parametrize("case", SSIM_CASES, ids=[c[0] for c in SSIM_CASES])
def test_ssim_and_its_gradient_match_tensorflow(case) -> None:
    name, size, sigma, top = case
    a = rt.constant(_DATA[f"ssim_{name}_a"])
    b = _DATA[f"ssim_{name}_b"]
    with rt.GradientTape() as tape:
        tape.watch(a)
        value = rt.image.ssim(a, b, top, filter_size=size, filter_sigma=sigma)
        total = rt.reduce_sum(value)
    _close(value, _DATA[f"ssim_{name}"], 2e-6)
    _close(tape.gradient(total, a), _DATA[f"ssim_{name}_grad"], 2e-6)
    index_map = rt.image.ssim(
        a, b, top, filter_size=size, filter_sigma=sigma, return_index_map=True
    )
    _close(index_map, _DATA[f"ssim_{name}_map"], 5e-6)


@pytest.mark.parametrize(
    "case",
    [("default", (0.0448, 0.2856, 0.3001, 0.2363, 0.1333), 11), ("odd", (0.5, 0.3, 0.2), 7)],
    ids=["default", "odd"],
)
def test_ssim_multiscale_and_its_gradient_match_tensorflow(case) -> None:
    name, factors, size = case
    a = rt.constant(_DATA[f"ms_{name}_a"])
    b = _DATA[f"ms_{name}_b"]
    with rt.GradientTape() as tape:
        tape.watch(a)
        value = rt.image.ssim_multiscale(a, b, 1.0, power_factors=factors, filter_size=size)
        total = rt.reduce_sum(value)
    _close(value, _DATA[f"ms_{name}"], 2e-6)
    grad = tape.gradient(total, a).numpy()
    want = _DATA[f"ms_{name}_grad"]
    np.testing.assert_allclose(grad, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_ssim_of_an_image_with_itself_is_one_and_bad_input_raises() -> None:
    x = _DATA["ssim_small_a"]
    np.testing.assert_allclose(rt.image.ssim(x, x, 1.0).numpy(), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="smaller than filter_size"):
        rt.image.ssim(x[:, :5], x[:, :5], 1.0)
    with pytest.raises(ValueError, match="same"):
        rt.image.ssim(x, x[:, :8], 1.0)
    with pytest.raises(TypeError, match="dtype"):
        rt.image.ssim(x, x.astype(np.float64), 1.0)


def test_colour_ops_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="3 channels"):
        rt.image.rgb_to_hsv(rt.ones([2, 2, 4]))
    with pytest.raises(TypeError, match="float"):
        rt.image.hsv_to_rgb(rt.ones([2, 3], rt.int32))
    with pytest.raises(ValueError, match="3 channels"):
        rt.image.rgb_to_yiq(rt.ones([2, 2]))
    with pytest.raises(ValueError, match="max_delta"):
        rt.image.random_hue(rt.ones([1, 1, 3]), 0.6)
    with pytest.raises(ValueError, match="upper"):
        rt.image.random_saturation(rt.ones([1, 1, 3]), 0.5, 0.5)


_LAYERS = {
    "hue": (lambda L: L.RandomHue(0.5), {"factor": [0.2, -0.35]}),
    "hue_unit": (lambda L: L.RandomHue(0.5, value_range=(0, 1)), {"factor": [0.45, -0.1]}),
    "saturation": (lambda L: L.RandomSaturation(0.5), {"factor": [0.3, 2.0]}),
    "saturation_unit": (
        lambda L: L.RandomSaturation(0.5, value_range=(0, 1)),
        {"factor": [0.0, 1.5]},
    ),
    "invert": (lambda L: L.RandomInvert(), {"apply_inversion": [True, False]}),
    "posterization": (lambda L: L.RandomPosterization(4), {"shift_factor": [4, 6]}),
    "degeneration": (
        lambda L: L.RandomColorDegeneration(0.5),
        {"factor": np.array([0.3, 0.8], np.float32).reshape(2, 1, 1, 1)},
    ),
    "sharpness": (lambda L: L.RandomSharpness(0.5), {"factor": [0.1, 0.9]}),
    "shear": (
        lambda L: L.RandomShear(0.5, 0.5, fill_mode="constant", fill_value=3.0),
        {"shear_factor": [[0.3, -0.2], [-0.1, 0.4]]},
    ),
    "shear_reflect": (
        lambda L: L.RandomShear(0.5, 0.5, interpolation="nearest"),
        {"shear_factor": [[-0.45, 0.15], [0.2, 0.25]]},
    ),
}


@pytest.mark.parametrize("name", sorted(_LAYERS))
def test_colour_layers_transform_as_keras(name: str) -> None:
    make, transformation = _LAYERS[name]
    layer = make(rt.keras.layers)
    x = _DATA["layers_x"]
    images = x / np.float32(255.0) if name.endswith("_unit") else x
    given = {k: rt.constant(v) for k, v in transformation.items()}
    y = layer.transform_images(images, given)
    want = _DATA[f"layer_{name}"]
    scale = 1.0 if name.endswith("_unit") else 255.0
    np.testing.assert_allclose(y.numpy(), want, rtol=2e-6, atol=2e-6 * scale)
    # inference is the identity
    np.testing.assert_array_equal(layer(images, training=False).numpy(), images)


def test_keras_ops_ssim_matches_keras() -> None:
    got = rt.keras.ops.image.ssim(
        _DATA["keras_ssim_a"],
        _DATA["keras_ssim_b"],
        filter_size=7,
        filter_sigma=1.2,
        data_format="channels_first",
    )
    _close(got, _DATA["keras_ssim"], 2e-6)


_PATCHES = [
    ("valid", (1, 3, 2, 1), (1, 2, 1, 1), (1, 1, 1, 1), "VALID"),
    ("same", (1, 2, 3, 1), (1, 2, 2, 1), (1, 1, 1, 1), "SAME"),
    ("rates", (1, 2, 2, 1), (1, 3, 2, 1), (1, 2, 3, 1), "VALID"),
    ("rates_same", (1, 3, 2, 1), (1, 1, 3, 1), (1, 2, 2, 1), "SAME"),
]


@pytest.mark.parametrize("case", _PATCHES, ids=[c[0] for c in _PATCHES])
def test_extract_patches_and_its_gradient_match_tensorflow(case) -> None:
    name, sizes, strides, rates, padding = case
    x = rt.constant(_DATA[f"patches_{name}_x"])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.image.extract_patches(x, sizes, strides, rates, padding)
        total = rt.reduce_sum(y * _DATA[f"patches_{name}_w"])
    np.testing.assert_array_equal(y.numpy(), _DATA[f"patches_{name}"])
    _close(tape.gradient(total, x), _DATA[f"patches_{name}_grad"], 1e-6)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(3, 4), (1, 1)])
def test_crop_and_resize_and_its_gradients_match_tensorflow(method: str, size) -> None:
    key = f"crop_{method}_{size[0]}x{size[1]}"
    image = rt.constant(_DATA["crop_image"])
    boxes = rt.constant(_DATA["crop_boxes"])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([image, boxes])
        y = rt.image.crop_and_resize(
            image, boxes, _DATA["crop_indices"], size, method=method, extrapolation_value=0.5
        )
        total = rt.reduce_sum(y * _DATA[f"{key}_w"])
    _close(y, _DATA[key], 1e-6)
    if method == "bilinear":
        _close(tape.gradient(total, image), _DATA[f"{key}_grad_image"], 1e-5)
        _close(tape.gradient(total, boxes), _DATA[f"{key}_grad_boxes"], 1e-4)


def test_gaussian_blur_op_and_layer_match_keras() -> None:
    x = _DATA["layers_x"]
    ops = rt.keras.ops.image
    _close(ops.gaussian_blur(x, (3, 3), (1.2, 0.7)), _DATA["keras_blur"], 2e-4)
    first = ops.gaussian_blur(
        np.transpose(x, (0, 3, 1, 2)), (5, 5), (2.0, 2.0), data_format="channels_first"
    )
    _close(first, _DATA["keras_blur_first"], 2e-4)
    layer = rt.keras.layers.RandomGaussianBlur(kernel_size=5)
    t = {
        "should_apply_blur": rt.constant([True, False]),
        "blur_factor": rt.constant([1.3, 0.8]),
    }
    _close(layer.transform_images(x, t), _DATA["layer_blur"], 2e-4)
