"""Keras 3's image-file utilities on a small folder of PNG, JPEG, BMP and GIF files in
several colour modes (made here with Pillow, kept in tests/reference/image_files/): what
`image_dataset_from_directory` yields (unshuffled, so the order is Keras's own; shuffled,
its file order after the seeded index shuffle), and `load_img` / `img_to_array` /
`array_to_img` results.

Writes image_files.npz and image_files.json.
Run with the TensorFlow venv (with Pillow installed): python gen_image_files.py
"""

import json
import os
import shutil

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "image_files")
rng = np.random.RandomState(31)

shutil.rmtree(ROOT, ignore_errors=True)
FILES = {
    "ant/a1.png": ("RGB", (9, 7)),
    "ant/a2.jpg": ("RGB", (16, 12)),
    "ant/sub/a3.png": ("L", (5, 8)),
    "bee/b1.bmp": ("RGB", (6, 6)),
    "bee/b2.png": ("RGBA", (7, 10)),
    "bee/b3.gif": ("P", (8, 5)),
    "bee/notes.txt": None,
    "cow/c1.jpeg": ("L", (11, 9)),
    "cow/c2.PNG": ("P", (4, 13)),
    ".hidden/h.png": ("RGB", (3, 3)),
}
for rel, spec in FILES.items():
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if spec is None:
        with open(path, "w") as f:
            f.write("not an image")
        continue
    mode, (w, h) = spec
    if mode == "P":
        img = Image.fromarray(rng.randint(0, 256, (h, w, 3)).astype(np.uint8), "RGB").quantize(16)
    else:
        channels = {"RGB": 3, "L": 1, "RGBA": 4}[mode]
        pixels = rng.randint(0, 256, (h, w, channels)).astype(np.uint8)
        img = Image.fromarray(pixels[:, :, 0] if channels == 1 else pixels, mode)
    img.save(path, quality=90) if rel.lower().endswith((".jpg", ".jpeg")) else img.save(path)

import keras

U = keras.utils
out, meta = {}, {}


def take(name, ds, batched=True):
    images, labels = [], []
    for batch in ds if batched else ds.batch(100):
        if isinstance(batch, tuple):
            images.append(np.asarray(batch[0]))
            labels.append(np.asarray(batch[1]))
        else:
            images.append(np.asarray(batch))
    out[f"{name}/images"] = np.concatenate(images)
    if labels:
        out[f"{name}/labels"] = np.concatenate(labels)
    meta[name] = {
        "class_names": ds.class_names,
        "file_paths": [os.path.relpath(p, ROOT) for p in ds.file_paths],
    }


CASES = {
    "default": {"image_size": (12, 10), "batch_size": 3, "shuffle": False},
    # (TensorFlow cannot decode a BMP file to one channel, so the bee folder is left out.)
    "gray_nearest_cat": {
        "image_size": (6, 6),
        "color_mode": "grayscale",
        "interpolation": "nearest",
        "label_mode": "categorical",
        "batch_size": 4,
        "shuffle": False,
        "class_names": ["ant", "cow"],
    },
    # (TensorFlow decodes neither JPEG nor GIF files to four channels: RGBA is load_img's.)
    "area_reordered": {
        "image_size": (5, 9),
        "interpolation": "area",
        "batch_size": None,
        "shuffle": False,
        "class_names": ["bee", "ant"],
    },
    "crop_bicubic": {
        "image_size": (8, 8),
        "crop_to_aspect_ratio": True,
        "interpolation": "bicubic",
        "shuffle": False,
        "batch_size": 8,
    },
    "pad": {"image_size": (7, 11), "pad_to_aspect_ratio": True, "shuffle": False, "batch_size": 2},
    "class_subset_binary": {
        "image_size": (4, 4),
        "class_names": ["cow", "ant"],
        "label_mode": "binary",
        "shuffle": False,
    },
    "no_labels": {"image_size": (4, 5), "labels": None, "shuffle": False, "batch_size": 5},
    "given_labels": {
        "image_size": (3, 3),
        "labels": [4, 1, 1, 0, 4, 2, 2, 0, 1],
        "shuffle": False,
        "batch_size": 4,
    },
    "validation": {
        "image_size": (4, 4),
        "validation_split": 0.25,
        "subset": "validation",
        "seed": 11,
        "batch_size": 2,
    },
}
for name, kw in CASES.items():
    take(
        name,
        U.image_dataset_from_directory(ROOT, verbose=False, **kw),
        batched=kw.get("batch_size", 32) is not None,
    )
train, val = U.image_dataset_from_directory(
    ROOT, image_size=(4, 4), validation_split=0.4, subset="both", seed=5, verbose=False
)
meta["both_train"] = {
    "class_names": train.class_names,
    "file_paths": [os.path.relpath(p, ROOT) for p in train.file_paths],
}
take("both_val", val)
shuffled = U.image_dataset_from_directory(ROOT, image_size=(4, 4), seed=123, verbose=False)
meta["shuffled"] = {
    "class_names": shuffled.class_names,
    "file_paths": [os.path.relpath(p, ROOT) for p in shuffled.file_paths],
}

for rel in ("ant/a1.png", "ant/a2.jpg", "bee/b2.png", "bee/b3.gif", "cow/c1.jpeg"):
    path = os.path.join(ROOT, rel)
    for mode in ("rgb", "grayscale", "rgba"):
        out[f"load/{rel}/{mode}"] = U.img_to_array(U.load_img(path, color_mode=mode))
    for interp in ("nearest", "bilinear", "bicubic", "lanczos", "box", "hamming"):
        out[f"load/{rel}/resize_{interp}"] = U.img_to_array(
            U.load_img(path, target_size=(5, 6), interpolation=interp)
        )
    out[f"load/{rel}/keep_aspect"] = U.img_to_array(
        U.load_img(path, target_size=(4, 7), keep_aspect_ratio=True, interpolation="bilinear")
    )
# TensorFlow's JPEG decoder defaults to libjpeg's fast integer DCT; its accurate one (what
# Pillow, and so rustape, uses) gives these:
import tensorflow as tf

for rel in ("ant/a2.jpg", "cow/c1.jpeg"):
    data = tf.io.read_file(os.path.join(ROOT, rel))
    for channels in (1, 3):
        out[f"jpeg_accurate/{rel}/{channels}"] = tf.io.decode_jpeg(
            data, channels=channels, dct_method="INTEGER_ACCURATE"
        ).numpy()
arr = rng.uniform(-3, 5, (4, 6, 3)).astype(np.float32)
out["array_to_img/input"] = arr
out["array_to_img/scaled"] = np.asarray(U.array_to_img(arr))
out["array_to_img/unscaled"] = np.asarray(U.array_to_img(np.abs(arr) * 40, scale=False))
out["img_to_array/channels_first"] = U.img_to_array(
    U.array_to_img(arr), data_format="channels_first"
)
np.savez_compressed(os.path.join(HERE, "image_files.npz"), **out)
with open(os.path.join(HERE, "image_files.json"), "w") as f:
    json.dump(meta, f, indent=1)
print(f"image_files.npz: {len(out)} arrays")
