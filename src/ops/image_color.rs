//! Colour-space conversions with TensorFlow 2's arithmetic: `rgb_to_hsv`, `hsv_to_rgb`, and the
//! fused `adjust_hue` / `adjust_saturation` (RGB to HSV, change one channel, back, in one pass).
//!
//! Pixels are the last axis (3 channels); every other axis is a batch axis. The forward
//! kernels compute in the image's dtype as TensorFlow's `RGBToHSV` / `HSVToRGB` do:
//! - `v = max(r, g, b)`, `range = v - min(r, g, b)`, `s = range / v` (0 where `v <= 0`),
//!   `h = (1 / range) * (1 / 6) * (g - b)` when red is the maximum (else `(b - r)` plus `2 / 6`
//!   for green, `(r - g)` plus `4 / 6` for blue), 0 where `range <= 0`, plus 1 where negative;
//! - back: `dh = 6 h`, channel weights `clamp(|dh - 3| - 1)`, `clamp(2 - |dh - 2|)`,
//!   `clamp(2 - |dh - 4|)` (clamped to `[0, 1]`), each channel `(1 - s + s w) v`.
//!
//! The gradients are exact (TensorFlow registers none for `HSVToRGB`, `AdjustHue` and
//! `AdjustSaturation`; its `RGBToHSV` gradient agrees with this one away from ties). Each is
//! written in rustape ops over piecewise-constant selections (which channel is the maximum,
//! which the minimum, which slope each hue weight has), so every order and the vectorised
//! Jacobian work. At a tie (a grey pixel, two equal maxima) the selection follows the forward's
//! choice: the derivative of the branch the forward took.
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::memory;
use crate::ops::parallel::for_each_task;
use crate::ops::{add, concat, multiply, reduce_sum, split, subtract};
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{Tensor, Values};
use std::sync::Mutex;

/// Pixels per task of a split kernel.
const BLOCK: usize = 1 << 13;

/// Checks `x` is a float tensor whose last axis has `channels` entries.
fn pixels(op: &str, x: &Tensor, channels: usize) -> Result<usize> {
    if !x.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!(
                "expected float32 or float64 images, got {} of shape {}",
                x.dtype(),
                fmt_shape(x.shape())
            ),
        ));
    }
    if x.shape().last() != Some(&channels) {
        return Err(Error::shape(
            op,
            format!(
                "the last axis must have {channels} channels, got shape {} ({})",
                fmt_shape(x.shape()),
                x.dtype()
            ),
        ));
    }
    Ok(x.shape().iter().product::<usize>() / channels)
}

/// Runs `f(pixel_in, pixel_out)` over every pixel: `input` has `ci` values per pixel, the
/// result `co`; large inputs split over the kernel threads in blocks of pixels.
fn per_pixel<T: Float>(
    op: &str,
    input: &[T],
    ci: usize,
    co: usize,
    f: impl Fn(&[T], &mut [T]) + Sync,
) -> Result<Vec<T>> {
    let n = input.len() / ci;
    let mut out = memory::try_filled(op, n * co, T::zero())?;
    let run = |block: usize, dst: &mut [T]| {
        let start = block * BLOCK;
        for (k, o) in dst.chunks_exact_mut(co).enumerate() {
            let p = start + k;
            f(&input[p * ci..(p + 1) * ci], o);
        }
    };
    if crate::ops::kernel::worth_splitting(n * 8, crate::ops::kernel::PAR_MATH) {
        let blocks: Vec<Mutex<&mut [T]>> = out.chunks_mut(BLOCK * co).map(Mutex::new).collect();
        for_each_task(blocks.len(), &|i| {
            let mut dst = blocks[i].lock().unwrap_or_else(|e| e.into_inner());
            run(i, &mut dst);
        });
    } else {
        for (i, dst) in out.chunks_mut(BLOCK * co).enumerate() {
            run(i, dst);
        }
    }
    Ok(out)
}

fn c<T: Float>(v: f64) -> T {
    T::from_f64(v).unwrap_or_else(T::zero)
}

/// TensorFlow's RGB to HSV for one pixel.
#[inline(always)]
fn to_hsv<T: Float>(r: T, g: T, b: T) -> [T; 3] {
    let v = r.max(g).max(b);
    let range = v - r.min(g).min(b);
    let s = if v > T::zero() { range / v } else { T::zero() };
    let norm = (T::one() / range) * (T::one() / c::<T>(6.0));
    let mut h = if r == v {
        norm * (g - b)
    } else if g == v {
        norm * (b - r) + c::<T>(2.0) / c::<T>(6.0)
    } else {
        norm * (r - g) + c::<T>(4.0) / c::<T>(6.0)
    };
    if range.is_nan() || range <= T::zero() {
        h = T::zero();
    }
    if h < T::zero() {
        h = h + T::one();
    }
    [h, s, v]
}

/// TensorFlow's three hue weights (`[0, 1]` each) of a hue.
#[inline(always)]
fn weights<T: Float>(h: T) -> [T; 3] {
    let dh = h * c::<T>(6.0);
    let clamp = |w: T| w.max(T::zero()).min(T::one());
    let two = c::<T>(2.0);
    [
        clamp((dh - c::<T>(3.0)).abs() - T::one()),
        clamp(-(dh - two).abs() + two),
        clamp(-(dh - c::<T>(4.0)).abs() + two),
    ]
}

/// The derivatives of [`weights`] with respect to the hue (0 where a weight is clamped).
#[inline(always)]
fn slopes<T: Float>(h: T) -> [T; 3] {
    let dh = h * c::<T>(6.0);
    let six = c::<T>(6.0);
    let inside = |w: T| w > T::zero() && w < T::one();
    let sign = |d: T| {
        if d > T::zero() {
            T::one()
        } else if d < T::zero() {
            -T::one()
        } else {
            T::zero()
        }
    };
    let w = weights(h);
    let pick = |k: usize, d: T, s: T| {
        if inside(w[k]) {
            s * six * sign(d)
        } else {
            T::zero()
        }
    };
    [
        pick(0, dh - c::<T>(3.0), T::one()),
        pick(1, dh - c::<T>(2.0), -T::one()),
        pick(2, dh - c::<T>(4.0), -T::one()),
    ]
}

/// TensorFlow's HSV to RGB for one pixel.
#[inline(always)]
fn to_rgb<T: Float>(h: T, s: T, v: T) -> [T; 3] {
    let w = weights(h);
    let one_s = -s + T::one();
    [
        (one_s + s * w[0]) * v,
        (one_s + s * w[1]) * v,
        (one_s + s * w[2]) * v,
    ]
}

/// A tensor of `x`'s shape with `co` channels from `f` per pixel, not recorded.
fn pixel_tensor(
    op: &'static str,
    x: &Tensor,
    ci: usize,
    co: usize,
    f64_kernel: impl Fn(&[f64], &mut [f64]) + Sync,
    f32_kernel: impl Fn(&[f32], &mut [f32]) + Sync,
) -> Result<Tensor> {
    let mut shape = x.shape().to_vec();
    if let Some(last) = shape.last_mut() {
        *last = co;
    }
    let data = match x.data() {
        crate::tensor::Data::F32(v) => crate::tensor::Data::from(Values::from_vec(
            &shape,
            per_pixel(op, v.as_slice(), ci, co, f32_kernel)?,
        )),
        crate::tensor::Data::F64(v) => crate::tensor::Data::from(Values::from_vec(
            &shape,
            per_pixel(op, v.as_slice(), ci, co, f64_kernel)?,
        )),
        other => return Err(crate::tensor::unsupported(op, other.dtype(), "a floating")),
    };
    Ok(Tensor::new(data))
}

/// Builds a per-pixel kernel for both float dtypes from one generic function.
macro_rules! both {
    ($op:expr, $x:expr, $ci:expr, $co:expr, |$i:ident, $o:ident| $body:expr) => {
        pixel_tensor(
            $op,
            $x,
            $ci,
            $co,
            |$i: &[f64], $o: &mut [f64]| $body,
            |$i: &[f32], $o: &mut [f32]| $body,
        )
    };
}

fn last_axis(rank: usize) -> AxisMap {
    AxisMap::along(rank, &[rank - 1])
}

/// `tf.image.rgb_to_hsv`: `[..., 3]` RGB pixels to hue, saturation and value, each in
/// `[0, 1]` for RGB values in `[0, 1]`. Differentiable (see the module docs).
pub fn rgb_to_hsv(images: &Tensor) -> Result<Tensor> {
    let op = "rgb_to_hsv";
    pixels(op, images, 3)?;
    let y = both!(op, images, 3, 3, |i, o| o
        .copy_from_slice(&to_hsv(i[0], i[1], i[2])))?;
    record_batched(
        op,
        &[images],
        &y,
        &[images],
        last_axis(images.ndim()),
        true,
        |s, dy, _| Ok(crate::grads![Some(rgb_to_hsv_vjp(&s[0], dy)?)]),
    );
    Ok(y)
}

/// `tf.image.hsv_to_rgb`: `[..., 3]` hue, saturation, value pixels to RGB (TensorFlow's
/// formula, which does not wrap hues outside `[0, 1]`). Differentiable.
pub fn hsv_to_rgb(images: &Tensor) -> Result<Tensor> {
    let op = "hsv_to_rgb";
    pixels(op, images, 3)?;
    let y = both!(op, images, 3, 3, |i, o| o
        .copy_from_slice(&to_rgb(i[0], i[1], i[2])))?;
    record_batched(
        op,
        &[images],
        &y,
        &[images],
        last_axis(images.ndim()),
        true,
        |s, dy, _| Ok(crate::grads![Some(hsv_to_rgb_vjp(&s[0], dy)?)]),
    );
    Ok(y)
}

/// The three hue weights of `[..., 1]` hues (`hsv_to_rgb` of `(h, 1, 1)`), recorded: the
/// piece of `hsv_to_rgb`'s gradient that depends on the hue.
fn hue_weights(h: &Tensor) -> Result<Tensor> {
    let op = "hsv_to_rgb";
    let y = both!(op, h, 1, 3, |i, o| o.copy_from_slice(&weights(i[0])))?;
    record_batched(op, &[h], &y, &[h], last_axis(h.ndim()), true, |s, dy, _| {
        let k = both!("hsv_to_rgb", &s[0], 1, 3, |i, o| o
            .copy_from_slice(&slopes(i[0])))?;
        Ok(crate::grads![Some(reduce_sum(
            &multiply(dy, &k)?,
            Some(&[-1]),
            true
        )?)])
    });
    Ok(y)
}

fn one(x: &Tensor) -> Tensor {
    Tensor::shared_scalar_of(1.0, x.dtype())
}

fn sum_last(x: &Tensor) -> Result<Tensor> {
    reduce_sum(x, Some(&[-1]), true)
}

fn channels(x: &Tensor) -> Result<[Tensor; 3]> {
    let mut parts = split(x, &[1, 1, 1], -1)?.into_iter();
    let mut next = || {
        parts
            .next()
            .ok_or_else(|| Error::shape("image", "three channels"))
    };
    Ok([next()?, next()?, next()?])
}

/// The gradient of `hsv_to_rgb` at `hsv` for `dy` (possibly with leading batch axes).
fn hsv_to_rgb_vjp(hsv: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let [h, s, v] = channels(hsv)?;
    let w = hue_weights(&h)?;
    let k = both!("hsv_to_rgb", &h, 1, 3, |i, o| o
        .copy_from_slice(&slopes(i[0])))?;
    let share = add(&subtract(&one(&s), &s)?, &multiply(&s, &w)?)?;
    let dv = sum_last(&multiply(dy, &share)?)?;
    let ds = multiply(&sum_last(&multiply(dy, &subtract(&w, &one(&w))?)?)?, &v)?;
    let dh = multiply(&sum_last(&multiply(dy, &k)?)?, &multiply(&s, &v)?)?;
    concat(&[dh, ds, dv], -1)
}

/// Per pixel of an RGB image: one-hot of the maximum channel, of the minimum channel, the
/// hue numerator's weights, then `v > 0` and `range > 0` (11 values).
fn selections<T: Float>(p: &[T], o: &mut [T]) {
    let (r, g, b) = (p[0], p[1], p[2]);
    let v = r.max(g).max(b);
    let mn = r.min(g).min(b);
    let (z, u) = (T::zero(), T::one());
    let top = if r == v {
        0
    } else if g == v {
        1
    } else {
        2
    };
    // The minimum: a channel other than the maximum (the last such at a tie).
    let low = match top {
        0 => {
            if b == mn {
                2
            } else {
                1
            }
        }
        1 => {
            if b == mn {
                2
            } else {
                0
            }
        }
        _ => {
            if g == mn {
                1
            } else {
                0
            }
        }
    };
    o[..11].fill(z);
    o[top] = u;
    o[3 + low] = u;
    let numerator = match top {
        0 => [z, u, -u],
        1 => [-u, z, u],
        _ => [u, -u, z],
    };
    let ranged = v - mn > z;
    if ranged {
        o[6..9].copy_from_slice(&numerator);
        o[10] = u;
    }
    if v > z {
        o[9] = u;
    }
}

/// The gradient of `rgb_to_hsv` at `x` for `dy` (possibly with leading batch axes).
fn rgb_to_hsv_vjp(x: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let sel = both!("rgb_to_hsv", x, 3, 11, |i, o| selections(i, o))?;
    let parts = split(&sel, &[3, 3, 3, 1, 1], -1)?;
    let (top, low, num, pv, pc) = (&parts[0], &parts[1], &parts[2], &parts[3], &parts[4]);
    let v = sum_last(&multiply(x, top)?)?;
    let m = sum_last(&multiply(x, low)?)?;
    let n = sum_last(&multiply(x, num)?)?;
    let range = subtract(&v, &m)?;
    let safe = |d: &Tensor, p: &Tensor| -> Result<Tensor> {
        divide_safe(p, &add(d, &subtract(&one(p), p)?)?)
    };
    let inv_v = safe(&v, pv)?;
    let inv_c = safe(&range, pc)?;
    let [dh, ds, dv] = channels(dy)?;
    let sixth = Tensor::shared_scalar_of(1.0 / 6.0, x.dtype());
    let dn = multiply(&multiply(&dh, &inv_c)?, &sixth)?;
    let dc = multiply(&multiply(&dn, &n)?, &inv_c)?;
    let ds_v = multiply(&ds, &inv_v)?;
    let d_top = subtract(&add(&dv, &multiply(&multiply(&ds_v, &m)?, &inv_v)?)?, &dc)?;
    let d_low = subtract(&dc, &ds_v)?;
    add(
        &add(&multiply(&d_top, top)?, &multiply(&d_low, low)?)?,
        &multiply(&dn, num)?,
    )
}

fn divide_safe(p: &Tensor, d: &Tensor) -> Result<Tensor> {
    crate::ops::divide(p, d)
}

/// Per pixel of an RGB image, for an adjustment that changes one HSV channel: the gate (what
/// the adjusted HSV's derivative is with respect to the original's, per channel) and the
/// offset, so that `adjusted = hsv * gate + offset` (6 values).
fn hue_gate<T: Float>(delta: T) -> impl Fn(&[T], &mut [T]) + Sync {
    move |p, o| {
        let hsv = to_hsv(p[0], p[1], p[2]);
        let shifted = hsv[0] + delta;
        let (z, u) = (T::zero(), T::one());
        o.copy_from_slice(&[u, u, u, delta - shifted.floor(), z, z]);
    }
}

fn saturation_gate<T: Float>(factor: T) -> impl Fn(&[T], &mut [T]) + Sync {
    move |p, o| {
        let hsv = to_hsv(p[0], p[1], p[2]);
        let scaled = hsv[1] * factor;
        let (z, u) = (T::zero(), T::one());
        let (gate, offset) = if scaled >= u {
            (z, u)
        } else if scaled > z {
            (factor, z)
        } else {
            (z, z)
        };
        o.copy_from_slice(&[u, gate, u, z, offset, z]);
    }
}

/// The hue of one pixel moved by `delta` turns and wrapped into `[0, 1)`.
#[inline(always)]
fn shift_hue<T: Float>(p: &[T], o: &mut [T], delta: T) {
    let [h, s, v] = to_hsv(p[0], p[1], p[2]);
    let moved = h + delta;
    o.copy_from_slice(&to_rgb(moved - moved.floor(), s, v));
}

#[inline(always)]
fn scale_saturation<T: Float>(p: &[T], o: &mut [T], factor: T) {
    let [h, s, v] = to_hsv(p[0], p[1], p[2]);
    let s = (s * factor).max(T::zero()).min(T::one());
    o.copy_from_slice(&to_rgb(h, s, v));
}

/// `tf.image.adjust_hue`: every pixel's hue moved by `delta` (in turns, wrapped into
/// `[0, 1)`), in one pass. Differentiable with respect to the image (TensorFlow's has no
/// gradient); `delta` gets none.
pub fn adjust_hue(images: &Tensor, delta: f64) -> Result<Tensor> {
    let op = "adjust_hue";
    pixels(op, images, 3)?;
    let y = both!(op, images, 3, 3, |i, o| shift_hue(i, o, c(delta)))?;
    record_batched(
        op,
        &[images],
        &y,
        &[images],
        last_axis(images.ndim()),
        true,
        move |s, dy, _| {
            let gate = pixel_tensor(op, &s[0], 3, 6, hue_gate(delta), hue_gate(delta as f32))?;
            Ok(crate::grads![Some(adjusted_vjp(&s[0], &gate, dy)?)])
        },
    );
    Ok(y)
}

/// `tf.image.adjust_saturation`: every pixel's saturation multiplied by `factor` and clamped
/// to `[0, 1]`, in one pass. Differentiable with respect to the image; `factor` gets none.
pub fn adjust_saturation(images: &Tensor, factor: f64) -> Result<Tensor> {
    let op = "adjust_saturation";
    pixels(op, images, 3)?;
    let y = both!(op, images, 3, 3, |i, o| scale_saturation(i, o, c(factor)))?;
    record_batched(
        op,
        &[images],
        &y,
        &[images],
        last_axis(images.ndim()),
        true,
        move |s, dy, _| {
            let gate = pixel_tensor(
                op,
                &s[0],
                3,
                6,
                saturation_gate(factor),
                saturation_gate(factor as f32),
            )?;
            Ok(crate::grads![Some(adjusted_vjp(&s[0], &gate, dy)?)])
        },
    );
    Ok(y)
}

/// The gradient of `hsv_to_rgb(rgb_to_hsv(x) * gate + offset)` (`gate_offset`: `[..., 6]`).
fn adjusted_vjp(x: &Tensor, gate_offset: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let parts = split(gate_offset, &[3, 3], -1)?;
    let hsv = add(&multiply(&rgb_to_hsv(x)?, &parts[0])?, &parts[1])?;
    let g = multiply(&hsv_to_rgb_vjp(&hsv, dy)?, &parts[0])?;
    rgb_to_hsv_vjp(x, &g)
}
