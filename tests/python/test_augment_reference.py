"""`rt.image.affine_transform` (= `keras.ops.image.affine_transform`) and `rt.image.resize`'s
scale-and-translate methods against TensorFlow 2.21 / Keras 3.15 (tests/reference/
gen_augment.py): rotations, shears, zooms, translations (near and far), a projective map, a
one-pixel-high image, per-image and shared transforms, every interpolation and TensorFlow fill
mode; float32 outputs to 1e-5, float64 outputs and image gradients to 1e-12 (TensorFlow's map
read off its one-hot responses, applied in float64), the fill weights to 1e-7 (TensorFlow's
float32 sums). `mirror` (which TensorFlow lacks) against SciPy's definition in NumPy."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt

_DATA = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "augment.npz"), allow_pickle=False
)
_AFFINE = sorted(
    {k[: -len("_x32")] for k in _DATA.files if k.startswith("at_") and k.endswith("_x32")}
)
_RESIZE = sorted(
    {k[: -len("_x32")] for k in _DATA.files if k.startswith("rs_") and k.endswith("_x32")}
)


def test_the_reference_covers_every_case() -> None:
    assert len(_AFFINE) == 7 * 2 * 4
    assert len(_RESIZE) == 3 * 4 * 2


@pytest.mark.parametrize("key", _AFFINE)
def test_affine_transform_matches_tensorflow(key: str) -> None:
    interpolation, fill_mode = key.split("_")[2:4]
    t = _DATA[f"{key}_t"]
    fill = float(_DATA[f"{key}_fill"])
    y32 = rt.keras.ops.image.affine_transform(
        _DATA[f"{key}_x32"], t, interpolation, fill_mode, fill
    )
    assert y32.dtype == rt.float32
    np.testing.assert_allclose(y32.numpy(), _DATA[f"{key}_y32"], rtol=1e-5, atol=1e-5)
    x = rt.constant(_DATA[f"{key}_x64"])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.image.affine_transform(x, t, interpolation, fill_mode)
        total = rt.reduce_sum(y * _DATA[f"{key}_w"])
    assert y.dtype == rt.float64
    np.testing.assert_allclose(y.numpy(), _DATA[f"{key}_y64"], rtol=1e-12, atol=1e-12)
    grad = tape.gradient(total, x).numpy()
    np.testing.assert_allclose(grad, _DATA[f"{key}_g64"], rtol=1e-12, atol=1e-12)
    # The weight of the fill value, per output pixel of each transform.
    weights = _DATA[f"{key}_f"]
    h, w = weights.shape[1:]
    zero = np.zeros((len(weights), h, w, 1))
    got = rt.image.affine_transform(zero, t.reshape(-1, 8), interpolation, fill_mode, 1.0)
    np.testing.assert_allclose(got.numpy()[..., 0], weights, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("bits", ["32", "64"])
@pytest.mark.parametrize("key", _RESIZE)
def test_scale_and_translate_resize_matches_tensorflow(key: str, bits: str) -> None:
    method = key.split("_")[2]
    antialias = key.endswith("_aa")
    want = _DATA[f"{key}_y{bits}"]
    x = rt.constant(_DATA[f"{key}_x{bits}"])
    tol = 1e-5 if bits == "32" else 1e-12
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.image.resize(x, list(want.shape[1:3]), method=method, antialias=antialias)
        total = rt.reduce_sum(y * _DATA[f"{key}_w"].astype(want.dtype))
    assert y.dtype == x.dtype
    np.testing.assert_allclose(y.numpy(), want, rtol=tol, atol=tol)
    grad = tape.gradient(total, x).numpy()
    np.testing.assert_allclose(grad, _DATA[f"{key}_g{bits}"], rtol=tol, atol=tol)


def _mirror(c: np.ndarray, n: int) -> np.ndarray:
    """SciPy's `mirror` (`dcb|abcd|cba`): reflected about the edge pixels' centres."""
    if n == 1:
        return np.zeros_like(c)
    period = 2 * (n - 1)
    c = np.abs(c) % period
    return np.where(c > n - 1, period - c, c)


def test_mirror_fill_mode_follows_scipy() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=(4, 6, 2))
    t = np.array([1.3, 0.4, -3.2, -0.5, 0.9, 5.7, 0.0, 0.0])
    # the points in float32 arithmetic, as the kernel computes them
    cols, rows = np.meshgrid(np.arange(6, dtype=np.float32), np.arange(4, dtype=np.float32))
    t32 = t.astype(np.float32)
    px = t32[0] * cols + t32[1] * rows + t32[2]
    py = t32[3] * cols + t32[4] * rows + t32[5]
    mx, my = _mirror(px, 6), _mirror(py, 4)
    x0, y0 = np.floor(mx).astype(int), np.floor(my).astype(int)
    fx, fy = (mx - x0)[..., None], (my - y0)[..., None]
    x1, y1 = np.minimum(x0 + 1, 5), np.minimum(y0 + 1, 3)
    want = (1 - fy) * ((1 - fx) * x[y0, x0] + fx * x[y0, x1]) + fy * (
        (1 - fx) * x[y1, x0] + fx * x[y1, x1]
    )
    got = rt.image.affine_transform(x, t, "bilinear", "mirror").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    nearest = rt.image.affine_transform(x, t, "nearest", "mirror").numpy()
    # rounded half away from zero (the mapped points are not negative)
    ry, rx = np.floor(my + 0.5).astype(int), np.floor(mx + 0.5).astype(int)
    np.testing.assert_array_equal(nearest, x[ry, rx])


def test_channels_first_and_a_shared_transform() -> None:
    key = "at_rotate_bilinear_reflect"
    x = np.transpose(_DATA[f"{key}_x32"], (0, 3, 1, 2))
    y = rt.keras.ops.image.affine_transform(
        x, _DATA[f"{key}_t"], fill_mode="reflect", data_format="channels_first"
    )
    np.testing.assert_allclose(
        y.numpy(), np.transpose(_DATA[f"{key}_y32"], (0, 3, 1, 2)), rtol=1e-5, atol=1e-5
    )
    # One transform for a batch is every image's.
    one = _DATA[f"{key}_t"][0]
    both = rt.image.affine_transform(_DATA[f"{key}_x32"], one, fill_mode="reflect").numpy()
    first = rt.image.affine_transform(_DATA[f"{key}_x32"][:1], one, fill_mode="reflect").numpy()
    np.testing.assert_array_equal(both[:1], first)


def test_bad_input_names_the_op_shapes_and_dtypes() -> None:
    x = np.zeros((2, 3, 4, 1), np.float32)
    eye = np.array([1.0, 0, 0, 0, 1, 0, 0, 0])
    with pytest.raises(ValueError, match=r"affine_transform.*\[3, 8\].*\[2, 3, 4, 1\]"):
        rt.image.affine_transform(x, np.zeros((3, 8)))
    with pytest.raises(ValueError, match=r"affine_transform.*\[7\]"):
        rt.image.affine_transform(x, np.zeros(7))
    with pytest.raises(ValueError, match=r"affine_transform.*rank 3.*\[3, 4\]"):
        rt.image.affine_transform(np.zeros((3, 4)), eye)
    with pytest.raises(TypeError, match=r"affine_transform.*int32"):
        rt.image.affine_transform(np.zeros((3, 4, 1), np.int32), eye)
    with pytest.raises(ValueError, match=r"affine_transform.*unknown fill_mode .edge."):
        rt.image.affine_transform(x, eye, fill_mode="edge")
    with pytest.raises(ValueError, match=r"affine_transform.*unknown interpolation .bicubic."):
        rt.image.affine_transform(x, eye, interpolation="bicubic")
    with pytest.raises(ValueError, match=r"keras.ops.image.affine_transform.*rank 1.*\[1, 2, 8\]"):
        rt.keras.ops.image.affine_transform(x, np.zeros((1, 2, 8)))
    with pytest.raises(ValueError, match=r"affine_transform_adjoint.*\[2, 8\]"):
        rt.image.affine_transform_adjoint(x[:1], np.zeros((2, 8)))
