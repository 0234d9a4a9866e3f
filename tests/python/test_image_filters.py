"""`rt.image`'s filters and measures against TensorFlow 2.21 (tests/reference/gen_augment.py,
`fl_*`): `image_gradients`, `sobel_edges`, `total_variation`, `psnr`, `adjust_gamma`, values and
the gradient of a weighted sum, float32 to 1e-5 and float64 to 1e-12 (TensorFlow computes
`psnr` and `adjust_gamma` in float32 even for float64 images: rustape's float64 results are
checked against its float32 ones to 1e-5). The random adjustments by their definitions."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "augment.npz"), allow_pickle=False
)

#: the generator's FILTERS, on rustape
FILTERS = {
    "image_gradients_dy": lambda x, y: rt.image.image_gradients(x)[0],
    "image_gradients_dx": lambda x, y: rt.image.image_gradients(x)[1],
    "sobel_edges": lambda x, y: rt.image.sobel_edges(x),
    "total_variation": lambda x, y: rt.image.total_variation(x),
    "total_variation_single": lambda x, y: rt.image.total_variation(x[0]),
    "psnr": lambda x, y: rt.image.psnr(x, y, 1.0),
    "adjust_gamma": lambda x, y: rt.image.adjust_gamma(x + 0.1, 0.7, 1.3),
}


@pytest.mark.parametrize("bits", ["32", "64"])
@pytest.mark.parametrize("name", sorted(FILTERS))
def test_filters_match_tensorflow(name: str, bits: str) -> None:
    dtype = np.float32 if bits == "32" else np.float64
    ref_bits = bits if f"fl_{name}_z{bits}" in _DATA.files else "32"
    tol = 1e-12 if ref_bits == "64" else 1e-5
    x = rt.constant(_DATA["fl_x"].astype(dtype))
    y = rt.constant(_DATA["fl_y"].astype(dtype))
    with rt.GradientTape() as tape:
        tape.watch(x)
        z = FILTERS[name](x, y)
        total = rt.reduce_sum(z * _DATA[f"fl_{name}_w{ref_bits}"].astype(dtype))
    assert z.dtype == x.dtype
    want = _DATA[f"fl_{name}_z{ref_bits}"]
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(z.numpy(), want, rtol=tol, atol=tol * scale)
    grad = tape.gradient(total, x).numpy()
    want_grad = _DATA[f"fl_{name}_g{ref_bits}"]
    scale = max(1.0, float(np.abs(want_grad).max()))
    np.testing.assert_allclose(grad, want_grad, rtol=tol, atol=tol * scale)


def test_random_adjustments_follow_their_definitions() -> None:
    x = rt.reshape(rt.range(12.0) / 12.0, [2, 2, 3, 1])
    deltas = {float(rt.image.random_brightness(x, 0.3)[0, 0, 0, 0]) for _ in range(20)}
    assert len(deltas) == 20 and all(-0.3 <= d <= 0.3 for d in deltas)
    y = rt.image.random_brightness(x, 0.3).numpy()
    np.testing.assert_allclose(y - x.numpy(), np.full(x.shape, y[0, 0, 0, 0]), atol=1e-6)
    factor_from = [
        rt.image.random_contrast(x, 0.5, 1.5).numpy() for _ in range(10)
    ]  # one factor for the whole batch
    mean = x.numpy().mean(axis=(1, 2), keepdims=True)
    for z in factor_from:
        ratio = (z - mean) / (x.numpy() - mean)
        assert np.ptp(ratio) < 1e-5 and 0.5 <= ratio.flat[0] <= 1.5
    rt.random.set_seed(3)
    a = rt.image.random_contrast(x, 0.5, 1.5, seed=2).numpy()
    rt.random.set_seed(3)
    np.testing.assert_array_equal(rt.image.random_contrast(x, 0.5, 1.5, seed=2).numpy(), a)


def test_stateless_adjustments_repeat_per_seed() -> None:
    x = rt.reshape(rt.range(24.0), [4, 2, 3, 1])
    for f, args in (
        (rt.image.stateless_random_brightness, (0.4,)),
        (rt.image.stateless_random_contrast, (0.2, 1.8)),
        (rt.image.stateless_random_flip_left_right, ()),
        (rt.image.stateless_random_flip_up_down, ()),
    ):
        a = f(x, *args, seed=[5, 6]).numpy()
        np.testing.assert_array_equal(f(x, *args, seed=[5, 6]).numpy(), a)
        assert not np.array_equal(f(x, *args, seed=[7, 8]).numpy(), a) or f.__name__.endswith(
            ("left_right", "up_down")
        )
    draws = rt.random.stateless_uniform([4], [5, 6], 0.0, 1.0).numpy()
    flipped = rt.image.stateless_random_flip_left_right(x, [5, 6]).numpy()
    for k in range(4):
        # TensorFlow's rule for a batch: flipped where the draw rounds to 1 (above 0.5).
        want = x.numpy()[k, :, ::-1] if draws[k] > 0.5 else x.numpy()[k]
        np.testing.assert_array_equal(flipped[k], want)
    delta = rt.random.stateless_uniform([], [5, 6], -0.4, 0.4).numpy()
    np.testing.assert_allclose(
        rt.image.stateless_random_brightness(x, 0.4, [5, 6]).numpy(), x.numpy() + delta, rtol=1e-6
    )


def test_bad_input_names_the_op() -> None:
    with pytest.raises(ValueError, match=r"image_gradients.*4-D.*\[2, 3, 1\]"):
        rt.image.image_gradients(rt.zeros([2, 3, 1]))
    with pytest.raises(ValueError, match=r"sobel_edges.*4-D"):
        rt.image.sobel_edges(rt.zeros([2, 3, 1]))
    with pytest.raises(ValueError, match=r"total_variation.*rank 3"):
        rt.image.total_variation(rt.zeros([2, 3]))
    with pytest.raises(TypeError, match=r"psnr.*float32.*float64"):
        rt.image.psnr(rt.zeros([1, 1, 1]), rt.zeros([1, 1, 1], rt.float64), 1.0)
    with pytest.raises(ValueError, match="adjust_gamma.*non-negative"):
        rt.image.adjust_gamma(rt.zeros([1, 1, 1]), -1.0)
    with pytest.raises(ValueError, match="random_brightness.*max_delta"):
        rt.image.random_brightness(rt.zeros([1, 1, 1]), -0.1)
    with pytest.raises(ValueError, match="random_contrast.*upper"):
        rt.image.random_contrast(rt.zeros([1, 1, 1]), 0.5, 0.5)
    with pytest.raises(ValueError, match="stateless_random_contrast.*lower"):
        rt.image.stateless_random_contrast(rt.zeros([1, 1, 1]), -0.5, 0.5, seed=[1, 2])
