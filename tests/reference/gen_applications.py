"""keras.applications on small inputs: each architecture's layer and weight names and shapes,
and its outputs with deterministic weights (every weight filled from a generator seeded by
its layer's name, so rustape can fill its own model the same way), for inputs passed through
the module's `preprocess_input`. Also a small functional model's weights in Keras's legacy
HDF5 layout (what the pretrained ImageNet files use), with its outputs.

Writes applications.npz and applications.json.
Run with the TensorFlow venv: python gen_applications.py
"""

import json
import os
import zlib

import keras
import numpy as np
from keras.src.legacy.saving import legacy_h5_format

HERE = os.path.dirname(os.path.abspath(__file__))
A = keras.applications


def fill(layer_name, index, shape):
    """The deterministic weight `index` of layer `layer_name` (rustape's test fills the same)."""
    rng = np.random.RandomState(zlib.crc32(f"{layer_name}/{index}".encode()))
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[:-1]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    return rng.uniform(0.5, 1.5, shape).astype(np.float32)  # scales, shifts, variances > 0


CASES = {
    "vgg16": (
        lambda: A.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3)),
        A.vgg16.preprocess_input,
        (32, 32),
    ),
    "vgg19_avg": (
        lambda: A.VGG19(weights=None, include_top=False, pooling="avg", input_shape=(48, 40, 3)),
        A.vgg19.preprocess_input,
        (48, 40),
    ),
    "resnet50_top": (
        lambda: A.ResNet50(weights=None, classes=7, input_shape=(32, 32, 3)),
        A.resnet50.preprocess_input,
        (32, 32),
    ),
    "resnet101_max": (
        lambda: A.ResNet101(
            weights=None, include_top=False, pooling="max", input_shape=(32, 32, 3)
        ),
        A.resnet.preprocess_input,
        (32, 32),
    ),
    "resnet152": (
        lambda: A.ResNet152(weights=None, include_top=False, input_shape=(40, 32, 3)),
        A.resnet.preprocess_input,
        (40, 32),
    ),
    "resnet50v2_top": (
        lambda: A.ResNet50V2(
            weights=None, classes=5, input_shape=(32, 32, 3), classifier_activation=None
        ),
        A.resnet_v2.preprocess_input,
        (32, 32),
    ),
    "resnet101v2_avg": (
        lambda: A.ResNet101V2(
            weights=None, include_top=False, pooling="avg", input_shape=(32, 32, 3)
        ),
        A.resnet_v2.preprocess_input,
        (32, 32),
    ),
    "resnet152v2": (
        lambda: A.ResNet152V2(weights=None, include_top=False, input_shape=(32, 32, 3)),
        A.resnet_v2.preprocess_input,
        (32, 32),
    ),
    "mobilenetv2_035_top": (
        lambda: A.MobileNetV2(weights=None, alpha=0.35, classes=4, input_shape=(32, 32, 3)),
        A.mobilenet_v2.preprocess_input,
        (32, 32),
    ),
    "mobilenetv2_130": (
        lambda: A.MobileNetV2(weights=None, alpha=1.3, include_top=False, input_shape=(48, 40, 3)),
        A.mobilenet_v2.preprocess_input,
        (48, 40),
    ),
}

out, meta = {}, {}
rng = np.random.RandomState(7)
for name, (build, preprocess, (h, w)) in CASES.items():
    model = build()
    layers = []
    for layer in model.layers:
        weights = layer.get_weights()
        if weights:
            layer.set_weights([fill(layer.name, i, v.shape) for i, v in enumerate(weights)])
        layers.append([layer.name, type(layer).__name__, [list(v.shape) for v in weights]])
    images = rng.uniform(0, 255, (2, h, w, 3)).astype(np.float32)
    x = preprocess(images.copy())
    out[f"{name}/images"] = images
    out[f"{name}/preprocessed"] = x
    out[f"{name}/output"] = np.asarray(model(x, training=False))
    meta[name] = {
        "model_name": model.name,
        "layers": layers,
        "output_shape": list(out[f"{name}/output"].shape),
    }
    print(name, model.name, len(layers), "layers", out[f"{name}/output"].shape)

# preprocess_input's three modes on uint8 and float64 inputs, channels_last and first.
img = rng.randint(0, 256, (2, 5, 4, 3)).astype(np.uint8)
for mode in ("caffe", "tf", "torch"):
    out[f"preprocess/{mode}/uint8"] = A.imagenet_utils.preprocess_input(img.copy(), mode=mode)
    out[f"preprocess/{mode}/float64"] = A.imagenet_utils.preprocess_input(
        img.astype(np.float64), mode=mode
    )
    out[f"preprocess/{mode}/channels_first"] = A.imagenet_utils.preprocess_input(
        img.transpose(0, 3, 1, 2).astype(np.float32), mode=mode, data_format="channels_first"
    )
out["preprocess/input"] = img

# Keras's legacy HDF5 weights layout on a small functional model.
inp = keras.Input((6, 6, 3))
t = keras.layers.Conv2D(4, 3, name="conv")(inp)
t = keras.layers.BatchNormalization(name="bn")(t)
t = keras.layers.ReLU(name="relu")(t)
t = keras.layers.GlobalAveragePooling2D(name="gap")(t)
t = keras.layers.Dense(3, name="predictions")(t)
small = keras.Model(inp, t, name="small")
for layer in small.layers:
    if layer.get_weights():
        layer.set_weights([fill(layer.name, i, v.shape) for i, v in enumerate(layer.get_weights())])
import h5py

with h5py.File(os.path.join(HERE, "applications", "small_legacy.h5"), "w") as f:
    legacy_h5_format.save_weights_to_hdf5_group(f, small)
xs = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
out["legacy/input"] = xs
out["legacy/output"] = np.asarray(small(xs, training=False))

np.savez_compressed(os.path.join(HERE, "applications.npz"), **out)
with open(os.path.join(HERE, "applications.json"), "w") as f:
    json.dump(meta, f)
print(f"applications.npz: {len(out)} arrays")
