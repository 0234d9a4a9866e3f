//! Volumetric convolutions on NDHWC inputs (`tf.nn.conv3d`, `tf.nn.conv3d_transpose` and the
//! two gradients of `conv3d` as ops of their own): the 2-D path's geometry with a depth axis,
//! through the same im2col/GEMM kernels and recorded ops.
use super::{backprop_filter, backprop_input, forward, transpose, Args, Padding};
use crate::error::Result;
use crate::tensor::Tensor;

/// The layouts of a 3-D convolution's image and filter, for messages.
const LAYOUT_3D: [&str; 2] = [
    "batch_shape + [depth, height, width, channels]",
    "[depth, height, width, in_channels, out_channels]",
];

/// `tf.nn.conv3d`: `input` `batch_shape + [d, h, w, c]` (rank 5 or more), `filters`
/// `[kd, kh, kw, c, o]`, giving `batch_shape + [od, oh, ow, o]`. A filter with `c / groups`
/// input channels (`groups` dividing `c`) makes a grouped convolution.
pub fn conv3d(
    input: &Tensor,
    filters: &Tensor,
    strides: [usize; 3],
    padding: &Padding,
    dilations: [usize; 3],
) -> Result<Tensor> {
    let args = Args::new("conv3d", &strides, padding, &dilations, LAYOUT_3D);
    forward(&args, input, filters)
}

/// `tf.nn.conv3d_transpose`: the gradient of `conv3d` with respect to its input, as an op.
/// `input` `batch_shape + [d', h', w', o]`, `filters` `[kd, kh, kw, c, o]` (the forward
/// convolution's filter), `output_shape` `batch_shape + [d, h, w, c]`, where `[d', h', w']` is
/// what `conv3d` of a `[d, h, w]` volume gives with these strides, padding and dilations.
pub fn conv3d_transpose(
    input: &Tensor,
    filters: &Tensor,
    output_shape: &[usize],
    strides: [usize; 3],
    padding: &Padding,
    dilations: [usize; 3],
) -> Result<Tensor> {
    let args = Args::new("conv3d_transpose", &strides, padding, &dilations, LAYOUT_3D);
    transpose(&args, input, filters, output_shape)
}

/// `conv3d_backprop_input` (TensorFlow's `Conv3DBackpropInputV2`): the gradient of `conv3d`'s
/// input of shape `input_sizes` from the output gradient `out_backprop`.
pub fn conv3d_backprop_input(
    input_sizes: &[usize],
    filters: &Tensor,
    out_backprop: &Tensor,
    strides: [usize; 3],
    padding: &Padding,
    dilations: [usize; 3],
) -> Result<Tensor> {
    let args = Args::new(
        "conv3d_backprop_input",
        &strides,
        padding,
        &dilations,
        LAYOUT_3D,
    );
    backprop_input(&args, input_sizes, filters, out_backprop)
}

/// `conv3d_backprop_filter` (TensorFlow's `Conv3DBackpropFilterV2`): the gradient of `conv3d`'s
/// filter of shape `filter_sizes` (`[kd, kh, kw, c, o]`) from its input and output gradient.
pub fn conv3d_backprop_filter(
    input: &Tensor,
    filter_sizes: &[usize],
    out_backprop: &Tensor,
    strides: [usize; 3],
    padding: &Padding,
    dilations: [usize; 3],
) -> Result<Tensor> {
    let args = Args::new(
        "conv3d_backprop_filter",
        &strides,
        padding,
        &dilations,
        LAYOUT_3D,
    );
    backprop_filter(&args, input, filter_sizes, out_backprop)
}
