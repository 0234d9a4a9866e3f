//! Convolutions on NHWC images, with TensorFlow's arguments and output shapes: `conv1d`,
//! `conv2d`, `conv2d_transpose`, `depthwise_conv2d`, and the two gradients of `conv2d`
//! (`conv2d_backprop_input`, `conv2d_backprop_filter`) as ops of their own.
//!
//! - `kernel.rs`: im2col + GEMM (the `gemm` crate), parallel over chunks of images;
//! - `ops.rs`: the three recorded ops, each the VJP of the others (every order works).
//!
//! A depthwise convolution is a grouped one (one group per input channel); `conv1d` is a
//! `conv2d` of height 1.
mod conv3d;
mod kernel;
mod ops;

pub use conv3d::{conv3d, conv3d_backprop_filter, conv3d_backprop_input, conv3d_transpose};

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

/// Everything a convolution's kernels need besides the batch: image `[d, h, w, c]`, filter
/// `[kd, kh, kw, c / groups, o]`, output `[od, oh, ow, o]`, strides, dilations and leading
/// padding. A 2-D convolution is one of depth 1 (`rank` 2: its shapes leave the depth out), so
/// one im2col/GEMM path serves 1, 2 and 3 spatial dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub rank: usize,
    pub d: usize,
    pub h: usize,
    pub w: usize,
    pub c: usize,
    pub kd: usize,
    pub kh: usize,
    pub kw: usize,
    pub o: usize,
    pub od: usize,
    pub oh: usize,
    pub ow: usize,
    pub sd: usize,
    pub sh: usize,
    pub sw: usize,
    pub dd: usize,
    pub dh: usize,
    pub dw: usize,
    pub pf: usize,
    pub pt: usize,
    pub pl: usize,
    pub groups: usize,
}

impl Geometry {
    /// The geometry of a convolution of `image` (`spatial + [c]`, 2 or 3 spatial axes) with a
    /// `filter` (`window + [c / groups, o]`), validated; `strides` and `dilations` have one
    /// entry per spatial axis.
    pub(crate) fn new(
        op: &str,
        image: &[usize],
        filter: &[usize],
        groups: usize,
        strides: &[usize],
        padding: &Padding,
        dilations: &[usize],
    ) -> Result<Geometry> {
        let rank = image.len() - 1;
        debug_assert!(filter.len() == rank + 2 && strides.len() == rank);
        let c = image[rank];
        let (window, cg, o) = (&filter[..rank], filter[rank], filter[rank + 1]);
        if strides.contains(&0) || dilations.contains(&0) {
            return Err(Error::value(
                op,
                format!("strides {strides:?} and dilations {dilations:?} must be at least 1"),
            ));
        }
        if window.contains(&0) {
            return Err(Error::value(
                op,
                format!(
                    "the filter's spatial size must be at least 1, got {}",
                    window
                        .iter()
                        .map(|k| k.to_string())
                        .collect::<Vec<_>>()
                        .join("x")
                ),
            ));
        }
        if let Padding::Explicit(pairs) = padding {
            if pairs.len() != rank {
                return Err(Error::value(
                    op,
                    format!(
                        "explicit padding needs {rank} spatial (before, after) pairs, got \
                         {pairs:?}"
                    ),
                ));
            }
        }
        if groups == 0 || cg * groups != c || o % groups != 0 {
            return Err(Error::shape(
                op,
                format!(
                    "the input (images of shape {}) has {c} channels but the filter {} takes {cg} \
                     in {groups} group(s) and gives {o} (input depth must be filter depth times \
                     the groups, and the output depth a multiple of the groups)",
                    fmt_shape(image),
                    fmt_shape(filter)
                ),
            ));
        }
        let axes = (0..rank)
            .map(|i| {
                window_axis(
                    op,
                    image[i],
                    window[i],
                    strides[i],
                    dilations[i],
                    padding,
                    i,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        // The depth axis of a 2-D convolution: one position, one window row, no padding.
        let flat = Axis { out: 1, before: 0 };
        let lift = |v: &[usize]| -> [usize; 3] {
            if rank == 3 {
                [v[0], v[1], v[2]]
            } else {
                [1, v[0], v[1]]
            }
        };
        let [d, h, w] = lift(&image[..rank]);
        let [kd, kh, kw] = lift(window);
        let [sd, sh, sw] = lift(strides);
        let [dd, dh, dw] = lift(dilations);
        let [z, y, x] = if rank == 3 {
            [axes[0], axes[1], axes[2]]
        } else {
            [flat, axes[0], axes[1]]
        };
        Ok(Geometry {
            rank,
            d,
            h,
            w,
            c,
            kd,
            kh,
            kw,
            o,
            od: z.out,
            oh: y.out,
            ow: x.out,
            sd,
            sh,
            sw,
            dd,
            dh,
            dw,
            pf: z.before,
            pt: y.before,
            pl: x.before,
            groups,
        })
    }
    /// The spatial sizes as the op's shapes spell them (no depth for a 2-D convolution).
    fn spatial(&self, dhw: [usize; 3]) -> Vec<usize> {
        dhw[3 - self.rank..].to_vec()
    }
    /// An image's shape without its batch: `[(d,) h, w, c]`.
    pub(crate) fn image_core(&self) -> Vec<usize> {
        let mut s = self.spatial([self.d, self.h, self.w]);
        s.push(self.c);
        s
    }
    /// An output image's shape without its batch: `[(od,) oh, ow, o]`.
    pub(crate) fn out_core(&self) -> Vec<usize> {
        let mut s = self.spatial([self.od, self.oh, self.ow]);
        s.push(self.o);
        s
    }
    /// The filter's shape: `[(kd,) kh, kw, c / groups, o]`.
    fn filter_shape(&self) -> Vec<usize> {
        let mut s = self.spatial([self.kd, self.kh, self.kw]);
        s.extend([self.c / self.groups, self.o]);
        s
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

/// An image's shape without its batch (the last `rank + 1` axes of `shape`, which must have
/// a batch axis).
pub(crate) fn image_of(
    op: &str,
    what: &str,
    shape: &[usize],
    rank: usize,
    layout: &str,
) -> Result<Vec<usize>> {
    if shape.len() < rank + 2 {
        return Err(Error::shape(
            op,
            format!(
                "{what} must have rank at least {} ({layout}), got shape {}",
                rank + 2,
                fmt_shape(shape)
            ),
        ));
    }
    Ok(shape[shape.len() - rank - 1..].to_vec())
}

/// The filter of a convolution over `rank` spatial axes: rank `rank + 2`.
pub(crate) fn filter_of(
    op: &str,
    filters: &Tensor,
    rank: usize,
    layout: &str,
) -> Result<Vec<usize>> {
    if filters.ndim() != rank + 2 {
        return Err(Error::shape(
            op,
            format!(
                "the filter must have rank {} ({layout}), got shape {}",
                rank + 2,
                fmt_shape(filters.shape())
            ),
        ));
    }
    Ok(filters.shape().to_vec())
}

/// The groups of a convolution of `image` with `filter` (input channels over the filter's; 1
/// where they do not divide, for `Geometry::new` to report).
pub(crate) fn groups_of(image: &[usize], filter: &[usize]) -> usize {
    let (c, cg) = (image[image.len() - 1], filter[filter.len() - 2]);
    if cg > 0 && c % cg == 0 {
        c / cg
    } else {
        1
    }
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
    let args = Args::new("conv2d", &strides, padding, &dilations, LAYOUT_2D);
    forward(&args, input, filters)
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
    let image = image_of(
        op,
        "the input",
        input.shape(),
        2,
        "batch_shape + [height, width, channels]",
    )?;
    let fs = filter_of(
        op,
        filter,
        2,
        "[height, width, in_channels, channel_multiplier]",
    )?;
    let [kh, kw, c, m] = [fs[0], fs[1], fs[2], fs[3]];
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
        &image,
        &[kh, kw, 1, c * m],
        c,
        &strides,
        padding,
        &dilations,
    )?;
    let grouped = reshape(filter, &[kh as isize, kw as isize, 1, (c * m) as isize])?;
    ops::conv(input, &grouped, g)
}

/// The geometry of a convolution whose input is `input_sizes` (`batch_shape + spatial + [c]`,
/// `filter.len() - 2` spatial axes), checked against its output (or output gradient) `dy`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backprop_geometry(
    op: &str,
    input_sizes: &[usize],
    filter: &[usize],
    dy: &[usize],
    strides: &[usize],
    padding: &Padding,
    dilations: &[usize],
    layout: &str,
) -> Result<Geometry> {
    let rank = filter.len() - 2;
    let image = image_of(op, "the input shape", input_sizes, rank, layout)?;
    let groups = groups_of(&image, filter);
    let g = Geometry::new(op, &image, filter, groups, strides, padding, dilations)?;
    let mut expected = input_sizes[..input_sizes.len() - rank - 1].to_vec();
    expected.extend(g.out_core());
    if dy != expected {
        return Err(Error::shape(
            op,
            format!(
                "the output gradient has shape {} but a convolution of an input of shape {} with \
                 a filter of shape {} gives {}",
                fmt_shape(dy),
                fmt_shape(input_sizes),
                fmt_shape(filter),
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
    let args = Args::new("conv2d_transpose", &strides, padding, &dilations, LAYOUT_2D);
    transpose(&args, input, filters, output_shape)
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
    let args = Args::new(
        "conv2d_backprop_input",
        &strides,
        padding,
        &dilations,
        LAYOUT_2D,
    );
    backprop_input(&args, input_sizes, filters, out_backprop)
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
    let args = Args::new(
        "conv2d_backprop_filter",
        &strides,
        padding,
        &dilations,
        LAYOUT_2D,
    );
    backprop_filter(&args, input, filter_sizes, out_backprop)
}

/// The layouts of a 2-D convolution's image and filter, for messages.
const LAYOUT_2D: [&str; 2] = [
    "batch_shape + [height, width, channels]",
    "[height, width, in_channels, out_channels]",
];

/// The arguments every convolution op shares, over `strides.len()` spatial axes.
pub(crate) struct Args<'a> {
    op: &'a str,
    strides: &'a [usize],
    padding: &'a Padding,
    dilations: &'a [usize],
    layout: [&'a str; 2],
}

impl<'a> Args<'a> {
    pub(crate) fn new(
        op: &'a str,
        strides: &'a [usize],
        padding: &'a Padding,
        dilations: &'a [usize],
        layout: [&'a str; 2],
    ) -> Args<'a> {
        Args {
            op,
            strides,
            padding,
            dilations,
            layout,
        }
    }
    fn rank(&self) -> usize {
        self.strides.len()
    }
    fn geometry(&self, input_sizes: &[usize], filter: &[usize], dy: &[usize]) -> Result<Geometry> {
        backprop_geometry(
            self.op,
            input_sizes,
            filter,
            dy,
            self.strides,
            self.padding,
            self.dilations,
            self.layout[0],
        )
    }
}

/// A convolution over `args.rank()` spatial axes (groups from the channel counts).
pub(crate) fn forward(args: &Args, input: &Tensor, filters: &Tensor) -> Result<Tensor> {
    let (op, rank) = (args.op, args.rank());
    check_dtypes(op, input, filters)?;
    let image = image_of(op, "the input", input.shape(), rank, args.layout[0])?;
    let filter = filter_of(op, filters, rank, args.layout[1])?;
    let groups = groups_of(&image, &filter);
    let g = Geometry::new(
        op,
        &image,
        &filter,
        groups,
        args.strides,
        args.padding,
        args.dilations,
    )?;
    ops::conv(input, filters, g)
}

/// The transposed convolution: the input gradient of the convolution of an `output_shape`
/// image with `filters`, from `input` in place of its output gradient.
pub(crate) fn transpose(
    args: &Args,
    input: &Tensor,
    filters: &Tensor,
    output_shape: &[usize],
) -> Result<Tensor> {
    check_dtypes(args.op, input, filters)?;
    let filter = filter_of(args.op, filters, args.rank(), args.layout[1])?;
    let g = args.geometry(output_shape, &filter, input.shape())?;
    ops::conv_input_grad(input, filters, g)
}

/// The input gradient (of shape `input_sizes`) of a convolution from its output gradient.
pub(crate) fn backprop_input(
    args: &Args,
    input_sizes: &[usize],
    filters: &Tensor,
    out_backprop: &Tensor,
) -> Result<Tensor> {
    check_dtypes(args.op, out_backprop, filters)?;
    let filter = filter_of(args.op, filters, args.rank(), args.layout[1])?;
    let g = args.geometry(input_sizes, &filter, out_backprop.shape())?;
    ops::conv_input_grad(out_backprop, filters, g)
}

/// The filter gradient (of shape `filter_sizes`) of a convolution from its input and output
/// gradient.
pub(crate) fn backprop_filter(
    args: &Args,
    input: &Tensor,
    filter_sizes: &[usize],
    out_backprop: &Tensor,
) -> Result<Tensor> {
    let op = args.op;
    check_dtypes(op, input, out_backprop)?;
    if filter_sizes.len() != args.rank() + 2 {
        return Err(Error::shape(
            op,
            format!(
                "filter_sizes must have {} entries ({}), got {filter_sizes:?}",
                args.rank() + 2,
                args.layout[1]
            ),
        ));
    }
    let g = args.geometry(input.shape(), filter_sizes, out_backprop.shape())?;
    ops::conv_filter_grad(input, out_backprop, g)
}
