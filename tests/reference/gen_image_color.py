"""`tf.image`'s colour spaces, hue and saturation adjustments, SSIM and MS-SSIM (TensorFlow
2.21), with gradients where TensorFlow has them.

- `rgb_to_hsv` / `hsv_to_rgb` (float32 and float64) on random pixels and edge cases (grey,
  black, ties between channels, hues next to the wrap), the gradient of `rgb_to_hsv` (a
  weighted sum) on the random pixels only (TensorFlow's gradient picks arbitrary branches at
  ties);
- `rgb_to_yiq`, `yiq_to_rgb`, `rgb_to_yuv`, `yuv_to_rgb` and their gradients;
- `adjust_hue` over deltas (wrapping both ways, 0, +-1) and `adjust_saturation` over factors
  (0, below 1, 1, above 1 to clamp), float32 (TensorFlow computes float64 in float32);
- `ssim` over sizes, filter sizes and sigmas, `return_index_map`, batch broadcasting, and its
  gradient with respect to the first image; `ssim_multiscale` with the default weights on a
  180x180 image and with three weights and odd sizes (the padding path), with gradients.

Run with TensorFlow's venv (see README.md); writes image_color.npz beside this file.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

OUT: dict[str, np.ndarray] = {}

#: Pixels where a formula switches branch: grey, black, white, ties of the maximum or the
#: minimum, hues just below 1 (red with a little blue) and just above 0, negative values.
EDGES = np.array(
    [
        [0.5, 0.5, 0.5],
        [0.0, 0.0, 0.0],
        [1.0, 1.0, 1.0],
        [0.8, 0.8, 0.2],
        [0.2, 0.8, 0.8],
        [0.8, 0.2, 0.8],
        [0.8, 0.3, 0.3],
        [0.3, 0.8, 0.3],
        [0.9, 0.1, 0.1000001],
        [0.9, 0.1000001, 0.1],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.25, 0.75, 0.5],
        [-0.1, 0.4, 0.2],
    ],
    dtype=np.float64,
)


def colour() -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(0.0, 1.0, size=(2, 5, 7, 3))
    OUT["rgb"] = x
    OUT["edges"] = EDGES
    hsv_in = rng.uniform(0.0, 1.0, size=(3, 4, 3))
    OUT["hsv"] = hsv_in
    w = rng.normal(size=(2, 5, 7, 3))
    OUT["w"] = w
    for bits, dtype in (("32", tf.float32), ("64", tf.float64)):
        xt = tf.constant(x, dtype)
        wt = tf.constant(w, dtype)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            hsv = tf.image.rgb_to_hsv(xt)
            total = tf.reduce_sum(hsv * wt)
        OUT[f"rgb_to_hsv_{bits}"] = hsv.numpy()
        OUT[f"rgb_to_hsv_grad_{bits}"] = tape.gradient(total, xt).numpy()
        OUT[f"edges_to_hsv_{bits}"] = tf.image.rgb_to_hsv(tf.constant(EDGES, dtype)).numpy()
        OUT[f"hsv_to_rgb_{bits}"] = tf.image.hsv_to_rgb(tf.constant(hsv_in, dtype)).numpy()
        for name in ("rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb"):
            with tf.GradientTape() as tape:
                tape.watch(xt)
                y = getattr(tf.image, name)(xt)
                total = tf.reduce_sum(y * wt)
            OUT[f"{name}_{bits}"] = y.numpy()
            OUT[f"{name}_grad_{bits}"] = tape.gradient(total, xt).numpy()
    both = np.concatenate([x.reshape(-1, 3), EDGES]).reshape(1, -1, 3).astype(np.float32)
    OUT["adjust_in"] = both
    for i, delta in enumerate(DELTAS):
        OUT[f"adjust_hue_{i}"] = tf.image.adjust_hue(both, delta).numpy()
    for i, factor in enumerate(FACTORS):
        OUT[f"adjust_saturation_{i}"] = tf.image.adjust_saturation(both, factor).numpy()


DELTAS = [-1.0, -0.7, -0.3, 0.0, 0.05, 0.25, 0.5, 0.9, 1.0]
FACTORS = [0.0, 0.3, 1.0, 1.7, 5.0]

#: (name, shape of img1, shape of img2, filter_size, filter_sigma, max_val)
SSIM_CASES = [
    ("small", (2, 16, 16, 3), (2, 16, 16, 3), 11, 1.5, 1.0),
    ("filter7", (1, 24, 20, 1), (1, 24, 20, 1), 7, 1.0, 1.0),
    ("filter3", (3, 12, 13, 2), (3, 12, 13, 2), 3, 0.8, 2.0),
    ("broadcast", (2, 1, 14, 15, 3), (4, 14, 15, 3), 5, 1.5, 1.0),
    ("unbatched", (11, 11, 3), (11, 11, 3), 11, 1.5, 1.0),
]

#: (name, shape, power_factors, filter_size)
MS_CASES = [
    ("default", (1, 180, 180, 3), (0.0448, 0.2856, 0.3001, 0.2363, 0.1333), 11),
    ("odd", (2, 45, 51, 1), (0.5, 0.3, 0.2), 7),
]


def structural() -> None:
    rng = np.random.default_rng(11)
    for name, s1, s2, size, sigma, top in SSIM_CASES:
        a = rng.uniform(0.0, top, size=s1).astype(np.float32)
        b = rng.uniform(0.0, top, size=s2).astype(np.float32)
        if s1 == s2:  # correlated pairs: the interesting regime
            b = np.clip(a + rng.normal(scale=0.1 * top, size=s1), 0.0, top).astype(np.float32)
        at = tf.constant(a)
        with tf.GradientTape() as tape:
            tape.watch(at)
            v = tf.image.ssim(at, b, top, filter_size=size, filter_sigma=sigma)
            total = tf.reduce_sum(v)
        OUT[f"ssim_{name}_a"] = a
        OUT[f"ssim_{name}_b"] = b
        OUT[f"ssim_{name}"] = v.numpy()
        OUT[f"ssim_{name}_grad"] = tape.gradient(total, at).numpy()
        OUT[f"ssim_{name}_map"] = tf.image.ssim(
            a, b, top, filter_size=size, filter_sigma=sigma, return_index_map=True
        ).numpy()
    for name, shape, factors, size in MS_CASES:
        a = rng.uniform(0.0, 1.0, size=shape).astype(np.float32)
        b = np.clip(a + rng.normal(scale=0.1, size=shape), 0.0, 1.0).astype(np.float32)
        at = tf.constant(a)
        with tf.GradientTape() as tape:
            tape.watch(at)
            v = tf.image.ssim_multiscale(at, b, 1.0, power_factors=factors, filter_size=size)
            total = tf.reduce_sum(v)
        OUT[f"ms_{name}_a"] = a
        OUT[f"ms_{name}_b"] = b
        OUT[f"ms_{name}"] = v.numpy()
        OUT[f"ms_{name}_grad"] = tape.gradient(total, at).numpy()


def layers() -> None:
    """Keras 3.15's colour layers' `transform_images` for fixed parameters (the draws are
    rustape's own), on a batch of two `[0, 255]` images."""
    import keras

    rng = np.random.default_rng(13)
    x = rng.uniform(0.0, 255.0, size=(2, 6, 7, 3)).astype(np.float32)
    OUT["layers_x"] = x
    L = keras.layers
    cases = {
        "hue": (L.RandomHue(0.5), {"factor": tf.constant([0.2, -0.35])}),
        "hue_unit": (
            L.RandomHue(0.5, value_range=(0, 1)),
            {"factor": tf.constant([0.45, -0.1])},
        ),
        "saturation": (L.RandomSaturation(0.5), {"factor": tf.constant([0.3, 2.0])}),
        "saturation_unit": (
            L.RandomSaturation(0.5, value_range=(0, 1)),
            {"factor": tf.constant([0.0, 1.5])},
        ),
        "invert": (L.RandomInvert(), {"apply_inversion": tf.constant([True, False])}),
        "posterization": (
            L.RandomPosterization(4),
            {"shift_factor": tf.constant([4, 6], tf.uint8)},
        ),
        "degeneration": (
            L.RandomColorDegeneration(0.5),
            {"factor": tf.constant([0.3, 0.8], shape=[2, 1, 1, 1])},
        ),
        "sharpness": (L.RandomSharpness(0.5), {"factor": tf.constant([0.1, 0.9])}),
        "shear": (
            L.RandomShear(0.5, 0.5, fill_mode="constant", fill_value=3.0),
            {"shear_factor": tf.constant([[0.3, -0.2], [-0.1, 0.4]])},
        ),
        "shear_reflect": (
            L.RandomShear(0.5, 0.5, interpolation="nearest"),
            {"shear_factor": tf.constant([[-0.45, 0.15], [0.2, 0.25]])},
        ),
    }
    OUT["keras_blur"] = np.asarray(keras.ops.image.gaussian_blur(x, (3, 3), (1.2, 0.7)))
    OUT["keras_blur_first"] = np.asarray(
        keras.ops.image.gaussian_blur(
            np.transpose(x, (0, 3, 1, 2)), (5, 5), (2.0, 2.0), data_format="channels_first"
        )
    )
    blur = L.RandomGaussianBlur(kernel_size=5)
    OUT["layer_blur"] = np.asarray(
        blur.transform_images(
            tf.constant(x),
            {
                "should_apply_blur": tf.constant([True, False]),
                "blur_factor": tf.constant([1.3, 0.8]),
            },
        )
    )
    a = rng.uniform(0.0, 1.0, size=(2, 3, 16, 15)).astype(np.float32)
    b = np.clip(a + rng.normal(scale=0.1, size=a.shape), 0.0, 1.0).astype(np.float32)
    OUT["keras_ssim_a"], OUT["keras_ssim_b"] = a, b
    OUT["keras_ssim"] = np.asarray(
        keras.ops.image.ssim(a, b, filter_size=7, filter_sigma=1.2, data_format="channels_first")
    )
    for name, (layer, transformation) in cases.items():
        images = x / 255.0 if name.endswith("_unit") else x
        OUT[f"layer_{name}"] = np.asarray(
            layer.transform_images(tf.constant(images), transformation)
        )


#: (name, image shape, sizes, strides, rates, padding) for `tf.image.extract_patches`.
PATCH_CASES = [
    ("valid", (2, 7, 6, 2), (1, 3, 2, 1), (1, 2, 1, 1), (1, 1, 1, 1), "VALID"),
    ("same", (1, 5, 6, 3), (1, 2, 3, 1), (1, 2, 2, 1), (1, 1, 1, 1), "SAME"),
    ("rates", (2, 9, 8, 1), (1, 2, 2, 1), (1, 3, 2, 1), (1, 2, 3, 1), "VALID"),
    ("rates_same", (1, 6, 7, 2), (1, 3, 2, 1), (1, 1, 3, 1), (1, 2, 2, 1), "SAME"),
]


def patches() -> None:
    rng = np.random.default_rng(17)
    for name, shape, sizes, strides, rates, padding in PATCH_CASES:
        x = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = tf.image.extract_patches(xt, sizes, strides, rates, padding)
            w = tf.constant(rng.normal(size=y.shape).astype(np.float32))
            total = tf.reduce_sum(y * w)
        OUT[f"patches_{name}_x"] = x
        OUT[f"patches_{name}_w"] = w.numpy()
        OUT[f"patches_{name}"] = y.numpy()
        OUT[f"patches_{name}_grad"] = tape.gradient(total, xt).numpy()


def crops() -> None:
    """`tf.image.crop_and_resize` (bilinear with gradients for the image and the boxes,
    nearest), boxes inside, flipped, and reaching outside the image."""
    rng = np.random.default_rng(19)
    image = rng.uniform(-1.0, 1.0, size=(2, 6, 7, 2)).astype(np.float32)
    boxes = np.array(
        [[0.1, 0.2, 0.8, 0.9], [0.7, 0.6, 0.2, 0.1], [-0.2, 0.3, 0.5, 1.3], [0.3, 0.3, 0.3, 0.6]],
        np.float32,
    )
    indices = np.array([0, 1, 1, 0], np.int32)
    OUT["crop_image"], OUT["crop_boxes"], OUT["crop_indices"] = image, boxes, indices
    for method in ("bilinear", "nearest"):
        for size in ((3, 4), (1, 1)):
            key = f"crop_{method}_{size[0]}x{size[1]}"
            it, bt = tf.constant(image), tf.constant(boxes)
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([it, bt])
                y = tf.image.crop_and_resize(
                    it, bt, indices, size, method=method, extrapolation_value=0.5
                )
                w = tf.constant(rng.normal(size=y.shape).astype(np.float32))
                total = tf.reduce_sum(y * w)
            OUT[key] = y.numpy()
            OUT[f"{key}_w"] = w.numpy()
            if method == "bilinear":
                OUT[f"{key}_grad_image"] = tape.gradient(total, it).numpy()
                OUT[f"{key}_grad_boxes"] = tape.gradient(total, bt).numpy()


def main() -> None:
    colour()
    structural()
    layers()
    patches()
    crops()
    here = os.path.dirname(os.path.abspath(__file__))
    np.savez_compressed(os.path.join(here, "image_color.npz"), **OUT)
    print(f"wrote {len(OUT)} arrays")


if __name__ == "__main__":
    main()
