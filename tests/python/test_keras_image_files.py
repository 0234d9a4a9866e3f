"""keras.utils' image-file utilities against Keras 3 (tests/reference/gen_image_files.py):
image_dataset_from_directory's batches, labels, class names and file order (Keras's own, and
after its seeded index shuffle), and load_img / img_to_array / array_to_img / save_img."""

import io
import json
import os

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
REFDIR = os.path.join(HERE, "..", "reference")
ROOT = os.path.join(REFDIR, "image_files")
REF = np.load(os.path.join(REFDIR, "image_files.npz"))
with open(os.path.join(REFDIR, "image_files.json")) as f:
    META = json.load(f)
U = rt.keras.utils

CASES = {
    "default": {"image_size": (12, 10), "batch_size": 3, "shuffle": False},
    "gray_nearest_cat": {
        "image_size": (6, 6),
        "color_mode": "grayscale",
        "interpolation": "nearest",
        "label_mode": "categorical",
        "batch_size": 4,
        "shuffle": False,
        "class_names": ["ant", "cow"],
    },
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


def collect(ds, batched=True):
    images, labels = [], []
    for batch in ds if batched else ds.batch(100):
        if isinstance(batch, tuple):
            images.append(batch[0].numpy())
            labels.append(batch[1].numpy())
        else:
            images.append(batch.numpy())
    return np.concatenate(images), (np.concatenate(labels) if labels else None)


def close(images, want, paths):
    """Equal to float32 rounding, except JPEG files: TensorFlow decodes them with libjpeg's fast
    integer DCT by default, Pillow (so rustape) with the accurate one (the pixels equal
    TensorFlow's `dct_method="INTEGER_ACCURATE"`, see below): up to 4 levels apart."""
    for image, expected, path in zip(images, want, paths):
        jpeg = path.lower().endswith((".jpg", ".jpeg"))
        np.testing.assert_allclose(image, expected, rtol=1e-5, atol=4.0 if jpeg else 1e-3)


def relpaths(ds):
    return [os.path.relpath(p, ROOT) for p in ds.file_paths]


@pytest.mark.parametrize("case", sorted(CASES))
def test_image_dataset_from_directory_matches_keras(case, capsys):
    kw = CASES[case]
    ds = U.image_dataset_from_directory(ROOT, verbose=False, **kw)
    meta = META[case]
    assert ds.class_names == meta["class_names"]
    assert relpaths(ds) == meta["file_paths"]
    images, labels = collect(ds, kw.get("batch_size", 32) is not None)
    want = REF[f"{case}/images"]
    assert images.shape == want.shape
    # TF keeps uint8 for "nearest"; rustape has no uint8, so int32.
    assert images.dtype == (np.int32 if kw.get("interpolation") == "nearest" else np.float32)
    paths = meta["file_paths"]
    want_labels = REF.get(f"{case}/labels", None)
    if kw.get("shuffle", True):
        # The shuffle buffer draws other random numbers than TF's: the same (image, label)
        # pairs, in another order. Match each image to Keras's (which file each one is, is
        # not known after either shuffle, so every image gets the JPEG tolerance).
        order = [
            min(range(len(want)), key=lambda j, im=im: np.abs(want[j] - im).max()) for im in images
        ]
        assert sorted(order) == list(range(len(want)))
        want, paths = want[order], [".jpg"] * len(order)
        want_labels = None if want_labels is None else want_labels[order]
    close(images, want, paths)
    if want_labels is not None:
        assert labels.dtype == want_labels.dtype
        np.testing.assert_array_equal(labels, want_labels)
    else:
        assert labels is None


def test_shuffled_order_and_both_subsets(capsys):
    ds = U.image_dataset_from_directory(ROOT, image_size=(4, 4), seed=123)
    assert "Found 8 files belonging to 3 classes." in capsys.readouterr().out
    assert relpaths(ds) == META["shuffled"]["file_paths"]
    batches = collect(ds)
    assert batches[0].shape == (8, 4, 4, 3)
    # Whatever the shuffle buffer draws, every file's image and label arrive once.
    train, val = U.image_dataset_from_directory(
        ROOT, image_size=(4, 4), validation_split=0.4, subset="both", seed=5, verbose=False
    )
    assert relpaths(train) == META["both_train"]["file_paths"]
    assert relpaths(val) == META["both_val"]["file_paths"]
    images, labels = collect(val)
    close(images, REF["both_val/images"], META["both_val"]["file_paths"])
    np.testing.assert_array_equal(labels, REF["both_val/labels"])
    assert train.class_names == val.class_names == ["ant", "bee", "cow"]


@pytest.mark.parametrize("rel", ["ant/a2.jpg", "cow/c1.jpeg"])
def test_jpeg_pixels_are_tensorflows_accurate_dct(rel):
    from rustape.keras._image_files import decode_image_file

    for channels in (1, 3):
        np.testing.assert_array_equal(
            decode_image_file(os.path.join(ROOT, rel), channels),
            REF[f"jpeg_accurate/{rel}/{channels}"],
        )


LOADS = ["ant/a1.png", "ant/a2.jpg", "bee/b2.png", "bee/b3.gif", "cow/c1.jpeg"]


@pytest.mark.parametrize("rel", LOADS)
def test_load_img_matches_keras(rel):
    path = os.path.join(ROOT, rel)
    for mode in ("rgb", "grayscale", "rgba"):
        got = U.img_to_array(U.load_img(path, color_mode=mode))
        np.testing.assert_array_equal(got, REF[f"load/{rel}/{mode}"])
    for interp in ("nearest", "bilinear", "bicubic", "lanczos", "box", "hamming"):
        got = U.img_to_array(U.load_img(path, target_size=(5, 6), interpolation=interp))
        np.testing.assert_array_equal(got, REF[f"load/{rel}/resize_{interp}"])
    got = U.img_to_array(
        U.load_img(path, target_size=(4, 7), keep_aspect_ratio=True, interpolation="bilinear")
    )
    np.testing.assert_array_equal(got, REF[f"load/{rel}/keep_aspect"])


def test_array_to_img_and_back(tmp_path):
    arr = REF["array_to_img/input"]
    np.testing.assert_array_equal(np.asarray(U.array_to_img(arr)), REF["array_to_img/scaled"])
    np.testing.assert_array_equal(
        np.asarray(U.array_to_img(np.abs(arr) * 40, scale=False)), REF["array_to_img/unscaled"]
    )
    np.testing.assert_array_equal(
        U.img_to_array(U.array_to_img(arr), data_format="channels_first"),
        REF["img_to_array/channels_first"],
    )
    # save_img then load_img gives the same pixels (PNG is lossless).
    path = tmp_path / "x.png"
    U.save_img(str(path), arr)
    np.testing.assert_array_equal(
        U.img_to_array(U.load_img(str(path))), REF["array_to_img/scaled"].astype(np.float32)
    )
    buffer = io.BytesIO()
    with pytest.warns(UserWarning, match="alpha"):
        U.save_img(buffer, np.ones((2, 2, 4)), file_format="jpg")


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="label_mode"):
        U.image_dataset_from_directory(ROOT, label_mode="sparse")
    with pytest.raises(ValueError, match="color_mode"):
        U.image_dataset_from_directory(ROOT, color_mode="cmyk")
    with pytest.raises(ValueError, match="seed"):
        U.image_dataset_from_directory(ROOT, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="binary"):
        U.image_dataset_from_directory(ROOT, label_mode="binary", verbose=False)
    with pytest.raises(ValueError, match="not among"):
        U.image_dataset_from_directory(ROOT, class_names=["ant", "yak"], verbose=False)
    with pytest.raises(ValueError, match="labels"):
        U.image_dataset_from_directory(ROOT, labels=[0, 1], verbose=False)
    with pytest.raises(ValueError, match="no images"):
        (tmp_path / "empty" / "a").mkdir(parents=True)
        U.image_dataset_from_directory(str(tmp_path / "empty"), verbose=False)
    with pytest.raises(ValueError, match="interpolation"):
        U.load_img(os.path.join(ROOT, "ant/a1.png"), target_size=(2, 2), interpolation="cubic")
    with pytest.raises(TypeError, match="path"):
        U.load_img(3)
    with pytest.raises(ValueError, match="channels"):
        U.array_to_img(np.zeros((2, 2, 2)))
