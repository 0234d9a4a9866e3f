//! `matmul` and `matvec`.
//!
//! The kernel is the `gemm` crate: it takes raw pointers with row and column strides, so
//! transposes, broadcast batch dimensions (stride 0) and any ndarray layout cost no copy.
//! Integer matmul (as TensorFlow allows) uses a plain loop with wrapping arithmetic.
use gemm::Parallelism;

use crate::ops::kernel::worth_splitting;
use crate::ops::parallel::for_each_task;
use ndarray::{ArrayD, IxDyn};

use crate::dispatch2;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{
    batched_dims, broadcast_shapes, conj, expand_dims, reshape, same_dtype, shape_of,
    sum_to_batched_shape,
};
use crate::tape::{input_needed, per_example_input, record_batched, record_per_example, AxisMap};
use crate::tensor::{Element, Tensor};

/// Multiply-adds above which one GEMM splits across threads. benches/matmul.rs alone put it at
/// 96^3, but in an eager program the helper is usually parked between kernels: W7's 1024x64x64
/// products (4M) split cost more CPU than they saved: on a quiet machine W7 ran 0.90x as fast
/// with 2 threads as with 1 at 1.45x the CPU; with this threshold 1.01x at 0.99x
/// (benches/compare.py's thread section), W4 and W2 unchanged (1.70x, 1.48x faster).
const PARALLEL_GEMM_WORK: usize = 1 << 23;

/// The least cost of one output element of a batch of small GEMMs, in multiply-adds: a store
/// that misses the caches against the fused multiply-adds of a packed inner loop.
const OUTPUT_WORK: usize = 16;

/// Multiply-adds per task of a split GEMM (~0.2-0.3 ms on one core): enough tasks that a
/// helper thread arriving late still takes its share, few enough that repacking the shared
/// operand (each task packs all of it) stays a small cost. At `1 << 22` the MLP step's
/// 256x784x512 GEMMs ran as 16 tasks, each repacking the whole 256x784 operand.
const GEMM_TASK_WORK: usize = 1 << 24;

/// A shared operand against a batch that cannot be read as one matrix: at most this many GEMMs
/// over the whole batch (one per output column, through strided writes), else one GEMM per
/// batch element. Measured in benches/matmul.rs (256x256 against [256, 256, n], float64): n = 2
/// and 4 run 1.4-2.9x faster sliced, n = 8 and 64 faster per batch element.
const MAX_COLUMN_SLICES: usize = 4;

/// As [`MAX_COLUMN_SLICES`] for one GEMM per output row (contiguous writes): (256x256xm)^T @
/// 256x256 runs faster sliced up to m = 8, slower at m = 64.
const MAX_ROW_SLICES: usize = 8;

/// The sizes of a (batched) matmul, after transposition.
struct MatmulDims {
    batch: Vec<usize>,
    m: usize,
    k: usize,
    n: usize,
}

impl MatmulDims {
    fn out_shape(&self) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend([self.m, self.n]);
        s
    }
}

fn matmul_dims(op: &str, a: &[usize], b: &[usize], ta: bool, tb: bool) -> Result<MatmulDims> {
    let describe = || {
        format!(
            "a has shape {} (transpose_a={ta}) and b has shape {} (transpose_b={tb})",
            fmt_shape(a),
            fmt_shape(b)
        )
    };
    if a.len() < 2 || b.len() < 2 {
        return Err(Error::shape(
            op,
            format!(
                "both operands must have rank >= 2 (use matvec for a vector): {}",
                describe()
            ),
        ));
    }
    let (ra, ca) = (a[a.len() - 2], a[a.len() - 1]);
    let (rb, cb) = (b[b.len() - 2], b[b.len() - 1]);
    let (m, ka) = if ta { (ca, ra) } else { (ra, ca) };
    let (kb, n) = if tb { (cb, rb) } else { (rb, cb) };
    if ka != kb {
        return Err(Error::shape(
            op,
            format!("inner dimensions must agree ({ka} vs {kb}): {}", describe()),
        ));
    }
    let batch = broadcast_shapes(op, &a[..a.len() - 2], &b[..b.len() - 2]).map_err(|_| {
        Error::shape(
            op,
            format!(
                "batch dimensions are not broadcast-compatible: {}",
                describe()
            ),
        )
    })?;
    Ok(MatmulDims { batch, m, k: ka, n })
}

/// Element types the matmul kernel handles.
trait MatElem: Element {
    /// `dst[m x n] = lhs[m x k] @ rhs[k x n]`, every operand read or written through its own
    /// row and column strides.
    ///
    /// # Safety
    /// Every pointer, offset by its strides over the given sizes, stays inside its allocation;
    /// `dst` is valid for writes, aliases neither operand, and no two of its `(i, j)` share an
    /// element.
    #[allow(clippy::too_many_arguments)]
    unsafe fn matmul_into(
        m: usize,
        n: usize,
        k: usize,
        dst: *mut Self,
        dst_rs: isize,
        dst_cs: isize,
        lhs: *const Self,
        lhs_rs: isize,
        lhs_cs: isize,
        rhs: *const Self,
        rhs_rs: isize,
        rhs_cs: isize,
    );
}

macro_rules! gemm_elem {
    ($t:ty, $zero:expr, $one:expr) => {
        impl MatElem for $t {
            unsafe fn matmul_into(
                m: usize,
                n: usize,
                k: usize,
                dst: *mut $t,
                dst_rs: isize,
                dst_cs: isize,
                lhs: *const $t,
                lhs_rs: isize,
                lhs_cs: isize,
                rhs: *const $t,
                rhs_rs: isize,
                rhs_cs: isize,
            ) {
                // gemm computes dst := alpha * dst + beta * lhs @ rhs (dst not read here).
                unsafe {
                    gemm::gemm(
                        m,
                        n,
                        k,
                        dst,
                        dst_cs,
                        dst_rs,
                        false,
                        lhs,
                        lhs_cs,
                        lhs_rs,
                        rhs,
                        rhs_cs,
                        rhs_rs,
                        $zero,
                        $one,
                        false,
                        false,
                        false,
                        Parallelism::None,
                    )
                }
            }
        }
    };
}
gemm_elem!(f32, 0.0, 1.0);
gemm_elem!(f64, 0.0, 1.0);
gemm_elem!(
    num_complex::Complex<f32>,
    num_complex::Complex::new(0.0, 0.0),
    num_complex::Complex::new(1.0, 0.0)
);
gemm_elem!(
    num_complex::Complex<f64>,
    num_complex::Complex::new(0.0, 0.0),
    num_complex::Complex::new(1.0, 0.0)
);

macro_rules! int_elem {
    ($t:ty) => {
        impl MatElem for $t {
            unsafe fn matmul_into(
                m: usize,
                n: usize,
                k: usize,
                dst: *mut $t,
                dst_rs: isize,
                dst_cs: isize,
                lhs: *const $t,
                lhs_rs: isize,
                lhs_cs: isize,
                rhs: *const $t,
                rhs_rs: isize,
                rhs_cs: isize,
            ) {
                for i in 0..m as isize {
                    let row = unsafe { dst.offset(i * dst_rs) };
                    for j in 0..n as isize {
                        unsafe { *row.offset(j * dst_cs) = 0 };
                    }
                    for p in 0..k as isize {
                        let a = unsafe { *lhs.offset(i * lhs_rs + p * lhs_cs) };
                        for j in 0..n as isize {
                            unsafe {
                                let d = row.offset(j * dst_cs);
                                *d = (*d).wrapping_add(
                                    a.wrapping_mul(*rhs.offset(p * rhs_rs + j * rhs_cs)),
                                );
                            }
                        }
                    }
                }
            }
        }
    };
}
int_elem!(i32);
int_elem!(i64);

/// A raw pointer that may cross into rayon's threads (each thread writes its own rows).
struct SendPtr<T>(*const T);
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer moved by `offset` elements. A method, so closures capture the whole
    /// (Send) wrapper rather than its raw field.
    ///
    /// # Safety
    /// As for `pointer::offset`.
    unsafe fn at(self, offset: isize) -> *const T {
        unsafe { self.0.offset(offset) }
    }
}

/// Offsets (in elements, from `array.as_ptr()`) of the matrix at each batch index of `batch`
/// (row-major), for an operand whose leading dims broadcast to `batch`.
fn batch_offsets(shape: &[usize], strides: &[isize], batch: &[usize]) -> Vec<isize> {
    let lead = batch.len() - shape.len();
    let eff: Vec<isize> = (0..batch.len())
        .map(|d| {
            if d < lead || shape[d - lead] == 1 {
                0
            } else {
                strides[d - lead]
            }
        })
        .collect();
    let count: usize = batch.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; batch.len()];
    let mut offset = 0isize;
    for _ in 0..count {
        out.push(offset);
        for d in (0..batch.len()).rev() {
            index[d] += 1;
            offset += eff[d];
            if index[d] < batch[d] {
                break;
            }
            offset -= eff[d] * batch[d] as isize;
            index[d] = 0;
        }
    }
    out
}

/// The (row stride, column stride) of the last two axes, swapped when transposed.
fn matrix_strides<T>(a: &ndarray::ArrayViewD<'_, T>, transposed: bool) -> (isize, isize) {
    let s = a.strides();
    let (rs, cs) = (s[s.len() - 2], s[s.len() - 1]);
    if transposed {
        (cs, rs)
    } else {
        (rs, cs)
    }
}

/// One operand of a batched product: matrix `b` starts at `base + offsets[b]`, its element
/// `(i, j)` is `i * rs + j * cs` further.
struct Operand<T> {
    base: SendPtr<T>,
    offsets: Vec<isize>,
    rs: isize,
    cs: isize,
}

impl<T> Operand<T> {
    /// The same matrix for every batch index (a 2-D operand, or one broadcast over the batch).
    fn shared(&self) -> bool {
        self.offsets.iter().all(|&o| o == self.offsets[0])
    }

    /// The distance between consecutive batch matrices, when it is one distance throughout
    /// (any batch that is not partly broadcast).
    fn batch_step(&self) -> Option<isize> {
        let step = match self.offsets.as_slice() {
            [first, second, ..] => second - first,
            _ => 0,
        };
        let first = self.offsets[0];
        let uniform = self
            .offsets
            .iter()
            .enumerate()
            .all(|(b, &o)| o == first + b as isize * step);
        uniform.then_some(step)
    }

    /// The stride that walks the batch index and a matrix axis (`len` long, `stride` apart)
    /// together as one axis of `count * len` (index `b * len + i`), when the batch matrices
    /// follow each other that way (matrix `b + 1` starts where row `len` of matrix `b` would).
    fn fold(&self, len: usize, stride: isize) -> Option<isize> {
        if self.offsets.len() == 1 {
            return Some(stride);
        }
        let step = self.batch_step()?;
        match len {
            1 => Some(step),
            _ if step == len as isize * stride => Some(stride),
            _ => None,
        }
    }

    /// The start of matrix `b`'s element `(i, j)`.
    ///
    /// # Safety
    /// `(i, j)` is inside the matrix (validated sizes).
    unsafe fn at(&self, b: usize, i: usize, j: usize) -> *const T {
        unsafe {
            self.base
                .at(self.offsets[b] + i as isize * self.rs + j as isize * self.cs)
        }
    }
}

fn matmul_kernel<T: MatElem>(
    a: &ndarray::ArrayViewD<'_, T>,
    b: &ndarray::ArrayViewD<'_, T>,
    ta: bool,
    tb: bool,
    d: &MatmulDims,
) -> ArrayD<T> {
    let (m, k, n) = (d.m, d.k, d.n);
    let count: usize = d.batch.iter().product();
    let total = count * m * n;
    // Every GEMM below writes each output element (without reading it), so the buffer starts
    // uninitialised; an empty inner dimension leaves zeros.
    let mut out: Vec<T> = if k == 0 {
        vec![T::default(); total]
    } else {
        Vec::with_capacity(total)
    };
    if total > 0 && k > 0 {
        let (a_rs, a_cs) = matrix_strides(a, ta);
        let (b_rs, b_cs) = matrix_strides(b, tb);
        let (na, nb) = (a.ndim() - 2, b.ndim() - 2);
        let lhs = Operand {
            base: SendPtr(a.as_ptr()),
            offsets: batch_offsets(&a.shape()[..na], &a.strides()[..na], &d.batch),
            rs: a_rs,
            cs: a_cs,
        };
        let rhs = Operand {
            base: SendPtr(b.as_ptr()),
            offsets: batch_offsets(&b.shape()[..nb], &b.strides()[..nb], &d.batch),
            rs: b_rs,
            cs: b_cs,
        };
        let product = Product {
            dst: out.as_mut_ptr(),
            lhs: &lhs,
            rhs: &rhs,
            m,
            n,
            k,
        };
        let done =
            ((count == 1 || rhs.shared()) && product.tall()) || (lhs.shared() && product.wide());
        if !done {
            product.per_batch();
        }
        // SAFETY: the products above wrote all `total` elements.
        unsafe { out.set_len(total) };
    }
    match ArrayD::from_shape_vec(IxDyn(&d.out_shape()), out) {
        Ok(array) => array,
        Err(_) => unreachable!("the output holds batch * m * n elements"),
    }
}

/// A batched product being computed into `dst` (`[count, m, n]`, row-major).
struct Product<'a, T> {
    dst: *mut T,
    lhs: &'a Operand<T>,
    rhs: &'a Operand<T>,
    m: usize,
    n: usize,
    k: usize,
}

impl<T: MatElem> Product<'_, T> {
    fn count(&self) -> usize {
        self.lhs.offsets.len()
    }

    /// One GEMM `dst[rows x cols] = lhs[rows x k] @ rhs[k x cols]`, each given by its first
    /// element and strides; split across threads when large.
    ///
    /// # Safety
    /// As for [`MatElem::matmul_into`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        &self,
        rows: usize,
        cols: usize,
        dst: (*mut T, isize, isize),
        lhs: (*const T, isize, isize),
        rhs: (*const T, isize, isize),
    ) {
        // A left operand zero in most columns (one-hot Jacobian seeds): only the others.
        let packed = |k, l, r| {
            let split = worth_splitting(rows * cols * k, PARALLEL_GEMM_WORK);
            unsafe { split_gemm(rows, cols, k, dst, l, r, split) }
        };
        if unsafe { super::zero_columns::product(rows, cols, self.k, dst, lhs, rhs, packed) } {
            return;
        }
        let split = worth_splitting(rows * cols * self.k, PARALLEL_GEMM_WORK);
        unsafe { split_gemm(rows, cols, self.k, dst, lhs, rhs, split) }
    }

    /// A right operand shared by the whole batch (a dense layer on `[batch, rows, features]`,
    /// the VJP `dy @ b^T` of a vectorised Jacobian, or a single product): the left matrices
    /// stacked make one tall matrix, the product one GEMM of `count * m` rows. Left matrices
    /// that do not follow each other row after row (a transposed batch) make `m` GEMMs of
    /// `count` rows instead, for small `m` ([`MAX_ROW_SLICES`]): GEMM `i` takes row `i` of every
    /// matrix (one stride apart) and writes row `i` of every output matrix. False (nothing
    /// done) when neither applies.
    fn tall(&self) -> bool {
        let (lhs, rhs, m, n) = (self.lhs, self.rhs, self.m, self.n);
        let count = self.count();
        // SAFETY (every GEMM below): offsets and strides come from the arrays' own layouts over
        // validated sizes; `dst` holds `count * m * n` elements, each written once.
        let right = (unsafe { rhs.at(0, 0, 0) }, rhs.rs, rhs.cs);
        if let Some(rs) = lhs.fold(m, lhs.rs) {
            let left = (unsafe { lhs.at(0, 0, 0) }, rs, lhs.cs);
            unsafe { self.gemm(count * m, n, (self.dst, n as isize, 1), left, right) };
            return true;
        }
        match lhs.batch_step() {
            Some(step) if m <= count.min(MAX_ROW_SLICES) => {
                for i in 0..m {
                    let left = (unsafe { lhs.at(0, i, 0) }, step, lhs.cs);
                    let dst = (unsafe { self.dst.add(i * n) }, (m * n) as isize, 1);
                    unsafe { self.gemm(count, n, dst, left, right) };
                }
                true
            }
            _ => false,
        }
    }

    /// A left operand shared by the whole batch (the VJP `W^T @ dy` of `W @ x` in a vectorised
    /// Jacobian): the right matrices side by side make one wide matrix, the product one GEMM of
    /// `count * n` columns, when both the right matrices' columns and the output's follow each
    /// other at one stride (`n == 1`: the batch is the column axis, no copy). Otherwise, for
    /// small `n` ([`MAX_COLUMN_SLICES`]), `n` GEMMs of `count` columns: GEMM `j` takes column
    /// `j` of every right matrix and writes column `j` of every output matrix. False (nothing
    /// done) when neither applies.
    fn wide(&self) -> bool {
        let (lhs, rhs, m, n) = (self.lhs, self.rhs, self.m, self.n);
        let count = self.count();
        // SAFETY (every GEMM below): as in `tall`.
        let left = (unsafe { lhs.at(0, 0, 0) }, lhs.rs, lhs.cs);
        // Output column `b * n + j` is `b * m * n + j`: one stride when n == 1 or m == 1.
        let dst_cs = match (m, n) {
            (_, 1) => Some(m as isize),
            (1, _) => Some(1),
            _ => None,
        };
        if let (Some(cs), Some(dst_cs)) = (rhs.fold(n, rhs.cs), dst_cs) {
            let right = (unsafe { rhs.at(0, 0, 0) }, rhs.rs, cs);
            unsafe { self.gemm(m, count * n, (self.dst, n as isize, dst_cs), left, right) };
            return true;
        }
        match rhs.batch_step() {
            Some(step) if n <= count.min(MAX_COLUMN_SLICES) => {
                for j in 0..n {
                    let right = (unsafe { rhs.at(0, 0, j) }, rhs.rs, step);
                    let dst = (unsafe { self.dst.add(j) }, n as isize, (m * n) as isize);
                    unsafe { self.gemm(m, count, dst, left, right) };
                }
                true
            }
            _ => false,
        }
    }

    /// Batches with operands of their own: one GEMM each, the batch split across threads when
    /// the GEMMs are small, the GEMMs themselves split when large.
    fn per_batch(&self) {
        let (m, n, k) = (self.m, self.n, self.k);
        let count = self.count();
        let work = m * n * k;
        let (lhs, rhs) = (self.lhs, self.rhs);
        let dst = SendPtr(self.dst as *const T);
        let split = worth_splitting(work, PARALLEL_GEMM_WORK);
        let run = |b: usize, split_one: bool| {
            // SAFETY: offsets and strides come from the arrays' own layouts over validated
            // sizes; each batch writes its own `m * n` elements of the output buffer.
            unsafe {
                let out = dst.at((b * m * n) as isize) as *mut T;
                split_gemm(
                    m,
                    n,
                    k,
                    (out, n as isize, 1),
                    (lhs.at(b, 0, 0), lhs.rs, lhs.cs),
                    (rhs.at(b, 0, 0), rhs.rs, rhs.cs),
                    split_one,
                )
            }
        };
        // GEMMs with a short inner dimension are bound by writing their outputs (per-example
        // gradients are outer products, k = 1): each output element costs at least
        // OUTPUT_WORK multiply-adds, else W9's 256 products of 784x1x128 (100 MB written)
        // stayed on one thread whenever the helper was parked (2.4x slower at 2 threads).
        let batch_work = count * m * n * k.max(OUTPUT_WORK);
        if work < PARALLEL_GEMM_WORK && worth_splitting(batch_work, PARALLEL_GEMM_WORK) {
            for_each_task(count, &|b| run(b, false));
        } else {
            (0..count).for_each(|b| run(b, split));
        }
    }
}

/// `dst[rows x cols] = lhs[rows x k] @ rhs[k x cols]` (first element and strides of each), in
/// tasks of about [`GEMM_TASK_WORK`] multiply-adds over row (or column) blocks when `split` and
/// the product is large: each task is a single-threaded GEMM, claimed by whichever thread is
/// free (`for_each_task`), so a thread that wakes late never holds the others up.
///
/// # Safety
/// As for [`MatElem::matmul_into`].
unsafe fn split_gemm<T: MatElem>(
    rows: usize,
    cols: usize,
    k: usize,
    dst: (*mut T, isize, isize),
    lhs: (*const T, isize, isize),
    rhs: (*const T, isize, isize),
    split: bool,
) {
    let work = rows * cols * k;
    if !split || work < PARALLEL_GEMM_WORK {
        unsafe {
            T::matmul_into(
                rows, cols, k, dst.0, dst.1, dst.2, lhs.0, lhs.1, lhs.2, rhs.0, rhs.1, rhs.2,
            )
        };
        return;
    }
    // Blocks along the longer side, in multiples of 16 (whole register tiles).
    let by_rows = rows >= cols;
    let len = if by_rows { rows } else { cols };
    // A multiple of the thread count, so that equal blocks end together.
    let threads = crate::ops::parallel_threads().max(2);
    let tasks = (work / GEMM_TASK_WORK)
        .max(1)
        .next_multiple_of(threads)
        .min(8 * threads);
    // Row blocks each pack the whole right operand; a transposed one (`dz @ K^T` of a dense
    // layer's VJP) is read column by column, 4 KiB apart for 1024 columns, where cache sets
    // conflict: laid out row-major once here, `[1120, 1024] @ [256, 1024]^T` at 2 threads took
    // 1.7 ms instead of 2.7.
    let packed =
        (by_rows && rhs.1 == 1 && rhs.2 != 1).then(|| unsafe { row_major(k, cols, rhs.0, rhs.2) });
    let rhs = packed
        .as_ref()
        .map_or(rhs, |p| (p.as_ptr(), cols as isize, 1));
    let (dst_p, lhs_p, rhs_p) = (SendPtr(dst.0 as *const T), SendPtr(lhs.0), SendPtr(rhs.0));
    let blocks = balanced_blocks(len, tasks);
    for_each_task(blocks.len(), &|i| {
        let (start, size) = blocks[i];
        // SAFETY: the block's rows (or columns) lie inside the operands and the output, and
        // blocks write disjoint parts of `dst`.
        unsafe {
            if by_rows {
                let at = start as isize;
                T::matmul_into(
                    size,
                    cols,
                    k,
                    dst_p.at(at * dst.1) as *mut T,
                    dst.1,
                    dst.2,
                    lhs_p.at(at * lhs.1),
                    lhs.1,
                    lhs.2,
                    rhs_p.0,
                    rhs.1,
                    rhs.2,
                )
            } else {
                let at = start as isize;
                T::matmul_into(
                    rows,
                    size,
                    k,
                    dst_p.at(at * dst.2) as *mut T,
                    dst.1,
                    dst.2,
                    lhs_p.0,
                    lhs.1,
                    lhs.2,
                    rhs_p.at(at * rhs.2),
                    rhs.1,
                    rhs.2,
                )
            }
        }
    });
}

/// The `[rows x cols]` matrix at `src` with unit row stride and column stride `cs` (a
/// column-major one), copied row-major: blocks of 64 rows across threads, each in tiles of 8
/// columns (8 cache lines read at a time, fewer than a cache set's ways even when `cs` is a
/// power of two).
///
/// # Safety
/// `src` offset by `i + j * cs` is valid for every `i < rows`, `j < cols`.
unsafe fn row_major<T: MatElem>(rows: usize, cols: usize, src: *const T, cs: isize) -> Vec<T> {
    const BLOCK_ROWS: usize = 64;
    let mut out = Vec::with_capacity(rows * cols);
    let src = SendPtr(src);
    let blocks: Vec<std::sync::Mutex<&mut [std::mem::MaybeUninit<T>]>> = out.spare_capacity_mut()
        [..rows * cols]
        .chunks_mut(BLOCK_ROWS * cols)
        .map(std::sync::Mutex::new)
        .collect();
    for_each_task(blocks.len(), &|b| {
        let mut block = blocks[b].lock().unwrap_or_else(|e| e.into_inner());
        let first = b * BLOCK_ROWS;
        for j0 in (0..cols).step_by(8) {
            for (r, row) in block.chunks_mut(cols).enumerate() {
                let i = (first + r) as isize;
                for (j, slot) in row.iter_mut().enumerate().skip(j0).take(8) {
                    // SAFETY: inside the matrix, as the caller promises.
                    slot.write(unsafe { *src.at(i + j as isize * cs) });
                }
            }
        }
    });
    drop(blocks);
    // SAFETY: the tasks above wrote each of the `rows * cols` elements.
    unsafe { out.set_len(rows * cols) };
    out
}

/// `len` rows (or columns) cut into at most `tasks` blocks of whole 16-wide register tiles,
/// as `(start, size)`: sizes differ by one tile at most, the larger blocks first, so threads
/// claiming blocks in turn end together. Equal blocks of `ceil(len / tasks)` rounded up to 16
/// left a short last block: 512 columns in 6 tasks were five blocks of 96 and one of 32, so
/// with 2 threads one thread took 288 columns and the other 224 (x @ W1 of the MLP step, 12%
/// longer than an even split); now 6 + 5 + 5 tiles each.
fn balanced_blocks(len: usize, tasks: usize) -> Vec<(usize, usize)> {
    let tiles = len.div_ceil(16);
    let tasks = tasks.clamp(1, tiles.max(1));
    let (small, larger) = (tiles / tasks, tiles % tasks);
    let mut blocks = Vec::with_capacity(tasks);
    let mut start = 0;
    for i in 0..tasks {
        let size = ((small + usize::from(i < larger)) * 16).min(len - start);
        if size > 0 {
            blocks.push((start, size));
        }
        start += size;
    }
    blocks
}

/// Matrix product of the last two axes, `a @ b`, with the leading (batch) axes broadcast as in
/// NumPy: `[2, 1, 3, 4] @ [5, 4, 6]` is `[2, 5, 3, 6]`. `transpose_a` / `transpose_b` use the
/// transposed matrices (free: the kernel reads through strides). float32, float64, int32,
/// int64, complex64 and complex128 (the GEMM crate's complex kernels); complex gradients
/// multiply by the conjugated operands (TensorFlow's `_MatMulGrad`).
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    let op = "matmul";
    let dims = matmul_dims(op, a.shape(), b.shape(), transpose_a, transpose_b)?;
    crate::memory::ensure_shape(op, &dims.out_shape(), a.dtype())?;
    let (ta, tb) = (transpose_a, transpose_b);
    let y = Tensor::new(
        dispatch2!(num_or_complex a.data(), b.data(), op, |x, z| matmul_kernel(&x.view(), &z.view(), ta, tb, &dims)),
    );
    let (sa, sb) = (shape_of(a), shape_of(b));
    // Batch axes aligned from the end, `a`'s rows and `b`'s columns kept, the rest contracted.
    let mixes = AxisMap::matmul(ta, tb);
    // Batchable: `dy` may carry leading batch axes (a vectorised Jacobian), which the products
    // below broadcast over like any batch axis; `a` and `b` are saved without them. With a
    // shared 2-D operand the kernel turns the batch into GEMM rows (`dy @ b^T`) or columns
    // (`a^T @ dy`), so one sweep for many rows costs a few large GEMMs.
    let plain = sa.len() == 2 && sb.len() == 2 && !ta;
    let vjp = move |s: &[Tensor], dy: &Tensor, batch: usize| {
        // Complex operands enter conjugated, each only where the other's gradient reads it.
        let (conj_a, conj_b);
        let (a, b) = if s[0].dtype().is_complex() {
            conj_a = if input_needed(1) || per_example_input(1) {
                conj(&s[0])?
            } else {
                s[0].clone()
            };
            conj_b = if input_needed(0) {
                conj(&s[1])?
            } else {
                s[1].clone()
            };
            (&conj_a, &conj_b)
        } else {
            (&s[0], &s[1])
        };
        if per_example_input(1) {
            // A per-example sweep (`dy` has the output's shape, rows apart): `a`'s gradient as
            // usual, `b`'s one matrix per row, the outer product of that row of `a` with its
            // row of `dy` (`[rows, k, 1] @ [rows, 1, n]`, each product exact).
            let ga = input_needed(0)
                .then(|| matmul(dy, b, false, !tb))
                .transpose()?;
            let (left, right) = if tb { (dy, a) } else { (a, dy) };
            let gb = matmul(
                &expand_dims(left, -1)?,
                &expand_dims(right, -2)?,
                false,
                false,
            )?;
            return Ok(crate::grads![ga, Some(gb)]);
        }
        // Only the gradients the sweep will use: the other one can be the largest tensor of a
        // vectorised Jacobian (a constant weight's gradient, one per row).
        let ga = if !input_needed(0) {
            None
        } else {
            Some(match (ta, tb) {
                (false, false) => matmul(dy, b, false, true)?,
                (false, true) => matmul(dy, b, false, false)?,
                (true, false) => matmul(b, dy, false, true)?,
                (true, true) => matmul(b, dy, true, true)?,
            })
        };
        // A batched `a` against an unbatched `b` (a dense layer on [batch, rows, features]):
        // fold the batch into the rows instead of a batched product followed by a sum.
        let gb = if !input_needed(1) {
            None
        } else if !ta && sb.len() == 2 && sa.len() > 2 {
            let rows = sa[..sa.len() - 1].iter().product::<usize>();
            let a2 = reshape(a, &[rows as isize, sa[sa.len() - 1] as isize])?;
            let dy2 = reshape(
                dy,
                &batched_dims(dy, batch, &[rows, dy.shape()[dy.ndim() - 1]]),
            )?;
            Some(if tb {
                matmul(&dy2, &a2, true, false)?
            } else {
                matmul(&a2, &dy2, true, false)?
            })
        } else {
            Some(match (ta, tb) {
                (false, false) => matmul(a, dy, true, false)?,
                (false, true) => matmul(dy, a, true, false)?,
                (true, false) => matmul(a, dy, false, false)?,
                (true, true) => matmul(dy, a, true, true)?,
            })
        };
        Ok(crate::grads![
            ga.map(|g| sum_to_batched_shape(&g, batch, &sa))
                .transpose()?,
            gb.map(|g| sum_to_batched_shape(&g, batch, &sb))
                .transpose()?,
        ])
    };
    // A plain product of matrices (`x @ W`, rows of `x` apart) can give `W` per-example
    // gradients: one outer product per row.
    if plain {
        record_per_example(op, &[a, b], &y, &[a, b], mixes, vjp);
    } else {
        record_batched(op, &[a, b], &y, &[a, b], mixes, true, vjp);
    }
    Ok(y)
}

/// Matrix-vector product: `a` `[..., M, N]` (or `[..., N, M]` with `transpose_a`) times `x`
/// `[..., N]` gives `[..., M]`, batch axes broadcast.
pub fn matvec(a: &Tensor, x: &Tensor, transpose_a: bool) -> Result<Tensor> {
    let op = "matvec";
    let (sa, sx) = (a.shape(), x.shape());
    if sa.len() < 2 || sx.is_empty() {
        return Err(Error::shape(
            op,
            format!(
                "a must have rank >= 2 and x rank >= 1, got shapes {} and {}",
                fmt_shape(sa),
                fmt_shape(sx)
            ),
        ));
    }
    let inner = if transpose_a {
        sa[sa.len() - 2]
    } else {
        sa[sa.len() - 1]
    };
    if inner != sx[sx.len() - 1] {
        return Err(Error::shape(
            op,
            format!(
                "a of shape {} (transpose_a={transpose_a}) cannot multiply a vector of shape {}: \
                 {inner} != {}",
                fmt_shape(sa),
                fmt_shape(sx),
                sx[sx.len() - 1]
            ),
        ));
    }
    if let Err(e) = broadcast_shapes(op, &sa[..sa.len() - 2], &sx[..sx.len() - 1]) {
        return Err(Error::shape(
            op,
            format!(
                "batch dimensions of {} and {} do not broadcast ({})",
                fmt_shape(sa),
                fmt_shape(sx),
                e.message
            ),
        ));
    }
    same_dtype(op, a, x)?;
    let y = matmul(a, &expand_dims(x, -1)?, transpose_a, false)?;
    let dims: Vec<isize> = y.shape()[..y.ndim() - 1]
        .iter()
        .map(|&d| d as isize)
        .collect();
    reshape(&y, &dims)
}
