"""`CosineDecayRestarts` against Keras 3 (tests/reference/gen_schedules_more.py): the
float32 rate at steps 0..199 for five configurations (restart lengths growing, constant and
shrinking, where Keras's rate turns NaN after the last period), in an optimizer, and its
config."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_schedules_more as gen

REF = np.load(os.path.join(HERE, "..", "reference", "schedules_more.npz"), allow_pickle=False)
S = rt.keras.optimizers.schedules


@pytest.mark.parametrize("name", sorted(gen.CONFIGS))
def test_rates_match_keras(name):
    schedule = S.CosineDecayRestarts(**gen.CONFIGS[name])
    got = np.array([float(schedule(int(s))) for s in gen.STEPS], np.float32)
    np.testing.assert_allclose(got, REF[name], rtol=2e-6, atol=1e-9, equal_nan=True)


def test_an_optimizer_steps_with_it_and_the_config_round_trips():
    schedule = S.CosineDecayRestarts(0.1, first_decay_steps=3, t_mul=1.0)
    v = rt.Variable([1.0])
    opt = rt.keras.optimizers.SGD(learning_rate=schedule)
    for _ in range(4):
        opt.apply([rt.constant([1.0])], [v])
    want = 1.0 - sum(float(schedule(s)) for s in range(4))
    np.testing.assert_allclose(v.numpy(), [want], rtol=1e-6)
    again = S.deserialize(S.serialize(schedule))
    assert type(again) is S.CosineDecayRestarts and again.get_config() == schedule.get_config()
    with pytest.raises(ValueError, match="first_decay_steps"):
        S.CosineDecayRestarts(0.1, first_decay_steps=0)
