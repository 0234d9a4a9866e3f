//! Shape ops: reshape, broadcast_to, expand_dims, concat, stack, and the slices they need.
use ndarray::{ArcArray, Axis, IxDyn, Slice};

use super::{normalize_axis, shape_of, sum_to_shape};
use crate::dispatch;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::record;
use crate::tensor::{Element, Tensor};

/// A row-major reshape that shares storage when the layout allows.
fn reshape_array<T: Element>(a: &ArcArray<T, IxDyn>, shape: &[usize]) -> ArcArray<T, IxDyn> {
    let standard = if a.is_standard_layout() { a.clone() } else { a.as_standard_layout().into_owned().into_shared() };
    match standard.into_shape_with_order(IxDyn(shape)) {
        Ok(r) => r,
        Err(_) => unreachable!("element counts were validated"),
    }
}

/// The target shape of a reshape, resolving one `-1`.
fn resolve_shape(op: &str, from: &[usize], dims: &[isize]) -> Result<Vec<usize>> {
    let total: usize = from.iter().product();
    let unknown: Vec<usize> = (0..dims.len()).filter(|&i| dims[i] == -1).collect();
    let bad = || {
        Error::shape(op, format!("cannot reshape a tensor of shape {} ({total} elements) into {dims:?}", fmt_shape(from)))
    };
    if unknown.len() > 1 || dims.iter().any(|&d| d < -1) {
        return Err(bad());
    }
    let known: usize = dims.iter().filter(|&&d| d >= 0).map(|&d| d as usize).product();
    let mut out: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(&i) = unknown.first() {
        if known == 0 || total % known != 0 {
            return Err(bad());
        }
        out[i] = total / known;
    } else if known != total {
        return Err(bad());
    }
    Ok(out)
}

/// Reshape to `dims` (one `-1` is inferred).
pub fn reshape(x: &Tensor, dims: &[isize]) -> Result<Tensor> {
    let shape = resolve_shape("reshape", x.shape(), dims)?;
    if shape == x.shape() {
        return Ok(x.clone());
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| reshape_array(a, &shape)));
    let back: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
    record("reshape", &[x], &y, &[], move |_, dy| Ok(vec![Some(reshape(dy, &back)?)]));
    Ok(y)
}

/// Broadcast to `shape` (NumPy rules).
pub fn broadcast_to(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if x.shape() == shape {
        return Ok(x.clone());
    }
    let fits = super::broadcast_shapes("broadcast_to", x.shape(), shape).map(|s| s == shape).unwrap_or(false);
    if !fits {
        return Err(Error::shape(
            "broadcast_to",
            format!("cannot broadcast a tensor of shape {} to {}", fmt_shape(x.shape()), fmt_shape(shape)),
        ));
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| match a.broadcast(IxDyn(shape)) {
        Some(view) => view.to_owned(),
        None => unreachable!("validated above"),
    }));
    let in_shape = shape_of(x);
    record("broadcast_to", &[x], &y, &[], move |_, dy| Ok(vec![Some(sum_to_shape(dy, &in_shape)?)]));
    Ok(y)
}

/// Inserts a dimension of size 1 at `axis` (negative: counted from the end of the result).
pub fn expand_dims(x: &Tensor, axis: isize) -> Result<Tensor> {
    let axis = normalize_axis("expand_dims", axis, x.ndim() + 1)?;
    let mut dims: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
    dims.insert(axis, 1);
    reshape(x, &dims)
}

/// `x[.., start..end, ..]` along `axis`.
pub fn slice_axis(x: &Tensor, axis: usize, start: usize, end: usize) -> Result<Tensor> {
    let op = "slice_axis";
    if axis >= x.ndim() || start > end || end > x.shape()[axis] {
        return Err(Error::value(op, format!("cannot take {start}..{end} of axis {axis} of shape {}", fmt_shape(x.shape()))));
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| a.slice_axis(Axis(axis), Slice::from(start..end)).to_owned()));
    let len = x.shape()[axis];
    record(op, &[x], &y, &[], move |_, dy| Ok(vec![Some(pad_axis(dy, axis, start, len - end)?)]));
    Ok(y)
}

/// Zeros `before` and `after` along `axis` (the VJP of `slice_axis`, and its inverse).
pub fn pad_axis(x: &Tensor, axis: usize, before: usize, after: usize) -> Result<Tensor> {
    let mut parts = Vec::with_capacity(3);
    let mut zeros_shape = x.shape().to_vec();
    if before > 0 {
        zeros_shape[axis] = before;
        parts.push(Tensor::zeros(&zeros_shape, x.dtype()));
    }
    parts.push(x.clone());
    if after > 0 {
        zeros_shape[axis] = after;
        parts.push(Tensor::zeros(&zeros_shape, x.dtype()));
    }
    concat(&parts, axis as isize)
}

/// Joins tensors along an existing `axis`.
pub fn concat(values: &[Tensor], axis: isize) -> Result<Tensor> {
    let op = "concat";
    let first = values.first().ok_or_else(|| Error::value(op, "needs at least one tensor"))?;
    let axis = normalize_axis(op, axis, first.ndim())?;
    for v in values {
        let same_rest = v.ndim() == first.ndim()
            && (0..v.ndim()).all(|i| i == axis || v.shape()[i] == first.shape()[i]);
        if !same_rest {
            return Err(Error::shape(
                op,
                format!(
                    "all shapes must match except on axis {axis}, got {} and {}",
                    fmt_shape(first.shape()),
                    fmt_shape(v.shape())
                ),
            ));
        }
        super::same_dtype(op, first, v)?;
    }
    if values.len() == 1 {
        return Ok(first.clone());
    }
    fn join<T: Element>(_like: &ArcArray<T, IxDyn>, values: &[Tensor], axis: usize) -> ArcArray<T, IxDyn> {
        let views: Vec<_> = values.iter().filter_map(|v| v.array::<T>()).map(|a| a.view()).collect();
        match ndarray::concatenate(Axis(axis), &views) {
            Ok(a) => a.into_shared(),
            Err(_) => unreachable!("shapes were validated"),
        }
    }
    let y = Tensor::new(dispatch!(all first.data(), |a| join(a, values, axis)));
    let sizes: Vec<usize> = values.iter().map(|v| v.shape()[axis]).collect();
    let inputs: Vec<&Tensor> = values.iter().collect();
    record(op, &inputs, &y, &[], move |_, dy| {
        let mut start = 0;
        sizes
            .iter()
            .map(|&n| {
                let part = slice_axis(dy, axis, start, start + n);
                start += n;
                part.map(Some)
            })
            .collect()
    });
    Ok(y)
}

/// Joins tensors of one shape along a new `axis`.
pub fn stack(values: &[Tensor], axis: isize) -> Result<Tensor> {
    let first = values.first().ok_or_else(|| Error::value("stack", "needs at least one tensor"))?;
    let axis = normalize_axis("stack", axis, first.ndim() + 1)? as isize;
    if let Some(v) = values.iter().find(|v| v.shape() != first.shape()) {
        return Err(Error::shape(
            "stack",
            format!("all tensors must have the same shape, got {} and {}", fmt_shape(first.shape()), fmt_shape(v.shape())),
        ));
    }
    let expanded = values.iter().map(|v| expand_dims(v, axis)).collect::<Result<Vec<_>>>()?;
    concat(&expanded, axis)
}
