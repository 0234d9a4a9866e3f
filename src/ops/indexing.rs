//! Indexing ops: gather (and its VJP scatter_add_to), NumPy-style strided slicing (and its
//! VJP strided_slice_grad).
//!
//! Every kernel returns a standard-layout (row-major, contiguous) array.
use ndarray::{ArrayD, IxDyn, Slice};

use super::shape::{broadcast_to, reshape_owned, reshape_view, standard};
use super::{normalize_axis, shape_of};
use crate::dispatch;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{Data, Element, Tensor};

/// The integer indices of a gather or scatter as i64, checked against `dim`.
fn read_indices(
    op: &str,
    indices: &Tensor,
    dim: usize,
    axis: usize,
    shape: &[usize],
    what: &str,
) -> Result<Vec<i64>> {
    let values: Vec<i64> = match indices.data() {
        Data::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Data::I64(a) => a.iter().copied().collect(),
        other => {
            return Err(Error::dtype(
                op,
                format!("indices must be int32 or int64, got {}", other.dtype()),
            ));
        }
    };
    if let Some(flat) = values.iter().position(|&v| v < 0 || v as usize >= dim) {
        // Unravel the flat position into the index's coordinates, as TensorFlow reports it.
        let mut coords = vec![0; indices.ndim()];
        let mut rest = flat;
        for (c, &d) in coords.iter_mut().zip(indices.shape()).rev() {
            *c = rest % d;
            rest /= d;
        }
        let coords: Vec<String> = coords.iter().map(|c| c.to_string()).collect();
        return Err(Error::value(
            op,
            format!(
                "indices[{}] = {} is not in [0, {dim}): axis {axis} of {what} of shape {} has size {dim}",
                coords.join(", "),
                values[flat],
                fmt_shape(shape)
            ),
        ));
    }
    Ok(values)
}

/// The blocks of a gather: params as [batch, outer, dim, inner], indices as [batch, count].
#[derive(Clone, Copy)]
struct GatherDims {
    batch: usize,
    outer: usize,
    dim: usize,
    count: usize,
    inner: usize,
}

/// Validates a gather of `indices` from a tensor of `params_shape` along `axis` and returns
/// the normalised axis, the blocks, and the result's shape.
fn gather_layout(
    op: &str,
    params_shape: &[usize],
    indices: &Tensor,
    axis: isize,
    batch_dims: usize,
) -> Result<(usize, GatherDims, Vec<usize>)> {
    if params_shape.is_empty() {
        return Err(Error::shape(
            op,
            "params must have rank at least 1, got a scalar (shape [])",
        ));
    }
    let axis = normalize_axis(op, axis, params_shape.len())?;
    let ishape = indices.shape();
    if batch_dims > ishape.len() || batch_dims > axis {
        return Err(Error::value(
            op,
            format!(
                "batch_dims ({batch_dims}) must be at most the rank of indices (shape {}) and at most axis ({axis})",
                fmt_shape(ishape)
            ),
        ));
    }
    if params_shape[..batch_dims] != ishape[..batch_dims] {
        return Err(Error::shape(
            op,
            format!(
                "the first batch_dims = {batch_dims} dimensions of params (shape {}) and indices (shape {}) must match",
                fmt_shape(params_shape),
                fmt_shape(ishape)
            ),
        ));
    }
    let dims = GatherDims {
        batch: params_shape[..batch_dims].iter().product(),
        outer: params_shape[batch_dims..axis].iter().product(),
        dim: params_shape[axis],
        count: ishape[batch_dims..].iter().product(),
        inner: params_shape[axis + 1..].iter().product(),
    };
    let mut out_shape = params_shape[..axis].to_vec();
    out_shape.extend_from_slice(&ishape[batch_dims..]);
    out_shape.extend_from_slice(&params_shape[axis + 1..]);
    Ok((axis, dims, out_shape))
}

/// `indices` and `batch_dims` for the gather or scatter in a VJP whose cotangent `dy` carries
/// `batch` leading axes (see `crate::tape::Vjp`). The op's `axis` moves to `axis + batch`.
/// With `batch_dims > 0` the gather batch axes of `dy` come after the cotangent's, where
/// `batch_dims` would not find them: the indices are broadcast over the cotangent's axes,
/// which then count as gather batch axes too (`batch_dims + batch`).
fn batched_indices(
    indices: &Tensor,
    dy: &Tensor,
    batch: usize,
    batch_dims: usize,
) -> Result<(Tensor, usize)> {
    if batch == 0 || batch_dims == 0 {
        return Ok((indices.clone(), batch_dims));
    }
    let lead = &dy.shape()[..batch];
    let shape: Vec<usize> = lead.iter().chain(indices.shape()).copied().collect();
    Ok((broadcast_to(indices, &shape)?, batch_dims + batch))
}

/// Slices of `params` along `axis` picked by `indices` (int32 or int64, any shape), as
/// `tf.gather(params, indices, axis=axis, batch_dims=batch_dims)`: the result has shape
/// `params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]`. An index
/// outside `[0, params.shape[axis])` (negative included) is a Value error.
pub fn gather(params: &Tensor, indices: &Tensor, axis: isize, batch_dims: usize) -> Result<Tensor> {
    let op = "gather";
    let (axis, g, out_shape) = gather_layout(op, params.shape(), indices, axis, batch_dims)?;
    crate::memory::ensure_shape(op, &out_shape, params.dtype())?;
    let idx = read_indices(op, indices, g.dim, axis, params.shape(), "params")?;
    fn kernel<T: Element>(
        a: &ndarray::ArrayViewD<'_, T>,
        idx: &[i64],
        g: GatherDims,
        out_shape: &[usize],
    ) -> ArrayD<T> {
        let src = a.as_standard_layout();
        let src = match src.as_slice() {
            Some(s) => s,
            None => unreachable!("standard layout is contiguous"),
        };
        let size = [g.batch, g.outer, g.count, g.inner]
            .iter()
            .fold(1usize, |n, &d| n.saturating_mul(d));
        let mut out = Vec::with_capacity(size);
        // An empty result needs no pass: its loops could still run 2^40 empty lanes.
        let batches = if size == 0 { 0 } else { g.batch };
        for b in 0..batches {
            for o in 0..g.outer {
                for &k in &idx[b * g.count..(b + 1) * g.count] {
                    let start = ((b * g.outer + o) * g.dim + k as usize) * g.inner;
                    out.extend_from_slice(&src[start..start + g.inner]);
                }
            }
        }
        match ArrayD::from_shape_vec(IxDyn(out_shape), out) {
            Ok(a) => a,
            Err(_) => unreachable!("the element count matches the shape"),
        }
    }
    let y = Tensor::new(dispatch!(all params.data(), |a| kernel(a, &idx, g, &out_shape)));
    let params_shape = shape_of(params);
    // Elements along `axis` move; the index axes take its place. Integer indices have no
    // gradient, so only params is described.
    let index_axes: Vec<usize> = (axis..axis + y.ndim() + 1 - params.ndim()).collect();
    let rows = AxisMap::select(params.ndim(), &[axis], &[axis], y.ndim(), &index_axes);
    record_batched(
        op,
        &[params, indices],
        &y,
        &[indices],
        rows,
        true,
        move |s, dy, batch| {
            let (indices, batch_dims) = batched_indices(&s[0], dy, batch, batch_dims)?;
            let shape: Vec<usize> = dy.shape()[..batch]
                .iter()
                .chain(&params_shape)
                .copied()
                .collect();
            let dx = scatter_add_to(dy, &indices, (axis + batch) as isize, batch_dims, &shape)?;
            Ok(crate::grads![Some(dx), None])
        },
    );
    Ok(y)
}

/// Zeros of `shape` into which `updates` are added at `indices` along `axis`: the adjoint of
/// [`gather`] with the same `indices`, `axis` and `batch_dims` (repeated indices accumulate).
/// `updates` must have the shape that gather would return for `params` of `shape`.
pub fn scatter_add_to(
    updates: &Tensor,
    indices: &Tensor,
    axis: isize,
    batch_dims: usize,
    shape: &[usize],
) -> Result<Tensor> {
    let op = "scatter_add_to";
    crate::memory::ensure_shape(op, shape, updates.dtype())?;
    let (axis, g, updates_shape) = gather_layout(op, shape, indices, axis, batch_dims)?;
    if updates.shape() != updates_shape {
        return Err(Error::shape(
            op,
            format!(
                "updates of shape {} do not fit indices of shape {} along axis {axis} of shape {} (expected updates of shape {})",
                fmt_shape(updates.shape()),
                fmt_shape(indices.shape()),
                fmt_shape(shape),
                fmt_shape(&updates_shape)
            ),
        ));
    }
    let idx = read_indices(op, indices, g.dim, axis, shape, "the output")?;
    fn kernel<T: Element + std::ops::Add<Output = T>>(
        a: &ndarray::ArrayViewD<'_, T>,
        idx: &[i64],
        g: GatherDims,
        shape: &[usize],
    ) -> ArrayD<T> {
        let src = a.as_standard_layout();
        let src = match src.as_slice() {
            Some(s) => s,
            None => unreachable!("standard layout is contiguous"),
        };
        let mut out = vec![T::default(); g.batch * g.outer * g.dim * g.inner];
        // Nothing to add when the updates are empty (however many empty lanes they have).
        let work = [g.outer, g.count, g.inner]
            .iter()
            .fold(1usize, |n, &d| n.saturating_mul(d));
        let batches = if work == 0 { 0 } else { g.batch };
        for b in 0..batches {
            for o in 0..g.outer {
                for (i, &k) in idx[b * g.count..(b + 1) * g.count].iter().enumerate() {
                    let to = ((b * g.outer + o) * g.dim + k as usize) * g.inner;
                    let from = ((b * g.outer + o) * g.count + i) * g.inner;
                    for (d, &s) in out[to..to + g.inner]
                        .iter_mut()
                        .zip(&src[from..from + g.inner])
                    {
                        *d = *d + s;
                    }
                }
            }
        }
        match ArrayD::from_shape_vec(IxDyn(shape), out) {
            Ok(a) => a,
            Err(_) => unreachable!("the element count matches the shape"),
        }
    }
    let y =
        Tensor::new(dispatch!(num_or_complex updates.data(), op, |a| kernel(a, &idx, g, shape)));
    // The adjoint of gather's map: the index axes are added up along `axis`.
    let index_axes: Vec<usize> = (axis..axis + updates.ndim() + 1 - shape.len()).collect();
    let rows = AxisMap::select(
        updates.ndim(),
        &index_axes,
        &index_axes,
        shape.len(),
        &[axis],
    );
    record_batched(
        op,
        &[updates, indices],
        &y,
        &[indices],
        rows,
        true,
        move |s, dy, batch| {
            let (indices, batch_dims) = batched_indices(&s[0], dy, batch, batch_dims)?;
            let du = gather(dy, &indices, (axis + batch) as isize, batch_dims)?;
            Ok(crate::grads![Some(du), None])
        },
    );
    Ok(y)
}

/// One entry of a NumPy-style index (`x[1, ::-2, None, ...]`), for [`strided_slice`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceItem {
    /// One position (negative counts from the end); the axis is dropped.
    Index(isize),
    /// `start:stop:step`, NumPy rules: negatives count from the end, out-of-range bounds are
    /// clamped, `None` is the natural end for the step's direction, `step != 0`.
    Range {
        /// First position (None: the natural start for the step's direction).
        start: Option<isize>,
        /// Position after the last (None: the natural end).
        stop: Option<isize>,
        /// Distance between positions (not 0; negative walks backwards).
        step: isize,
    },
    /// `None` / `np.newaxis`: a new axis of size 1.
    NewAxis,
    /// `...`: as many full ranges as the other items leave axes (at most one per index).
    Ellipsis,
}

impl SliceItem {
    /// `:` (every element of an axis).
    pub fn all() -> SliceItem {
        SliceItem::Range {
            start: None,
            stop: None,
            step: 1,
        }
    }
    /// `start:stop`.
    pub fn range(start: isize, stop: isize) -> SliceItem {
        SliceItem::Range {
            start: Some(start),
            stop: Some(stop),
            step: 1,
        }
    }
}

/// `items` for a cotangent with `batch` leading axes: full ranges over those axes first (an
/// ellipsis in `items` then stands for the same axes of the op's own shape).
pub(super) fn batched_items(batch: usize, items: &[SliceItem]) -> Vec<SliceItem> {
    std::iter::repeat_n(SliceItem::all(), batch)
        .chain(items.iter().copied())
        .collect()
}

/// A strided slice resolved against an input shape.
pub(super) struct SlicePlan {
    /// Per input axis, the ndarray slice that selects the elements (in order).
    pub(super) slices: Vec<Slice>,
    /// Per input axis, how many elements are selected.
    pub(super) lens: Vec<usize>,
    /// The result's shape: `lens` without the indexed axes, with the new axes.
    pub(super) out_shape: Vec<usize>,
}

impl SlicePlan {
    fn is_identity(&self, shape: &[usize]) -> bool {
        self.out_shape == shape
            && self.lens == shape
            && self.slices.iter().all(|s| s.start == 0 && s.step == 1)
    }
}

fn fmt_items(items: &[SliceItem]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|item| match *item {
            SliceItem::Index(i) => i.to_string(),
            SliceItem::NewAxis => "None".into(),
            SliceItem::Ellipsis => "...".into(),
            SliceItem::Range { start, stop, step } => {
                let b = |v: Option<isize>| v.map(|v| v.to_string()).unwrap_or_default();
                if step == 1 {
                    format!("{}:{}", b(start), b(stop))
                } else {
                    format!("{}:{}:{step}", b(start), b(stop))
                }
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Resolves `items` against `shape` with NumPy's rules.
fn plan_slice(op: &str, shape: &[usize], items: &[SliceItem]) -> Result<SlicePlan> {
    let ellipses = items
        .iter()
        .filter(|i| matches!(i, SliceItem::Ellipsis))
        .count();
    if ellipses > 1 {
        return Err(Error::value(
            op,
            format!(
                "an index can have only one ellipsis (...), got {}",
                fmt_items(items)
            ),
        ));
    }
    let consuming = items
        .iter()
        .filter(|i| matches!(i, SliceItem::Index(_) | SliceItem::Range { .. }))
        .count();
    if consuming > shape.len() {
        return Err(Error::value(
            op,
            format!(
                "too many indices: {} index {consuming} axes of a tensor of shape {} (rank {})",
                fmt_items(items),
                fmt_shape(shape),
                shape.len()
            ),
        ));
    }
    let mut plan = SlicePlan {
        slices: Vec::with_capacity(shape.len()),
        lens: Vec::new(),
        out_shape: Vec::new(),
    };
    let full = |plan: &mut SlicePlan, n: usize| {
        plan.slices.push(Slice::new(0, Some(n as isize), 1));
        plan.lens.push(n);
        plan.out_shape.push(n);
    };
    let mut axis = 0;
    for item in items {
        match *item {
            SliceItem::NewAxis => plan.out_shape.push(1),
            SliceItem::Ellipsis => {
                for _ in 0..shape.len() - consuming {
                    full(&mut plan, shape[axis]);
                    axis += 1;
                }
            }
            SliceItem::Index(i) => {
                let n = shape[axis] as isize;
                let k = if i < 0 { i + n } else { i };
                if k < 0 || k >= n {
                    return Err(Error::value(
                        op,
                        format!(
                            "index {i} is out of bounds for axis {axis} with size {n} (indexing a tensor of shape {} with {})",
                            fmt_shape(shape),
                            fmt_items(items)
                        ),
                    ));
                }
                plan.slices.push(Slice::new(k, Some(k + 1), 1));
                plan.lens.push(1);
                axis += 1;
            }
            SliceItem::Range { start, stop, step } => {
                // -isize::MIN does not exist; a step that long takes one element either way.
                let step = step.max(-isize::MAX);
                if step == 0 {
                    return Err(Error::value(
                        op,
                        format!("slice step cannot be zero, got {}", fmt_items(items)),
                    ));
                }
                let n = shape[axis] as isize;
                // CPython's PySlice_AdjustIndices.
                let adjust = |v: isize| {
                    if v < 0 {
                        if v + n < 0 {
                            if step < 0 {
                                -1
                            } else {
                                0
                            }
                        } else {
                            v + n
                        }
                    } else if v >= n {
                        if step < 0 {
                            n - 1
                        } else {
                            n
                        }
                    } else {
                        v
                    }
                };
                let first = start
                    .map(adjust)
                    .unwrap_or(if step < 0 { n - 1 } else { 0 });
                let end = stop.map(adjust).unwrap_or(if step < 0 { -1 } else { n });
                let len = if step < 0 {
                    if end < first {
                        (first - end - 1) / -step + 1
                    } else {
                        0
                    }
                } else if first < end {
                    (end - first - 1) / step + 1
                } else {
                    0
                };
                // ndarray steps from the end of [lo, hi) when the step is negative.
                let slice = if len == 0 {
                    Slice::new(0, Some(0), 1)
                } else {
                    let last = first + (len - 1) * step;
                    Slice::new(first.min(last), Some(first.max(last) + 1), step)
                };
                plan.slices.push(slice);
                plan.lens.push(len as usize);
                plan.out_shape.push(len as usize);
                axis += 1;
            }
        }
    }
    // No ellipsis: the remaining axes are taken whole.
    while axis < shape.len() {
        full(&mut plan, shape[axis]);
        axis += 1;
    }
    Ok(plan)
}

/// The axis maps of a strided slice and of its gradient (the adjoint): a range that is not
/// its axis whole, in order, moves elements along it; an index takes one element of its axis
/// (which disappears); a new axis holds no input axis.
fn slice_axes(shape: &[usize], items: &[SliceItem], plan: &SlicePlan) -> (AxisMap, AxisMap) {
    let consuming = items
        .iter()
        .filter(|i| matches!(i, SliceItem::Index(_) | SliceItem::Range { .. }))
        .count();
    // Input axes that mix or are indexed away; output axes that are new or partial.
    let (mut mixed, mut indexed, mut new, mut partial) = (vec![], vec![], vec![], vec![]);
    let (mut axis, mut out) = (0, 0);
    for item in items {
        match item {
            SliceItem::NewAxis => {
                new.push(out);
                out += 1;
            }
            SliceItem::Ellipsis => {
                axis += shape.len() - consuming;
                out += shape.len() - consuming;
            }
            SliceItem::Index(_) => {
                indexed.push(axis);
                axis += 1;
            }
            SliceItem::Range { .. } => {
                let slice = plan.slices[axis];
                if !(slice.start == 0 && slice.step == 1 && plan.lens[axis] == shape[axis]) {
                    mixed.push(axis);
                    partial.push(out);
                }
                axis += 1;
                out += 1;
            }
        }
    }
    let (rank, out_rank) = (shape.len(), plan.out_shape.len());
    let forward = AxisMap::select(
        rank,
        &[mixed, indexed.clone()].concat(),
        &indexed,
        out_rank,
        &new,
    );
    let backward = AxisMap::select(
        out_rank,
        &[partial, new.clone()].concat(),
        &new,
        rank,
        &indexed,
    );
    (forward, backward)
}

/// `x[items]` with NumPy semantics (`__getitem__`): indices drop their axis, ranges keep it,
/// `NewAxis` inserts one, `Ellipsis` stands for the axes not named. An `Index` out of range,
/// a zero step, two ellipses or more indices than axes are Value errors.
pub fn strided_slice(x: &Tensor, items: &[SliceItem]) -> Result<Tensor> {
    let op = "strided_slice";
    let plan = plan_slice(op, x.shape(), items)?;
    if plan.is_identity(x.shape()) {
        return Ok(x.clone());
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| {
        let picked = standard(a.slice_each_axis(|d| plan.slices[d.axis.index()]));
        reshape_owned(picked, &plan.out_shape)
    }));
    let input_shape = shape_of(x);
    let rows = slice_axes(x.shape(), items, &plan).0;
    let items = items.to_vec();
    record_batched(op, &[x], &y, &[], rows, true, move |_, dy, batch| {
        let shape: Vec<usize> = dy.shape()[..batch]
            .iter()
            .chain(&input_shape)
            .copied()
            .collect();
        let dx = strided_slice_grad(dy, &shape, &batched_items(batch, &items))?;
        Ok(crate::grads![Some(dx)])
    });
    Ok(y)
}

/// `x` written into a tensor of `shape` filled with `fill`, at the positions `plan` selects.
pub(super) fn place(x: &Tensor, shape: &[usize], plan: &SlicePlan, fill: f64) -> Result<Tensor> {
    crate::memory::ensure_shape("place", shape, x.dtype())?;
    fn kernel<T: Element>(
        a: &ndarray::ArrayViewD<'_, T>,
        shape: &[usize],
        plan: &SlicePlan,
        fill: f64,
    ) -> ArrayD<T> {
        let mut out = ArrayD::from_elem(IxDyn(shape), T::from_f64(fill));
        let values = reshape_view(a, &plan.lens);
        out.slice_each_axis_mut(|d| plan.slices[d.axis.index()])
            .assign(&values);
        out
    }
    Ok(Tensor::new(
        dispatch!(all x.data(), |a| kernel(a, shape, plan, fill)),
    ))
}

/// The VJP of [`strided_slice`]: zeros of `input_shape` with `dy` at the positions `items`
/// select. Its own VJP is `strided_slice` with the same items.
pub fn strided_slice_grad(
    dy: &Tensor,
    input_shape: &[usize],
    items: &[SliceItem],
) -> Result<Tensor> {
    let op = "strided_slice_grad";
    let plan = plan_slice(op, input_shape, items)?;
    if dy.shape() != plan.out_shape {
        return Err(Error::shape(
            op,
            format!(
                "dy has shape {} but {} of a tensor of shape {} has shape {}",
                fmt_shape(dy.shape()),
                fmt_items(items),
                fmt_shape(input_shape),
                fmt_shape(&plan.out_shape)
            ),
        ));
    }
    if plan.is_identity(input_shape) {
        return Ok(dy.clone());
    }
    let y = place(dy, input_shape, &plan, 0.0)?;
    let rows = slice_axes(input_shape, items, &plan).1;
    let items = items.to_vec();
    record_batched(op, &[dy], &y, &[], rows, true, move |_, g, batch| {
        Ok(crate::grads![Some(strided_slice(
            g,
            &batched_items(batch, &items)
        )?)])
    });
    Ok(y)
}
