"""Bounding-box ops of TensorFlow 2.21: `tf.image.non_max_suppression`,
`non_max_suppression_with_scores` (Soft-NMS), `non_max_suppression_overlaps`,
`non_max_suppression_padded`, `combined_non_max_suppression` and `draw_bounding_boxes`, over
random and adversarial boxes (tied scores, identical boxes, zero-area and inverted boxes,
thresholds 0 and 1, max_output_size 0).

Each case is `{"name", "fn", "args": {...}, "out": [...]}`: `fn` is the `tf.image` name (the
same in `rt.image`), `args` its keyword arguments as nested float32 lists, `out` its outputs
(one list per output). Run with TensorFlow's venv (see README.md); writes boxes.json beside
this file.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf


def f32(a):
    return np.asarray(a, np.float32)


def tolist(x):
    a = np.asarray(x)
    if a.dtype.kind == "f":
        return a.astype(np.float64).tolist()
    return a.tolist()


CASES = []


def arg(v):
    """A float32 array as a nested list (an empty one as `{"shape": ...}`), others as given."""
    if not isinstance(v, np.ndarray):
        return v
    return {"shape": list(v.shape)} if v.size == 0 else tolist(v)


def case(name, fn, **args):
    out = getattr(tf.image, fn)(
        **{k: (tf.constant(f32(v)) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    )
    outs = list(out) if isinstance(out, tuple) else [out]
    CASES.append(
        {
            "name": name,
            "fn": fn,
            "args": {k: arg(v) for k, v in args.items()},
            "out": [tolist(o) for o in outs],
        }
    )


def random_boxes(rng, n, lo=0.0, hi=1.0, size=0.4):
    corner = rng.uniform(lo, hi, (n, 2))
    extent = rng.uniform(0.02, size, (n, 2))
    return f32(np.concatenate([corner, corner + extent], axis=1))


def adversarial(rng):
    """Ties, duplicates, zero-area, inverted corners."""
    b = random_boxes(rng, 16)
    b[3] = b[2]  # identical boxes
    b[5] = b[2]
    b[6] = [0.2, 0.2, 0.2, 0.6]  # zero area
    b[7] = b[8][[2, 3, 0, 1]]  # inverted copy of box 8
    b[9] = [0.5, 0.5, 0.5, 0.5]
    b[10] = b[11][[0, 3, 2, 1]]  # x inverted only
    s = f32(rng.choice([0.2, 0.5, 0.5, 0.7, 0.9], 16))
    s[3] = s[2]
    s[5] = s[2]
    return b, s


def main():
    rng = np.random.default_rng(7)
    boxes = random_boxes(rng, 40)
    scores = f32(rng.uniform(0, 1, 40))
    for thr in [0.0, 0.3, 0.5, 1.0]:
        for mo in [0, 5, 40]:
            case(
                f"nms_rand_t{thr}_m{mo}",
                "non_max_suppression",
                boxes=boxes,
                scores=scores,
                max_output_size=mo,
                iou_threshold=thr,
            )
    case(
        "nms_score_thr",
        "non_max_suppression",
        boxes=boxes,
        scores=scores,
        max_output_size=40,
        iou_threshold=0.4,
        score_threshold=0.5,
    )
    ab, asc = adversarial(rng)
    for thr in [0.0, 0.5, 1.0]:
        case(
            f"nms_adv_t{thr}",
            "non_max_suppression",
            boxes=ab,
            scores=asc,
            max_output_size=16,
            iou_threshold=thr,
        )
        case(
            f"nms_adv_st_t{thr}",
            "non_max_suppression",
            boxes=ab,
            scores=asc,
            max_output_size=16,
            iou_threshold=thr,
            score_threshold=0.5,
        )
    ties = f32(np.full(16, 0.5))
    case(
        "nms_all_tied",
        "non_max_suppression",
        boxes=ab,
        scores=ties,
        max_output_size=16,
        iou_threshold=0.3,
    )
    neg = f32(-rng.uniform(0, 3, 16))
    case(
        "nms_negative_scores",
        "non_max_suppression",
        boxes=ab,
        scores=neg,
        max_output_size=10,
        iou_threshold=0.5,
    )
    case(
        "nms_empty",
        "non_max_suppression",
        boxes=f32(np.zeros((0, 4))),
        scores=f32(np.zeros(0)),
        max_output_size=3,
    )
    big = random_boxes(rng, 30, -5.0, 20.0, 6.0)
    case(
        "nms_absolute",
        "non_max_suppression",
        boxes=big,
        scores=f32(rng.uniform(0, 1, 30)),
        max_output_size=30,
        iou_threshold=0.2,
    )

    for sigma in [0.0, 0.1, 0.5, 2.0]:
        for st in [float("-inf"), 0.05, 0.3]:
            case(
                f"soft_s{sigma}_st{st}",
                "non_max_suppression_with_scores",
                boxes=boxes,
                scores=scores,
                max_output_size=40,
                iou_threshold=0.5,
                score_threshold=st,
                soft_nms_sigma=sigma,
            )
        case(
            f"soft_adv_s{sigma}",
            "non_max_suppression_with_scores",
            boxes=ab,
            scores=asc,
            max_output_size=12,
            iou_threshold=0.4,
            score_threshold=0.01,
            soft_nms_sigma=sigma,
        )

    ov = rng.uniform(0, 1, (20, 20)).astype(np.float32)
    ov = f32((ov + ov.T) / 2)
    osc = f32(rng.choice([0.1, 0.4, 0.4, 0.8], 20))
    for thr in [0.0, 0.5, 0.7, 1.0]:
        case(
            f"overlaps_t{thr}",
            "non_max_suppression_overlaps",
            overlaps=ov,
            scores=osc,
            max_output_size=20,
            overlap_threshold=thr,
        )
    case(
        "overlaps_st",
        "non_max_suppression_overlaps",
        overlaps=ov,
        scores=osc,
        max_output_size=5,
        overlap_threshold=0.6,
        score_threshold=0.2,
    )

    pb = np.stack([random_boxes(rng, 40) for _ in range(3)])
    ps = f32(rng.uniform(0, 1, (3, 40)))
    ps[1, 5:9] = 0.5
    pb[1, 6] = pb[1, 5]
    pb[2, 3] = [-0.5, -0.5, -0.1, -0.1]  # all coordinates <= 0: never selected
    for thr in [0.0, 0.3, 0.5, 1.0]:
        for tile in [8, 512]:
            case(
                f"padded_t{thr}_tile{tile}",
                "non_max_suppression_padded",
                boxes=pb,
                scores=ps,
                max_output_size=12,
                iou_threshold=thr,
                pad_to_max_output_size=True,
                tile_size=tile,
            )
    case(
        "padded_st",
        "non_max_suppression_padded",
        boxes=pb,
        scores=ps,
        max_output_size=40,
        iou_threshold=0.4,
        score_threshold=0.4,
        pad_to_max_output_size=True,
        tile_size=16,
    )
    case(
        "padded_many",
        "non_max_suppression_padded",
        boxes=pb,
        scores=ps,
        max_output_size=45,
        iou_threshold=0.6,
        pad_to_max_output_size=True,
        tile_size=8,
    )
    case(
        "padded_unbatched",
        "non_max_suppression_padded",
        boxes=pb[0],
        scores=ps[0],
        max_output_size=10,
        iou_threshold=0.5,
    )
    case(
        "padded_unbatched_pad",
        "non_max_suppression_padded",
        boxes=pb[0],
        scores=ps[0],
        max_output_size=50,
        iou_threshold=0.5,
        pad_to_max_output_size=True,
        tile_size=16,
    )
    inv = pb[0][:, [2, 3, 0, 1]]
    case(
        "padded_inverted",
        "non_max_suppression_padded",
        boxes=inv,
        scores=ps[0],
        max_output_size=10,
        iou_threshold=0.5,
    )
    case(
        "padded_4d",
        "non_max_suppression_padded",
        boxes=pb.reshape(3, 1, 40, 4)[:, :, :20],
        scores=ps.reshape(3, 1, 40)[:, :, :20],
        max_output_size=6,
        iou_threshold=0.5,
        pad_to_max_output_size=True,
        tile_size=4,
    )
    case(
        "padded_sorted_input",
        "non_max_suppression_padded",
        boxes=pb[0],
        scores=-np.sort(-ps[0]),
        max_output_size=10,
        iou_threshold=0.5,
        sorted_input=True,
    )

    cb = np.stack([random_boxes(rng, 12, -0.2, 1.0) for _ in range(2)])[:, :, None, :]
    cs = f32(rng.uniform(0, 1, (2, 12, 3)))
    cs[0, :4, :] = 0.6  # ties across boxes and classes
    cs[1, 2:5, 1] = 0.3
    cb3 = np.stack([np.stack([random_boxes(rng, 12) for _ in range(3)], axis=1) for _ in range(2)])
    for ppc in [False, True]:
        for clip in [True, False]:
            case(
                f"combined_q1_ppc{ppc}_clip{clip}",
                "combined_non_max_suppression",
                boxes=cb,
                scores=cs,
                max_output_size_per_class=4,
                max_total_size=10,
                iou_threshold=0.5,
                pad_per_class=ppc,
                clip_boxes=clip,
            )
            case(
                f"combined_q3_ppc{ppc}_clip{clip}",
                "combined_non_max_suppression",
                boxes=cb3,
                scores=cs,
                max_output_size_per_class=3,
                max_total_size=20,
                iou_threshold=0.4,
                score_threshold=0.2,
                pad_per_class=ppc,
                clip_boxes=clip,
            )
    case(
        "combined_small_total",
        "combined_non_max_suppression",
        boxes=cb,
        scores=cs,
        max_output_size_per_class=12,
        max_total_size=3,
        iou_threshold=1.0,
    )
    case(
        "combined_thr0",
        "combined_non_max_suppression",
        boxes=cb,
        scores=cs,
        max_output_size_per_class=12,
        max_total_size=40,
        iou_threshold=0.0,
    )
    tied = f32(np.full((2, 12, 3), 0.25))
    case(
        "combined_all_tied",
        "combined_non_max_suppression",
        boxes=cb,
        scores=tied,
        max_output_size_per_class=12,
        max_total_size=40,
        iou_threshold=1.0,
        clip_boxes=False,
    )
    case(
        "combined_all_tied_small",
        "combined_non_max_suppression",
        boxes=cb[:, :5],
        scores=tied[:, :5],
        max_output_size_per_class=5,
        max_total_size=20,
        iou_threshold=1.0,
        clip_boxes=False,
    )
    lowneg = f32(-rng.uniform(0.5, 3.0, (2, 12, 3)))
    case(
        "combined_negative_scores",
        "combined_non_max_suppression",
        boxes=cb,
        scores=lowneg,
        max_output_size_per_class=2,
        max_total_size=8,
        iou_threshold=0.5,
    )
    many = random_boxes(rng, 60)[None, :, None, :]
    manys = f32(rng.choice([0.1, 0.2, 0.3], (1, 60, 4)))
    case(
        "combined_many_ties",
        "combined_non_max_suppression",
        boxes=many,
        scores=manys,
        max_output_size_per_class=20,
        max_total_size=70,
        iou_threshold=0.7,
    )

    img = f32(rng.uniform(0, 1, (2, 7, 9, 3)))
    dboxes = f32(
        [
            [
                [0.1, 0.1, 0.8, 0.9],
                [0.0, 0.0, 1.0, 1.0],
                [-0.3, 0.2, 0.5, 1.4],
                [0.6, 0.7, 0.2, 0.9],
            ],
            [
                [1.2, 0.0, 1.5, 0.5],
                [-0.5, -0.5, -0.1, 0.3],
                [0.33, 0.49, 0.34, 0.51],
                [0.5, 0.5, 0.5, 0.5],
            ],
        ]
    )
    colors = f32([[1, 0, 0, 1], [0, 1, 0, 1], [0.2, 0.3, 0.9, 1]])
    case("draw_colors", "draw_bounding_boxes", images=img, boxes=dboxes, colors=colors)
    case("draw_default_rgb", "draw_bounding_boxes", images=img, boxes=dboxes, colors=None)
    case("draw_default_gray", "draw_bounding_boxes", images=img[..., :1], boxes=dboxes, colors=None)
    case(
        "draw_default_rgba",
        "draw_bounding_boxes",
        images=f32(rng.uniform(0, 1, (2, 5, 6, 4))),
        boxes=dboxes,
        colors=None,
    )

    equalization = equalization_cases(rng)
    perspective = perspective_cases(rng)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boxes.json")
    with open(path, "w") as f:
        json.dump(
            {"ops": CASES, "equalization": equalization, "perspective": perspective},
            f,
            separators=(",", ":"),
        )
    print(
        f"wrote {len(CASES)} op cases, {len(equalization)} Equalization and "
        f"{len(perspective)} perspective_transform cases to {path}"
    )


def perspective_cases(rng):
    """`keras.ops.image.perspective_transform` (the op behind `RandomPerspective`)."""
    import keras

    out = []
    for name, shape, kw in [
        ("batch_bilinear", (2, 9, 11, 3), {}),
        ("batch_nearest_fill", (2, 9, 11, 3), {"interpolation": "nearest", "fill_value": 0.5}),
        ("unbatched", (8, 8, 2), {}),
        ("channels_first", (2, 3, 7, 10), {"data_format": "channels_first"}),
    ]:
        images = f32(rng.uniform(0, 1, shape))
        first = kw.get("data_format") == "channels_first"
        h, w = (shape[-2], shape[-1]) if first else (shape[-3], shape[-2])
        batch = shape[0] if len(shape) == 4 else 1
        start = f32(np.tile([[[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]]], (batch, 1, 1)))
        end = f32(start + start * rng.uniform(-0.3, 0.3, start.shape))
        if len(shape) == 3:
            start, end = start[0], end[0]
        y = keras.ops.image.perspective_transform(images, start, end, **kw)
        out.append(
            {
                "name": name,
                "kwargs": kw,
                "images": tolist(images),
                "start": tolist(start),
                "end": tolist(end),
                "out": tolist(y),
            }
        )
    return out


def equalization_cases(rng):
    """Keras 3's `Equalization` layer (deterministic) on uint8-range and scaled images."""
    import keras

    out = []

    def add(name, images, **kwargs):
        training = kwargs.pop("training", True)
        layer = keras.layers.Equalization(**kwargs)
        y = layer(tf.constant(images), training=training)
        out.append(
            {
                "name": name,
                "kwargs": kwargs,
                "training": training,
                "images": tolist(images),
                "out": tolist(y),
            }
        )

    u8 = f32(rng.integers(0, 256, (2, 9, 7, 3)))
    skewed = f32(np.clip(rng.normal(60, 20, (2, 8, 8, 3)), 0, 255).round())
    add("uint8", u8)
    add("skewed", skewed)
    add("skewed_bins64", skewed, bins=64)
    add("unit_range", f32(rng.uniform(0, 1, (1, 6, 5, 3))), value_range=[0, 1])
    add("odd_range", f32(rng.uniform(-2, 3, (2, 5, 5, 2))), value_range=(3, -2), bins=17)
    add("unbatched", f32(rng.integers(0, 256, (6, 6, 1))))
    const = u8.copy()
    const[..., 1] = 77.0
    add("constant_channel", const)
    add("channels_first", f32(rng.integers(0, 256, (2, 3, 6, 5))), data_format="channels_first")
    add("not_training", u8, training=False)
    return out


if __name__ == "__main__":
    main()
