"""Cases for `rt.image`'s bounding-box ops (format of test_op_gradients.py): non-max
suppression has no gradient (`FORWARD`: float64 inputs against a plain NumPy greedy NMS);
`draw_bounding_boxes` is differentiable with respect to the images (`CASES`). Values against
TensorFlow are in test_boxes_reference.py."""

from __future__ import annotations

import numpy as np
import rustape as rt

rng = np.random.default_rng(8080)


def _boxes(n: int) -> np.ndarray:
    corner = rng.uniform(0.0, 1.0, (n, 2))
    return np.concatenate([corner, corner + rng.uniform(0.05, 0.5, (n, 2))], axis=1)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    a = np.concatenate([np.minimum(a[:2], a[2:]), np.maximum(a[:2], a[2:])])
    b = np.concatenate([np.minimum(b[:2], b[2:]), np.maximum(b[:2], b[2:])])
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0) * max(
        min(a[3], b[3]) - max(a[1], b[1]), 0.0
    )
    return inter / (area_a + area_b - inter)


def np_nms(scores, k, thr, similarity, score_threshold=-np.inf):
    """Greedy NMS: best score first (the lower index among ties), dropped above `thr`."""
    order = sorted(
        (i for i in range(len(scores)) if scores[i] > score_threshold),
        key=lambda i: (-scores[i], i),
    )
    kept: list[int] = []
    for i in order:
        if len(kept) == k:
            break
        if all(similarity(i, j) <= thr for j in kept):
            kept.append(i)
    return np.array(kept, dtype=np.int32)


_B = _boxes(25)
_S = rng.uniform(0, 1, 25)
_OV = rng.uniform(0, 1, (12, 12))
_OS = rng.uniform(0, 1, 12)
_PB = np.stack([_boxes(20) for _ in range(2)])
_PS = rng.uniform(0, 1, (2, 20))
_CB = _boxes(10)[None, :, None, :] * 0.9
_CS = rng.uniform(0, 1, (1, 10, 3))


def _np_combined(boxes, scores, per_class, total, thr):
    picks = []
    b = boxes[0, :, 0]
    for c in range(scores.shape[2]):
        s = scores[0, :, c]
        for i in np_nms(s, per_class, thr, lambda i, j: _iou(b[i], b[j])):
            picks.append((s[i], c, b[i]))
    picks.sort(key=lambda p: -p[0])
    out = np.zeros((1, total, 4))
    for k, p in enumerate(picks[:total]):
        out[0, k] = np.clip(p[2], 0, 1)
    return out


FORWARD = {
    "image.non_max_suppression": (
        lambda b, s: rt.image.non_max_suppression(b, s, 10, iou_threshold=0.3),
        [_B, _S],
        lambda b, s: np_nms(s, 10, 0.3, lambda i, j: _iou(b[i], b[j])),
    ),
    "image.non_max_suppression_with_scores": (
        lambda b, s: rt.image.non_max_suppression_with_scores(b, s, 25, score_threshold=0.4)[0],
        [_B, _S],
        lambda b, s: np_nms(s, 25, 0.5, lambda i, j: _iou(b[i], b[j]), 0.4),
    ),
    "image.non_max_suppression_overlaps": (
        lambda o, s: rt.image.non_max_suppression_overlaps(o, s, 12, overlap_threshold=0.6),
        [_OV, _OS],
        lambda o, s: np_nms(s, 12, 0.6, lambda i, j: o[i, j]),
    ),
    "image.non_max_suppression_padded": (
        lambda b, s: rt.image.non_max_suppression_padded(
            b, s, 20, iou_threshold=0.4, pad_to_max_output_size=True, tile_size=4
        )[1],
        [_PB, _PS],
        lambda b, s: np.array(
            [
                len(np_nms(s[k], 20, 0.4, lambda i, j, k=k: _iou(b[k, i], b[k, j])))
                for k in range(2)
            ],
            dtype=np.int32,
        ),
    ),
    "image.combined_non_max_suppression": (
        lambda b, s: (
            rt.image.combined_non_max_suppression(b, s, 4, 8, iou_threshold=0.4).nmsed_boxes
        ),
        [_CB, _CS],
        lambda b, s: _np_combined(b, s, 4, 8, 0.4),
    ),
}

CASES = {
    "image.draw_bounding_boxes": (
        lambda x: (
            rt.image.draw_bounding_boxes(
                x,
                [[[0.1, 0.2, 0.7, 0.8], [-0.2, 0.5, 0.4, 1.3]]],
                [[0.5, 0.25, 0.0], [1.0, 0.0, 0.5]],
            )
            ** 2
        ),
        [rng.uniform(-1, 1, (1, 6, 7, 3))],
    ),
}
