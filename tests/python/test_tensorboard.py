"""`rt.summary` and `rt.keras.callbacks.TensorBoard` against TensorFlow 2.21 / Keras 3's
event files (tests/reference/gen_tensorboard.py): the same records (steps, tags, plugins,
dtypes, shapes, values, image pixels) read back from the files with a reader of the format
that checks every checksum; and the writer's edge cases."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_tensorboard

with open(os.path.join(HERE, "..", "reference", "tensorboard.json")) as f:
    REFERENCE = json.load(f)


def _same(expected: list[dict[str, Any]], got: list[dict[str, Any]]) -> None:
    assert [(e["step"], e["tag"], e["plugin"]) for e in got] == [
        (e["step"], e["tag"], e["plugin"]) for e in expected
    ]
    for e, g in zip(expected, got):
        where = f"{e['tag']} at step {e['step']}"
        assert (g["dtype"], g["shape"]) == (e["dtype"], e["shape"]), where
        if e["dtype"].startswith("float"):
            np.testing.assert_allclose(
                g["values"], e["values"], rtol=2e-5, atol=1e-6, err_msg=where
            )
        else:
            assert g["values"] == e["values"], where


def test_summaries_match_tensorflow(tmp_path: Any) -> None:
    gen_tensorboard.summaries(rt, str(tmp_path))
    got = gen_tensorboard.read_run(str(tmp_path))
    assert sorted(got) == sorted(REFERENCE["summaries"])
    for run in got:
        _same(REFERENCE["summaries"][run], got[run])


def test_tensorboard_callback_matches_keras(tmp_path: Any) -> None:
    # Keras's own rules, quirks included: batch scalars every second batch, and the
    # epoch-level values only when the last batch's step is recorded too.
    gen_tensorboard.fit_run(rt.keras, str(tmp_path))
    got = gen_tensorboard.read_run(str(tmp_path))
    assert sorted(got) == sorted(REFERENCE["fit"])
    for run in got:
        _same(REFERENCE["fit"][run], got[run])


def test_every_epoch_is_written_with_epoch_updates(tmp_path: Any) -> None:
    model = rt.keras.Sequential([rt.keras.Input((2,)), rt.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 2), np.float32)
    model.fit(
        x,
        x[:, :1],
        epochs=3,
        verbose=0,
        validation_data=(x, x[:, :1]),
        callbacks=[
            rt.keras.callbacks.TensorBoard(
                tmp_path, write_images=True, histogram_freq=2, write_steps_per_second=True
            )
        ],
    )
    runs = gen_tensorboard.read_run(str(tmp_path))
    train = [(v["step"], v["tag"]) for v in runs["train"]]
    for epoch in range(3):
        assert (epoch, "epoch_loss") in train and (epoch, "epoch_steps_per_second") in train
    images = [v for v in runs["train"] if v["plugin"] == "images"]
    # The kernel as an image (the bias of one unit squeezes to a scalar: no image, as Keras)
    assert [(v["step"], v["tag"].split("/")[-2]) for v in images] == [(0, "kernel"), (2, "kernel")]
    assert [v["step"] for v in runs["validation"] if v["tag"] == "epoch_loss"] == [0, 1, 2]


def test_writer_edge_cases(tmp_path: Any) -> None:
    assert rt.summary.scalar("x", 1.0, step=0) is False  # no default writer
    writer = rt.summary.create_file_writer(tmp_path / "run")
    with writer.as_default():
        with pytest.raises(ValueError, match="no step"):
            rt.summary.scalar("x", 1.0)
        with pytest.raises(ValueError, match="scalar"):
            rt.summary.scalar("x", [1.0, 2.0], step=0)
        with pytest.raises(ValueError, match="channels"):
            rt.summary.image("i", np.zeros((2, 2, 2)), step=0)
        with pytest.raises(TypeError, match="strings"):
            rt.summary.text("t", 3, step=0)
        with rt.summary.record_if(lambda: False):
            assert rt.summary.scalar("x", 1.0, step=0) is False
        assert rt.summary.histogram("empty", np.zeros(0), step=1)
    writer.close()
    (values,) = gen_tensorboard.read_run(str(tmp_path)).values()
    assert [(v["tag"], v["shape"]) for v in values] == [("empty", [30, 3])]
    assert values[0]["values"] == [0.0] * 90
    with pytest.raises(ValueError, match="profil"):
        rt.keras.callbacks.TensorBoard(profile_batch=2)
