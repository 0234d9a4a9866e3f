"""TensorFlow functions rustape composes in `_ops_array.py` / `_ops_math.py` against
TensorFlow 2.21 (tests/reference/gen_tf_more.py): outputs and gradients; float64 central
differences; the NCHW forms and inverses of depth/space; bad arguments."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import rustape as rt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import gen_tf_more as gen

REF = np.load(os.path.join(HERE, "..", "reference", "tf_more.npz"), allow_pickle=False)


def _resolve(name):
    obj = rt
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_matches_tensorflow(name):
    fn, args, kwargs, differentiable = gen.CASES[name]
    f = _resolve(fn)
    if differentiable:
        x = rt.Variable(args[0])
        with rt.GradientTape() as tape:
            result = f(x, *args[1:], **kwargs)
            parts = result if isinstance(result, list) else [result]
            total = rt.add_n([rt.reduce_sum(p * (k + 1.5)) for k, p in enumerate(parts)])
        np.testing.assert_allclose(
            tape.gradient(total, x).numpy(),
            REF[f"{name}/grad"],
            **_close(REF[f"{name}/grad"], name),
        )
    else:
        result = f(*args, **kwargs)
    parts = result if isinstance(result, list) else [result]
    assert len(parts) == sum(1 for k in REF.files if k.startswith(f"{name}/out"))
    for k, p in enumerate(parts):
        want = REF[f"{name}/out{k}"]
        assert p.numpy().dtype == want.dtype, (p.dtype, want.dtype)
        np.testing.assert_allclose(p.numpy(), want, **_close(want, name))


def _close(want, name=""):
    """float64: 1e-11 (rounding differences of a sum's order); float32: 2e-6."""
    if name in LOOSER:
        return LOOSER[name]
    if want.dtype == np.float32:
        return {"rtol": 2e-6, "atol": 2e-6}
    return {"rtol": 1e-11, "atol": 1e-12}


# TensorFlow's own roundings that rustape does not copy: its LRN kernel's float32 fast paths
# (rsqrt, exp/log) differ from pow by a few dozen ulps; compute_average_loss multiplies
# weighted float64 losses in float32 (a TODO in its losses util), rustape in float64
# (checked exactly below).
LOOSER = {
    "lrn": {"rtol": 1e-5, "atol": 1e-6},
    "lrn_defaults": {"rtol": 1e-5, "atol": 1e-6},
    "compute_average_loss_weighted": {"rtol": 1e-7, "atol": 0},
}


def test_compute_average_loss_keeps_float64():
    loss, weight = gen._POS[:, 0], np.array([1.0, 0.0, 2.0])
    got = rt.nn.compute_average_loss(loss, sample_weight=weight, global_batch_size=8)
    np.testing.assert_allclose(got.numpy(), (loss * weight).sum() / 8, rtol=1e-15)


def test_moment_helpers_match_tensorflow():
    x = rt.Variable(gen._SEQ4)
    with rt.GradientTape() as tape:
        stats = rt.nn.sufficient_statistics(x, [0, 1, 2], shift=0.25)
        mean, var = rt.nn.normalize_moments(*stats)
        wmean, wvar = rt.nn.weighted_moments(x, [1, 2], gen._SEQ4[..., :1] ** 2, keepdims=True)
        total = (
            rt.reduce_sum(mean * 2.0)
            + rt.reduce_sum(var)
            + rt.reduce_sum(wmean)
            + rt.reduce_sum(wvar * 3.0)
        )
    for got, key in zip(
        [*stats[:3], mean, var, wmean, wvar],
        ["count", "m_ss", "v_ss", "mean", "var", "wmean", "wvar"],
    ):
        np.testing.assert_allclose(got.numpy(), REF[f"moments/{key}"], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(
        tape.gradient(total, x).numpy(), REF["moments/grad"], rtol=1e-10, atol=1e-12
    )


def test_clip_by_global_norm_matches_tensorflow():
    ts = [rt.Variable(gen._X), rt.Variable(gen._IMG[0, 0])]
    with rt.GradientTape() as tape:
        clipped, norm = rt.clip_by_global_norm([ts[0], None, ts[1]], 2.5)
        total = rt.reduce_sum(clipped[0] * 1.5) + rt.reduce_sum(clipped[2] * -0.5)
    assert clipped[1] is None
    np.testing.assert_allclose(clipped[0].numpy(), REF["clip/out0"], rtol=1e-12)
    np.testing.assert_allclose(clipped[2].numpy(), REF["clip/out2"], rtol=1e-12)
    np.testing.assert_allclose(norm.numpy(), REF["clip/norm"], rtol=1e-12)
    for g, k in zip(tape.gradient(total, ts), ("grad0", "grad1")):
        np.testing.assert_allclose(g.numpy(), REF[f"clip/{k}"], rtol=1e-10, atol=1e-14)
    clipped, norm = rt.clip_by_global_norm([np.array([1.0, np.inf])], 1.0)
    np.testing.assert_array_equal(clipped[0].numpy(), REF["clip_inf/out0"])
    assert np.isinf(norm.numpy()) and np.isinf(REF["clip_inf/norm"])
    np.testing.assert_allclose(
        rt.linalg.global_norm([gen._X, gen._IMG]).numpy(), REF["global_norm"], rtol=1e-12
    )


@pytest.mark.parametrize(
    "f",
    [
        lambda x: rt.reverse_sequence(x, [2, 5, 0], seq_axis=1),
        lambda x: rt.strided_slice(x, [0, 1, 4], [3, 4, 0], [2, 1, -1]),
        lambda x: rt.nn.depth_to_space(rt.reshape(x, [1, 1, 3, 10])[..., :8], 2),
        lambda x: rt.tensor_scatter_nd_max(x, [[0, 1], [0, 1]], rt.ones([2, 2]) * 0.3),
        lambda x: rt.clip_by_global_norm([x], 0.5)[0][0],
    ],
)
def test_gradients_match_central_differences(f):
    x = np.random.default_rng(1).normal(size=(3, 5, 2))
    assert rt.test.gradcheck(lambda t: rt.reduce_sum(rt.sin(f(t))), [x])


def test_depth_space_round_trip_in_both_layouts():
    x = rt.constant(gen._IMG)
    assert np.array_equal(rt.nn.depth_to_space(rt.nn.space_to_depth(x, 2), 2).numpy(), gen._IMG)
    nchw = rt.transpose(x, [0, 3, 1, 2])
    got = rt.nn.depth_to_space(nchw, 2, data_format="NCHW")
    want = rt.transpose(rt.nn.depth_to_space(x, 2), [0, 3, 1, 2])
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_bad_arguments_are_clear_errors():
    x = rt.zeros([2, 3])
    with pytest.raises(ValueError, match="slice: begin 1 and size 3"):
        rt.slice(x, [1, 0], [3, 1])
    with pytest.raises(ValueError, match="stride of 0"):
        rt.strided_slice(x, [0, 0], [1, 1], [1, 0])
    with pytest.raises(ValueError, match="seq_lengths entry"):
        rt.reverse_sequence(x, [4, 1], seq_axis=1)
    with pytest.raises(ValueError, match="within"):
        rt.unravel_index([12], [3, 4])
    with pytest.raises(ValueError, match="divisible"):
        rt.nn.depth_to_space(rt.zeros([1, 2, 2, 3]), 2)
    with pytest.raises(ValueError, match="within"):
        rt.dynamic_partition([1, 2], [0, 2], 2)
    with pytest.raises(ValueError, match="outside"):
        rt.tensor_scatter_nd_max([1.0, 2.0], [[2]], [3.0])
    with pytest.raises(ValueError, match="not compatible"):
        rt.ensure_shape(x, [2, 4])
    with pytest.raises(TypeError, match="sequence of tensors"):
        rt.clip_by_global_norm(x, 1.0)
    with pytest.raises(TypeError, match="floating"):
        rt.realdiv([1, 2], [3, 4])
