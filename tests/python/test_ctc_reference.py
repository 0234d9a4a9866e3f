"""CTC against TensorFlow 2.21 / Keras 3 (tests/reference/gen_ctc.py writes ctc.npz): the loss
and its gradient, the decoders, keras.ops.ctc_loss / ctc_decode, keras.losses.CTC and a small
model trained with the "ctc" loss; the gradient against float64 finite differences (first
order; the second derivative in the logits raises); robustness."""

from __future__ import annotations

import os

import numpy as np
import pytest
import rustape as rt
from cases_ctc import CASES
from conftest import check_gradients

REF = np.load(
    os.path.join(os.path.dirname(__file__), "..", "reference", "ctc.npz"), allow_pickle=False
)
LOSS_CASES = sorted({k.split("_")[0] for k in REF.files if k.startswith("loss")})
DECODE_CASES = sorted({k.split("_")[0] for k in REF.files if k.startswith("dec")})


@pytest.mark.parametrize("case", LOSS_CASES)
def test_loss_and_gradient_match_tensorflow(case):
    r = {k[len(case) + 1 :]: REF[k] for k in REF.files if k.startswith(case + "_")}
    blank = None if int(r["blank"]) == -99 else int(r["blank"])
    x = rt.constant(r["logits"])
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = rt.nn.ctc_loss(
            r["labels"],
            x,
            r["label_length"],
            r["logit_length"],
            logits_time_major=bool(r["time_major"]),
            blank_index=blank,
        )
        total = rt.reduce_sum(loss * r["w"])
    grad = tape.gradient(total, x)
    assert loss.dtype == rt.float32
    expected = r["loss"]
    if r["labels"].shape[1] == 0:
        # No labels anywhere in the batch: the one alignment is all blanks, whose probability
        # is the product of the blank's softmax. TensorFlow's dense path counts that path
        # twice there (its loss is ln 2 lower); rustape gives the exact value.
        x64 = r["logits"].astype(np.float64)
        logp = x64 - np.log(np.exp(x64).sum(-1, keepdims=True))
        exact = [-logp[: r["logit_length"][b], b, 0].sum() for b in range(x64.shape[1])]
        np.testing.assert_allclose(loss.numpy(), exact, rtol=1e-6)
        expected = expected + np.log(2.0)
    np.testing.assert_allclose(loss.numpy(), expected, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(grad.numpy(), r["grad"], rtol=1e-4, atol=2e-5)


def test_repeated_labels_match_tensorflow():
    x = rt.constant(REF["repeat_logits"])
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = rt.nn.ctc_loss(REF["repeat_labels"], x, [2, 3], [5, 7])
    np.testing.assert_allclose(loss.numpy(), REF["repeat_loss"], rtol=2e-5)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), REF["repeat_grad"], atol=2e-5)


@pytest.mark.parametrize("case", DECODE_CASES)
def test_decoders_match_tensorflow(case):
    inputs, seq = REF[case + "_inputs"], REF[case + "_seq"]
    for merge in (True, False):
        for blank in (None, 0):
            tag = f"{case}_greedy_{int(merge)}_{'none' if blank is None else blank}"
            (d,), lp = rt.nn.ctc_greedy_decoder(
                inputs, seq, merge_repeated=merge, blank_index=blank
            )
            np.testing.assert_array_equal(d.numpy(), REF[tag + "_decoded"])
            np.testing.assert_allclose(lp.numpy(), REF[tag + "_logp"], rtol=1e-6)
    for beam, top in [(1, 1), (3, 2), (10, 3)]:
        tag = f"{case}_beam_{beam}_{top}"
        decoded, lp = rt.nn.ctc_beam_search_decoder(inputs, seq, beam_width=beam, top_paths=top)
        assert len(decoded) == top
        for k, d in enumerate(decoded):
            np.testing.assert_array_equal(d.numpy(), REF[f"{tag}_decoded{k}"], err_msg=f"{tag} {k}")
        np.testing.assert_allclose(lp.numpy(), REF[tag + "_logp"], rtol=1e-5, atol=1e-5)


def test_keras_ops_and_loss_match_keras():
    ops = rt.keras.ops
    target, output = REF["kops_target"], REF["kops_output"]
    loss = ops.ctc_loss(target, output, np.array([3, 2, 1]), np.array([9, 7, 5]))
    np.testing.assert_allclose(loss.numpy(), REF["kops_loss"], rtol=2e-5)
    for strategy, kwargs in [
        ("greedy", {}),
        ("greedy_nomerge", {"merge_repeated": False}),
        ("beam_search", {"beam_width": 5, "top_paths": 2}),
        ("beam_search_mask2", {"beam_width": 5, "top_paths": 3, "mask_index": 2}),
    ]:
        name = strategy.split("_no")[0].replace("_mask2", "")
        decoded, scores = ops.ctc_decode(output, np.array([9, 7, 5]), strategy=name, **kwargs)
        assert decoded.dtype == rt.int32
        np.testing.assert_array_equal(decoded.numpy(), REF[f"kops_decode_{strategy}"])
        np.testing.assert_allclose(
            scores.numpy(), REF[f"kops_decode_{strategy}_scores"], rtol=1e-5, atol=1e-5
        )
    np.testing.assert_allclose(
        float(rt.keras.losses.CTC()(target, output)), REF["kloss_ctc"], rtol=2e-5
    )
    np.testing.assert_allclose(
        rt.keras.losses.ctc(target, output).numpy(), REF["kloss_ctc_fn"], rtol=2e-5
    )
    assert rt.keras.losses.get("ctc") is rt.keras.losses.ctc


def test_model_trained_with_ctc_matches_keras():
    keras = rt.keras
    model = keras.Sequential(
        [keras.Input((10, 4)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(5)]
    )
    model.set_weights([REF[f"fit_w{k}"] for k in range(4)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="ctc")
    hist = model.fit(REF["fit_x"], REF["fit_y"], batch_size=8, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], REF["fit_losses"], rtol=1e-4)
    np.testing.assert_allclose(
        model.predict(REF["fit_x"][:4], verbose=0), REF["fit_pred"], atol=1e-4
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    f, inputs = CASES[name]
    check_gradients(f, inputs, second_order=False)


def test_second_derivative_in_logits_raises():
    f, (x0,) = CASES["ctc_loss"]
    x = rt.constant(x0)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            loss = f(x)
        g = inner.gradient(loss, x)
        s = rt.reduce_sum(g * g)
    with pytest.raises(ValueError, match="second derivative of ctc_loss"):
        outer.gradient(s, x)


def test_robustness():
    x = rt.zeros([2, 1, 3])
    # More labels than frames: no alignment, inf (TensorFlow's dense path gives ~709).
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = rt.nn.ctc_loss([[1, 2, 1]], x, [3], [2])
    assert np.isinf(loss.numpy()).all()
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), 0.0)
    for bad in ([[-1]], [[3]], [[0]]):
        with pytest.raises(ValueError, match="ctc_loss"):
            rt.nn.ctc_loss(bad, x, [1], [2])
    with pytest.raises(ValueError, match="logit_length"):
        rt.nn.ctc_loss([[1]], x, [1], [2**40])
    with pytest.raises(ValueError, match="label_length"):
        rt.nn.ctc_loss([[1]], x, [2**31 - 1], [2])
    with pytest.raises(ValueError, match="blank_index"):
        rt.nn.ctc_loss([[1]], x, [1], [2], blank_index=7)
    with pytest.raises(TypeError, match="ctc_loss"):
        rt.nn.ctc_loss([[1.5]], x, [1], [2])
    empty = rt.nn.ctc_loss(
        np.zeros([0, 2], np.int32),
        rt.zeros([5, 0, 3]),
        np.zeros([0], np.int32),
        np.zeros([0], np.int32),
    )
    assert empty.shape == (0,)
    with pytest.raises(ValueError, match="sequence_length"):
        rt.nn.ctc_greedy_decoder(rt.zeros([2, 1, 3]), [3])
    with pytest.raises(ValueError, match="top_paths"):
        rt.nn.ctc_beam_search_decoder(rt.zeros([2, 1, 3]), [2], beam_width=2, top_paths=3)
    with pytest.raises(ValueError, match="beam_width"):
        rt.nn.ctc_beam_search_decoder(rt.zeros([2, 1, 3]), [2], beam_width=2**70)
