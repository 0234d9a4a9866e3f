//! `lu`: TensorFlow's packed factors and permutation (values from
//! tests/reference/gen_linalg_more.py's tie case, checked by hand), singular input, dtypes.
mod support;
use support::*;

use rustape::dtype::DType;
use rustape::ops;

#[test]
fn lu_packs_the_factors_and_takes_the_first_of_tied_pivots() {
    // Column 0 has |1| three times: the first row stays (Eigen's maxCoeff keeps the first).
    let x = t64(&[1.0, 2.0, 3.0, -1.0, 5.0, 6.0, 1.0, 0.0, 2.0], &[3, 3]);
    let (lu, p) = ops::lu(&x, DType::I32).unwrap();
    assert_eq!(p.to_f64_vec(), vec![0.0, 1.0, 2.0]);
    let expected = [
        1.0,
        2.0,
        3.0,
        -1.0,
        7.0,
        9.0,
        1.0,
        -2.0 / 7.0,
        -1.0 + 18.0 / 7.0,
    ];
    assert_close(&lu.to_f64_vec(), &expected, 1e-14);
}

#[test]
fn lu_pivots_rows_and_batches() {
    let x = t64(&[2.0, 4.0, 4.0, 2.0, 1.0, 0.0, 0.0, 1.0], &[2, 2, 2]);
    let (lu, p) = ops::lu(&x, DType::I64).unwrap();
    assert_eq!(p.dtype(), DType::I64);
    assert_eq!(p.to_f64_vec(), vec![1.0, 0.0, 0.0, 1.0]);
    assert_close(
        &lu.to_f64_vec(),
        &[4.0, 2.0, 0.5, 3.0, 1.0, 0.0, 0.0, 1.0],
        0.0,
    );
}

#[test]
fn lu_refuses_singular_matrices_and_bad_input() {
    let singular = t64(&[1.0, 2.0, 2.0, 4.0], &[2, 2]);
    let err = ops::lu(&singular, DType::I32).unwrap_err().to_string();
    assert!(err.contains("not invertible"), "{err}");
    assert!(ops::lu(&t64(&[1.0, 2.0], &[1, 2]), DType::I32).is_err());
    assert!(ops::lu(&i32s(&[1, 0, 0, 1], &[2, 2]), DType::I32).is_err());
    assert!(ops::lu(&t64(&[1.0], &[1, 1]), DType::F32).is_err());
}
