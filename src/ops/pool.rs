//! 2-D pooling on NHWC images, with TensorFlow's arguments: `max_pool2d`, `avg_pool2d`.
//!
//! Max pooling routes gradients through the window maxima of its input `x` (the first one in
//! row-major window order on ties, as TensorFlow's CPU kernel). Two ops do the routing, each the
//! other's VJP in its second argument: `max_pool_scatter(x, dy)` adds `dy` at the maxima (the
//! gradient), `max_pool_gather(x, g)` reads `g` there (the gradient's gradient). Both are
//! piecewise constant in `x` (no gradient there), so every order works.
//!
//! Average pooling divides by the number of window positions inside the image (padding is not
//! counted, as in TensorFlow); its gradient `avg_pool_grad` spreads `dy` back, and the two are
//! each other's VJP.
//!
//! Leading axes: `x` is `batch_shape + [h, w, c]` (all folded into one batch). The routed
//! tensors (`dy`, `g`) may carry more leading axes than `x` (the seeds of a vectorised
//! Jacobian): the same maxima serve each of their slices.
use rayon::prelude::*;

use super::conv::{window_axis, Padding};
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::kernel::may_split;
use crate::ops::{shape_of, Shape};
use crate::tape::{mixes_input, record_batched};
use crate::tensor::{unsupported, Tensor, Values};

/// Image elements from which the images of a call are pooled on rayon's threads.
const PARALLEL_ELEMENTS: usize = 1 << 16;

/// A pooling window over `[h, w, c]` images giving `[oh, ow, c]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window {
    h: usize,
    w: usize,
    c: usize,
    kh: usize,
    kw: usize,
    sh: usize,
    sw: usize,
    oh: usize,
    ow: usize,
    pt: usize,
    pl: usize,
}

impl Window {
    fn new(
        op: &str,
        input: &[usize],
        ksize: [usize; 2],
        strides: [usize; 2],
        padding: &Padding,
    ) -> Result<Window> {
        if input.len() < 4 {
            return Err(Error::shape(
                op,
                format!(
                    "the input must have rank at least 4 (batch_shape + [height, width, \
                     channels]), got shape {}",
                    fmt_shape(input)
                ),
            ));
        }
        if ksize.contains(&0) || strides.contains(&0) {
            return Err(Error::value(
                op,
                format!("ksize {ksize:?} and strides {strides:?} must be at least 1"),
            ));
        }
        if let Padding::Explicit(_) = padding {
            return Err(Error::value(
                op,
                "pooling takes padding 'SAME' or 'VALID', not explicit pairs",
            ));
        }
        let r = input.len();
        let (h, w, c) = (input[r - 3], input[r - 2], input[r - 1]);
        let y = window_axis(op, h, ksize[0], strides[0], 1, padding, 0)?;
        let x = window_axis(op, w, ksize[1], strides[1], 1, padding, 1)?;
        Ok(Window {
            h,
            w,
            c,
            kh: ksize[0],
            kw: ksize[1],
            sh: strides[0],
            sw: strides[1],
            oh: y.out,
            ow: x.out,
            pt: y.before,
            pl: x.before,
        })
    }
    fn image_len(&self) -> usize {
        self.h * self.w * self.c
    }
    fn out_len(&self) -> usize {
        self.oh * self.ow * self.c
    }
    /// The input rows (and columns) of output position `(oy, ox)`'s window, clipped to the image.
    fn rows(&self, oy: usize) -> std::ops::Range<usize> {
        let start = oy * self.sh;
        start.saturating_sub(self.pt).min(self.h)
            ..(start + self.kh).saturating_sub(self.pt).min(self.h)
    }
    fn cols(&self, ox: usize) -> std::ops::Range<usize> {
        let start = ox * self.sw;
        start.saturating_sub(self.pl).min(self.w)
            ..(start + self.kw).saturating_sub(self.pl).min(self.w)
    }
    /// The output shape for an input of shape `input` (its leading axes kept).
    fn out_shape(&self, input: &[usize]) -> Shape {
        let mut s: Shape = input[..input.len() - 3].iter().copied().collect();
        s.extend([self.oh, self.ow, self.c]);
        s
    }
    fn in_shape(&self, lead: &[usize]) -> Shape {
        let mut s: Shape = lead.iter().copied().collect();
        s.extend([self.h, self.w, self.c]);
        s
    }
}

/// Runs `per_image(image_index, out_image)` over `out` in blocks of `out_len`, on rayon's
/// threads when the images are large enough together.
fn per_image<T: Send>(
    out: &mut [T],
    out_len: usize,
    work: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    if out_len == 0 {
        return;
    }
    if work >= PARALLEL_ELEMENTS && may_split() {
        out.par_chunks_mut(out_len)
            .enumerate()
            .for_each(|(i, o)| f(i, o));
    } else {
        out.chunks_mut(out_len)
            .enumerate()
            .for_each(|(i, o)| f(i, o));
    }
}

/// The flat index (in the image) of the first maximum of every window, `[oh, ow, c]` per image.
fn argmax_image<T: Float>(win: &Window, x: &[T], out: &mut [usize]) {
    let c = win.c;
    let mut best = vec![T::zero(); c];
    for oy in 0..win.oh {
        for ox in 0..win.ow {
            let at = &mut out[(oy * win.ow + ox) * c..][..c];
            let mut first = true;
            for iy in win.rows(oy) {
                for ix in win.cols(ox) {
                    let base = (iy * win.w + ix) * c;
                    let row = &x[base..base + c];
                    for ch in 0..c {
                        // Strictly greater: ties keep the first position. A NaN wins (it propagates).
                        if first || row[ch] > best[ch] || row[ch].is_nan() && !best[ch].is_nan() {
                            best[ch] = row[ch];
                            at[ch] = base + ch;
                        }
                    }
                    first = false;
                }
            }
        }
    }
}

/// The window maxima of `x`'s images as flat indices into `x`.
fn argmax<T: Float>(win: &Window, x: &[T]) -> Vec<usize> {
    let images = x.len().checked_div(win.image_len()).unwrap_or(0);
    let mut out = vec![0usize; images * win.out_len()];
    per_image(&mut out, win.out_len(), x.len(), |i, o| {
        argmax_image(win, &x[i * win.image_len()..(i + 1) * win.image_len()], o);
        o.iter_mut().for_each(|k| *k += i * win.image_len());
    });
    out
}

fn max_pool_kernel<T: Float>(win: &Window, x: &[T], out_shape: &[usize]) -> Values<T> {
    let at = argmax(win, x);
    Values::from_vec(out_shape, at.iter().map(|&k| x[k]).collect())
}

/// `g` (`[extra..., x's shape]`) read at the maxima: `[extra..., pooled shape]`.
fn gather_kernel<T: Float>(at: &[usize], x_len: usize, g: &[T], out_shape: &[usize]) -> Values<T> {
    let mut out = Vec::with_capacity(out_shape.iter().product());
    if x_len > 0 {
        for slice in g.chunks_exact(x_len) {
            out.extend(at.iter().map(|&k| slice[k]));
        }
    }
    Values::from_vec(out_shape, out)
}

/// `dy` (`[extra..., pooled shape]`) added at the maxima into zeros of `[extra..., x's shape]`.
fn scatter_kernel<T: Float>(
    win: &Window,
    at: &[usize],
    x_len: usize,
    dy: &[T],
    out_shape: &[usize],
) -> Values<T> {
    let mut out = vec![T::zero(); out_shape.iter().product()];
    let (image, pooled) = (win.image_len(), win.out_len());
    if x_len > 0 && image > 0 {
        let images = x_len / image;
        // Image `i` of every slice: its maxima lie in its own image.
        let work = out.len();
        per_image(&mut out, image, work, |j, dst| {
            let (s, i) = (j / images, j % images);
            let src = &dy[(s * images + i) * pooled..][..pooled];
            for (&k, &v) in at[i * pooled..(i + 1) * pooled].iter().zip(src) {
                let d = &mut dst[k - i * image];
                *d = *d + v;
            }
        });
    }
    Values::from_vec(out_shape, out)
}

/// The leading axes `t` carries beyond `core` (a shape it must end with).
fn extra_axes<'a>(op: &str, what: &str, t: &'a [usize], core: &[usize]) -> Result<&'a [usize]> {
    if t.len() < core.len() || t[t.len() - core.len()..] != *core {
        return Err(Error::shape(
            op,
            format!(
                "{what} of shape {} does not end with {}",
                fmt_shape(t),
                fmt_shape(core)
            ),
        ));
    }
    Ok(&t[..t.len() - core.len()])
}

/// Row mixing of input `k` (shape `s`) for an output of shape `out` (see `tape::mixes_input`).
fn rows(k: usize, s: &[usize], out: &[usize]) -> u8 {
    if s.len() == out.len() && s.first() == out.first() {
        0
    } else {
        mixes_input(k)
    }
}

fn check_float(op: &str, a: &Tensor, b: Option<&Tensor>) -> Result<()> {
    if !a.dtype().is_float() {
        return Err(unsupported(op, a.dtype(), "a floating"));
    }
    match b {
        Some(b) if b.dtype() != a.dtype() => Err(crate::tensor::mismatch(op, a.dtype(), b.dtype())),
        _ => Ok(()),
    }
}

/// `tf.nn.max_pool2d`: the maximum of each `ksize` window of `input` (`batch_shape + [h, w, c]`),
/// moved by `strides`, with 'SAME' or 'VALID' padding.
pub fn max_pool2d(
    input: &Tensor,
    ksize: [usize; 2],
    strides: [usize; 2],
    padding: &Padding,
) -> Result<Tensor> {
    let op = "max_pool2d";
    check_float(op, input, None)?;
    let win = Window::new(op, input.shape(), ksize, strides, padding)?;
    let out_shape = win.out_shape(input.shape());
    let y = Tensor::new(crate::dispatch!(values float input.data(), op, |x| {
        max_pool_kernel(&win, x.as_slice(), &out_shape)
    }));
    let mixes = rows(0, input.shape(), y.shape());
    record_batched(
        op,
        &[input],
        &y,
        &[input],
        mixes,
        true,
        move |s, dy, _batch| Ok(crate::grads![Some(max_pool_scatter(&s[0], dy, win)?)]),
    );
    Ok(y)
}

/// The gradient of max pooling: `dy` added at the window maxima of `x`.
fn max_pool_scatter(x: &Tensor, dy: &Tensor, win: Window) -> Result<Tensor> {
    let op = "max_pool2d_grad";
    check_float(op, x, Some(dy))?;
    let pooled = win.out_shape(x.shape());
    let extra = extra_axes(op, "the output gradient", dy.shape(), &pooled)?;
    let mut out_shape: Shape = extra.iter().copied().collect();
    out_shape.extend_from_slice(x.shape());
    let dx = Tensor::new(crate::dispatch2!(float x.data(), dy.data(), op, |xv, dv| {
        let at = argmax(&win, xv.as_slice());
        scatter_kernel(&win, &at, xv.len(), dv.as_slice(), &out_shape)
    }));
    let mixes = rows(0, x.shape(), dx.shape()) | rows(1, dy.shape(), dx.shape());
    record_batched(op, &[x, dy], &dx, &[x], mixes, true, move |s, g, _batch| {
        Ok(crate::grads![None, Some(max_pool_gather(&s[0], g, win)?)])
    });
    Ok(dx)
}

/// The gradient's gradient of max pooling: `g` read at the window maxima of `x`.
fn max_pool_gather(x: &Tensor, g: &Tensor, win: Window) -> Result<Tensor> {
    let op = "max_pool2d_grad_grad";
    check_float(op, x, Some(g))?;
    let extra = extra_axes(op, "the gradient", g.shape(), x.shape())?;
    let mut out_shape: Shape = extra.iter().copied().collect();
    out_shape.extend(win.out_shape(x.shape()));
    let y = Tensor::new(crate::dispatch2!(float x.data(), g.data(), op, |xv, gv| {
        let at = argmax(&win, xv.as_slice());
        gather_kernel(&at, xv.len(), gv.as_slice(), &out_shape)
    }));
    let mixes = rows(0, x.shape(), y.shape()) | rows(1, g.shape(), y.shape());
    record_batched(op, &[x, g], &y, &[x], mixes, true, move |s, dy, _batch| {
        Ok(crate::grads![None, Some(max_pool_scatter(&s[0], dy, win)?)])
    });
    Ok(y)
}

/// The number of window positions inside the image for each output position `[oh, ow]`.
fn window_counts(win: &Window) -> Vec<usize> {
    let mut counts = Vec::with_capacity(win.oh * win.ow);
    for oy in 0..win.oh {
        for ox in 0..win.ow {
            counts.push(win.rows(oy).len() * win.cols(ox).len());
        }
    }
    counts
}

fn avg_pool_kernel<T: Float>(win: &Window, x: &[T], out_shape: &[usize]) -> Values<T> {
    let counts = window_counts(win);
    let c = win.c;
    let mut out = vec![T::zero(); out_shape.iter().product()];
    per_image(&mut out, win.out_len(), x.len(), |i, dst| {
        let image = &x[i * win.image_len()..(i + 1) * win.image_len()];
        for oy in 0..win.oh {
            for ox in 0..win.ow {
                let d = &mut dst[(oy * win.ow + ox) * c..][..c];
                for iy in win.rows(oy) {
                    for ix in win.cols(ox) {
                        let row = &image[(iy * win.w + ix) * c..][..c];
                        d.iter_mut().zip(row).for_each(|(a, &v)| *a = *a + v);
                    }
                }
                let count = T::from(counts[oy * win.ow + ox]).unwrap_or_else(T::one);
                d.iter_mut().for_each(|a| *a = *a / count);
            }
        }
    });
    Values::from_vec(out_shape, out)
}

fn avg_pool_grad_kernel<T: Float>(win: &Window, dy: &[T], out_shape: &[usize]) -> Values<T> {
    let counts = window_counts(win);
    let c = win.c;
    let mut out = vec![T::zero(); out_shape.iter().product()];
    per_image(&mut out, win.image_len(), dy.len(), |i, dst| {
        let grad = &dy[i * win.out_len()..(i + 1) * win.out_len()];
        for oy in 0..win.oh {
            for ox in 0..win.ow {
                let count = T::from(counts[oy * win.ow + ox]).unwrap_or_else(T::one);
                let g = &grad[(oy * win.ow + ox) * c..][..c];
                for iy in win.rows(oy) {
                    for ix in win.cols(ox) {
                        let d = &mut dst[(iy * win.w + ix) * c..][..c];
                        d.iter_mut().zip(g).for_each(|(a, &v)| *a = *a + v / count);
                    }
                }
            }
        }
    });
    Values::from_vec(out_shape, out)
}

/// `tf.nn.avg_pool2d`: the mean of each `ksize` window of `input` (`batch_shape + [h, w, c]`),
/// over the positions inside the image ('SAME' padding is not counted).
pub fn avg_pool2d(
    input: &Tensor,
    ksize: [usize; 2],
    strides: [usize; 2],
    padding: &Padding,
) -> Result<Tensor> {
    let op = "avg_pool2d";
    check_float(op, input, None)?;
    let win = Window::new(op, input.shape(), ksize, strides, padding)?;
    avg_pool(input, win)
}

fn avg_pool(x: &Tensor, win: Window) -> Result<Tensor> {
    let op = "avg_pool2d";
    extra_axes(op, "the input", x.shape(), &[win.h, win.w, win.c])?;
    let out_shape = win.out_shape(x.shape());
    let y = Tensor::new(crate::dispatch!(values float x.data(), op, |v| {
        avg_pool_kernel(&win, v.as_slice(), &out_shape)
    }));
    let (sx, mixes) = (shape_of(x), rows(0, x.shape(), y.shape()));
    record_batched(op, &[x], &y, &[], mixes, true, move |_, dy, batch| {
        let lead: Shape = dy.shape()[..batch]
            .iter()
            .chain(&sx[..sx.len() - 3])
            .copied()
            .collect();
        Ok(crate::grads![Some(avg_pool_grad(dy, win, &lead)?)])
    });
    Ok(y)
}

/// The gradient of average pooling: `dy` (`lead + [oh, ow, c]`) spread over the windows.
fn avg_pool_grad(dy: &Tensor, win: Window, lead: &[usize]) -> Result<Tensor> {
    let op = "avg_pool2d_grad";
    let mut pooled: Shape = lead.iter().copied().collect();
    pooled.extend([win.oh, win.ow, win.c]);
    if dy.shape() != &pooled[..] {
        return Err(Error::shape(
            op,
            format!(
                "the output gradient has shape {}, expected {}",
                fmt_shape(dy.shape()),
                fmt_shape(&pooled)
            ),
        ));
    }
    let out_shape = win.in_shape(lead);
    let dx = Tensor::new(crate::dispatch!(values float dy.data(), op, |v| {
        avg_pool_grad_kernel(&win, v.as_slice(), &out_shape)
    }));
    let mixes = rows(0, dy.shape(), dx.shape());
    record_batched(op, &[dy], &dx, &[], mixes, true, move |_, g, _batch| {
        Ok(crate::grads![Some(avg_pool(g, win)?)])
    });
    Ok(dx)
}

/// A 1-D pooling (`batch_shape + [w, c]`) as the 2-D one of height 1.
fn pool1d(
    op: &str,
    pool: fn(&Tensor, [usize; 2], [usize; 2], &Padding) -> Result<Tensor>,
    input: &Tensor,
    ksize: usize,
    stride: usize,
    padding: &Padding,
) -> Result<Tensor> {
    let s = input.shape();
    if s.len() < 3 {
        return Err(Error::shape(
            op,
            format!(
                "the input must have rank at least 3 (batch_shape + [width, channels]), got shape {}",
                fmt_shape(s)
            ),
        ));
    }
    let mut dims: Vec<isize> = s.iter().map(|&d| d as isize).collect();
    dims.insert(s.len() - 2, 1);
    let y = pool(
        &super::reshape(input, &dims)?,
        [1, ksize],
        [1, stride],
        padding,
    )
    .map_err(|mut e| {
        e.op = op.to_string();
        e
    })?;
    let mut out: Vec<isize> = y.shape().iter().map(|&d| d as isize).collect();
    out.remove(out.len() - 3);
    super::reshape(&y, &out)
}

/// `tf.nn.max_pool1d`: the maximum of each `ksize` window along the width of `input`
/// (`batch_shape + [w, c]`).
pub fn max_pool1d(
    input: &Tensor,
    ksize: usize,
    stride: usize,
    padding: &Padding,
) -> Result<Tensor> {
    pool1d("max_pool1d", max_pool2d, input, ksize, stride, padding)
}

/// `tf.nn.avg_pool1d`: the mean of each `ksize` window along the width of `input`
/// (`batch_shape + [w, c]`), padding not counted.
pub fn avg_pool1d(
    input: &Tensor,
    ksize: usize,
    stride: usize,
    padding: &Padding,
) -> Result<Tensor> {
    pool1d("avg_pool1d", avg_pool2d, input, ksize, stride, padding)
}
