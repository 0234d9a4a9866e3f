//! Neural-network ops: softmax, log_softmax, clip_by_norm, moments, batch_normalization, and
//! the softmax, sparse softmax and sigmoid cross-entropies.
use ndarray::{ArrayD, Axis};

use super::elementwise::when;
use super::kernel::PAR_MATH;
use super::parallel::for_each_task;
use super::reduce_kernel::{sum_slice, Reducible};
use super::vmath::{widest, VMath};
use super::{
    add, broadcast_shapes, cast, divide, exp, expand_dims, greater, maximum, multiply, negative,
    normalize_axes, normalize_axis, reduce_mean, reduce_sum, reshape, scalar_like, sigmoid, sqrt,
    subtract, where_,
};
use crate::dispatch;
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{any_tape_recording, input_needed, record_batched, AxisMap};
use crate::tensor::{mismatch, unsupported, Data, Tensor, Values};

/// Softmax (or log-softmax) of every lane along `axis`, with the lane's maximum subtracted first.
/// Lanes along a contiguous last axis run as rows (vectorised exp, split across threads when
/// large); any other layout goes lane by lane with the same per-element functions.
fn softmax_kernel<T: RowFloat>(
    a: &ndarray::ArrayViewD<'_, T>,
    axis: usize,
    log: bool,
) -> ArrayD<T> {
    let mut out = a.to_owned();
    if out.is_empty() {
        // Work follows the data: no loop over the lanes of an empty tensor (there may be 2^40).
        return out;
    }
    let width = out.shape()[axis];
    if axis + 1 == out.ndim() {
        if let Some(data) = out.as_slice_mut() {
            for_each_row_block(data, width, &|_, block| softmax_rows(block, width, log));
            return out;
        }
    }
    let mut scratch = vec![T::zero(); width];
    for mut lane in out.lanes_mut(Axis(axis)) {
        for (s, &v) in scratch.iter_mut().zip(lane.iter()) {
            *s = v;
        }
        softmax_row(&mut scratch, log);
        for (v, &s) in lane.iter_mut().zip(&scratch) {
            *v = s;
        }
    }
    out
}

/// Softmax (or log-softmax) of each row of `width` elements of `block`.
#[inline(always)]
fn softmax_rows_body<T: RowFloat>(block: &mut [T], width: usize, log: bool) {
    for row in block.chunks_exact_mut(width) {
        softmax_row(row, log);
    }
}
widest!(fn softmax_rows<T: RowFloat>(block: &mut [T], width: usize, log: bool) => softmax_rows_body, block.len());

/// Float types of the row kernels: vectorised exp and a pairwise sum.
pub(super) trait RowFloat: Float + VMath + Reducible + Send + Sync {}
impl RowFloat for f32 {}
impl RowFloat for f64 {}

/// The largest element of a row (NaN ignored, as `v > m` never holds for it), in 16 lanes.
#[inline(always)]
fn row_max<T: RowFloat>(row: &[T]) -> T {
    let mut lanes = [T::neg_infinity(); 16];
    let chunks = row.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..16 {
            lanes[j] = if c[j] > lanes[j] { c[j] } else { lanes[j] };
        }
    }
    for (j, &v) in rest.iter().enumerate() {
        lanes[j] = if v > lanes[j] { v } else { lanes[j] };
    }
    lanes
        .iter()
        .fold(T::neg_infinity(), |m, &v| if v > m { v } else { m })
}

/// `sum(exp(v - max))` over a row, in 16 lanes.
#[inline(always)]
fn row_exp_sum<T: RowFloat>(row: &[T], max: T) -> T {
    let mut lanes = [T::zero(); 16];
    let chunks = row.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..16 {
            lanes[j] = lanes[j] + (c[j] - max).v_exp();
        }
    }
    for (j, &v) in rest.iter().enumerate() {
        lanes[j] = lanes[j] + (v - max).v_exp();
    }
    sum_slice(&lanes)
}

/// One row's softmax (or log-softmax) in place.
#[inline(always)]
fn softmax_row<T: RowFloat>(row: &mut [T], log: bool) {
    let max = row_max(row);
    if log {
        let log_sum = row_exp_sum(row, max).ln();
        for v in row.iter_mut() {
            *v = (*v - max) - log_sum;
        }
    } else {
        for v in row.iter_mut() {
            *v = (*v - max).v_exp();
        }
        let sum = sum_slice(row);
        for v in row.iter_mut() {
            *v = *v / sum;
        }
    }
}

/// `logsumexp(row)`, with a non-finite maximum replaced by 0 (so an infinite logit gives an
/// infinite, not a NaN, normaliser).
#[inline(always)]
fn row_logsumexp<T: RowFloat>(row: &[T]) -> T {
    let max = row_max(row);
    let max = if max.is_finite() { max } else { T::zero() };
    row_exp_sum(row, max).ln() + max
}

/// Elements per task of a split row kernel (whole rows, at least one).
const ROW_BLOCK: usize = 1 << 14;

/// `f(first_row, rows)` over blocks of whole rows of `width` elements each, split across the
/// engine's threads when the data is large enough to pay for it.
fn for_each_row_block<T: Send>(data: &mut [T], width: usize, f: &(dyn Fn(usize, &mut [T]) + Sync)) {
    if width == 0 || data.is_empty() {
        return;
    }
    let rows_per_block = (ROW_BLOCK / width).max(1);
    let block = rows_per_block * width;
    if data.len() < PAR_MATH || data.len() <= block {
        f(0, data);
        return;
    }
    struct Shared<T>(*mut T, usize);
    // SAFETY: each task takes its own disjoint block (see below); `T: Send` lets it move there.
    unsafe impl<T: Send> Sync for Shared<T> {}
    impl<T> Shared<T> {
        fn parts(&self) -> (*mut T, usize) {
            (self.0, self.1)
        }
    }
    let shared = Shared(data.as_mut_ptr(), data.len());
    let tasks = data.len().div_ceil(block);
    for_each_task(tasks, &|i| {
        let (ptr, total) = shared.parts();
        let start = i * block;
        let len = block.min(total - start);
        // SAFETY: task `i` alone takes elements `start..start + len`, inside the slice, which
        // outlives the tasks (for_each_task returns after all have run).
        let rows = unsafe { std::slice::from_raw_parts_mut(ptr.add(start), len) };
        f(start / width, rows);
    });
}

/// The axis map of a softmax along `axis` (normalised) of a rank-`rank` tensor: the elements
/// of each lane enter each other's normaliser.
fn lane_mixes(rank: usize, axis: usize) -> AxisMap {
    AxisMap::along(rank, &[axis])
}

/// `exp(x) / sum(exp(x), axis)`, computed stably (the maximum along `axis` is subtracted first).
pub fn softmax(x: &Tensor, axis: isize) -> Result<Tensor> {
    let op = "softmax";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let y = Tensor::new(dispatch!(float x.data(), op, |a| softmax_kernel(a, ax, false)));
    record_batched(
        op,
        &[x],
        &y,
        &[&y],
        lane_mixes(x.ndim(), ax),
        true,
        move |s, dy, batch| {
            // (dy - sum(dy * y)) * y; `dy`'s softmax axis is `ax` after its `batch` leading axes.
            let y = &s[0];
            let dot = reduce_sum(&multiply(dy, y)?, Some(&[(ax + batch) as isize]), true)?;
            Ok(crate::grads![Some(multiply(&subtract(dy, &dot)?, y)?)])
        },
    );
    Ok(y)
}

/// `x - log(sum(exp(x), axis))`, computed stably.
pub fn log_softmax(x: &Tensor, axis: isize) -> Result<Tensor> {
    let op = "log_softmax";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let y = Tensor::new(dispatch!(float x.data(), op, |a| softmax_kernel(a, ax, true)));
    record_batched(
        op,
        &[x],
        &y,
        &[&y],
        lane_mixes(x.ndim(), ax),
        true,
        move |s, dy, batch| {
            // dy - exp(y) * sum(dy), the sum along `ax` after `dy`'s `batch` leading axes.
            let total = reduce_sum(dy, Some(&[(ax + batch) as isize]), true)?;
            Ok(crate::grads![Some(subtract(
                dy,
                &multiply(&exp(&s[0])?, &total)?
            )?)])
        },
    );
    Ok(y)
}

/// `tf.clip_by_norm`: rescales `t` so that its L2 norm over `axes` (`None`: the whole tensor)
/// is at most `clip_norm`, with TensorFlow's formula (safe at a zero norm):
/// `t * clip_norm / maximum(l2norm, clip_norm)`. A negative `clip_norm` counts as zero, as in
/// TensorFlow.
pub fn clip_by_norm(t: &Tensor, clip_norm: &Tensor, axes: Option<&[isize]>) -> Result<Tensor> {
    let op = "clip_by_norm";
    if !t.dtype().is_float() {
        return Err(unsupported(op, t.dtype(), "a floating"));
    }
    if clip_norm.dtype() != t.dtype() {
        return Err(mismatch(op, t.dtype(), clip_norm.dtype()));
    }
    if broadcast_shapes(op, t.shape(), clip_norm.shape())? != t.shape() {
        return Err(Error::shape(
            op,
            format!(
                "clip_norm of shape {} does not broadcast to t of shape {}",
                fmt_shape(clip_norm.shape()),
                fmt_shape(t.shape())
            ),
        ));
    }
    normalize_axes(op, axes, t.ndim())?;
    let clip_norm = &maximum(clip_norm, &scalar_like(0.0, clip_norm))?;
    let l2sum = reduce_sum(&multiply(t, t)?, axes, true)?;
    let pred = greater(&l2sum, &scalar_like(0.0, &l2sum))?;
    let l2sum_safe = where_(&pred, &l2sum, &l2sum.ones_like())?;
    let l2norm = where_(&pred, &sqrt(&l2sum_safe)?, &l2sum)?;
    let intermediate = multiply(t, clip_norm)?;
    divide(&intermediate, &maximum(&l2norm, clip_norm)?)
}

/// `tf.nn.moments`: the mean and the (biased) variance of `x` over `axes`.
///
/// TensorFlow computes the variance around `stop_gradient(mean)`. The values and first
/// derivatives are the same, but its second derivatives of the variance are wrong (they miss
/// the mean's dependence on `x`); rustape lets the gradient flow through the mean, so every
/// order is exact.
pub fn moments(x: &Tensor, axes: &[isize], keepdims: bool) -> Result<(Tensor, Tensor)> {
    let op = "moments";
    let all = normalize_axes(op, Some(axes), x.ndim())?;
    let mean = reduce_mean(x, Some(axes), true)?;
    let centered = subtract(x, &mean)?;
    let variance = reduce_mean(&multiply(&centered, &centered)?, Some(axes), true)?;
    if keepdims {
        return Ok((mean, variance));
    }
    let dims: Vec<isize> = x
        .shape()
        .iter()
        .enumerate()
        .filter(|(i, _)| !all.contains(i))
        .map(|(_, &d)| d as isize)
        .collect();
    Ok((reshape(&mean, &dims)?, reshape(&variance, &dims)?))
}

/// `tf.nn.batch_normalization`: `(x - mean) * scale / sqrt(variance + epsilon) + offset`,
/// computed as TensorFlow does (`inv = rsqrt(variance + epsilon) * scale`,
/// `x * inv + (offset - mean * inv)`). The parameters broadcast against `x`.
pub fn batch_normalization(
    x: &Tensor,
    mean: &Tensor,
    variance: &Tensor,
    offset: Option<&Tensor>,
    scale: Option<&Tensor>,
    epsilon: f64,
) -> Result<Tensor> {
    let op = "batch_normalization";
    if !x.dtype().is_float() {
        return Err(unsupported(op, x.dtype(), "a floating"));
    }
    let params = [Some(mean), Some(variance), offset, scale];
    for p in params.into_iter().flatten() {
        if p.dtype() != x.dtype() {
            return Err(mismatch(op, x.dtype(), p.dtype()));
        }
        broadcast_shapes(op, x.shape(), p.shape())?;
    }
    // rsqrt(variance + epsilon)
    let inv = sqrt(&add(variance, &scalar_like(epsilon, variance))?)?;
    let mut inv = divide(&scalar_like(1.0, &inv), &inv)?;
    if let Some(scale) = scale {
        inv = multiply(&inv, scale)?;
    }
    let shift = match offset {
        Some(offset) => subtract(offset, &multiply(mean, &inv)?)?,
        None => negative(&multiply(mean, &inv)?)?,
    };
    add(&multiply(x, &inv)?, &shift)
}

// ---------------------------------------------------------------------------------------------
// Cross-entropies (numerically stable: a log-sum-exp inside, never a log of a softmax)

/// `logsumexp(x) - x` along `axis` for every lane, weighted by `labels` and summed: the
/// softmax cross-entropy kernel.
fn softmax_xent_kernel<T: RowFloat>(
    labels: &ndarray::ArrayViewD<'_, T>,
    logits: &ndarray::ArrayViewD<'_, T>,
    axis: usize,
) -> ArrayD<T> {
    let mut out = logits.sum_axis(Axis(axis));
    let weighted = xent_row::<T>;
    let width = logits.shape()[axis];
    if axis + 1 == logits.ndim() && width > 0 {
        if let (Some(x), Some(z), Some(o)) =
            (logits.as_slice(), labels.as_slice(), out.as_slice_mut())
        {
            xent_rows(x, z, width, o);
            return out;
        }
    }
    let (mut xs, mut zs) = (vec![T::zero(); width], vec![T::zero(); width]);
    let lanes = logits
        .lanes(Axis(axis))
        .into_iter()
        .zip(labels.lanes(Axis(axis)));
    for ((x, z), o) in lanes.zip(out.iter_mut()) {
        for ((xd, zd), (&xv, &zv)) in xs.iter_mut().zip(zs.iter_mut()).zip(x.iter().zip(z.iter())) {
            *xd = xv;
            *zd = zv;
        }
        *o = weighted(&xs, &zs);
    }
    out
}

/// The sparse cross-entropy's rows (`ids` already checked to lie in `[0, classes)`): the
/// losses `logsumexp(x) - x[id]` and the softmax of every row (for the fused gradient),
/// equal to what [`softmax`] gives.
fn sparse_xent_rows<T: RowFloat>(ids: &[i64], x: &[T], classes: usize) -> (Vec<T>, Vec<T>) {
    let mut losses = vec![T::zero(); ids.len()];
    let mut probs = x.to_vec();
    if classes == 0 {
        return (losses, probs);
    }
    let out = RowOut(losses.as_mut_ptr());
    for_each_row_block(&mut probs, classes, &|first, block| {
        sparse_xent_block(ids, first, block, classes, &out)
    });
    (losses, probs)
}

/// Where the row kernels' tasks write one value per row.
struct RowOut<T>(*mut T);
// SAFETY: each row block writes only its own rows' values (see `sparse_xent_block_body`).
unsafe impl<T: Send> Sync for RowOut<T> {}

impl<T> RowOut<T> {
    /// Where row `k`'s value goes (a method, so that closures capture the whole `RowOut`).
    fn at(&self, k: usize) -> *mut T {
        self.0.wrapping_add(k)
    }
}

/// The losses of rows `first..` (`block`, replaced by their softmax) into `out`.
#[inline(always)]
fn sparse_xent_block_body<T: RowFloat>(
    ids: &[i64],
    first: usize,
    block: &mut [T],
    classes: usize,
    out: &RowOut<T>,
) {
    for (r, row) in block.chunks_exact_mut(classes).enumerate() {
        let k = first + r;
        let max = row_max(row);
        let loss = if max.is_finite() {
            // The exps of the softmax give the normaliser too.
            let label_logit = row[ids[k] as usize];
            for v in row.iter_mut() {
                *v = (*v - max).v_exp();
            }
            let sum = sum_slice(row);
            for v in row.iter_mut() {
                *v = *v / sum;
            }
            (sum.ln() + max) - label_logit
        } else {
            let loss = row_logsumexp(row) - row[ids[k] as usize];
            softmax_row(row, false);
            loss
        };
        // SAFETY: row `k` belongs to this block alone; the losses outlive the tasks.
        unsafe { *out.0.wrapping_add(k) = loss };
    }
}
widest!(fn sparse_xent_block<T: RowFloat>(ids: &[i64], first: usize, block: &mut [T], classes: usize, out: &RowOut<T>) => sparse_xent_block_body, block.len());

/// `-sum(z * log_softmax(x))` of one row.
#[inline(always)]
fn xent_row<T: RowFloat>(x: &[T], z: &[T]) -> T {
    let lse = row_logsumexp(x);
    x.iter()
        .zip(z)
        .fold(T::zero(), |s, (&v, &l)| s + l * (lse - v))
}

/// [`xent_row`] of each row of `width` elements of `x` and `z`, into `o`.
#[inline(always)]
fn xent_rows_body<T: RowFloat>(x: &[T], z: &[T], width: usize, o: &mut [T]) {
    let rows = x.chunks_exact(width).zip(z.chunks_exact(width));
    for ((x, z), o) in rows.zip(o.iter_mut()) {
        *o = xent_row(x, z);
    }
}
widest!(fn xent_rows<T: RowFloat>(x: &[T], z: &[T], width: usize, o: &mut [T]) => xent_rows_body, x.len());

/// [`row_logsumexp`] of each row of `width` elements of `x`, into `o`.
#[inline(always)]
fn logsumexp_rows_body<T: RowFloat>(x: &[T], width: usize, o: &mut [T]) {
    for (row, o) in x.chunks_exact(width).zip(o.iter_mut()) {
        *o = row_logsumexp(row);
    }
}
widest!(fn logsumexp_rows<T: RowFloat>(x: &[T], width: usize, o: &mut [T]) => logsumexp_rows_body, x.len());

/// Columns per unit of [`logsumexp_columns`] (its running maxima and sums live on the stack).
const LSE_COLUMNS: usize = 256;

/// `logsumexp` down each column of `block` (`n` rows of `width`), columns `first..first +
/// o.len()` (at most [`LSE_COLUMNS`]), into `o`: the same per-element steps as
/// [`row_logsumexp`], vectorised across the columns.
#[inline(always)]
fn logsumexp_columns_body<T: RowFloat>(block: &[T], width: usize, first: usize, o: &mut [T]) {
    let count = o.len();
    let mut max = [T::neg_infinity(); LSE_COLUMNS];
    let mut sum = [T::zero(); LSE_COLUMNS];
    let (max, sum) = (&mut max[..count], &mut sum[..count]);
    for row in block.chunks_exact(width) {
        for (m, &v) in max.iter_mut().zip(&row[first..first + count]) {
            *m = if v > *m { v } else { *m };
        }
    }
    for m in max.iter_mut() {
        *m = if m.is_finite() { *m } else { T::zero() };
    }
    for row in block.chunks_exact(width) {
        let row = &row[first..first + count];
        for ((s, &m), &v) in sum.iter_mut().zip(max.iter()).zip(row) {
            *s = *s + (v - m).v_exp();
        }
    }
    for ((o, &s), &m) in o.iter_mut().zip(sum.iter()).zip(max.iter()) {
        *o = s.ln() + m;
    }
}
widest!(fn logsumexp_columns<T: RowFloat>(block: &[T], width: usize, first: usize, o: &mut [T]) => logsumexp_columns_body, block.len());

/// `log(sum(exp(a)))` over `axes` (normalised, sorted; the result drops them), one pass over
/// the data per step: each lane's maximum is subtracted first (a non-finite one counts as 0,
/// as in TensorFlow's `reduce_logsumexp`). Adjacent axes reduce in place, as `[outer, n,
/// inner]`: rows of `n` when nothing follows them, else columns (vectorised across `inner`);
/// other axes are gathered into rows first (one copy, fallibly reserved). Large tensors split
/// across the engine's threads by whole lanes, so a value never depends on the thread count.
pub(super) fn logsumexp_kernel<T: RowFloat>(
    op: &str,
    a: &ndarray::ArrayViewD<'_, T>,
    axes: &[usize],
) -> Result<ArrayD<T>> {
    let shape = a.shape();
    let kept: Vec<usize> = (0..a.ndim()).filter(|i| !axes.contains(i)).collect();
    let out_shape: Vec<usize> = kept.iter().map(|&i| shape[i]).collect();
    let lanes: usize = out_shape.iter().product();
    let n: usize = axes.iter().map(|&i| shape[i]).product();
    let mut out = crate::memory::try_filled(op, lanes, T::neg_infinity())?;
    let finish = |out| Ok(ArrayD::from_shape_vec(out_shape.clone(), out).expect("lane count"));
    if lanes == 0 || n == 0 {
        // No lanes, or empty sums: log(0).
        return finish(out);
    }
    let adjacent = axes.windows(2).all(|w| w[1] == w[0] + 1);
    let (gathered, inner);
    let x: &[T] = match a.as_slice() {
        Some(x) if adjacent => {
            inner = axes.last().map_or(1, |&l| shape[l + 1..].iter().product());
            x
        }
        _ => {
            let order: Vec<usize> = kept.iter().chain(axes).copied().collect();
            let mut buffer = crate::memory::try_vec(op, lanes * n)?;
            buffer.extend(a.view().permuted_axes(order).iter().copied());
            gathered = buffer;
            inner = 1;
            &gathered
        }
    };
    let dest = RowOut(out.as_mut_ptr());
    // Units of work: `rows_per_unit` whole rows, or up to LSE_COLUMNS columns of one block.
    let (units, unit_len) = if inner == 1 {
        let rows_per_unit = (ROW_BLOCK / n).max(1);
        (lanes.div_ceil(rows_per_unit), rows_per_unit * n)
    } else {
        (
            (lanes / inner) * inner.div_ceil(LSE_COLUMNS),
            n * inner.min(LSE_COLUMNS),
        )
    };
    let run = |unit: usize| {
        let (first, count);
        if inner == 1 {
            first = unit * (unit_len / n);
            count = (unit_len / n).min(lanes - first);
        } else {
            let per_block = inner.div_ceil(LSE_COLUMNS);
            let (block, column) = (unit / per_block, (unit % per_block) * LSE_COLUMNS);
            first = block * inner + column;
            count = LSE_COLUMNS.min(inner - column);
        }
        // SAFETY: each unit alone writes lanes `first..first + count` of `out`, which outlives
        // the units (for_each_task returns after all have run).
        let o = unsafe { std::slice::from_raw_parts_mut(dest.at(first), count) };
        if inner == 1 {
            logsumexp_rows(&x[first * n..(first + count) * n], n, o);
        } else {
            let block = first / inner;
            let column = first % inner;
            let data = &x[block * n * inner..(block + 1) * n * inner];
            logsumexp_columns(data, inner, column, o);
        }
    };
    let units_per_task = (ROW_BLOCK / unit_len).max(1);
    if x.len() < PAR_MATH || units <= units_per_task {
        (0..units).for_each(run);
    } else {
        for_each_task(units.div_ceil(units_per_task), &|t| {
            let end = units.min((t + 1) * units_per_task);
            (t * units_per_task..end).for_each(run);
        });
    }
    finish(out)
}

/// `-sum(labels * log_softmax(logits), axis)` (`tf.nn.softmax_cross_entropy_with_logits`):
/// `labels` and `logits` share a floating dtype and a shape; the result drops `axis`.
/// Gradients: `dy · (sum(labels) · softmax(logits) - labels)` to the logits (TensorFlow's
/// `softmax - labels` when each row of labels sums to 1, as they should; exact otherwise) and
/// `-dy · log_softmax(logits)` to the labels.
pub fn softmax_cross_entropy_with_logits(
    labels: &Tensor,
    logits: &Tensor,
    axis: isize,
) -> Result<Tensor> {
    let op = "softmax_cross_entropy_with_logits";
    xent_check(op, labels, logits)?;
    let ax = normalize_axis(op, axis, logits.ndim())?;
    // An empty class axis beside huge ones gives a huge result: checked before it is made.
    let mut out_shape = logits.shape().to_vec();
    out_shape.remove(ax);
    crate::memory::ensure_shape(op, &out_shape, logits.dtype())?;
    let y = Tensor::new(match (labels.data(), logits.data()) {
        (Data::F32(z), Data::F32(x)) => softmax_xent_kernel(&z.view(), &x.view(), ax).into(),
        (Data::F64(z), Data::F64(x)) => softmax_xent_kernel(&z.view(), &x.view(), ax).into(),
        _ => unreachable!("xent_check admits two floating tensors of one dtype"),
    });
    // Both operands line up; the class axis is summed away.
    let rows = AxisMap::reduce(logits.ndim(), &[ax], false);
    record_batched(
        op,
        &[labels, logits],
        &y,
        &[labels, logits],
        rows,
        true,
        move |s, dy, batch| {
            let (z, x) = (&s[0], &s[1]);
            let dy = expand_dims(dy, (ax + batch) as isize)?;
            let to_labels = when(input_needed(0), || {
                negative(&multiply(&dy, &log_softmax(x, ax as isize)?)?)
            })?;
            let to_logits = when(input_needed(1), || {
                let total = reduce_sum(z, Some(&[ax as isize]), true)?;
                let p = multiply(&softmax(x, ax as isize)?, &total)?;
                multiply(&dy, &subtract(&p, z)?)
            })?;
            Ok(crate::grads![to_labels, to_logits])
        },
    );
    Ok(y)
}

/// `logsumexp(logits) - logits[label]` along the last axis
/// (`tf.nn.sparse_softmax_cross_entropy_with_logits`): `labels` (int32 or int64) has the shape
/// of `logits` without its last axis; a label outside `[0, classes)` is a ValueError.
/// Gradient `dy · (softmax(logits) - one_hot(labels))` to the logits; none to the labels.
pub fn sparse_softmax_cross_entropy_with_logits(
    labels: &Tensor,
    logits: &Tensor,
) -> Result<Tensor> {
    let op = "sparse_softmax_cross_entropy_with_logits";
    if !logits.dtype().is_float() {
        return Err(unsupported(op, logits.dtype(), "a floating"));
    }
    let Some((&classes, lead)) = logits.shape().split_last() else {
        return Err(Error::shape(
            op,
            "logits must have rank at least 1, got a scalar (shape [])",
        ));
    };
    if labels.shape() != lead {
        return Err(Error::shape(
            op,
            format!(
                "labels of shape {} must have the shape of logits {} without its last axis",
                fmt_shape(labels.shape()),
                fmt_shape(logits.shape())
            ),
        ));
    }
    let classes_i = classes as i64;
    let ids: Vec<i64> = match labels.data() {
        Data::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Data::I64(a) => a.iter().copied().collect(),
        other => {
            return Err(Error::dtype(
                op,
                format!("labels must be int32 or int64, got {}", other.dtype()),
            ))
        }
    };
    if let Some(i) = ids.iter().position(|&v| v < 0 || v >= classes_i) {
        return Err(Error::value(
            op,
            format!(
                "received a label value of {} (labels[{i}]) which is outside the valid range of [0, {classes}) for logits of shape {}",
                ids[i],
                fmt_shape(logits.shape())
            ),
        ));
    }
    let lead = lead.to_vec();
    let last = logits.ndim() - 1;
    macro_rules! rows {
        ($x:expr) => {{
            let (losses, probs) = sparse_xent_rows(&ids, $x.as_slice(), classes);
            (
                Tensor::from_vec(losses, &lead)?,
                Tensor::from_vec(probs, logits.shape())?,
            )
        }};
    }
    let (y, probs) = match logits.data() {
        Data::F32(x) => rows!(x),
        Data::F64(x) => rows!(x),
        _ => unreachable!("logits were checked to be floating"),
    };
    // The class axis of the logits is summed away (the integer labels have no gradient).
    let rows = AxisMap::reduce(logits.ndim(), &[last], false);
    record_batched(
        op,
        &[labels, logits],
        &y,
        &[labels, logits, &probs],
        rows,
        true,
        move |s, dy, batch| {
            if batch == 0 && !any_tape_recording() {
                // Nothing records this gradient: one pass from the forward's softmax.
                return Ok(crate::grads![
                    None,
                    Some(sparse_xent_grad(&s[0], &s[2], dy)?)
                ]);
            }
            let hot = cast(&super::one_hot(&s[0], classes, s[1].dtype())?, s[1].dtype())?;
            let dy = expand_dims(dy, (last + batch) as isize)?;
            let g = multiply(&dy, &subtract(&softmax(&s[1], last as isize)?, &hot)?)?;
            Ok(crate::grads![None, Some(g)])
        },
    );
    Ok(y)
}

/// `dy · (probs - one_hot(labels))` in one pass, for `dy` of the labels' shape.
fn sparse_xent_grad(labels: &Tensor, probs: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let op = "sparse_softmax_cross_entropy_with_logits";
    if dy.shape() != labels.shape() || dy.dtype() != probs.dtype() {
        return Err(Error::shape(
            op,
            format!(
                "a cotangent of shape {} ({}) does not fit the loss {} ({})",
                fmt_shape(dy.shape()),
                dy.dtype(),
                fmt_shape(labels.shape()),
                probs.dtype()
            ),
        ));
    }
    let ids: Vec<usize> = match labels.data() {
        Data::I32(a) => a.iter().map(|&v| v as usize).collect(),
        Data::I64(a) => a.iter().map(|&v| v as usize).collect(),
        _ => unreachable!("labels were checked to be int32 or int64"),
    };
    let classes = probs.shape().last().copied().unwrap_or(0);
    fn kernel<T: RowFloat>(ids: &[usize], p: &[T], dy: &[T], classes: usize) -> Vec<T> {
        let mut g = p.to_vec();
        for_each_row_block(&mut g, classes, &|first, block| {
            sparse_xent_grad_block(ids, dy, first, block, classes)
        });
        g
    }
    match (probs.data(), dy.data()) {
        (Data::F32(p), Data::F32(d)) => Tensor::from_vec(
            kernel(&ids, p.as_slice(), d.as_slice(), classes),
            probs.shape(),
        ),
        (Data::F64(p), Data::F64(d)) => Tensor::from_vec(
            kernel(&ids, p.as_slice(), d.as_slice(), classes),
            probs.shape(),
        ),
        _ => unreachable!("dtypes were checked"),
    }
}

/// `dy[k] * (softmax - onehot(ids[k]))` in place over rows `first..` (`block`, the softmax).
#[inline(always)]
fn sparse_xent_grad_block_body<T: RowFloat>(
    ids: &[usize],
    dy: &[T],
    first: usize,
    block: &mut [T],
    classes: usize,
) {
    for (r, row) in block.chunks_exact_mut(classes).enumerate() {
        let (k, d) = (first + r, dy[first + r]);
        row[ids[k]] = row[ids[k]] - T::one();
        for v in row.iter_mut() {
            *v = d * *v;
        }
    }
}
widest!(fn sparse_xent_grad_block<T: RowFloat>(ids: &[usize], dy: &[T], first: usize, block: &mut [T], classes: usize) => sparse_xent_grad_block_body, block.len());

/// `max(x, 0) - x·z + log(1 + e^-|x|)` for logits `x` and labels `z` of one shape
/// (`tf.nn.sigmoid_cross_entropy_with_logits`). Gradients `dy · (sigmoid(x) - z)` to the
/// logits and `-dy · x` to the labels.
pub fn sigmoid_cross_entropy_with_logits(labels: &Tensor, logits: &Tensor) -> Result<Tensor> {
    let op = "sigmoid_cross_entropy_with_logits";
    xent_check(op, labels, logits)?;
    fn kernel<T: Float>(z: &Values<T>, x: &Values<T>) -> Values<T> {
        let shape = x.shape().to_vec();
        let values = x
            .as_slice()
            .iter()
            .zip(z.as_slice())
            .map(|(&x, &z)| x.max(T::zero()) - x * z + (-x.abs()).exp().ln_1p())
            .collect();
        Values::from_vec(&shape, values)
    }
    let y = Tensor::new(match (labels.data(), logits.data()) {
        (Data::F32(z), Data::F32(x)) => kernel(z, x).into(),
        (Data::F64(z), Data::F64(x)) => kernel(z, x).into(),
        _ => unreachable!("xent_check admits two floating tensors of one dtype"),
    });
    record_batched(
        op,
        &[labels, logits],
        &y,
        &[labels, logits],
        0,
        true,
        |s, dy, _batch| {
            let (z, x) = (&s[0], &s[1]);
            let to_labels = when(input_needed(0), || negative(&multiply(dy, x)?))?;
            let to_logits = when(input_needed(1), || {
                multiply(dy, &subtract(&sigmoid(x)?, z)?)
            })?;
            Ok(crate::grads![to_labels, to_logits])
        },
    );
    Ok(y)
}

/// Labels and logits of one floating dtype and one shape.
fn xent_check(op: &str, labels: &Tensor, logits: &Tensor) -> Result<()> {
    if !logits.dtype().is_float() {
        return Err(unsupported(op, logits.dtype(), "a floating"));
    }
    if labels.dtype() != logits.dtype() {
        return Err(mismatch(op, labels.dtype(), logits.dtype()));
    }
    if labels.shape() != logits.shape() {
        return Err(Error::shape(
            op,
            format!(
                "labels and logits must have the same shape, got {} and {}",
                fmt_shape(labels.shape()),
                fmt_shape(logits.shape())
            ),
        ));
    }
    Ok(())
}
