//! `rgb_to_hsv`, `hsv_to_rgb`, `adjust_hue` and `adjust_saturation`: gradients (first and
//! second order against finite differences, float64), vectorised Jacobians, known values,
//! the round trip, grey pixels, and bad input. Values against TensorFlow are in
//! tests/python/test_image_color_reference.py.
mod support;
use support::*;

use rustape::ops::{adjust_hue, adjust_saturation, hsv_to_rgb, multiply, rgb_to_hsv};
use rustape::testing::check_vectorized;
use rustape::{ErrorKind, Tensor};

/// Pixels with distinct channels (no ties), hues away from the wrap.
fn rgb() -> Tensor {
    t64(
        &[
            0.9, 0.35, 0.1, 0.2, 0.75, 0.4, //
            0.3, 0.15, 0.85, 0.6, 0.5, 0.95,
        ],
        &[2, 2, 3],
    )
}

/// Hues away from the kinks of the hue weights (multiples of 1/6).
fn hsv() -> Tensor {
    t64(
        &[
            0.1, 0.7, 0.9, 0.27, 0.4, 0.6, 0.61, 0.9, 0.5, 0.93, 0.3, 0.8,
        ],
        &[2, 2, 3],
    )
}

fn squared(y: rustape::Result<Tensor>) -> rustape::Result<Tensor> {
    let y = y?;
    multiply(&y, &y)
}

#[test]
fn conversions_and_adjustments_differentiate_to_every_order() {
    check_labelled(&|v| squared(rgb_to_hsv(&v[0])), &[rgb()], "rgb_to_hsv");
    check_labelled(&|v| squared(hsv_to_rgb(&v[0])), &[hsv()], "hsv_to_rgb");
    for delta in [0.37, -0.8, 0.05] {
        check_labelled(
            &move |v| squared(adjust_hue(&v[0], delta)),
            &[rgb()],
            &format!("adjust_hue {delta}"),
        );
    }
    for factor in [0.0, 0.6, 1.6] {
        check_labelled(
            &move |v| squared(adjust_saturation(&v[0], factor)),
            &[rgb()],
            &format!("adjust_saturation {factor}"),
        );
    }
}

#[test]
fn jacobians_vectorise() {
    check_vectorized(&|v| squared(rgb_to_hsv(&v[0])), &[rgb()], 1e-12).unwrap();
    check_vectorized(&|v| squared(hsv_to_rgb(&v[0])), &[hsv()], 1e-12).unwrap();
    check_vectorized(&|v| squared(adjust_hue(&v[0], 0.3)), &[rgb()], 1e-12).unwrap();
    check_vectorized(&|v| squared(adjust_saturation(&v[0], 0.5)), &[rgb()], 1e-12).unwrap();
}

#[test]
fn known_values_and_round_trip() {
    let red_orange = t64(&[1.0, 0.5, 0.0], &[3]);
    let h = rgb_to_hsv(&red_orange).unwrap();
    assert_close(&h.to_f64_vec(), &[1.0 / 12.0, 1.0, 1.0], 1e-15);
    let back = hsv_to_rgb(&rgb_to_hsv(&rgb()).unwrap()).unwrap();
    assert_close(&back.to_f64_vec(), &rgb().to_f64_vec(), 1e-14);
    // A third of a turn sends red to green; a full turn changes nothing.
    let red = t64(&[1.0, 0.0, 0.0], &[1, 3]);
    let green = adjust_hue(&red, 1.0 / 3.0).unwrap();
    assert_close(&green.to_f64_vec(), &[0.0, 1.0, 0.0], 1e-12);
    let same = adjust_hue(&rgb(), 1.0).unwrap();
    assert_close(&same.to_f64_vec(), &rgb().to_f64_vec(), 1e-14);
    // Saturation 0 is the value in every channel.
    let grey = adjust_saturation(&rgb(), 0.0).unwrap().to_f64_vec();
    assert_close(&grey[..3], &[0.9, 0.9, 0.9], 1e-15);
}

#[test]
fn grey_and_black_pixels_have_finite_gradients() {
    let x = t64(&[0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.7, 0.7, 0.2], &[3, 3]);
    for g in [
        gradient(&rgb_to_hsv, &x).unwrap(),
        gradient(&|x| adjust_hue(x, 0.2), &x).unwrap(),
        gradient(&|x| adjust_saturation(x, 2.0), &x).unwrap(),
    ] {
        assert!(g.to_f64_vec().iter().all(|v| v.is_finite()));
    }
    let hsv_grey = rgb_to_hsv(&x).unwrap().to_f64_vec();
    assert_close(&hsv_grey[..6], &[0.0, 0.0, 0.5, 0.0, 0.0, 0.0], 0.0);
}

#[test]
fn bad_input_is_an_error() {
    let two = t64(&[0.1, 0.2], &[1, 2]);
    assert_eq!(rgb_to_hsv(&two).unwrap_err().kind, ErrorKind::Shape);
    assert_eq!(adjust_hue(&two, 0.1).unwrap_err().kind, ErrorKind::Shape);
    let ints = Tensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
    assert_eq!(hsv_to_rgb(&ints).unwrap_err().kind, ErrorKind::DType);
    let scalar = t64(&[0.5], &[]);
    assert_eq!(
        adjust_saturation(&scalar, 0.5).unwrap_err().kind,
        ErrorKind::Shape
    );
}

#[test]
fn separable_filter_differentiates_and_is_its_adjoints_transpose() {
    use rustape::ops::{reduce_sum, separable_filter};
    use rustape::testing::pseudo_random;
    let (th, tw) = ([0.25, 0.5, 0.25], [0.2, 0.8]);
    let x = pseudo_random(&[2, 5, 4, 2], 3);
    check_labelled(
        &|v| squared(separable_filter(&v[0], &th, &tw, false)),
        std::slice::from_ref(&x),
        "separable_filter",
    );
    check_labelled(
        &|v| squared(separable_filter(&v[0], &th, &tw, true)),
        std::slice::from_ref(&x),
        "separable_filter adjoint",
    );
    check_vectorized(
        &|v| squared(separable_filter(&v[0], &th, &tw, false)),
        std::slice::from_ref(&x),
        1e-12,
    )
    .unwrap();
    // <A x, y> = <x, A^T y>
    let y = pseudo_random(&[2, 3, 3, 2], 4);
    let ax = separable_filter(&x, &th, &tw, false).unwrap();
    let aty = separable_filter(&y, &th, &tw, true).unwrap();
    let left = reduce_sum(&multiply(&ax, &y).unwrap(), None, false).unwrap();
    let right = reduce_sum(&multiply(&x, &aty).unwrap(), None, false).unwrap();
    assert_close(&left.to_f64_vec(), &right.to_f64_vec(), 1e-14);
    // known values: a 2x2 box mean
    let r = t64(&(0..9).map(f64::from).collect::<Vec<_>>(), &[3, 3, 1]);
    let m = separable_filter(&r, &[0.5, 0.5], &[0.5, 0.5], false).unwrap();
    assert_close(&m.to_f64_vec(), &[2.0, 3.0, 5.0, 6.0], 1e-15);
    let small = t64(&[1.0; 4], &[2, 2, 1]);
    assert_eq!(
        separable_filter(&small, &th, &tw, false).unwrap_err().kind,
        ErrorKind::Shape
    );
}
