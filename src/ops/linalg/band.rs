//! Bands and diagonals of the matrices in the last two axes: `band_part`, `matrix_diag`,
//! `matrix_diag_part` and `matrix_set_diag` (TensorFlow's `tf.linalg.band_part`, `diag`,
//! `diag_part`, `set_diag`, for one diagonal offset `k`). Each is linear; the VJPs are each
//! other.
use crate::error::{fmt_shape, Error, Result};
use crate::ops::shape_of;
use crate::tape::{mixes_input, record_batched};
use crate::tensor::{Element, Tensor, Values};
use crate::{dispatch, dispatch2};

/// Whether `(row, col)` lies in the band: at most `lower` below the diagonal and `upper` above
/// (a negative count keeps that whole triangle).
fn in_band(row: usize, col: usize, lower: i64, upper: i64) -> bool {
    let below = row as i64 - col as i64;
    (lower < 0 || below <= lower) && (upper < 0 || -below <= upper)
}

/// `x` with every element outside the band set to zero: `num_lower` subdiagonals and
/// `num_upper` superdiagonals are kept (a negative count keeps the whole triangle), as
/// `tf.linalg.band_part`. `band_part(x, -1, 0)` is the lower triangle, `(0, -1)` the upper,
/// `(0, 0)` the diagonal.
pub fn band_part(x: &Tensor, num_lower: i64, num_upper: i64) -> Result<Tensor> {
    let op = "band_part";
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
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    if num_lower > m as i64 || num_upper > n as i64 {
        return Err(Error::value(
            op,
            format!(
                "num_lower ({num_lower}) must be negative or at most the number of rows ({m}), and \
                 num_upper ({num_upper}) negative or at most the number of columns ({n}); input shape {}",
                fmt_shape(s)
            ),
        ));
    }
    fn mask<T: Element>(a: &Values<T>, m: usize, n: usize, lower: i64, upper: i64) -> Values<T> {
        let values = a
            .as_slice()
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                if in_band((i / n) % m, i % n, lower, upper) {
                    v
                } else {
                    T::default()
                }
            })
            .collect();
        Values::from_vec(a.shape(), values)
    }
    let y = Tensor::new(dispatch!(values all x.data(), |a| mask(a, m, n, num_lower, num_upper)));
    // Row mixing: none (each element stays where it is).
    record_batched(op, &[x], &y, &[], 0, true, move |_, dy, _batch| {
        Ok(crate::grads![Some(band_part(dy, num_lower, num_upper)?)])
    });
    Ok(y)
}

/// Where diagonal `k` of an `m x n` matrix starts (row, column), and its length.
fn diagonal_geometry(m: usize, n: usize, k: i64) -> (usize, usize, usize) {
    let (r0, c0) = if k >= 0 {
        (0, k as usize)
    } else {
        (k.unsigned_abs() as usize, 0)
    };
    let len = m.saturating_sub(r0).min(n.saturating_sub(c0));
    (r0, c0, len)
}

/// Validates offset `k` for `m x n` matrices: the diagonal must exist (`-m < k < n`), except
/// for the main diagonal of an empty matrix.
fn check_offset(op: &str, shape: &[usize], m: usize, n: usize, k: i64) -> Result<()> {
    if k == 0 || (-(m as i64) < k && k < n as i64) {
        return Ok(());
    }
    Err(Error::value(
        op,
        format!(
            "diagonal offset k={k} is out of range for matrices of shape {} (valid: {} to {})",
            fmt_shape(shape),
            1 - m as i64,
            n as i64 - 1
        ),
    ))
}

/// Row mixing of a diagonal op whose matrix side has rank `matrix_rank`: a batch keeps batch
/// elements apart, and the main diagonal of a single matrix keeps row `i` with element `i`;
/// any other offset shifts rows.
fn diagonal_rows(k: usize, matrix_rank: usize, offset: i64) -> u8 {
    if matrix_rank > 2 || offset == 0 {
        0
    } else {
        mixes_input(k)
    }
}

/// Diagonal `k` (0 the main one, positive above it, negative below) of each matrix in the last
/// two axes: `[..., M, N]` to `[..., len]`, as `tf.linalg.diag_part(x, k=k)`.
pub fn matrix_diag_part(x: &Tensor, k: i64) -> Result<Tensor> {
    let op = "diag_part";
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
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    check_offset(op, s, m, n, k)?;
    let (r0, c0, len) = diagonal_geometry(m, n, k);
    let mut out_shape = s[..s.len() - 2].to_vec();
    out_shape.push(len);
    fn take<T: Element>(
        a: &Values<T>,
        shape: &[usize],
        (m, n): (usize, usize),
        (r0, c0, len): (usize, usize, usize),
    ) -> Values<T> {
        let x = a.as_slice();
        if len == 0 {
            // Empty diagonals: no loop over a batch that may be as long as a shape allows.
            return Values::from_vec(shape, Vec::new());
        }
        let count: usize = shape[..shape.len() - 1].iter().product();
        let mut values = Vec::with_capacity(count * len);
        for b in 0..count {
            values.extend((0..len).map(|i| x[b * m * n + (r0 + i) * n + c0 + i]));
        }
        Values::from_vec(shape, values)
    }
    let y =
        Tensor::new(dispatch!(values all x.data(), |a| take(a, &out_shape, (m, n), (r0, c0, len))));
    let rows = diagonal_rows(0, s.len(), k);
    record_batched(op, &[x], &y, &[], rows, true, move |_, dy, _batch| {
        Ok(crate::grads![Some(matrix_diag(
            dy,
            k,
            Some(m),
            Some(n),
            0.0
        )?)])
    });
    Ok(y)
}

/// Matrices with `diagonal` (`[..., len]`) on diagonal `k` and `padding_value` elsewhere, as
/// `tf.linalg.diag(diagonal, k=k, num_rows=.., num_cols=.., padding_value=..)`. Unspecified
/// sizes are the smallest that hold the diagonal (square `len + |k|` when both are).
pub fn matrix_diag(
    diagonal: &Tensor,
    k: i64,
    num_rows: Option<usize>,
    num_cols: Option<usize>,
    padding_value: f64,
) -> Result<Tensor> {
    let op = "diag";
    let s = diagonal.shape();
    if s.is_empty() {
        return Err(Error::shape(
            op,
            "diagonal must have rank >= 1 ([..., len]), got a scalar (shape [])",
        ));
    }
    let len = s[s.len() - 1];
    let shift = k.unsigned_abs() as usize;
    // Sizes from the caller's `k`, `num_rows`, `num_cols`: checked before any is used.
    let wide = crate::memory::checked_add(op, len, shift)?;
    let (min_rows, min_cols) = if k >= 0 { (len, wide) } else { (wide, len) };
    let (m, n) = match (num_rows, num_cols) {
        (None, None) => (wide, wide),
        (Some(r), None) => (r, min_cols),
        (None, Some(c)) => (min_rows, c),
        (Some(r), Some(c)) => (r, c),
    };
    let (r0, c0, diag_len) = diagonal_geometry(m, n, k);
    if diag_len != len || (len > 0 && (m < min_rows || n < min_cols)) {
        return Err(Error::shape(
            op,
            format!(
                "a diagonal of length {len} (shape {}) does not fit diagonal k={k} of a {m} x {n} \
                 matrix (whose diagonal has length {diag_len})",
                fmt_shape(s)
            ),
        ));
    }
    let mut out_shape = s[..s.len() - 1].to_vec();
    out_shape.extend([m, n]);
    crate::memory::ensure_shape(op, &out_shape, diagonal.dtype())?;
    fn put<T: Element>(
        a: &Values<T>,
        shape: &[usize],
        (m, n): (usize, usize),
        (r0, c0, len): (usize, usize, usize),
        padding: T,
    ) -> Values<T> {
        let d = a.as_slice();
        let count: usize = shape[..shape.len() - 2].iter().product();
        let mut values = vec![padding; count * m * n];
        // Empty diagonals write nothing: no loop over a batch of any length.
        let writes = if len == 0 { 0 } else { count };
        for b in 0..writes {
            for i in 0..len {
                values[b * m * n + (r0 + i) * n + c0 + i] = d[b * len + i];
            }
        }
        Values::from_vec(shape, values)
    }
    let y = Tensor::new(dispatch!(values all diagonal.data(), |a| put(
        a,
        &out_shape,
        (m, n),
        (r0, c0, len),
        Element::from_f64(padding_value)
    )));
    let rows = diagonal_rows(0, s.len() + 1, k);
    record_batched(
        op,
        &[diagonal],
        &y,
        &[],
        rows,
        true,
        move |_, dy, _batch| Ok(crate::grads![Some(matrix_diag_part(dy, k)?)]),
    );
    Ok(y)
}

/// `x` with diagonal `k` of each matrix replaced by `diagonal` (`x.shape[:-2] + [len]`), as
/// `tf.linalg.set_diag(x, diagonal, k=k)`.
pub fn matrix_set_diag(x: &Tensor, diagonal: &Tensor, k: i64) -> Result<Tensor> {
    let op = "set_diag";
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
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    check_offset(op, s, m, n, k)?;
    let (r0, c0, len) = diagonal_geometry(m, n, k);
    let mut want = s[..s.len() - 2].to_vec();
    want.push(len);
    if diagonal.shape() != want.as_slice() {
        return Err(Error::shape(
            op,
            format!(
                "diagonal must have shape {} for input of shape {} and k={k}, got {}",
                fmt_shape(&want),
                fmt_shape(s),
                fmt_shape(diagonal.shape())
            ),
        ));
    }
    fn put<T: Element>(
        a: &Values<T>,
        d: &Values<T>,
        (m, n): (usize, usize),
        (r0, c0, len): (usize, usize, usize),
    ) -> Values<T> {
        let mut values = a.as_slice().to_vec();
        let d = d.as_slice();
        let count = values.len().checked_div(m * n).unwrap_or(0);
        for b in 0..count {
            for i in 0..len {
                values[b * m * n + (r0 + i) * n + c0 + i] = d[b * len + i];
            }
        }
        Values::from_vec(a.shape(), values)
    }
    let y = Tensor::new(dispatch2!(all x.data(), diagonal.data(), op, |a, d| put(
        a,
        d,
        (m, n),
        (r0, c0, len)
    )));
    let rows = diagonal_rows(1, s.len(), k);
    let diagonal_shape = shape_of(diagonal);
    let dtype = x.dtype();
    record_batched(
        op,
        &[x, diagonal],
        &y,
        &[],
        rows,
        true,
        move |_, dy, batch| {
            let mut zeros_shape = dy.shape()[..batch].to_vec();
            zeros_shape.extend(diagonal_shape.iter().copied());
            let zeros = Tensor::zeros(&zeros_shape, dtype);
            Ok(crate::grads![
                Some(matrix_set_diag(dy, &zeros, k)?),
                Some(matrix_diag_part(dy, k)?),
            ])
        },
    );
    Ok(y)
}
