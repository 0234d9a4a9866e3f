//! Neural-network ops: softmax, log_softmax, clip_by_norm, moments, batch_normalization.
use ndarray::{ArrayD, Axis};

use super::{
    add, broadcast_shapes, divide, exp, greater, maximum, multiply, negative, normalize_axes,
    normalize_axis, reduce_mean, reduce_sum, reshape, scalar_like, sqrt, subtract, where_,
};
use crate::dispatch;
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{mixes_input, record_batched};
use crate::tensor::{mismatch, unsupported, Tensor};

/// Softmax (or log-softmax) of every lane along `axis`, with the lane's maximum subtracted first.
fn softmax_kernel<T: Float>(a: &ndarray::ArrayViewD<'_, T>, axis: usize, log: bool) -> ArrayD<T> {
    let mut out = a.to_owned();
    for mut lane in out.lanes_mut(Axis(axis)) {
        let max = lane.fold(T::neg_infinity(), |m, &v| if v > m { v } else { m });
        lane.mapv_inplace(|v| v - max);
        let sum = lane.fold(T::zero(), |s, &v| s + v.exp());
        if log {
            let log_sum = sum.ln();
            lane.mapv_inplace(|v| v - log_sum);
        } else {
            lane.mapv_inplace(|v| v.exp() / sum);
        }
    }
    out
}

/// The row-mixing mask of a softmax along `axis` (normalised): along axis 0 every batch row
/// enters every other row's normaliser.
fn lane_mixes(axis: usize) -> u8 {
    if axis == 0 {
        mixes_input(0)
    } else {
        0
    }
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
        lane_mixes(ax),
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
        lane_mixes(ax),
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
