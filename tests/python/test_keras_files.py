"""Keras 3's own files: `.keras` models and `.weights.h5` weights that Keras 3.15 wrote
(tests/reference/gen_keras_files.py) load into rustape with Keras's outputs, a compiled one
resumes training with Keras's losses; the files rustape writes have Keras's layout (Keras
reading them is checked by tests/reference/check_keras_reads_rustape.py); nothing in a file
runs code, and a malformed file is a clear ValueError."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import h5py  # the `test` extra installs it (rustape[h5])
import numpy as np
import pytest
import rustape as rt

L = rt.keras.layers
FILES = Path(__file__).resolve().parents[1] / "reference" / "keras_files"
DATA = np.load(FILES / "outputs.npz", allow_pickle=False)
MODELS = ("mlp", "resume", "cnn", "rnn", "attention", "bidirectional", "custom")


@rt.keras.saving.register_keras_serializable(package="rtfiles")
class ScaledDense(rt.keras.layers.Layer):
    """The generator's custom layer: a Dense (tanh) scaled by a weight per unit."""

    def __init__(self, units: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.units = units
        self.inner = rt.keras.layers.Dense(units, activation="tanh")

    def build(self, input_shape: Any) -> None:
        self.scale = self.add_weight(shape=(self.units,), initializer="ones", name="scale")
        self.inner.build(input_shape)

    def call(self, x: Any) -> Any:
        return self.inner(x) * self.scale


def _close(got: Any, expected: np.ndarray) -> None:
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", MODELS)
def test_models_keras_saved_give_keras_outputs(name: str) -> None:
    model = rt.keras.models.load_model(FILES / f"{name}.keras")
    x = DATA[f"{name}/x"]
    expected = DATA[f"{name}/y"] if name != "resume" else None
    if expected is not None:
        _close(model(x, training=False).numpy(), expected)
    kinds = {
        "mlp": rt.keras.Sequential,
        "bidirectional": rt.keras.Sequential,
        "resume": rt.keras.Sequential,
    }
    assert type(model) is kinds.get(name, rt.keras.Model)


def test_custom_classes_come_from_custom_objects_too() -> None:
    from rustape.keras import saving

    registered = saving._registered.pop("rtfiles>ScaledDense")
    try:
        with pytest.raises(ValueError, match="unknown class 'rtfiles>ScaledDense'"):
            rt.keras.models.load_model(FILES / "custom.keras")
        model = rt.keras.models.load_model(
            FILES / "custom.keras", custom_objects={"ScaledDense": ScaledDense}
        )
    finally:
        saving._registered["rtfiles>ScaledDense"] = registered
    _close(model(DATA["custom/x"]).numpy(), DATA["custom/y"])


def test_compiled_model_resumes_training_with_keras_numbers() -> None:
    model = rt.keras.models.load_model(FILES / "resume.keras")
    assert type(model.optimizer).__name__ == "Adam"
    assert int(model.optimizer.iterations.numpy()) == 6  # 2 epochs of 3 batches in Keras
    x, labels = DATA["resume/x"], DATA["resume/labels"]
    history = model.fit(x, labels, epochs=3, batch_size=8, shuffle=False, verbose=0).history
    np.testing.assert_allclose(history["loss"], DATA["resume/losses"], rtol=1e-6, atol=1e-6)
    _close(model(x, training=False).numpy(), DATA["resume/y_after"])
    # The restored moments matter: a fresh Adam from the same weights gives other losses.
    fresh = rt.keras.models.load_model(FILES / "resume.keras", compile=False)
    assert not getattr(fresh, "compiled", False)
    fresh.compile(
        optimizer=rt.keras.optimizers.Adam(0.02),
        loss=rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    other = fresh.fit(x, labels, epochs=3, batch_size=8, shuffle=False, verbose=0).history
    assert abs(other["loss"][0] - DATA["resume/losses"][0]) > 1e-4


def _cnn() -> Any:
    inputs = rt.keras.Input(shape=(8, 8, 1))
    h = L.Flatten()(L.MaxPooling2D(2)(L.Conv2D(3, 3, activation="relu")(inputs)))
    return rt.keras.Model(inputs, L.Dense(2)(h))


def _attention() -> Any:
    inputs = rt.keras.Input(shape=(3, 8))
    h = L.MultiHeadAttention(num_heads=2, key_dim=4)(inputs, inputs)
    h = L.LayerNormalization()(L.Add()([inputs, h]))
    return rt.keras.Model(inputs, L.Dense(2)(h))


@pytest.mark.parametrize("name,make", [("cnn", _cnn), ("attention", _attention)])
def test_load_weights_reads_keras_weights_files(name: str, make: Any, tmp_path: Path) -> None:
    model = make()
    model.load_weights(str(FILES / f"{name}.weights.h5"))
    _close(model(DATA[f"{name}/x"]).numpy(), DATA[f"{name}/y"])
    # save_weights writes the same datasets at the same paths, and reads them back.
    model.save_weights(str(tmp_path / "again.weights.h5"))
    with (
        h5py.File(FILES / f"{name}.weights.h5") as theirs,
        h5py.File(tmp_path / "again.weights.h5") as ours,
    ):
        for path in _datasets(theirs):
            if path.startswith("layers/"):
                np.testing.assert_array_equal(ours[path][()], theirs[path][()])
        assert {p for p in _datasets(ours)} == {
            p for p in _datasets(theirs) if p.startswith("layers/")
        }
    again = make()
    again.load_weights(str(tmp_path / "again.weights.h5"))
    _close(again(DATA[f"{name}/x"]).numpy(), DATA[f"{name}/y"])


def _datasets(f: Any) -> list[str]:
    out: list[str] = []
    f.visititems(lambda path, obj: out.append(path) if isinstance(obj, h5py.Dataset) else None)
    return out


@pytest.mark.parametrize("name", MODELS)
def test_rustape_writes_keras_layout(name: str, tmp_path: Path) -> None:
    """Re-saving Keras's file gives Keras's config kinds and exactly Keras's datasets."""
    model = rt.keras.models.load_model(FILES / f"{name}.keras")
    path = tmp_path / f"{name}.keras"
    model.save(path)
    with zipfile.ZipFile(path) as ours, zipfile.ZipFile(FILES / f"{name}.keras") as theirs:
        assert {"config.json", "metadata.json", "model.weights.h5"} <= set(ours.namelist())
        config = json.loads(ours.read("config.json"))
        original = json.loads(theirs.read("config.json"))
        assert config["class_name"] == original["class_name"]
        assert [layer["class_name"] for layer in config["config"]["layers"]] == [
            layer["class_name"] for layer in original["config"]["layers"]
        ]
        assert ("compile_config" in config) == ("compile_config" in original)
        with (
            h5py.File(io.BytesIO(ours.read("model.weights.h5"))) as a,
            h5py.File(io.BytesIO(theirs.read("model.weights.h5"))) as b,
        ):
            assert sorted(_datasets(a)) == sorted(_datasets(b))
            for p in _datasets(b):
                np.testing.assert_array_equal(a[p][()], b[p][()])
    again = rt.keras.models.load_model(path)
    x = DATA[f"{name}/x"]
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())


def test_keras_read_the_files_rustape_wrote() -> None:
    """The record of check_keras_reads_rustape.py: Keras 3 loaded every file rustape wrote
    (whole models and weights files) with Keras's own outputs, resumed fit from rustape's
    optimizer state with Keras's losses, and gave rustape's outputs for two models rustape
    built and trained."""
    result = json.loads((FILES / "keras_reads_rustape.json").read_text())
    assert set(result) == (
        {f"{n}/{kind}" for n in MODELS for kind in ("keras_file", "weights_file")}
        | {"resume/losses", "rt_sequential/keras_file", "rt_functional/keras_file"}
    )
    assert max(result.values()) <= 1e-6


def _with_config(tmp_path: Path, source: str, edit: Any, name: str = "edited.keras") -> Path:
    out = tmp_path / name
    with zipfile.ZipFile(FILES / source) as src, zipfile.ZipFile(out, "w") as dst:
        for member in src.namelist():
            data = src.read(member)
            if member == "config.json":
                config = json.loads(data)
                edit(config)
                data = json.dumps(config).encode()
            dst.writestr(member, data)
    return out


def test_nothing_in_a_file_runs(tmp_path: Path) -> None:
    def to_lambda(config: Any) -> None:
        layer = config["config"]["layers"][3]
        layer["class_name"] = "Lambda"
        layer["config"] = {"name": "sneaky", "function": {"class_name": "__lambda__"}}

    with pytest.raises(ValueError, match="'sneaky' is a Lambda layer"):
        rt.keras.models.load_model(_with_config(tmp_path, "mlp.keras", to_lambda))

    def to_os(config: Any) -> None:
        config["config"]["layers"][1]["class_name"] = "system"
        config["config"]["layers"][1]["module"] = "os"

    with pytest.raises(ValueError, match="unknown class 'system'"):
        rt.keras.models.load_model(_with_config(tmp_path, "mlp.keras", to_os))

    def to_function(config: Any) -> None:
        config["config"]["layers"][1]["config"]["activation"] = {
            "module": "os",
            "class_name": "function",
            "config": "system",
            "registered_name": "function",
        }

    with pytest.raises(ValueError, match="unknown function 'system'"):
        rt.keras.models.load_model(_with_config(tmp_path, "mlp.keras", to_function))


def _with_weights(tmp_path: Path, write: Any) -> Path:
    weights = tmp_path / "w.h5"
    with zipfile.ZipFile(FILES / "cnn.keras") as src:
        weights.write_bytes(src.read("model.weights.h5"))
    with h5py.File(weights, "a") as f:
        write(f)
    return weights


def test_malformed_weights_are_value_errors(tmp_path: Path) -> None:
    model = _cnn()
    (tmp_path / "text.weights.h5").write_text("not HDF5")
    with pytest.raises(ValueError, match="not an HDF5 file"):
        model.load_weights(str(tmp_path / "text.weights.h5"))

    def reshape(f: Any) -> None:
        del f["layers/dense/vars/0"]
        f["layers/dense/vars/0"] = np.zeros((5, 2), np.float32)

    with pytest.raises(ValueError, match=r"'layers/dense/vars/0' has shape \[5, 2\]"):
        model.load_weights(str(_with_weights(tmp_path, reshape)))

    def drop(f: Any) -> None:
        del f["layers/conv2d/vars/1"]

    with pytest.raises(ValueError, match="no weights at 'layers/conv2d/vars/1'"):
        model.load_weights(str(_with_weights(tmp_path, drop)))

    def extra(f: Any) -> None:
        f["layers/dense_9/vars/0"] = np.zeros(2, np.float32)

    with pytest.raises(ValueError, match="weights the model does not: layers/dense_9/vars/0"):
        model.load_weights(str(_with_weights(tmp_path, extra)))

    def text(f: Any) -> None:
        del f["layers/dense/vars/1"]
        f["layers/dense/vars/1"] = np.array([b"a", b"b"])

    with pytest.raises(ValueError, match="not a number type"):
        model.load_weights(str(_with_weights(tmp_path, text)))

    def link(f: Any) -> None:
        del f["layers/dense/vars/1"]
        f["layers/dense/vars/1"] = h5py.ExternalLink("/etc/other.h5", "/data")

    with pytest.raises(ValueError, match="is a link"):
        model.load_weights(str(_with_weights(tmp_path, link)))

    def not_json(tmp: Path) -> Path:
        out = tmp / "bad.keras"
        with zipfile.ZipFile(FILES / "cnn.keras") as src, zipfile.ZipFile(out, "w") as dst:
            dst.writestr("config.json", "{not json")
            dst.writestr("model.weights.h5", src.read("model.weights.h5"))
        return out

    with pytest.raises(ValueError, match="config.json is not JSON"):
        rt.keras.models.load_model(not_json(tmp_path))


def test_without_h5py(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(ImportError, match=r"pip install rustape\[h5\]"):
        rt.keras.models.load_model(FILES / "cnn.keras")
    model = _cnn()
    with pytest.raises(ImportError, match=r"pip install rustape\[h5\]"):
        model.load_weights(str(FILES / "cnn.weights.h5"))
    # save keeps working: rustape's own format, which rustape reads back.
    with pytest.warns(UserWarning, match="Keras does not"):
        model.save(tmp_path / "m.keras")
    x = DATA["cnn/x"]
    np.testing.assert_array_equal(
        rt.keras.models.load_model(tmp_path / "m.keras")(x).numpy(), model(x).numpy()
    )


def test_functional_layers_are_named_in_keras_order(tmp_path: Path) -> None:
    """Keras names a functional model's weight groups by its `layers` order (by depth from the
    inputs, then a walk from the outputs), not by call order: for this graph Keras 3.15 lists
    shared, bdense, concatenate, out."""
    a, b = rt.keras.Input(shape=(4,)), rt.keras.Input(shape=(3,))
    shared = L.Dense(3, activation="tanh", name="shared")
    other = L.Dense(3, name="bdense")
    merged = L.Concatenate()([shared(a), other(b)])
    model = rt.keras.Model([a, b], L.Dense(1, name="out")(merged))
    model.save_weights(str(tmp_path / "m.weights.h5"))
    with h5py.File(tmp_path / "m.weights.h5") as f:
        assert f["layers/dense/vars/0"].shape == (4, 3)
        assert f["layers/dense_1/vars/0"].shape == (3, 3)
        assert f["layers/dense_2/vars/0"].shape == (6, 1)
