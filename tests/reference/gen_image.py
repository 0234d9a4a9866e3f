"""`tf.image.resize` (TensorFlow 2.21, antialias=False) over methods, sizes, dtypes and batching,
with the gradient of a weighted sum of the output with respect to the images (TensorFlow has no
gradient for "area": its reference is the transposed weights alone).

float32: TensorFlow's own outputs and gradients. float64: TensorFlow returns float32 for float64
images, so the float64 reference is TensorFlow's per-axis sample weights (read from resizes of
one-hot columns, which TensorFlow computes exactly) applied in float64:
`y = Wy x Wx^T` per channel, and the gradient `Wy^T w Wx`.

Run with TensorFlow's venv (see README.md); writes image.npz beside this file.
"""

from __future__ import annotations

import os

import numpy as np

#: (name, image height, width, new height, new width)
SIZES = [
    ("up2", 4, 4, 8, 8),
    ("down2", 8, 8, 4, 4),
    ("frac", 5, 7, 8, 3),
    ("frac2", 6, 5, 4, 9),
    ("odd", 3, 3, 7, 5),
    ("odd_down", 7, 9, 3, 2),
    ("same", 4, 5, 4, 5),
    ("one", 1, 2, 3, 5),
]
METHODS = ["bilinear", "nearest", "bicubic", "area"]


#: name -> f(lib, image): the same calls run on rustape in test_image_compositions.py.
COMPOSITIONS = {
    "flip_left_right": lambda lib, x: lib.image.flip_left_right(x),
    "flip_up_down": lambda lib, x: lib.image.flip_up_down(x),
    "rot90_1": lambda lib, x: lib.image.rot90(x),
    "rot90_2": lambda lib, x: lib.image.rot90(x, k=2),
    "rot90_3": lambda lib, x: lib.image.rot90(x, k=3),
    "transpose": lambda lib, x: lib.image.transpose(x),
    "central_crop": lambda lib, x: lib.image.central_crop(x, 0.5),
    "central_crop_07": lambda lib, x: lib.image.central_crop(x, 0.7),
    "crop_to_bounding_box": lambda lib, x: lib.image.crop_to_bounding_box(x, 1, 2, 3, 3),
    "pad_to_bounding_box": lambda lib, x: lib.image.pad_to_bounding_box(x, 2, 1, 8, 9),
    "crop_or_pad_grow": lambda lib, x: lib.image.resize_with_crop_or_pad(x, 8, 9),
    "crop_or_pad_shrink": lambda lib, x: lib.image.resize_with_crop_or_pad(x, 2, 3),
    "crop_or_pad_mixed": lambda lib, x: lib.image.resize_with_crop_or_pad(x, 8, 3),
    "resize_with_pad": lambda lib, x: lib.image.resize_with_pad(x, 7, 7),
    "resize_with_pad_wide": lambda lib, x: lib.image.resize_with_pad(x, 4, 11, method="bicubic"),
    "adjust_brightness": lambda lib, x: lib.image.adjust_brightness(x, 0.3),
    "adjust_contrast": lambda lib, x: lib.image.adjust_contrast(x, 1.7),
    "per_image_standardization": lambda lib, x: lib.image.per_image_standardization(x),
    "rgb_to_grayscale": lambda lib, x: lib.image.rgb_to_grayscale(x),
    "grayscale_to_rgb": lambda lib, x: lib.image.grayscale_to_rgb(x[..., :1]),
    "to_int32": lambda lib, x: lib.image.convert_image_dtype(x * 0.9, lib.int32),
    "to_int32_saturate": lambda lib, x: lib.image.convert_image_dtype(
        x * 2.0 - 0.5, lib.int32, saturate=True
    ),
    "int32_to_float": lambda lib, x: lib.image.convert_image_dtype(
        lib.cast(x * 1e9, lib.int32), lib.float32
    ),
    "to_float64": lambda lib, x: lib.image.convert_image_dtype(x, lib.float64),
}


#: name -> (layer class, constructor arguments, input shape): Keras 3's image layers.
LAYERS = {
    "resizing_up": ("Resizing", {"height": 7, "width": 9}, (2, 4, 5, 3)),
    "resizing_nearest": (
        "Resizing",
        {"height": 3, "width": 2, "interpolation": "nearest"},
        (5, 6, 2),
    ),
    "resizing_bicubic": (
        "Resizing",
        {"height": 6, "width": 4, "interpolation": "bicubic"},
        (2, 4, 5, 1),
    ),
    "resizing_area": ("Resizing", {"height": 3, "width": 3, "interpolation": "area"}, (1, 7, 8, 2)),
    "resizing_crop": (
        "Resizing",
        {"height": 4, "width": 4, "crop_to_aspect_ratio": True},
        (2, 5, 8, 3),
    ),
    "resizing_crop_tall": (
        "Resizing",
        {"height": 6, "width": 3, "crop_to_aspect_ratio": True},
        (1, 5, 7, 1),
    ),
    "resizing_pad": (
        "Resizing",
        {"height": 4, "width": 4, "pad_to_aspect_ratio": True, "fill_value": 0.5},
        (2, 3, 7, 2),
    ),
    "resizing_pad_tall": (
        "Resizing",
        {"height": 6, "width": 3, "pad_to_aspect_ratio": True},
        (1, 5, 5, 1),
    ),
    "resizing_channels_first": (
        "Resizing",
        {"height": 5, "width": 3, "data_format": "channels_first"},
        (2, 3, 4, 6),
    ),
    "center_crop": ("CenterCrop", {"height": 3, "width": 4}, (2, 6, 7, 3)),
    "center_crop_single": ("CenterCrop", {"height": 2, "width": 2}, (5, 4, 1)),
    "center_crop_grow": ("CenterCrop", {"height": 6, "width": 5}, (2, 4, 7, 1)),
    "center_crop_channels_first": (
        "CenterCrop",
        {"height": 2, "width": 3, "data_format": "channels_first"},
        (1, 2, 5, 6),
    ),
}


def _axis_weights(
    tf, method: str, size_in: int, size_out: int, antialias: bool = False
) -> np.ndarray:
    """TensorFlow's weights along one axis: `[size_out, size_in]`."""
    columns = np.eye(size_in, dtype=np.float32).reshape(size_in, size_in, 1, 1)
    out = tf.image.resize(columns, [size_out, 1], method=method, antialias=antialias).numpy()
    return out[:, :, 0, 0].T.astype(np.float64)


def main() -> None:
    import tensorflow as tf

    rng = np.random.default_rng(2026)
    out: dict[str, np.ndarray] = {}
    cases = [(name, h, w, oh, ow, m, False) for name, h, w, oh, ow in SIZES for m in METHODS]
    # antialias=True (the scale-and-translate kernels), keys prefixed "aa_"
    cases += [
        (name, h, w, oh, ow, m, True)
        for name, h, w, oh, ow in SIZES
        if name in ("up2", "down2", "frac", "odd_down")
        for m in ("bilinear", "bicubic")
    ]
    for name, h, w, oh, ow, method, antialias in cases:
        wy = _axis_weights(tf, method, h, oh, antialias)
        wx = _axis_weights(tf, method, w, ow, antialias)
        for batched in (False, True):
            shape = (2, h, w, 3) if batched else (h, w, 2)
            key = f"{name}_{method}_{'batch' if batched else 'single'}"
            if antialias:
                key = f"aa_{key}"
            x32 = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
            x64 = rng.uniform(-1.0, 1.0, size=shape)
            weights = rng.uniform(-1.0, 1.0, size=shape[:-3] + (oh, ow, shape[-1]))
            image = tf.constant(x32)
            with tf.GradientTape() as tape:
                tape.watch(image)
                y = tf.image.resize(image, [oh, ow], method=method, antialias=antialias)
                total = tf.reduce_sum(y * weights.astype(np.float32))
            out[f"{key}_x32"] = x32
            out[f"{key}_y32"] = y.numpy()
            if method != "area":  # TensorFlow registers no gradient for ResizeArea
                out[f"{key}_g32"] = tape.gradient(total, image).numpy()
            out[f"{key}_x64"] = x64
            out[f"{key}_w"] = weights
            out[f"{key}_y64"] = np.einsum("ip,jq,...pqc->...ijc", wy, wx, x64)
            out[f"{key}_g64"] = np.einsum("ip,jq,...ijc->...pqc", wy, wx, weights)
    # preserve_aspect_ratio and integer images
    x = rng.uniform(0.0, 1.0, size=(6, 4, 1)).astype(np.float32)
    out["aspect_x"] = x
    out["aspect_y"] = tf.image.resize(x, [5, 5], preserve_aspect_ratio=True).numpy()
    out["aspect2_y"] = tf.image.resize(x, [9, 3], preserve_aspect_ratio=True).numpy()
    ints = rng.integers(0, 255, size=(5, 4, 3)).astype(np.uint8)
    out["uint8_x"] = ints
    out["uint8_bilinear_y"] = tf.image.resize(ints, [7, 3]).numpy()
    nearest = tf.image.resize(ints.astype(np.int32), [7, 3], method="nearest")
    assert nearest.dtype == tf.int32
    out["int32_nearest_y"] = nearest.numpy()
    # the compositions (see COMPOSITIONS), on one image and on a batch
    for batched in (False, True):
        shape = (2, 5, 6, 3) if batched else (5, 6, 3)
        x = rng.uniform(0.0, 1.0, size=shape).astype(np.float32)
        tag = "batch" if batched else "single"
        out[f"comp_{tag}_x"] = x
        for name, f in COMPOSITIONS.items():
            out[f"comp_{tag}_{name}"] = f(tf, tf.constant(x)).numpy()
    import keras

    for name, (cls, kwargs, shape) in LAYERS.items():
        x = rng.uniform(0.0, 1.0, size=shape).astype(np.float32)
        out[f"layer_{name}_x"] = x
        out[f"layer_{name}_y"] = np.asarray(getattr(keras.layers, cls)(**kwargs)(x))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "image.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
