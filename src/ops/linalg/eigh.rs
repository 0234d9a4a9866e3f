//! `eigh` (Householder tridiagonalisation and implicit QL, eigenvalues ascending) with
//! TensorFlow's gradient,
//! including its Lorentz-broadened `1 / (e_j - e_i)` for (near-)repeated eigenvalues.
use std::sync::Arc;

use super::matrices::{
    check_square_float, holds_empty_matrices, keep_lower_half_diagonal, map_matrices, matrix_t,
    per_matrix_rows, tensor_of,
};
use super::{matmul, matrix_diag};
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{add, divide, expand_dims, multiply, scalar_like, square, subtract};
use crate::tape::{record_multi, Vjp};
use crate::tensor::Tensor;

/// Eigenvalues (ascending) and eigenvectors (columns, row-major `n x n`) of the symmetric
/// matrix whose lower triangle is that of `a`: Householder reduction to tridiagonal form, then
/// the implicit QL method with Wilkinson-like shifts (the EISPACK `tred2` / `tql2` pair, as
/// JAMA writes it). About 6 n^3 flops, against some 30 n^3 for cyclic Jacobi.
fn tridiagonal_eigh(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            v[i * n + j] = a[i * n + j];
            v[j * n + i] = a[i * n + j];
        }
    }
    let (mut d, mut e) = (vec![0.0; n], vec![0.0; n]);
    tridiagonalize(&mut v, &mut d, &mut e, n);
    // The QL rotations combine columns of v: they run on its transpose's contiguous rows.
    let mut vt = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            vt[j * n + i] = v[i * n + j];
        }
    }
    tridiagonal_ql(&mut vt, &mut d, &mut e, n);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| d[i].total_cmp(&d[j]));
    let values = order.iter().map(|&i| d[i]).collect();
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

/// Householder reduction of the symmetric matrix in `v` to tridiagonal form: diagonal `d`,
/// subdiagonal `e[1..]`, and `v` overwritten by the orthogonal transformation.
fn tridiagonalize(v: &mut [f64], d: &mut [f64], e: &mut [f64], n: usize) {
    for j in 0..n {
        d[j] = v[(n - 1) * n + j];
    }
    for i in (1..n).rev() {
        let scale: f64 = d[..i].iter().map(|x| x.abs()).sum();
        let mut h = 0.0;
        if scale == 0.0 {
            e[i] = d[i - 1];
            for j in 0..i {
                d[j] = v[(i - 1) * n + j];
                v[i * n + j] = 0.0;
                v[j * n + i] = 0.0;
            }
        } else {
            for x in d[..i].iter_mut() {
                *x /= scale;
                h += *x * *x;
            }
            let f = d[i - 1];
            let g = if f > 0.0 { -h.sqrt() } else { h.sqrt() };
            e[i] = scale * g;
            h -= f * g;
            d[i - 1] = f - g;
            e[..i].iter_mut().for_each(|x| *x = 0.0);
            for j in 0..i {
                let f = d[j];
                v[j * n + i] = f;
                let mut g = e[j] + v[j * n + j] * f;
                for k in j + 1..i {
                    g += v[k * n + j] * d[k];
                    e[k] += v[k * n + j] * f;
                }
                e[j] = g;
            }
            let mut f = 0.0;
            for j in 0..i {
                e[j] /= h;
                f += e[j] * d[j];
            }
            let hh = f / (h + h);
            for j in 0..i {
                e[j] -= hh * d[j];
            }
            for j in 0..i {
                let (f, g) = (d[j], e[j]);
                for k in j..i {
                    v[k * n + j] -= f * e[k] + g * d[k];
                }
                d[j] = v[(i - 1) * n + j];
                v[i * n + j] = 0.0;
            }
        }
        d[i] = h;
    }
    // Accumulate the transformations.
    for i in 0..n - 1 {
        v[(n - 1) * n + i] = v[i * n + i];
        v[i * n + i] = 1.0;
        let h = d[i + 1];
        if h != 0.0 {
            for k in 0..=i {
                d[k] = v[k * n + i + 1] / h;
            }
            for j in 0..=i {
                let mut g = 0.0;
                for k in 0..=i {
                    g += v[k * n + i + 1] * v[k * n + j];
                }
                for k in 0..=i {
                    v[k * n + j] -= g * d[k];
                }
            }
        }
        for k in 0..=i {
            v[k * n + i + 1] = 0.0;
        }
    }
    for j in 0..n {
        d[j] = v[(n - 1) * n + j];
        v[(n - 1) * n + j] = 0.0;
    }
    v[(n - 1) * n + n - 1] = 1.0;
    e[0] = 0.0;
}

/// The implicit QL method on the tridiagonal (`d`, `e[1..]`), accumulating into the rows of
/// `vt` (the transposed transformation); `d` ends as the eigenvalues (unsorted).
fn tridiagonal_ql(vt: &mut [f64], d: &mut [f64], e: &mut [f64], n: usize) {
    for i in 1..n {
        e[i - 1] = e[i];
    }
    e[n - 1] = 0.0;
    let (mut f, mut tst1) = (0.0f64, 0.0f64);
    let eps = f64::EPSILON;
    for l in 0..n {
        tst1 = tst1.max(d[l].abs() + e[l].abs());
        let mut m = l;
        while m < n - 1 && e[m].abs() > eps * tst1 {
            m += 1;
        }
        if m > l {
            // Each eigenvalue converges in a few iterations; the bound only guards against a
            // pathological input looping forever.
            for _ in 0..60 {
                let g = d[l];
                let mut p = (d[l + 1] - g) / (2.0 * e[l]);
                let mut r = p.hypot(1.0);
                if p < 0.0 {
                    r = -r;
                }
                d[l] = e[l] / (p + r);
                d[l + 1] = e[l] * (p + r);
                let dl1 = d[l + 1];
                let mut h = g - d[l];
                for x in d[l + 2..n].iter_mut() {
                    *x -= h;
                }
                f += h;
                p = d[m];
                let (mut c, mut c2, mut c3) = (1.0, 1.0, 1.0);
                let el1 = e[l + 1];
                let (mut s, mut s2) = (0.0, 0.0);
                for i in (l..m).rev() {
                    c3 = c2;
                    c2 = c;
                    s2 = s;
                    let g = c * e[i];
                    h = c * p;
                    r = p.hypot(e[i]);
                    e[i + 1] = s * r;
                    s = e[i] / r;
                    c = p / r;
                    p = c * d[i] - s * g;
                    d[i + 1] = h + s * (c * g + s * d[i]);
                    let (head, tail) = vt.split_at_mut((i + 1) * n);
                    let row_i = &mut head[i * n..];
                    for (x, y) in row_i.iter_mut().zip(tail[..n].iter_mut()) {
                        let h = *y;
                        *y = s * *x + c * h;
                        *x = c * *x - s * h;
                    }
                }
                p = -s * s2 * c3 * el1 * e[l] / dl1;
                e[l] = s * p;
                d[l] = c * p;
                if e[l].abs() <= eps * tst1 {
                    break;
                }
            }
        }
        d[l] += f;
        e[l] = 0.0;
    }
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
    let batch = &x.shape()[..x.ndim() - 2];
    let (e, v) = if holds_empty_matrices(x) {
        (
            Tensor::zeros(&[batch, &[0]].concat(), x.dtype()),
            Tensor::zeros(x.shape(), x.dtype()),
        )
    } else {
        eigh_values(op, x, n)?
    };
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

/// The kernel of [`eigh`] over every (non-empty) matrix of `x`: `(e, v)`.
fn eigh_values(op: &str, x: &Tensor, n: usize) -> Result<(Tensor, Tensor)> {
    let pairs = map_matrices(op, x, 10 * n * n * n, |i, a| {
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
        Ok(tridiagonal_eigh(a, n))
    })?;
    let batch = &x.shape()[..x.ndim() - 2];
    let (es, vs): (Vec<Vec<f64>>, Vec<Vec<f64>>) = pairs.into_iter().unzip();
    let e = tensor_of(es.concat(), &[batch, &[n]].concat(), x.dtype())?;
    let v = tensor_of(vs.concat(), x.shape(), x.dtype())?;
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
