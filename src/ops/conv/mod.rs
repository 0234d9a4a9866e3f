//! Convolutions on NHWC images, with TensorFlow's arguments and output shapes: `conv1d`,
//! `conv2d`, `conv2d_transpose`, `depthwise_conv2d`, and the two gradients of `conv2d`
//! (`conv2d_backprop_input`, `conv2d_backprop_filter`) as ops of their own.
//!
//! - `kernel.rs`: im2col + GEMM (the `gemm` crate), parallel over chunks of images;
//! - `ops.rs`: the three recorded ops, each the VJP of the others (every order works).
//!
//! A depthwise convolution is a grouped one (one group per input channel); `conv1d` is a
//! `conv2d` of height 1.
mod kernel;
mod ops;

use crate::error::{fmt_shape, Error, Result};
use crate::ops::reshape;
use crate::tensor::{mismatch, unsupported, Tensor};

/// TensorFlow's `padding` argument of a convolution or pooling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Pad so that the output has `ceil(input / stride)` positions, the odd padding element at
    /// the end (`'SAME'`).
    Same,
    /// No padding: windows lie inside the input (`'VALID'`).
    Valid,
    /// `(before, after)` zeros for each spatial axis (TF's explicit padding list without its
    /// batch and channel entries).
    Explicit(Vec<(usize, usize)>),
}

impl Padding {
    /// `'SAME'` or `'VALID'` (any case), as TensorFlow spells them.
    pub fn parse(op: &str, text: &str) -> Result<Padding> {
        match text.to_ascii_uppercase().as_str() {
            "SAME" => Ok(Padding::Same),
            "VALID" => Ok(Padding::Valid),
            _ => Err(Error::value(
                op,
                format!("padding must be 'SAME' or 'VALID' (or explicit pairs), got {text:?}"),
            )),
        }
    }
}

/// One spatial axis of a window: its output size and the padding before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Axis {
    /// Output positions.
    pub out: usize,
    /// Padding before the first input position.
    pub before: usize,
}

/// The output size and leading padding of one spatial axis, as TensorFlow computes them
/// (`GetWindowedOutputSizeVerbose`): `size` input positions, a window of `window` positions
/// `dilation` apart, moved by `stride`. `spatial` is the axis (0 = height) for the padding list.
pub(crate) fn window_axis(
    op: &str,
    size: usize,
    window: usize,
    stride: usize,
    dilation: usize,
    padding: &Padding,
    spatial: usize,
) -> Result<Axis> {
    let effective = (window - 1) * dilation + 1;
    let too_small = |padded: usize| {
        Error::value(
            op,
            format!(
                "the window (effective size {effective}: {window} with dilation {dilation}) is \
                 larger than the padded input ({padded}) along spatial axis {spatial}; the \
                 output size would be negative"
            ),
        )
    };
    match padding {
        Padding::Valid => {
            if size < effective {
                return Err(too_small(size));
            }
            Ok(Axis {
                out: (size - effective) / stride + 1,
                before: 0,
            })
        }
        Padding::Same => {
            let out = size.div_ceil(stride);
            let total = ((out.max(1) - 1) * stride + effective).saturating_sub(size);
            Ok(Axis {
                out,
                before: total / 2,
            })
        }
        Padding::Explicit(pairs) => {
            let (before, after) = pairs[spatial];
            let padded = size + before + after;
            if padded < effective {
                return Err(too_small(padded));
            }
            Ok(Axis {
                out: (padded - effective) / stride + 1,
                before,
            })
        }
    }
}

/// Everything a convolution's kernels need besides the batch: image `[h, w, c]`, filter
/// `[kh, kw, c / groups, o]`, output `[oh, ow, o]`, strides, dilations and leading padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub h: usize,
    pub w: usize,
    pub c: usize,
    pub kh: usize,
    pub kw: usize,
    pub o: usize,
    pub oh: usize,
    pub ow: usize,
    pub sh: usize,
    pub sw: usize,
    pub dh: usize,
    pub dw: usize,
    pub pt: usize,
    pub pl: usize,
    pub groups: usize,
}

impl Geometry {
    /// The geometry of a convolution of `[h, w, c]` images with a `[kh, kw, c / groups, o]`
    /// filter, validated.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        op: &str,
        image: [usize; 3],
        filter: [usize; 4],
        groups: usize,
        strides: [usize; 2],
        padding: &Padding,
        dilations: [usize; 2],
    ) -> Result<Geometry> {
        let [h, w, c] = image;
        let [kh, kw, cg, o] = filter;
        if strides.contains(&0) || dilations.contains(&0) {
            return Err(Error::value(
                op,
                format!("strides {strides:?} and dilations {dilations:?} must be at least 1"),
            ));
        }
        if kh == 0 || kw == 0 {
            return Err(Error::value(
                op,
                format!("the filter's spatial size must be at least 1, got {kh}x{kw}"),
            ));
        }
        if let Padding::Explicit(pairs) = padding {
            if pairs.len() != 2 {
                return Err(Error::value(
                    op,
                    format!(
                        "explicit padding needs 2 spatial (before, after) pairs, got {pairs:?}"
                    ),
                ));
            }
        }
        if groups == 0 || cg * groups != c || o % groups != 0 {
            return Err(Error::shape(
                op,
                format!(
                    "the input has {c} channels but the filter {} takes {cg} in {groups} group(s) \
                     and gives {o} (input depth must be filter depth times the groups, and the \
                     output depth a multiple of the groups)",
                    fmt_shape(&filter)
                ),
            ));
        }
        let y = window_axis(op, h, kh, strides[0], dilations[0], padding, 0)?;
        let x = window_axis(op, w, kw, strides[1], dilations[1], padding, 1)?;
        Ok(Geometry {
            h,
            w,
            c,
            kh,
            kw,
            o,
            oh: y.out,
            ow: x.out,
            sh: strides[0],
            sw: strides[1],
            dh: dilations[0],
            dw: dilations[1],
            pt: y.before,
            pl: x.before,
            groups,
        })
    }
    fn filter_shape(&self) -> [usize; 4] {
        [self.kh, self.kw, self.c / self.groups, self.o]
    }
    fn filter_len(&self) -> usize {
        self.filter_shape().iter().product()
    }
}

/// Both operands floating and of one dtype.
fn check_dtypes(op: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if !a.dtype().is_float() {
        return Err(unsupported(op, a.dtype(), "a floating"));
    }
    if a.dtype() != b.dtype() {
        return Err(mismatch(op, a.dtype(), b.dtype()));
    }
    Ok(())
}

/// The last `N` dimensions of `shape`, which must have rank `min_rank` or more.
fn tail<const N: usize>(
    op: &str,
    what: &str,
    shape: &[usize],
    min_rank: usize,
    layout: &str,
) -> Result<[usize; N]> {
    if shape.len() < min_rank.max(N) {
        return Err(Error::shape(
            op,
            format!(
                "{what} must have rank at least {} ({layout}), got shape {}",
                min_rank.max(N),
                fmt_shape(shape)
            ),
        ));
    }
    let mut out = [0; N];
    out.copy_from_slice(&shape[shape.len() - N..]);
    Ok(out)
}

/// The rank-4 filter of a 2-D convolution.
fn filter4(op: &str, filters: &Tensor, layout: &str) -> Result<[usize; 4]> {
    if filters.ndim() != 4 {
        return Err(Error::shape(
            op,
            format!(
                "the filter must have rank 4 ({layout}), got shape {}",
                fmt_shape(filters.shape())
            ),
        ));
    }
    tail(op, "the filter", filters.shape(), 4, layout)
}

/// `tf.nn.conv2d`: `input` `batch_shape + [h, w, c]` (rank 4 or more), `filters`
/// `[kh, kw, c, o]`, giving `batch_shape + [oh, ow, o]`. A filter with `c / groups` input
/// channels (`groups` dividing `c`) makes a grouped convolution.
pub fn conv2d(
    input: &Tensor,
    filters: &Tensor,
    strides: [usize; 2],
    padding: &Padding,
    dilations: [usize; 2],
) -> Result<Tensor> {
    let op = "conv2d";
    check_dtypes(op, input, filters)?;
    let image = tail::<3>(
        op,
        "the input",
        input.shape(),
        4,
        "batch_shape + [height, width, channels]",
    )?;
    let filter = filter4(op, filters, "[height, width, in_channels, out_channels]")?;
    let groups = if filter[2] > 0 && image[2] % filter[2] == 0 {
        image[2] / filter[2]
    } else {
        1
    };
    let g = Geometry::new(op, image, filter, groups, strides, padding, dilations)?;
    ops::conv(input, filters, g)
}

/// `tf.nn.conv1d`: `input` `batch_shape + [w, c]` (rank 3 or more), `filters` `[k, c, o]`,
/// giving `batch_shape + [ow, o]`: a `conv2d` of height 1.
pub fn conv1d(
    input: &Tensor,
    filters: &Tensor,
    stride: usize,
    padding: &Padding,
    dilation: usize,
) -> Result<Tensor> {
    let op = "conv1d";
    check_dtypes(op, input, filters)?;
    let [w, c] = tail::<2>(
        op,
        "the input",
        input.shape(),
        3,
        "batch_shape + [width, channels]",
    )?;
    if filters.ndim() != 3 {
        return Err(Error::shape(
            op,
            format!(
                "the filter must have rank 3 ([width, in_channels, out_channels]), got shape {}",
                fmt_shape(filters.shape())
            ),
        ));
    }
    let padding = match padding {
        Padding::Explicit(pairs) if pairs.len() == 1 => Padding::Explicit(vec![(0, 0), pairs[0]]),
        Padding::Explicit(pairs) => {
            return Err(Error::value(
                op,
                format!("explicit padding needs 1 spatial (before, after) pair, got {pairs:?}"),
            ))
        }
        other => other.clone(),
    };
    let lead = &input.shape()[..input.ndim() - 2];
    let mut dims: Vec<isize> = lead.iter().map(|&d| d as isize).collect();
    dims.extend([1, w as isize, c as isize]);
    let x = reshape(input, &dims)?;
    let fs = filters.shape();
    let f = reshape(
        filters,
        &[1, fs[0] as isize, fs[1] as isize, fs[2] as isize],
    )?;
    let y = conv2d(&x, &f, [1, stride], &padding, [1, dilation]).map_err(|e| rename(e, op))?;
    let ys = y.shape();
    let mut out: Vec<isize> = lead.iter().map(|&d| d as isize).collect();
    out.extend([ys[ys.len() - 2] as isize, ys[ys.len() - 1] as isize]);
    reshape(&y, &out)
}

/// An error raised by the op a public function delegates to, under the public function's name.
fn rename(mut e: Error, op: &str) -> Error {
    e.op = op.to_string();
    e
}

/// `tf.nn.depthwise_conv2d`: `input` `batch_shape + [h, w, c]`, `filter` `[kh, kw, c, m]`,
/// giving `batch_shape + [oh, ow, c * m]` (output channel `k * m + q` is input channel `k`
/// through filter `[.., .., k, q]`).
pub fn depthwise_conv2d(
    input: &Tensor,
    filter: &Tensor,
    strides: [usize; 2],
    padding: &Padding,
    dilations: [usize; 2],
) -> Result<Tensor> {
    let op = "depthwise_conv2d";
    check_dtypes(op, input, filter)?;
    let image = tail::<3>(
        op,
        "the input",
        input.shape(),
        4,
        "batch_shape + [height, width, channels]",
    )?;
    let [kh, kw, c, m] = filter4(
        op,
        filter,
        "[height, width, in_channels, channel_multiplier]",
    )?;
    if c != image[2] || c == 0 {
        return Err(Error::shape(
            op,
            format!(
                "the input of shape {} has {} channels but the filter of shape {} takes {c} (at \
                 least one)",
                fmt_shape(input.shape()),
                image[2],
                fmt_shape(filter.shape())
            ),
        ));
    }
    let g = Geometry::new(
        op,
        image,
        [kh, kw, 1, c * m],
        c,
        strides,
        padding,
        dilations,
    )?;
    let grouped = reshape(filter, &[kh as isize, kw as isize, 1, (c * m) as isize])?;
    ops::conv(input, &grouped, g)
}

/// The geometry of a convolution whose input is `input_sizes` (`batch_shape + [h, w, c]`),
/// checked against its output (or output gradient) `dy`.
fn backprop_geometry(
    op: &str,
    input_sizes: &[usize],
    filter: [usize; 4],
    dy: &[usize],
    strides: [usize; 2],
    padding: &Padding,
    dilations: [usize; 2],
) -> Result<Geometry> {
    let image = tail::<3>(
        op,
        "the input shape",
        input_sizes,
        4,
        "batch_shape + [height, width, channels]",
    )?;
    let groups = if filter[2] > 0 && image[2] % filter[2] == 0 {
        image[2] / filter[2]
    } else {
        1
    };
    let g = Geometry::new(op, image, filter, groups, strides, padding, dilations)?;
    let mut expected = input_sizes[..input_sizes.len() - 3].to_vec();
    expected.extend([g.oh, g.ow, g.o]);
    if dy != expected {
        return Err(Error::shape(
            op,
            format!(
                "the output gradient has shape {} but a convolution of an input of shape {} with \
                 a filter of shape {} gives {}",
                fmt_shape(dy),
                fmt_shape(input_sizes),
                fmt_shape(&filter),
                fmt_shape(&expected)
            ),
        ));
    }
    Ok(g)
}

/// `tf.nn.conv2d_transpose`: the gradient of `conv2d` with respect to its input, as an op.
/// `input` `batch_shape + [h', w', o]`, `filters` `[kh, kw, c, o]` (note the order: the
/// forward convolution's filter), `output_shape` `batch_shape + [h, w, c]`, where `[h', w']` is
/// what `conv2d` of an `[h, w]` image gives with these strides, padding and dilations.
pub fn conv2d_transpose(
    input: &Tensor,
    filters: &Tensor,
    output_shape: &[usize],
    strides: [usize; 2],
    padding: &Padding,
    dilations: [usize; 2],
) -> Result<Tensor> {
    let op = "conv2d_transpose";
    check_dtypes(op, input, filters)?;
    let filter = filter4(op, filters, "[height, width, output_channels, in_channels]")?;
    let g = backprop_geometry(
        op,
        output_shape,
        filter,
        input.shape(),
        strides,
        padding,
        dilations,
    )?;
    ops::conv_input_grad(input, filters, g)
}

/// `conv2d_backprop_input` (TensorFlow's `Conv2DBackpropInput`): the gradient of `conv2d`'s
/// input of shape `input_sizes` from the output gradient `out_backprop`.
pub fn conv2d_backprop_input(
    input_sizes: &[usize],
    filters: &Tensor,
    out_backprop: &Tensor,
    strides: [usize; 2],
    padding: &Padding,
    dilations: [usize; 2],
) -> Result<Tensor> {
    let op = "conv2d_backprop_input";
    check_dtypes(op, out_backprop, filters)?;
    let filter = filter4(op, filters, "[height, width, in_channels, out_channels]")?;
    let g = backprop_geometry(
        op,
        input_sizes,
        filter,
        out_backprop.shape(),
        strides,
        padding,
        dilations,
    )?;
    ops::conv_input_grad(out_backprop, filters, g)
}

/// `conv2d_backprop_filter` (TensorFlow's `Conv2DBackpropFilter`): the gradient of `conv2d`'s
/// filter of shape `filter_sizes` (`[kh, kw, c, o]`) from its input and output gradient.
pub fn conv2d_backprop_filter(
    input: &Tensor,
    filter_sizes: &[usize],
    out_backprop: &Tensor,
    strides: [usize; 2],
    padding: &Padding,
    dilations: [usize; 2],
) -> Result<Tensor> {
    let op = "conv2d_backprop_filter";
    check_dtypes(op, input, out_backprop)?;
    let filter: [usize; 4] = filter_sizes.try_into().map_err(|_| {
        Error::shape(
            op,
            format!(
                "filter_sizes must have 4 entries ([height, width, in_channels, out_channels]), \
                 got {filter_sizes:?}"
            ),
        )
    })?;
    let g = backprop_geometry(
        op,
        input.shape(),
        filter,
        out_backprop.shape(),
        strides,
        padding,
        dilations,
    )?;
    ops::conv_filter_grad(input, out_backprop, g)
}
