//! `svd` (one-sided Jacobi rotations, singular values descending) with TensorFlow's gradient.
use std::sync::Arc;

use super::eigh::{column_sign, off_diagonal_reciprocal_gaps, safe_reciprocal};
use super::matrices::{
    check_matrix, holds_empty_matrices, map_matrices, matrix_t, per_matrix_rows, tensor_of,
};
use super::{eye, matmul, matrix_diag};
use crate::error::{Error, Result};
use crate::ops::{add, multiply, slice_axis, square, subtract};
use crate::tape::{record_batched, record_multi, Vjp};
use crate::tensor::Tensor;

/// Sweeps of rotations before giving up (convergence is quadratic: ~10 suffice).
const MAX_SWEEPS: usize = 100;

/// One matrix's decomposition, row-major: `s` (`k`), `u` (`m x u_cols`), `v` (`n x v_cols`).
struct Svd {
    s: Vec<f64>,
    u: Vec<f64>,
    v: Vec<f64>,
}

/// Orthonormal columns: `cols` (row-major `rows x cols`, the first `known` of them orthonormal
/// already) with each later column replaced by a unit vector orthogonal to all before it (the
/// standard basis vector with the largest residual, orthogonalised twice).
fn complete_columns(q: &mut [f64], rows: usize, cols: usize, known: usize) {
    for j in known..cols {
        let mut best: Option<(f64, Vec<f64>)> = None;
        for e in 0..rows {
            let mut x = vec![0.0; rows];
            x[e] = 1.0;
            for _ in 0..2 {
                for c in 0..j {
                    let dot: f64 = (0..rows).map(|i| q[i * cols + c] * x[i]).sum();
                    for (i, xi) in x.iter_mut().enumerate() {
                        *xi -= dot * q[i * cols + c];
                    }
                }
            }
            let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            if best.as_ref().is_none_or(|(b, _)| norm > *b) {
                best = Some((norm, x));
            }
        }
        if let Some((norm, x)) = best {
            for (i, xi) in x.iter().enumerate() {
                q[i * cols + j] = xi / norm;
            }
        }
    }
}

/// The SVD of the row-major `r x c` matrix `b` with `r >= c`: `s` descending, `u` `r x u_cols`
/// (`c`, or `r` for full matrices), `v` `c x c`, by one-sided Jacobi rotations of the columns.
fn jacobi_svd_tall(b: &[f64], r: usize, c: usize, full: bool) -> Svd {
    // Columns are rotated, so they are kept as the contiguous rows of `wt` (and of `vt`).
    let mut wt = vec![0.0; c * r];
    for i in 0..r {
        for j in 0..c {
            wt[j * r + i] = b[i * c + j];
        }
    }
    let mut vt = vec![0.0; c * c];
    for i in 0..c {
        vt[i * c + i] = 1.0;
    }
    let rotate = |m: &mut [f64], len: usize, p: usize, q: usize, cs: f64, sn: f64| {
        let (head, tail) = m.split_at_mut(q * len);
        let x = &mut head[p * len..(p + 1) * len];
        for (a, b) in x.iter_mut().zip(tail[..len].iter_mut()) {
            let (u, v) = (*a, *b);
            *a = cs * u - sn * v;
            *b = sn * u + cs * v;
        }
    };
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..c {
            for q in p + 1..c {
                let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                let (x, y) = (&wt[p * r..(p + 1) * r], &wt[q * r..(q + 1) * r]);
                for (a, b) in x.iter().zip(y) {
                    alpha += a * a;
                    beta += b * b;
                    gamma += a * b;
                }
                if gamma == 0.0 || gamma.abs() <= f64::EPSILON * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = if zeta.abs() > 1e150 {
                    0.5 / zeta
                } else {
                    zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt())
                };
                let cs = 1.0 / (1.0 + t * t).sqrt();
                let sn = cs * t;
                rotate(&mut wt, r, p, q, cs, sn);
                rotate(&mut vt, c, p, q, cs, sn);
            }
        }
        if !rotated {
            break;
        }
    }
    let norms: Vec<f64> = (0..c)
        .map(|j| {
            wt[j * r..(j + 1) * r]
                .iter()
                .map(|x| x * x)
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    let mut order: Vec<usize> = (0..c).collect();
    order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]));
    let s: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
    let largest = s.first().copied().unwrap_or(0.0);
    // Columns of a (numerically) zero singular value carry no direction: they are completed.
    let tiny = largest * r.max(c) as f64 * f64::EPSILON;
    let known = s.iter().take_while(|&&x| x > tiny && x > 0.0).count();
    let u_cols = if full { r } else { c };
    let mut u = vec![0.0; r * u_cols];
    let mut vs = vec![0.0; c * c];
    for (to, &from) in order.iter().enumerate() {
        for i in 0..c {
            vs[i * c + to] = vt[from * c + i];
        }
        if to < known {
            for i in 0..r {
                u[i * u_cols + to] = wt[from * r + i] / norms[from];
            }
        }
    }
    complete_columns(&mut u, r, u_cols, known);
    Svd { s, u, v: vs }
}

/// The SVD of the row-major `m x n` matrix `a` (any shape), TensorFlow's layout: `s` (`k`),
/// `u` `m x (k or m)`, `v` `n x (k or n)`. NaN or inf anywhere gives NaN everywhere, as
/// TensorFlow's kernel does.
fn svd_kernel(a: &[f64], m: usize, n: usize, full: bool) -> Svd {
    let k = m.min(n);
    let (u_cols, v_cols) = if full { (m, n) } else { (k, k) };
    if a.iter().any(|x| !x.is_finite()) {
        return Svd {
            s: vec![f64::NAN; k],
            u: vec![f64::NAN; m * u_cols],
            v: vec![f64::NAN; n * v_cols],
        };
    }
    let mut out = if m >= n {
        jacobi_svd_tall(a, m, n, full)
    } else {
        // a^T = U' S V'^T, so a = V' S U'^T: u is V' and v is U'.
        let mut at = vec![0.0; n * m];
        for i in 0..m {
            for j in 0..n {
                at[j * m + i] = a[i * n + j];
            }
        }
        let t = jacobi_svd_tall(&at, n, m, full);
        Svd {
            s: t.s,
            u: t.v,
            v: t.u,
        }
    };
    // Signs: each pair (u_j, v_j) flips together so that v_j's largest entry is positive;
    // the completing columns of full matrices take the same rule on their own.
    let flip = |q: &mut [f64], rows: usize, cols: usize, j: usize, sign: f64| {
        for i in 0..rows {
            q[i * cols + j] *= sign;
        }
    };
    for j in 0..k {
        let sign = column_sign(&out.v, n, v_cols, j);
        flip(&mut out.v, n, v_cols, j, sign);
        flip(&mut out.u, m, u_cols, j, sign);
    }
    for j in k..u_cols {
        let sign = column_sign(&out.u, m, u_cols, j);
        flip(&mut out.u, m, u_cols, j, sign);
    }
    for j in k..v_cols {
        let sign = column_sign(&out.v, n, v_cols, j);
        flip(&mut out.v, n, v_cols, j, sign);
    }
    out
}

/// Runs the kernel over the batch, returning `(s, u, v)` tensors.
fn decompose(op: &str, x: &Tensor, full: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let (m, n) = check_matrix(op, x)?;
    let k = m.min(n);
    let (u_cols, v_cols) = if full { (m, n) } else { (k, k) };
    let batch = &x.shape()[..x.ndim() - 2];
    let dtype = x.dtype();
    if holds_empty_matrices(x) {
        // No singular values; `u` and `v` are identities (what the kernel gives) or empty.
        return Ok((
            Tensor::zeros(&[batch, &[0]].concat(), dtype),
            eye(m, Some(u_cols), batch, dtype)?,
            eye(n, Some(v_cols), batch, dtype)?,
        ));
    }
    let parts = map_matrices(op, x, 10 * m * n * k, |_, a| Ok(svd_kernel(a, m, n, full)))?;
    let (mut s, mut u, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for p in parts {
        s.extend(p.s);
        u.extend(p.u);
        v.extend(p.v);
    }
    Ok((
        tensor_of(s, &[batch, &[k]].concat(), dtype)?,
        tensor_of(u, &[batch, &[m, u_cols]].concat(), dtype)?,
        tensor_of(v, &[batch, &[n, v_cols]].concat(), dtype)?,
    ))
}

/// The singular value decomposition of each matrix of `x` (`[..., M, N]`), as
/// `tf.linalg.svd(x, full_matrices)`: `(s, u, v)` (not `vh`) with `x = u diag(s) v^T`, `s`
/// `[..., K]` descending (`K = min(M, N)`), `u` `[..., M, K]` and `v` `[..., N, K]` (`M x M`
/// and `N x N` with `full_matrices`). Each column of `v` has its entry of largest magnitude
/// positive (TensorFlow leaves the sign to its solver); `u` follows. NaN or inf in a matrix
/// gives NaN, as in TensorFlow.
///
/// The gradient is TensorFlow's (Lorentz-broadened for (near-)repeated singular values); like
/// TensorFlow it is not defined for `full_matrices` when `|M - N| > 1`.
pub fn svd(x: &Tensor, full_matrices: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let op = "svd";
    let (s, u, v) = decompose(op, x, full_matrices)?;
    let (m, n) = (x.shape()[x.ndim() - 2], x.shape()[x.ndim() - 1]);
    let vjp: Arc<Vjp> = Arc::new(move |saved: &[Tensor], grads: &[Option<Tensor>], batch| {
        svd_gradient(
            &saved[0],
            &saved[1],
            &saved[2],
            grads,
            batch,
            m,
            n,
            full_matrices,
        )
    });
    let rows = per_matrix_rows(0, x.ndim());
    record_multi(op, &[x], &[&s, &u, &v], &[&s, &u, &v], rows, true, vjp);
    Ok((s, u, v))
}

/// The singular values alone (`tf.linalg.svd(x, compute_uv=False)`), descending. The gradient
/// is `u diag(ds) v^T`, with `u`, `v` recomputed (by a recorded `svd`, so it differentiates
/// again).
pub fn svd_values(x: &Tensor) -> Result<Tensor> {
    let op = "svd";
    let (s, _, _) = decompose(op, x, false)?;
    let rows = per_matrix_rows(0, x.ndim());
    record_batched(op, &[x], &s, &[x], rows, true, |saved, ds, _batch| {
        let (_, u, v) = svd(&saved[0], false)?;
        let middle = matrix_diag(ds, 0, None, None, 0.0)?;
        Ok(crate::grads![Some(matmul(
            &u,
            &matmul(&middle, &v, false, true)?,
            false,
            false
        )?)])
    });
    Ok(s)
}

/// TensorFlow's `_SvdGrad` (full_matrices=False, or `|m - n| <= 1`), real case.
#[allow(clippy::too_many_arguments)]
fn svd_gradient(
    s: &Tensor,
    u: &Tensor,
    v: &Tensor,
    grads: &[Option<Tensor>],
    batch: usize,
    m: usize,
    n: usize,
    full: bool,
) -> Result<crate::tape::Grads> {
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
    let gs = or_zeros(&grads[0], s);
    let (mut gu, mut gv) = (or_zeros(&grads[1], u), or_zeros(&grads[2], v));
    let (mut u, mut v) = (u.clone(), v.clone());
    let (mut m, mut n) = (m, n);
    // For m > n, differentiate a^T = v s u^T and transpose at the end.
    let use_adjoint = m > n;
    if use_adjoint {
        std::mem::swap(&mut m, &mut n);
        std::mem::swap(&mut u, &mut v);
        std::mem::swap(&mut gu, &mut gv);
    }
    if full && n - m > 1 {
        return Err(Error::value(
            "svd",
            format!(
                "the gradient of svd is not defined for full_matrices=True when the matrix \
                 dimensions differ by more than 1 (got {m} and {n}), as in TensorFlow; use \
                 full_matrices=False"
            ),
        ));
    }
    let s_mat = matrix_diag(s, 0, None, None, 0.0)?;
    let gs_mat = matrix_diag(&gs, 0, None, None, 0.0)?;
    let f = off_diagonal_reciprocal_gaps(&square(s)?)?;
    let last = |t: &Tensor| t.ndim() - 1;
    let v1 = slice_axis(&v, last(&v), 0, m)?;
    let gv1 = slice_axis(&gv, last(&gv), 0, m)?;
    let f_u = multiply(&f, &matmul(&u, &gu, true, false)?)?;
    let f_v = multiply(&f, &matmul(&v1, &gv1, true, false)?)?;
    let term1_nouv = add(
        &add(
            &gs_mat,
            &matmul(&add(&f_u, &matrix_t(&f_u)?)?, &s_mat, false, false)?,
        )?,
        &matmul(&s_mat, &add(&f_v, &matrix_t(&f_v)?)?, false, false)?,
    )?;
    let mut g = matmul(&u, &matmul(&term1_nouv, &v1, false, true)?, false, false)?;
    if m != n {
        let gv1t = matrix_t(&gv1)?;
        let gv1t_v1 = matmul(&gv1t, &v1, false, false)?;
        let mut term2_nous = subtract(&gv1t, &matmul(&gv1t_v1, &v1, false, true)?)?;
        if full {
            let v2 = slice_axis(&v, last(&v), m, n)?;
            let gv2 = slice_axis(&gv, last(&gv), m, n)?;
            let v1t_gv2 = matmul(&v1, &gv2, true, false)?;
            term2_nous = subtract(&term2_nous, &matmul(&v1t_gv2, &v2, false, true)?)?;
        }
        let s_inv_mat = matrix_diag(&safe_reciprocal(s)?, 0, None, None, 0.0)?;
        let u_s_inv = matmul(&u, &s_inv_mat, false, false)?;
        g = add(&g, &matmul(&u_s_inv, &term2_nous, false, false)?)?;
    }
    if use_adjoint {
        g = matrix_t(&g)?;
    }
    Ok(crate::grads![Some(g)])
}
