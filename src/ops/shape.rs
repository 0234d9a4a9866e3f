//! Shape ops: reshape, broadcast_to, expand_dims, squeeze, transpose, concat, stack, unstack,
//! pad, tile, slice_axis and pad_axis. Gather, scatter and strided slicing are in
//! `indexing.rs`.
//!
//! Every kernel returns a standard-layout (row-major, contiguous) array.
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};

use super::indexing::{batched_items, gather, place, strided_slice, SliceItem, SlicePlan};
use super::{
    batched_dims, normalize_axes, normalize_axis, reduce_sum, shape_of, sum_to_batched_shape,
};
use crate::dispatch;
use crate::error::{fmt_shape, Error, Result};
use crate::memory::{checked_add, checked_mul, checked_size, ensure_shape};
use crate::tape::{record_batched, record_multi, AxisMap, AxisTable, Rows, Vjp};
use crate::tensor::{Element, Tensor};

/// A row-major reshape of a standard-layout view (a tensor's view always is): no copy.
pub(super) fn reshape_view<'a, T>(a: &ArrayViewD<'a, T>, shape: &[usize]) -> ArrayViewD<'a, T> {
    match a.clone().into_shape_with_order(IxDyn(shape)) {
        Ok(r) => r,
        Err(_) => unreachable!("element counts were validated and the view is standard"),
    }
}

/// A row-major reshape of a standard-layout array: no copy.
pub(super) fn reshape_owned<T>(a: ArrayD<T>, shape: &[usize]) -> ArrayD<T> {
    match a.into_shape_with_order(IxDyn(shape)) {
        Ok(r) => r,
        Err(_) => unreachable!("element counts were validated and the array is standard"),
    }
}

/// The target shape of a reshape, resolving one `-1`.
fn resolve_shape(op: &str, from: &[usize], dims: &[isize]) -> Result<Vec<usize>> {
    let total: usize = from.iter().product();
    let nonzero: Vec<usize> = dims
        .iter()
        .filter(|&&d| d > 0)
        .map(|&d| d as usize)
        .collect();
    checked_size(op, &nonzero)?;
    let unknown: Vec<usize> = (0..dims.len()).filter(|&i| dims[i] == -1).collect();
    let bad = || {
        Error::shape(
            op,
            format!(
                "cannot reshape a tensor of shape {} ({total} elements) into {dims:?}",
                fmt_shape(from)
            ),
        )
    };
    if unknown.len() > 1 || dims.iter().any(|&d| d < -1) {
        return Err(bad());
    }
    let known: usize = dims
        .iter()
        .filter(|&&d| d >= 0)
        .map(|&d| d as usize)
        .product();
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

/// A one-input op that keeps every axis in place, mixing elements along `axis` when `mixes`.
fn mixes_along(rank: usize, axis: usize, mixes: bool) -> AxisMap {
    match mixes {
        true => AxisMap::along(rank, &[axis]),
        false => AxisMap::ELEMENTWISE,
    }
}

/// Reshape to `dims` (one `-1` is inferred).
pub fn reshape(x: &Tensor, dims: &[isize]) -> Result<Tensor> {
    let shape = resolve_shape("reshape", x.shape(), dims)?;
    if shape == x.shape() {
        return Ok(x.clone());
    }
    // The same elements under a new shape: no copy.
    let y = Tensor::new(x.data().reshaped(&shape));
    let back = shape_of(x);
    // The same row-major order: a batch axis survives while its rows stay blocks of one axis.
    let table = || AxisTable::reshape(x.shape(), &shape);
    let rows = Rows::Table(&table);
    record_batched("reshape", &[x], &y, &[], rows, true, move |_, dy, batch| {
        Ok(crate::grads![Some(reshape(
            dy,
            &batched_dims(dy, batch, &back)
        )?)])
    });
    Ok(y)
}

/// Broadcast to `shape` (NumPy rules).
pub fn broadcast_to(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if x.shape() == shape {
        return Ok(x.clone());
    }
    let fits = super::broadcast_shapes("broadcast_to", x.shape(), shape)
        .map(|s| s == shape)
        .unwrap_or(false);
    if !fits {
        return Err(Error::shape(
            "broadcast_to",
            format!(
                "cannot broadcast a tensor of shape {} to {}",
                fmt_shape(x.shape()),
                fmt_shape(shape)
            ),
        ));
    }
    ensure_shape("broadcast_to", shape, x.dtype())?;
    let y = Tensor::new(dispatch!(values all x.data(), |a| a.broadcast_to(shape)));
    let in_shape = shape_of(x);
    // Aligned from the end; only axes of size 1 (never a batch axis) are broadcast.
    record_batched(
        "broadcast_to",
        &[x],
        &y,
        &[],
        AxisMap::ELEMENTWISE,
        true,
        move |_, dy, batch| {
            Ok(crate::grads![Some(sum_to_batched_shape(
                dy, batch, &in_shape
            )?)])
        },
    );
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
        return Err(Error::value(
            op,
            format!(
                "cannot take {start}..{end} of axis {axis} of shape {}",
                fmt_shape(x.shape())
            ),
        ));
    }
    let y = Tensor::new(
        dispatch!(all x.data(), |a| a.slice_axis(Axis(axis), Slice::from(start..end)).to_owned()),
    );
    let len = x.shape()[axis];
    let rows = mixes_along(x.ndim(), axis, (start, end) != (0, len));
    record_batched(op, &[x], &y, &[], rows, true, move |_, dy, batch| {
        Ok(crate::grads![Some(pad_axis(
            dy,
            axis + batch,
            start,
            len - end
        )?)])
    });
    Ok(y)
}

/// Zeros `before` and `after` along `axis` (the VJP of `slice_axis`, and its inverse).
pub fn pad_axis(x: &Tensor, axis: usize, before: usize, after: usize) -> Result<Tensor> {
    if axis >= x.ndim() {
        return Err(Error::value(
            "pad_axis",
            format!(
                "axis {axis} is out of range for a tensor of shape {}",
                fmt_shape(x.shape())
            ),
        ));
    }
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
    let first = values
        .first()
        .ok_or_else(|| Error::value(op, "needs at least one tensor"))?;
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
    let mut out_shape = first.shape().to_vec();
    out_shape[axis] = values
        .iter()
        .try_fold(0, |n, v| checked_add(op, n, v.shape()[axis]))?;
    ensure_shape(op, &out_shape, first.dtype())?;
    fn join<T: Element>(
        _like: &ndarray::ArrayViewD<'_, T>,
        values: &[Tensor],
        axis: usize,
    ) -> ArrayD<T> {
        let views: Vec<_> = values.iter().filter_map(|v| v.array::<T>()).collect();
        match ndarray::concatenate(Axis(axis), &views) {
            Ok(a) => a,
            Err(_) => unreachable!("shapes were validated"),
        }
    }
    let y = Tensor::new(dispatch!(all first.data(), |a| join(a, values, axis)));
    let sizes: Vec<usize> = values.iter().map(|v| v.shape()[axis]).collect();
    let inputs: Vec<&Tensor> = values.iter().collect();
    // The parts' elements along `axis` move to other indices of the result.
    let rows = AxisMap::along(first.ndim(), &[axis]);
    record_batched(op, &inputs, &y, &[], rows, true, move |_, dy, batch| {
        let mut start = 0;
        sizes
            .iter()
            .map(|&n| {
                let part = slice_axis(dy, axis + batch, start, start + n);
                start += n;
                part.map(Some)
            })
            .collect()
    });
    Ok(y)
}

/// Joins tensors of one shape along a new `axis`.
pub fn stack(values: &[Tensor], axis: isize) -> Result<Tensor> {
    let first = values
        .first()
        .ok_or_else(|| Error::value("stack", "needs at least one tensor"))?;
    let axis = normalize_axis("stack", axis, first.ndim() + 1)? as isize;
    if let Some(v) = values.iter().find(|v| v.shape() != first.shape()) {
        return Err(Error::shape(
            "stack",
            format!(
                "all tensors must have the same shape, got {} and {}",
                fmt_shape(first.shape()),
                fmt_shape(v.shape())
            ),
        ));
    }
    for v in values {
        super::same_dtype("stack", first, v)?;
    }
    let expanded = values
        .iter()
        .map(|v| expand_dims(v, axis))
        .collect::<Result<Vec<_>>>()?;
    concat(&expanded, axis)
}

/// A copy of `view` in standard layout.
///
/// Strided views (transposes, slices) are copied by [`strided_copy`]: ndarray's own copy walks
/// an `IxDyn` index per element (about 12 ns each: 50 us for the transpose of a `[1024, 2, 2]`
/// cotangent).
pub(super) fn standard<T: Element>(view: ArrayViewD<'_, T>) -> ArrayD<T> {
    if view.is_standard_layout() {
        return view.to_owned();
    }
    let shape = view.raw_dim();
    match ArrayD::from_shape_vec(shape, strided_copy(&view)) {
        Ok(a) => a,
        Err(_) => view.as_standard_layout().into_owned(),
    }
}

/// Tile side of [`strided_copy`]'s two innermost axes: a tile of both the source's and the
/// destination's rows stays in L1 whichever of them is the unit-stride one.
const TILE: usize = 16;

/// The elements of `view` in row-major order. Axes of size 1 are dropped and neighbours that
/// step through memory as one axis are merged; the two innermost axes left are copied in
/// tiles, the outer ones counted through like an odometer.
fn strided_copy<T: Copy>(view: &ArrayViewD<'_, T>) -> Vec<T> {
    let n = view.len();
    let mut axes: smallvec::SmallVec<[(usize, isize); 6]> = smallvec::SmallVec::new();
    for (&d, &s) in view.shape().iter().zip(view.strides()) {
        if d == 1 {
            continue;
        }
        match axes.last_mut() {
            Some((pd, ps)) if *ps == s * d as isize => {
                *pd *= d;
                *ps = s;
            }
            _ => axes.push((d, s)),
        }
    }
    while axes.len() < 2 {
        axes.insert(0, (1, 0));
    }
    let mut out: Vec<T> = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let (outer, inner) = axes.split_at(axes.len() - 2);
    let [(rows, row_step), (cols, col_step)] = [inner[0], inner[1]];
    let src = view.as_ptr();
    let dst = out.as_mut_ptr();
    let mut index: smallvec::SmallVec<[usize; 6]> = smallvec::smallvec![0; outer.len()];
    let mut base: isize = 0;
    let mut written = 0;
    while written < n {
        // SAFETY: `base + i * row_step + j * col_step` is the offset of an element of `view`
        // (from its first element, negative strides included) for every `i < rows`,
        // `j < cols`; `written + i * cols + j < n` is within `out`'s capacity.
        unsafe {
            let dst = dst.add(written);
            if col_step == 1 {
                for i in 0..rows {
                    let from = src.offset(base + i as isize * row_step);
                    std::ptr::copy_nonoverlapping(from, dst.add(i * cols), cols);
                }
            } else {
                for i0 in (0..rows).step_by(TILE) {
                    for j0 in (0..cols).step_by(TILE) {
                        for i in i0..(i0 + TILE).min(rows) {
                            let from = src.offset(base + i as isize * row_step);
                            for j in j0..(j0 + TILE).min(cols) {
                                *dst.add(i * cols + j) = *from.offset(j as isize * col_step);
                            }
                        }
                    }
                }
            }
        }
        written += rows * cols;
        // The next block of the outer axes (odometer, last axis fastest).
        for (a, &(d, s)) in outer.iter().enumerate().rev() {
            index[a] += 1;
            base += s;
            if index[a] < d {
                break;
            }
            index[a] = 0;
            base -= s * d as isize;
        }
    }
    // SAFETY: the blocks above wrote every one of the `n` elements.
    unsafe { out.set_len(n) };
    out
}

/// Removes dimensions of size 1: the given `axes` (each must have size 1), or every one.
pub fn squeeze(x: &Tensor, axes: Option<&[isize]>) -> Result<Tensor> {
    let op = "squeeze";
    let drop: Vec<usize> = match axes {
        None => (0..x.ndim()).filter(|&i| x.shape()[i] == 1).collect(),
        Some(axes) => {
            let axes = normalize_axes(op, Some(axes), x.ndim())?;
            if let Some(&a) = axes.iter().find(|&&a| x.shape()[a] != 1) {
                return Err(Error::shape(
                    op,
                    format!(
                        "cannot squeeze axis {a} of a tensor of shape {}: its size is {}, not 1",
                        fmt_shape(x.shape()),
                        x.shape()[a]
                    ),
                ));
            }
            axes
        }
    };
    let dims: Vec<isize> = (0..x.ndim())
        .filter(|i| !drop.contains(i))
        .map(|i| x.shape()[i] as isize)
        .collect();
    reshape(x, &dims)
}

/// Permutes the axes: axis `i` of the result is axis `perm[i]` of `x`. `None` reverses them.
pub fn transpose(x: &Tensor, perm: Option<&[usize]>) -> Result<Tensor> {
    let op = "transpose";
    let n = x.ndim();
    let perm: Vec<usize> = match perm {
        None => (0..n).rev().collect(),
        Some(p) => {
            let mut seen = vec![false; n];
            let valid = p.len() == n
                && p.iter()
                    .all(|&a| a < n && !std::mem::replace(&mut seen[a], true));
            if !valid {
                return Err(Error::value(
                    op,
                    format!(
                        "perm {p:?} is not a permutation of the {n} axes of a tensor of shape {}",
                        fmt_shape(x.shape())
                    ),
                ));
            }
            p.to_vec()
        }
    };
    if perm.iter().enumerate().all(|(i, &a)| i == a) {
        return Ok(x.clone());
    }
    let y =
        Tensor::new(dispatch!(all x.data(), |a| standard(a.view().permuted_axes(IxDyn(&perm)))));
    let mut inverse = vec![0; n];
    for (i, &a) in perm.iter().enumerate() {
        inverse[a] = i;
    }
    record_batched(
        op,
        &[x],
        &y,
        &[],
        AxisMap::permute(&perm),
        true,
        move |_, dy, batch| {
            // The batch axes stay in front; the op's own axes follow them.
            let perm: Vec<usize> = (0..batch)
                .chain(inverse.iter().map(|&a| a + batch))
                .collect();
            Ok(crate::grads![Some(transpose(dy, Some(&perm))?)])
        },
    );
    Ok(y)
}

/// Splits `x` along `axis` into `x.shape[axis]` tensors of rank `x.ndim() - 1`.
pub fn unstack(x: &Tensor, axis: isize) -> Result<Vec<Tensor>> {
    let op = "unstack";
    if x.ndim() == 0 {
        return Err(Error::shape(op, "cannot unstack a scalar (shape [])"));
    }
    let axis = normalize_axis(op, axis, x.ndim())?;
    let n = x.shape()[axis];
    crate::tape::check_output_count(op, n)?;
    let outputs: Vec<Tensor> = (0..n)
        .map(|i| Tensor::new(dispatch!(all x.data(), |a| standard(a.index_axis(Axis(axis), i)))))
        .collect();
    let mut part_shape = x.shape().to_vec();
    part_shape.remove(axis);
    let dtype = x.dtype();
    let vjp: Arc<Vjp> = Arc::new(
        move |_: &[Tensor], grads: &[Option<Tensor>], batch: usize| {
            // Outputs that got no gradient count as zeros, with the batch axes of those that did.
            let lead = grads
                .iter()
                .flatten()
                .next()
                .map(|g| g.shape()[..batch].to_vec())
                .unwrap_or_default();
            let zeros_shape = [lead, part_shape.clone()].concat();
            let parts: Vec<Tensor> = grads
                .iter()
                .map(|g| {
                    g.clone()
                        .unwrap_or_else(|| Tensor::zeros(&zeros_shape, dtype))
                })
                .collect();
            Ok(crate::grads![Some(stack(&parts, (axis + batch) as isize)?)])
        },
    );
    let refs: Vec<&Tensor> = outputs.iter().collect();
    if !refs.is_empty() {
        // Each output is one index along `axis`, which is gone.
        let rows = AxisMap::select(x.ndim(), &[axis], &[axis], x.ndim() - 1, &[]);
        record_multi(op, &[x], &refs, &[], rows, true, vjp);
    }
    Ok(outputs)
}

/// How [`pad`] fills the border (TensorFlow's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// Every new element is `constant`.
    Constant,
    /// Mirror without repeating the edge: `[1, 2, 3]` padded by 2 is `[3, 2, 1, 2, 3, 2, 1]`.
    Reflect,
    /// Mirror repeating the edge: `[1, 2, 3]` padded by 2 is `[2, 1, 1, 2, 3, 3, 2]`.
    Symmetric,
}

/// Pads axis `i` with `paddings[i].0` elements before and `paddings[i].1` after (`tf.pad`).
/// `constant` (cast to `x`'s dtype) is used by [`PadMode::Constant`] only.
pub fn pad(
    x: &Tensor,
    paddings: &[(usize, usize)],
    mode: PadMode,
    constant: f64,
) -> Result<Tensor> {
    let op = "pad";
    if paddings.len() != x.ndim() {
        return Err(Error::shape(
            op,
            format!(
                "paddings must have one (before, after) pair per axis: got {} pairs for a tensor of shape {}",
                paddings.len(),
                fmt_shape(x.shape())
            ),
        ));
    }
    for (axis, (&(before, after), &n)) in paddings.iter().zip(x.shape()).enumerate() {
        let (limit, rule) = match mode {
            PadMode::Constant => continue,
            PadMode::Reflect => (n.saturating_sub(1), "less than"),
            PadMode::Symmetric => (n, "at most"),
        };
        if before > limit || after > limit {
            return Err(Error::value(
                op,
                format!(
                    "{mode:?} padding of axis {axis} must be {rule} its size {n}, got ({before}, {after}) for a tensor of shape {}",
                    fmt_shape(x.shape())
                ),
            ));
        }
    }
    if paddings.iter().all(|&(b, a)| b == 0 && a == 0) {
        return Ok(x.clone());
    }
    // An empty tensor pads to an empty tensor whatever the mode: take the constant path, whose
    // work follows the data (a reflection's index list would follow the axes' lengths).
    let mode = if x.size() == 0 {
        PadMode::Constant
    } else {
        mode
    };
    match mode {
        PadMode::Constant => {
            let out_shape: Vec<usize> = paddings
                .iter()
                .zip(x.shape())
                .map(|(&(b, a), &n)| checked_add(op, b, n).and_then(|s| checked_add(op, s, a)))
                .collect::<Result<_>>()?;
            ensure_shape(op, &out_shape, x.dtype())?;
            let slices: Vec<Slice> = paddings
                .iter()
                .zip(x.shape())
                .map(|(&(b, _), &n)| Slice::new(b as isize, Some((b + n) as isize), 1))
                .collect();
            let plan = SlicePlan {
                slices,
                lens: x.shape().to_vec(),
                out_shape: x.shape().to_vec(),
            };
            let y = place(x, &out_shape, &plan, constant)?;
            let items: Vec<SliceItem> = paddings
                .iter()
                .zip(x.shape())
                .map(|(&(b, _), &n)| SliceItem::Range {
                    start: Some(b as isize),
                    stop: Some((b + n) as isize),
                    step: 1,
                })
                .collect();
            let padded: Vec<usize> = (0..x.ndim()).filter(|&i| paddings[i] != (0, 0)).collect();
            let rows = AxisMap::along(x.ndim(), &padded);
            record_batched(op, &[x], &y, &[], rows, true, move |_, dy, batch| {
                // The batch axes whole, then the unpadded region of each axis.
                Ok(crate::grads![Some(strided_slice(
                    dy,
                    &batched_items(batch, &items),
                )?)])
            });
            Ok(y)
        }
        PadMode::Reflect | PadMode::Symmetric => {
            // One gather per padded axis; gather's VJP (a scatter-add) gives the gradient.
            let mut y = x.clone();
            for (axis, (&(before, after), &n)) in paddings.iter().zip(x.shape()).enumerate() {
                if before == 0 && after == 0 {
                    continue;
                }
                let (n, shift) = (n as i64, if mode == PadMode::Reflect { 0 } else { 1 });
                let source: Vec<i64> = (-(before as i64)..n + after as i64)
                    .map(|p| match p {
                        p if p < 0 => -p - shift,
                        p if p >= n => 2 * (n - 1) - p + shift,
                        p => p,
                    })
                    .collect();
                let len = source.len();
                let indices = Tensor::from_vec(source, &[len])?;
                y = gather(&y, &indices, axis as isize, 0)?;
            }
            Ok(y)
        }
    }
}

/// Repeats `x` `multiples[i]` times along axis `i` (`tf.tile`).
pub fn tile(x: &Tensor, multiples: &[usize]) -> Result<Tensor> {
    let op = "tile";
    if multiples.len() != x.ndim() {
        return Err(Error::shape(
            op,
            format!(
                "multiples must have one entry per axis: got {} for a tensor of shape {}",
                multiples.len(),
                fmt_shape(x.shape())
            ),
        ));
    }
    if multiples.iter().all(|&m| m == 1) {
        return Ok(x.clone());
    }
    // x as [1, d0, 1, d1, ...], broadcast to [m0, d0, m1, d1, ...], read as [m0 d0, m1 d1, ...].
    let lifted: Vec<usize> = x.shape().iter().flat_map(|&d| [1, d]).collect();
    let spread: Vec<usize> = x
        .shape()
        .iter()
        .zip(multiples)
        .flat_map(|(&d, &m)| [m, d])
        .collect();
    let out_shape: Vec<usize> = x
        .shape()
        .iter()
        .zip(multiples)
        .map(|(&d, &m)| checked_mul(op, d, m))
        .collect::<Result<_>>()?;
    checked_size(op, &spread)?;
    ensure_shape(op, &out_shape, x.dtype())?;
    fn kernel<T: Element>(
        a: &ndarray::ArrayViewD<'_, T>,
        lifted: &[usize],
        spread: &[usize],
        out: &[usize],
    ) -> ArrayD<T> {
        let lifted = reshape_view(a, lifted);
        let tiled = match lifted.broadcast(IxDyn(spread)) {
            Some(view) => standard(view),
            None => unreachable!("[1, d] broadcasts to [m, d]"),
        };
        reshape_owned(tiled, out)
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| kernel(a, &lifted, &spread, &out_shape)));
    let repeated: Vec<usize> = (0..x.ndim()).filter(|&i| multiples[i] != 1).collect();
    let rows = AxisMap::along(x.ndim(), &repeated);
    // The gradient reads dy as [m0, d0, m1, d1, ...] and sums the repeats. Axes repeated once
    // get no repeat axis: an untiled axis 0 then stays axis 0 through the reshape and the sum,
    // which an outer tape's batch_jacobian sees as keeping the rows apart.
    let mut folded = Vec::with_capacity(2 * multiples.len());
    let mut repeats = Vec::with_capacity(multiples.len());
    for (&d, &m) in x.shape().iter().zip(multiples) {
        if m != 1 {
            repeats.push(folded.len());
            folded.push(m);
        }
        folded.push(d);
    }
    record_batched(op, &[x], &y, &[], rows, true, move |_, dy, batch| {
        // The batch axes stay in front of [m0, d0, ...].
        let axes: Vec<isize> = repeats.iter().map(|&a| (a + batch) as isize).collect();
        let spread = reshape(dy, &batched_dims(dy, batch, &folded))?;
        Ok(crate::grads![Some(reduce_sum(
            &spread,
            Some(&axes),
            false
        )?)])
    });
    Ok(y)
}
