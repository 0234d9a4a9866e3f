//! A large GEMM split into row blocks whose right operand is transposed: the operand is laid
//! out row-major once before the blocks run; the product must equal a plain loop's.
mod support;

use rustape::ops::{cast, matmul};
use rustape::DType;
use support::assert_close;
use support::linalg::{naive_matmul, rand64};

#[test]
fn split_product_with_a_transposed_right_operand_matches_the_loop() {
    // Over 2^25 multiply-adds (split even with parked helpers); 130 columns (not a multiple of
    // the 8-column tiles) and an inner dimension of 300 (not a multiple of the 64-row blocks).
    let (sa, sb) = (vec![1000, 300], vec![130, 300]);
    let a = rand64(&sa, 5);
    let b = rand64(&sb, 6);
    let (want, shape) = naive_matmul(&a.to_f64_vec(), &sa, &b.to_f64_vec(), &sb, false, true);
    let y = matmul(&a, &b, false, true).unwrap();
    assert_eq!(y.shape(), &shape[..]);
    assert_close(&y.to_f64_vec(), &want, 1e-10);
    let (a32, b32) = (cast(&a, DType::F32).unwrap(), cast(&b, DType::F32).unwrap());
    let y = matmul(&a32, &b32, false, true).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    assert_close(&y.to_f64_vec(), &want, 1e-3);
}
