//! `eigh` (cyclic Jacobi rotations, eigenvalues ascending) with TensorFlow's gradient,
//! including its Lorentz-broadened `1 / (e_j - e_i)` for (near-)repeated eigenvalues.
use std::sync::Arc;

use super::matrices::{
    check_square_float, keep_lower_half_diagonal, map_matrices, matrix_t, per_matrix_rows,
    tensor_of,
};
use super::{matmul, matrix_diag};
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{add, divide, expand_dims, multiply, scalar_like, square, subtract};
use crate::tape::{record_multi, Vjp};
use crate::tensor::Tensor;

/// Sweeps of Jacobi rotations before giving up (convergence is quadratic: ~10 suffice).
const MAX_SWEEPS: usize = 100;

/// Eigenvalues (ascending) and eigenvectors (columns, row-major `n x n`) of the symmetric
/// matrix whose lower triangle is that of `a`.
///
/// Each rotation rewrites rows `p` and `q` (contiguous) and mirrors them into the columns;
/// the eigenvectors accumulate as rows of `vt`, so their rotation is contiguous too.
fn jacobi_eigh(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut w = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            w[i * n + j] = a[i * n + j];
            w[j * n + i] = a[i * n + j];
        }
    }
    let mut vt = vec![0.0; n * n];
    for i in 0..n {
        vt[i * n + i] = 1.0;
    }
    let scale: f64 = w.iter().map(|x| x * x).sum::<f64>().sqrt();
    for _ in 0..MAX_SWEEPS {
        let off: f64 = (0..n)
            .map(|p| {
                w[p * n + p + 1..(p + 1) * n]
                    .iter()
                    .map(|x| x * x)
                    .sum::<f64>()
            })
            .sum();
        if off.sqrt() <= f64::EPSILON * 1e-3 * scale || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = w[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (w[q * n + q] - w[p * n + p]) / (2.0 * apq);
                let t = if theta.abs() > 1e150 {
                    0.5 / theta
                } else {
                    theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
                };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // J^T A J with J the rotation in the (p, q) plane: rows p and q, then the
                // diagonal pair, then the mirror image into columns p and q.
                let (app, aqq) = (w[p * n + p], w[q * n + q]);
                let (head, tail) = w.split_at_mut(q * n);
                let row_p = &mut head[p * n..(p + 1) * n];
                let row_q = &mut tail[..n];
                for (x, y) in row_p.iter_mut().zip(row_q.iter_mut()) {
                    let (pk, qk) = (*x, *y);
                    *x = c * pk - s * qk;
                    *y = s * pk + c * qk;
                }
                w[p * n + p] = app - t * apq;
                w[q * n + q] = aqq + t * apq;
                w[p * n + q] = 0.0;
                w[q * n + p] = 0.0;
                for k in 0..n {
                    if k != p && k != q {
                        w[k * n + p] = w[p * n + k];
                        w[k * n + q] = w[q * n + k];
                    }
                }
                let (head, tail) = vt.split_at_mut(q * n);
                let vp = &mut head[p * n..(p + 1) * n];
                let vq = &mut tail[..n];
                for (x, y) in vp.iter_mut().zip(vq.iter_mut()) {
                    let (a, b) = (*x, *y);
                    *x = c * a - s * b;
                    *y = s * a + c * b;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| w[i * n + i].total_cmp(&w[j * n + j]));
    let values = order.iter().map(|&i| w[i * n + i]).collect();
    let mut vectors = vec![0.0; n * n];
    for (to, &from) in order.iter().enumerate() {
        let vector = &vt[from * n..(from + 1) * n];
        let sign = vector_sign(vector);
        for (k, x) in vector.iter().enumerate() {
            vectors[k * n + to] = sign * x;
        }
    }
    (values, vectors)
}

/// The sign that makes the entry of largest magnitude of `vector` positive (the first such
/// entry, counting entries within rounding of the largest as equal): rustape's convention for
/// eigenvectors and singular vectors, which are otherwise defined up to sign.
pub(super) fn vector_sign(vector: &[f64]) -> f64 {
    let largest = vector.iter().map(|x| x.abs()).fold(0.0, f64::max);
    match vector.iter().find(|x| x.abs() >= largest * (1.0 - 1e-9)) {
        Some(&x) if x < 0.0 => -1.0,
        _ => 1.0,
    }
}

/// [`vector_sign`] of column `col` of the row-major `rows x cols` matrix `v`.
pub(super) fn column_sign(v: &[f64], rows: usize, cols: usize, col: usize) -> f64 {
    let column: Vec<f64> = (0..rows).map(|k| v[k * cols + col]).collect();
    vector_sign(&column)
}

/// The eigen decomposition of each symmetric matrix of `x` (`[..., M, M]`; only the lower
/// triangle is read), as `tf.linalg.eigh`: `(e, v)`, eigenvalues `[..., M]` ascending and
/// eigenvectors as the columns of `v` `[..., M, M]`. Each eigenvector's entry of largest
/// magnitude is positive (TensorFlow leaves the sign to its solver). A matrix holding NaN or
/// inf is a ValueError, as in TensorFlow.
///
/// The gradient is TensorFlow's: `v (diag(de) + F ∘ (v^T dv)) v^T` with
/// `F_ij = (e_j - e_i) / ((e_j - e_i)^2 + 1e-20)` (finite for repeated eigenvalues), then
/// symmetrised onto the lower triangle.
pub fn eigh(x: &Tensor) -> Result<(Tensor, Tensor)> {
    let op = "eigh";
    let n = check_square_float(op, x)?;
    let pairs = map_matrices(x, 10 * n * n * n, |i, a| {
        if a.iter().any(|v| !v.is_finite()) {
            return Err(Error::value(
                op,
                format!(
                    "self-adjoint eigen decomposition was not successful: matrix {i} of the batch \
                     of shape {} holds NaN or inf",
                    fmt_shape(x.shape())
                ),
            ));
        }
        Ok(jacobi_eigh(a, n))
    })?;
    let batch = &x.shape()[..x.ndim() - 2];
    let (es, vs): (Vec<Vec<f64>>, Vec<Vec<f64>>) = pairs.into_iter().unzip();
    let e = tensor_of(es.concat(), &[batch, &[n]].concat(), x.dtype())?;
    let v = tensor_of(vs.concat(), x.shape(), x.dtype())?;
    let vjp: Arc<Vjp> = Arc::new(|s: &[Tensor], grads: &[Option<Tensor>], batch: usize| {
        let (e, v) = (&s[0], &s[1]);
        let lead = grads
            .iter()
            .flatten()
            .next()
            .map(|g| g.shape()[..batch].to_vec())
            .unwrap_or_default();
        let mut inner = match &grads[0] {
            Some(ge) => matrix_diag(ge, 0, None, None, 0.0)?,
            None => Tensor::zeros(&[lead.as_slice(), v.shape()].concat(), v.dtype()),
        };
        if let Some(gv) = &grads[1] {
            let f = off_diagonal_reciprocal_gaps(e)?;
            inner = add(&inner, &multiply(&f, &matmul(v, gv, true, false)?)?)?;
        }
        let g = matmul(v, &matmul(&inner, v, false, true)?, false, false)?;
        Ok(crate::grads![Some(keep_lower_half_diagonal(&add(
            &g,
            &matrix_t(&g)?
        )?)?)])
    });
    let rows = per_matrix_rows(0, x.ndim());
    record_multi(op, &[x], &[&e, &v], &[&e, &v], rows, true, vjp);
    Ok((e, v))
}

/// The eigenvalues of each symmetric matrix of `x` (ascending), as `tf.linalg.eigvalsh`.
pub fn eigvalsh(x: &Tensor) -> Result<Tensor> {
    Ok(eigh(x)?.0)
}

/// TensorFlow's `_SafeReciprocal(x) = x / (x^2 + epsilon)` (a Lorentz broadening: finite where
/// `x` is zero or tiny, `1 / x` elsewhere).
pub(super) fn safe_reciprocal(x: &Tensor) -> Result<Tensor> {
    divide(x, &add(&square(x)?, &scalar_like(1e-20, x))?)
}

/// `F_ij = safe_reciprocal(values_j - values_i)` off the diagonal, 0 on it, for `values`
/// `[..., n]` (TensorFlow's `f` of the eigh and svd gradients).
pub(super) fn off_diagonal_reciprocal_gaps(values: &Tensor) -> Result<Tensor> {
    let gaps = subtract(&expand_dims(values, -2)?, &expand_dims(values, -1)?)?;
    let n = values.shape()[values.ndim() - 1];
    let off_diagonal: Vec<f64> = (0..n * n)
        .map(|i| if i / n == i % n { 0.0 } else { 1.0 })
        .collect();
    multiply(
        &safe_reciprocal(&gaps)?,
        &tensor_of(off_diagonal, &[n, n], values.dtype())?,
    )
}
