//! Projective image transforms with TensorFlow's `ImageProjectiveTransformV3` arithmetic
//! (`keras.ops.image.affine_transform`).
//!
//! Each image has 8 parameters `[a0, a1, a2, b0, b1, b2, c0, c1]` mapping an output pixel
//! `(x, y)` (column, row) to the input point `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`
//! with `k = c0 x + c1 y + 1`, all in float32 as TensorFlow's kernel computes them. The point is
//! then mapped into the image by the fill mode (`reflect`: `dcba|abcd|dcba`, `wrap`:
//! `abcd|abcd|abcd` with TensorFlow's arithmetic (whole images added in steps counted by
//! `len - 1`, then clamped, so far points do not always wrap exactly), `nearest`: clamped, `mirror`: `dcb|abcd|cba` as SciPy's, `constant`:
//! unchanged) and read by `nearest` (rounded half away from zero) or `bilinear` interpolation;
//! a pixel read outside the image takes `fill_value` (so a bilinear sample near the edge
//! blends the two), and `k == 0` gives `fill_value`.
//!
//! The map is linear in the image: output pixel `p` is `sum_k w_k x[q_k] + w_fill * fill`, with
//! up to four taps `(q_k, w_k)`. A tap's weight is the float32 product of its row and column
//! weights (TensorFlow's kernel rounds the same way); the sums run in float64 and round to the
//! image's dtype. The gradient with respect to the images is the transposed map (a scatter),
//! [`affine_transform_adjoint`], whose own gradient is the transform again (fill value 0), so
//! every order works. The transforms get no gradient (TensorFlow gives them none).
//!
//! Leading axes (`lead + [h, w, c]`) fold into one sequence of images; with `n` transforms
//! (`[n, 8]`) image `k` uses transform `k % n`, so `n` is 1 or the last leading axis and a
//! vectorised Jacobian's extra leading axes pass through.
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::ops::kernel::{worth_splitting, PAR_MATH};
use crate::ops::parallel::map_tasks;
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{unsupported, Tensor, Values};
use std::sync::Arc;

/// How [`affine_transform`] reads the input between pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The pixel nearest the point (coordinates rounded half away from zero).
    Nearest,
    /// Linear interpolation between the four pixels around the point.
    Bilinear,
}

impl Interpolation {
    /// The interpolation named `name` (`"nearest"`, `"bilinear"`).
    pub fn parse(op: &str, name: &str) -> Result<Interpolation> {
        match name {
            "nearest" => Ok(Interpolation::Nearest),
            "bilinear" => Ok(Interpolation::Bilinear),
            _ => Err(Error::value(
                op,
                format!("unknown interpolation {name:?}: expected 'nearest' or 'bilinear'"),
            )),
        }
    }
}

/// How [`affine_transform`] maps points outside the image back into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillMode {
    /// Points outside take the fill value.
    Constant,
    /// The nearest edge pixel (`aaaa|abcd|dddd`).
    Nearest,
    /// The image repeated (`abcd|abcd|abcd`).
    Wrap,
    /// Reflected about the edge pixel's centre (`dcb|abcd|cba`).
    Mirror,
    /// Reflected about the edge (`dcba|abcd|dcba`).
    Reflect,
}

impl FillMode {
    /// The fill mode named `name` (`"constant"`, `"nearest"`, `"wrap"`, `"mirror"`,
    /// `"reflect"`).
    pub fn parse(op: &str, name: &str) -> Result<FillMode> {
        match name {
            "constant" => Ok(FillMode::Constant),
            "nearest" => Ok(FillMode::Nearest),
            "wrap" => Ok(FillMode::Wrap),
            "mirror" => Ok(FillMode::Mirror),
            "reflect" => Ok(FillMode::Reflect),
            _ => Err(Error::value(
                op,
                format!(
                    "unknown fill_mode {name:?}: expected 'constant', 'nearest', 'wrap', \
                     'mirror' or 'reflect'"
                ),
            )),
        }
    }

    /// `coord` mapped into `[0, len - 1]` (TensorFlow's `MapCoordinate`; unchanged for
    /// `Constant`).
    fn map(self, coord: f32, len: usize) -> f32 {
        let n = len as i64;
        let top = (len as f32) - 1.0;
        let mut c = coord;
        match self {
            FillMode::Constant => return coord,
            FillMode::Nearest => {}
            FillMode::Reflect => {
                if len <= 1 && (c < 0.0 || c > top) {
                    c = 0.0;
                } else if c < 0.0 {
                    let sz2 = 2 * n;
                    if c < sz2 as f32 {
                        c += (sz2 * ((-c / sz2 as f32) as i64)) as f32;
                    }
                    c = if c < -(n as f32) {
                        c + sz2 as f32
                    } else {
                        -c - 1.0
                    };
                } else if c > top {
                    let sz2 = 2 * n;
                    c -= (sz2 * ((c / sz2 as f32) as i64)) as f32;
                    if c >= n as f32 {
                        c = sz2 as f32 - c - 1.0;
                    }
                }
            }
            FillMode::Wrap => {
                if len <= 1 && (c < 0.0 || c > top) {
                    c = 0.0;
                } else if c < 0.0 {
                    let sz = n - 1;
                    c += (n * (((-c / sz as f32) as i64) + 1)) as f32;
                } else if c > top {
                    let sz = n - 1;
                    c -= (n * ((c / sz as f32) as i64)) as f32;
                }
            }
            FillMode::Mirror => {
                if len <= 1 {
                    c = 0.0;
                } else if c < 0.0 || c > top {
                    let period = 2.0 * top;
                    c = c.abs() % period;
                    if c > top {
                        c = period - c;
                    }
                }
            }
        }
        // Clamped as TensorFlow clamps (a NaN stays NaN and is filled).
        if c < 0.0 {
            0.0
        } else if c > top {
            top
        } else {
            c
        }
    }
}

/// The per-image parameters both directions share.
#[derive(Clone, Debug)]
struct Warp {
    transforms: Arc<Vec<[f32; 8]>>,
    interpolation: Interpolation,
    fill_mode: FillMode,
    h: usize,
    w: usize,
}

/// The taps of one output pixel: up to four (input pixel, weight) pairs and the weight of the
/// fill value.
struct Taps {
    taps: [(usize, f64); 4],
    len: usize,
    fill: f64,
}

impl Warp {
    /// The taps of output pixel `(i, j)` (row, column) under transform `t`.
    fn taps(&self, t: &[f32; 8], i: usize, j: usize) -> Taps {
        let mut out = Taps {
            taps: [(0, 0.0); 4],
            len: 0,
            fill: 0.0,
        };
        let (x_out, y_out) = (j as f32, i as f32);
        let projection = t[6] * x_out + t[7] * y_out + 1.0;
        if projection == 0.0 {
            out.fill = 1.0;
            return out;
        }
        let input_x = (t[0] * x_out + t[1] * y_out + t[2]) / projection;
        let input_y = (t[3] * x_out + t[4] * y_out + t[5]) / projection;
        let x = self.fill_mode.map(input_x, self.w);
        let y = self.fill_mode.map(input_y, self.h);
        if x.is_nan() || y.is_nan() {
            out.fill = 1.0;
            return out;
        }
        // A neighbour outside the image reads the fill value (only `constant` leaves points
        // outside).
        let (h, w) = (self.h as i64, self.w as i64);
        let mut add = |row: i64, col: i64, weight: f64| {
            if (0..h).contains(&row) && (0..w).contains(&col) {
                if weight != 0.0 {
                    out.taps[out.len] = ((row * w + col) as usize, weight);
                    out.len += 1;
                }
            } else {
                out.fill += weight;
            }
        };
        match self.interpolation {
            Interpolation::Nearest => add(y.round() as i64, x.round() as i64, 1.0),
            Interpolation::Bilinear => {
                let (yf, xf) = (y.floor(), x.floor());
                let (yc, xc) = (yf + 1.0, xf + 1.0);
                for (row, wy) in [(yf, yc - y), (yc, y - yf)] {
                    for (col, wx) in [(xf, xc - x), (xc, x - xf)] {
                        add(row as i64, col as i64, (wy * wx) as f64);
                    }
                }
            }
        }
        out
    }
}

/// Checks `x` is a float tensor of rank at least 3 with a positive height and width; returns
/// `[h, w, c]`.
fn image_dims(op: &str, what: &str, x: &Tensor) -> Result<[usize; 3]> {
    if !x.dtype().is_float() {
        return Err(unsupported(op, x.dtype(), "a floating"));
    }
    let s = x.shape();
    let r = s.len();
    if r < 3 || s[r - 3] == 0 || s[r - 2] == 0 {
        return Err(Error::shape(
            op,
            format!(
                "{what} must have rank at least 3 (batch_shape + [height, width, channels]) \
                 and a positive height and width, got shape {} ({})",
                fmt_shape(s),
                x.dtype()
            ),
        ));
    }
    Ok([s[r - 3], s[r - 2], s[r - 1]])
}

/// The transforms as float32 rows, checked against the images.
fn transform_rows(op: &str, transform: &Tensor, images: &Tensor) -> Result<Vec<[f32; 8]>> {
    let bad = |why: &str| {
        Error::shape(
            op,
            format!(
                "transform of shape {} ({}) for images of shape {} ({}): {why}",
                fmt_shape(transform.shape()),
                transform.dtype(),
                fmt_shape(images.shape()),
                images.dtype()
            ),
        )
    };
    if !(transform.dtype().is_float() || transform.dtype().is_int()) {
        return Err(unsupported(op, transform.dtype(), "a real"));
    }
    let s = transform.shape();
    let n = match s {
        [8] => 1,
        [n, 8] => *n,
        _ => return Err(bad("expected shape [8] or [batch, 8]")),
    };
    let r = images.ndim();
    let batch = if r > 3 { images.shape()[r - 4] } else { 1 };
    if n != 1 && n != batch {
        return Err(bad("expected one transform or one per image"));
    }
    let values = transform.to_f64_vec();
    Ok(values
        .chunks_exact(8)
        .map(|row| std::array::from_fn(|k| row[k] as f32))
        .collect())
}

/// Runs `per_image(k, image)` over the `count` images of `x` (each `image` elements), in
/// parallel when large, and concatenates the results.
fn per_image<T: Float>(
    x: &[T],
    image_in: usize,
    count: usize,
    work: usize,
    f: impl Fn(usize, &[T]) -> Vec<T> + Sync,
) -> Vec<T> {
    let run = |k: usize| f(k, &x[k * image_in..(k + 1) * image_in]);
    if count > 1 && worth_splitting(work, PAR_MATH) {
        map_tasks(count, run).concat()
    } else {
        (0..count).flat_map(run).collect()
    }
}

fn forward<T: Float>(x: &[T], c: usize, warp: &Warp, fill: f64) -> Vec<T> {
    let (h, w) = (warp.h, warp.w);
    let image = h * w * c;
    let count = x.len().checked_div(image).unwrap_or(0);
    let n = warp.transforms.len();
    per_image(x, image, count, x.len() * 4, |k, src| {
        let t = &warp.transforms[k % n];
        let mut out = Vec::with_capacity(image);
        let mut acc = vec![0.0f64; c];
        for i in 0..h {
            for j in 0..w {
                let taps = warp.taps(t, i, j);
                acc.iter_mut().for_each(|a| *a = taps.fill * fill);
                for &(q, weight) in &taps.taps[..taps.len] {
                    for (a, v) in acc.iter_mut().zip(&src[q * c..(q + 1) * c]) {
                        *a += weight * v.to_f64().unwrap_or(f64::NAN);
                    }
                }
                out.extend(acc.iter().map(|&v| T::from_f64(v).unwrap_or_else(T::nan)));
            }
        }
        out
    })
}

fn adjoint<T: Float>(dy: &[T], c: usize, warp: &Warp) -> Vec<T> {
    let (h, w) = (warp.h, warp.w);
    let image = h * w * c;
    let count = dy.len().checked_div(image).unwrap_or(0);
    let n = warp.transforms.len();
    per_image(dy, image, count, dy.len() * 4, |k, src| {
        let t = &warp.transforms[k % n];
        let mut acc = vec![0.0f64; image];
        for i in 0..h {
            for j in 0..w {
                let taps = warp.taps(t, i, j);
                let g = &src[(i * w + j) * c..(i * w + j + 1) * c];
                for &(q, weight) in &taps.taps[..taps.len] {
                    for (a, v) in acc[q * c..(q + 1) * c].iter_mut().zip(g) {
                        *a += weight * v.to_f64().unwrap_or(f64::NAN);
                    }
                }
            }
        }
        acc.into_iter()
            .map(|v| T::from_f64(v).unwrap_or_else(T::nan))
            .collect()
    })
}

fn build(
    op: &str,
    images: &Tensor,
    transform: &Tensor,
    interpolation: Interpolation,
    fill_mode: FillMode,
) -> Result<Warp> {
    let [h, w, _] = image_dims(op, "images", images)?;
    let rows = transform_rows(op, transform, images)?;
    Ok(Warp {
        transforms: Arc::new(rows),
        interpolation,
        fill_mode,
        h,
        w,
    })
}

/// `keras.ops.image.affine_transform` (TensorFlow's `ImageProjectiveTransformV3` with the
/// output the size of the input): every `[h, w, c]` image of `images` (`batch_shape + [h, w,
/// c]`, float32 or float64) resampled at the points `transform` (`[8]` or `[batch, 8]`) maps
/// its pixels to. See the module docs for the arithmetic.
pub fn affine_transform(
    images: &Tensor,
    transform: &Tensor,
    interpolation: Interpolation,
    fill_mode: FillMode,
    fill_value: f64,
) -> Result<Tensor> {
    let warp = build(
        "affine_transform",
        images,
        transform,
        interpolation,
        fill_mode,
    )?;
    transform_warp(images, warp, fill_value)
}

fn transform_warp(x: &Tensor, warp: Warp, fill: f64) -> Result<Tensor> {
    let op = "affine_transform";
    let [h, w, c] = image_dims(op, "images", x)?;
    if (h, w) != (warp.h, warp.w) {
        return Err(Error::shape(
            op,
            format!(
                "images of shape {} do not have height {} and width {}",
                fmt_shape(x.shape()),
                warp.h,
                warp.w
            ),
        ));
    }
    memory::checked_size(op, x.shape())?;
    let shape = x.shape().to_vec();
    let y = Tensor::new(crate::dispatch!(values float x.data(), op, |v| {
        Values::from_vec(&shape, forward(v.as_slice(), c, &warp, fill))
    }));
    let rank = x.ndim();
    let mixes = AxisMap::along(rank, &[rank - 3, rank - 2]);
    record_batched(op, &[x], &y, &[], mixes, true, move |_, dy, _batch| {
        Ok(crate::grads![Some(adjoint_warp(dy, warp.clone())?)])
    });
    Ok(y)
}

/// The adjoint (transpose) of [`affine_transform`] with respect to the images: `grads`
/// (`batch_shape + [h, w, c]`) scattered back through the same taps (the fill value gets
/// nothing). It is `affine_transform`'s gradient, and `affine_transform` (fill value 0) is
/// its gradient.
pub fn affine_transform_adjoint(
    grads: &Tensor,
    transform: &Tensor,
    interpolation: Interpolation,
    fill_mode: FillMode,
) -> Result<Tensor> {
    let warp = build(
        "affine_transform_adjoint",
        grads,
        transform,
        interpolation,
        fill_mode,
    )?;
    adjoint_warp(grads, warp)
}

fn adjoint_warp(dy: &Tensor, warp: Warp) -> Result<Tensor> {
    let op = "affine_transform_adjoint";
    let [h, w, c] = image_dims(op, "grads", dy)?;
    if (h, w) != (warp.h, warp.w) {
        return Err(Error::shape(
            op,
            format!(
                "gradients of shape {} do not have height {} and width {}",
                fmt_shape(dy.shape()),
                warp.h,
                warp.w
            ),
        ));
    }
    memory::checked_size(op, dy.shape())?;
    let shape = dy.shape().to_vec();
    let dx = Tensor::new(crate::dispatch!(values float dy.data(), op, |v| {
        Values::from_vec(&shape, adjoint(v.as_slice(), c, &warp))
    }));
    let rank = dy.ndim();
    let mixes = AxisMap::along(rank, &[rank - 3, rank - 2]);
    record_batched(op, &[dy], &dx, &[], mixes, true, move |_, gy, _batch| {
        Ok(crate::grads![Some(transform_warp(gy, warp.clone(), 0.0)?)])
    });
    Ok(dx)
}
