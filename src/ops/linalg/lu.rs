//! `lu`: TensorFlow's packed LU factorisation with partial pivoting (`tf.linalg.lu`), real or
//! complex, batched. `lower_upper` holds the unit lower factor below the diagonal and the upper
//! factor on and above it; `permutation[i]` is the row of the input that row `i` of `L @ U`
//! is (`L @ U == gather(x, permutation)` per matrix).
//!
//! TensorFlow registers no gradient for `Lu`, so neither does rustape (the output is not
//! recorded); `lu_solve`, `lu_matrix_inverse` and `lu_reconstruct` are compositions in Python
//! whose gradients with respect to `lower_upper` and the right-hand side are TensorFlow's.
use super::matrices::holds_empty_matrices;
use super::solve::{check_square, lu_factor, LuElem};
use crate::dispatch;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::{Data, Tensor};

fn lu_batch<T: LuElem>(values: &[T], n: usize, op: &str) -> Result<(Vec<T>, Vec<usize>)> {
    let count = values.len() / (n * n);
    let mut lu: Vec<T> = crate::memory::try_vec(op, values.len())?;
    lu.extend_from_slice(values);
    let mut perms: Vec<usize> = crate::memory::try_vec(op, count * n)?;
    for (i, matrix) in lu.chunks_mut(n * n).enumerate() {
        match lu_factor(matrix, n) {
            Some(p) => perms.extend(p),
            None => {
                return Err(Error::value(
                    op,
                    format!(
                        "Input is not invertible (matrix {i} of the batch has a zero pivot in \
                         its LU factorisation)"
                    ),
                ))
            }
        }
    }
    Ok((lu, perms))
}

/// The packed LU factorisation of each square matrix of `x` (`[..., M, M]`, float or complex)
/// with partial pivoting, as `tf.linalg.lu`: `(lower_upper, permutation)`, `permutation`
/// (`[..., M]`) of `index_dtype` (int32 or int64). Not differentiable (TensorFlow registers no
/// gradient for it).
pub fn lu(x: &Tensor, index_dtype: DType) -> Result<(Tensor, Tensor)> {
    let op = "lu";
    let n = check_square(op, x)?;
    if !matches!(index_dtype, DType::I32 | DType::I64) {
        return Err(Error::dtype(
            op,
            format!("output_idx_type must be int32 or int64, got {index_dtype}"),
        ));
    }
    let shape = x.shape().to_vec();
    let perm_shape = &shape[..shape.len() - 1];
    if holds_empty_matrices(x) {
        let empty = Tensor::zeros(&shape, x.dtype());
        return Ok((empty, Tensor::zeros(perm_shape, index_dtype)));
    }
    let perms: Vec<usize>;
    let data: Data = dispatch!(values float_or_complex x.data(), op, |a| {
        let (lu, p) = lu_batch(a.as_slice(), n, op)?;
        perms = p;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), lu).map_err(|_| {
            Error::shape(op, format!("internal error for shape {}", fmt_shape(&shape)))
        })?
    });
    let permutation = match index_dtype {
        DType::I64 => Tensor::from_vec(perms.iter().map(|&p| p as i64).collect(), perm_shape)?,
        _ => Tensor::from_vec(perms.iter().map(|&p| p as i32).collect(), perm_shape)?,
    };
    Ok((Tensor::new(data), permutation))
}
