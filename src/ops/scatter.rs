//! N-dimensional indexing: `gather_nd`, `scatter_nd`, `tensor_scatter_nd_add` and
//! `tensor_scatter_nd_update`, as TensorFlow has them. `indices` (int32 or int64) has shape
//! `[..., q]`: each of its rows names a slice of the indexed tensor by its first `q`
//! coordinates. Every coordinate is checked: one out of range is a ValueError naming it.
//!
//! Each op becomes a [`gather`] or [`scatter_add_to`] along one axis of the tensor reshaped
//! so that the `q` indexed axes are one (the coordinates linearised, row-major), so their
//! gradients are those ops' (each the other's adjoint).
use super::{add, gather, logical_not, reshape, scatter_add_to, where_};
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::{Data, Tensor};

/// Rows of `indices` (`[..., q]`) checked against `shape[skip..skip + q]` and linearised
/// (row-major), with the shape of the result (`indices.shape[..-1]`).
fn linear_indices(
    op: &str,
    indices: &Tensor,
    shape: &[usize],
    skip: usize,
    what: &str,
) -> Result<(Tensor, usize)> {
    let values: Vec<i64> = match indices.data() {
        Data::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Data::I64(a) => a.iter().copied().collect(),
        other => {
            return Err(Error::dtype(
                op,
                format!("indices must be int32 or int64, got {}", other.dtype()),
            ))
        }
    };
    let Some(&q) = indices.shape().last() else {
        return Err(Error::shape(
            op,
            "indices must have rank at least 1, got a scalar",
        ));
    };
    if skip + q > shape.len() {
        return Err(Error::shape(
            op,
            format!(
                "the last dimension of indices (shape {}) is {q}, more than the {} axes of {what} (shape {}) it can index",
                fmt_shape(indices.shape()),
                shape.len() - skip,
                fmt_shape(shape)
            ),
        ));
    }
    let dims = &shape[skip..skip + q];
    let lead = &indices.shape()[..indices.ndim() - 1];
    let rows: usize = lead.iter().product();
    let mut linear = Vec::with_capacity(rows);
    for r in 0..rows {
        let mut flat = 0i64;
        for (j, &d) in dims.iter().enumerate() {
            let v = values[r * q + j];
            if v < 0 || v as u64 >= d as u64 {
                let row: Vec<i64> = values[r * q..(r + 1) * q].to_vec();
                return Err(Error::value(
                    op,
                    format!(
                        "indices row {r} = {row:?} does not index into {what} of shape {}: coordinate {j} is not in [0, {d})",
                        fmt_shape(shape)
                    ),
                ));
            }
            flat = flat * d as i64 + v;
        }
        linear.push(flat);
    }
    Ok((Tensor::from_vec(linear, lead)?, dims.iter().product()))
}

/// `shape` with the `q` axes from `skip` merged into one of `size` elements.
fn merged(shape: &[usize], skip: usize, q: usize, size: usize) -> Vec<isize> {
    shape[..skip]
        .iter()
        .copied()
        .chain([size])
        .chain(shape[skip + q..].iter().copied())
        .map(|d| d as isize)
        .collect()
}

/// The slices of `params` named by the rows of `indices` (`tf.gather_nd`): the result has
/// shape `indices.shape[:-1] + params.shape[batch_dims + q:]`. With `batch_dims` the first
/// axes of `params` and `indices` are batch axes (equal sizes), each batch indexed apart.
pub fn gather_nd(params: &Tensor, indices: &Tensor, batch_dims: usize) -> Result<Tensor> {
    let op = "gather_nd";
    if batch_dims > 0 && (batch_dims >= indices.ndim() || batch_dims > params.ndim()) {
        return Err(Error::value(
            op,
            format!(
                "batch_dims = {batch_dims} must be less than the rank of indices (shape {}) and at most the rank of params (shape {})",
                fmt_shape(indices.shape()),
                fmt_shape(params.shape())
            ),
        ));
    }
    if params.shape()[..batch_dims] != indices.shape()[..batch_dims] {
        return Err(Error::shape(
            op,
            format!(
                "the first batch_dims = {batch_dims} axes of params (shape {}) and indices (shape {}) must match",
                fmt_shape(params.shape()),
                fmt_shape(indices.shape())
            ),
        ));
    }
    let (linear, size) = linear_indices(op, indices, params.shape(), batch_dims, "params")?;
    let q = indices.shape().last().copied().unwrap_or(0);
    let flat = reshape(params, &merged(params.shape(), batch_dims, q, size))?;
    gather(&flat, &linear, batch_dims as isize, batch_dims)
}

/// Zeros of `shape` with `updates` added at the slices the rows of `indices` name
/// (`tf.scatter_nd`; repeated rows add up). `updates` has shape
/// `indices.shape[:-1] + shape[q:]`. Gradient: `gather_nd` of `dy`.
pub fn scatter_nd(indices: &Tensor, updates: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let op = "scatter_nd";
    let (linear, size) = linear_indices(op, indices, shape, 0, "the output")?;
    let q = indices.shape().last().copied().unwrap_or(0);
    let flat_shape: Vec<usize> = merged(shape, 0, q, size)
        .iter()
        .map(|&d| d as usize)
        .collect();
    let want: Vec<usize> = linear.shape().iter().chain(&shape[q..]).copied().collect();
    if updates.shape() != want {
        return Err(Error::shape(
            op,
            format!(
                "updates must have shape {} (indices {} into shape {}), got {}",
                fmt_shape(&want),
                fmt_shape(indices.shape()),
                fmt_shape(shape),
                fmt_shape(updates.shape())
            ),
        ));
    }
    let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    reshape(&scatter_add_to(updates, &linear, 0, 0, &flat_shape)?, &dims)
}

/// `tensor` with `updates` added at the slices the rows of `indices` name
/// (`tf.tensor_scatter_nd_add`). Gradients: `dy` to `tensor`, `gather_nd(dy)` to `updates`.
pub fn tensor_scatter_nd_add(
    tensor: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
) -> Result<Tensor> {
    super::same_dtype("tensor_scatter_nd_add", tensor, updates)?;
    let scattered = scatter_nd(indices, updates, tensor.shape())
        .map_err(|e| Error::new(e.kind, "tensor_scatter_nd_add", e.message))?;
    add(tensor, &scattered)
}

/// `tensor` with the slices the rows of `indices` name replaced by `updates`
/// (`tf.tensor_scatter_nd_update`); where rows repeat, the last one wins. Gradients: `dy`
/// where `tensor` was kept, zero where replaced; `gather_nd(dy)` to each update that was
/// written (an update overwritten by a later row gets zero).
pub fn tensor_scatter_nd_update(
    tensor: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
) -> Result<Tensor> {
    let op = "tensor_scatter_nd_update";
    super::same_dtype(op, tensor, updates)?;
    let rename = |e: Error| Error::new(e.kind, op, e.message);
    let (linear, _) = linear_indices(op, indices, tensor.shape(), 0, "tensor").map_err(rename)?;
    // Keep only the last row naming each slice.
    let lin = linear.to_f64_vec();
    let kept: Vec<bool> = (0..lin.len())
        .map(|i| !lin[i + 1..].contains(&lin[i]))
        .collect();
    let q = indices.shape().last().copied().unwrap_or(0);
    let rows = lin.len();
    let mask_shape: Vec<usize> = std::iter::once(rows)
        .chain(std::iter::repeat_n(1, tensor.ndim() - q))
        .collect();
    let kept = Tensor::from_vec(kept, &mask_shape)?;
    // updates as [rows, rest..]: zero the overwritten ones (their gradient is then zero too).
    let rest: Vec<isize> = std::iter::once(rows as isize)
        .chain(tensor.shape()[q..].iter().map(|&d| d as isize))
        .collect();
    let flat_updates = reshape(updates, &rest).map_err(|_| {
        Error::shape(
            op,
            format!(
                "updates of shape {} do not fit indices of shape {} into tensor of shape {}",
                fmt_shape(updates.shape()),
                fmt_shape(indices.shape()),
                fmt_shape(tensor.shape())
            ),
        )
    })?;
    let zero = Tensor::shared_scalar_of(0.0, updates.dtype());
    let written = reshape(
        &where_(&kept, &flat_updates, &zero)?,
        &updates_dims(updates),
    )?;
    let scattered = scatter_nd(indices, &written, tensor.shape()).map_err(rename)?;
    // Which elements of `tensor` are replaced: a scatter of ones (no gradient).
    let ones = Tensor::ones(updates.shape(), crate::dtype::DType::I32);
    let hit = scatter_nd(indices, &ones, tensor.shape())?;
    let replaced = super::greater(&hit, &Tensor::shared_scalar(0i32))?;
    where_(&logical_not(&replaced)?, tensor, &scattered)
}

fn updates_dims(updates: &Tensor) -> Vec<isize> {
    updates.shape().iter().map(|&d| d as isize).collect()
}
