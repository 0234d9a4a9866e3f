//! Reductions over `axes` (`None`: all axes; negative axes count from the end), `keepdims`.
use ndarray::Axis;

use super::{broadcast_to, normalize_axes, reshape, shape_of};
use crate::dispatch;
use crate::error::Result;
use crate::tape::record;
use crate::tensor::Tensor;

/// The shape of a reduction's result with the reduced axes kept as 1.
pub(crate) fn kept_shape(shape: &[usize], axes: &[usize]) -> Vec<isize> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d as isize })
        .collect()
}

/// Reshapes a reduction's result to `keepdims` form and broadcasts it back over the input.
pub(crate) fn unreduce(g: &Tensor, input_shape: &[usize], axes: &[usize]) -> Result<Tensor> {
    broadcast_to(&reshape(g, &kept_shape(input_shape, axes))?, input_shape)
}

fn finish_shape(reduced: Tensor, input_shape: &[usize], axes: &[usize], keepdims: bool) -> Result<Tensor> {
    if !keepdims {
        return Ok(reduced);
    }
    reshape(&reduced, &kept_shape(input_shape, axes))
}

/// Sum over `axes`.
pub fn reduce_sum(x: &Tensor, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let op = "reduce_sum";
    let axes = normalize_axes(op, axes, x.ndim())?;
    let y = Tensor::new(dispatch!(num x.data(), op, |a| {
        let mut out = a.to_owned();
        for &ax in axes.iter().rev() {
            out = out.sum_axis(Axis(ax));
        }
        out
    }));
    let in_shape = shape_of(x);
    let kept_axes = axes.clone();
    record(op, &[x], &y, &[], move |_, dy| Ok(vec![Some(unreduce(dy, &in_shape, &kept_axes)?)]));
    finish_shape(y, x.shape(), &axes, keepdims)
}
