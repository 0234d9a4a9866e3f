//! Helpers of the convolution, pooling and layer-op test files (tests/nn_*.rs): signed
//! pseudo-random inputs, an inner product, and the check every nn op gets (gradcheck of both
//! orders plus the vectorised Jacobian against the row-by-row one).
use super::check_labelled;
use rustape::ops::{multiply, reduce_sum};
use rustape::testing::{check_vectorized, pseudo_random, Function};
use rustape::Tensor;

/// Deterministic float64 values in `[-scale / 2, scale / 2)` of `shape`.
pub fn signed(shape: &[usize], seed: u64, scale: f64) -> Tensor {
    let v: Vec<f64> = pseudo_random(shape, seed)
        .to_f64_vec()
        .iter()
        .map(|v| scale * (v - 1.0))
        .collect();
    Tensor::from_vec(v, shape).unwrap()
}

/// `sum(a * b)`.
pub fn dot(a: &Tensor, b: &Tensor) -> f64 {
    reduce_sum(&multiply(a, b).unwrap(), None, false)
        .unwrap()
        .item()
        .unwrap()
}

/// Gradcheck (first and second order) and the vectorised Jacobian (to 1e-12) of `f`.
#[track_caller]
pub fn check_nn(f: Function, inputs: &[Tensor], what: &str) {
    check_labelled(f, inputs, what);
    if let Err(e) = check_vectorized(f, inputs, 1e-12) {
        panic!("vectorised Jacobian of {what} failed: {e}");
    }
}
