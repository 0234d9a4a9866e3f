//! The convolution kernels, for one slice of images `[n, d, h, w, c]` and one filter
//! `[kd, kh, kw, cg, o]` (`cg = c / groups`; a 2-D convolution has `d = kd = 1`): im2col into a buffer per chunk of images, then one GEMM
//! per group on the `gemm` crate. Chunks run on rayon's threads.
//!
//! The chunks are sized from the shapes alone (never from the thread count), and the filter
//! gradient sums one partial per chunk in chunk order, so a result has the same bits on any
//! number of threads.
//!
//! Chunks run as tasks of the engine's fork-join (`ops::parallel`): the calling thread takes part
//! and a helper that wakes late just takes fewer chunks, where a rayon `par_iter` from the Python
//! thread waits for rayon's (often parked) workers. Each thread keeps its im2col buffer between
//! calls, so the chunks of a step reuse warm memory instead of fresh pages.
use std::cell::Cell;
use std::mem::MaybeUninit;

use super::Geometry;
use crate::dtype::Float;
use crate::ops::kernel::{may_split, worth_splitting};
use crate::ops::parallel::for_each_task;

/// im2col elements per chunk: a chunk's columns (f32: 512 KiB) stay in L2 while its GEMM runs.
const CHUNK_COLS: usize = 1 << 17;

/// The im2col of a chunk is built and multiplied in blocks of rows of at most this many elements
/// (and at least [`MIN_BLOCK_ROWS`] rows), so that a block stays in L2 while its GEMM reads it,
/// however large one image (a volume) is.
const BLOCK_COLS: usize = 1 << 17;

/// The fewest im2col rows of a block (a GEMM of fewer rows is slow).
const MIN_BLOCK_ROWS: usize = 64;

/// Multiply-adds from which the chunks of one call run in parallel (as matmul's threshold).
const PARALLEL_WORK: usize = 96 * 96 * 96;

/// A call of many images is cut into at least this many chunks (when they hold an image each),
/// so that two threads share it evenly even when one of them starts late.
const MIN_CHUNKS: usize = 16;

/// Filter-gradient elements (partials times filter) from which the partials are summed on
/// several threads (each thread a range of the filter, every element in chunk order).
const PARALLEL_SUM: usize = 1 << 16;

/// The float types the kernels run on: a GEMM through strides.
pub(crate) trait ConvFloat: Float {
    /// `dst[m x n] = lhs[m x k] @ rhs[k x n]` (`+=` when `accumulate`), each matrix given by its
    /// first element and (row, column) strides.
    ///
    /// # Safety
    /// Every pointer, moved by its strides over the given sizes, stays inside its allocation;
    /// `dst` is valid for writes and aliases neither operand.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        n: usize,
        k: usize,
        dst: (*mut Self, isize, isize),
        lhs: (*const Self, isize, isize),
        rhs: (*const Self, isize, isize),
        accumulate: bool,
        parallel: bool,
    );
}

macro_rules! conv_float {
    ($t:ty) => {
        impl ConvFloat for $t {
            unsafe fn gemm(
                m: usize,
                n: usize,
                k: usize,
                dst: (*mut $t, isize, isize),
                lhs: (*const $t, isize, isize),
                rhs: (*const $t, isize, isize),
                accumulate: bool,
                parallel: bool,
            ) {
                let parallelism = if parallel {
                    gemm::Parallelism::Rayon(0)
                } else {
                    gemm::Parallelism::None
                };
                // gemm's arguments: column stride before row stride; dst = a * dst + 1 * lhs @ rhs
                // (dst read only when accumulating, a = 1). With k = 0 it writes zeros.
                unsafe {
                    gemm::gemm(
                        m,
                        n,
                        k,
                        dst.0,
                        dst.2,
                        dst.1,
                        accumulate,
                        lhs.0,
                        lhs.2,
                        lhs.1,
                        rhs.0,
                        rhs.2,
                        rhs.1,
                        if accumulate { 1.0 } else { 0.0 },
                        1.0,
                        false,
                        false,
                        false,
                        parallelism,
                    )
                }
            }
        }
    };
}
conv_float!(f32);
conv_float!(f64);

impl Geometry {
    /// Input channels per group.
    fn cg(&self) -> usize {
        self.c / self.groups
    }
    /// Output channels per group.
    fn og(&self) -> usize {
        self.o / self.groups
    }
    /// im2col columns per output pixel (one group): `kd * kh * kw * cg`.
    fn patch(&self) -> usize {
        self.kd * self.kh * self.kw * self.cg()
    }
    pub(super) fn image_len(&self) -> usize {
        self.d * self.h * self.w * self.c
    }
    pub(super) fn out_image_len(&self) -> usize {
        self.od * self.oh * self.ow * self.o
    }
    fn pixels(&self) -> usize {
        self.od * self.oh * self.ow
    }
    /// A 1x1 window with stride 1 and no padding over one group: the image is its own im2col.
    fn pointwise(&self) -> bool {
        self.kd == 1
            && self.kh == 1
            && self.kw == 1
            && self.sd == 1
            && self.sh == 1
            && self.sw == 1
            && self.pf == 0
            && self.pt == 0
            && self.pl == 0
            && self.od == self.d
            && self.oh == self.h
            && self.ow == self.w
            && self.groups == 1
    }
    /// Images per chunk of a call of `n` images (at least one): its im2col fits
    /// [`CHUNK_COLS`], and there are [`MIN_CHUNKS`] chunks or more. From the shapes alone.
    fn chunk_images(&self, n: usize) -> usize {
        let fits = CHUNK_COLS / (self.pixels() * self.patch()).max(1);
        fits.min(n.div_ceil(MIN_CHUNKS)).max(1)
    }
    /// im2col rows per block of a chunk of `rows` rows (from the shapes alone).
    fn block_rows(&self, rows: usize) -> usize {
        (BLOCK_COLS / self.patch().max(1))
            .max(MIN_BLOCK_ROWS)
            .min(rows)
            .max(1)
    }
    /// The output position `(image, oz, oy, ox)` of im2col row `row`.
    #[inline]
    fn position(&self, row: usize) -> (usize, usize, usize, usize) {
        let (image, p) = (row / self.pixels(), row % self.pixels());
        let plane = self.oh * self.ow;
        (image, p / plane, (p % plane) / self.ow, p % self.ow)
    }
    /// Multiply-adds of a call of `n` images.
    fn work(&self, n: usize) -> usize {
        n * self.pixels() * self.patch() * self.og() * self.groups
    }
    /// Whether `n` images are worth splitting over the threads.
    fn parallel(&self, n: usize) -> bool {
        n > self.chunk_images(n) && worth_splitting(self.work(n), PARALLEL_WORK)
    }
    /// The input plane of output plane `oz`'s window plane `kz`, if inside the volume.
    #[inline]
    fn in_plane(&self, oz: usize, kz: usize) -> Option<usize> {
        (oz * self.sd + kz * self.dd)
            .checked_sub(self.pf)
            .filter(|&p| p < self.d)
    }
    /// The input row of output row `oy`'s window row `ky`, if inside the image.
    #[inline]
    fn in_row(&self, oy: usize, ky: usize) -> Option<usize> {
        (oy * self.sh + ky * self.dh)
            .checked_sub(self.pt)
            .filter(|&r| r < self.h)
    }
    #[inline]
    fn in_col(&self, ox: usize, kx: usize) -> Option<usize> {
        (ox * self.sw + kx * self.dw)
            .checked_sub(self.pl)
            .filter(|&c| c < self.w)
    }
}

impl Geometry {
    /// The input columns of output column `ox`'s window as one contiguous run of the image row
    /// (`kw * c` elements from column `ix0`), when the window lies inside the image, is not
    /// dilated and covers every channel (one group): im2col copies it at once.
    #[inline]
    fn contiguous_window(&self, ox: usize) -> Option<usize> {
        if self.groups != 1 || self.dw != 1 {
            return None;
        }
        let ix0 = (ox * self.sw).checked_sub(self.pl)?;
        (ix0 + self.kw <= self.w).then_some(ix0)
    }
}

/// Writes rows `first_row..` of the im2col matrix of `images` (`[count, d, h, w, c]`) for
/// `group` into `cols` (`cols.len() / patch` rows of `kd * kh * kw * cg`, row-major): row
/// `(image, oz, oy, ox)` holds the window's `(kz, ky, kx, channel)` values, zero where the
/// window leaves the image.
fn im2col<T: ConvFloat>(
    g: &Geometry,
    images: &[T],
    first_row: usize,
    group: usize,
    cols: &mut [MaybeUninit<T>],
) {
    let (cg, patch) = (g.cg(), g.patch());
    if patch == 0 || g.image_len() == 0 {
        zero(cols); // no channels, or padding around an empty image
        return;
    }
    let c0 = group * cg;
    let span = g.kw * cg;
    let slab = g.kh * span;
    let plane_len = g.h * g.w * g.c;
    for (r, row) in cols.chunks_exact_mut(patch).enumerate() {
        let (i, oz, oy, ox) = g.position(first_row + r);
        let image = &images[i * g.image_len()..(i + 1) * g.image_len()];
        let run = g.contiguous_window(ox);
        for (kz, planes) in row.chunks_exact_mut(slab).enumerate() {
            let Some(iz) = g.in_plane(oz, kz) else {
                zero(planes);
                continue;
            };
            let plane = &image[iz * plane_len..(iz + 1) * plane_len];
            for (ky, dst) in planes.chunks_exact_mut(span).enumerate() {
                let Some(iy) = g.in_row(oy, ky) else {
                    zero(dst);
                    continue;
                };
                if let Some(ix0) = run {
                    let at = (iy * g.w + ix0) * g.c;
                    copy(dst, &plane[at..at + span]);
                    continue;
                }
                for (kx, d) in dst.chunks_exact_mut(cg).enumerate() {
                    match (g.in_col(ox, kx), cg) {
                        (Some(ix), 1) => {
                            d[0].write(plane[(iy * g.w + ix) * g.c + c0]);
                        }
                        (Some(ix), _) => {
                            let at = (iy * g.w + ix) * g.c + c0;
                            copy(d, &plane[at..at + cg]);
                        }
                        (None, _) => zero(d),
                    }
                }
            }
        }
    }
}

/// Writes zeros.
#[inline]
fn zero<T: ConvFloat>(dst: &mut [MaybeUninit<T>]) {
    for d in dst {
        d.write(T::zero());
    }
}

/// Writes `src` (of `dst`'s length).
#[inline]
fn copy<T: ConvFloat>(dst: &mut [MaybeUninit<T>], src: &[T]) {
    assert_eq!(dst.len(), src.len());
    // SAFETY: both slices hold `src.len()` elements and do not overlap (one is a fresh buffer).
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<T>(), src.len()) };
}

/// The elements of `dst`, every one of which the caller has written.
///
/// # Safety
/// Every element of `dst` is initialised.
unsafe fn assume_init<T>(dst: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout; the caller guarantees initialisation.
    unsafe { &mut *(dst as *mut [MaybeUninit<T>] as *mut [T]) }
}

/// Adds `src` into `dst` elementwise.
#[inline]
fn add_into<T: ConvFloat>(dst: &mut [T], src: &[T]) {
    for (d, &v) in dst.iter_mut().zip(src) {
        *d = *d + v;
    }
}

/// Adds the im2col-shaped `cols` (rows `first_row..`) of `group` back into `images`
/// (`[count, d, h, w, c]`): the transpose of [`im2col`].
fn col2im<T: ConvFloat>(
    g: &Geometry,
    cols: &[T],
    first_row: usize,
    group: usize,
    images: &mut [T],
) {
    let (cg, patch) = (g.cg(), g.patch());
    if patch == 0 || g.image_len() == 0 {
        return;
    }
    let c0 = group * cg;
    let span = g.kw * cg;
    let slab = g.kh * span;
    let plane_len = g.h * g.w * g.c;
    let image_len = g.image_len();
    for (r, row) in cols.chunks_exact(patch).enumerate() {
        let (i, oz, oy, ox) = g.position(first_row + r);
        let image = &mut images[i * image_len..(i + 1) * image_len];
        let run = g.contiguous_window(ox);
        for (kz, planes) in row.chunks_exact(slab).enumerate() {
            let Some(iz) = g.in_plane(oz, kz) else {
                continue;
            };
            let plane = &mut image[iz * plane_len..(iz + 1) * plane_len];
            for (ky, src) in planes.chunks_exact(span).enumerate() {
                let Some(iy) = g.in_row(oy, ky) else { continue };
                if let Some(ix0) = run {
                    let at = (iy * g.w + ix0) * g.c;
                    add_into(&mut plane[at..at + span], src);
                    continue;
                }
                for (kx, s) in src.chunks_exact(cg).enumerate() {
                    if let Some(ix) = g.in_col(ox, kx) {
                        let at = (iy * g.w + ix) * g.c + c0;
                        add_into(&mut plane[at..at + cg], s);
                    }
                }
            }
        }
    }
}

/// A raw pointer that may cross into the pool's threads (each writes its own elements).
#[derive(Clone, Copy)]
struct SyncPtr<T>(*const T);
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}

impl<T> SyncPtr<T> {
    /// The pointer `offset` elements on (a method, so closures capture the Send wrapper).
    ///
    /// # Safety
    /// As for `pointer::add`.
    unsafe fn add(self, offset: usize) -> *const T {
        unsafe { self.0.add(offset) }
    }
}

/// Runs `work(chunk_index, first_image, images)` over the chunks of `n` images, in parallel when
/// worth it.
fn for_chunks(g: &Geometry, n: usize, work: impl Fn(usize, usize, usize) + Sync) {
    let per = g.chunk_images(n);
    let chunks = n.div_ceil(per);
    let run = |i: usize| {
        let first = i * per;
        work(i, first, per.min(n - first));
    };
    if g.parallel(n) {
        for_each_task(chunks, &run);
    } else {
        (0..chunks).for_each(run);
    }
}

thread_local! {
    /// This thread's im2col buffer (as 64-bit words, aligned for every float type), kept
    /// between calls.
    static COLS: Cell<Vec<u64>> = const { Cell::new(Vec::new()) };
}

/// Runs `f` with a buffer of `len` uninitialised elements: this thread's kept one, grown when
/// needed (a nested call gets a fresh one).
fn with_cols<T: ConvFloat, R>(len: usize, f: impl FnOnce(&mut [MaybeUninit<T>]) -> R) -> R {
    let mut words = COLS.with(Cell::take);
    let need = (len * std::mem::size_of::<T>()).div_ceil(8);
    if words.capacity() < need {
        words = Vec::with_capacity(need);
    }
    // SAFETY: the capacity holds `need` words, at least `len` elements of `T` (alignment 8 or
    // less), all treated as uninitialised.
    let cols =
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<MaybeUninit<T>>(), len) };
    let r = f(cols);
    COLS.with(|c| c.set(words));
    r
}

/// Runs `gemm(group, first_row, rows, lhs)` for each block of rows of `images`' im2col and
/// each group, `lhs` that block's patches of the group as a row-major `[rows, patch]` matrix:
/// the images themselves for a pointwise convolution, else their im2col in this thread's kept
/// buffer.
fn with_patches<T: ConvFloat>(
    g: &Geometry,
    images: &[T],
    rows: usize,
    gemm: impl Fn(usize, usize, usize, *const T),
) {
    let (patch, block) = (g.patch(), g.block_rows(rows));
    let cols_len = if g.pointwise() { 0 } else { block * patch };
    with_cols(cols_len, |cols: &mut [MaybeUninit<T>]| {
        for first in (0..rows).step_by(block) {
            let count = block.min(rows - first);
            for group in 0..g.groups {
                if g.pointwise() {
                    gemm(group, first, count, images[first * patch..].as_ptr());
                } else {
                    // im2col writes every element of the block.
                    let cols = &mut cols[..count * patch];
                    im2col(g, images, first, group, cols);
                    gemm(group, first, count, cols.as_ptr().cast::<T>());
                }
            }
        }
    });
}

/// Whether a chunk's GEMM may use threads itself: only when the whole call is one chunk.
fn gemm_parallel(g: &Geometry, n: usize) -> bool {
    n <= g.chunk_images(n) && g.work(n) >= PARALLEL_WORK && may_split()
}

/// `y = conv(x, f)` for one slice: `x` `[n, h, w, c]`, `f` `[kh, kw, cg, o]`, `y`
/// `[n, oh, ow, o]` (every element written).
pub(super) fn forward<T: ConvFloat>(
    g: &Geometry,
    n: usize,
    x: &[T],
    f: &[T],
    y: &mut [MaybeUninit<T>],
) {
    let (patch, og, o) = (g.patch(), g.og(), g.o as isize);
    let gemm_par = gemm_parallel(g, n);
    let y_ptr = SyncPtr(y.as_mut_ptr() as *const T);
    for_chunks(g, n, |_, first, count| {
        let rows = count * g.pixels();
        let images = &x[first * g.image_len()..(first + count) * g.image_len()];
        with_patches(g, images, rows, |group, row, count, lhs| {
            // SAFETY: the chunk's output rows `[first * pixels, +rows)` of `y` (`[n * pixels,
            // o]`) are written by this chunk only, this block's `count` from `row`; the filter's
            // group block is `[patch, og]` at column `group * og` with row stride `o`; `lhs` is
            // `[count, patch]`.
            unsafe {
                let dst = y_ptr.add((first * g.pixels() + row) * g.o + group * og) as *mut T;
                T::gemm(
                    count,
                    og,
                    patch,
                    (dst, o, 1),
                    (lhs, patch as isize, 1),
                    (f.as_ptr().add(group * og), o, 1),
                    false,
                    gemm_par,
                );
            }
        });
    });
}

/// `dx = conv_backprop_input(dy, f)` for one slice: `dy` `[n, oh, ow, o]`, `f`
/// `[kh, kw, cg, o]`, `dx` `[n, h, w, c]` (every element written).
pub(super) fn backprop_input<T: ConvFloat>(
    g: &Geometry,
    n: usize,
    dy: &[T],
    f: &[T],
    dx: &mut [MaybeUninit<T>],
) {
    let (patch, og, o) = (g.patch(), g.og(), g.o as isize);
    let gemm_par = gemm_parallel(g, n);
    let dx_ptr = SyncPtr(dx.as_mut_ptr() as *const T);
    for_chunks(g, n, |_, first, count| {
        let rows = count * g.pixels();
        let len = count * g.image_len();
        // This chunk's images of `dx` (no other chunk touches them).
        let images = unsafe { dx_ptr.add(first * g.image_len()) as *mut T };
        let pointwise = g.pointwise();
        if !pointwise {
            // SAFETY: `len` elements of `dx` from `images`, this chunk's alone.
            zero(unsafe { std::slice::from_raw_parts_mut(images.cast::<MaybeUninit<T>>(), len) });
        }
        let block = g.block_rows(rows);
        let cols_len = if pointwise { 0 } else { block * patch };
        with_cols(cols_len, |cols: &mut [MaybeUninit<T>]| {
            for row in (0..rows).step_by(block) {
                let count = block.min(rows - row);
                let cols = &mut cols[..if pointwise { 0 } else { count * patch }];
                for group in 0..g.groups {
                    let dst = if pointwise {
                        // SAFETY: the block's rows of this chunk's images (a pointwise
                        // convolution's images are their own im2col).
                        unsafe { images.add(row * patch) }
                    } else {
                        cols.as_mut_ptr().cast::<T>()
                    };
                    // SAFETY: `dcols [count, patch] = dy_group [count, og] @ f_group^T
                    // [og, patch]`, each inside its buffer (dy's group block at column
                    // `group * og`, row stride `o`).
                    unsafe {
                        T::gemm(
                            count,
                            patch,
                            og,
                            (dst, patch as isize, 1),
                            (
                                dy.as_ptr()
                                    .add((first * g.pixels() + row) * g.o + group * og),
                                o,
                                1,
                            ),
                            (f.as_ptr().add(group * og), 1, o),
                            false,
                            gemm_par,
                        );
                    }
                    if !pointwise {
                        // SAFETY: the GEMM wrote all `count * patch` elements of `cols`; the
                        // images were zeroed and are this chunk's alone.
                        let (cols, images) = unsafe {
                            (
                                assume_init(cols),
                                std::slice::from_raw_parts_mut(images, len),
                            )
                        };
                        col2im(g, cols, row, group, images);
                    }
                }
            }
        });
    });
}

/// `df = conv_backprop_filter(x, dy)` for one slice: `x` `[n, h, w, c]`, `dy`
/// `[n, oh, ow, o]`, `df` `[kh, kw, cg, o]` (every element written).
pub(super) fn backprop_filter<T: ConvFloat>(
    g: &Geometry,
    n: usize,
    x: &[T],
    dy: &[T],
    df: &mut [MaybeUninit<T>],
) {
    let (patch, og, o) = (g.patch(), g.og(), g.o as isize);
    let chunks = n.div_ceil(g.chunk_images(n));
    if chunks == 0 {
        zero(df);
        return;
    }
    let gemm_par = gemm_parallel(g, n);
    // One partial filter gradient per chunk, summed in chunk order below.
    let mut partials: Vec<T> = Vec::with_capacity(chunks * df.len());
    let len = df.len();
    let part_ptr = SyncPtr(partials.as_mut_ptr() as *const T);
    for_chunks(g, n, |i, first, count| {
        let rows = count * g.pixels();
        let images = &x[first * g.image_len()..(first + count) * g.image_len()];
        with_patches(g, images, rows, |group, row, count, lhs| {
            // SAFETY: `df_group [patch, og] (+)= lhs^T [patch, count] @ dy_group [count, og]`,
            // into this chunk's own partial (the group's columns, row stride `o`), the first
            // block writing it and the later ones adding to it.
            unsafe {
                let dst = part_ptr.add(i * len + group * og) as *mut T;
                T::gemm(
                    patch,
                    og,
                    count,
                    (dst, o, 1),
                    (lhs, 1, patch as isize),
                    (
                        dy.as_ptr()
                            .add((first * g.pixels() + row) * g.o + group * og),
                        o,
                        1,
                    ),
                    row > 0,
                    gemm_par,
                );
            }
        });
    });
    // SAFETY: every chunk's GEMMs wrote each element of its partial (all groups' columns).
    unsafe { partials.set_len(chunks * len) };
    sum_partials(&partials, df, worth_splitting(chunks * len, PARALLEL_SUM));
}

/// `df` = the sum of the `len`-long `partials` (`df.len() == len`), each element summed in
/// partial order; on several threads (ranges of `df`) when `parallel`, with the same bits.
fn sum_partials<T: ConvFloat>(partials: &[T], df: &mut [MaybeUninit<T>], parallel: bool) {
    let len = df.len();
    let sum_range = |start: usize, dst: &mut [MaybeUninit<T>]| {
        let end = start + dst.len();
        let mut parts = partials.chunks_exact(len);
        if let Some(first) = parts.next() {
            copy(dst, &first[start..end]);
        }
        // SAFETY: written just above (there is at least one partial).
        let dst = unsafe { assume_init(dst) };
        for part in parts {
            add_into(dst, &part[start..end]);
        }
    };
    if !parallel {
        sum_range(0, df);
        return;
    }
    // Ranges of whole cache lines, a few per thread.
    let per = len.div_ceil(MIN_CHUNKS).next_multiple_of(16).max(16);
    let df_ptr = SyncPtr(df.as_mut_ptr() as *const MaybeUninit<T>);
    for_each_task(len.div_ceil(per), &|i| {
        let start = i * per;
        // SAFETY: range `i` of `df`, this task's alone.
        let dst = unsafe {
            std::slice::from_raw_parts_mut(
                df_ptr.add(start) as *mut MaybeUninit<T>,
                per.min(len - start),
            )
        };
        sum_range(start, dst);
    });
}
