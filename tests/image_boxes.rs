//! Bounding-box ops: greedy, soft and combined NMS on hand-checked cases, the tiled padded NMS,
//! `draw_bounding_boxes`' outline and its gradient (first and second order, float64, and the
//! vectorised Jacobian), and bad input. Values against TensorFlow are in
//! tests/python/test_boxes_reference.py.
mod support;
use support::*;

use rustape::ops::{
    combined_non_max_suppression, draw_bounding_boxes, multiply, non_max_suppression,
    non_max_suppression_overlaps, non_max_suppression_padded, CombinedOptions, NmsOptions,
    PaddedOptions,
};
use rustape::testing::{check_vectorized, pseudo_random};
use rustape::ErrorKind;

/// Two overlapping boxes (IoU 0.5 / 1.5 = 1/3 when shifted by half), a far one, a zero-area
/// one and an inverted copy of the first.
fn boxes() -> Vec<f64> {
    vec![
        0.0, 0.0, 1.0, 1.0, //
        0.0, 0.5, 1.0, 1.5, //
        0.0, 3.0, 1.0, 4.0, //
        2.0, 2.0, 2.0, 3.0, //
        1.0, 1.0, 0.0, 0.0,
    ]
}

fn options(max: usize, threshold: f64) -> NmsOptions {
    NmsOptions {
        max_output_size: max,
        threshold,
        score_threshold: f64::NEG_INFINITY,
        soft_nms_sigma: 0.0,
    }
}

fn ints(t: &rustape::Tensor) -> Vec<i64> {
    values(t).into_iter().map(|v| v as i64).collect()
}

#[test]
fn greedy_nms_thresholds_ties_and_degenerate_boxes() {
    let b = t64(&boxes(), &[5, 4]);
    let s = v64(&[0.9, 0.8, 0.7, 0.95, 0.9]);
    // IoU(0, 1) = 1/3: kept at 0.5, dropped at 0.3; the inverted copy of box 0 ties with it
    // (0.9) and the lower index goes first; the zero-area box overlaps nothing.
    let (idx, _, n) = non_max_suppression(&b, &s, options(5, 0.5), false).unwrap();
    assert_eq!((ints(&idx), n), (vec![3, 0, 1, 2], 4));
    let (idx, _, _) = non_max_suppression(&b, &s, options(5, 0.3), false).unwrap();
    assert_eq!(ints(&idx), vec![3, 0, 2]);
    let (idx, _, _) = non_max_suppression(&b, &s, options(5, 1.0), false).unwrap();
    assert_eq!(ints(&idx), vec![3, 0, 4, 1, 2]);
    let (idx, sc, n) = non_max_suppression(&b, &s, options(6, 0.5), true).unwrap();
    assert_eq!((ints(&idx), n), (vec![3, 0, 1, 2, 0, 0], 4));
    assert_eq!(values(&sc)[4..], [0.0, 0.0]);
    let (idx, _, _) = non_max_suppression(&b, &s, options(0, 0.5), false).unwrap();
    assert!(ints(&idx).is_empty());
}

#[test]
fn soft_nms_scales_overlapping_scores() {
    let b = t64(&boxes()[..8], &[2, 4]);
    let s = v64(&[0.9, 0.8]);
    let soft = NmsOptions {
        soft_nms_sigma: 0.5,
        ..options(2, 0.5)
    };
    let (idx, sc, _) = non_max_suppression(&b, &s, soft, false).unwrap();
    assert_eq!(ints(&idx), vec![0, 1]);
    let iou: f64 = 1.0 / 3.0;
    assert_close(&values(&sc), &[0.9, 0.8 * (-iou * iou / 1.0).exp()], 1e-12);
}

#[test]
fn overlaps_and_combined_nms() {
    let o = t64(&[1.0, 0.7, 0.0, 0.7, 1.0, 0.2, 0.0, 0.2, 1.0], &[3, 3]);
    let idx = non_max_suppression_overlaps(&o, &v64(&[0.9, 0.8, 0.7]), options(3, 0.5)).unwrap();
    assert_eq!(ints(&idx), vec![0, 2]);
    // One image, two boxes shared by two classes.
    let b = t64(&[0.0, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1], &[1, 2, 1, 4]);
    let s = t64(&[0.9, 0.1, 0.8, 0.7], &[1, 2, 2]);
    let combined = |pad_per_class, clip_boxes| CombinedOptions {
        max_output_size_per_class: 2,
        max_total_size: 3,
        iou_threshold: 0.5,
        score_threshold: 0.0,
        pad_per_class,
        clip_boxes,
    };
    let [bx, sc, cl, valid] = combined_non_max_suppression(&b, &s, combined(false, true)).unwrap();
    assert_eq!(sc.shape(), &[1, 3]);
    // Class 1's box 0 (0.1) overlaps its box 1 (0.7) at IoU 0.9 / 1.1.
    assert_close(&values(&sc), &[0.9, 0.7, 0.0], 0.0);
    assert_close(&values(&cl), &[0.0, 1.0, 0.0], 0.0);
    assert_eq!(ints(&valid), vec![2]);
    assert_close(&values(&bx)[4..8], &[0.0, 0.1, 1.0, 1.0], 0.0);
    let [bx, ..] = combined_non_max_suppression(&b, &s, combined(false, false)).unwrap();
    assert_close(&values(&bx)[4..8], &[0.0, 0.1, 1.0, 1.1], 0.0);
    let err = combined_non_max_suppression(
        &b,
        &s,
        CombinedOptions {
            max_total_size: 0,
            ..combined(true, true)
        },
    )
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Value);
}

#[test]
fn padded_nms_matches_greedy_on_separated_boxes() {
    let b = t64(&boxes()[..12], &[1, 3, 4]);
    let s = t64(&[0.9, 0.8, 0.7], &[1, 3]);
    let options = |iou_threshold| PaddedOptions {
        max_output_size: 4,
        iou_threshold,
        score_threshold: f64::NEG_INFINITY,
        sorted_input: false,
        canonicalized_coordinates: false,
        tile_size: 2,
    };
    let (idx, valid) = non_max_suppression_padded(&b, &s, options(0.5)).unwrap();
    assert_eq!((ints(&idx), ints(&valid)), (vec![0, 1, 2, 0], vec![3]));
    // Box 1 is suppressed inside its tile (IoU 1/3 >= 0.3); box 2 in the next tile survives.
    let (idx, valid) = non_max_suppression_padded(&b, &s, options(0.3)).unwrap();
    assert_eq!((ints(&idx), ints(&valid)), (vec![0, 2, 0, 0], vec![2]));
}

#[test]
fn draw_bounding_boxes_outline_and_gradients() {
    let img = t64(&[0.5; 16], &[1, 4, 4, 1]);
    let b = t64(&[0.0, 0.0, 1.0, 1.0], &[1, 1, 4]);
    let y = draw_bounding_boxes(&img, &b, Some(&t64(&[2.0], &[1, 1]))).unwrap();
    let inner = [5, 6, 9, 10];
    for (k, v) in values(&y).into_iter().enumerate() {
        assert_eq!(v, if inner.contains(&k) { 0.5 } else { 2.0 });
    }
    let x = pseudo_random(&[2, 5, 6, 3], 3);
    let boxes = t64(
        &[
            0.1, 0.2, 0.7, 0.8, -0.3, 0.5, 0.4, 1.4, 0.2, 0.1, 0.6, 0.3, 0.9, 0.9, 0.2, 0.2,
        ],
        &[2, 2, 4],
    );
    let f = |xs: &[rustape::Tensor]| {
        let y = draw_bounding_boxes(&xs[0], &boxes, None)?;
        multiply(&y, &y)
    };
    check(&f, std::slice::from_ref(&x));
    check_vectorized(&f, std::slice::from_ref(&x), 1e-12).unwrap();
    let err = draw_bounding_boxes(&t64(&[0.0; 8], &[1, 2, 2, 2]), &b, None).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Shape);
}
