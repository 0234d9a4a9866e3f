//! The op set. Each op is one function: its forward kernel, then `record_batched(...)` with its
//! VJP, written in these same ops so that an outer tape records the backward pass (any order).
//!
//! Conventions for an op:
//! - validate shapes/dtypes first and return `Error` naming the op, shapes and dtypes;
//! - compute with `dispatch!` / `dispatch2!` (src/tensor.rs): an ndarray view, or the
//!   `Values` slice where that is all the kernel needs;
//! - `record_batched(name, inputs, &output, saved, rows, batchable, |saved, dy, batch| ...)`
//!   returning `grads![..]`, one `Option<Tensor>` per input; save only what the VJP needs
//!   (shapes go in the closure, not tensors); binary ops go through `record_binary`;
//! - broadcasting VJPs reduce with [`sum_to_batched_shape`].
mod activation;
mod arith;
mod arrange;
mod bessel;
mod cmath;
mod complex;
mod contract;
mod conv;
mod creation;
mod ctc;
mod elementwise;
mod fingerprint;
mod image;
mod image_affine;
mod image_boxes;
mod image_color;
mod image_filter;
mod image_nms;
mod image_nms_order;
mod image_nms_padded;
mod indexing;
mod integer;
pub(crate) mod kernel;
mod linalg;
mod nn;
mod nn_layer;
pub(crate) mod parallel;
pub mod philox;
mod pool;
mod quantiles;
mod random;
mod random_gamma;
mod reduce;
mod reduce_kernel;
mod rnn;
mod rnn_sequence;
mod scan;
mod scatter;
mod search;
mod segment;
mod shape;
mod signal;
mod sort;
mod special;
pub mod strings;
mod vmath;

pub use activation::*;
pub use arrange::*;
pub use bessel::{bessel_i0, bessel_i0e, bessel_i1, bessel_i1e};
pub use complex::{adjoint, angle, complex, conj, imag, real};
pub use contract::*;
pub use conv::{
    conv1d, conv2d, conv2d_backprop_filter, conv2d_backprop_input, conv2d_transpose, conv3d,
    conv3d_backprop_filter, conv3d_backprop_input, conv3d_transpose, depthwise_conv2d, Padding,
};
pub use creation::*;
pub use ctc::{ctc_beam_search_decoder, ctc_greedy_decoder, ctc_loss};
pub use elementwise::*;
pub use image::{resize, resize_adjoint, ResizeMethod, SamplingKernel};
pub use image_affine::{affine_transform, affine_transform_adjoint, FillMode, Interpolation};
pub use image_boxes::draw_bounding_boxes;
pub use image_color::{adjust_hue, adjust_saturation, hsv_to_rgb, rgb_to_hsv};
pub use image_filter::separable_filter;
pub use image_nms::{
    combined_non_max_suppression, non_max_suppression, non_max_suppression_overlaps,
    CombinedOptions, NmsOptions,
};
pub use image_nms_padded::{non_max_suppression_padded, PaddedOptions};
pub use indexing::*;
pub use integer::*;
pub use linalg::*;
pub use nn::*;
pub use nn_layer::{bias_add, bias_add_grad, dropout, embedding_lookup, DataFormat};
pub use pool::{avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d};
pub use quantiles::QuantileSummary;
pub use random::*;
pub use random_gamma::{gamma, gamma_from, stateless_gamma};
pub use reduce::*;
pub use rnn::{gru_cell, lstm_cell};
pub use rnn_sequence::lstm_sequence;
pub use scan::*;
pub use scatter::*;
pub use search::{
    bincount, histogram_fixed_width, histogram_fixed_width_bins, searchsorted, unique, Bincount,
    Unique,
};
pub use segment::*;
pub use shape::*;
pub use signal::{
    fft, fft2d, fft3d, fftshift, ifft, ifft2d, ifft3d, ifftshift, irfft, irfft_nd, rfft, rfft_nd,
};
pub use sort::*;
pub use special::*;

pub(crate) use kernel::parallel_threads;

use ndarray::Zip;
use smallvec::SmallVec;

use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::tensor::{Element, Tensor, Values};

/// A shape kept inline (no allocation for up to four dimensions), for VJP closures.
pub(crate) type Shape = SmallVec<[usize; 4]>;

pub(crate) fn shape_of(t: &Tensor) -> Shape {
    t.shape().iter().copied().collect()
}

/// A 0-d tensor of `like`'s dtype: constants inside VJPs (shared, see `Tensor::shared_scalar`).
pub(crate) fn scalar_like(value: f64, like: &Tensor) -> Tensor {
    Tensor::shared_scalar_of(value, like.dtype())
}

/// NumPy broadcasting of two shapes.
pub fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(Error::shape(
                    op,
                    format!(
                        "shapes {} and {} are not broadcast-compatible",
                        fmt_shape(a),
                        fmt_shape(b)
                    ),
                ))
            }
        };
    }
    Ok(out)
}

/// Sums `grad` over the axes that broadcasting added or stretched, back to `shape`.
pub fn sum_to_shape(grad: &Tensor, shape: &[usize]) -> Result<Tensor> {
    sum_to_batched_shape(grad, 0, shape)
}

/// [`sum_to_shape`] for a cotangent with `batch` leading batch axes (see `tape::Vjp`): the
/// batch axes are kept, the broadcast axes after them are summed, giving `[batch.., shape]`.
pub fn sum_to_batched_shape(grad: &Tensor, batch: usize, shape: &[usize]) -> Result<Tensor> {
    let logical = &grad.shape()[batch.min(grad.ndim())..];
    if logical == shape {
        return Ok(grad.clone());
    }
    sum_broadcast_axes(grad, batch, shape)
}

/// [`sum_to_batched_shape`] taking the gradient: returned as is when nothing is summed.
pub(crate) fn into_batched_shape(grad: Tensor, batch: usize, shape: &[usize]) -> Result<Tensor> {
    if grad.shape()[batch.min(grad.ndim())..] == *shape {
        return Ok(grad);
    }
    sum_broadcast_axes(&grad, batch, shape)
}

/// `grad` (of an op's output, `[b, ..]`, rows on axis 0) summed over the axes an operand of
/// `shape` was broadcast along, except the rows: the operand's per-example gradients, `[b,
/// shape..]` (see `crate::tape::per_example_input`).
pub(crate) fn into_per_example_shape(grad: Tensor, shape: &[usize]) -> Result<Tensor> {
    if shape.len() < grad.ndim() {
        // The operand lines up with the output's axes after the rows.
        return into_batched_shape(grad, 1, shape);
    }
    // Axis 0 of size 1, broadcast over the rows.
    let rows = grad.shape()[0];
    let summed = into_batched_shape(grad, 1, &shape[1..])?;
    let dims: Vec<isize> = [rows].iter().chain(shape).map(|&d| d as isize).collect();
    reshape(&summed, &dims)
}

fn sum_broadcast_axes(grad: &Tensor, batch: usize, shape: &[usize]) -> Result<Tensor> {
    let logical = &grad.shape()[batch.min(grad.ndim())..];
    let lead = batch + logical.len().saturating_sub(shape.len());
    let axes: Vec<isize> = (batch..grad.ndim())
        .filter(|&i| i < lead || (shape[i - lead] == 1 && grad.shape()[i] != 1))
        .map(|i| i as isize)
        .collect();
    let summed = reduce_sum(grad, Some(&axes), true)?;
    reshape(&summed, &batched_dims(grad, batch, shape))
}

/// `dy`'s `batch` leading axes followed by `shape`, as reshape dims: how a VJP restores a shape
/// while keeping the batch axes of a vectorised Jacobian.
pub fn batched_dims(dy: &Tensor, batch: usize, shape: &[usize]) -> Vec<isize> {
    dy.shape()[..batch]
        .iter()
        .chain(shape)
        .map(|&d| d as isize)
        .collect()
}

/// `f` applied elementwise to `a` and `b` broadcast to `shape` (already validated). Contiguous
/// same-shape operands, and a contiguous operand with a one-element one, run the vectorised
/// (and for large tensors parallel) loops of `kernel`; other broadcasts go through `Zip`. The
/// result's buffer is reserved fallibly (a MemoryError naming `op`).
pub(crate) fn zip_map<T: Element, U: Send + Copy + Default>(
    op: &str,
    a: &Values<T>,
    b: &Values<T>,
    shape: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Result<Values<U>> {
    if shape.is_empty() {
        // Two scalars: skip the shape comparisons, which cost more than the arithmetic.
        if let (Some(&x), Some(&y)) = (a.first(), b.first()) {
            return Ok(Values::scalar(f(x, y)));
        }
    }
    let (full_a, full_b) = (a.shape() == shape, b.shape() == shape);
    let (x, y) = (a.as_slice(), b.as_slice());
    match (full_a, full_b) {
        (true, true) => {
            let v = kernel::zip_vec(op, x, y, kernel::PAR_CHEAP, f)?;
            return Ok(Values::from_vec(shape, v));
        }
        (true, false) if y.len() == 1 => {
            let q = y[0];
            return kernel::map_vec(op, shape, x, kernel::PAR_CHEAP, |p| f(p, q));
        }
        (false, true) if x.len() == 1 => {
            let p = x[0];
            return kernel::map_vec(op, shape, y, kernel::PAR_CHEAP, |q| f(p, q));
        }
        (true, false) if repeats_along_leading_axes(b.shape(), shape) && !y.is_empty() => {
            let v = kernel::zip_repeating_vec(op, x, y, kernel::PAR_CHEAP, f)?;
            return Ok(Values::from_vec(shape, v));
        }
        (false, true) if repeats_along_leading_axes(a.shape(), shape) && !x.is_empty() => {
            let v = kernel::zip_repeating_vec(op, y, x, kernel::PAR_CHEAP, |q, p| f(p, q))?;
            return Ok(Values::from_vec(shape, v));
        }
        _ => {}
    }
    let n = memory::checked_size(op, shape)?;
    let (a, b) = (a.view(), b.view());
    let (Some(a), Some(b)) = (a.broadcast(shape), b.broadcast(shape)) else {
        unreachable!("shapes were validated by broadcast_shapes")
    };
    let mut out = memory::try_vec(op, n)?;
    let Ok(mut dst) = ndarray::ArrayViewMutD::from_shape(shape, &mut out.spare_capacity_mut()[..n])
    else {
        unreachable!("the buffer holds the shape's size")
    };
    Zip::from(&mut dst)
        .and(&a)
        .and(&b)
        .for_each(|d, &x, &y| *d = std::mem::MaybeUninit::new(f(x, y)));
    // SAFETY: the Zip wrote every element of `dst`, which is the whole of `out`.
    unsafe { out.set_len(n) };
    Ok(Values::from_vec(shape, out))
}

/// Whether an operand of shape `small`, broadcast to `shape`, is the same block of elements
/// repeated along leading axes (a bias `[m]` against `[n, m]`, `[64, 1]` against `[B, 64, 1]`).
/// ndarray's Zip would loop over the innermost axis, which may have length 1.
fn repeats_along_leading_axes(small: &[usize], shape: &[usize]) -> bool {
    let first_real = small.iter().position(|&d| d != 1).unwrap_or(small.len());
    let core = &small[first_real..];
    !core.is_empty() && shape.ends_with(core)
}

/// `axis` (negative counts from the end) as an index into `ndim` dimensions.
pub fn normalize_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::value(
            op,
            format!(
                "axis {axis} is out of range for a tensor of rank {ndim} (valid: {} to {})",
                -n,
                n - 1
            ),
        ));
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

/// Normalised, sorted, de-duplicated axes; `None` means every axis.
pub fn normalize_axes(op: &str, axes: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    let mut out = match axes {
        None => (0..ndim).collect(),
        Some(axes) => axes
            .iter()
            .map(|&a| normalize_axis(op, a, ndim))
            .collect::<Result<Vec<_>>>()?,
    };
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Both operands must share a dtype (TensorFlow does not promote).
pub(crate) fn same_dtype(op: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(crate::tensor::mismatch(op, a.dtype(), b.dtype()));
    }
    Ok(())
}
