//! `det` and `slogdet` (LU factorisation with partial pivoting), with TensorFlow's gradients:
//! `det * A^-T` and `A^-T` (for the log of the absolute value; the sign has none). `det` also
//! takes complex matrices; its gradient is then the conjugate, `conj(det) * A^-H`.
use std::sync::Arc;

use num_complex::Complex;

use super::inv;
use super::matrices::{
    append_two_axes, check_square_float, holds_empty_matrices, map_matrices, matrix_t,
    per_matrix_rows, tensor_of,
};
use super::solve::{check_square, lu_factor, LuElem};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::{adjoint, conj, multiply};
use crate::tape::{record_batched, record_multi, Vjp};
use crate::tensor::Tensor;

/// The permutation's sign and the pivots of the LU factorisation of the row-major `n x n`
/// matrix `a`; `None` when singular (an exact zero pivot).
fn lu_pivots<T: LuElem>(a: &[T], n: usize) -> Option<(f64, Vec<T>)> {
    let mut lu = a.to_vec();
    let perm = lu_factor(&mut lu, n)?;
    // The permutation's parity: a cycle of even length flips the sign.
    let mut sign = 1.0;
    let mut seen = vec![false; n];
    for start in 0..n {
        let mut len = 0;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = perm[i];
            len += 1;
        }
        if len > 0 && len % 2 == 0 {
            sign = -sign;
        }
    }
    Some((sign, (0..n).map(|i| lu[i * n + i]).collect()))
}

/// The determinant of the row-major `n x n` matrix `a`: the signed product of the pivots (0
/// when singular, 1 for the empty matrix, NaN for a matrix holding NaN).
fn determinant(a: &[f64], n: usize) -> f64 {
    if a.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    match lu_pivots(a, n) {
        Some((sign, pivots)) => sign * pivots.iter().product::<f64>(),
        None => 0.0,
    }
}

/// [`determinant`] of a complex matrix (NaN when an element has a NaN part).
fn complex_determinant(a: &[Complex<f64>], n: usize) -> Complex<f64> {
    if a.iter().any(|v| v.re.is_nan() || v.im.is_nan()) {
        return Complex::new(f64::NAN, f64::NAN);
    }
    match lu_pivots(a, n) {
        Some((sign, pivots)) => pivots.iter().product::<Complex<f64>>() * sign,
        None => Complex::new(0.0, 0.0),
    }
}

/// The determinants of the complex `[..., n, n]` matrices `x`, of `x`'s dtype and shape `[...]`.
fn complex_determinants(x: &Tensor, n: usize) -> Result<Tensor> {
    let values = x.to_complex_vec();
    let batch = &x.shape()[..x.ndim() - 2];
    if n == 0 {
        // 0 x 0 matrices: determinant 1, an infallible `vec!` of a batch that may be huge.
        return Tensor::try_full("det", batch, x.dtype(), 1.0);
    }
    let dets: Vec<Complex<f64>> = {
        values
            .chunks(n * n)
            .map(|a| complex_determinant(a, n))
            .collect()
    };
    match x.dtype() {
        DType::Complex64 => Tensor::from_vec(
            dets.iter()
                .map(|d| Complex::new(d.re as f32, d.im as f32))
                .collect(),
            batch,
        ),
        _ => Tensor::from_vec(dets, batch),
    }
}

/// `(sign, log|det|)` of the row-major `n x n` matrix `a`: `(0, -inf)` when singular, `(1, 0)`
/// for the empty matrix, NaN for a matrix holding NaN.
fn sign_and_log_abs(a: &[f64], n: usize) -> (f64, f64) {
    if a.iter().any(|v| v.is_nan()) {
        return (f64::NAN, f64::NAN);
    }
    let Some((mut sign, pivots)) = lu_pivots(a, n) else {
        return (0.0, f64::NEG_INFINITY);
    };
    let mut log_abs = 0.0;
    for d in pivots {
        if d < 0.0 {
            sign = -sign;
        }
        log_abs += d.abs().ln();
    }
    (sign, log_abs)
}

/// The determinant of each matrix of `x` (`[..., M, M]`, real or complex), shape `[...]`, as
/// `tf.linalg.det`. A singular matrix has determinant 0; its gradient (`det * A^-T`) then
/// needs the inverse and raises "matrix is not invertible", as TensorFlow's does. A complex
/// matrix's gradient follows TensorFlow's convention (the conjugate derivative,
/// `conj(det) * A^-H`), where TensorFlow's own leaves `det` unconjugated.
pub fn det(x: &Tensor) -> Result<Tensor> {
    let op = "det";
    let y = if x.dtype().is_complex() {
        let n = check_square(op, x)?;
        complex_determinants(x, n)?
    } else {
        let n = check_square_float(op, x)?;
        let batch = &x.shape()[..x.ndim() - 2];
        if holds_empty_matrices(x) {
            // The determinant of a 0 x 0 matrix is 1: one element per matrix, and nothing else.
            Tensor::try_full(op, batch, x.dtype(), 1.0)?
        } else {
            let values = map_matrices("det", x, n * n * n, |_, a| Ok(determinant(a, n)))?;
            tensor_of(values, batch, x.dtype())?
        }
    };
    let rows = per_matrix_rows(0, x.ndim());
    record_batched(op, &[x], &y, &[x, &y], rows, true, |s, dy, _batch| {
        let (a, d) = (&s[0], &s[1]);
        if d.dtype().is_complex() {
            let scale = append_two_axes(&multiply(dy, &conj(d)?)?)?;
            return Ok(crate::grads![Some(multiply(&scale, &adjoint(&inv(a)?)?)?)]);
        }
        let scale = append_two_axes(&multiply(dy, d)?)?;
        Ok(crate::grads![Some(multiply(&scale, &matrix_t(&inv(a)?)?)?)])
    });
    Ok(y)
}

/// `(sign, log|det|)` of each matrix of `x` (`[..., M, M]`), both of shape `[...]`, as
/// `tf.linalg.slogdet`: a singular matrix gives `(0, -inf)`. Only `log|det|` has a gradient
/// (`A^-T`); the sign is piecewise constant.
pub fn slogdet(x: &Tensor) -> Result<(Tensor, Tensor)> {
    let op = "slogdet";
    let n = check_square_float(op, x)?;
    let batch = &x.shape()[..x.ndim() - 2];
    let (sign, log_abs) = if holds_empty_matrices(x) {
        // A 0 x 0 matrix: determinant 1, sign 1 and log 0.
        (
            Tensor::try_full(op, batch, x.dtype(), 1.0)?,
            Tensor::try_full(op, batch, x.dtype(), 0.0)?,
        )
    } else {
        let pairs = map_matrices("slogdet", x, n * n * n, |_, a| Ok(sign_and_log_abs(a, n)))?;
        let (signs, logs): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
        (
            tensor_of(signs, batch, x.dtype())?,
            tensor_of(logs, batch, x.dtype())?,
        )
    };
    let vjp: Arc<Vjp> = Arc::new(|s: &[Tensor], grads: &[Option<Tensor>], _batch: usize| {
        let Some(Some(g)) = grads.get(1) else {
            return Ok(crate::grads![None]);
        };
        let a = &s[0];
        Ok(crate::grads![Some(multiply(
            &append_two_axes(g)?,
            &matrix_t(&inv(a)?)?
        )?)])
    });
    let rows = per_matrix_rows(0, x.ndim());
    record_multi(op, &[x], &[&sign, &log_abs], &[x], rows, true, vjp);
    Ok((sign, log_abs))
}
