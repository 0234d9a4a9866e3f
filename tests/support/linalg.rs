//! Helpers of the linear-algebra test files (tests/linalg_*.rs, tests/batch_rows_linalg.rs):
//! deterministic inputs, well-conditioned matrices, a reference matmul.
use super::t64;
use rustape::ops::{self, eye};
use rustape::testing::pseudo_random;
use rustape::{DType, Tensor};

/// Deterministic values in [-1, 1) of `shape`.
pub fn rand64(shape: &[usize], seed: u64) -> Tensor {
    let v: Vec<f64> = pseudo_random(shape, seed)
        .to_f64_vec()
        .iter()
        .map(|x| 2.0 * (x - 1.0))
        .collect();
    t64(&v, shape)
}

/// A well-conditioned matrix batch: random plus `n` on the diagonal.
pub fn well_conditioned(batch: &[usize], n: usize, seed: u64) -> Tensor {
    let mut shape = batch.to_vec();
    shape.extend([n, n]);
    ops::add(
        &rand64(&shape, seed),
        &ops::multiply(
            &eye(n, None, &[], DType::F64).unwrap(),
            &Tensor::scalar(n as f64),
        )
        .unwrap(),
    )
    .unwrap()
}

/// Symmetric positive definite matrices `batch + [n, n]`: `a a^T + n I` for random `a`.
pub fn spd(batch: &[usize], n: usize, seed: u64) -> Tensor {
    let a = rand64(&[batch, &[n, n]].concat(), seed);
    let g = ops::matmul(&a, &a, false, true).unwrap();
    ops::add(
        &g,
        &ops::multiply(
            &eye(n, None, &[], DType::F64).unwrap(),
            &Tensor::scalar(n as f64),
        )
        .unwrap(),
    )
    .unwrap()
}

/// Lower triangular matrices `batch + [n, n]`: random, with 2 added on the diagonal.
pub fn lower(batch: &[usize], n: usize, seed: u64) -> Tensor {
    let two = ops::multiply(
        &eye(n, None, &[], DType::F64).unwrap(),
        &Tensor::scalar(2.0f64),
    )
    .unwrap();
    let random = ops::band_part(&rand64(&[batch, &[n, n]].concat(), seed), -1, 0).unwrap();
    ops::add(&random, &two).unwrap()
}

/// `x` with its last two axes swapped.
pub fn matrix_t(x: &Tensor) -> rustape::Result<Tensor> {
    let n = x.ndim();
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(n - 2, n - 1);
    ops::transpose(x, Some(&perm))
}

/// `(x + x^T) / 2`: what a gradcheck perturbs for ops that read one triangle of a symmetric
/// matrix (their gradients, TensorFlow's, are those with respect to a symmetric input).
pub fn sym(x: &Tensor) -> rustape::Result<Tensor> {
    ops::multiply(&ops::add(x, &matrix_t(x)?)?, &Tensor::scalar(0.5f64))
}

/// Row-major strides of `shape`.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The multi-index of flat position `flat` in `shape`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        idx[i] = flat % shape[i];
        flat /= shape[i];
    }
    idx
}

/// Reference batched matmul with broadcasting: a triple loop per batch element.
pub fn naive_matmul(
    a: &[f64],
    sa: &[usize],
    b: &[f64],
    sb: &[usize],
    ta: bool,
    tb: bool,
) -> (Vec<f64>, Vec<usize>) {
    let (na, nb) = (sa.len() - 2, sb.len() - 2);
    let nbatch = na.max(nb);
    let dim = |s: &[usize], lead: usize, d: usize| {
        if d < nbatch - lead {
            1
        } else {
            s[d - (nbatch - lead)]
        }
    };
    let batch: Vec<usize> = (0..nbatch)
        .map(|d| dim(sa, na, d).max(dim(sb, nb, d)))
        .collect();
    let (m, k) = if ta {
        (sa[na + 1], sa[na])
    } else {
        (sa[na], sa[na + 1])
    };
    let n = if tb { sb[nb] } else { sb[nb + 1] };
    let (sta, stb) = (strides(sa), strides(sb));
    let count: usize = batch.iter().product();
    let mut out = Vec::with_capacity(count * m * n);
    for bi in 0..count {
        let idx = unravel(bi, &batch);
        let base = |s: &[usize], st: &[usize], lead: usize| -> usize {
            (0..lead)
                .map(|d| {
                    if s[d] == 1 {
                        0
                    } else {
                        idx[d + nbatch - lead] * st[d]
                    }
                })
                .sum()
        };
        let (oa, ob) = (base(sa, &sta, na), base(sb, &stb, nb));
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0.0;
                for p in 0..k {
                    let av = if ta {
                        a[oa + p * sta[na] + i]
                    } else {
                        a[oa + i * sta[na] + p]
                    };
                    let bv = if tb {
                        b[ob + j * stb[nb] + p]
                    } else {
                        b[ob + p * stb[nb] + j]
                    };
                    acc += av * bv;
                }
                out.push(acc);
            }
        }
    }
    let mut shape = batch;
    shape.extend([m, n]);
    (out, shape)
}
