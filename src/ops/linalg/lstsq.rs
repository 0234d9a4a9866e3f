//! `pinv` and `lstsq`, composed of rustape ops as TensorFlow composes them (so their gradients
//! are the gradients of the compositions, TensorFlow's own).
use super::cholesky::{cholesky, cholesky_solve};
use super::matrices::check_matrix;
use super::{eye, matmul, svd};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{add, divide, expand_dims, greater, multiply, reduce_max, scalar_like, where_};
use crate::tensor::Tensor;

/// The Moore-Penrose pseudo-inverse of each matrix of `a` (`[..., M, N]` to `[..., N, M]`), as
/// `tf.linalg.pinv`: from the SVD, dropping singular values at most `rcond` times the largest
/// (default `10 * max(M, N) * eps` of the dtype).
pub fn pinv(a: &Tensor, rcond: Option<f64>) -> Result<Tensor> {
    let (m, n) = check_matrix("pinv", a)?;
    let eps = match a.dtype() {
        DType::F32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    };
    let rcond = rcond.unwrap_or(10.0 * m.max(n) as f64 * eps);
    let (s, u, v) = svd(a, false)?;
    if m.min(n) == 0 {
        return matmul(&v, &u, false, true);
    }
    let cutoff = multiply(&scalar_like(rcond, &s), &reduce_max(&s, Some(&[-1]), true)?)?;
    let kept = where_(
        &greater(&s, &cutoff)?,
        &s,
        &Tensor::full(&[], s.dtype(), f64::INFINITY),
    )?;
    matmul(&divide(&v, &expand_dims(&kept, -2)?)?, &u, false, true)
}

/// Least-squares solutions `x` of `matrix @ x = rhs` (`[..., M, N]`, `[..., M, K]` to
/// `[..., N, K]`), as `tf.linalg.lstsq`. With `fast` (the default in TensorFlow) it solves the
/// regularised normal equations by Cholesky — `(A^T A + l2 I)^-1 A^T b` when `M >= N`, else
/// `A^T (A A^T + l2 I)^-1 b` — which needs full rank (else NaN, as in TensorFlow). Without
/// `fast` it returns the minimum-norm solution of any rank, `pinv(A) @ b`, ignoring
/// `l2_regularizer` as TensorFlow's kernel does; unlike TensorFlow (which has no gradient
/// there) it differentiates, through the SVD.
pub fn lstsq(matrix: &Tensor, rhs: &Tensor, l2_regularizer: f64, fast: bool) -> Result<Tensor> {
    let op = "lstsq";
    let (m, n) = check_matrix(op, matrix)?;
    check_matrix(op, rhs)?;
    crate::ops::same_dtype(op, matrix, rhs)?;
    let sb = rhs.shape();
    if sb[sb.len() - 2] != m {
        return Err(Error::shape(
            op,
            format!(
                "rhs must have shape [..., {m}, K] to match matrix of shape {}, got {}",
                fmt_shape(matrix.shape()),
                fmt_shape(sb)
            ),
        ));
    }
    if !fast {
        return matmul(&pinv(matrix, None)?, rhs, false, false);
    }
    let first_kind = m >= n;
    let gramian = matmul(matrix, matrix, first_kind, !first_kind)?;
    let gramian = if l2_regularizer != 0.0 {
        let small = if first_kind { n } else { m };
        let ridge = multiply(
            &scalar_like(l2_regularizer, &gramian),
            &eye(small, None, &[], gramian.dtype())?,
        )?;
        add(&gramian, &ridge)?
    } else {
        gramian
    };
    let chol = cholesky(&gramian)?;
    if first_kind {
        cholesky_solve(&chol, &matmul(matrix, rhs, true, false)?)
    } else {
        matmul(matrix, &cholesky_solve(&chol, rhs)?, true, false)
    }
}
