//! Contractions built from the shape ops and matmul: `tensordot`, `diag_part` (TensorFlow's
//! `linalg.diag_part`) and `trace`. Their gradients come from the ops they are made of.
use super::{diagonal_part, matmul, normalize_axis, reduce_sum, reshape, slice_axis, transpose};
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::Tensor;

/// Contracts `axes_a` of `a` with `axes_b` of `b` (pairwise, equal sizes) (`tf.tensordot`):
/// the result has `a`'s remaining axes, then `b`'s. Computed as one matmul of the two
/// operands transposed and reshaped to matrices.
pub fn tensordot(a: &Tensor, b: &Tensor, axes_a: &[isize], axes_b: &[isize]) -> Result<Tensor> {
    let op = "tensordot";
    if axes_a.len() != axes_b.len() {
        return Err(Error::value(
            op,
            format!(
                "axes must pair up: {} axes of a and {} of b ({axes_a:?}, {axes_b:?})",
                axes_a.len(),
                axes_b.len()
            ),
        ));
    }
    let ca: Vec<usize> = axes_a
        .iter()
        .map(|&x| normalize_axis(op, x, a.ndim()))
        .collect::<Result<_>>()?;
    let cb: Vec<usize> = axes_b
        .iter()
        .map(|&x| normalize_axis(op, x, b.ndim()))
        .collect::<Result<_>>()?;
    let mut seen = ca.clone();
    seen.sort_unstable();
    seen.dedup();
    let mut seen_b = cb.clone();
    seen_b.sort_unstable();
    seen_b.dedup();
    if seen.len() != ca.len() || seen_b.len() != cb.len() {
        return Err(Error::value(
            op,
            format!("an axis is repeated in {axes_a:?} or {axes_b:?}"),
        ));
    }
    for (&i, &j) in ca.iter().zip(&cb) {
        if a.shape()[i] != b.shape()[j] {
            return Err(Error::shape(
                op,
                format!(
                    "axis {i} of a (shape {}) and axis {j} of b (shape {}) differ in size",
                    fmt_shape(a.shape()),
                    fmt_shape(b.shape())
                ),
            ));
        }
    }
    let free_a: Vec<usize> = (0..a.ndim()).filter(|i| !ca.contains(i)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|i| !cb.contains(i)).collect();
    let size = |t: &Tensor, axes: &[usize]| axes.iter().map(|&i| t.shape()[i]).product::<usize>();
    let (m, k, n) = (size(a, &free_a), size(a, &ca), size(b, &free_b));
    let perm_a: Vec<usize> = free_a.iter().chain(&ca).copied().collect();
    let perm_b: Vec<usize> = cb.iter().chain(&free_b).copied().collect();
    let a2 = reshape(&transpose(a, Some(&perm_a))?, &[m as isize, k as isize])?;
    let b2 = reshape(&transpose(b, Some(&perm_b))?, &[k as isize, n as isize])?;
    let out: Vec<isize> = free_a
        .iter()
        .map(|&i| a.shape()[i])
        .chain(free_b.iter().map(|&i| b.shape()[i]))
        .map(|d| d as isize)
        .collect();
    reshape(&matmul(&a2, &b2, false, false)?, &out)
}

/// [`tensordot`] over the last `n` axes of `a` and the first `n` of `b` (`axes=n`).
pub fn tensordot_n(a: &Tensor, b: &Tensor, n: usize) -> Result<Tensor> {
    if n > a.ndim() || n > b.ndim() {
        return Err(Error::value(
            "tensordot",
            format!(
                "cannot contract {n} axes of a (shape {}) with b (shape {})",
                fmt_shape(a.shape()),
                fmt_shape(b.shape())
            ),
        ));
    }
    let axes_a: Vec<isize> = (a.ndim() - n..a.ndim()).map(|i| i as isize).collect();
    let axes_b: Vec<isize> = (0..n).map(|i| i as isize).collect();
    tensordot(a, b, &axes_a, &axes_b)
}

/// The main diagonals of the matrices in the last two axes (`tf.linalg.diag_part`): shape
/// `[..., min(m, n)]`. Its gradient puts `dy` back on the diagonals.
pub fn diag_part(x: &Tensor) -> Result<Tensor> {
    let op = "diag_part";
    let r = x.ndim();
    if r < 2 {
        return Err(Error::shape(
            op,
            format!(
                "input must have rank at least 2, got shape {}",
                fmt_shape(x.shape())
            ),
        ));
    }
    let k = x.shape()[r - 2].min(x.shape()[r - 1]);
    let square = slice_axis(&slice_axis(x, r - 2, 0, k)?, r - 1, 0, k)?;
    let map: Vec<usize> = (0..r - 1).chain([r - 2]).collect();
    diagonal_part(&square, &map)
}

/// The sum of the main diagonal of each matrix in the last two axes (`tf.linalg.trace`).
pub fn trace(x: &Tensor) -> Result<Tensor> {
    let d = diag_part(x).map_err(|e| Error::new(e.kind, "trace", e.message))?;
    reduce_sum(&d, Some(&[-1]), false)
}
