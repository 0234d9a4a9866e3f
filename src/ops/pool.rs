//! Pooling on NHWC images and NDHWC volumes, with TensorFlow's arguments: `max_pool2d`,
//! `avg_pool2d`, `max_pool3d`, `avg_pool3d` (and the 1-D ones as 2-D of height 1). A 2-D
//! window is a 3-D one of depth 1, so one set of kernels serves both.
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
use super::conv::{window_axis, Padding};
use crate::dtype::Float;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::kernel::worth_splitting;
use crate::ops::parallel::for_each_task;
use crate::ops::{shape_of, Shape};
use crate::tape::{any_tape_active, mixes_input, record_batched};
use crate::tensor::{unsupported, Tensor, Values};

/// Image elements from which the images of a call are pooled on several threads.
const PARALLEL_ELEMENTS: usize = 1 << 16;

/// The images of a parallel call are cut into this many tasks (or one image each), so that two
/// threads share them evenly even when one starts late.
const TASKS: usize = 16;

/// A pooling window over `[(d,) h, w, c]` images giving `[(od,) oh, ow, c]` (`rank` spatial
/// axes; a 2-D window has `d = kd = od = 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window {
    rank: usize,
    d: usize,
    kd: usize,
    sd: usize,
    od: usize,
    pf: usize,
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
    /// The window of `ksize` moved by `strides` (one entry per spatial axis: 2 or 3).
    fn new(
        op: &str,
        input: &[usize],
        ksize: &[usize],
        strides: &[usize],
        padding: &Padding,
    ) -> Result<Window> {
        let rank = ksize.len();
        if input.len() < rank + 2 {
            let layout = if rank == 3 {
                "batch_shape + [depth, height, width, channels]"
            } else {
                "batch_shape + [height, width, channels]"
            };
            return Err(Error::shape(
                op,
                format!(
                    "the input must have rank at least {} ({layout}), got shape {}",
                    rank + 2,
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
        let (d, h, w, c) = if rank == 3 {
            (input[r - 4], input[r - 3], input[r - 2], input[r - 1])
        } else {
            (1, input[r - 3], input[r - 2], input[r - 1])
        };
        if d.saturating_mul(h).saturating_mul(w) > u32::MAX as usize {
            // The maxima are kept as 32-bit pixel positions within an image.
            return Err(Error::value(
                op,
                format!("an image of {d}x{h}x{w} pixels is too large (at most 2^32)"),
            ));
        }
        let axes = (0..rank)
            .map(|i| {
                window_axis(
                    op,
                    input[r - 1 - rank + i],
                    ksize[i],
                    strides[i],
                    1,
                    padding,
                    i,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let at = |i: usize| rank - 2 + i; // the height (0) and width (1) entries
        let (kd, sd, z) = if rank == 3 {
            (ksize[0], strides[0], axes[0])
        } else {
            (1, 1, super::conv::Axis { out: 1, before: 0 })
        };
        let (y, x) = (axes[at(0)], axes[at(1)]);
        Ok(Window {
            rank,
            d,
            kd,
            sd,
            od: z.out,
            pf: z.before,
            h,
            w,
            c,
            kh: ksize[at(0)],
            kw: ksize[at(1)],
            sh: strides[at(0)],
            sw: strides[at(1)],
            oh: y.out,
            ow: x.out,
            pt: y.before,
            pl: x.before,
        })
    }
    fn image_len(&self) -> usize {
        self.d * self.h * self.w * self.c
    }
    fn out_len(&self) -> usize {
        self.od * self.oh * self.ow * self.c
    }
    /// The input planes of output plane `oz`'s window, clipped to the volume.
    fn planes(&self, oz: usize) -> std::ops::Range<usize> {
        let start = oz * self.sd;
        start.saturating_sub(self.pf).min(self.d)
            ..(start + self.kd).saturating_sub(self.pf).min(self.d)
    }
    /// Every output position `(oz, oy, ox)` in row-major order, with its flat index.
    fn outputs(&self) -> impl Iterator<Item = (usize, [usize; 3])> + '_ {
        (0..self.od)
            .flat_map(move |z| (0..self.oh).flat_map(move |y| (0..self.ow).map(move |x| [z, y, x])))
            .enumerate()
    }
    /// The input pixels (`(iz * h + iy) * w + ix`) of an output position's window, row-major.
    fn window(&self, [oz, oy, ox]: [usize; 3]) -> impl DoubleEndedIterator<Item = usize> + '_ {
        let (rows, cols) = (self.rows(oy), self.cols(ox));
        self.planes(oz).flat_map(move |iz| {
            let cols = cols.clone();
            rows.clone()
                .flat_map(move |iy| cols.clone().map(move |ix| (iz * self.h + iy) * self.w + ix))
        })
    }
    /// The number of input pixels in an output position's window.
    fn window_count(&self, [oz, oy, ox]: [usize; 3]) -> usize {
        self.planes(oz).len() * self.rows(oy).len() * self.cols(ox).len()
    }
    /// The spatial sizes as the op's shapes spell them (no depth in 2-D).
    fn spatial(&self, dhw: [usize; 3]) -> Shape {
        dhw[3 - self.rank..].iter().copied().collect()
    }
    /// The op names: the pooling, its gradient and the gradient's gradient.
    fn names(&self, max: bool) -> [&'static str; 3] {
        match (max, self.rank) {
            (true, 3) => ["max_pool3d", "max_pool3d_grad", "max_pool3d_grad_grad"],
            (true, _) => ["max_pool2d", "max_pool2d_grad", "max_pool2d_grad_grad"],
            (false, 3) => ["avg_pool3d", "avg_pool3d_grad", "avg_pool3d_grad"],
            (false, _) => ["avg_pool2d", "avg_pool2d_grad", "avg_pool2d_grad"],
        }
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
        let mut s: Shape = input[..input.len() - self.rank - 1]
            .iter()
            .copied()
            .collect();
        s.extend(self.out_core());
        s
    }
    fn in_shape(&self, lead: &[usize]) -> Shape {
        let mut s: Shape = lead.iter().copied().collect();
        s.extend(self.in_core());
        s
    }
    /// An image's shape (without its batch).
    fn in_core(&self) -> Shape {
        let mut s = self.spatial([self.d, self.h, self.w]);
        s.push(self.c);
        s
    }
    /// A pooled image's shape (without its batch).
    fn out_core(&self) -> Shape {
        let mut s = self.spatial([self.od, self.oh, self.ow]);
        s.push(self.c);
        s
    }
}

/// A mutable slice shared by the tasks of a call, each writing its own part.
struct Shared<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: each task takes disjoint ranges (see `range`), and `T: Send` lets them move there.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    fn new(slice: &mut [T]) -> Shared<T> {
        Shared {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
        }
    }
    /// Elements `[start, end)`.
    ///
    /// # Safety
    /// No other live borrow overlaps the range; the slice outlives the result.
    #[allow(clippy::mut_from_ref)]
    unsafe fn range(&self, start: usize, end: usize) -> &mut [T] {
        assert!(start <= end && end <= self.len);
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), end - start) }
    }
}

/// Runs `f(images)` over the ranges of `count` images, several images per task on the engine's
/// fork-join (the calling thread takes part) when `work` elements are worth it, else in one go.
fn for_images(count: usize, work: usize, f: impl Fn(std::ops::Range<usize>) + Sync) {
    if count > 1 && worth_splitting(work, PARALLEL_ELEMENTS) {
        let per = count.div_ceil(TASKS);
        for_each_task(count.div_ceil(per), &|t| {
            f(t * per..((t + 1) * per).min(count));
        });
    } else {
        f(0..count);
    }
}

/// Runs `per_image(image_index, out_image)` over `out` in blocks of `out_len`, on several
/// threads when `work` elements are worth it.
fn per_image<T: Send>(
    out: &mut [T],
    out_len: usize,
    work: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    if out_len == 0 {
        return;
    }
    let shared = Shared::new(out);
    for_images(shared.len / out_len, work, |images| {
        for i in images {
            // SAFETY: image `i`'s block, this task's alone.
            f(i, unsafe { shared.range(i * out_len, (i + 1) * out_len) });
        }
    });
}

/// The window maxima of every image of `x` (`[oh, ow, c]` per image) and, with `at`, where they
/// are: the pixel (`iy * w + ix`) of the first maximum in row-major window order, as TensorFlow's
/// CPU kernel picks on ties (the element is `pixel * c + channel`). A NaN wins (it propagates;
/// the first NaN is its position).
///
/// Two passes over each window, maxima then positions (the positions in reverse, so the first
/// match is the last written): each is a branch-free select over a row of channels that
/// vectorises, where one fused pass selecting a value and an index together does not.
///
/// Not inlined: as a function of its own its slices are known not to alias (they come from
/// raw pointers in the caller), which the position pass needs to vectorise (inlined into the
/// task, it ran up to ten times slower in some builds).
#[inline(never)]
fn max_image<T: Float>(win: &Window, x: &[T], y: &mut [T], mut at: Option<&mut [u32]>) {
    let c = win.c;
    for (k, pos) in win.outputs() {
        let o = k * c;
        let best = &mut y[o..o + c];
        let mut first = true;
        for pixel in win.window(pos) {
            let row = &x[pixel * c..(pixel + 1) * c];
            if first {
                best.copy_from_slice(row);
                first = false;
                continue;
            }
            for (b, &v) in best.iter_mut().zip(row) {
                *b = if (v > *b) | v.is_nan() { v } else { *b };
            }
        }
        let Some(at) = at.as_deref_mut() else {
            continue;
        };
        let at = &mut at[o..o + c];
        for pixel in win.window(pos).rev() {
            let row = &x[pixel * c..(pixel + 1) * c];
            let p = pixel as u32;
            for ((a, &b), &v) in at.iter_mut().zip(best.iter()).zip(row) {
                *a = if (v == b) | v.is_nan() { p } else { *a };
            }
        }
    }
}

/// Where the window maxima of `x`'s images are (pixels, see [`max_image`]),
/// `[images, oh, ow, c]`.
type Maxima = std::sync::Arc<Vec<u32>>;

/// Max pooling of every image, with the maxima's positions when `locate`.
fn max_pool_kernel<T: Float>(
    win: &Window,
    x: &[T],
    out_shape: &[usize],
    locate: bool,
) -> (Values<T>, Option<Maxima>) {
    let (image, pooled) = (win.image_len(), win.out_len());
    let images = x.len().checked_div(image).unwrap_or(0);
    let total = images * pooled;
    let mut y: Vec<T> = Vec::with_capacity(total);
    let mut at: Vec<u32> = Vec::with_capacity(if locate { total } else { 0 });
    if total > 0 {
        // Each task zeroes its own blocks (on both threads, warm for the pass that follows).
        let ys = Shared::new(&mut y.spare_capacity_mut()[..total]);
        let ats = Shared::new(&mut at.spare_capacity_mut()[..if locate { total } else { 0 }]);
        for_images(images, x.len(), |range| {
            for i in range {
                let (start, end) = (i * pooled, (i + 1) * pooled);
                // SAFETY: image `i`'s blocks of `y` and `at`, this task's alone.
                let (y, at) = unsafe {
                    (
                        zeroed(ys.range(start, end)),
                        locate.then(|| zeroed_u32(ats.range(start, end))),
                    )
                };
                max_image(win, &x[i * image..(i + 1) * image], y, at);
            }
        });
    }
    // SAFETY: the tasks zeroed every block (all `images` of them) before writing it.
    unsafe {
        y.set_len(total);
        if locate {
            at.set_len(total);
        }
    }
    (
        Values::from_vec(out_shape, y),
        locate.then(|| Maxima::new(at)),
    )
}

/// `dst` filled with zeros.
fn zeroed_u32(dst: &mut [std::mem::MaybeUninit<u32>]) -> &mut [u32] {
    for d in dst.iter_mut() {
        d.write(0);
    }
    // SAFETY: every element was just written; `MaybeUninit<u32>` has `u32`'s layout.
    unsafe { &mut *(dst as *mut [std::mem::MaybeUninit<u32>] as *mut [u32]) }
}

/// The maxima of `x` (found again when the forward pass did not keep them).
fn maxima(win: &Window, x: &Tensor, known: &Option<Maxima>) -> Result<Maxima> {
    if let Some(at) = known {
        return Ok(at.clone());
    }
    let shape = win.out_shape(x.shape());
    Ok(match x.data() {
        crate::tensor::Data::F32(v) => max_pool_kernel(win, v.as_slice(), &shape, true).1,
        crate::tensor::Data::F64(v) => max_pool_kernel(win, v.as_slice(), &shape, true).1,
        other => return Err(unsupported(win.names(true)[1], other.dtype(), "a floating")),
    }
    .unwrap_or_default())
}

/// `g` (`[extra..., x's shape]`) read at the maxima: `[extra..., pooled shape]`.
fn gather_kernel<T: Float>(win: &Window, at: &[u32], g: &[T], out_shape: &[usize]) -> Values<T> {
    let (image, pooled) = (win.image_len(), win.out_len());
    let mut out = vec![T::zero(); out_shape.iter().product()];
    let images = at.len().checked_div(pooled).unwrap_or(0);
    if pooled > 0 && images > 0 {
        let work = out.len();
        let c = win.c;
        per_image(&mut out, pooled, work, |j, dst| {
            let i = j % images;
            let src = &g[j * image..(j + 1) * image];
            let at = &at[i * pooled..(i + 1) * pooled];
            for (d, a) in dst.chunks_exact_mut(c).zip(at.chunks_exact(c)) {
                for (ch, (d, &pixel)) in d.iter_mut().zip(a).enumerate() {
                    *d = src[pixel as usize * c + ch];
                }
            }
        });
    }
    Values::from_vec(out_shape, out)
}

/// `dy` (`[extra..., pooled shape]`) added at the maxima into zeros of `[extra..., x's shape]`.
fn scatter_kernel<T: Float>(win: &Window, at: &[u32], dy: &[T], out_shape: &[usize]) -> Values<T> {
    let (image, pooled) = (win.image_len(), win.out_len());
    let total: usize = out_shape.iter().product();
    let images = at.len().checked_div(pooled).unwrap_or(0);
    if image == 0 || images == 0 {
        return Values::from_vec(out_shape, vec![T::zero(); total]);
    }
    let mut out: Vec<T> = Vec::with_capacity(total);
    let c = win.c;
    // Image `i` of every slice: its maxima lie in its own image. Each task zeroes its images
    // itself (warm in its cache for the scatter, and on both threads).
    per_image(
        &mut out.spare_capacity_mut()[..total],
        image,
        total,
        |j, dst| {
            let dst = zeroed(dst);
            let i = j % images;
            let src = &dy[j * pooled..(j + 1) * pooled];
            let at = &at[i * pooled..(i + 1) * pooled];
            for (s, a) in src.chunks_exact(c).zip(at.chunks_exact(c)) {
                for (ch, (&v, &pixel)) in s.iter().zip(a).enumerate() {
                    let d = &mut dst[pixel as usize * c + ch];
                    *d = *d + v;
                }
            }
        },
    );
    // SAFETY: `per_image` ran over every image block of the `total` elements, each zeroed.
    unsafe { out.set_len(total) };
    Values::from_vec(out_shape, out)
}

/// `dst` filled with zeros.
fn zeroed<T: Float>(dst: &mut [std::mem::MaybeUninit<T>]) -> &mut [T] {
    for d in dst.iter_mut() {
        d.write(T::zero());
    }
    // SAFETY: every element was just written; `MaybeUninit<T>` has `T`'s layout.
    unsafe { &mut *(dst as *mut [std::mem::MaybeUninit<T>] as *mut [T]) }
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
    max_pool("max_pool2d", input, &ksize, &strides, padding)
}

/// `tf.nn.max_pool3d`: the maximum of each `ksize` window of `input`
/// (`batch_shape + [d, h, w, c]`), moved by `strides`, with 'SAME' or 'VALID' padding.
pub fn max_pool3d(
    input: &Tensor,
    ksize: [usize; 3],
    strides: [usize; 3],
    padding: &Padding,
) -> Result<Tensor> {
    max_pool("max_pool3d", input, &ksize, &strides, padding)
}

/// Max pooling over `ksize.len()` spatial axes.
fn max_pool(
    op: &'static str,
    input: &Tensor,
    ksize: &[usize],
    strides: &[usize],
    padding: &Padding,
) -> Result<Tensor> {
    check_float(op, input, None)?;
    let win = Window::new(op, input.shape(), ksize, strides, padding)?;
    let out_shape = win.out_shape(input.shape());
    // Where the maxima are, kept for the gradient when a tape may record this op.
    let locate = any_tape_active();
    let (y, at) = match input.data() {
        crate::tensor::Data::F32(v) => {
            let (y, at) = max_pool_kernel(&win, v.as_slice(), &out_shape, locate);
            (Tensor::new(y.into()), at)
        }
        crate::tensor::Data::F64(v) => {
            let (y, at) = max_pool_kernel(&win, v.as_slice(), &out_shape, locate);
            (Tensor::new(y.into()), at)
        }
        other => return Err(unsupported(op, other.dtype(), "a floating")),
    };
    let mixes = rows(0, input.shape(), y.shape());
    record_batched(
        op,
        &[input],
        &y,
        &[input],
        mixes,
        true,
        move |s, dy, _batch| Ok(crate::grads![Some(max_pool_scatter(&s[0], dy, win, &at)?)]),
    );
    Ok(y)
}

/// The gradient of max pooling: `dy` added at the window maxima of `x` (`at`, when known).
fn max_pool_scatter(x: &Tensor, dy: &Tensor, win: Window, at: &Option<Maxima>) -> Result<Tensor> {
    let op = win.names(true)[1];
    check_float(op, x, Some(dy))?;
    let pooled = win.out_shape(x.shape());
    let extra = extra_axes(op, "the output gradient", dy.shape(), &pooled)?;
    let mut out_shape: Shape = extra.iter().copied().collect();
    out_shape.extend_from_slice(x.shape());
    let at = maxima(&win, x, at)?;
    let dx = Tensor::new(crate::dispatch!(values float dy.data(), op, |dv| {
        scatter_kernel(&win, &at, dv.as_slice(), &out_shape)
    }));
    let mixes = rows(0, x.shape(), dx.shape()) | rows(1, dy.shape(), dx.shape());
    let at = Some(at);
    record_batched(op, &[x, dy], &dx, &[x], mixes, true, move |s, g, _batch| {
        Ok(crate::grads![
            None,
            Some(max_pool_gather(&s[0], g, win, &at)?)
        ])
    });
    Ok(dx)
}

/// The gradient's gradient of max pooling: `g` read at the window maxima of `x`.
fn max_pool_gather(x: &Tensor, g: &Tensor, win: Window, at: &Option<Maxima>) -> Result<Tensor> {
    let op = win.names(true)[2];
    check_float(op, x, Some(g))?;
    let extra = extra_axes(op, "the gradient", g.shape(), x.shape())?;
    let mut out_shape: Shape = extra.iter().copied().collect();
    out_shape.extend(win.out_shape(x.shape()));
    let at = maxima(&win, x, at)?;
    let y = Tensor::new(crate::dispatch!(values float g.data(), op, |gv| {
        gather_kernel(&win, &at, gv.as_slice(), &out_shape)
    }));
    let mixes = rows(0, x.shape(), y.shape()) | rows(1, g.shape(), y.shape());
    let at = Some(at);
    record_batched(op, &[x, g], &y, &[x], mixes, true, move |s, dy, _batch| {
        Ok(crate::grads![
            None,
            Some(max_pool_scatter(&s[0], dy, win, &at)?)
        ])
    });
    Ok(y)
}

/// The number of window positions inside the image for each output position.
fn window_counts(win: &Window) -> Vec<usize> {
    win.outputs()
        .map(|(_, pos)| win.window_count(pos))
        .collect()
}

fn avg_pool_kernel<T: Float>(win: &Window, x: &[T], out_shape: &[usize]) -> Values<T> {
    let counts = window_counts(win);
    let c = win.c;
    let mut out = vec![T::zero(); out_shape.iter().product()];
    per_image(&mut out, win.out_len(), x.len(), |i, dst| {
        let image = &x[i * win.image_len()..(i + 1) * win.image_len()];
        for (k, pos) in win.outputs() {
            let d = &mut dst[k * c..][..c];
            for pixel in win.window(pos) {
                let row = &image[pixel * c..][..c];
                d.iter_mut().zip(row).for_each(|(a, &v)| *a = *a + v);
            }
            let count = T::from(counts[k]).unwrap_or_else(T::one);
            d.iter_mut().for_each(|a| *a = *a / count);
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
        for (k, pos) in win.outputs() {
            let count = T::from(counts[k]).unwrap_or_else(T::one);
            let g = &grad[k * c..][..c];
            for pixel in win.window(pos) {
                let d = &mut dst[pixel * c..][..c];
                d.iter_mut().zip(g).for_each(|(a, &v)| *a = *a + v / count);
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
    let win = Window::new(op, input.shape(), &ksize, &strides, padding)?;
    avg_pool(input, win)
}

/// `tf.nn.avg_pool3d`: the mean of each `ksize` window of `input`
/// (`batch_shape + [d, h, w, c]`), over the positions inside the volume ('SAME' padding is not
/// counted).
pub fn avg_pool3d(
    input: &Tensor,
    ksize: [usize; 3],
    strides: [usize; 3],
    padding: &Padding,
) -> Result<Tensor> {
    let op = "avg_pool3d";
    check_float(op, input, None)?;
    let win = Window::new(op, input.shape(), &ksize, &strides, padding)?;
    avg_pool(input, win)
}

fn avg_pool(x: &Tensor, win: Window) -> Result<Tensor> {
    let op = win.names(false)[0];
    extra_axes(op, "the input", x.shape(), &win.in_core())?;
    let out_shape = win.out_shape(x.shape());
    let y = Tensor::new(crate::dispatch!(values float x.data(), op, |v| {
        avg_pool_kernel(&win, v.as_slice(), &out_shape)
    }));
    let (sx, mixes) = (shape_of(x), rows(0, x.shape(), y.shape()));
    record_batched(op, &[x], &y, &[], mixes, true, move |_, dy, batch| {
        let lead: Shape = dy.shape()[..batch]
            .iter()
            .chain(&sx[..sx.len() - win.rank - 1])
            .copied()
            .collect();
        Ok(crate::grads![Some(avg_pool_grad(dy, win, &lead)?)])
    });
    Ok(y)
}

/// The gradient of average pooling: `dy` (`lead + [oh, ow, c]`) spread over the windows.
fn avg_pool_grad(dy: &Tensor, win: Window, lead: &[usize]) -> Result<Tensor> {
    let op = win.names(false)[1];
    let mut pooled: Shape = lead.iter().copied().collect();
    pooled.extend(win.out_core());
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
