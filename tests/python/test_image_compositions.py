"""`rt.image`'s compositions against TensorFlow 2.21 (tests/reference/gen_image.py runs the same
calls, `COMPOSITIONS`, on `tf`), on one image and on a batch; the random flips on their
definition (one uniform draw per image, flipped below 0.5); bad input."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
from gen_image import COMPOSITIONS

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "image.npz"), allow_pickle=False
)


@pytest.mark.parametrize("tag", ["single", "batch"])
@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_composition_matches_tensorflow(name: str, tag: str) -> None:
    want = _DATA[f"comp_{tag}_{name}"]
    got = COMPOSITIONS[name](rt, rt.constant(_DATA[f"comp_{tag}_x"])).numpy()
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype)
    if np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "flip, axis",
    [(rt.image.random_flip_left_right, -2), (rt.image.random_flip_up_down, -3)],
)
def test_random_flips_follow_their_draws(flip, axis) -> None:
    x = rt.reshape(rt.range(64 * 2 * 2, dtype=rt.float32), [64, 2, 2, 1])
    rt.random.set_seed(7)
    y = flip(x, seed=3).numpy()
    rt.random.set_seed(7)
    draws = rt.random.uniform([64], 0.0, 1.0, seed=3).numpy()
    flipped = np.flip(x.numpy(), axis)
    for i in range(64):
        np.testing.assert_array_equal(y[i], flipped[i] if draws[i] < 0.5 else x.numpy()[i])
    assert 10 < int((draws < 0.5).sum()) < 54  # both outcomes occur
    rt.random.set_seed(7)
    single = flip(x[0], seed=3).numpy()
    assert np.array_equal(single, x.numpy()[0]) or np.array_equal(single, flipped[0])


def test_bad_input_names_the_op() -> None:
    x = np.zeros((4, 4, 3), np.float32)
    with pytest.raises(ValueError, match=r"image.flip_left_right.*rank 3.*\[4, 4\]"):
        rt.image.flip_left_right(np.zeros((4, 4), np.float32))
    with pytest.raises(ValueError, match="image.central_crop"):
        rt.image.central_crop(x, 0.0)
    with pytest.raises(ValueError, match="image.crop_to_bounding_box"):
        rt.image.crop_to_bounding_box(x, 2, 2, 3, 3)
    with pytest.raises(ValueError, match="image.pad_to_bounding_box"):
        rt.image.pad_to_bounding_box(x, 1, 1, 4, 4)
    with pytest.raises(ValueError, match="image.grayscale_to_rgb"):
        rt.image.grayscale_to_rgb(x)
    with pytest.raises(ValueError, match="image.rgb_to_grayscale"):
        rt.image.rgb_to_grayscale(x[..., :2])
    with pytest.raises(ValueError, match="image.resize_with_crop_or_pad"):
        rt.image.resize_with_crop_or_pad(x, 0, 2)


@pytest.mark.parametrize(
    "method", ["bilinear", "nearest", "bicubic", "area", "lanczos3", "gaussian", "mitchellcubic"]
)
def test_resize_to_a_huge_size_is_a_memory_error_not_an_abort(method):
    # The tap tables (one list per output row and column) were built before the output was
    # reserved: a size of 3e12 aborted the process.
    with pytest.raises(MemoryError, match="resize"):
        rt.image.resize(rt.ones([1, 1, 5], dtype=rt.float64), [1, 3 * 10**12], method=method)
    empty = rt.image.resize(rt.ones([0, 1, 1, 2]), [1, 3 * 10**12], method=method)
    assert empty.shape == (0, 1, 3 * 10**12, 2)
    grads = rt.image.resize(rt.ones([0, 2 * 10**9, 4, 2]), [1, 3], method=method)
    assert grads.shape == (0, 1, 3, 2)
