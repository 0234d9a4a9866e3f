//! The GEMM driver behind `matmul`: the `gemm` crate's kernel through raw pointers with row and
//! column strides (transposes, broadcast batch dimensions and any ndarray layout cost no copy),
//! a batch folded into one tall or wide GEMM where the layout allows, large GEMMs split across
//! threads, and two independent products run side by side ([`matmul_pair`]).
//! Integer matmul (as TensorFlow allows) uses a plain loop with wrapping arithmetic.
use ndarray::{ArrayD, IxDyn};

pub(super) use super::mat_elem::MatElem;
use crate::dtype::DType;
use crate::ops::kernel::worth_splitting;
use crate::ops::parallel::for_each_task;

/// Multiply-adds above which one GEMM splits across threads. benches/matmul.rs alone put it at
/// 96^3, but in an eager program the helper is usually parked between kernels: W7's 1024x64x64
/// products (4M) split cost more CPU than they saved: on a quiet machine W7 ran 0.90x as fast
/// with 2 threads as with 1 at 1.45x the CPU; with this threshold 1.01x at 0.99x
/// (benches/compare.py's thread section), W4 and W2 unchanged (1.70x, 1.48x faster).
const PARALLEL_GEMM_WORK: usize = 1 << 23;

/// The gemm crate's tall register tile, in bytes: 4 AVX-512 vectors (64 float32, 32 float64).
/// Blocks of a split GEMM along the output's unit-stride axis are whole multiples of it.
const TALL_TILE_BYTES: usize = 256;

/// Products with both output sides at most this long take the gemm crate's small-product
/// path, whose inner blocking (`kc = min(k, SMALL_GEMM_KC)`) differs from the general one.
const SMALL_GEMM_SIDE: usize = 64;
const SMALL_GEMM_KC: usize = 512;

/// The least cost of one output element of a batch of small GEMMs, in multiply-adds: a store
/// that misses the caches against the fused multiply-adds of a packed inner loop.
const OUTPUT_WORK: usize = 16;

/// Multiply-adds per task of a split GEMM (~0.7 ms on one core): few tasks, as each repacks the
/// whole shared operand; a helper that arrives late costs less than the repacking did. At
/// `1 << 22` the MLP step's 256x784x512 GEMMs ran as 16 tasks; at `1 << 24` the LSTM step's
/// [1120, 1024] x [1024, 256] ones did, and at `1 << 26` (4 tasks) each took 0.1-0.25 ms less
/// at 2 threads (the LSTM step 20.6 -> 19.8 ms, W2 3.07 -> 2.99 ms).
const GEMM_TASK_WORK: usize = 1 << 26;

/// A shared operand against a batch that cannot be read as one matrix: at most this many GEMMs
/// over the whole batch (one per output column, through strided writes), else one GEMM per
/// batch element. Measured in benches/matmul.rs (256x256 against [256, 256, n], float64): n = 2
/// and 4 run 1.4-2.9x faster sliced, n = 8 and 64 faster per batch element.
const MAX_COLUMN_SLICES: usize = 4;

/// As [`MAX_COLUMN_SLICES`] for one GEMM per output row (contiguous writes): (256x256xm)^T @
/// 256x256 runs faster sliced up to m = 8, slower at m = 64.
const MAX_ROW_SLICES: usize = 8;

/// Multiply-adds from which each of two independent products (the two gradients of a matmul's
/// VJP) runs on a thread of its own, side by side, instead of each being split across the
/// threads in turn: where a product alone would split ([`PARALLEL_GEMM_WORK`]). Measured on
/// the VJP of `[m, k] @ [k, n]` at 2 threads (the whole step, forward included): 128x256x256
/// (8.4M each) 281 -> 244 us, 256x256x256 522 -> 348 us, 256x512x256 680 -> 585 us, the MLP
/// step's 67M pair a little faster (W2 3.16 -> 3.03 ms with the tile-aligned blocks). Smaller
/// products stay on the calling thread: W8's 32x128x128 (0.5M) pair took 33 -> 50 us side by
/// side (a product that small takes ~8 us, less than waking a parked helper and moving operands
/// and results between the cores' caches), and W7's 1024x64x64 (4.2M) pairs made W7 16%
/// slower at 1.3x the CPU, as splitting them did before.
const PAIR_MIN_WORK: usize = PARALLEL_GEMM_WORK;

/// Whether two independent products of `first` and `second` multiply-adds should run side by
/// side ([`crate::ops::parallel::both`]): about equal (else the larger one is better split
/// across the threads on its own), and the smaller one worth splitting now by the rule a
/// single product follows (`worth_splitting`: not inside a Jacobian block or another job's
/// task, and larger when the helper is parked). W7's vectorised products (8.4M, between
/// kernels that leave the helper parked) ran 4.6 -> 5.0 ms at 1.2x the CPU side by side.
/// Multiply-adds from which two products also run side by side when a helper is awake (it
/// spins after the step's large GEMMs): the gradients of a 512 -> 10 layer, `h^T @ dy` and
/// `dy @ W^T` (1.3M each, ~15 us apiece), took 52-56 -> 37-48 us of the MLP step's backward.
const SMALL_PAIR_WORK: usize = 1 << 20;

pub(super) fn pair_worth_running(first: usize, second: usize) -> bool {
    let (least, most) = (first.min(second), first.max(second));
    let awake_pair = least >= SMALL_PAIR_WORK && crate::ops::parallel::helpers_awake();
    least.saturating_mul(2) >= most
        && (worth_splitting(least, PAIR_MIN_WORK)
            || (awake_pair && worth_splitting(least, SMALL_PAIR_WORK)))
}

/// The sizes of a (batched) matmul, after transposition.
pub(super) struct MatmulDims {
    pub(super) batch: Vec<usize>,
    pub(super) m: usize,
    pub(super) k: usize,
    pub(super) n: usize,
}

impl MatmulDims {
    pub(super) fn out_shape(&self) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend([self.m, self.n]);
        s
    }
}

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

/// The product `a @ b` (transposed as `ta`, `tb`) of sizes `d`.
pub(super) fn matmul_kernel<T: MatElem>(
    a: &ndarray::ArrayViewD<'_, T>,
    b: &ndarray::ArrayViewD<'_, T>,
    ta: bool,
    tb: bool,
    d: &MatmulDims,
) -> ArrayD<T> {
    let mut out = output_buffer(d);
    compute_into(a, b, ta, tb, d, &mut out);
    into_array(d, out)
}

/// Inner dimensions up to this are one inner block of the gemm crate: the product is summed
/// whole before it is added to `dst`, as a separate sum would add it.
const MAX_ADD_DEPTH: usize = 512;

/// Whether [`matmul_add_kernel`] takes a product of these sizes and dtype: one GEMM on one
/// thread (products that would split across threads, or pair with the other gradient's, are
/// better computed apart), one inner block.
pub(super) fn addable(d: &MatmulDims, dtype: DType) -> bool {
    let (m, k, n) = (d.m, d.k, d.n);
    // Vector products (one output side 1, or k = 2) and outputs of at most 16 x 16 take the
    // gemm crate's other kernels, whose sums add `dst` in another order: left to the sum. An
    // outer product of real numbers (k = 1, the gradient of `h @ r` for a column `r`) is
    // written as one (`matmul_add_into`).
    let real = matches!(dtype, DType::F32 | DType::F64);
    let kernel = m > 1 && n > 1 && m * n > 16 * 16 && (k > 2 || (k == 1 && real));
    let work = m.saturating_mul(n).saturating_mul(k);
    d.batch.is_empty() && kernel && k <= MAX_ADD_DEPTH && work < PAIR_MIN_WORK
}

/// `dst += a @ b` (transposed as `ta`, `tb`) for 2-D operands, `dst` row-major `[m, n]`, in one
/// GEMM that reads `dst`: the same numbers as the product added afterwards (the product is
/// summed in one inner block, then added). False (nothing written) for products that would
/// split across threads or take more than one inner block, and for types without such a GEMM.
pub(super) fn matmul_add_kernel<T: MatElem>(
    a: &ndarray::ArrayViewD<'_, T>,
    b: &ndarray::ArrayViewD<'_, T>,
    ta: bool,
    tb: bool,
    d: &MatmulDims,
    dst: &mut [T],
) -> bool {
    let (m, k, n) = (d.m, d.k, d.n);
    let fits = a.ndim() == 2 && b.ndim() == 2 && dst.len() == m * n;
    if !fits || !addable(d, T::DTYPE) {
        return false;
    }
    let (a_rs, a_cs) = matrix_strides(a, ta);
    let (b_rs, b_cs) = matrix_strides(b, tb);
    // SAFETY: the views' own pointers and strides over validated sizes; `dst` holds m * n
    // elements, row-major, and aliases neither operand (it is a buffer nothing else holds).
    unsafe {
        T::matmul_add_into(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            n as isize,
            1,
            a.as_ptr(),
            a_rs,
            a_cs,
            b.as_ptr(),
            b_rs,
            b_cs,
        )
    }
}

/// Two independent products, `first` on this thread and `second` on a helper when one takes
/// it ([`crate::ops::parallel::both`]), each the same single-threaded GEMM as alone. Both
/// outputs are allocated here, on the calling thread: a buffer allocated on a helper came from
/// that thread's heap, which reclaims it only when the helper allocates again (it sleeps
/// between jobs), so each one was fresh memory, and a 512 KB gradient cost ~60 µs of page
/// faults.
pub(super) fn matmul_kernel_pair<T: MatElem>(
    first: Factors<'_, T>,
    second: Factors<'_, T>,
) -> (ArrayD<T>, ArrayD<T>) {
    let (mut x, mut y) = (output_buffer(first.4), output_buffer(second.4));
    let (f, s) = (&first, &second);
    crate::ops::parallel::both(
        || compute_into(f.0, f.1, f.2, f.3, f.4, &mut x),
        || compute_into(s.0, s.1, s.2, s.3, s.4, &mut y),
    );
    (into_array(first.4, x), into_array(second.4, y))
}

/// The operands of one product, their transpose flags and its sizes.
pub(super) type Factors<'a, T> = (
    &'a ndarray::ArrayViewD<'a, T>,
    &'a ndarray::ArrayViewD<'a, T>,
    bool,
    bool,
    &'a MatmulDims,
);

/// An empty buffer with room for the product's output (zeros when the inner dimension is
/// empty: no GEMM writes them).
fn output_buffer<T: MatElem>(d: &MatmulDims) -> Vec<T> {
    let total = d.batch.iter().product::<usize>() * d.m * d.n;
    // Every GEMM writes each output element (without reading it), so the buffer starts
    // uninitialised.
    if d.k == 0 {
        vec![T::default(); total]
    } else {
        Vec::with_capacity(total)
    }
}

fn into_array<T: MatElem>(d: &MatmulDims, out: Vec<T>) -> ArrayD<T> {
    match ArrayD::from_shape_vec(IxDyn(&d.out_shape()), out) {
        Ok(array) => array,
        Err(_) => unreachable!("the output holds batch * m * n elements"),
    }
}

/// Computes the product into `out` (from [`output_buffer`]), setting its length.
fn compute_into<T: MatElem>(
    a: &ndarray::ArrayViewD<'_, T>,
    b: &ndarray::ArrayViewD<'_, T>,
    ta: bool,
    tb: bool,
    d: &MatmulDims,
    out: &mut Vec<T>,
) {
    let (m, k, n) = (d.m, d.k, d.n);
    let count: usize = d.batch.iter().product();
    let total = count * m * n;
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
        // SAFETY: `out` has room for `total` elements (`output_buffer`), and the products above
        // wrote all of them.
        unsafe { out.set_len(total) };
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
    if !narrow_rows_split(rows, cols, k, dst, lhs) && (!split || work < PARALLEL_GEMM_WORK) {
        // SAFETY: as the caller promises.
        if unsafe { narrow_output(rows, cols, k, dst, lhs, rhs) } {
            return;
        }
        if let Some(turned) = T::turned_product() {
            // SAFETY: as the caller promises.
            if unsafe { turned(rows, cols, k, dst, lhs, rhs) } {
                return;
            }
        }
        unsafe {
            T::matmul_into(
                rows, cols, k, dst.0, dst.1, dst.2, lhs.0, lhs.1, lhs.2, rhs.0, rhs.1, rhs.2,
            )
        };
        return;
    }
    // Blocks along the longer side, in whole register tiles.
    let by_rows = rows >= cols;
    let (len, other) = if by_rows { (rows, cols) } else { (cols, rows) };
    // The gemm crate walks the output's unit-stride axis with its tall register tile (4 SIMD
    // vectors: 64 float32 with AVX-512) and the other with a short one (a few columns).
    // Blocks along the tall axis in whole tall tiles: 512 columns of float32 in blocks of 96
    // and 80 left a 32- or 16-row remainder per block, run by the narrow edge kernels
    // (x1x6, x2x6: 7% of the MLP step's samples at 2 threads, 2% at 1).
    let tall_axis_is_rows = dst.2.unsigned_abs() >= dst.1.unsigned_abs();
    let tile = if by_rows == tall_axis_is_rows {
        (TALL_TILE_BYTES / std::mem::size_of::<T>().max(1)).max(16)
    } else {
        16
    };
    // The gemm crate blocks the inner dimension differently for products of at most 64 x 64
    // (`kc` at most 512): a block that small, cut from a larger product with k > 512, would sum
    // in another order than the whole product. Blocks stay above 64 then.
    let min_tiles = if other <= SMALL_GEMM_SIDE && k > SMALL_GEMM_KC {
        (SMALL_GEMM_SIDE + 1).div_ceil(tile)
    } else {
        1
    };
    // A multiple of the thread count, so that equal blocks end together.
    let threads = crate::ops::parallel_threads().max(2);
    let tasks = (work / GEMM_TASK_WORK)
        .max(1)
        .next_multiple_of(threads)
        .min(8 * threads)
        .min((len.div_ceil(tile) / min_tiles).max(1));
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
    let blocks = balanced_blocks(len, tasks, tile);
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

/// Multiply-adds from which a narrow product with a row-major left operand (`h @ W` of a
/// 512 -> 10 layer, 1.3M) splits its rows across threads while a helper is awake: the gemm
/// crate runs it at a third of its usual speed (36 us for `[256, 512] @ [512, 10]`), and its
/// column-major form packs the left operand with strided reads (83 us).
const NARROW_SPLIT_WORK: usize = 1 << 20;

/// Whether a product below [`PARALLEL_GEMM_WORK`] should still split by rows (each block the
/// same GEMM on fewer rows, so the same sums): a row-major output at most [`NARROW_COLS`]
/// wide over at least 128 rows, a row-major left operand, and a helper awake.
fn narrow_rows_split<T>(
    rows: usize,
    cols: usize,
    k: usize,
    dst: (*mut T, isize, isize),
    lhs: (*const T, isize, isize),
) -> bool {
    let work = rows * cols * k;
    cols <= NARROW_COLS
        && rows >= 128
        && dst.2 == 1
        && lhs.2 == 1
        && work >= NARROW_SPLIT_WORK
        && crate::ops::parallel::helpers_awake()
        && worth_splitting(work, NARROW_SPLIT_WORK)
}

/// Outputs at most this many columns wide count as narrow for [`narrow_output`]: less than one
/// AVX-512 register of float32, the gemm crate's tall tile would run mostly empty along them.
const NARROW_COLS: usize = 16;

/// `dst[rows x cols] = lhs[rows x k] @ rhs[k x cols]` for a narrow row-major output over many
/// rows with a column-major `lhs` (`h^T @ dy` of a dense layer with few outputs: the weight
/// gradient of a 512 -> 10 layer), written column-major into a scratch and copied. The gemm
/// crate walks the output's unit-stride axis with its tall register tile (64 float32): along
/// 10 columns most of each tile is empty, and it packs `lhs` row by row with strided reads;
/// column-major, the tile runs along the rows and `lhs` packs with unit stride. The MLP step's
/// `[512, 256]^T @ [256, 10]` took 41.8 -> ~13 us. Each element is the same sum in the same
/// order (one inner block: `k` at most [`MAX_ADD_DEPTH`]; not the small-product path, whose
/// sides are at most 64), so the values do not change. False (nothing written) otherwise.
///
/// # Safety
/// As for [`MatElem::matmul_into`].
unsafe fn narrow_output<T: MatElem>(
    rows: usize,
    cols: usize,
    k: usize,
    dst: (*mut T, isize, isize),
    lhs: (*const T, isize, isize),
    rhs: (*const T, isize, isize),
) -> bool {
    let real = matches!(T::DTYPE, DType::F32 | DType::F64);
    let narrow = dst.2 == 1 && cols <= NARROW_COLS && cols > 1 && rows > 4 * SMALL_GEMM_SIDE;
    if !(real && narrow && lhs.1 == 1 && lhs.2 != 1 && k > 2 && k <= MAX_ADD_DEPTH) {
        return false;
    }
    // SAFETY: the operands are as the caller promises; `dst` row `i` holds `cols` elements at
    // `dst.1` apart.
    unsafe {
        let scratch = T::column_major_product(rows, cols, k, lhs, rhs);
        for i in 0..rows {
            let row = dst.0.offset(i as isize * dst.1);
            for j in 0..cols {
                *row.add(j) = scratch[j * rows + i];
            }
        }
    }
    true
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

/// `len` rows (or columns) cut into at most `tasks` blocks of whole `tile`-wide register tiles,
/// as `(start, size)`: sizes differ by one tile at most, the larger blocks first, so threads
/// claiming blocks in turn end together. Equal blocks of `ceil(len / tasks)` rounded up to 16
/// left a short last block: 512 columns in 6 tasks were five blocks of 96 and one of 32, so
/// with 2 threads one thread took 288 columns and the other 224 (x @ W1 of the MLP step, 12%
/// longer than an even split); now 6 + 5 + 5 tiles each.
fn balanced_blocks(len: usize, tasks: usize, tile: usize) -> Vec<(usize, usize)> {
    let tiles = len.div_ceil(tile);
    let tasks = tasks.clamp(1, tiles.max(1));
    let (small, larger) = (tiles / tasks, tiles % tasks);
    let mut blocks = Vec::with_capacity(tasks);
    let mut start = 0;
    for i in 0..tasks {
        let size = ((small + usize::from(i < larger)) * tile).min(len - start);
        if size > 0 {
            blocks.push((start, size));
        }
        start += size;
    }
    blocks
}
