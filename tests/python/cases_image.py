"""Gradient-check cases for `rt.image` (format of test_op_gradients.py: `CASES = {name: (fn,
[numpy inputs])}`, checked first and second order against central finite differences in
float64). Values against TensorFlow are in test_image_reference.py."""

from __future__ import annotations

import numpy as np
import rustape as rt

rng = np.random.default_rng(5151)


def _u(*shape: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=shape)


def _seeded(name: str):
    """`rt.image.<name>` at the same draw every call (the global seed reset first)."""

    def f(x):
        rt.random.set_seed(1)
        return getattr(rt.image, name)(x, seed=5) ** 2

    return f


def _seeded(name: str):
    """`rt.image.<name>` at the same draw every call (the global seed reset first)."""

    def f(x):
        rt.random.set_seed(1)
        return getattr(rt.image, name)(x, seed=5) ** 2

    return f


def _reseeded(f):
    """`f()` with the global seed reset first (the same draw every call)."""
    rt.random.set_seed(1)
    return f()


#: RGB pixels with distinct channels (no ties, hues away from the wrap) and HSV pixels whose
#: hue weights are away from their kinks (at multiples of 1/6).
_RGB = np.array(
    [
        [[0.9, 0.35, 0.1], [0.2, 0.75, 0.4]],
        [[0.3, 0.15, 0.85], [0.6, 0.5, 0.95]],
    ]
)
_HSV = np.array([[[0.1, 0.7, 0.9], [0.27, 0.4, 0.6]], [[0.61, 0.9, 0.5], [0.93, 0.3, 0.8]]])

#: MS-SSIM's pair: correlated (every scale's contrast term positive, away from its relu).
_MS_A = rng.uniform(0.2, 1, size=(1, 7, 6, 1))

#: A rotation with shear and shift, and a projective map (`rt.image.affine_transform`).
_WARP = np.array(
    [[0.8, -0.55, 1.3, 0.6, 0.9, -0.7, 0.0, 0.0], [1.1, 0.2, -2.4, -0.1, 0.95, 3.1, 0.03, -0.02]]
)

CASES = {
    "image.resize bilinear": (lambda x: rt.image.resize(x, [5, 3]) ** 2, [_u(3, 4, 2)]),
    "image.resize nearest": (
        lambda x: rt.image.resize(x, [2, 5], method="nearest") ** 2,
        [_u(2, 4, 3, 1)],
    ),
    "image.resize bicubic": (
        lambda x: rt.image.resize(x, [4, 4], method="bicubic") ** 2,
        [_u(1, 3, 3, 2)],
    ),
    "image.resize bicubic antialias": (
        lambda x: rt.image.resize(x, [2, 3], method="bicubic", antialias=True) ** 2,
        [_u(5, 6, 1)],
    ),
    "image.resize area": (lambda x: rt.image.resize(x, [3, 2], method="area") ** 2, [_u(5, 5, 1)]),
    "image.resize_adjoint": (
        lambda g: rt.image.resize_adjoint(g, [3, 4], method="bicubic") ** 2,
        [_u(2, 5, 3, 1)],
    ),
    "image.resize lanczos3": (
        lambda x: rt.image.resize(x, [5, 2], method="lanczos3") ** 2,
        [_u(4, 4, 2)],
    ),
    "image.resize mitchellcubic antialias": (
        lambda x: rt.image.resize(x, [2, 3], method="mitchellcubic", antialias=True) ** 2,
        [_u(1, 5, 6, 1)],
    ),
    "image.affine_transform bilinear reflect": (
        lambda x: rt.image.affine_transform(x, _WARP, "bilinear", "reflect") ** 2,
        [_u(2, 4, 5, 2)],
    ),
    "image.affine_transform nearest constant": (
        lambda x: rt.image.affine_transform(x, _WARP[0], "nearest", "constant", 0.5) ** 2,
        [_u(5, 4, 1)],
    ),
    "image.affine_transform_adjoint wrap": (
        lambda g: rt.image.affine_transform_adjoint(g, _WARP, "bilinear", "wrap") ** 2,
        [_u(2, 3, 5, 1)],
    ),
    "image.image_gradients": (
        lambda x: rt.image.image_gradients(x)[0] ** 2 + rt.image.image_gradients(x)[1] ** 2,
        [_u(1, 3, 4, 2)],
    ),
    "image.sobel_edges": (lambda x: rt.image.sobel_edges(x) ** 2, [_u(1, 3, 4, 1)]),
    "image.total_variation": (lambda x: rt.image.total_variation(x) ** 2, [_u(2, 3, 3, 1)]),
    "image.psnr": (lambda a: rt.image.psnr(a, a * 0.5 + 0.3, 2.0), [_u(1, 2, 3, 1)]),
    "image.adjust_gamma": (
        lambda x: rt.image.adjust_gamma(x * x + 0.5, 1.7, 0.8),
        [_u(2, 2, 1)],
    ),
    "image.random_brightness": (
        lambda x: _reseeded(lambda: rt.image.random_brightness(x, 0.4, seed=3)) ** 2,
        [_u(2, 2, 1)],
    ),
    "image.random_contrast": (
        lambda x: _reseeded(lambda: rt.image.random_contrast(x, 0.5, 1.5, seed=3)) ** 2,
        [_u(2, 2, 1)],
    ),
    "image.stateless_random_brightness": (
        lambda x: rt.image.stateless_random_brightness(x, 0.4, seed=[1, 2]) ** 2,
        [_u(2, 2, 1)],
    ),
    "image.stateless_random_contrast": (
        lambda x: rt.image.stateless_random_contrast(x, 0.5, 1.5, seed=[1, 2]) ** 2,
        [_u(2, 2, 1)],
    ),
    "image.stateless_random_flip_left_right": (
        lambda x: rt.image.stateless_random_flip_left_right(x, [3, 4]) * x,
        [_u(2, 1, 3, 1)],
    ),
    "image.stateless_random_flip_up_down": (
        lambda x: rt.image.stateless_random_flip_up_down(x, [3, 4]) * x,
        [_u(2, 3, 1, 1)],
    ),
    "image.flip_left_right": (lambda x: rt.image.flip_left_right(x) * x, [_u(2, 3, 1)]),
    "image.flip_up_down": (lambda x: rt.image.flip_up_down(x) * x, [_u(3, 2, 1)]),
    "image.rot90": (lambda x: rt.image.rot90(x, k=3) ** 2, [_u(1, 2, 3, 1)]),
    "image.transpose": (lambda x: rt.image.transpose(x) ** 2, [_u(2, 3, 1)]),
    "image.central_crop": (lambda x: rt.image.central_crop(x, 0.5) ** 2, [_u(4, 4, 1)]),
    "image.crop_to_bounding_box": (
        lambda x: rt.image.crop_to_bounding_box(x, 1, 0, 2, 2) ** 2,
        [_u(3, 3, 1)],
    ),
    "image.pad_to_bounding_box": (
        lambda x: rt.image.pad_to_bounding_box(x, 1, 0, 3, 3) ** 2,
        [_u(2, 2, 1)],
    ),
    "image.resize_with_crop_or_pad": (
        lambda x: rt.image.resize_with_crop_or_pad(x, 4, 2) ** 2,
        [_u(2, 3, 1)],
    ),
    "image.resize_with_pad": (lambda x: rt.image.resize_with_pad(x, 4, 4) ** 2, [_u(2, 3, 1)]),
    "image.adjust_brightness": (lambda x: rt.image.adjust_brightness(x, 0.3) ** 2, [_u(2, 2, 1)]),
    "image.adjust_contrast": (lambda x: rt.image.adjust_contrast(x, 1.5) ** 2, [_u(2, 2, 2)]),
    "image.per_image_standardization": (
        lambda x: rt.image.per_image_standardization(x),
        [_u(2, 2, 2)],
    ),
    "image.rgb_to_grayscale": (lambda x: rt.image.rgb_to_grayscale(x) ** 2, [_u(2, 2, 3)]),
    "image.grayscale_to_rgb": (lambda x: rt.image.grayscale_to_rgb(x) ** 2, [_u(2, 2, 1)]),
    "image.convert_image_dtype": (
        lambda x: rt.image.convert_image_dtype(x, rt.float64) ** 2,
        [_u(2, 2, 1)],
    ),
    # the flips are random choices between two linear maps: seeded, checked at one draw
    "image.random_flip_left_right": (_seeded("random_flip_left_right"), [_u(2, 2, 1)]),
    "image.random_flip_up_down": (_seeded("random_flip_up_down"), [_u(2, 2, 1)]),
    # colour spaces (pixels away from ties and hue boundaries), hue, saturation, SSIM
    "image.rgb_to_hsv": (lambda x: rt.image.rgb_to_hsv(x) ** 2, [_RGB]),
    "image.hsv_to_rgb": (lambda x: rt.image.hsv_to_rgb(x) ** 2, [_HSV]),
    "image.adjust_hue": (lambda x: rt.image.adjust_hue(x, 0.37) ** 2, [_RGB]),
    "image.adjust_hue negative": (lambda x: rt.image.adjust_hue(x, -0.8) ** 2, [_RGB]),
    "image.adjust_saturation": (lambda x: rt.image.adjust_saturation(x, 0.6) ** 2, [_RGB]),
    "image.adjust_saturation clamped": (
        lambda x: rt.image.adjust_saturation(x, 1.6) ** 2,
        [_RGB],
    ),
    "image.random_hue": (
        lambda x: _reseeded(lambda: rt.image.random_hue(x, 0.4, seed=3)) ** 2,
        [_RGB],
    ),
    "image.random_saturation": (
        lambda x: _reseeded(lambda: rt.image.random_saturation(x, 0.2, 0.9, seed=3)) ** 2,
        [_RGB],
    ),
    "image.stateless_random_hue": (
        lambda x: rt.image.stateless_random_hue(x, 0.4, seed=[1, 2]) ** 2,
        [_RGB],
    ),
    "image.stateless_random_saturation": (
        lambda x: rt.image.stateless_random_saturation(x, 0.2, 0.9, seed=[1, 2]) ** 2,
        [_RGB],
    ),
    "image.rgb_to_yiq": (lambda x: rt.image.rgb_to_yiq(x) ** 2, [_u(2, 2, 3)]),
    "image.yiq_to_rgb": (lambda x: rt.image.yiq_to_rgb(x) ** 2, [_u(2, 2, 3)]),
    "image.rgb_to_yuv": (lambda x: rt.image.rgb_to_yuv(x) ** 2, [_u(2, 2, 3)]),
    "image.yuv_to_rgb": (lambda x: rt.image.yuv_to_rgb(x) ** 2, [_u(2, 2, 3)]),
    "image.extract_patches": (
        lambda x: (
            rt.image.extract_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 2, 1, 1], "SAME") ** 2
        ),
        [_u(2, 5, 4, 2)],
    ),
    "image.crop_and_resize": (
        lambda x, boxes: (
            rt.image.crop_and_resize(x, boxes, [1, 0], [3, 2], extrapolation_value=0.3) ** 2
        ),
        [_u(2, 4, 5, 1), np.array([[0.13, 0.21, 0.77, 0.69], [0.81, 0.62, 0.18, -0.23]])],
    ),
    "image.ssim": (
        lambda a, b: rt.image.ssim(a, b, 1.0, filter_size=3),
        [rng.uniform(0, 1, size=(1, 4, 5, 2)), rng.uniform(0, 1, size=(1, 4, 5, 2))],
    ),
    "image.ssim_multiscale": (
        lambda a, b: rt.image.ssim_multiscale(a, b, 1.0, (0.6, 0.4), filter_size=3),
        [_MS_A, _MS_A + rng.uniform(-0.1, 0.1, size=(1, 7, 6, 1))],
    ),
}
