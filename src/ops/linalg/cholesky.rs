//! `cholesky`, `triangular_solve`, and the compositions over them: `cholesky_solve` and
//! `logdet` (as TensorFlow composes them, so their gradients are TensorFlow's too).
use ndarray::{ArrayD, IxDyn};

use super::matrices::{
    check_matrix, check_square_float, holds_empty_matrices, keep_lower_half_diagonal, map_matrices,
    matrix_t, per_matrix_rows, tensor_of,
};
use super::solve::{batched_values, broadcast_index};
use super::{band_part, batch_axis_rows, eye, matmul, matrix_diag_part};
use crate::dispatch2;
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{
    add, broadcast_shapes, log, multiply, negative, reduce_sum, scalar_like, shape_of,
    sum_to_batched_shape,
};
use crate::tape::{mixes_input, record_batched};
use crate::tensor::{Element, Tensor};

/// The lower Cholesky factor of the row-major `n x n` matrix `a` (only its lower triangle is
/// read), or NaN everywhere when the matrix is not positive definite (TensorFlow's CPU kernel
/// returns NaN there too, rather than raising).
fn cholesky_kernel(a: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        // A NaN fails too.
        if d.is_nan() || d <= 0.0 {
            return vec![f64::NAN; n * n];
        }
        let pivot = d.sqrt();
        l[j * n + j] = pivot;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / pivot;
        }
    }
    l
}

/// The Cholesky factor `L` (lower triangular, `L @ L^T = x`) of each symmetric positive
/// definite matrix of `x` (`[..., M, M]`; only the lower triangle is read), as
/// `tf.linalg.cholesky`. A matrix that is not positive definite gives NaN, as in TensorFlow.
///
/// The gradient is TensorFlow's: symmetric, `Φ`-projected (`L^-T Φ(L^T dL) L^-1`, symmetrised),
/// so it is the derivative with respect to a symmetric input.
pub fn cholesky(x: &Tensor) -> Result<Tensor> {
    let op = "cholesky";
    let n = check_square_float(op, x)?;
    let y = if holds_empty_matrices(x) {
        Tensor::zeros(x.shape(), x.dtype())
    } else {
        let factors = map_matrices("cholesky", x, n * n * n / 3, |_, a| {
            Ok(cholesky_kernel(a, n))
        })?;
        tensor_of(factors.concat(), x.shape(), x.dtype())?
    };
    let rows = per_matrix_rows(0, x.ndim());
    record_batched(op, &[x], &y, &[&y], rows, true, move |s, dy, _batch| {
        let l = &s[0];
        let n = l.shape()[l.ndim() - 1];
        let l_inverse = triangular_solve(l, &eye(n, None, &[], l.dtype())?, true, false)?;
        let middle = keep_lower_half_diagonal(&matmul(l, dy, true, false)?)?;
        let g = matmul(
            &matmul(&l_inverse, &middle, true, false)?,
            &l_inverse,
            false,
            false,
        )?;
        let g = add(&g, &matrix_t(&g)?)?;
        Ok(crate::grads![Some(multiply(&g, &scalar_like(0.5, &g))?)])
    });
    Ok(y)
}

/// Solves the triangular system `t x = b` (`t` `n x n` row-major, read through `at`, lower
/// when `lower`) for the `n x k` right-hand side `b`, into `out`. Only the named triangle is
/// read; a zero on the diagonal gives inf/NaN, as TensorFlow's kernel does.
fn triangular_kernel<T: Float>(
    at: impl Fn(usize, usize) -> T,
    n: usize,
    k: usize,
    lower: bool,
    b: &[T],
    out: &mut [T],
) {
    out.copy_from_slice(b);
    let rows: Box<dyn Iterator<Item = usize>> = if lower {
        Box::new(0..n)
    } else {
        Box::new((0..n).rev())
    };
    for i in rows {
        let known: Box<dyn Iterator<Item = usize>> = if lower {
            Box::new(0..i)
        } else {
            Box::new(i + 1..n)
        };
        for r in known {
            let t = at(i, r);
            if t != T::zero() {
                for j in 0..k {
                    out[i * k + j] = out[i * k + j] - t * out[r * k + j];
                }
            }
        }
        let d = at(i, i);
        for j in 0..k {
            out[i * k + j] = out[i * k + j] / d;
        }
    }
}

fn triangular_batch<T: Float + Element>(
    a: &ndarray::ArrayViewD<'_, T>,
    b: &ndarray::ArrayViewD<'_, T>,
    lower: bool,
    adjoint: bool,
    batch: &[usize],
) -> ArrayD<T> {
    let n = a.shape()[a.ndim() - 1];
    let k = b.shape()[b.ndim() - 1];
    let own = &a.shape()[..a.ndim() - 2];
    let count: usize = batch.iter().product();
    let mut out = vec![T::zero(); count * n * k];
    if n > 0 && k > 0 && count > 0 {
        let av = batched_values(a, own, false);
        let which = broadcast_index(own, batch);
        let bv = batched_values(b, batch, false);
        for (i, dst) in out.chunks_mut(n * k).enumerate() {
            let m = &av[which[i] * n * n..(which[i] + 1) * n * n];
            let rhs = &bv[i * n * k..(i + 1) * n * k];
            if adjoint {
                // Solving with t^T, whose lower triangle is t's upper one.
                triangular_kernel(|r, c| m[c * n + r], n, k, !lower, rhs, dst);
            } else {
                triangular_kernel(|r, c| m[r * n + c], n, k, lower, rhs, dst);
            }
        }
    }
    let mut shape = batch.to_vec();
    shape.extend([n, k]);
    match ArrayD::from_shape_vec(IxDyn(&shape), out) {
        Ok(array) => array,
        Err(_) => unreachable!("the output holds batch * n * k elements"),
    }
}

/// Solves `matrix @ x = rhs` (or `matrix^T @ x = rhs` when `adjoint`) for triangular `matrix`
/// (`[..., M, M]`, lower when `lower`: only that triangle is read) and `rhs` `[..., M, K]`,
/// the batch axes broadcast, as `tf.linalg.triangular_solve`. A zero on the diagonal gives
/// inf/NaN, as TensorFlow's kernel does.
pub fn triangular_solve(
    matrix: &Tensor,
    rhs: &Tensor,
    lower: bool,
    adjoint: bool,
) -> Result<Tensor> {
    let op = "triangular_solve";
    let m = check_square_float(op, matrix)?;
    let (sa, sb) = (matrix.shape(), rhs.shape());
    if sb.len() < 2 || sb[sb.len() - 2] != m {
        return Err(Error::shape(
            op,
            format!(
                "rhs must have shape [..., {m}, K] to match matrix of shape {}, got {}",
                fmt_shape(sa),
                fmt_shape(sb)
            ),
        ));
    }
    let batch = broadcast_shapes(op, &sa[..sa.len() - 2], &sb[..sb.len() - 2]).map_err(|_| {
        Error::shape(
            op,
            format!(
                "batch dimensions of matrix {} and rhs {} do not broadcast",
                fmt_shape(sa),
                fmt_shape(sb)
            ),
        )
    })?;
    // The broadcast output may be far larger than either operand: checked before it is made
    // (a MemoryError, never an aborted allocation).
    let out_shape = [&batch[..], &sb[sb.len() - 2..]].concat();
    crate::memory::ensure_shape(op, &out_shape, rhs.dtype())?;
    let y = Tensor::new(dispatch2!(float matrix.data(), rhs.data(), op, |a, b| {
        triangular_batch(&a.view(), &b.view(), lower, adjoint, &batch)
    }));
    let mixes = match batch.first() {
        Some(&rows) => {
            let rank = batch.len() + 2;
            batch_axis_rows(0, sa, rank, rows) | batch_axis_rows(1, sb, rank, rows)
        }
        None => mixes_input(0) | mixes_input(1),
    };
    let (sa, sb) = (shape_of(matrix), shape_of(rhs));
    record_batched(
        op,
        &[matrix, rhs],
        &y,
        &[matrix, &y],
        mixes,
        true,
        move |s, dy, batch| {
            let (a, c) = (&s[0], &s[1]);
            // TensorFlow's MatrixTriangularSolve gradient.
            let grad_b = triangular_solve(a, dy, lower, !adjoint)?;
            let grad_a = if adjoint {
                matmul(c, &grad_b, false, true)?
            } else {
                matmul(&grad_b, c, false, true)?
            };
            let grad_a = if lower {
                band_part(&grad_a, -1, 0)?
            } else {
                band_part(&grad_a, 0, -1)?
            };
            Ok(crate::grads![
                Some(negative(&sum_to_batched_shape(&grad_a, batch, &sa)?)?),
                Some(sum_to_batched_shape(&grad_b, batch, &sb)?),
            ])
        },
    );
    Ok(y)
}

/// Solves `A x = rhs` given the Cholesky factor `chol` of `A` (`[..., M, M]`, lower), as
/// `tf.linalg.cholesky_solve`: two triangular solves.
pub fn cholesky_solve(chol: &Tensor, rhs: &Tensor) -> Result<Tensor> {
    check_matrix("cholesky_solve", chol)?;
    let y = triangular_solve(chol, rhs, true, false)?;
    triangular_solve(chol, &y, true, true)
}

/// The log-determinant of each symmetric positive definite matrix of `x` (`[..., M, M]`), as
/// `tf.linalg.logdet`: `2 * sum(log(diag(cholesky(x))))` (NaN when not positive definite).
pub fn logdet(x: &Tensor) -> Result<Tensor> {
    check_square_float("logdet", x)?;
    let diagonal = matrix_diag_part(&cholesky(x)?, 0)?;
    let total = reduce_sum(&log(&diagonal)?, Some(&[-1]), false)?;
    multiply(&total, &scalar_like(2.0, &total))
}
