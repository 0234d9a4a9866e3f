//! Sorting: `top_k`, `sort`, `argsort` and `argpartition`. Orders are stable (equal values keep their order,
//! as TensorFlow's kernels give them), and NaN sorts above every number. Values are gathers of
//! the input at the sorted positions, so each gradient goes back to the element it came from
//! (ties included: each copy to its own position).
use ndarray::{ArrayD, Axis};

use super::{gather, normalize_axis, transpose};
use crate::dispatch;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::{Data, Element, Tensor};

/// `a < b` with NaN above every number (and equal to itself).
fn before<T: PartialOrd>(a: &T, b: &T) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a_nan, b_nan) = (a.partial_cmp(a).is_none(), b.partial_cmp(b).is_none());
    match (a_nan, b_nan) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}

/// The first `k` positions of every lane along the last axis in sorted order (stable), as
/// int32.
fn order_kernel<T: Element + PartialOrd>(
    a: &ndarray::ArrayViewD<'_, T>,
    k: usize,
    descending: bool,
) -> ArrayD<i32> {
    let last = a.ndim() - 1;
    let mut shape = a.shape().to_vec();
    shape[last] = k;
    let mut out = ArrayD::<i32>::zeros(shape);
    if a.is_empty() || out.is_empty() {
        // Work follows the data: no loop over the lanes of an empty tensor (there may be 2^40).
        return out;
    }
    for (lane, mut dst) in a
        .lanes(Axis(last))
        .into_iter()
        .zip(out.lanes_mut(Axis(last)))
    {
        let mut order: Vec<usize> = (0..lane.len()).collect();
        if descending {
            order.sort_by(|&i, &j| before(&lane[j], &lane[i]));
        } else {
            order.sort_by(|&i, &j| before(&lane[i], &lane[j]));
        }
        for (d, &i) in dst.iter_mut().zip(&order) {
            *d = i as i32;
        }
    }
    out
}

/// The sorted positions (int32) of the first `k` elements of every lane along the last axis.
fn order(op: &str, x: &Tensor, k: usize, descending: bool) -> Result<Tensor> {
    let data: Data = dispatch!(num x.data(), op, |a| order_kernel(a, k, descending));
    Ok(Tensor::new(data))
}

/// `x` with `axis` moved to the end, and the permutation that moves it back.
fn axis_last(x: &Tensor, ax: usize) -> Result<(Tensor, Option<Vec<usize>>)> {
    let n = x.ndim();
    if ax + 1 == n {
        return Ok((x.clone(), None));
    }
    let perm: Vec<usize> = (0..n).filter(|&i| i != ax).chain([ax]).collect();
    let mut back = vec![0; n];
    for (i, &p) in perm.iter().enumerate() {
        back[p] = i;
    }
    Ok((transpose(x, Some(&perm))?, Some(back)))
}

/// The `k` largest elements of every lane along the last axis, largest first, and their
/// positions (int32) (`tf.math.top_k`, sorted): equal values come in order of position.
/// The gradient of the values goes to the positions they were taken from.
pub fn top_k(x: &Tensor, k: usize) -> Result<(Tensor, Tensor)> {
    let op = "top_k";
    let Some(&n) = x.shape().last() else {
        return Err(Error::shape(
            op,
            "input must have rank at least 1, got a scalar (shape [])",
        ));
    };
    if k > n {
        return Err(Error::value(
            op,
            format!(
                "input must have at least k = {k} columns, got shape {}",
                fmt_shape(x.shape())
            ),
        ));
    }
    let indices = order(op, x, k, true)?;
    let last = x.ndim() - 1;
    let values = gather(x, &indices, last as isize, last)?;
    Ok((values, indices))
}

/// The positions (int32) that sort every lane along `axis` (`tf.argsort`, stable):
/// ascending, or descending with `descending`. Not differentiable.
pub fn argsort(x: &Tensor, axis: isize, descending: bool) -> Result<Tensor> {
    let op = "argsort";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let (moved, back) = axis_last(x, ax)?;
    let n = moved.shape()[moved.ndim() - 1];
    let indices = order(op, &moved, n, descending)?;
    match back {
        Some(back) => transpose(&indices, Some(&back)),
        None => Ok(indices),
    }
}

/// Every lane along `axis` sorted (`tf.sort`), ascending or with `descending`. Each element's
/// gradient comes from the position it moved to.
pub fn sort(x: &Tensor, axis: isize, descending: bool) -> Result<Tensor> {
    let op = "sort";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let (moved, back) = axis_last(x, ax)?;
    let last = moved.ndim() - 1;
    let n = moved.shape()[last];
    let indices = order(op, &moved, n, descending)?;
    let sorted = gather(&moved, &indices, last as isize, last)?;
    match back {
        Some(back) => transpose(&sorted, Some(&back)),
        None => Ok(sorted),
    }
}

/// Every lane along the last axis partitioned around its `kth` smallest element: the `kth + 1`
/// smallest positions in ascending order of value, then the others in descending order (equal
/// values in order of position), as int32.
fn partition_kernel<T: Element + PartialOrd>(
    a: &ndarray::ArrayViewD<'_, T>,
    kth: usize,
) -> Result<ArrayD<i32>> {
    let last = a.ndim() - 1;
    crate::memory::ensure_shape("argpartition", a.shape(), crate::dtype::DType::I32)?;
    let mut out = ArrayD::<i32>::zeros(a.shape());
    if a.is_empty() {
        return Ok(out);
    }
    for (lane, mut dst) in a
        .lanes(Axis(last))
        .into_iter()
        .zip(out.lanes_mut(Axis(last)))
    {
        let mut order: Vec<usize> = (0..lane.len()).collect();
        order.sort_by(|&i, &j| before(&lane[i], &lane[j]));
        order[kth + 1..].sort_by(|&i, &j| before(&lane[j], &lane[i]).then(i.cmp(&j)));
        for (d, &i) in dst.iter_mut().zip(&order) {
            *d = i as i32;
        }
    }
    Ok(out)
}

/// The positions (int32) that partition every lane along `axis` around its `kth` smallest
/// element (`keras.ops.argpartition`, NumPy's definition; a negative `kth` counts from the
/// end): position `kth` holds the index of the `kth` smallest value, the ones before it the
/// smaller values (ascending), the ones after the larger values (descending), equal values in
/// order of position. Not differentiable.
pub fn argpartition(x: &Tensor, kth: isize, axis: isize) -> Result<Tensor> {
    let op = "argpartition";
    if x.ndim() == 0 {
        return Err(Error::shape(
            op,
            "x must have at least one axis, got a scalar",
        ));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n = x.shape()[ax];
    let k = if kth < 0 { kth + n as isize } else { kth };
    if k < 0 || k as usize >= n {
        return Err(Error::value(
            op,
            format!(
                "kth={kth} is out of bounds for axis {axis} of length {n} (shape {})",
                fmt_shape(x.shape())
            ),
        ));
    }
    let (moved, back) = axis_last(x, ax)?;
    let data: Data = dispatch!(num moved.data(), op, |a| partition_kernel(a, k as usize)?);
    let indices = Tensor::new(data);
    match back {
        Some(back) => transpose(&indices, Some(&back)),
        None => Ok(indices),
    }
}
