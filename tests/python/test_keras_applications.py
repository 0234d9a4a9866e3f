"""keras.applications against Keras 3 (tests/reference/gen_applications.py): every layer with
weights has Keras's name, class and weight shapes, in Keras's order (so Keras's pretrained
files, which load by position, land on the right layers), and with the same deterministic
weights each model gives Keras's outputs; preprocess_input matches in each mode; Keras's
legacy HDF5 weights layout loads."""

import json
import os
import re
import zlib

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
REFDIR = os.path.join(HERE, "..", "reference")
REF = np.load(os.path.join(REFDIR, "applications.npz"))
with open(os.path.join(REFDIR, "applications.json")) as f:
    META = json.load(f)
A = rt.keras.applications
AUTO = re.compile(r"^(global_average_pooling2d|global_max_pooling2d|max_pooling2d)(_\d+)?$")


def fill(layer_name, index, shape):
    """The generator's deterministic weights (seeded by layer name and position)."""
    rng = np.random.RandomState(zlib.crc32(f"{layer_name}/{index}".encode()))
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[:-1]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    return rng.uniform(0.5, 1.5, shape).astype(np.float32)


BUILDS = {
    "vgg16": lambda: A.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3)),
    "vgg19_avg": lambda: A.VGG19(
        weights=None, include_top=False, pooling="avg", input_shape=(48, 40, 3)
    ),
    "resnet50_top": lambda: A.ResNet50(weights=None, classes=7, input_shape=(32, 32, 3)),
    "resnet101_max": lambda: A.ResNet101(
        weights=None, include_top=False, pooling="max", input_shape=(32, 32, 3)
    ),
    "resnet152": lambda: A.ResNet152(weights=None, include_top=False, input_shape=(40, 32, 3)),
    "resnet50v2_top": lambda: A.ResNet50V2(
        weights=None, classes=5, input_shape=(32, 32, 3), classifier_activation=None
    ),
    "resnet101v2_avg": lambda: A.ResNet101V2(
        weights=None, include_top=False, pooling="avg", input_shape=(32, 32, 3)
    ),
    "resnet152v2": lambda: A.ResNet152V2(weights=None, include_top=False, input_shape=(32, 32, 3)),
    "mobilenetv2_035_top": lambda: A.MobileNetV2(
        weights=None, alpha=0.35, classes=4, input_shape=(32, 32, 3)
    ),
    "mobilenetv2_130": lambda: A.MobileNetV2(
        weights=None, alpha=1.3, include_top=False, input_shape=(48, 40, 3)
    ),
}
PREPROCESS = {
    "vgg16": A.vgg16.preprocess_input,
    "vgg19_avg": A.vgg19.preprocess_input,
    "resnet50_top": A.resnet50.preprocess_input,
    "resnet101_max": A.resnet.preprocess_input,
    "resnet152": A.resnet.preprocess_input,
    "resnet50v2_top": A.resnet_v2.preprocess_input,
    "resnet101v2_avg": A.resnet_v2.preprocess_input,
    "resnet152v2": A.resnet_v2.preprocess_input,
    "mobilenetv2_035_top": A.mobilenet_v2.preprocess_input,
    "mobilenetv2_130": A.mobilenet_v2.preprocess_input,
}


@pytest.mark.parametrize("case", sorted(BUILDS))
def test_architecture_and_outputs_match_keras(case):
    meta = META[case]
    model = BUILDS[case]()
    assert model.name == meta["model_name"]
    want = [(n, cls, [tuple(s) for s in shapes]) for n, cls, shapes in meta["layers"] if shapes]
    got = [
        (layer.name, type(layer).__name__, [tuple(w.shape) for w in layer.weights])
        for layer in model.layers
        if layer.weights
    ]
    assert got == want

    # Every layer Keras names is there (the weightless ones too), none extra; layers Keras
    # leaves unnamed get per-process counters ("max_pooling2d_3"), so only their kinds count.
    def named(names):
        return sorted(re.sub(r"_\d+$", "", n) if AUTO.match(n) else n for n in names)

    keras_names = [n for n, cls, _ in meta["layers"] if cls != "InputLayer"]
    assert named(layer.name for layer in model.layers) == named(keras_names)
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([fill(layer.name, i, w.shape) for i, w in enumerate(layer.weights)])
    x = PREPROCESS[case](REF[f"{case}/images"].copy())
    np.testing.assert_allclose(x, REF[f"{case}/preprocessed"], rtol=1e-6, atol=1e-5)
    out = model(x, training=False).numpy()
    want_out = REF[f"{case}/output"]
    assert out.shape == want_out.shape == tuple(meta["output_shape"])
    scale = np.abs(want_out).max()
    np.testing.assert_allclose(out, want_out, rtol=2e-4, atol=2e-5 * scale)


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_preprocess_input_modes(mode):
    img = REF["preprocess/input"]
    pre = A.imagenet_utils.preprocess_input
    got = pre(img.copy(), mode=mode)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, REF[f"preprocess/{mode}/uint8"])
    got64 = pre(img.astype(np.float64), mode=mode)
    assert got64.dtype == np.float64
    np.testing.assert_array_equal(got64, REF[f"preprocess/{mode}/float64"])
    first = img.transpose(0, 3, 1, 2).astype(np.float32)
    np.testing.assert_array_equal(
        pre(first, mode=mode, data_format="channels_first"),
        REF[f"preprocess/{mode}/channels_first"],
    )
    # A tensor gives a tensor with the same values.
    tensor = pre(rt.constant(img.astype(np.float32)), mode=mode)
    np.testing.assert_allclose(
        tensor.numpy(), REF[f"preprocess/{mode}/uint8"], rtol=1e-6, atol=1e-4
    )
    with pytest.raises(ValueError, match="mode"):
        pre(img, mode="keras")


def test_legacy_h5_weights_load():
    inp = rt.keras.Input((6, 6, 3))
    t = rt.keras.layers.Conv2D(4, 3, name="conv")(inp)
    t = rt.keras.layers.BatchNormalization(name="bn")(t)
    t = rt.keras.layers.ReLU(name="relu")(t)
    t = rt.keras.layers.GlobalAveragePooling2D(name="gap")(t)
    t = rt.keras.layers.Dense(3, name="predictions")(t)
    model = rt.keras.Model(inp, t, name="small")
    model.load_weights(os.path.join(REFDIR, "applications", "small_legacy.h5"))
    out = model(REF["legacy/input"], training=False).numpy()
    np.testing.assert_allclose(out, REF["legacy/output"], rtol=1e-5, atol=1e-6)
    # A model that does not fit the file: a clear error naming the counts.
    other = rt.keras.Sequential([rt.keras.Input((4,)), rt.keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="layers with weights"):
        other.load_weights(os.path.join(REFDIR, "applications", "small_legacy.h5"))


def test_argument_errors():
    with pytest.raises(ValueError, match="classes=10"):
        A.ResNet50(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="at least 32x32"):
        A.VGG16(weights=None, include_top=False, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="weights must be"):
        A.MobileNetV2(weights="nowhere.h5")
    with pytest.raises(ValueError, match="fixed input_shape"):
        A.ResNet50V2(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="pooling"):
        A.VGG19(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="sum")
    with pytest.raises(ValueError, match="alpha"):
        A.MobileNetV2(alpha=0.6, include_top=False, input_shape=(96, 96, 3))
    with pytest.raises(ValueError, match=r"\[batch, 1000\]"):
        A.imagenet_utils.decode_predictions(np.zeros((2, 5)))


def test_decode_predictions_with_a_local_class_index(monkeypatch, tmp_path):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    path = tmp_path / "imagenet_class_index.json"
    path.write_text(json.dumps(index))
    import hashlib

    from rustape.keras.applications import imagenet_utils

    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX_ORIGIN", path.as_uri())
    monkeypatch.setattr(
        imagenet_utils, "CLASS_INDEX_MD5", hashlib.md5(path.read_bytes()).hexdigest()
    )
    monkeypatch.setattr(imagenet_utils, "_class_index", None)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [5, 17, 900]] = [0.2, 0.5, 0.3]
    preds[1, 999] = 1.0
    top = imagenet_utils.decode_predictions(preds, top=3)
    assert [e[1] for e in top[0]] == ["class_17", "class_900", "class_5"]
    assert top[0][0][0] == "n00000017" and top[0][0][2] == pytest.approx(0.5)
    assert top[1][0][1] == "class_999"
