"""rt.train.Checkpoint against TensorFlow 2.21: rustape restores TensorFlow's checkpoints
(tests/reference/data/checkpoint_tf, values in checkpoint.npz) bit for bit, and TensorFlow
restored the ones rustape writes (data/checkpoint_rt, made by `python
tests/python/test_checkpoint.py --write`; what TensorFlow read is checkpoint.npz's `rt_*`).
The reader refuses truncated and corrupted files with a ValueError (or, for a flip in
bytes the format never reads, gives the original values)."""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "..", "reference")
sys.path.insert(0, REF)
from checkpoint_program import keras_program, module_program

EXPECTED = np.load(os.path.join(REF, "checkpoint.npz"), allow_pickle=False)


def _weights(model, opt):
    return [np.asarray(w) for w in model.get_weights()], [v.numpy() for v in opt.variables]


def _assert_keras(prefix, model, opt):
    weights, slots = _weights(model, opt)
    for i, w in enumerate(weights):
        np.testing.assert_array_equal(w, EXPECTED[f"{prefix}_model_{i}"])
    for i, v in enumerate(slots):
        np.testing.assert_array_equal(v, EXPECTED[f"{prefix}_opt_{i}"])


def _write_rustape(directory):
    model, opt = keras_program(rt, rt.keras)
    rt.train.Checkpoint(model=model, optimizer=opt).save(os.path.join(directory, "keras"))
    m = module_program(rt)
    rt.train.Checkpoint(mod=m, extra=rt.Variable(np.float64(0.125))).write(
        os.path.join(directory, "module")
    )
    return model, opt, m


def test_restores_tensorflow_keras_checkpoint_bit_for_bit():
    model, opt = keras_program(rt, rt.keras, shift=1.0)
    ckpt = rt.train.Checkpoint(model=model, optimizer=opt)
    status = ckpt.restore(rt.train.latest_checkpoint(os.path.join(REF, "data", "checkpoint_tf")))
    status.assert_existing_objects_matched()
    _assert_keras("tf", model, opt)
    assert int(ckpt.save_counter.numpy()) == 1


def test_restores_into_an_unbuilt_optimizer():
    model, _ = keras_program(rt, rt.keras, shift=1.0)
    opt = rt.keras.optimizers.Adam(0.01)
    rt.train.Checkpoint(model=model, optimizer=opt).restore(
        os.path.join(REF, "data", "checkpoint_tf", "keras-1")
    )
    _assert_keras("tf", model, opt)


def test_restores_tensorflow_module_checkpoint():
    m = module_program(rt, shift=1.0)
    extra = rt.Variable(np.float64(1.0))
    status = rt.train.Checkpoint(mod=m, extra=extra).read(
        os.path.join(REF, "data", "checkpoint_tf", "module")
    )
    status.assert_consumed()
    np.testing.assert_array_equal(m.v.numpy(), EXPECTED["tf_module_v"])
    np.testing.assert_array_equal(m.items[0].numpy(), EXPECTED["tf_module_items0"])
    np.testing.assert_array_equal(m.items[1].numpy(), EXPECTED["tf_module_items1"])
    assert m.table["a"].numpy() == EXPECTED["tf_module_table_a"]
    assert extra.numpy() == 0.125


def test_tensorflow_restored_rustape_checkpoints(tmp_path):
    """The fixtures TensorFlow read are what rustape writes today, and TensorFlow read back
    rustape's values."""
    model, opt, m = _write_rustape(str(tmp_path))
    stored = os.path.join(REF, "data", "checkpoint_rt")
    for name in ("module", "keras-1"):
        # Same keys, shapes and values (the object graph's variable names carry a counter).
        ours = rt.train.load_checkpoint(tmp_path / name)
        theirs = rt.train.load_checkpoint(os.path.join(stored, name))
        assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
        for key in ours.get_variable_to_shape_map():
            if key != "_CHECKPOINTABLE_OBJECT_GRAPH":
                np.testing.assert_array_equal(ours.get_tensor(key), theirs.get_tensor(key))
    _assert_keras("rt", model, opt)
    np.testing.assert_array_equal(EXPECTED["rt_module_v"], m.v.numpy())
    np.testing.assert_array_equal(EXPECTED["rt_module_items1"], m.items[1].numpy())
    assert EXPECTED["rt_module_table_a"] == 7
    assert EXPECTED["rt_extra"] == 0.125


def test_round_trip_and_reader(tmp_path):
    v = rt.Variable(np.arange(6, dtype=np.float64).reshape(2, 3))
    ck = rt.train.Checkpoint(v=v, seq=[rt.Variable(1), {"k": rt.Variable([True, False])}])
    path = ck.save(tmp_path / "c")
    assert rt.train.latest_checkpoint(tmp_path) == path
    assert dict(rt.train.list_variables(path))["seq/1/k/.ATTRIBUTES/VARIABLE_VALUE"] == [2]
    v.assign(np.zeros((2, 3)))
    ck.restore(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), np.arange(6).reshape(2, 3))
    r = rt.train.load_checkpoint(tmp_path)
    assert r.has_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")
    assert rt.train.load_variable(path, "seq/0/.ATTRIBUTES/VARIABLE_VALUE") == 1


def test_manager_keeps_the_newest(tmp_path):
    ck = rt.train.Checkpoint(v=rt.Variable(1.0))
    m = rt.train.CheckpointManager(ck, tmp_path, max_to_keep=2, checkpoint_name="model")
    for _ in range(4):
        m.save()
    assert [os.path.basename(p) for p in m.checkpoints] == ["model-3", "model-4"]
    assert not os.path.exists(tmp_path / "model-1.index")
    assert m.save(checkpoint_number=10).endswith("model-10")
    again = rt.train.CheckpointManager(ck, tmp_path, max_to_keep=2, checkpoint_name="model")
    assert again.latest_checkpoint == m.latest_checkpoint


def test_mismatched_shapes_raise(tmp_path):
    path = rt.train.Checkpoint(v=rt.Variable([1.0, 2.0])).write(tmp_path / "c")
    with pytest.raises(ValueError, match="shape"):
        rt.train.Checkpoint(v=rt.Variable([1.0])).restore(path)


@pytest.mark.parametrize("which", ["index", "data"])
def test_truncated_and_corrupted_files_raise(tmp_path, which):
    src = os.path.join(REF, "data", "checkpoint_tf")
    name = "keras-1.index" if which == "index" else "keras-1.data-00000-of-00001"
    with open(os.path.join(src, name), "rb") as f:
        original = f.read()
    rng = np.random.default_rng(0)
    cases = [original[:n] for n in (0, 1, 47, len(original) // 2, len(original) - 1)]
    for _ in range(60):
        b = bytearray(original)
        for _ in range(int(rng.integers(1, 4))):
            b[int(rng.integers(len(b)))] ^= 1 << int(rng.integers(8))
        cases.append(bytes(b))
    good = rt.train.load_checkpoint(os.path.join(src, "keras-1"))
    refused = 0
    for case in cases:
        d = tmp_path / "x"
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(src, d)
        with open(d / name, "wb") as f:
            f.write(case)
        try:
            read = rt.train.load_checkpoint(d / "keras-1")
        except ValueError:
            refused += 1
            continue
        # A flip the format cannot see (the footer's padding, the unread metaindex handle)
        # must leave every value as it was.
        keys = good.get_variable_to_shape_map()
        assert read.get_variable_to_shape_map() == keys
        for key in keys:
            np.testing.assert_array_equal(read.get_tensor(key), good.get_tensor(key))
    assert refused >= len(cases) - 10


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    target = os.path.join(REF, "data", "checkpoint_rt")
    shutil.rmtree(target, ignore_errors=True)
    _write_rustape(target)
