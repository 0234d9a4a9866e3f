"""Image augmentation references from TensorFlow 2.21 / Keras 3.15: `keras.ops.image.
affine_transform` (TensorFlow's `ImageProjectiveTransformV3`) and `tf.image.resize`'s
scale-and-translate methods, with gradients.

affine_transform, keys `at_<case>_<interpolation>_<fill_mode>_*`: `x32`, `y32` (TensorFlow's
float32 output), `x64`, `y64`, `w` (weights of a weighted-sum loss), `g64` (its gradient) and
`t` (the transforms), `fill`. TensorFlow's kernel samples in float32 and returns float32
arithmetic even for float64 images, and its registered gradient is the inverse transform (not
the transposed map), so the float64 references and both gradients come from the map's matrix
read off TensorFlow itself: its outputs for one-hot images (`M`, `[out pixels, in pixels]` per
image) applied in float64: `y64 = M x` (fill value 0) and `dL/dx = M^T w`. `f` (`[n, h, w]`)
is the weight of the fill value per output pixel (TensorFlow's float32 output for a zero image
and fill value 1); `y32` uses the fill value `fill`.

resize, keys `rs_<case>_<method>[_aa]_*`: `x32`, `y32`, `g32` (TensorFlow's own gradient of the
weighted sum), `x64`, `y64`, `g64` (TensorFlow's per-axis weights applied in float64, as
gen_image.py), `w`.

Keras 3.15's augmentation layers, keys `ly_<case>_*`: `class` and `kwargs` (JSON), `x`, `y` =
`layer.transform_images(x, t)` for the parameters `t` Keras's `get_random_transformation`
drew (saved under their Keras names: `flips`, `angle` and `rotation_matrix`, `height_zoom` and
`width_zoom`, `translations`, `crop`, `contrast_factor`, `rgb_delta`).

Filters and measures, keys `fl_<name>_*` (see FILTERS): `z32`/`z64` (TensorFlow's values for
float32 / float64 inputs `fl_x`, `fl_y`), `w32`/`w64` and `g32`/`g64` (a weighted sum's
gradient with respect to `x`).

Run with TensorFlow's venv (see README.md); writes augment.npz beside this file.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen_image import _axis_weights


def _rotation(angle: float, h: int, w: int) -> list[float]:
    """Keras's RandomRotation matrix (output -> input) about the image centre."""
    cos, sin = math.cos(angle), math.sin(angle)
    x_off = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2.0
    y_off = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2.0
    return [cos, -sin, x_off, sin, cos, y_off, 0.0, 0.0]


def _zoom(zy: float, zx: float, h: int, w: int) -> list[float]:
    return [zx, 0.0, (w - 1) * (1 - zx) / 2, 0.0, zy, (h - 1) * (1 - zy) / 2, 0.0, 0.0]


AFFINE = {
    "rotate": ((2, 5, 7, 3), lambda h, w: [_rotation(0.6, h, w), _rotation(-2.1, h, w)]),
    "shear": ((5, 6, 2), lambda h, w: [1.0, 0.35, -1.0, -0.2, 1.0, 0.5, 0.0, 0.0]),
    "zoom": ((1, 6, 5, 2), lambda h, w: [_zoom(0.7, 1.45, h, w)]),
    "translate": (
        (2, 4, 7, 1),
        lambda h, w: [[1, 0, 2.5, 0, 1, -1.25, 0, 0], [1, 0, -9.7, 0, 1, 13.3, 0, 0]],
    ),
    "project": ((7, 5, 2), lambda h, w: [0.9, 0.1, 0.4, -0.15, 1.1, 0.3, 0.02, -0.03]),
    "far": ((1, 3, 4, 1), lambda h, w: [[2.5, 0.3, -11.0, -0.4, 3.0, 17.5, 0.0, 0.0]]),
    "thin": ((1, 5, 2), lambda h, w: [1.0, 0.0, 0.4, 0.0, 1.0, -0.7, 0.0, 0.0]),
}
INTERPOLATIONS = ["nearest", "bilinear"]
FILL_MODES = ["constant", "nearest", "wrap", "reflect"]

#: (name, height, width, new height, new width)
RESIZE_SIZES = [("up", 4, 5, 7, 9), ("down", 9, 8, 4, 3), ("frac", 5, 7, 6, 4)]
RESIZE_METHODS = ["lanczos3", "lanczos5", "gaussian", "mitchellcubic"]


def _affine_matrix(keras, tf, shape, transforms, interpolation, fill_mode):
    """`M` (`[n, hw, hw]`) and the fill weights `f` (`[n, hw]`) of TensorFlow's map."""
    h, w = shape[-3], shape[-2]
    n = transforms.shape[0]
    hw = h * w
    eye = np.eye(hw, dtype=np.float32).reshape(hw, h, w, 1)
    mats, fills = [], []
    for k in range(n):
        t = np.repeat(transforms[k : k + 1], hw, axis=0)
        out = keras.ops.image.affine_transform(
            tf.constant(eye), tf.constant(t), interpolation, fill_mode, 0.0
        )
        mats.append(np.asarray(out).reshape(hw, hw).T.astype(np.float64))
        zero = np.zeros((1, h, w, 1), np.float32)
        f = keras.ops.image.affine_transform(
            tf.constant(zero), tf.constant(transforms[k : k + 1]), interpolation, fill_mode, 1.0
        )
        fills.append(np.asarray(f).reshape(hw).astype(np.float64))
    return np.stack(mats), np.stack(fills)


def _affine(keras, tf, rng, out):
    for name, (shape, build) in AFFINE.items():
        h, w = shape[-3], shape[-2]
        t = np.asarray(build(h, w), np.float32)
        t2 = t.reshape(-1, 8)
        x64 = rng.uniform(-1.0, 1.0, size=shape)
        wts = rng.uniform(-1.0, 1.0, size=shape)
        for interp in INTERPOLATIONS:
            for mode in FILL_MODES:
                fill = 0.5 if mode == "constant" else 0.0
                key = f"at_{name}_{interp}_{mode}"
                y32 = keras.ops.image.affine_transform(
                    tf.constant(x64.astype(np.float32)), tf.constant(t), interp, mode, fill
                )
                mats, fills = _affine_matrix(keras, tf, shape, t2, interp, mode)
                images = x64.reshape(-1, h * w, shape[-1])
                weights = wts.reshape(-1, h * w, shape[-1])
                y64 = np.empty_like(images)
                g64 = np.empty_like(images)
                for k in range(images.shape[0]):
                    m = mats[k % len(mats)]
                    y64[k] = m @ images[k]
                    g64[k] = m.T @ weights[k]
                out[f"{key}_x32"] = x64.astype(np.float32)
                out[f"{key}_y32"] = np.asarray(y32)
                out[f"{key}_x64"] = x64
                out[f"{key}_y64"] = y64.reshape(shape)
                out[f"{key}_g64"] = g64.reshape(shape)
                out[f"{key}_w"] = wts
                out[f"{key}_t"] = t
                out[f"{key}_fill"] = np.float64(fill)
                out[f"{key}_f"] = fills.reshape((len(mats), h, w))


def _resize(tf, rng, out):
    for name, h, w, oh, ow in RESIZE_SIZES:
        for method in RESIZE_METHODS:
            for antialias in (False, True):
                key = f"rs_{name}_{method}" + ("_aa" if antialias else "")
                x64 = rng.uniform(-1.0, 1.0, size=(2, h, w, 2))
                wts = rng.uniform(-1.0, 1.0, size=(2, oh, ow, 2))
                x32 = tf.constant(x64.astype(np.float32))
                with tf.GradientTape() as tape:
                    tape.watch(x32)
                    y32 = tf.image.resize(x32, [oh, ow], method=method, antialias=antialias)
                    total = tf.reduce_sum(y32 * tf.constant(wts.astype(np.float32)))
                g32 = tape.gradient(total, x32)
                wy = _axis_weights(tf, method, h, oh, antialias)
                wx = _axis_weights(tf, method, w, ow, antialias)
                y64 = np.einsum("ip,npqc,jq->nijc", wy, x64, wx)
                g64 = np.einsum("ip,nijc,jq->npqc", wy, wts, wx)
                out[f"{key}_x32"] = x64.astype(np.float32)
                out[f"{key}_y32"] = y32.numpy()
                out[f"{key}_g32"] = g32.numpy()
                out[f"{key}_x64"] = x64
                out[f"{key}_y64"] = y64
                out[f"{key}_g64"] = g64
                out[f"{key}_w"] = wts


#: name -> (layer class, constructor arguments, input shape, input scale)
LAYERS = {
    "flip_h": ("RandomFlip", {"mode": "horizontal", "seed": 1}, (4, 5, 6, 3), 1.0),
    "flip_hv_cf": (
        "RandomFlip",
        {"seed": 2, "data_format": "channels_first"},
        (4, 3, 5, 6),
        1.0,
    ),
    "flip_v_single": ("RandomFlip", {"mode": "vertical", "seed": 3}, (5, 6, 2), 1.0),
    "rotation": ("RandomRotation", {"factor": 0.3, "seed": 4}, (3, 7, 9, 2), 1.0),
    "rotation_nearest": (
        "RandomRotation",
        {
            "factor": (-0.2, 0.4),
            "fill_mode": "constant",
            "interpolation": "nearest",
            "fill_value": 0.3,
            "seed": 5,
        },
        (2, 6, 5, 1),
        1.0,
    ),
    "rotation_cf": (
        "RandomRotation",
        {"factor": 0.5, "fill_mode": "wrap", "data_format": "channels_first", "seed": 6},
        (2, 3, 6, 7),
        1.0,
    ),
    "zoom": (
        "RandomZoom",
        {"height_factor": 0.4, "width_factor": 0.2, "fill_mode": "nearest", "seed": 7},
        (3, 8, 7, 2),
        1.0,
    ),
    "zoom_single": ("RandomZoom", {"height_factor": (-0.5, 0.3), "seed": 8}, (6, 6, 3), 1.0),
    "translation": (
        "RandomTranslation",
        {
            "height_factor": 0.3,
            "width_factor": (-0.2, 0.5),
            "fill_mode": "constant",
            "fill_value": 1.0,
            "seed": 9,
        },
        (3, 7, 8, 2),
        1.0,
    ),
    "translation_wrap": (
        "RandomTranslation",
        {
            "height_factor": 0.5,
            "width_factor": 0.5,
            "fill_mode": "wrap",
            "interpolation": "nearest",
            "seed": 10,
        },
        (2, 5, 5, 1),
        1.0,
    ),
    "crop": ("RandomCrop", {"height": 4, "width": 5, "seed": 11}, (2, 7, 9, 3), 1.0),
    "crop_small": ("RandomCrop", {"height": 6, "width": 4, "seed": 12}, (2, 5, 9, 1), 1.0),
    "contrast": (
        "RandomContrast",
        {"factor": 0.6, "value_range": (0, 1), "seed": 13},
        (3, 5, 4, 3),
        1.0,
    ),
    "contrast_single": ("RandomContrast", {"factor": (0.2, 0.5), "seed": 14}, (4, 4, 2), 255.0),
    "brightness": (
        "RandomBrightness",
        {"factor": 0.4, "value_range": (0, 1), "seed": 15},
        (3, 4, 4, 3),
        1.0,
    ),
    "brightness_pair": (
        "RandomBrightness",
        {"factor": (-0.3, 0.1), "seed": 16},
        (2, 3, 3, 1),
        255.0,
    ),
}

_PARAMETERS = (
    "flips",
    "angle",
    "rotation_matrix",
    "height_zoom",
    "width_zoom",
    "translations",
    "contrast_factor",
    "rgb_delta",
)


def _layers(keras, rng, out):
    import json

    for name, (cls, kwargs, shape, scale) in LAYERS.items():
        layer = getattr(keras.layers, cls)(**kwargs)
        x = (rng.uniform(0.0, 1.0, size=shape) * scale).astype(np.float32)
        t = layer.get_random_transformation(x, training=True)
        y = layer.transform_images(x, t, training=True)
        key = f"ly_{name}"
        out[f"{key}_class"] = np.array(cls)
        out[f"{key}_kwargs"] = np.array(json.dumps(kwargs))
        out[f"{key}_x"] = x
        out[f"{key}_y"] = np.asarray(y)
        if isinstance(t, tuple):
            out[f"{key}_crop"] = np.array([int(v) for v in t])
            continue
        for p in _PARAMETERS:
            if p in t:
                out[f"{key}_{p}"] = np.asarray(t[p])


#: name -> f(lib, x, y): `rt.image`'s filters and measures, run the same way on rustape in
#: test_image_filters.py (x, y: [2, 5, 6, 3] in [0, 1)).
FILTERS = {
    "image_gradients_dy": lambda lib, x, y: lib.image.image_gradients(x)[0],
    "image_gradients_dx": lambda lib, x, y: lib.image.image_gradients(x)[1],
    "sobel_edges": lambda lib, x, y: lib.image.sobel_edges(x),
    "total_variation": lambda lib, x, y: lib.image.total_variation(x),
    "total_variation_single": lambda lib, x, y: lib.image.total_variation(x[0]),
    "psnr": lambda lib, x, y: lib.image.psnr(x, y, 1.0),
    "adjust_gamma": lambda lib, x, y: lib.image.adjust_gamma(x + 0.1, 0.7, 1.3),
}


#: Filters TensorFlow computes in float32 even for float64 images (float32 references only).
FLOAT32_INSIDE = {"psnr", "adjust_gamma"}


def _filters(tf, rng, out):
    x64 = rng.uniform(0.0, 1.0, size=(2, 5, 6, 3))
    y64 = rng.uniform(0.0, 1.0, size=(2, 5, 6, 3))
    out["fl_x"], out["fl_y"] = x64, y64
    for name, f in FILTERS.items():
        for bits, dtype in (("32", tf.float32), ("64", tf.float64)):
            if bits == "64" and name in FLOAT32_INSIDE:
                continue
            x = tf.constant(x64, dtype)
            y = tf.constant(y64, dtype)
            with tf.GradientTape() as tape:
                tape.watch(x)
                z = f(tf, x, y)
                w = tf.constant(rng.uniform(-1.0, 1.0, size=z.shape), dtype)
                total = tf.reduce_sum(z * w)
            out[f"fl_{name}_z{bits}"] = z.numpy()
            out[f"fl_{name}_w{bits}"] = w.numpy()
            out[f"fl_{name}_g{bits}"] = tape.gradient(total, x).numpy()


def main() -> None:
    import keras
    import tensorflow as tf

    rng = np.random.default_rng(4242)
    out: dict[str, np.ndarray] = {}
    _affine(keras, tf, rng, out)
    _resize(tf, rng, out)
    _layers(keras, rng, out)
    _filters(tf, rng, out)
    path = os.path.join(os.path.dirname(__file__), "augment.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
