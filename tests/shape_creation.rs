//! Creation ops: fill, zeros_like, ones_like, linspace, range, one_hot. Values written out by
//! hand (NumPy / TensorFlow semantics) and the errors.
use rustape::ops::{fill, linspace, one_hot, ones_like, range, zeros_like};
use rustape::{DType, ErrorKind, Tensor};

mod support;
use support::shape::*;
use support::*;

// ---------------------------------------------------------------- creation

#[test]
fn fill_zeros_like_ones_like() {
    let t = fill(&[2, 3], 2.5, DType::F32).unwrap();
    assert_eq!(t.dtype(), DType::F32);
    assert_tensor(&t, &[2, 3], &[2.5; 6]);
    assert_tensor(&fill(&[2], 3.9, DType::I32).unwrap(), &[2], &[3., 3.]);
    let z = zeros_like(&t);
    assert_eq!(z.dtype(), DType::F32);
    assert_tensor(&z, &[2, 3], &[0.; 6]);
    assert_tensor(&ones_like(&i32s(&[4, 5], &[2])), &[2], &[1., 1.]);
    assert_eq!(
        rustape::ops::zeros(&[0, 2], DType::I64).unwrap().shape(),
        &[0, 2]
    );
    assert_tensor(&rustape::ops::ones(&[], DType::F64).unwrap(), &[], &[1.]);
}

#[test]
fn linspace_values() {
    for (y, shape, expected) in [
        (
            linspace(0.0, 1.0, 5, DType::F64).unwrap(),
            &[5],
            [0., 0.25, 0.5, 0.75, 1.].as_slice(),
        ),
        (
            linspace(10.0, 14.0, 3, DType::F32).unwrap(),
            &[3],
            [10., 12., 14.].as_slice(),
        ),
        (
            linspace(1.0, -1.0, 3, DType::F64).unwrap(),
            &[3],
            [1., 0., -1.].as_slice(),
        ),
    ] {
        assert_eq!(y.shape(), shape);
        assert_close(&values(&y), expected, 1e-12);
    }
    assert_tensor(&linspace(3.0, 7.0, 1, DType::F64).unwrap(), &[1], &[3.]);
    assert_tensor(&linspace(3.0, 7.0, 0, DType::F64).unwrap(), &[0], &[]);
    let t = linspace(0.0, 0.3, 7, DType::F64).unwrap();
    assert_eq!(t.to_f64_vec()[6], 0.3, "the last point is stop exactly");
    assert_err(
        linspace(0.0, 1.0, 3, DType::I32),
        ErrorKind::DType,
        "linspace",
        &["int32"],
    );
}

#[test]
fn range_values() {
    assert_tensor(
        &range(3.0, 18.0, 3.0, DType::I32).unwrap(),
        &[5],
        &[3., 6., 9., 12., 15.],
    );
    assert_tensor(
        &range(0.0, 5.0, 1.0, DType::I64).unwrap(),
        &[5],
        &[0., 1., 2., 3., 4.],
    );
    assert_tensor(
        &range(10.0, 0.0, -3.0, DType::I32).unwrap(),
        &[4],
        &[10., 7., 4., 1.],
    );
    assert_tensor(
        &range(0.0, 1.0, 0.25, DType::F64).unwrap(),
        &[4],
        &[0., 0.25, 0.5, 0.75],
    );
    assert_tensor(
        &range(0.0, 1.1, 0.5, DType::F32).unwrap(),
        &[3],
        &[0., 0.5, 1.0],
    );
    assert_tensor(&range(3.0, 3.0, 1.0, DType::F32).unwrap(), &[0], &[]);
    assert_eq!(
        range(0.0, 3.0, 1.0, DType::F32).unwrap().dtype(),
        DType::F32
    );
    assert_err(
        range(0.0, 5.0, 0.0, DType::F32),
        ErrorKind::Value,
        "range",
        &["delta != 0"],
    );
    assert_err(
        range(0.0, 5.0, 0.5, DType::I32),
        ErrorKind::Value,
        "range",
        &["delta != 0"],
    );
    assert_err(
        range(5.0, 2.0, 1.0, DType::I32),
        ErrorKind::Value,
        "range",
        &["start <= limit", "5", "2"],
    );
    assert_err(
        range(2.0, 5.0, -1.0, DType::F64),
        ErrorKind::Value,
        "range",
        &["start >= limit"],
    );
    assert_err(
        range(0.0, 2.0, 1.0, DType::Bool),
        ErrorKind::DType,
        "range",
        &["bool"],
    );
}

#[test]
fn one_hot_values() {
    let y = one_hot(&i32s(&[0, 2, -1, 1, 3], &[5]), 3, DType::F32).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    #[rustfmt::skip]
    let expected = [
        1., 0., 0.,
        0., 0., 1.,
        0., 0., 0.,
        0., 1., 0.,
        0., 0., 0.,
    ];
    assert_tensor(&y, &[5, 3], &expected);
    let idx = Tensor::from_vec(vec![1i64, 0, 0, 1], &[2, 2]).unwrap();
    assert_tensor(
        &one_hot(&idx, 2, DType::I32).unwrap(),
        &[2, 2, 2],
        &[0., 1., 1., 0., 1., 0., 0., 1.],
    );
    assert_err(
        one_hot(&t64(&[1.], &[1]), 2, DType::F32),
        ErrorKind::DType,
        "one_hot",
        &["float64"],
    );
}
