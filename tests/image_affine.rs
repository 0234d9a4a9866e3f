//! `affine_transform` and its adjoint, and `resize`'s scale-and-translate kernels: gradients
//! (first and second order against finite differences, float64), the adjoint identity,
//! vectorised Jacobians, fill modes on known points, and bad input. Values against TensorFlow
//! are in tests/python/test_augment_reference.py.
mod support;
use support::*;

use rustape::ops::{
    affine_transform, affine_transform_adjoint, multiply, reduce_sum, resize, FillMode,
    Interpolation, ResizeMethod, SamplingKernel,
};
use rustape::testing::{check_vectorized, pseudo_random};
use rustape::{ErrorKind, Tensor};

const MODES: [FillMode; 5] = [
    FillMode::Constant,
    FillMode::Nearest,
    FillMode::Wrap,
    FillMode::Mirror,
    FillMode::Reflect,
];
const INTERPOLATIONS: [Interpolation; 2] = [Interpolation::Nearest, Interpolation::Bilinear];

/// A rotation with a shear and a shift, and a projective map, per image of a batch of 2.
fn transforms() -> Tensor {
    t64(
        &[
            0.8, -0.55, 1.3, 0.6, 0.9, -0.7, 0.0, 0.0, //
            1.1, 0.2, -2.4, -0.1, 0.95, 3.1, 0.03, -0.02,
        ],
        &[2, 8],
    )
}

#[test]
fn affine_transform_gradients_every_order() {
    for interpolation in INTERPOLATIONS {
        for mode in MODES {
            let x = pseudo_random(&[2, 4, 5, 2], 7);
            let t = transforms();
            let t2 = t.clone();
            check_labelled(
                &move |v: &[Tensor]| {
                    let y = affine_transform(&v[0], &t, interpolation, mode, 0.5)?;
                    multiply(&y, &y)
                },
                std::slice::from_ref(&x),
                &format!("affine_transform {interpolation:?} {mode:?}"),
            );
            check_labelled(
                &move |v: &[Tensor]| {
                    let y = affine_transform_adjoint(&v[0], &t2, interpolation, mode)?;
                    multiply(&y, &y)
                },
                std::slice::from_ref(&x),
                &format!("affine_transform_adjoint {interpolation:?} {mode:?}"),
            );
        }
    }
}

#[test]
fn the_adjoint_is_the_transpose() {
    for interpolation in INTERPOLATIONS {
        for mode in MODES {
            let x = pseudo_random(&[2, 5, 3, 3], 1);
            let t = transforms();
            let y = affine_transform(&x, &t, interpolation, mode, 0.0).unwrap();
            let g = pseudo_random(y.shape(), 2);
            let back = affine_transform_adjoint(&g, &t, interpolation, mode).unwrap();
            let lhs = values(&reduce_sum(&multiply(&y, &g).unwrap(), None, false).unwrap());
            let rhs = values(&reduce_sum(&multiply(&x, &back).unwrap(), None, false).unwrap());
            assert_close_labelled(&lhs, &rhs, 1e-12, &format!("{interpolation:?} {mode:?}"));
        }
    }
}

#[test]
fn vectorised_jacobians_equal_row_by_row() {
    for mode in MODES {
        let x = pseudo_random(&[2, 3, 4, 2], 3);
        let t = transforms();
        check_vectorized(
            &move |v: &[Tensor]| {
                let y = affine_transform(&v[0], &t, Interpolation::Bilinear, mode, 0.25)?;
                multiply(&y, &y)
            },
            std::slice::from_ref(&x),
            1e-12,
        )
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
    }
}

#[test]
fn fill_modes_map_points_as_documented() {
    // A row [0, 1, 2, 3] read 5 pixels to the left: x_in = x - 5.
    let x = t64(&[0.0, 1.0, 2.0, 3.0], &[1, 4, 1]);
    let shift = t64(&[1.0, 0.0, -5.0, 0.0, 1.0, 0.0, 0.0, 0.0], &[8]);
    let read =
        |mode| values(&affine_transform(&x, &shift, Interpolation::Nearest, mode, 9.0).unwrap());
    // x_in = -5, -4, -3, -2
    assert_close(&read(FillMode::Constant), &[9.0; 4], 0.0);
    assert_close(&read(FillMode::Nearest), &[0.0; 4], 0.0);
    // TensorFlow's wrap shifts by whole images counted in steps of `len - 1`, then clamps
    // (its output for this row, read off TensorFlow 2.21).
    assert_close(&read(FillMode::Wrap), &[3.0, 3.0, 3.0, 2.0], 0.0);
    assert_close(&read(FillMode::Reflect), &[3.0, 3.0, 2.0, 1.0], 0.0); // dcba|abcd
    assert_close(&read(FillMode::Mirror), &[1.0, 2.0, 3.0, 2.0], 0.0); // dcb|abcd
                                                                       // A bilinear sample half a pixel outside blends with the fill value.
    let half = t64(&[1.0, 0.0, -0.5, 0.0, 1.0, 0.0, 0.0, 0.0], &[8]);
    let y = affine_transform(&x, &half, Interpolation::Bilinear, FillMode::Constant, 9.0).unwrap();
    assert_close(&values(&y), &[4.5, 0.5, 1.5, 2.5], 1e-12);
}

#[test]
fn scale_and_translate_resize_gradients_every_order() {
    let kernels = [
        SamplingKernel::Lanczos3,
        SamplingKernel::Lanczos5,
        SamplingKernel::Gaussian,
        SamplingKernel::MitchellCubic,
    ];
    for kernel in kernels {
        for antialias in [false, true] {
            for (shape, size) in [(&[3usize, 4, 2][..], [5, 3]), (&[1, 6, 5, 1][..], [3, 2])] {
                let method = ResizeMethod::ScaleAndTranslate { kernel, antialias };
                let x = pseudo_random(shape, 5);
                check_labelled(
                    &move |v: &[Tensor]| {
                        let y = resize(&v[0], size, method)?;
                        multiply(&y, &y)
                    },
                    std::slice::from_ref(&x),
                    &format!("resize {method:?} {shape:?} -> {size:?}"),
                );
            }
        }
    }
}

#[test]
fn bad_input_is_an_error_naming_the_op() {
    let t = t64(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], &[8]);
    let x = pseudo_random(&[3, 4], 1);
    let e = affine_transform(&x, &t, Interpolation::Bilinear, FillMode::Constant, 0.0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(e.to_string().contains("affine_transform") && e.to_string().contains("[3, 4]"));
    let x = pseudo_random(&[2, 3, 4, 1], 1);
    let bad = t64(&[1.0; 7], &[7]);
    let e =
        affine_transform(&x, &bad, Interpolation::Bilinear, FillMode::Constant, 0.0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(e.to_string().contains("[7]"), "{e}");
    let three = t64(&[0.0; 24], &[3, 8]);
    let e = affine_transform(&x, &three, Interpolation::Bilinear, FillMode::Wrap, 0.0).unwrap_err();
    assert!(e.to_string().contains("[3, 8]") && e.to_string().contains("[2, 3, 4, 1]"));
    let e = affine_transform(
        &i32s(&[1, 2, 3, 4], &[2, 2, 1]),
        &t,
        Interpolation::Nearest,
        FillMode::Constant,
        0.0,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
    let e = FillMode::parse("affine_transform", "edge").unwrap_err();
    assert!(e.to_string().contains("edge"), "{e}");
    let e = Interpolation::parse("affine_transform", "bicubic").unwrap_err();
    assert!(e.to_string().contains("bicubic"), "{e}");
    let e = affine_transform_adjoint(
        &pseudo_random(&[2, 0, 4, 1], 1),
        &t,
        Interpolation::Nearest,
        FillMode::Constant,
    )
    .unwrap_err();
    assert!(e.to_string().contains("affine_transform_adjoint"), "{e}");
}
