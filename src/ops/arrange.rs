//! Rearranging ops: `split`, `reverse`, `roll`, `repeat`, `meshgrid` and `boolean_mask`, as
//! TensorFlow has them. `split`, `reverse` and `roll` are kernels with their VJPs (a concat, a
//! reverse, a roll back); `repeat`, `meshgrid` and `boolean_mask` are gathers, reshapes and
//! broadcasts, whose VJPs give theirs.
use std::sync::Arc;

use ndarray::{ArrayD, Axis, Slice};

use super::shape::standard;
use super::{broadcast_to, concat, gather, normalize_axes, normalize_axis, reshape, where_indices};
use crate::dispatch;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{mixes_input, record_batched, record_multi, Vjp};
use crate::tensor::{Element, Tensor};

fn mixes_if(mixes: bool) -> u8 {
    if mixes {
        mixes_input(0)
    } else {
        0
    }
}

/// Splits `x` along `axis` into parts of the given sizes (`tf.split` with a list): one size
/// may be `-1` (the rest of the axis); the sizes must add up to the axis. The gradient joins
/// the parts' gradients (zeros for parts that got none).
pub fn split(x: &Tensor, sizes: &[isize], axis: isize) -> Result<Vec<Tensor>> {
    let op = "split";
    if x.ndim() == 0 {
        return Err(Error::shape(op, "cannot split a scalar (shape [])"));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n = x.shape()[ax];
    let bad = |why: &str| {
        Error::value(
            op,
            format!(
                "sizes {sizes:?} {why}: axis {ax} of shape {} has size {n}",
                fmt_shape(x.shape())
            ),
        )
    };
    let unknown: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i] == -1).collect();
    if sizes.is_empty() || unknown.len() > 1 || sizes.iter().any(|&s| s < -1) {
        return Err(bad("must be non-negative, with at most one -1"));
    }
    crate::tape::check_output_count(op, sizes.len())?;
    let known = sizes.iter().filter(|&&s| s >= 0).try_fold(0, |total, &s| {
        crate::memory::checked_add(op, total, s as usize)
    })?;
    let mut parts: Vec<usize> = sizes.iter().map(|&s| s.max(0) as usize).collect();
    match unknown.first() {
        Some(&i) if known <= n => parts[i] = n - known,
        None if known == n => {}
        _ => return Err(bad("do not add up to the axis")),
    }
    let mut starts = Vec::with_capacity(parts.len());
    let mut start = 0;
    for &p in &parts {
        starts.push(start);
        start += p;
    }
    let outputs: Vec<Tensor> = parts
        .iter()
        .zip(&starts)
        .map(|(&len, &from)| {
            Ok(Tensor::new(dispatch!(all x.data(), |a| standard(
                a.slice_axis(Axis(ax), Slice::from(from..from + len))
            ))))
        })
        .collect::<Result<_>>()?;
    let shape = x.shape().to_vec();
    let dtype = x.dtype();
    let vjp: Arc<Vjp> = Arc::new(
        move |_: &[Tensor], grads: &[Option<Tensor>], batch: usize| {
            let lead: Vec<usize> = grads
                .iter()
                .flatten()
                .next()
                .map(|g| g.shape()[..batch].to_vec())
                .unwrap_or_default();
            let pieces: Vec<Tensor> = grads
                .iter()
                .zip(&parts)
                .map(|(g, &len)| {
                    g.clone().unwrap_or_else(|| {
                        let mut zeros = lead.clone();
                        zeros.extend_from_slice(&shape);
                        zeros[batch + ax] = len;
                        Tensor::zeros(&zeros, dtype)
                    })
                })
                .collect();
            Ok(crate::grads![Some(concat(&pieces, (ax + batch) as isize)?)])
        },
    );
    let refs: Vec<&Tensor> = outputs.iter().collect();
    record_multi(
        op,
        &[x],
        &refs,
        &[],
        mixes_if(ax == 0 && refs.len() > 1),
        true,
        vjp,
    );
    Ok(outputs)
}

/// Splits `x` along `axis` into `num` equal parts (`tf.split` with a number); the axis must
/// divide evenly.
pub fn split_evenly(x: &Tensor, num: usize, axis: isize) -> Result<Vec<Tensor>> {
    let op = "split";
    if x.ndim() == 0 {
        return Err(Error::shape(op, "cannot split a scalar (shape [])"));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n = x.shape()[ax];
    if num == 0 || n % num != 0 {
        return Err(Error::value(
            op,
            format!(
                "cannot split axis {ax} of shape {} (size {n}) into {num} equal parts",
                fmt_shape(x.shape())
            ),
        ));
    }
    // An empty axis splits into any number of parts: their count is checked first.
    crate::tape::check_output_count(op, num)?;
    crate::memory::ensure::<Tensor>(op, num)?;
    let sizes = crate::memory::try_filled(op, num, (n / num) as isize)?;
    split(x, &sizes, axis)
}

/// `x` with the elements along each of `axes` in reverse order (`tf.reverse`). Gradient: the
/// same reverse.
pub fn reverse(x: &Tensor, axes: &[isize]) -> Result<Tensor> {
    let op = "reverse";
    let axes = normalize_axes(op, Some(axes), x.ndim())?;
    if axes.iter().all(|&a| x.shape()[a] <= 1) {
        return Ok(x.clone());
    }
    fn kernel<T: Element>(a: &ndarray::ArrayViewD<'_, T>, axes: &[usize]) -> ArrayD<T> {
        standard(a.slice_each_axis(|d| {
            let step = if axes.contains(&d.axis.index()) {
                -1
            } else {
                1
            };
            Slice::new(0, None, step)
        }))
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| kernel(a, &axes)));
    let rows = mixes_if(axes.first() == Some(&0) && x.shape()[0] > 1);
    record_batched(op, &[x], &y, &[], rows, true, move |_, dy, batch| {
        let shifted: Vec<isize> = axes.iter().map(|&a| (a + batch) as isize).collect();
        Ok(crate::grads![Some(reverse(dy, &shifted)?)])
    });
    Ok(y)
}

/// `x` with its elements shifted by `shifts[i]` along `axes[i]`, wrapping around (`tf.roll`;
/// negative shifts go the other way, and shifts of one axis add up). Gradient: the roll back.
pub fn roll(x: &Tensor, shifts: &[isize], axes: &[isize]) -> Result<Tensor> {
    let op = "roll";
    if shifts.len() != axes.len() {
        return Err(Error::value(
            op,
            format!(
                "shift and axis must have the same length, got {} shifts and {} axes",
                shifts.len(),
                axes.len()
            ),
        ));
    }
    let mut net = vec![0isize; x.ndim()];
    for (&s, &a) in shifts.iter().zip(axes) {
        let a = normalize_axis(op, a, x.ndim())?;
        net[a] += s;
    }
    // Each axis's shift as an offset in [0, n).
    let offsets: Vec<usize> = net
        .iter()
        .zip(x.shape())
        .map(|(&s, &n)| {
            if n == 0 {
                0
            } else {
                s.rem_euclid(n as isize) as usize
            }
        })
        .collect();
    if offsets.iter().all(|&o| o == 0) {
        return Ok(x.clone());
    }
    fn kernel<T: Element>(a: &ndarray::ArrayViewD<'_, T>, offsets: &[usize]) -> ArrayD<T> {
        let mut out = a.as_standard_layout().into_owned();
        for (ax, &k) in offsets.iter().enumerate() {
            if k == 0 {
                continue;
            }
            let n = out.shape()[ax];
            // out[i] = in[i - k]: the last k elements move to the front.
            let parts = [
                out.slice_axis(Axis(ax), Slice::from(n - k..)),
                out.slice_axis(Axis(ax), Slice::from(..n - k)),
            ];
            out = match ndarray::concatenate(Axis(ax), &parts) {
                Ok(joined) => joined.as_standard_layout().into_owned(),
                Err(_) => unreachable!("the parts share every other axis"),
            };
        }
        out
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| kernel(a, &offsets)));
    let rows = mixes_if(offsets.first().is_some_and(|&o| o != 0));
    record_batched(op, &[x], &y, &[], rows, true, move |_, dy, batch| {
        let (back, axes): (Vec<isize>, Vec<isize>) = offsets
            .iter()
            .enumerate()
            .filter(|(_, &o)| o != 0)
            .map(|(a, &o)| (-(o as isize), (a + batch) as isize))
            .unzip();
        Ok(crate::grads![Some(roll(dy, &back, &axes)?)])
    });
    Ok(y)
}

/// `x` with each element along `axis` repeated (`tf.repeat`): `repeats` holds one count, used
/// for every element, or one count per element of the axis. With `axis` `None` the tensor is
/// flattened first. A gather, so its gradient sums the copies.
pub fn repeat(x: &Tensor, repeats: &[usize], axis: Option<isize>) -> Result<Tensor> {
    let op = "repeat";
    let (source, ax) = match axis {
        Some(a) => {
            if x.ndim() == 0 {
                return Err(Error::shape(
                    op,
                    "cannot repeat along an axis of a scalar (shape [])",
                ));
            }
            (x.clone(), normalize_axis(op, a, x.ndim())?)
        }
        None => (reshape(x, &[-1])?, 0),
    };
    let n = source.shape()[ax];
    let counts: Vec<usize> = match repeats {
        [r] => vec![*r; n],
        r if r.len() == n => r.to_vec(),
        r => {
            return Err(Error::value(
                op,
                format!(
                    "repeats must be one count or one per element of axis {ax} (size {n}), got {} counts",
                    r.len()
                ),
            ))
        }
    };
    // The result's size comes from the counts: checked before anything is allocated.
    let len = counts
        .iter()
        .try_fold(0, |total, &c| crate::memory::checked_add(op, total, c))?;
    let mut out_shape = source.shape().to_vec();
    out_shape[ax] = len;
    crate::memory::ensure_shape(op, &out_shape, source.dtype())?;
    let mut index: Vec<i64> = crate::memory::try_vec(op, len)?;
    for (i, &c) in counts.iter().enumerate() {
        index.extend(std::iter::repeat_n(i as i64, c));
    }
    gather(&source, &Tensor::from_vec(index, &[len])?, ax as isize, 0)
}

/// Coordinate grids from 1-D tensors (`tf.meshgrid`): output `i` holds `args[i]` broadcast
/// along the other axes. With `indexing_xy` (TensorFlow's default, `'xy'`) the first two
/// axes of the outputs are swapped (`[len(y), len(x), ...]`), else `'ij'`
/// (`[len(x), len(y), ...]`). Reshapes and broadcasts: gradients sum over the grid.
pub fn meshgrid(args: &[Tensor], indexing_xy: bool) -> Result<Vec<Tensor>> {
    let op = "meshgrid";
    let flat: Vec<Tensor> = args
        .iter()
        .map(|a| reshape(a, &[-1]))
        .collect::<Result<_>>()?;
    if let Some(t) = flat.iter().find(|t| t.dtype() != flat[0].dtype()) {
        return Err(crate::tensor::mismatch(op, flat[0].dtype(), t.dtype()));
    }
    let k = flat.len();
    let mut shape: Vec<usize> = flat.iter().map(|t| t.size()).collect();
    let position = |i: usize| match (indexing_xy && k > 1, i) {
        (true, 0) => 1,
        (true, 1) => 0,
        (_, i) => i,
    };
    if indexing_xy && k > 1 {
        shape.swap(0, 1);
    }
    flat.iter()
        .enumerate()
        .map(|(i, t)| {
            let mut dims = vec![1isize; k];
            dims[position(i)] = -1;
            broadcast_to(&reshape(t, &dims)?, &shape)
        })
        .collect()
}

/// The elements (or slices) of `tensor` where `mask` is true (`tf.boolean_mask`): `mask`
/// (bool, rank `k ≥ 1`) must match `tensor.shape[axis..axis + k]`; those axes become one of
/// the selected length. A gather: the gradient scatters back, zeros where the mask is false.
pub fn boolean_mask(tensor: &Tensor, mask: &Tensor, axis: isize) -> Result<Tensor> {
    let op = "boolean_mask";
    if mask.dtype() != DType::Bool {
        return Err(Error::dtype(
            op,
            format!("mask must be bool, got {}", mask.dtype()),
        ));
    }
    let k = mask.ndim();
    if k == 0 {
        return Err(Error::shape(op, "mask cannot be a scalar (shape [])"));
    }
    let ax = normalize_axis(op, axis, tensor.ndim().max(1))?;
    let shape = tensor.shape();
    if ax + k > shape.len() || shape[ax..ax + k] != *mask.shape() {
        return Err(Error::shape(
            op,
            format!(
                "mask of shape {} does not match the dimensions of tensor of shape {} from axis {ax}",
                fmt_shape(mask.shape()),
                fmt_shape(shape)
            ),
        ));
    }
    let dims: Vec<isize> = shape[..ax]
        .iter()
        .map(|&d| d as isize)
        .chain([mask.size() as isize])
        .chain(shape[ax + k..].iter().map(|&d| d as isize))
        .collect();
    let flat = reshape(tensor, &dims)?;
    let hits = where_indices(&reshape(mask, &[-1])?)?;
    let index = reshape(&hits, &[-1])?;
    gather(&flat, &index, ax as isize, 0)
}
