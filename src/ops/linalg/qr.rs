//! `qr`: Householder QR with TensorFlow's (Eigen's, LAPACK's) sign convention, and
//! TensorFlow's gradient (arXiv:2009.10071: deep and square matrices, wide ones by
//! partitioning).
use std::sync::Arc;

use super::matrices::{
    check_matrix, holds_empty_matrices, map_matrices, matrix_t, per_matrix_rows, tensor_of,
};
use super::{band_part, eye, matmul, triangular_solve};
use crate::error::{Error, Result};
use crate::ops::{add, concat, slice_axis, subtract};
use crate::tape::{record_multi, Vjp};
use crate::tensor::Tensor;

/// `(q, r)` of the row-major `m x n` matrix `a`: `q` is `m x q_cols`, `r` is `q_cols x n`
/// (`q_cols` = `min(m, n)`, or `m` for full matrices). Each reflector `I - tau v v^T` is
/// chosen as Eigen's `makeHouseholder` does (so the signs match TensorFlow's): `beta` opposite
/// in sign to the pivot, and no reflection at all when the column below the pivot is zero.
fn qr_kernel(a: &[f64], m: usize, n: usize, full: bool) -> (Vec<f64>, Vec<f64>) {
    let k = m.min(n);
    // Reflections act on columns: keep them as the contiguous rows of `wt` (`n x m`).
    let mut wt = vec![0.0; n * m];
    for i in 0..m {
        for j in 0..n {
            wt[j * m + i] = a[i * n + j];
        }
    }
    // `I - tau v v^T` applied to `x` (the part of a column from row `j` on; `v[0]` is 1).
    let reflect = |x: &mut [f64], v: &[f64], tau: f64| {
        let dot: f64 = x.iter().zip(v).map(|(a, b)| a * b).sum();
        let scale = tau * dot;
        for (a, b) in x.iter_mut().zip(v) {
            *a -= scale * b;
        }
    };
    let mut reflectors: Vec<(Vec<f64>, f64)> = Vec::with_capacity(k);
    for j in 0..k {
        let column = &wt[j * m + j..(j + 1) * m];
        let c0 = column[0];
        let tail: f64 = column[1..].iter().map(|x| x * x).sum();
        let mut v = vec![0.0; m - j];
        v[0] = 1.0;
        let (beta, tau) = if tail <= f64::MIN_POSITIVE {
            (c0, 0.0)
        } else {
            let mut beta = (c0 * c0 + tail).sqrt();
            if c0 >= 0.0 {
                beta = -beta;
            }
            for (vi, x) in v[1..].iter_mut().zip(&column[1..]) {
                *vi = x / (c0 - beta);
            }
            (beta, (beta - c0) / beta)
        };
        if tau != 0.0 {
            for col in j + 1..n {
                reflect(&mut wt[col * m + j..(col + 1) * m], &v, tau);
            }
        }
        wt[j * m + j] = beta;
        wt[j * m + j + 1..(j + 1) * m]
            .iter_mut()
            .for_each(|x| *x = 0.0);
        reflectors.push((v, tau));
    }
    let q_cols = if full { m } else { k };
    let mut r = vec![0.0; q_cols * n];
    for i in 0..q_cols.min(m) {
        for c in i..n {
            r[i * n + c] = wt[c * m + i];
        }
    }
    // Q = H_0 H_1 ... H_{k-1} applied to the first `q_cols` columns of the identity, each
    // column kept as a contiguous row of `qt`.
    let mut qt = vec![0.0; q_cols * m];
    for i in 0..q_cols.min(m) {
        qt[i * m + i] = 1.0;
    }
    for (j, (v, tau)) in reflectors.iter().enumerate().rev() {
        if *tau == 0.0 {
            continue;
        }
        for col in 0..q_cols {
            reflect(&mut qt[col * m + j..(col + 1) * m], v, *tau);
        }
    }
    let mut q = vec![0.0; m * q_cols];
    for col in 0..q_cols {
        for i in 0..m {
            q[i * q_cols + col] = qt[col * m + i];
        }
    }
    (q, r)
}

/// The QR decomposition of each matrix of `x` (`[..., M, N]`), as `tf.linalg.qr`: `(q, r)`
/// with `q` orthonormal columns `[..., M, K]` and `r` upper triangular `[..., K, N]`, where
/// `K = min(M, N)`, or `K = M` with `full_matrices`. Signs follow TensorFlow (Householder
/// reflections with `r`'s diagonal opposite in sign to each pivot column's leading entry).
///
/// The gradient is TensorFlow's; like TensorFlow it is not defined for `full_matrices` with
/// `M > N` (asking for it raises).
pub fn qr(x: &Tensor, full_matrices: bool) -> Result<(Tensor, Tensor)> {
    let op = "qr";
    let (m, n) = check_matrix(op, x)?;
    let q_cols = if full_matrices { m } else { m.min(n) };
    let batch = &x.shape()[..x.ndim() - 2];
    let shape = |r: usize, c: usize| [batch, &[r, c]].concat();
    let (q, r) = if holds_empty_matrices(x) {
        // `r` is empty; `q` is an identity (what the kernel gives) or empty.
        (
            eye(m, Some(q_cols), batch, x.dtype())?,
            Tensor::zeros(&shape(q_cols, n), x.dtype()),
        )
    } else {
        let pairs = map_matrices("qr", x, 2 * m * n * n, |_, a| {
            Ok(qr_kernel(a, m, n, full_matrices))
        })?;
        let (qs, rs): (Vec<Vec<f64>>, Vec<Vec<f64>>) = pairs.into_iter().unzip();
        (
            tensor_of(qs.concat(), &shape(m, q_cols), x.dtype())?,
            tensor_of(rs.concat(), &shape(q_cols, n), x.dtype())?,
        )
    };
    let vjp: Arc<Vjp> = Arc::new(
        move |s: &[Tensor], grads: &[Option<Tensor>], batch: usize| {
            let (a, q, r) = (&s[0], &s[1], &s[2]);
            if full_matrices && m > n {
                return Err(Error::value(
                    "qr",
                    format!(
                    "the gradient of qr is not defined for full_matrices=True when rows ({m}) > \
                     columns ({n}), as in TensorFlow; use full_matrices=False"
                ),
                ));
            }
            let lead = grads
                .iter()
                .flatten()
                .next()
                .map(|g| g.shape()[..batch].to_vec())
                .unwrap_or_default();
            let or_zeros = |g: &Option<Tensor>, like: &Tensor| -> Tensor {
                g.clone().unwrap_or_else(|| {
                    Tensor::zeros(&[lead.as_slice(), like.shape()].concat(), like.dtype())
                })
            };
            let dq = or_zeros(&grads[0], q);
            let dr = or_zeros(&grads[1], r);
            let grad = if m >= n {
                deep_gradient(q, r, &dq, &dr)?
            } else {
                // Partition a = [x, y], r = [u, v] and reduce to the square case.
                let last = |t: &Tensor| t.ndim() - 1;
                let y = slice_axis(a, last(a), m, n)?;
                let u = slice_axis(r, last(r), 0, m)?;
                let dv = slice_axis(&dr, last(&dr), m, n)?;
                let du = slice_axis(&dr, last(&dr), 0, m)?;
                let dy = matmul(q, &dv, false, false)?;
                let dx = deep_gradient(q, &u, &add(&dq, &matmul(&y, &dv, false, true)?)?, &du)?;
                concat(&[dx, dy], -1)?
            };
            Ok(crate::grads![Some(grad)])
        },
    );
    let rows = per_matrix_rows(0, x.ndim());
    record_multi(op, &[x], &[&q, &r], &[x, &q, &r], rows, true, vjp);
    Ok((q, r))
}

/// `x @ r^-T` for upper triangular `r`, by a triangular solve.
fn times_inverse_transpose(x: &Tensor, r: &Tensor) -> Result<Tensor> {
    matrix_t(&triangular_solve(r, &matrix_t(x)?, false, false)?)
}

/// TensorFlow's QR gradient for `M >= N` without full matrices.
fn deep_gradient(q: &Tensor, r: &Tensor, dq: &Tensor, dr: &Tensor) -> Result<Tensor> {
    let qdq = matmul(q, dq, true, false)?;
    let qdq_skew = subtract(&qdq, &matrix_t(&qdq)?)?;
    let rdr = matmul(r, dr, false, true)?;
    let rdr_skew = subtract(&rdr, &matrix_t(&rdr)?)?;
    let tril = band_part(&add(&qdq_skew, &rdr_skew)?, -1, 0)?;
    let grad_a = matmul(
        q,
        &add(dr, &times_inverse_transpose(&tril, r)?)?,
        false,
        false,
    )?;
    let grad_b = times_inverse_transpose(&subtract(dq, &matmul(q, &qdq, false, false)?)?, r)?;
    add(&grad_a, &grad_b)
}
