"""`fit`, `evaluate` and `predict` on data other than arrays, against Keras 3
(tests/reference/gen_fit_data.py): `class_weight`, a PyDataset, an endless generator with
`steps_per_epoch`, validation batches with `validation_steps` and `validation_freq`,
`keras.utils.to_categorical` and `pad_sequences`; and how generators run out, and the errors."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import pytest
import rustape as rt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gen_fit_data

REF = np.load(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "fit_data.npz"),
    allow_pickle=False,
)


def _compare(ours: dict[str, np.ndarray], prefix: str, rtol: float = 1e-5) -> None:
    expected = {k for k in REF.files if k.startswith(prefix)}
    assert expected and expected <= set(ours)
    for key in sorted(expected):
        np.testing.assert_allclose(ours[key], REF[key], rtol=rtol, atol=1e-6, err_msg=key)


def test_class_weight_matches_keras() -> None:
    # Integer labels, one-hot rows (arg-max) and a single sigmoid column (rounded).
    _compare(gen_fit_data._class_weights(rt.keras), "class_weight/")


def test_pydataset_generators_and_validation_match_keras() -> None:
    ours = gen_fit_data._sources(rt.keras)
    # A PyDataset's on_epoch_end runs once as fit starts and after each epoch (Keras's).
    _compare(ours, "dataset/")
    _compare(ours, "generator/")
    _compare(ours, "generator_validation/")


def test_utils_match_keras() -> None:
    _compare(gen_fit_data._utils(rt.keras), "utils/")


def _model() -> Any:
    model = rt.keras.Sequential([rt.keras.Input(shape=(2,)), rt.keras.layers.Dense(1)])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.01), loss="mse")
    return model


def test_generators_stream_across_epochs_and_run_out() -> None:
    seen: list[int] = []

    def batches(count: int) -> Any:
        for k in range(count):
            seen.append(k)
            yield np.full((2, 2), k, np.float32), np.zeros((2, 1), np.float32)

    model = _model()
    history = model.fit(batches(6), steps_per_epoch=2, epochs=3)
    assert seen == [0, 1, 2, 3, 4, 5] and len(history.history["loss"]) == 3
    # Without steps_per_epoch the first epoch runs the generator out; the next finds it
    # empty: Keras warns and stops training.
    seen.clear()
    with pytest.warns(UserWarning, match="ran out of data"):
        history = model.fit(batches(3), epochs=4)
    assert seen == [0, 1, 2] and len(history.history["loss"]) == 1

    # A re-iterable source (a list of batches is data, so a custom iterable) restarts.
    class Twice:
        def __iter__(self) -> Any:
            return batches(2)

    seen.clear()
    model.fit(Twice(), epochs=2)
    assert seen == [0, 1, 0, 1]
    assert model.predict(batches(3)).shape == (6, 1)
    assert np.isfinite(model.evaluate(batches(5), steps=2))


def test_pydataset_shuffles_batch_order_and_class_weight_scales_losses() -> None:
    order: list[int] = []

    class Indexed(rt.keras.utils.PyDataset):
        def __len__(self) -> int:
            return 5

        def __getitem__(self, index: int) -> Any:
            order.append(index)
            return np.ones((1, 2), np.float32), np.ones((1, 1), np.float32)

    _model().fit(Indexed(), epochs=2, shuffle=True)
    assert sorted(order[:5]) == list(range(5)) and order[:5] != list(range(5))
    # class_weight {1: 3} on all-ones labels is sample_weight 3 everywhere.
    x = np.random.default_rng(0).normal(size=(8, 2)).astype(np.float32)
    y = np.ones((8, 1), np.float32)
    a, b = _model(), _model()
    b.set_weights(a.get_weights())
    weighted = a.fit(x, y, epochs=2, shuffle=False, class_weight={1: 3.0}).history
    explicit = b.fit(x, y, epochs=2, shuffle=False, sample_weight=np.full(8, 3.0)).history
    assert weighted == explicit


def test_fit_data_errors() -> None:
    model = _model()

    def gen() -> Any:
        yield np.ones((1, 2), np.float32), np.ones((1, 1), np.float32)

    with pytest.raises(ValueError, match="`y` is not supported when `x` is a generator"):
        model.fit(gen(), np.ones((1, 1)))
    with pytest.raises(ValueError, match="do not give `batch_size`"):
        model.fit(gen(), batch_size=4)
    with pytest.raises(ValueError, match="validation_split` is only supported for arrays"):
        model.fit(gen(), validation_split=0.5)
    with pytest.raises(ValueError, match="cannot `class_weight` and `sample_weight`"):
        model.fit(np.ones((2, 2)), np.ones((2, 1)), class_weight={0: 1.0}, sample_weight=np.ones(2))
    with pytest.raises(ValueError, match="steps_per_epoch|`steps`"):
        model.fit(gen(), steps_per_epoch=0)
    with pytest.raises(ValueError, match="validation_freq"):
        model.fit(np.ones((2, 2)), np.ones((2, 1)), validation_freq=0)
    with pytest.raises(ValueError, match="label 3 is out of range"):
        rt.keras.utils.to_categorical([3], num_classes=3)
    with pytest.raises(ValueError, match="padding"):
        rt.keras.utils.pad_sequences([[1]], padding="middle")
