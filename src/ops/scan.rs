//! Scans along an axis: `cumsum` and `cumprod`, each `exclusive` (the running total before
//! the element, starting from 0 or 1) and/or `reverse` (running from the end), as TensorFlow.
//!
//! The gradient of `cumsum` is a `cumsum` running the other way. The gradient of `cumprod` is
//! TensorFlow's `cumsum(y · dy) / x` when `x` has no zeros; where it does, TensorFlow's formula
//! gives 0 (it divides with `div_no_nan`) where the derivative is not zero. rustape computes
//! the exact derivative there instead: each element's share is the scan of `x` with that
//! element replaced by 1 (an `n × n` scan per lane, taken only when zeros are present), which
//! is exact to every order.
use ndarray::{ArrayD, Axis};

use super::arith::Arith;
use super::{expand_dims, multiply, normalize_axis, reduce_sum, scalar_like, where_};
use crate::dispatch;
use crate::error::Result;
use crate::tape::{mixes_input, record_batched};
use crate::tensor::{Data, Tensor};

/// The running fold of every lane along `axis` (`init` is 0 for a sum, 1 for a product).
fn scan_kernel<T: Arith>(
    a: &ndarray::ArrayViewD<'_, T>,
    axis: usize,
    exclusive: bool,
    reverse: bool,
    init: T,
    f: impl Fn(T, T) -> T,
) -> ArrayD<T> {
    let mut out = a.as_standard_layout().into_owned();
    if out.is_empty() {
        // Work follows the data: no loop over the lanes of an empty tensor (there may be 2^40).
        return out;
    }
    for mut lane in out.lanes_mut(Axis(axis)) {
        let n = lane.len();
        let mut acc = init;
        for step in 0..n {
            let i = if reverse { n - 1 - step } else { step };
            let v = lane[i];
            if exclusive {
                lane[i] = acc;
                acc = f(acc, v);
            } else {
                acc = f(acc, v);
                lane[i] = acc;
            }
        }
    }
    out
}

fn scan_mixes(axis: usize) -> u8 {
    if axis == 0 {
        mixes_input(0)
    } else {
        0
    }
}

/// The cumulative sum of `x` along `axis` (`tf.math.cumsum`), for every numeric dtype
/// (integers wrap). With `exclusive` each element gets the sum of those before it; with
/// `reverse` the sum runs from the end. Gradient: `cumsum(dy)` with the same `exclusive` and
/// the opposite direction.
pub fn cumsum(x: &Tensor, axis: isize, exclusive: bool, reverse: bool) -> Result<Tensor> {
    let op = "cumsum";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let y = Tensor::new(dispatch!(num x.data(), op, |a| {
        scan_kernel(a, ax, exclusive, reverse, Default::default(), Arith::add)
    }));
    record_batched(
        op,
        &[x],
        &y,
        &[],
        scan_mixes(ax),
        true,
        move |_, dy, batch| {
            let dx = cumsum(dy, (ax + batch) as isize, exclusive, !reverse)?;
            Ok(crate::grads![Some(dx)])
        },
    );
    Ok(y)
}

/// The cumulative product of `x` along `axis` (`tf.math.cumprod`), for every numeric dtype
/// (integers wrap); `exclusive` and `reverse` as in [`cumsum`]. The gradient is exact where
/// `x` holds zeros too (see the module docs).
pub fn cumprod(x: &Tensor, axis: isize, exclusive: bool, reverse: bool) -> Result<Tensor> {
    let op = "cumprod";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let y = Tensor::new(dispatch!(num x.data(), op, |a| {
        scan_kernel(a, ax, exclusive, reverse, crate::tensor::Element::from_f64(1.0), Arith::mul)
    }));
    record_batched(
        op,
        &[x],
        &y,
        &[x, &y],
        scan_mixes(ax),
        true,
        move |s, dy, batch| {
            let dx = cumprod_grad(&s[0], &s[1], dy, ax, batch, exclusive, reverse)?;
            Ok(crate::grads![Some(dx)])
        },
    );
    Ok(y)
}

/// Whether a floating tensor holds a zero.
fn has_zero(x: &Tensor) -> bool {
    match x.data() {
        Data::F32(a) => a.iter().any(|&v| v == 0.0),
        Data::F64(a) => a.iter().any(|&v| v == 0.0),
        _ => false,
    }
}

/// The VJP of `y = cumprod(x)` along `ax` for a cotangent with `batch` leading axes.
fn cumprod_grad(
    x: &Tensor,
    y: &Tensor,
    dy: &Tensor,
    ax: usize,
    batch: usize,
    exclusive: bool,
    reverse: bool,
) -> Result<Tensor> {
    let axis = (ax + batch) as isize;
    if !has_zero(x) {
        // TensorFlow's formula: cumsum(y dy) running back, over x.
        let total = cumsum(&multiply(y, dy)?, axis, exclusive, !reverse)?;
        return super::divide(&total, x);
    }
    // Exact with zeros: row k of `p` is the scan of x with x_k replaced by 1; output i takes
    // p[k, i] dy_i when it depends on x_k.
    let n = x.shape()[ax];
    let trailing = x.ndim() - ax - 1;
    let mut mask_shape = vec![n, n];
    mask_shape.extend(std::iter::repeat_n(1, trailing));
    let diagonal: Vec<bool> = (0..n * n).map(|flat| flat / n == flat % n).collect();
    let diagonal = Tensor::from_vec(diagonal, &mask_shape)?;
    let depends: Vec<bool> = (0..n * n)
        .map(|flat| {
            let (k, i) = (flat / n, flat % n);
            match (exclusive, reverse) {
                (false, false) => i >= k,
                (true, false) => i > k,
                (false, true) => i <= k,
                (true, true) => i < k,
            }
        })
        .collect();
    let depends = Tensor::from_vec(depends, &mask_shape)?;
    let spread = expand_dims(x, ax as isize)?;
    let replaced = where_(&diagonal, &scalar_like(1.0, x), &spread)?;
    let p = cumprod(&replaced, (ax + 1) as isize, exclusive, reverse)?;
    let p = where_(&depends, &p, &scalar_like(0.0, x))?;
    let dy_spread = expand_dims(dy, axis)?;
    reduce_sum(&multiply(&p, &dy_spread)?, Some(&[axis + 1]), false)
}
