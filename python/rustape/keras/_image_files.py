"""Image files for Keras programs: `load_img` / `save_img` / `img_to_array` / `array_to_img`
(PIL images, as Keras's are) and `image_dataset_from_directory`. Decoding is Pillow's
(`pip install rustape[image]`), which reads PNG, JPEG, BMP and GIF as data only."""

from __future__ import annotations

import io
import os
import pathlib
import warnings
from typing import Any

import numpy as np

from .. import _rustape as _rt
from .. import image as _image
from ..data import Dataset

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_MODES = {"grayscale": "L", "rgb": "RGB", "rgba": "RGBA"}
_CHANNELS = {"grayscale": 1, "rgb": 3, "rgba": 4}


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(
            "reading and writing image files needs Pillow: pip install rustape[image]"
        ) from None
    return Image


def _resampling(name: str) -> Any:
    image = _pil()
    methods = {
        "nearest": image.Resampling.NEAREST,
        "bilinear": image.Resampling.BILINEAR,
        "bicubic": image.Resampling.BICUBIC,
        "hamming": image.Resampling.HAMMING,
        "box": image.Resampling.BOX,
        "lanczos": image.Resampling.LANCZOS,
    }
    if name not in methods:
        raise ValueError(f"load_img: interpolation {name!r} is not one of {', '.join(methods)}")
    return methods[name]


def _channels_last(data_format: str | None) -> bool:
    if data_format in (None, "channels_last"):
        return True
    if data_format == "channels_first":
        return False
    raise ValueError(
        f"data_format must be 'channels_last' or 'channels_first', not {data_format!r}"
    )


def load_img(
    path: Any,
    color_mode: str = "rgb",
    target_size: tuple[int, int] | None = None,
    interpolation: str = "nearest",
    keep_aspect_ratio: bool = False,
) -> Any:
    """An image file as a PIL image in `color_mode` ("rgb", "rgba" or "grayscale"), resized to
    `target_size` (height, width) with PIL's `interpolation` when given (`keep_aspect_ratio`
    first crops the centre to the target's aspect ratio), as Keras's `load_img` does.

    >>> import io, numpy as np, rustape as rt
    >>> buffer = io.BytesIO()
    >>> rt.keras.utils.save_img(buffer, np.zeros((4, 6, 3)), file_format="png")
    >>> rt.keras.utils.load_img(io.BytesIO(buffer.getvalue()), target_size=(2, 3)).size
    (3, 2)
    """
    image = _pil()
    if isinstance(path, io.BytesIO):
        img = image.open(path)
    elif isinstance(path, (str, bytes, os.PathLike)):
        with open(path, "rb") as f:
            img = image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"load_img: path must be a path or io.BytesIO, not {type(path).__name__}")
    if color_mode not in _MODES:
        raise ValueError(
            f'load_img: color_mode must be "grayscale", "rgb" or "rgba", not {color_mode!r}'
        )
    keep = ("L", "I;16", "I") if color_mode == "grayscale" else (_MODES[color_mode],)
    if img.mode not in keep:
        img = img.convert(_MODES[color_mode])
    if target_size is not None:
        size = (int(target_size[1]), int(target_size[0]))  # PIL's (width, height)
        if img.size != size:
            method = _resampling(interpolation)
            if keep_aspect_ratio:
                width, height = img.size
                crop_h = min(height, width * size[1] // size[0])
                crop_w = min(width, height * size[0] // size[1])
                top, left = (height - crop_h) // 2, (width - crop_w) // 2
                img = img.resize(size, method, box=(left, top, left + crop_w, top + crop_h))
            else:
                img = img.resize(size, method)
    return img


def img_to_array(img: Any, data_format: str | None = None, dtype: Any = None) -> np.ndarray:
    """A PIL image (or array) as a float32 NumPy array [height, width, channels] (channels
    first with `data_format="channels_first"`); a grayscale image gets its channel axis.

    >>> import numpy as np, rustape as rt
    >>> img = rt.keras.utils.array_to_img(np.ones((2, 3, 1)), scale=False)
    >>> rt.keras.utils.img_to_array(img).shape
    (2, 3, 1)
    """
    x = np.asarray(img, dtype=dtype or "float32")
    last = _channels_last(data_format)
    if x.ndim == 3:
        return x if last else x.transpose(2, 0, 1)
    if x.ndim == 2:
        return x[:, :, None] if last else x[None]
    raise ValueError(f"img_to_array: unsupported image shape {x.shape}")


def array_to_img(
    x: Any, data_format: str | None = None, scale: bool = True, dtype: Any = None
) -> Any:
    """A [height, width, channels] array (1, 3 or 4 channels) as a PIL image; with `scale` the
    values are first stretched to 0-255 (minimum to 0, maximum to 255), as Keras does.

    >>> import numpy as np, rustape as rt
    >>> rt.keras.utils.array_to_img(np.zeros((2, 3, 3))).mode
    'RGB'
    """
    image = _pil()
    x = np.array(x.numpy() if hasattr(x, "numpy") else x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(
            f"array_to_img: expected one image [height, width, channels], got {x.shape}"
        )
    if not _channels_last(data_format):
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x /= top
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img: {channels} channels (1, 3 or 4 can be an image)")


def save_img(
    path: Any,
    x: Any,
    data_format: str | None = None,
    file_format: str | None = None,
    scale: bool = True,
    **kwargs: Any,
) -> None:
    """Write an image array to `path` (a file name or a file object), in `file_format` or the
    one its suffix names; `scale` as in `array_to_img`; other keywords go to PIL's `save`.

    >>> import os, tempfile, numpy as np, rustape as rt
    >>> path = os.path.join(tempfile.mkdtemp(), "x.png")
    >>> rt.keras.utils.save_img(path, np.zeros((2, 2, 3)))
    >>> rt.keras.utils.load_img(path).size
    (2, 2)
    """
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("JPEG has no alpha channel: saving the RGB channels", stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def decode_image_file(path: str, channels: int) -> np.ndarray:
    """An image file's pixels as uint8 [height, width, channels] (the first frame of a GIF),
    converted to `channels` as `tf.image.decode_image(channels=...)` converts them: a colour
    PNG's gray level is libpng's `(9797 R + 19234 G + 3737 B) >> 15`, a JPEG's is its
    decoded luma, alpha is dropped, gray is repeated into RGB."""
    image = _pil()
    with open(path, "rb") as f:
        img = image.open(io.BytesIO(f.read()))
        img.seek(0)
        if channels == 1 and img.format == "JPEG":
            img.draft("L", img.size)  # libjpeg's grayscale output: the luma, no RGB trip
        if channels == 1 and img.format == "PNG" and img.mode not in ("L", "LA", "I", "I;16"):
            rgb = np.asarray(img.convert("RGB"), np.uint32)
            gray = (9797 * rgb[..., 0] + 19234 * rgb[..., 1] + 3737 * rgb[..., 2]) >> 15
            return gray.astype(np.uint8)[:, :, None]
        mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
        if img.mode != mode:
            img = img.convert(mode)
        pixels = np.asarray(img, np.uint8)
    return pixels.reshape(pixels.shape[0], pixels.shape[1], channels)


# --- image_dataset_from_directory ------------------------------------------------------------


def index_directory(
    directory: str,
    labels: Any,
    formats: tuple[str, ...],
    class_names: Any = None,
    shuffle: bool = True,
    seed: int | None = None,
    follow_links: bool = False,
    verbose: bool = True,
) -> tuple[list[str], Any, Any]:
    """Keras's file index: with `labels="inferred"` one class per sorted subfolder (hidden
    ones skipped), files walked in sorted order; then, with `shuffle`, paths and labels
    shuffled by NumPy's `RandomState(seed)` as Keras shuffles them."""
    if labels == "inferred":
        folders = sorted(
            d
            for d in os.listdir(directory)
            if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")
        )
        if class_names is not None:
            if not set(class_names) <= set(folders):
                raise ValueError(
                    f"class_names {list(class_names)} are not among the subfolders of "
                    f"{directory}: {folders}"
                )
            folders = list(class_names)
    else:
        if class_names is not None:
            raise ValueError("class_names can only be given with labels='inferred'")
        folders = [""]
    found: list[str] = []
    found_labels: list[int] = []
    for index, folder in enumerate(folders):
        root = os.path.join(directory, folder)
        walk = sorted(os.walk(root, followlinks=follow_links), key=lambda w: w[0])
        for dirpath, _, files in walk:
            for name in sorted(files):
                if name.lower().endswith(formats):
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    found.append(os.path.join(directory, os.path.basename(root), rel))
                    found_labels.append(index)
    if labels == "inferred":
        out_labels: Any = np.array(found_labels, np.int32)
        names: Any = folders
    elif labels is None:
        out_labels, names = None, None
    else:
        if len(labels) != len(found):
            raise ValueError(
                f"{len(labels)} labels for {len(found)} files in {directory}: give one per file"
            )
        out_labels = np.asarray(labels)
        if out_labels.dtype.kind in "iu" and np.all(np.abs(out_labels) < 2**31):
            out_labels = out_labels.astype(np.int32)  # Python ints become int32, as in TF
        names = [str(label) for label in sorted(set(labels))]
    if verbose:
        tail = "" if out_labels is None else f" belonging to {len(names)} classes"
        print(f"Found {len(found)} files{tail}.")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1_000_000)
        np.random.RandomState(seed).shuffle(found)
        if out_labels is not None:
            np.random.RandomState(seed).shuffle(out_labels)
    return found, out_labels, names


def split_for(samples: list[str], labels: Any, validation_split: Any, subset: Any) -> Any:
    if not validation_split:
        return samples, labels
    n_val = int(validation_split * len(samples))
    if subset == "training":
        print(f"Using {len(samples) - n_val} files for training.")
        return samples[: len(samples) - n_val], None if labels is None else labels[
            : len(labels) - n_val
        ]
    if subset == "validation":
        print(f"Using {n_val} files for validation.")
        return samples[len(samples) - n_val :], None if labels is None else labels[
            len(labels) - n_val :
        ]
    raise ValueError(f'subset must be "training", "validation" or "both", not {subset!r}')


def check_split(validation_split: Any, subset: Any, shuffle: bool, seed: Any) -> None:
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"validation_split must be between 0 and 1, not {validation_split}")
    if bool(validation_split) != bool(subset):
        raise ValueError("give both validation_split and subset, or neither")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'subset must be "training", "validation" or "both", not {subset!r}')
    if validation_split and shuffle and seed is None:
        raise ValueError(
            "validation_split with shuffling needs a seed, so the training and validation "
            "subsets do not overlap"
        )


def _labels_of(labels: Any, label_mode: str, num_classes: int) -> np.ndarray:
    labels = np.asarray(labels)
    if label_mode == "binary":
        return labels.astype(np.float32)[:, None]
    if label_mode == "categorical":
        return np.eye(num_classes, dtype=np.float32)[labels]
    return labels


def smart_resize_array(x: Any, size: tuple[int, int], interpolation: str = "bilinear") -> Any:
    """Crop the centre to `size`'s aspect ratio, then resize (Keras's `smart_resize`)."""
    height, width = int(x.shape[-3]), int(x.shape[-2])
    target_h, target_w = size
    crop_h = max(min(height, int(float(width * target_h) / target_w)), 1)
    crop_w = max(min(width, int(float(height * target_w) / target_h)), 1)
    top, left = int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)
    x = x[..., top : top + crop_h, left : left + crop_w, :]
    return _image.resize(x, list(size), method=interpolation)


def _load(
    path: str,
    channels: int,
    size: tuple[int, int],
    interpolation: str,
    crop: bool,
    pad: bool,
    channels_last: bool,
) -> Any:
    pixels = _rt.constant(decode_image_file(path, channels).astype(np.int32))
    if crop:
        img = smart_resize_array(pixels, size, interpolation)
    elif pad:
        img = _image.resize_with_pad(pixels, size[0], size[1], method=interpolation)
    else:
        img = _image.resize(pixels, list(size), method=interpolation)
    return img if channels_last else _rt.transpose(img, [2, 0, 1])


def _dataset(
    paths: list[str],
    labels: Any,
    label_mode: Any,
    num_classes: int,
    load: Any,
    shuffle: bool,
    buffer: int,
    seed: int,
    batch_size: Any,
) -> Dataset:
    index = Dataset.from_tensor_slices(np.arange(len(paths), dtype=np.int64))
    if label_mode:
        ds = Dataset.zip(
            (index, Dataset.from_tensor_slices(_labels_of(labels, label_mode, num_classes)))
        )
    else:
        ds = index
    if shuffle:
        ds = ds.shuffle(buffer, seed=seed)
    if label_mode:
        ds = ds.map(lambda i, y: (load(paths[int(i)]), y))
    else:
        ds = ds.map(lambda i: load(paths[int(i)]))
    if batch_size is not None:
        ds = ds.batch(batch_size)
    ds.class_names = None  # type: ignore[attr-defined]
    ds.file_paths = paths  # type: ignore[attr-defined]
    return ds


def image_dataset_from_directory(
    directory: str,
    labels: Any = "inferred",
    label_mode: Any = "int",
    class_names: Any = None,
    color_mode: str = "rgb",
    batch_size: int | None = 32,
    image_size: Any = (256, 256),
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    interpolation: str = "bilinear",
    follow_links: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    data_format: str | None = None,
    verbose: bool = True,
) -> Any:
    """An `rt.data.Dataset` of (images, labels) batches from a folder of class subfolders
    (Keras's `image_dataset_from_directory`): PNG, JPEG, BMP and GIF files decoded to
    `color_mode`'s channels and resized to `image_size` with `tf.image.resize`'s
    `interpolation` (float32; `crop_to_aspect_ratio` / `pad_to_aspect_ratio` keep the aspect
    ratio). Labels are "int" (int32), "categorical" (one-hot float32), "binary" (float32
    [batch, 1]) or None; `class_names` and `file_paths` are attributes of the result.
    `validation_split` with `subset` "training", "validation" or "both" splits as Keras does.
    The file order, and with `shuffle` its seeded shuffle, are Keras's; the per-epoch shuffle
    buffer (batch_size x 8) draws rustape's own random numbers.

    >>> import os, tempfile, numpy as np, rustape as rt
    >>> root = tempfile.mkdtemp()
    >>> for label in ("cat", "dog"):
    ...     os.makedirs(os.path.join(root, label))
    ...     rt.keras.utils.save_img(os.path.join(root, label, "a.png"), np.ones((5, 4, 3)))
    >>> ds = rt.keras.utils.image_dataset_from_directory(root, image_size=(8, 8), batch_size=2,
    ...                                                  shuffle=False)
    Found 2 files belonging to 2 classes.
    >>> images, labels = next(iter(ds))
    >>> ds.class_names, images.shape, labels.numpy().tolist()
    (['cat', 'dog'], (2, 8, 8, 3), [0, 1])
    """
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        raise ValueError("labels must be 'inferred', None, or a list of one label per file")
    if labels not in ("inferred", None) and class_names:
        raise ValueError("class_names can only be given with labels='inferred'")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(
            f'label_mode must be "int", "categorical", "binary" or None, not {label_mode!r}'
        )
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    if color_mode not in _CHANNELS:
        raise ValueError(f'color_mode must be "rgb", "rgba" or "grayscale", not {color_mode!r}')
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    if not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError(f"image_size must be two integers, not {image_size!r}")
    size = (int(image_size[0]), int(image_size[1]))
    interpolation = interpolation.lower()
    methods = (
        "bilinear",
        "nearest",
        "bicubic",
        "area",
        "lanczos3",
        "lanczos5",
        "gaussian",
        "mitchellcubic",
    )
    if interpolation not in methods:
        raise ValueError(f"interpolation must be one of {methods}, not {interpolation!r}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("only one of crop_to_aspect_ratio and pad_to_aspect_ratio can be set")
    last = _channels_last(data_format)
    check_split(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1_000_000)
    paths, all_labels, names = index_directory(
        directory, labels, IMAGE_FORMATS, class_names, shuffle, seed, follow_links, verbose
    )
    if label_mode == "binary" and len(names) != 2:
        raise ValueError(f'label_mode="binary" needs exactly 2 classes, found {names}')
    channels = _CHANNELS[color_mode]

    def load(path: str) -> Any:
        return _load(
            path, channels, size, interpolation, crop_to_aspect_ratio, pad_to_aspect_ratio, last
        )

    buffer = batch_size * 8 if batch_size is not None else 1024
    n_classes = len(names) if names else 0
    parts = (
        (("training", shuffle), ("validation", False)) if subset == "both" else ((subset, shuffle),)
    )
    out = []
    for which, shuffled in parts:
        part_paths, part_labels = split_for(paths, all_labels, validation_split, which)
        if not part_paths:
            raise ValueError(f"no images found in {directory} (formats {IMAGE_FORMATS})")
        ds = _dataset(
            part_paths, part_labels, label_mode, n_classes, load, shuffled, buffer, seed, batch_size
        )
        ds.class_names = names  # type: ignore[attr-defined]
        out.append(ds)
    return out if subset == "both" else out[0]
