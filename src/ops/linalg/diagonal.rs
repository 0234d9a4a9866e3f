//! Generalised diagonals, for einsum's repeated labels: `diagonal_part` walks several axes
//! together, `diagonal_embed` puts values back on such a diagonal (each is the other's VJP).
use ndarray::{ArrayD, IxDyn};

use crate::dispatch;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::shape_of;
use crate::tape::{record_batched, AxisTable, Rows};
use crate::tensor::{Element, Tensor};

/// Validates `axis_map` (input axis -> output axis, onto `0..k`) for `shape`, returning the
/// output shape.
fn diagonal_shape(op: &str, shape: &[usize], axis_map: &[usize]) -> Result<Vec<usize>> {
    if axis_map.len() != shape.len() {
        return Err(Error::value(
            op,
            format!(
                "axis map {axis_map:?} does not match a tensor of shape {}",
                fmt_shape(shape)
            ),
        ));
    }
    let k = axis_map.iter().map(|&j| j + 1).max().unwrap_or(0);
    let mut out: Vec<Option<usize>> = vec![None; k];
    for (i, &j) in axis_map.iter().enumerate() {
        match out[j] {
            None => out[j] = Some(shape[i]),
            Some(d) if d == shape[i] => {}
            Some(d) => {
                return Err(Error::shape(
                    op,
                    format!(
                    "axes mapped to one diagonal must have equal sizes, got {d} and {} in shape {}",
                    shape[i],
                    fmt_shape(shape)
                ),
                ))
            }
        }
    }
    out.into_iter()
        .map(|d| {
            d.ok_or_else(|| Error::value(op, format!("axis map {axis_map:?} skips an output axis")))
        })
        .collect()
}

/// Row-major offsets into a standard-layout array of `full` shape, for every index of the
/// `diag` shape (row-major), where diagonal axis `j` steps every full axis mapped to it.
fn diagonal_offsets(full: &[usize], axis_map: &[usize], diag: &[usize]) -> Vec<usize> {
    let mut full_strides = vec![0usize; full.len()];
    let mut acc = 1;
    for i in (0..full.len()).rev() {
        full_strides[i] = acc;
        acc *= full[i];
    }
    let mut steps = vec![0usize; diag.len()];
    for (i, &j) in axis_map.iter().enumerate() {
        steps[j] += full_strides[i];
    }
    let count: usize = diag.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; diag.len()];
    let mut offset = 0usize;
    for _ in 0..count {
        out.push(offset);
        for d in (0..diag.len()).rev() {
            index[d] += 1;
            offset += steps[d];
            if index[d] < diag[d] {
                break;
            }
            offset -= steps[d] * diag[d];
            index[d] = 0;
        }
    }
    out
}

/// The axis tables of `diagonal_part` and `diagonal_embed` (for `batch_jacobian`): axis `i` of
/// the full tensor is axis `axis_map[i]` of the diagonal. Row `k` along a full axis meets only
/// row `k` along the diagonal axis, even when other axes walk with it (`y[i] = x[i, i]` reads
/// row `i` of `x`); a diagonal axis is the first full axis that walks it.
fn diagonal_rows(axis_map: &[usize], diagonal_rank: usize, part: bool) -> AxisTable {
    if part {
        let map: Vec<Option<usize>> = axis_map.iter().map(|&j| Some(j)).collect();
        AxisTable::axes(&[&map], diagonal_rank)
    } else {
        let map: Vec<Option<usize>> = (0..diagonal_rank)
            .map(|j| axis_map.iter().position(|&a| a == j))
            .collect();
        AxisTable::axes(&[&map], axis_map.len())
    }
}

/// `axis_map` and the full `shape` for a cotangent `dy` with `batch` leading batch axes (see
/// `crate::tape::Vjp`): each batch axis maps to itself, in front of the diagonal's axes.
fn batched_map(
    dy: &Tensor,
    batch: usize,
    axis_map: &[usize],
    shape: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let map = (0..batch)
        .chain(axis_map.iter().map(|&j| j + batch))
        .collect();
    let full = dy.shape()[..batch].iter().chain(shape).copied().collect();
    (map, full)
}

/// The generalised diagonal: axis `i` of `x` becomes axis `axis_map[i]` of the result; axes
/// mapped to the same output axis are walked together (`[1, 0, 0]` on `[i, j, j]`-labelled
/// `x` gives `y[j, i] = x[i, j, j]`). Its gradient embeds back into zeros
/// ([`diagonal_embed`]).
pub fn diagonal_part(x: &Tensor, axis_map: &[usize]) -> Result<Tensor> {
    let op = "diagonal_part";
    let diag = diagonal_shape(op, x.shape(), axis_map)?;
    let offsets = diagonal_offsets(x.shape(), axis_map, &diag);
    fn take<T: Element>(
        a: &ndarray::ArrayViewD<'_, T>,
        offsets: &[usize],
        diag: &[usize],
    ) -> ArrayD<T> {
        let standard = a.as_standard_layout();
        let values: Vec<T> = match standard.as_slice() {
            Some(s) => offsets.iter().map(|&o| s[o]).collect(),
            None => unreachable!("a standard-layout array is contiguous"),
        };
        match ArrayD::from_shape_vec(IxDyn(diag), values) {
            Ok(v) => v,
            Err(_) => unreachable!("one value per index"),
        }
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| take(a, &offsets, &diag)));
    let full = shape_of(x);
    let map = axis_map.to_vec();
    record_batched(
        op,
        &[x],
        &y,
        &[],
        Rows::Table(&|| diagonal_rows(axis_map, diag.len(), true)),
        true,
        move |_, dy, batch| {
            let (map, full) = batched_map(dy, batch, &map, &full);
            Ok(crate::grads![Some(diagonal_embed(dy, &map, &full)?)])
        },
    );
    Ok(y)
}

/// The inverse of [`diagonal_part`]: a tensor of shape `shape`, zero except on the diagonal,
/// which holds `x`. Its gradient is the diagonal part.
pub fn diagonal_embed(x: &Tensor, axis_map: &[usize], shape: &[usize]) -> Result<Tensor> {
    let op = "diagonal_embed";
    let diag = diagonal_shape(op, shape, axis_map)?;
    if diag != x.shape() {
        return Err(Error::shape(
            op,
            format!(
                "the diagonal of shape {} under axis map {axis_map:?} is {}, got a tensor of shape {}",
                fmt_shape(shape),
                fmt_shape(&diag),
                fmt_shape(x.shape())
            ),
        ));
    }
    let offsets = diagonal_offsets(shape, axis_map, &diag);
    fn put<T: Element>(
        a: &ndarray::ArrayViewD<'_, T>,
        offsets: &[usize],
        shape: &[usize],
    ) -> ArrayD<T> {
        let total: usize = shape.iter().product();
        let mut values = vec![T::default(); total];
        for (&o, &v) in offsets.iter().zip(a.iter()) {
            values[o] = v;
        }
        match ArrayD::from_shape_vec(IxDyn(shape), values) {
            Ok(v) => v,
            Err(_) => unreachable!("one value per index"),
        }
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| put(a, &offsets, shape)));
    let map = axis_map.to_vec();
    let full = shape.to_vec();
    record_batched(
        op,
        &[x],
        &y,
        &[],
        Rows::Table(&|| diagonal_rows(axis_map, diag.len(), false)),
        true,
        move |_, dy, batch| {
            let (map, _) = batched_map(dy, batch, &map, &full);
            Ok(crate::grads![Some(diagonal_part(dy, &map)?)])
        },
    );
    Ok(y)
}
