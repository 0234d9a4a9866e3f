//! Image resizing with TensorFlow 2's `tf.image.resize` arithmetic.
//!
//! Every method is separable and linear in the image: output pixel `(i, j)` is
//! `sum_{p,q} wy[i][p] * wx[j][q] * x[p, q]`, with one list of taps (input index, weight) per
//! output row and per output column. The taps are TensorFlow's, computed as its kernels compute
//! them in float32 (half-pixel centres `(i + 0.5) * scale - 0.5` with `scale = in / out`):
//! - `bilinear`: `lower = max(floor(s), 0)`, `upper = min(ceil(s), in - 1)`, weights
//!   `1 - lerp` and `lerp` (one tap of weight 1 when they coincide);
//! - `nearest`: `min(floor((i + 0.5) * scale), in - 1)`, clamped at 0;
//! - `bicubic`: Keys' cubic (`a = -0.5`) read from TensorFlow's 1025-entry coefficient table at
//!   `lrint(frac * 1024)`, taps outside the image dropped and the rest renormalised;
//! - `area`: box weights of the input cells `[i * scale, (i + 1) * scale)` covers (the
//!   fractions of the cells at the ends), times `1 / scale`;
//! - `antialias=True` (bilinear, bicubic): TensorFlow's scale-and-translate spans, the triangle
//!   or Keys kernel widened by `max(in / out, 1)` and normalised.
//!
//! The weights are float32 numbers as TensorFlow's; the sums run in float64 and are rounded
//! to the image's dtype (TensorFlow sums in float32 and returns float32 even for float64
//! images: rustape keeps float64 images in float64).
//!
//! The gradient is the transposed map, `resize_adjoint`, an op whose own gradient is
//! `resize` again, so every order works. Leading axes (`lead + [h, w, c]`) are folded into one
//! batch: a vectorised Jacobian's seeds pass through unchanged.
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::ops::Shape;
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{unsupported, Tensor, Values};

/// How [`resize`] computes each output pixel (TensorFlow's `tf.image.ResizeMethod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResizeMethod {
    /// Linear interpolation between the two nearest rows and columns.
    Bilinear,
    /// The input pixel whose cell holds the output pixel's centre.
    Nearest,
    /// Keys' cubic convolution (`a = -0.5`) over four rows and columns.
    Bicubic,
    /// The mean of the input cells the output cell covers, weighted by overlap.
    Area,
    /// `bilinear` with `antialias=True`: TensorFlow's scale-and-translate with its triangle
    /// kernel, widened by the downscaling factor.
    BilinearAntialias,
    /// `bicubic` with `antialias=True`: scale-and-translate with Keys' cubic kernel, widened
    /// by the downscaling factor.
    BicubicAntialias,
    /// TensorFlow's scale-and-translate resampling with `kernel` (`lanczos3`, `lanczos5`,
    /// `gaussian`, `mitchellcubic`), widened by the downscaling factor when `antialias`.
    ScaleAndTranslate {
        /// The sampling kernel.
        kernel: SamplingKernel,
        /// Whether the kernel widens when downsizing.
        antialias: bool,
    },
}

/// The sampling kernels of TensorFlow's scale-and-translate resize methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplingKernel {
    /// Lanczos with radius 3.
    Lanczos3,
    /// Lanczos with radius 5.
    Lanczos5,
    /// A Gaussian of radius 1.5 and sigma 0.5.
    Gaussian,
    /// Mitchell and Netravali's cubic (`B = C = 1/3`).
    MitchellCubic,
}

impl SamplingKernel {
    fn radius(self) -> f32 {
        match self {
            SamplingKernel::Lanczos3 => 3.0,
            SamplingKernel::Lanczos5 => 5.0,
            SamplingKernel::Gaussian => 1.5,
            SamplingKernel::MitchellCubic => 2.0,
        }
    }

    fn function(self) -> fn(f32) -> f32 {
        match self {
            SamplingKernel::Lanczos3 => |x| lanczos(3.0, x),
            SamplingKernel::Lanczos5 => |x| lanczos(5.0, x),
            SamplingKernel::Gaussian => gaussian,
            SamplingKernel::MitchellCubic => mitchell_cubic,
        }
    }
}

impl ResizeMethod {
    /// The method named `name` (`"bilinear"`, `"nearest"`, `"bicubic"`, `"area"`).
    pub fn parse(op: &str, name: &str) -> Result<ResizeMethod> {
        match name {
            "bilinear" => Ok(ResizeMethod::Bilinear),
            "nearest" => Ok(ResizeMethod::Nearest),
            "bicubic" => Ok(ResizeMethod::Bicubic),
            "area" => Ok(ResizeMethod::Area),
            "lanczos3" | "lanczos5" | "gaussian" | "mitchellcubic" => {
                let kernel = match name {
                    "lanczos3" => SamplingKernel::Lanczos3,
                    "lanczos5" => SamplingKernel::Lanczos5,
                    "gaussian" => SamplingKernel::Gaussian,
                    _ => SamplingKernel::MitchellCubic,
                };
                Ok(ResizeMethod::ScaleAndTranslate {
                    kernel,
                    antialias: false,
                })
            }
            _ => Err(Error::value(
                op,
                format!(
                    "unknown method {name:?}: expected 'bilinear', 'nearest', 'bicubic', 'area', \
                     'lanczos3', 'lanczos5', 'gaussian' or 'mitchellcubic'"
                ),
            )),
        }
    }
}

/// The taps of one axis: for each output index, its (input index, weight) pairs.
type Taps = Vec<Vec<(usize, f64)>>;

/// Bicubic coefficients as TensorFlow tabulates them (`kTableSize = 1024`, `a = -0.5`):
/// entry `2k` is the weight at distance `k / 1024`, entry `2k + 1` at `1 + k / 1024`.
fn cubic_table() -> Vec<f32> {
    const SIZE: usize = 1024;
    let a = -0.5f64;
    let mut table = Vec::with_capacity(2 * (SIZE + 1));
    for k in 0..=SIZE {
        let x = (k as f64 / SIZE as f64) as f32;
        let near = x as f64;
        table.push((((a + 2.0) * near - (a + 3.0)) * near * near + 1.0) as f32);
        let far = (x as f64 + 1.0) as f32 as f64;
        table.push((((a * far - 5.0 * a) * far + 8.0 * a) * far - 4.0 * a) as f32);
    }
    table
}

/// The taps of an axis of `input` elements resized to `output` by `method`.
fn axis_taps(method: ResizeMethod, input: usize, output: usize) -> Taps {
    match method {
        ResizeMethod::BilinearAntialias => {
            return scale_and_translate_taps(input, output, 1.0, true, triangle)
        }
        ResizeMethod::BicubicAntialias => {
            return scale_and_translate_taps(input, output, 2.0, true, keys_cubic)
        }
        ResizeMethod::ScaleAndTranslate { kernel, antialias } => {
            return scale_and_translate_taps(
                input,
                output,
                kernel.radius(),
                antialias,
                kernel.function(),
            )
        }
        _ => {}
    }
    let scale = input as f32 / output as f32;
    let last = input as i64 - 1;
    let clamp = |v: i64| v.clamp(0, last) as usize;
    let table = match method {
        ResizeMethod::Bicubic => cubic_table(),
        _ => Vec::new(),
    };
    // TensorFlow's area kernel multiplies the sum by 1 / (height_scale * width_scale); per axis
    // that is 1 / scale, rounded to float32.
    let area_norm = (1.0f64 / scale as f64) as f32;
    (0..output)
        .map(|i| {
            let mut taps: Vec<(usize, f64)> = Vec::with_capacity(4);
            let mut add =
                |index: usize, weight: f32| match taps.iter_mut().find(|(k, _)| *k == index) {
                    Some(tap) => tap.1 += weight as f64,
                    None => taps.push((index, weight as f64)),
                };
            match method {
                ResizeMethod::Bilinear => {
                    let s = (i as f32 + 0.5) * scale - 0.5;
                    let floor = s.floor();
                    let lower = (floor as i64).max(0);
                    let upper = (s.ceil() as i64).min(last);
                    let lerp = s - floor;
                    if lower == upper {
                        add(lower as usize, 1.0);
                    } else {
                        add(lower as usize, 1.0 - lerp);
                        add(upper as usize, lerp);
                    }
                }
                ResizeMethod::Nearest => {
                    let s = ((i as f32 + 0.5) * scale).floor() as i64;
                    add(s.min(last).max(0) as usize, 1.0);
                }
                ResizeMethod::Bicubic => {
                    let s = (i as f32 + 0.5) * scale - 0.5;
                    let base = s.floor() as i64;
                    let delta = s - base as f32;
                    let offset = (delta * 1024.0).round_ties_even() as usize;
                    let raw = [
                        table[offset * 2 + 1],
                        table[offset * 2],
                        table[(1024 - offset) * 2],
                        table[(1024 - offset) * 2 + 1],
                    ];
                    let mut weights = [0.0f32; 4];
                    for (k, w) in weights.iter_mut().enumerate() {
                        let at = base - 1 + k as i64;
                        if clamp(at) as i64 == at {
                            *w = raw[k];
                        }
                    }
                    let sum = weights[0] + weights[1] + weights[2] + weights[3];
                    if sum.abs() >= 1000.0 * f32::MIN_POSITIVE {
                        let inverse = 1.0f32 / sum;
                        weights.iter_mut().for_each(|w| *w *= inverse);
                    }
                    for (k, &w) in weights.iter().enumerate() {
                        if w != 0.0 {
                            add(clamp(base - 1 + k as i64), w);
                        }
                    }
                }
                ResizeMethod::BilinearAntialias
                | ResizeMethod::BicubicAntialias
                | ResizeMethod::ScaleAndTranslate { .. } => {
                    unreachable!("scale-and-translate taps are computed above")
                }
                ResizeMethod::Area => {
                    let from = i as f32 * scale;
                    let to = (i + 1) as f32 * scale;
                    for cell in (from.floor() as i64)..(to.ceil() as i64) {
                        let (c, c1) = (cell as f32, (cell + 1) as f32);
                        let part = if c < from {
                            if c1 > to {
                                scale
                            } else {
                                c1 - from
                            }
                        } else if c1 > to {
                            to - c
                        } else {
                            1.0
                        };
                        add(clamp(cell), part * area_norm);
                    }
                }
            }
            taps
        })
        .collect()
}

/// TensorFlow's scale-and-translate taps (translation 0) for `kernel` of `radius`: the
/// kernel widened by `max(in / out, 1)` when `antialias`, sampled at the pixel centres inside the span, the
/// weights normalised to sum to 1 (all float32, as TensorFlow's `ComputeSpansCore`).
fn scale_and_translate_taps(
    input: usize,
    output: usize,
    radius: f32,
    antialias: bool,
    kernel: fn(f32) -> f32,
) -> Taps {
    let scale = output as f32 / input as f32;
    let inv_scale = (1.0f64 / scale as f64) as f32;
    let kernel_scale = if antialias { inv_scale.max(1.0) } else { 1.0 };
    let one_over_kernel_scale = 1.0f32 / kernel_scale;
    let last = input as i64 - 1;
    (0..output)
        .map(|x| {
            let sample = (x as f32 + 0.5) * inv_scale;
            if sample < 0.0 || sample > input as f32 {
                return Vec::new();
            }
            let start = ((sample - radius * kernel_scale - 0.5).ceil() as i64).clamp(0, last);
            let end = ((sample + radius * kernel_scale - 0.5).floor() as i64).clamp(0, last) + 1;
            let weights: Vec<f32> = (start..end)
                .map(|source| {
                    let pos = source as f32 + 0.5 - sample;
                    kernel((pos * one_over_kernel_scale).abs())
                })
                .collect();
            let total = weights.iter().fold(0.0f32, |a, &w| a + w);
            if total.abs() < 1000.0 * f32::MIN_POSITIVE {
                return Vec::new();
            }
            let inverse = 1.0f32 / total;
            (start..end)
                .zip(weights)
                .map(|(source, w)| (source as usize, (w * inverse) as f64))
                .collect()
        })
        .collect()
}

fn triangle(x: f32) -> f32 {
    let x = x.abs();
    if x < 1.0 {
        1.0 - x
    } else {
        0.0
    }
}

fn keys_cubic(x: f32) -> f32 {
    let x = x.abs();
    if x >= 2.0 {
        0.0
    } else if x >= 1.0 {
        ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    } else {
        ((1.5 * x - 2.5) * x) * x + 1.0
    }
}

/// TensorFlow's Lanczos kernel of `radius` (float32; its `3.14159265359` rounds to this pi).
fn lanczos(radius: f32, x: f32) -> f32 {
    use std::f32::consts::PI;
    let x = x.abs();
    if x > radius {
        0.0
    } else if x <= 1e-3 {
        1.0
    } else {
        radius * (PI * x).sin() * (PI * x / radius).sin() / (PI * PI * x * x)
    }
}

/// TensorFlow's Gaussian kernel (radius 1.5, sigma 0.5; the exponent in float64).
fn gaussian(x: f32) -> f32 {
    const RADIUS: f32 = 1.5;
    let sigma = (RADIUS / 3.0) as f64;
    let x = x.abs();
    if x >= RADIUS {
        0.0
    } else {
        ((-x * x) as f64 / (2.0 * sigma * sigma)).exp() as f32
    }
}

/// Mitchell and Netravali's cubic as TensorFlow evaluates it.
fn mitchell_cubic(x: f32) -> f32 {
    let x = x.abs();
    if x >= 2.0 {
        0.0
    } else if x >= 1.0 {
        (((-7.0f32 / 18.0) * x + 2.0) * x - 10.0f32 / 3.0) * x + 16.0f32 / 9.0
    } else {
        (((7.0f32 / 6.0) * x - 2.0) * x) * x + 8.0f32 / 9.0
    }
}

/// The transposed taps: for each of `input` indices, the (output index, weight) pairs that
/// read it.
fn transpose_taps(taps: &Taps, input: usize) -> Taps {
    let mut out: Taps = vec![Vec::new(); input];
    for (o, row) in taps.iter().enumerate() {
        for &(i, w) in row {
            out[i].push((o, w));
        }
    }
    out
}

/// Applies `ty` to the rows and `tx` to the columns of every `[h, w, c]` image of `x`.
fn apply<T: Float>(
    op: &str,
    x: &[T],
    [images, h, w, c]: [usize; 4],
    ty: &Taps,
    tx: &Taps,
) -> Result<Vec<T>> {
    let (oh, ow) = (ty.len(), tx.len());
    let image = h * w * c;
    let mut out = memory::try_vec(op, images * oh * ow * c)?;
    let mut rows = memory::try_filled(op, oh * w * c, 0.0f64)?;
    let mut line = memory::try_filled(op, c, 0.0f64)?;
    for n in 0..images {
        let src = &x[n * image..(n + 1) * image];
        rows.iter_mut().for_each(|v| *v = 0.0);
        for (i, taps) in ty.iter().enumerate() {
            let dst = &mut rows[i * w * c..(i + 1) * w * c];
            for &(p, weight) in taps {
                let row = &src[p * w * c..(p + 1) * w * c];
                for (d, &v) in dst.iter_mut().zip(row) {
                    *d += weight * v.to_f64().unwrap_or(f64::NAN);
                }
            }
        }
        for i in 0..oh {
            let row = &rows[i * w * c..(i + 1) * w * c];
            for taps in tx {
                line.iter_mut().for_each(|v| *v = 0.0);
                for &(q, weight) in taps {
                    for (d, &v) in line.iter_mut().zip(&row[q * c..(q + 1) * c]) {
                        *d += weight * v;
                    }
                }
                out.extend(line.iter().map(|&v| T::from_f64(v).unwrap_or_else(T::nan)));
            }
        }
    }
    Ok(out)
}

/// A resize from `[h, w]` to `[oh, ow]`: the geometry both directions share.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    method: ResizeMethod,
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
}

/// Checks `x` is a float tensor of rank at least 3 with non-empty `[h, w]`; returns
/// `(lead, [h, w, c])`.
fn image_dims<'a>(op: &str, x: &'a Tensor) -> Result<(&'a [usize], [usize; 3])> {
    if !x.dtype().is_float() {
        return Err(unsupported(op, x.dtype(), "a floating"));
    }
    let s = x.shape();
    if s.len() < 3 {
        return Err(Error::shape(
            op,
            format!(
                "images must have rank at least 3 (batch_shape + [height, width, channels]), \
                 got shape {} ({})",
                fmt_shape(s),
                x.dtype()
            ),
        ));
    }
    let r = s.len();
    Ok((&s[..r - 3], [s[r - 3], s[r - 2], s[r - 1]]))
}

fn check_size(op: &str, size: [usize; 2], shape: &[usize]) -> Result<()> {
    if size[0] == 0 || size[1] == 0 {
        return Err(Error::value(
            op,
            format!(
                "size must be two positive integers, got [{}, {}] for images of shape {}",
                size[0],
                size[1],
                fmt_shape(shape)
            ),
        ));
    }
    Ok(())
}

/// `tf.image.resize`: every `[h, w, c]` image of `images`
/// (`batch_shape + [h, w, c]`, float32 or float64) resized to `size = [new_h, new_w]` by
/// `method`, with TensorFlow 2's half-pixel sampling. See the module docs for the arithmetic.
pub fn resize(images: &Tensor, size: [usize; 2], method: ResizeMethod) -> Result<Tensor> {
    let op = "resize";
    let (_, [h, w, _]) = image_dims(op, images)?;
    check_size(op, size, images.shape())?;
    if h == 0 || w == 0 {
        return Err(Error::value(
            op,
            format!(
                "images must have a positive height and width, got shape {} ({})",
                fmt_shape(images.shape()),
                images.dtype()
            ),
        ));
    }
    let geometry = Geometry {
        method,
        h,
        w,
        oh: size[0],
        ow: size[1],
    };
    resize_geometry(images, geometry)
}

fn resize_geometry(x: &Tensor, g: Geometry) -> Result<Tensor> {
    let op = "resize";
    let (lead, [h, w, c]) = image_dims(op, x)?;
    if (h, w) != (g.h, g.w) {
        return Err(Error::shape(
            op,
            format!(
                "images of shape {} do not have height {} and width {}",
                fmt_shape(x.shape()),
                g.h,
                g.w
            ),
        ));
    }
    let mut out_shape: Shape = lead.iter().copied().collect();
    out_shape.extend([g.oh, g.ow, c]);
    let n = memory::ensure_shape(op, &out_shape, x.dtype())?;
    // The tap tables hold a list per output row and column: an empty output's sides may be
    // huge, and nothing is resampled then.
    let (ty, tx) = if n == 0 {
        (Vec::new(), Vec::new())
    } else {
        memory::ensure::<Vec<(usize, f64)>>(op, g.oh.saturating_add(g.ow))?;
        (
            axis_taps(g.method, g.h, g.oh),
            axis_taps(g.method, g.w, g.ow),
        )
    };
    let y = Tensor::new(crate::dispatch!(values float x.data(), op, |v| {
        let images = lead.iter().product();
        Values::from_vec(&out_shape, apply(op, v.as_slice(), [images, h, w, c], &ty, &tx)?)
    }));
    let rank = x.ndim();
    let mixes = AxisMap::along(rank, &[rank - 3, rank - 2]);
    record_batched(op, &[x], &y, &[], mixes, true, move |_, dy, _batch| {
        Ok(crate::grads![Some(resize_adjoint_geometry(dy, g)?)])
    });
    Ok(y)
}

/// The adjoint (transpose) of [`resize`]: `grads` (`batch_shape + [new_h, new_w, c]`) spread
/// back onto `[h, w]` images with the same taps. It is `resize`'s gradient, and `resize` is
/// its gradient.
pub fn resize_adjoint(
    grads: &Tensor,
    image_size: [usize; 2],
    method: ResizeMethod,
) -> Result<Tensor> {
    let op = "resize_adjoint";
    let (_, [oh, ow, _]) = image_dims(op, grads)?;
    check_size(op, image_size, grads.shape())?;
    check_size(op, [oh, ow], grads.shape())?;
    let geometry = Geometry {
        method,
        h: image_size[0],
        w: image_size[1],
        oh,
        ow,
    };
    resize_adjoint_geometry(grads, geometry)
}

fn resize_adjoint_geometry(dy: &Tensor, g: Geometry) -> Result<Tensor> {
    let op = "resize_adjoint";
    let (lead, [oh, ow, c]) = image_dims(op, dy)?;
    if (oh, ow) != (g.oh, g.ow) {
        return Err(Error::shape(
            op,
            format!(
                "gradients of shape {} do not have height {} and width {}",
                fmt_shape(dy.shape()),
                g.oh,
                g.ow
            ),
        ));
    }
    let mut out_shape: Shape = lead.iter().copied().collect();
    out_shape.extend([g.h, g.w, c]);
    memory::ensure_shape(op, &out_shape, dy.dtype())?;
    memory::ensure::<Vec<(usize, f64)>>(op, g.h.saturating_add(g.w))?;
    // The forward taps hold a list per gradient row and column: an empty gradient's sides
    // may be huge, and then nothing spreads back (every input row reads no tap).
    let (ty, tx) = if dy.size() == 0 {
        (vec![Vec::new(); g.h], vec![Vec::new(); g.w])
    } else {
        (
            transpose_taps(&axis_taps(g.method, g.h, g.oh), g.h),
            transpose_taps(&axis_taps(g.method, g.w, g.ow), g.w),
        )
    };
    let dx = Tensor::new(crate::dispatch!(values float dy.data(), op, |v| {
        let images = lead.iter().product();
        Values::from_vec(&out_shape, apply(op, v.as_slice(), [images, oh, ow, c], &ty, &tx)?)
    }));
    let rank = dy.ndim();
    let mixes = AxisMap::along(rank, &[rank - 3, rank - 2]);
    record_batched(op, &[dy], &dx, &[], mixes, true, move |_, gy, _batch| {
        Ok(crate::grads![Some(resize_geometry(gy, g)?)])
    });
    Ok(dx)
}
