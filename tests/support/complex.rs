//! Complex helpers: tensors from (re, im) pairs, deterministic complex values, and the
//! comparison of complex results part by part.
use num_complex::Complex;
use rustape::Tensor;

use super::assert_close_labelled;

/// A complex128 tensor of `shape` from (re, im) pairs.
pub fn c128(values: &[(f64, f64)], shape: &[usize]) -> Tensor {
    let v: Vec<Complex<f64>> = values.iter().map(|&(r, i)| Complex::new(r, i)).collect();
    Tensor::from_vec(v, shape).unwrap()
}

/// A complex64 tensor of `shape` from (re, im) pairs.
pub fn c64(values: &[(f32, f32)], shape: &[usize]) -> Tensor {
    let v: Vec<Complex<f32>> = values.iter().map(|&(r, i)| Complex::new(r, i)).collect();
    Tensor::from_vec(v, shape).unwrap()
}

/// A 0-d complex128 tensor.
pub fn sc(re: f64, im: f64) -> Tensor {
    Tensor::scalar(Complex::new(re, im))
}

/// Deterministic complex128 values of `shape`, both parts in `[-scale, scale)`.
pub fn random_c128(shape: &[usize], seed: u64, scale: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        scale * (2.0 * ((state >> 11) as f64 / (1u64 << 53) as f64) - 1.0)
    };
    let values: Vec<Complex<f64>> = (0..n).map(|_| Complex::new(next(), next())).collect();
    Tensor::from_vec(values, shape).unwrap()
}

/// Deterministic complex128 values of modulus in `[0.5, 1.5)` and argument in `(-2.5, 2.5)`:
/// away from zero and from the negative real axis (the branch cut of `log`, `sqrt`, `pow`).
pub fn away_c128(shape: &[usize], seed: u64) -> Tensor {
    let raw = random_c128(shape, seed, 1.0).to_complex_vec();
    let values: Vec<Complex<f64>> = raw
        .iter()
        .map(|z| Complex::from_polar(1.0 + 0.5 * z.re, 2.5 * z.im))
        .collect();
    Tensor::from_vec(values, shape).unwrap()
}

/// Real and imaginary parts, interleaved: `[re0, im0, re1, im1, ...]`.
pub fn parts(t: &Tensor) -> Vec<f64> {
    t.to_complex_vec()
        .iter()
        .flat_map(|z| [z.re, z.im])
        .collect()
}

/// Asserts a complex tensor holds `expected` (re, im) pairs within `tol` (see
/// `assert_close`), part by part.
#[track_caller]
pub fn assert_complex(t: &Tensor, expected: &[(f64, f64)], tol: f64, what: &str) {
    assert!(
        t.dtype().is_complex(),
        "{what}: expected a complex tensor, got {}",
        t.dtype()
    );
    let want: Vec<f64> = expected.iter().flat_map(|&(r, i)| [r, i]).collect();
    assert_close_labelled(&parts(t), &want, tol, what);
}
