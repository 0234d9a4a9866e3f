//! Shared pieces of the factorisation ops (cholesky, qr, eigh, svd, det, expm): validation of
//! `[..., M, N]` operands, running a float64 kernel over every matrix of a batch, and the small
//! rustape-op helpers their VJPs share.
//!
//! The factorisation kernels compute in float64 whatever the input's dtype (a float32 input is
//! widened, factorised, and its results rounded back once): the iterative methods then converge
//! to the same tolerance for both dtypes, and a float32 result is as accurate as float32 allows.
use rayon::prelude::*;

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::kernel::may_split;
use crate::ops::{multiply, reshape, transpose};
use crate::tape::mixes_input;
use crate::tensor::Tensor;

/// Validates a floating `[..., M, N]` operand, returning `(M, N)`.
pub(crate) fn check_matrix(op: &str, x: &Tensor) -> Result<(usize, usize)> {
    check_float(op, x)?;
    let s = x.shape();
    if s.len() < 2 {
        return Err(Error::shape(
            op,
            format!(
                "input must have shape [..., M, N] (rank >= 2), got {}",
                fmt_shape(s)
            ),
        ));
    }
    Ok((s[s.len() - 2], s[s.len() - 1]))
}

/// Validates a floating square `[..., M, M]` operand, returning `M`.
pub(crate) fn check_square_float(op: &str, x: &Tensor) -> Result<usize> {
    let (m, n) = check_matrix(op, x)?;
    if m != n {
        return Err(Error::shape(
            op,
            format!(
                "input must have shape [..., M, M] (square matrices), got {}",
                fmt_shape(x.shape())
            ),
        ));
    }
    Ok(m)
}

/// Validates a floating dtype.
pub(crate) fn check_float(op: &str, x: &Tensor) -> Result<()> {
    if !x.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!(
                "expected a floating dtype (float32 or float64), got {} (shape {})",
                x.dtype(),
                fmt_shape(x.shape())
            ),
        ));
    }
    Ok(())
}

/// A tensor of `dtype` (float32 or float64) holding `values` (float64) in `shape`.
pub(crate) fn tensor_of(values: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::F32 => Tensor::from_vec(values.into_iter().map(|v| v as f32).collect(), shape),
        _ => Tensor::from_vec(values, shape),
    }
}

/// Whether the matrices of `x` (`[..., M, N]`) hold no elements (`M` or `N` is 0). The
/// per-matrix ops then build their results directly, without [`map_matrices`]: a batch of
/// 2^31 empty matrices holds nothing, so neither may the work or the memory spent on it (one
/// result per matrix would be gigabytes that the overcommitting kernel grants and then kills
/// the process for touching).
pub(crate) fn holds_empty_matrices(x: &Tensor) -> bool {
    let s = x.shape();
    s[s.len() - 2] == 0 || s[s.len() - 1] == 0
}

/// Runs `kernel` on each `rows x cols` matrix of `x` (row-major float64), in batch order; on
/// rayon's threads when the batch is large enough to pay for it. The first error wins. The
/// results are one per matrix: callers handle empty matrices first
/// ([`holds_empty_matrices`]), so their number is at most the number of elements of `x`.
pub(crate) fn map_matrices<R: Send>(
    op: &str,
    x: &Tensor,
    work_per_matrix: usize,
    kernel: impl Fn(usize, &[f64]) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let s = x.shape();
    let per = s[s.len() - 2] * s[s.len() - 1];
    let count: usize = s[..s.len() - 2].iter().product();
    if per == 0 {
        // Empty matrices are the caller's (see `holds_empty_matrices`); refuse rather than
        // reserve a result per matrix of a batch that may be as long as a shape allows.
        return Err(Error::value(
            op,
            format!(
                "internal error in rustape, please report: empty matrices of shape {} reached \
                 the per-matrix kernel",
                fmt_shape(s)
            ),
        ));
    }
    // One result per matrix, reserved fallibly (MemoryError, never an abort).
    let mut out: Vec<R> = crate::memory::try_vec(op, count)?;
    let values = x.to_f64_vec();
    let one = |i: usize| kernel(i, &values[i * per..(i + 1) * per]);
    // Above this many flops a batch goes to rayon's threads.
    let parallel_work = 1 << 18;
    if count > 1 && count.saturating_mul(work_per_matrix) >= parallel_work && may_split() {
        let results: Vec<Result<R>> = (0..count).into_par_iter().map(one).collect();
        for r in results {
            out.push(r?);
        }
    } else {
        for i in 0..count {
            out.push(one(i)?);
        }
    }
    Ok(out)
}

/// `x` with its last two axes swapped (a recorded op, for VJPs).
pub(crate) fn matrix_t(x: &Tensor) -> Result<Tensor> {
    let n = x.ndim();
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(n - 2, n - 1);
    transpose(x, Some(&perm))
}

/// Row mixing of input `k` of a per-matrix op (its output keeps the input's batch axes): a
/// batch of matrices keeps batch element `i` in output row `i`; a single matrix couples all
/// of its rows.
pub(crate) fn per_matrix_rows(k: usize, input_rank: usize) -> u8 {
    if input_rank > 2 {
        0
    } else {
        mixes_input(k)
    }
}

/// `x[..., None, None]`-like: `x` with two axes of size 1 appended.
pub(crate) fn append_two_axes(x: &Tensor) -> Result<Tensor> {
    let mut dims: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
    dims.extend([1, 1]);
    reshape(x, &dims)
}

/// The `n x n` matrix `tril(ones) - I / 2` of `dtype`: multiplying by it keeps the lower
/// triangle with the diagonal halved (the `Φ` of the Cholesky and eigh gradients).
pub(crate) fn lower_half_diagonal(n: usize, dtype: DType) -> Result<Tensor> {
    let values = (0..n * n)
        .map(|i| match (i / n, i % n) {
            (r, c) if r == c => 0.5,
            (r, c) if r > c => 1.0,
            _ => 0.0,
        })
        .collect();
    tensor_of(values, &[n, n], dtype)
}

/// `x * lower_half_diagonal`, for the last two (square) axes of `x`.
pub(crate) fn keep_lower_half_diagonal(x: &Tensor) -> Result<Tensor> {
    let n = x.shape()[x.ndim() - 1];
    multiply(x, &lower_half_diagonal(n, x.dtype())?)
}
