//! Neural-network ops: softmax, log_softmax, clip_by_norm, moments, batch_normalization, and
//! the softmax, sparse softmax and sigmoid cross-entropies.
use ndarray::{ArrayD, Axis};

use super::elementwise::when;
use super::{
    add, broadcast_shapes, cast, divide, exp, expand_dims, greater, maximum, multiply, negative,
    normalize_axes, normalize_axis, reduce_mean, reduce_sum, reshape, scalar_like, sigmoid, sqrt,
    subtract, where_,
};
use crate::dispatch;
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{input_needed, record_batched, AxisMap};
use crate::tensor::{mismatch, unsupported, Data, Tensor, Values};

/// Softmax (or log-softmax) of every lane along `axis`, with the lane's maximum subtracted first.
fn softmax_kernel<T: Float>(a: &ndarray::ArrayViewD<'_, T>, axis: usize, log: bool) -> ArrayD<T> {
    let mut out = a.to_owned();
    if out.is_empty() {
        // Work follows the data: no loop over the lanes of an empty tensor (there may be 2^40).
        return out;
    }
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
fn softmax_xent_kernel<T: Float>(
    labels: &ndarray::ArrayViewD<'_, T>,
    logits: &ndarray::ArrayViewD<'_, T>,
    axis: usize,
) -> ArrayD<T> {
    let mut out = logits.sum_axis(Axis(axis));
    for ((x, z), o) in logits
        .lanes(Axis(axis))
        .into_iter()
        .zip(labels.lanes(Axis(axis)))
        .zip(out.iter_mut())
    {
        let max = x.fold(T::neg_infinity(), |m, &v| if v > m { v } else { m });
        let max = if max.is_finite() { max } else { T::zero() };
        let lse = x.fold(T::zero(), |s, &v| s + (v - max).exp()).ln() + max;
        *o = x
            .iter()
            .zip(z.iter())
            .fold(T::zero(), |s, (&v, &l)| s + l * (lse - v));
    }
    out
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
    let hot = cast(
        &super::one_hot(labels, classes, logits.dtype())?,
        logits.dtype(),
    )?;
    let last = logits.ndim() - 1;
    let y = Tensor::new(match (hot.data(), logits.data()) {
        (Data::F32(z), Data::F32(x)) => softmax_xent_kernel(&z.view(), &x.view(), last).into(),
        (Data::F64(z), Data::F64(x)) => softmax_xent_kernel(&z.view(), &x.view(), last).into(),
        _ => unreachable!("one_hot took the dtype of the logits"),
    });
    // The class axis of the logits is summed away (the integer labels have no gradient).
    let rows = AxisMap::reduce(logits.ndim(), &[last], false);
    record_batched(
        op,
        &[labels, logits],
        &y,
        &[&hot, logits],
        rows,
        true,
        move |s, dy, batch| {
            let dy = expand_dims(dy, (last + batch) as isize)?;
            let g = multiply(&dy, &subtract(&softmax(&s[1], last as isize)?, &s[0])?)?;
            Ok(crate::grads![None, Some(g)])
        },
    );
    Ok(y)
}

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
