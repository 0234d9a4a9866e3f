"""`rt.image.resize` against TensorFlow 2.21's `tf.image.resize` (tests/reference/gen_image.py):
every method, up- and down-sizing by integer and fractional factors, odd sizes, with and without
a batch axis, `antialias=True` for bilinear and bicubic; float32 outputs and gradients to 1e-6, float64 to 1e-12 (TensorFlow's sample
weights applied in float64); `preserve_aspect_ratio`, integer images; bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "image.npz"), allow_pickle=False
)
_METHODS = ("bilinear", "nearest", "bicubic", "area")
_KEYS = sorted(k[: -len("_x32")] for k in _DATA.files if k.endswith("_x32") and "_" in k[:-4])
_KEYS = [k for k in _KEYS if any(f"_{m}_" in k for m in _METHODS)]
_TOL = {"32": 1e-6, "64": 1e-12}


def _method(key: str) -> str:
    return next(m for m in _METHODS if f"_{m}_" in key)


def test_the_reference_covers_every_method_and_shape():
    assert len(_KEYS) == 8 * 4 * 2 + 4 * 2 * 2  # every method; antialias for two


@pytest.mark.parametrize("bits", ["32", "64"])
@pytest.mark.parametrize("key", _KEYS)
def test_resize_and_its_gradient_match_tensorflow(key: str, bits: str) -> None:
    dtype = np.float32 if bits == "32" else np.float64
    want = _DATA[f"{key}_y{bits}"]
    x = rt.constant(_DATA[f"{key}_x{bits}"])
    w = rt.constant(_DATA[f"{key}_w"].astype(dtype))
    with rt.GradientTape() as tape:
        tape.watch(x)
        size = list(want.shape[-3:-1])
        y = rt.image.resize(x, size, method=_method(key), antialias=key.startswith("aa_"))
        total = rt.reduce_sum(y * w)
    assert y.dtype == x.dtype and y.shape == want.shape
    np.testing.assert_allclose(y.numpy(), want, rtol=_TOL[bits], atol=_TOL[bits])
    grad_key = f"{key}_g{bits}"
    if grad_key not in _DATA.files:  # TensorFlow has no gradient for float32 "area"
        grad_key = f"{key}_g64"
    tol = _TOL[bits]
    np.testing.assert_allclose(tape.gradient(total, x).numpy(), _DATA[grad_key], rtol=tol, atol=tol)


def test_preserve_aspect_ratio_matches_tensorflow() -> None:
    x = _DATA["aspect_x"]
    for size, key in (([5, 5], "aspect_y"), ([9, 3], "aspect2_y")):
        y = rt.image.resize(x, size, preserve_aspect_ratio=True)
        assert y.shape == _DATA[key].shape
        np.testing.assert_allclose(y.numpy(), _DATA[key], rtol=1e-6, atol=1e-6)


def test_integer_images_match_tensorflow() -> None:
    x = _DATA["uint8_x"]
    y = rt.image.resize(rt.constant(x), [7, 3])
    assert y.dtype == rt.float32
    np.testing.assert_allclose(y.numpy(), _DATA["uint8_bilinear_y"], rtol=1e-6, atol=1e-4)
    y = rt.image.resize(rt.constant(x.astype(np.int32)), [7, 3], method="nearest")
    assert y.dtype == rt.int32
    np.testing.assert_array_equal(y.numpy(), _DATA["int32_nearest_y"])


def test_bad_input_names_the_op_shapes_and_dtypes() -> None:
    x = np.zeros((4, 4, 1), np.float32)
    with pytest.raises(ValueError, match=r"image.resize.*rank 3.*\[4, 4\]"):
        rt.image.resize(np.zeros((4, 4), np.float32), [2, 2])
    with pytest.raises(ValueError, match=r"image.resize.*positive.*\[0, 2\]"):
        rt.image.resize(x, [0, 2])
    with pytest.raises(ValueError, match=r"image.resize.*positive.*\[-1, 2\]"):
        rt.image.resize(x, [-1, 2])
    with pytest.raises(ValueError, match=r"image.resize.*2 elements"):
        rt.image.resize(x, [[1.5]])
    with pytest.raises(ValueError, match=r"image.resize.*unknown method .cubic."):
        rt.image.resize(x, [2, 2], method="cubic")
    with pytest.raises(TypeError, match=r"image.resize.*bool"):
        rt.image.resize(np.zeros((2, 2, 1), bool), [3, 3])
    with pytest.raises(ValueError, match=r"image.resize.*unknown method .lanczos4."):
        rt.image.resize(x, [2, 2], method="lanczos4")
    # antialias is ignored by "nearest" and "area", as in TensorFlow
    assert rt.image.resize(x, [2, 2], method="area", antialias=True).shape == (2, 2, 1)
    with pytest.raises(ValueError, match=r"image.resize_adjoint.*\[0, 3\]"):
        rt.image.resize_adjoint(x, [0, 3])
