//! solve, solve_adjoint and inv: values (pivoting, adjoint, batch broadcasting), singular
//! matrices, shape and dtype errors, and gradients (first and second order).
mod support;

use rustape::ops::{self, eye, inv, matmul, solve, solve_adjoint};
use rustape::{DType, ErrorKind, Tensor};
use support::linalg::{rand64, well_conditioned};
use support::{assert_close, check, t64};

#[test]
fn solve_and_inv_values() {
    let a = t64(&[2.0, 1.0, 1.0, 3.0], &[2, 2]);
    let b = t64(&[3.0, 5.0], &[2, 1]);
    let x = solve(&a, &b).unwrap();
    assert_close(&x.to_f64_vec(), &[0.8, 1.4], 1e-12);
    // A matrix that needs pivoting (zero in the top-left corner).
    let p = t64(&[0.0, 1.0, 2.0, 1.0, 0.0, 3.0, 4.0, -3.0, 8.0], &[3, 3]);
    let rhs = rand64(&[3, 2], 7);
    let x = solve(&p, &rhs).unwrap();
    let back = matmul(&p, &x, false, false).unwrap();
    assert_close(&back.to_f64_vec(), &rhs.to_f64_vec(), 1e-12);
    let xt = solve_adjoint(&p, &rhs, true).unwrap();
    let back = matmul(&p, &xt, true, false).unwrap();
    assert_close(&back.to_f64_vec(), &rhs.to_f64_vec(), 1e-12);
    // Batched with broadcasting: one matrix for three right-hand sides.
    let m = well_conditioned(&[], 4, 3);
    let r = rand64(&[3, 4, 2], 4);
    let x = solve(&m, &r).unwrap();
    assert_eq!(x.shape(), &[3, 4, 2]);
    assert_close(
        &matmul(&m, &x, false, false).unwrap().to_f64_vec(),
        &r.to_f64_vec(),
        1e-12,
    );
    // inv
    let batch = well_conditioned(&[2], 3, 5);
    let i = inv(&batch).unwrap();
    let id = matmul(&batch, &i, false, false).unwrap();
    assert_close(
        &id.to_f64_vec(),
        &eye(3, None, &[2], DType::F64).unwrap().to_f64_vec(),
        1e-12,
    );
    let i32_ = inv(&ops::cast(&a, DType::F32).unwrap()).unwrap();
    assert_eq!(i32_.dtype(), DType::F32);
    assert_close(&i32_.to_f64_vec(), &[0.6, -0.2, -0.2, 0.4], 1e-6);
}

#[test]
fn solve_and_inv_of_a_singular_matrix_error() {
    let s = t64(&[1.0, 2.0, 2.0, 4.0], &[2, 2]);
    let e = solve(&s, &t64(&[1.0, 1.0], &[2, 1])).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "solve"));
    assert!(
        e.message.contains("matrix is not invertible"),
        "{}",
        e.message
    );
    let e = inv(&s).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Value, "inv"));
    assert!(
        e.message.contains("matrix is not invertible"),
        "{}",
        e.message
    );
    // Singular only in the second batch element.
    let batch = ops::stack(&[eye(2, None, &[], DType::F64).unwrap(), s.clone()], 0).unwrap();
    let e = inv(&batch).unwrap_err();
    assert!(e.message.contains("matrix 1"), "{}", e.message);
    assert_eq!(
        inv(&Tensor::zeros(&[3, 3], DType::F32)).unwrap_err().kind,
        ErrorKind::Value
    );
}

#[test]
fn solve_and_inv_shape_errors_name_the_op_and_shapes() {
    let e = solve(&rand64(&[2, 3], 1), &rand64(&[2, 1], 2)).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "solve"));
    assert!(e.message.contains("[2, 3]"), "{}", e.message);
    let e = solve(&rand64(&[3, 3], 1), &rand64(&[2, 1], 2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[3, 3]") && e.message.contains("[2, 1]"),
        "{}",
        e.message
    );
    let e = solve(&rand64(&[2, 3, 3], 1), &rand64(&[4, 3, 1], 2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Shape);
    assert!(
        e.message.contains("[2, 3, 3]") && e.message.contains("[4, 3, 1]"),
        "{}",
        e.message
    );
    let e = inv(&rand64(&[3], 1)).unwrap_err();
    assert_eq!((e.kind, e.op.as_str()), (ErrorKind::Shape, "inv"));
    let e = solve(
        &Tensor::ones(&[2, 2], DType::I32),
        &Tensor::ones(&[2, 1], DType::I32),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DType);
}

#[test]
fn solve_and_inv_gradients_first_and_second_order() {
    check(
        &|xs: &[Tensor]| solve(&xs[0], &xs[1]),
        &[well_conditioned(&[], 3, 1), rand64(&[3, 2], 2)],
    );
    check(
        &|xs: &[Tensor]| solve(&xs[0], &xs[1]),
        &[well_conditioned(&[2], 3, 3), rand64(&[3, 1], 4)],
    );
    check(
        &|xs: &[Tensor]| solve_adjoint(&xs[0], &xs[1], true),
        &[well_conditioned(&[], 3, 5), rand64(&[2, 3, 2], 6)],
    );
    check(&|xs: &[Tensor]| inv(&xs[0]), &[well_conditioned(&[], 3, 7)]);
    check(
        &|xs: &[Tensor]| inv(&xs[0]),
        &[well_conditioned(&[2], 2, 8)],
    );
}
