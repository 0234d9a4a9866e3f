"""`ModelCheckpoint` and `CSVLogger` against Keras 3 (tests/reference/gen_checkpoints.py): the
files written, the weights read back from the best checkpoint, the CSV log; and the errors."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
import rustape as rt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_checkpoints

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "checkpoints.npz"),
    allow_pickle=False,
)


def test_checkpoints_and_csv_log_match_keras(tmp_path: Path) -> None:
    # The best-by-val_loss files (named from the epoch and val_loss), the last one, every 3
    # batches; the weights of the last best file; the CSV header and every row.
    out = gen_checkpoints.run(rt.keras, str(tmp_path))
    assert out["files"].tolist() == REF["files"].tolist()
    assert out["csv/header"].tolist() == REF["csv/header"].tolist()
    np.testing.assert_allclose(out["csv/values"], REF["csv/values"], rtol=1e-4, atol=1e-6)
    # Weights of scale 0.5 after 36 SGD steps with momentum 0.8 at rate 0.3: float32 sums in
    # another order drift by up to ~1e-5 over the run.
    for k in range(4):
        np.testing.assert_allclose(out[f"best/w{k}"], REF[f"best/w{k}"], rtol=1e-4, atol=2e-5)


def test_csv_logger_appends_without_a_second_header(tmp_path: Path) -> None:
    model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    path = tmp_path / "log.csv"
    x = np.ones((4, 1), np.float32)
    model.fit(x, x, epochs=2, callbacks=[rt.keras.callbacks.CSVLogger(path, separator=";")])
    model.fit(
        x, x, epochs=1, callbacks=[rt.keras.callbacks.CSVLogger(path, separator=";", append=True)]
    )
    lines = path.read_text().splitlines()
    assert lines[0] == "epoch;loss;val_loss"
    assert [line.split(";")[0] for line in lines[1:]] == ["0", "1", "0"]
    assert lines[1].endswith(";NA")


def test_checkpoint_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"must end in `\.keras`"):
        rt.keras.callbacks.ModelCheckpoint(tmp_path / "model.h5")
    with pytest.raises(ValueError, match="save_freq"):
        rt.keras.callbacks.ModelCheckpoint("w.weights.h5", save_weights_only=True, save_freq=0)
    model = rt.keras.Sequential([rt.keras.Input(shape=(1,)), rt.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    bad = rt.keras.callbacks.ModelCheckpoint(
        str(tmp_path / "{nope}.weights.h5"), save_weights_only=True
    )
    x = np.ones((2, 1), np.float32)
    with pytest.raises(KeyError, match="Failed to format"):
        model.fit(x, x, epochs=1, callbacks=[bad])
