//! `resize` and `resize_adjoint`: gradients of every method (first and second order against
//! finite differences, float64), the adjoint identity, vectorised Jacobians, and bad input.
//! Values against TensorFlow are in tests/python/test_image_reference.py.
mod support;
use support::*;

use rustape::ops::{multiply, reduce_sum, resize, resize_adjoint, ResizeMethod};
use rustape::testing::{check_vectorized, pseudo_random};
use rustape::{ErrorKind, Tensor};

const METHODS: [ResizeMethod; 6] = [
    ResizeMethod::Bilinear,
    ResizeMethod::Nearest,
    ResizeMethod::Bicubic,
    ResizeMethod::Area,
    ResizeMethod::BilinearAntialias,
    ResizeMethod::BicubicAntialias,
];

/// (image shape, new size): up, down, fractional, with and without a batch axis.
const CASES: [(&[usize], [usize; 2]); 4] = [
    (&[3, 4, 2], [5, 3]),
    (&[2, 4, 3, 1], [2, 5]),
    (&[5, 5, 1], [3, 3]),
    (&[1, 2, 3, 2], [4, 4]),
];

#[test]
fn resize_gradients_every_order() {
    for method in METHODS {
        for (shape, size) in CASES {
            let x = pseudo_random(shape, 7);
            // Squared so the second order is not of a linear map.
            check_labelled(
                &move |t: &[Tensor]| {
                    let y = resize(&t[0], size, method)?;
                    multiply(&y, &y)
                },
                std::slice::from_ref(&x),
                &format!("resize {method:?} {shape:?} -> {size:?}"),
            );
            let mut out: Vec<usize> = shape.to_vec();
            let r = out.len();
            out[r - 3] = size[0];
            out[r - 2] = size[1];
            let g = pseudo_random(&out, 9);
            let hw = [shape[r - 3], shape[r - 2]];
            check_labelled(
                &move |t: &[Tensor]| {
                    let y = resize_adjoint(&t[0], hw, method)?;
                    multiply(&y, &y)
                },
                std::slice::from_ref(&g),
                &format!("resize_adjoint {method:?} {shape:?} -> {size:?}"),
            );
        }
    }
}

#[test]
fn the_adjoint_is_the_transpose() {
    // <resize(x), g> == <x, resize_adjoint(g)> for every method.
    for method in METHODS {
        for (shape, size) in CASES {
            let x = pseudo_random(shape, 1);
            let y = resize(&x, size, method).unwrap();
            let g = pseudo_random(y.shape(), 2);
            let r = shape.len();
            let back = resize_adjoint(&g, [shape[r - 3], shape[r - 2]], method).unwrap();
            let lhs = values(&reduce_sum(&multiply(&y, &g).unwrap(), None, false).unwrap());
            let rhs = values(&reduce_sum(&multiply(&x, &back).unwrap(), None, false).unwrap());
            assert_close_labelled(&lhs, &rhs, 1e-12, &format!("{method:?} {shape:?}"));
        }
    }
}

#[test]
fn vectorised_jacobians_equal_row_by_row() {
    for method in METHODS {
        let x = pseudo_random(&[2, 3, 4, 2], 3);
        check_vectorized(
            &move |t: &[Tensor]| {
                let y = resize(&t[0], [5, 2], method)?;
                multiply(&y, &y)
            },
            std::slice::from_ref(&x),
            1e-12,
        )
        .unwrap_or_else(|e| panic!("{method:?}: {e}"));
    }
}

#[test]
fn bilinear_doubling_matches_half_pixel_sampling() {
    // A 1x2 row resized to 1x4: samples at x = -0.25, 0.25, 0.75, 1.25 (clamped ends).
    let x = t64(&[0.0, 1.0], &[1, 2, 1]);
    let y = resize(&x, [1, 4], ResizeMethod::Bilinear).unwrap();
    assert_close(&values(&y), &[0.0, 0.25, 0.75, 1.0], 1e-15);
    let y = resize(&x, [1, 4], ResizeMethod::Nearest).unwrap();
    assert_close(&values(&y), &[0.0, 0.0, 1.0, 1.0], 0.0);
    let y = resize(
        &t64(&[1.0, 3.0, 5.0, 7.0], &[1, 4, 1]),
        [1, 2],
        ResizeMethod::Area,
    )
    .unwrap();
    assert_close(&values(&y), &[2.0, 6.0], 1e-7);
}

#[test]
fn bad_input_is_an_error_naming_the_op() {
    let x = pseudo_random(&[3, 4], 1);
    let e = resize(&x, [2, 2], ResizeMethod::Bilinear).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.to_string().contains("resize") && e.to_string().contains("[3, 4]"),
        "{e}"
    );
    let x = pseudo_random(&[3, 4, 1], 1);
    let e = resize(&x, [0, 2], ResizeMethod::Bilinear).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Value);
    let e = resize(
        &i32s(&[1, 2, 3, 4], &[2, 2, 1]),
        [2, 2],
        ResizeMethod::Bilinear,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    let e = ResizeMethod::parse("resize", "cubic").unwrap_err();
    assert!(e.to_string().contains("cubic"), "{e}");
    let e = resize(&pseudo_random(&[0, 4, 1], 1), [2, 2], ResizeMethod::Area).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Value);
}
