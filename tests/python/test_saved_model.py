"""rt.saved_model: everything rustape builds saves and loads, and loading never runs code the
file chooses (no pickle unless the caller opts in, no imports, no functions or classes beyond
rustape's and the program's own subclasses of them unless named in custom_objects); save never
follows a symbolic link planted at its target."""

from __future__ import annotations

import base64
import enum
import functools
import json
import os
import pickle
from typing import Any

import numpy as np
import pytest
import rustape as rt
from rustape import saved_model


class Block(rt.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dense = rt.keras.layers.Dense(3, activation="relu")
        self.out = rt.keras.layers.Dense(2, activation=rt.nn.softplus)
        self.shared = rt.Variable([1.0, -2.0], name="shared")
        self.again = [self.shared, {"also": self.shared}]
        self.table = {"f64": rt.constant([1.5], dtype=rt.float64), 3: (1, 2.5, None, True)}

    def __call__(self, x: Any) -> Any:
        return self.out(self.dense(x))


def _roundtrip(obj: Any, path: Any, **load_kwargs: Any) -> Any:
    saved_model.save(obj, str(path))
    return saved_model.load(str(path), **load_kwargs)


def test_a_model_of_layers_round_trips(tmp_path: Any) -> None:
    block = Block()
    x = rt.constant(np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(2, 4))
    y = block(x)
    loaded = _roundtrip(block, tmp_path / "block")
    assert type(loaded) is Block and type(loaded.dense) is rt.keras.layers.Dense
    np.testing.assert_array_equal(loaded(x).numpy(), y.numpy())
    # One variable saved once is one variable loaded, wherever it is referenced.
    assert loaded.again[0] is loaded.shared and loaded.again[1]["also"] is loaded.shared
    assert loaded.shared.name == "shared:0" and loaded.shared.trainable
    assert loaded.table["f64"].dtype == rt.float64 and loaded.table[3] == (1, 2.5, None, True)
    # Trainable: a gradient reaches the loaded variables.
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(loaded(x))
    grads = tape.gradient(loss, loaded.dense.trainable_variables)
    assert all(g is not None for g in grads)


def test_plain_values_round_trip_exactly(tmp_path: Any) -> None:
    cycle: list[Any] = [1]
    cycle.append(cycle)
    value = {
        "floats": [0.1, float("nan"), float("inf"), -0.0, 1e-310],
        "ints": [0, -1, 2**80],
        "text": "ünïcode",
        "bytes": b"\x00\xff",
        "complex": 1 + 2j,
        "set": {1, 2},
        "frozenset": frozenset({"a"}),
        "array": np.arange(6, dtype=np.int16).reshape(2, 3),
        "scalar": np.float32(2.5),
        "dtype": rt.float64,
        "enum": rt.UnconnectedGradients.ZERO,
        "function": rt.nn.relu,
        "cycle": cycle,
    }
    loaded = _roundtrip(value, tmp_path / "plain")
    assert loaded["floats"][0] == 0.1 and np.isnan(loaded["floats"][1])
    assert loaded["floats"][2:] == [float("inf"), -0.0, 1e-310]
    assert str(loaded["floats"][3]) == "-0.0"
    assert loaded["ints"] == [0, -1, 2**80]
    assert (loaded["text"], loaded["bytes"], loaded["complex"]) == ("ünïcode", b"\x00\xff", 1 + 2j)
    assert loaded["set"] == {1, 2} and loaded["frozenset"] == frozenset({"a"})
    assert loaded["array"].dtype == np.int16 and loaded["array"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert loaded["scalar"] == np.float32(2.5) and loaded["scalar"].dtype == np.float32
    assert loaded["dtype"] == rt.float64
    assert loaded["enum"] is rt.UnconnectedGradients.ZERO
    assert loaded["function"] is rt.nn.relu
    assert loaded["cycle"][1] is loaded["cycle"]


def test_the_files_hold_data_only(tmp_path: Any) -> None:
    saved_model.save(Block(), str(tmp_path / "m"))
    assert sorted(os.listdir(tmp_path / "m")) == ["saved_model.json", "variables.npz"]
    with open(tmp_path / "m" / "saved_model.json") as fh:
        manifest = json.load(fh)
    kinds = {o["kind"] for o in manifest["objects"]}
    assert "pickle" not in kinds
    np.load(tmp_path / "m" / "variables.npz", allow_pickle=False)  # no object arrays


# -- what needs the caller's say-so --------------------------------------------------------


def my_activation(x: Any) -> Any:
    return rt.nn.relu(x) * 2.0


def test_the_programs_own_functions_need_custom_objects(tmp_path: Any) -> None:
    layer = rt.keras.layers.Dense(2, activation=my_activation)
    x = rt.ones([1, 3])
    y = layer(x)
    saved_model.save(layer, str(tmp_path / "m"))
    with pytest.raises(ValueError, match="custom_objects"):
        saved_model.load(str(tmp_path / "m"))
    loaded = saved_model.load(str(tmp_path / "m"), custom_objects=[my_activation])
    np.testing.assert_array_equal(loaded(x).numpy(), y.numpy())


class Plain:
    """A class that is neither rustape's nor a subclass of one."""

    def __init__(self) -> None:
        self.v = rt.Variable([1.0])


def test_other_classes_need_custom_objects(tmp_path: Any) -> None:
    saved_model.save(Plain(), str(tmp_path / "m"))
    with pytest.raises(ValueError, match="custom_objects"):
        saved_model.load(str(tmp_path / "m"))
    loaded = saved_model.load(str(tmp_path / "m"), custom_objects=[Plain])
    assert type(loaded) is Plain and loaded.v.numpy().tolist() == [1.0]


def scaled(x: Any, factor: float) -> Any:
    return x * factor


def test_objects_without_a_safe_form_are_stored_only_as_an_explicit_pickle(tmp_path: Any) -> None:
    layer = rt.keras.layers.Dense(2, activation=functools.partial(scaled, factor=3.0))
    y = layer(rt.ones([1, 2]))
    with pytest.raises(TypeError, match="allow_pickle"):
        saved_model.save(layer, str(tmp_path / "m"))
    with pytest.raises(TypeError, match="allow_pickle"):
        saved_model.save(rt.keras.layers.Dense(2, activation=lambda x: x), str(tmp_path / "m"))
    saved_model.save(layer, str(tmp_path / "m"), options=saved_model.SaveOptions(allow_pickle=True))
    with pytest.raises(ValueError, match="allow_pickle"):
        saved_model.load(str(tmp_path / "m"))
    loaded = saved_model.load(
        str(tmp_path / "m"), options=saved_model.LoadOptions(allow_pickle=True)
    )
    np.testing.assert_array_equal(loaded(rt.ones([1, 2])).numpy(), y.numpy())


# -- hostile files ----------------------------------------------------------------------------


def _write_manifest(path: Any, objects: list[Any], root: Any = None) -> None:
    os.makedirs(path, exist_ok=True)
    manifest = {
        "format": "rustape.saved_model",
        "version": 1,
        "root": root or {"ref": 0},
        "objects": objects,
    }
    with open(os.path.join(path, "saved_model.json"), "w") as fh:
        json.dump(manifest, fh)
    np.savez(os.path.join(path, "variables.npz"))


class Marker:
    """Unpickling one writes a file: proof that code from the file ran."""

    path = ""

    def __reduce__(self) -> Any:
        return (open, (self.path, "w"))


@pytest.mark.parametrize(
    "objects",
    [
        [{"kind": "function", "name": "os:system"}],
        [{"kind": "function", "name": "builtins:eval"}],
        [{"kind": "function", "name": "rustape:__import__"}],
        [{"kind": "class", "name": "subprocess:Popen"}],
        [{"kind": "object", "class": "subprocess:Popen", "state": []}],
        [{"kind": "object", "class": "tempfile:_TemporaryFileCloser", "state": []}],
        [{"kind": "enum", "class": "signal:Signals", "name": "SIGKILL"}],
        [{"kind": "object", "class": "collections:OrderedDict", "state": []}],
    ],
)
def test_a_file_cannot_name_code_to_run(tmp_path: Any, objects: list[Any]) -> None:
    _write_manifest(tmp_path / "m", objects)
    with pytest.raises(ValueError, match="custom_objects"):
        saved_model.load(str(tmp_path / "m"))


def test_pickles_in_a_file_are_not_loaded_by_default(tmp_path: Any) -> None:
    marker = tmp_path / "ran"
    Marker.path = str(marker)
    payload = pickle.dumps(Marker())
    _write_manifest(
        tmp_path / "m", [{"kind": "pickle", "base64": base64.b64encode(payload).decode()}]
    )
    with pytest.raises(ValueError, match="allow_pickle"):
        saved_model.load(str(tmp_path / "m"))
    assert not marker.exists()
    # The format of earlier versions, a pickle: refused too.
    os.makedirs(tmp_path / "old")
    with open(tmp_path / "old" / "rustape_object.pkl", "wb") as fh:
        fh.write(payload)
    with pytest.raises(ValueError, match="allow_pickle"):
        saved_model.load(str(tmp_path / "old"))
    assert not marker.exists()


@pytest.mark.parametrize(
    "manifest",
    [
        "not json",
        '{"format": "something else"}',
        '{"format": "rustape.saved_model", "version": 99, "root": null, "objects": []}',
        '{"format": "rustape.saved_model", "version": 1, "root": {"ref": 5}, "objects": []}',
        '{"format": "rustape.saved_model", "version": 1, "root": {"ref": 0}, "objects": [{"kind": "tensor", "array": "missing", "dtype": "float32"}]}',
        '{"format": "rustape.saved_model", "version": 1, "root": {"ref": 0}, "objects": [{"kind": "tensor", "array": "a0", "dtype": "object"}]}',
        '{"format": "rustape.saved_model", "version": 1, "root": {"ref": 0}, "objects": [{"kind": "list"}]}',
        '{"format": "rustape.saved_model", "version": 1, "root": '
        + "[" * 100000
        + "]" * 100000
        + ', "objects": []}',
    ],
)
def test_malformed_manifests_are_value_errors(tmp_path: Any, manifest: str) -> None:
    os.makedirs(tmp_path / "m")
    with open(tmp_path / "m" / "saved_model.json", "w") as fh:
        fh.write(manifest)
    np.savez(tmp_path / "m" / "variables.npz", a0=np.zeros(2))
    with pytest.raises(ValueError):
        saved_model.load(str(tmp_path / "m"))


def test_object_arrays_are_refused(tmp_path: Any) -> None:
    with pytest.raises(TypeError):
        saved_model.save({"a": np.array([object()])}, str(tmp_path / "m"))


# -- links ------------------------------------------------------------------------------------


def test_save_refuses_a_link_at_its_target(tmp_path: Any) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, tmp_path / "m")
    with pytest.raises(OSError, match="symbolic link"):
        saved_model.save({"w": rt.Variable([1.0])}, str(tmp_path / "m"))
    assert os.listdir(elsewhere) == []


def test_save_never_writes_through_a_link_planted_inside_its_directory(tmp_path: Any) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    target = tmp_path / "m"
    target.mkdir()
    os.symlink(victim, target / "saved_model.json")
    with pytest.raises(OSError, match="symbolic link"):
        saved_model.save({"w": rt.Variable([1.0])}, str(target))
    assert victim.read_text() == "precious"


class Color(enum.Enum):
    RED = 1


def test_enums_of_the_program_need_custom_objects(tmp_path: Any) -> None:
    saved_model.save({"c": Color.RED}, str(tmp_path / "m"))
    with pytest.raises(ValueError, match="custom_objects"):
        saved_model.load(str(tmp_path / "m"))
    assert saved_model.load(str(tmp_path / "m"), custom_objects=[Color])["c"] is Color.RED
