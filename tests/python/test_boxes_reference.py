"""`rt.image`'s bounding-box ops against TensorFlow 2.21 (tests/reference/gen_boxes.py writes
boxes.json): every output equal to TensorFlow's, bit for bit (int32 indices and counts, float32
scores, boxes, classes and images)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import rustape as rt

_PATH = os.path.join(os.path.dirname(__file__), "..", "reference", "boxes.json")
with open(_PATH) as _f:
    _DATA = json.load(_f)
CASES = {c["name"]: c for c in _DATA["ops"]}
EQUALIZATION = {c["name"]: c for c in _DATA["equalization"]}
PERSPECTIVE = {c["name"]: c for c in _DATA["perspective"]}


def _arg(value):
    if isinstance(value, dict):
        return np.zeros(value["shape"], np.float32)
    if isinstance(value, list):
        return np.asarray(value, dtype=np.float32)
    return value


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    case = CASES[name]
    args = {k: _arg(v) for k, v in case["args"].items()}
    if case["fn"] == "non_max_suppression_padded" and args["boxes"].size == 0:
        pytest.fail("no empty padded case is generated")
    out = getattr(rt.image, case["fn"])(**args)
    outs = list(out) if isinstance(out, tuple) else [out]
    assert len(outs) == len(case["out"]), name
    for k, (got, want) in enumerate(zip(outs, case["out"])):
        got = np.asarray(got)
        want_arr = np.asarray(want)
        if got.dtype.kind == "i":
            want_arr = want_arr.astype(np.int32)
            assert got.dtype == np.int32, f"{name}: output {k} is {got.dtype}"
        else:
            want_arr = want_arr.astype(np.float32)
            assert got.dtype == np.float32, f"{name}: output {k} is {got.dtype}"
        assert got.shape == want_arr.shape, (
            f"{name}: output {k} shape {got.shape} != {want_arr.shape}"
        )
        np.testing.assert_array_equal(got, want_arr, err_msg=f"{name}: output {k}")


def test_float64_inputs_select_as_float32_does():
    rng = np.random.default_rng(3)
    corner = rng.uniform(0, 1, (30, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(0.05, 0.4, (30, 2))], axis=1)
    scores = rng.uniform(0, 1, 30)
    for thr in [0.2, 0.5]:
        a = rt.image.non_max_suppression(boxes, scores, 30, iou_threshold=thr)
        b = rt.image.non_max_suppression(
            boxes.astype(np.float32), scores.astype(np.float32), 30, iou_threshold=thr
        )
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    idx, s = rt.image.non_max_suppression_with_scores(boxes, scores, 30, soft_nms_sigma=0.5)
    assert s.dtype == rt.float64 and idx.dtype == rt.int32


def test_errors_name_the_op():
    b = np.zeros((3, 4), np.float32)
    s = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="non_max_suppression"):
        rt.image.non_max_suppression(b, s, 2, iou_threshold=1.5)
    with pytest.raises(ValueError, match="non_max_suppression"):
        rt.image.non_max_suppression(b, s, -1)
    with pytest.raises(ValueError, match="scores"):
        rt.image.non_max_suppression(b, np.zeros(4, np.float32), 2)
    with pytest.raises(ValueError, match="soft_nms_sigma"):
        rt.image.non_max_suppression_with_scores(b, s, 2, soft_nms_sigma=-1.0)
    with pytest.raises(TypeError, match="float"):
        rt.image.non_max_suppression(b, s.astype(np.float64), 2)
    with pytest.raises(ValueError, match="square"):
        rt.image.non_max_suppression_overlaps(np.zeros((3, 2), np.float32), s, 2)
    with pytest.raises(ValueError, match="pad_to_max_output_size"):
        rt.image.non_max_suppression_padded(
            np.zeros((2, 3, 4), np.float32), np.zeros((2, 3), np.float32), 2
        )
    with pytest.raises(ValueError, match="max_total_size"):
        rt.image.combined_non_max_suppression(
            np.zeros((1, 3, 1, 4), np.float32), np.zeros((1, 3, 2), np.float32), 2, 0
        )
    with pytest.raises(ValueError, match="q"):
        rt.image.combined_non_max_suppression(
            np.zeros((1, 3, 3, 4), np.float32), np.zeros((1, 3, 2), np.float32), 2, 2
        )
    with pytest.raises(ValueError, match="depth"):
        rt.image.draw_bounding_boxes(
            np.zeros((1, 3, 3, 2), np.float32), np.zeros((1, 1, 4), np.float32), None
        )
    with pytest.raises(ValueError, match="colors"):
        rt.image.draw_bounding_boxes(
            np.zeros((1, 3, 3, 3), np.float32), np.zeros((1, 1, 4), np.float32), [[1.0, 0.0]]
        )


def test_draw_gradient_is_zero_on_outlines():
    x = rt.constant(np.ones((1, 4, 4, 1), np.float32))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.image.draw_bounding_boxes(x, [[[0.0, 0.0, 1.0, 1.0]]], None)
    g = tape.gradient(y, x).numpy()[0, :, :, 0]
    want = np.zeros((4, 4), np.float32)
    want[1:3, 1:3] = 1
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("name", sorted(EQUALIZATION))
def test_equalization_matches_keras(name):
    case = EQUALIZATION[name]
    layer = rt.keras.layers.Equalization(**case["kwargs"])
    got = layer(np.asarray(case["images"], np.float32), training=case["training"]).numpy()
    np.testing.assert_array_equal(got, np.asarray(case["out"], np.float32), err_msg=name)


@pytest.mark.parametrize("name", sorted(PERSPECTIVE))
def test_perspective_transform_matches_keras(name):
    # The 8x8 homography solve rounds differently from TensorFlow's float32 LU (a few ulps in
    # the sample points), hence a tolerance rather than bit equality.
    case = PERSPECTIVE[name]
    got = rt.keras.ops.image.perspective_transform(
        np.asarray(case["images"], np.float32), case["start"], case["end"], **case["kwargs"]
    ).numpy()
    want = np.asarray(case["out"], np.float32)
    assert got.shape == want.shape
    if case["kwargs"].get("interpolation") == "nearest":
        # A sample point a rounding away from a pixel boundary may pick the neighbour.
        assert np.mean(got != want) < 0.01, name
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-5, err_msg=name)
