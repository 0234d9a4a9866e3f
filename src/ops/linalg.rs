//! Linear algebra: matmul (batched, NumPy broadcasting of the batch dimensions), matvec,
//! einsum, eye, solve and inv.
//!
//! The matmul kernel is the `gemm` crate: it takes raw pointers with row and column strides, so
//! transposes, broadcast batch dimensions (stride 0) and any ndarray layout cost no copy.
//! Integer matmul (as TensorFlow allows) uses a plain loop with wrapping arithmetic.
use gemm::Parallelism;
use ndarray::{ArcArray, ArrayD, IxDyn};
use rayon::prelude::*;

use super::{
    expand_dims, negative, reduce_sum, reshape, same_dtype, shape_of, sum_to_shape, transpose,
};
use crate::dispatch;
use crate::dispatch2;
use crate::dtype::{DType, Float};
use crate::error::{fmt_shape, Error, Result};
use crate::tape::record;
use crate::tensor::{Element, Tensor};

// ---------------------------------------------------------------------------------------------
// matmul
// ---------------------------------------------------------------------------------------------

/// Multiply-adds above which one GEMM runs on rayon's pool (measured in benches/matmul.rs:
/// below it the threads cost more than they save).
const PARALLEL_GEMM_WORK: usize = 96 * 96 * 96;

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
    let batch =
        super::broadcast_shapes(op, &a[..a.len() - 2], &b[..b.len() - 2]).map_err(|_| {
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
    /// `dst[m x n] = lhs[m x k] @ rhs[k x n]`; `dst` rows are contiguous with stride `dst_rs`.
    ///
    /// # Safety
    /// Every pointer, offset by its strides over the given sizes, stays inside its allocation;
    /// `dst` is valid for writes and aliases neither operand.
    #[allow(clippy::too_many_arguments)]
    unsafe fn matmul_into(
        m: usize,
        n: usize,
        k: usize,
        dst: *mut Self,
        dst_rs: isize,
        lhs: *const Self,
        lhs_rs: isize,
        lhs_cs: isize,
        rhs: *const Self,
        rhs_rs: isize,
        rhs_cs: isize,
        parallel: bool,
    );
}

macro_rules! gemm_elem {
    ($t:ty) => {
        impl MatElem for $t {
            unsafe fn matmul_into(
                m: usize,
                n: usize,
                k: usize,
                dst: *mut $t,
                dst_rs: isize,
                lhs: *const $t,
                lhs_rs: isize,
                lhs_cs: isize,
                rhs: *const $t,
                rhs_rs: isize,
                rhs_cs: isize,
                parallel: bool,
            ) {
                let parallelism = if parallel {
                    Parallelism::Rayon(0)
                } else {
                    Parallelism::None
                };
                // gemm computes dst := alpha * dst + beta * lhs @ rhs (dst not read here).
                unsafe {
                    gemm::gemm(
                        m,
                        n,
                        k,
                        dst,
                        1,
                        dst_rs,
                        false,
                        lhs,
                        lhs_cs,
                        lhs_rs,
                        rhs,
                        rhs_cs,
                        rhs_rs,
                        0.0,
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
gemm_elem!(f32);
gemm_elem!(f64);

macro_rules! int_elem {
    ($t:ty) => {
        impl MatElem for $t {
            unsafe fn matmul_into(
                m: usize,
                n: usize,
                k: usize,
                dst: *mut $t,
                dst_rs: isize,
                lhs: *const $t,
                lhs_rs: isize,
                lhs_cs: isize,
                rhs: *const $t,
                rhs_rs: isize,
                rhs_cs: isize,
                _parallel: bool,
            ) {
                for i in 0..m as isize {
                    let row = unsafe { dst.offset(i * dst_rs) };
                    for j in 0..n {
                        unsafe { *row.add(j) = 0 };
                    }
                    for p in 0..k as isize {
                        let a = unsafe { *lhs.offset(i * lhs_rs + p * lhs_cs) };
                        for j in 0..n as isize {
                            unsafe {
                                let d = row.offset(j);
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
#[derive(Clone, Copy)]
struct SendPtr<T>(*const T);
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
fn matrix_strides<T>(a: &ArcArray<T, IxDyn>, transposed: bool) -> (isize, isize) {
    let s = a.strides();
    let (rs, cs) = (s[s.len() - 2], s[s.len() - 1]);
    if transposed {
        (cs, rs)
    } else {
        (rs, cs)
    }
}

fn matmul_kernel<T: MatElem>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    ta: bool,
    tb: bool,
    d: &MatmulDims,
) -> ArrayD<T> {
    let (m, k, n) = (d.m, d.k, d.n);
    let count: usize = d.batch.iter().product();
    let mut out = vec![T::default(); count * m * n];
    if !out.is_empty() && k > 0 {
        let (a_rs, a_cs) = matrix_strides(a, ta);
        let (b_rs, b_cs) = matrix_strides(b, tb);
        let na = a.ndim() - 2;
        let nb = b.ndim() - 2;
        let off_a = batch_offsets(&a.shape()[..na], &a.strides()[..na], &d.batch);
        let off_b = batch_offsets(&b.shape()[..nb], &b.strides()[..nb], &d.batch);
        let (pa, pb) = (SendPtr(a.as_ptr()), SendPtr(b.as_ptr()));
        let dst_rs = n as isize;
        // A shared right operand and left matrices that follow each other row after row (a
        // dense layer on [batch, rows, features]) make one tall GEMM.
        let fused = count > 1
            && off_b.iter().all(|&o| o == 0)
            && off_a
                .iter()
                .enumerate()
                .all(|(i, &o)| o == i as isize * m as isize * a_rs);
        let work = m * n * k;
        if fused || count == 1 {
            let rows = if fused { count * m } else { m };
            // SAFETY: offsets and strides come from the arrays' own layouts over validated sizes.
            unsafe {
                T::matmul_into(
                    rows,
                    n,
                    k,
                    out.as_mut_ptr(),
                    dst_rs,
                    pa.at(off_a[0]),
                    a_rs,
                    a_cs,
                    pb.at(off_b[0]),
                    b_rs,
                    b_cs,
                    rows * n * k >= PARALLEL_GEMM_WORK,
                )
            };
        } else if work >= PARALLEL_GEMM_WORK {
            for (i, chunk) in out.chunks_mut(m * n).enumerate() {
                // SAFETY: as above; each batch writes its own chunk.
                unsafe {
                    T::matmul_into(
                        m,
                        n,
                        k,
                        chunk.as_mut_ptr(),
                        dst_rs,
                        pa.at(off_a[i]),
                        a_rs,
                        a_cs,
                        pb.at(off_b[i]),
                        b_rs,
                        b_cs,
                        true,
                    )
                };
            }
        } else {
            let run = |(i, chunk): (usize, &mut [T])| {
                // SAFETY: as above; each batch writes its own chunk.
                unsafe {
                    T::matmul_into(
                        m,
                        n,
                        k,
                        chunk.as_mut_ptr(),
                        dst_rs,
                        pa.at(off_a[i]),
                        a_rs,
                        a_cs,
                        pb.at(off_b[i]),
                        b_rs,
                        b_cs,
                        false,
                    )
                }
            };
            if count * work >= PARALLEL_GEMM_WORK {
                out.par_chunks_mut(m * n).enumerate().for_each(run);
            } else {
                out.chunks_mut(m * n).enumerate().for_each(run);
            }
        }
    }
    match ArrayD::from_shape_vec(IxDyn(&d.out_shape()), out) {
        Ok(array) => array,
        Err(_) => unreachable!("the output holds batch * m * n elements"),
    }
}

/// Matrix product of the last two axes, `a @ b`, with the leading (batch) axes broadcast as in
/// NumPy: `[2, 1, 3, 4] @ [5, 4, 6]` is `[2, 5, 3, 6]`. `transpose_a` / `transpose_b` use the
/// transposed matrices (free: the kernel reads through strides). float32, float64, int32, int64.
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    let op = "matmul";
    let dims = matmul_dims(op, a.shape(), b.shape(), transpose_a, transpose_b)?;
    let (ta, tb) = (transpose_a, transpose_b);
    let y = Tensor::new(
        dispatch2!(num a.data(), b.data(), op, |x, z| matmul_kernel(x, z, ta, tb, &dims)),
    );
    let (sa, sb) = (shape_of(a), shape_of(b));
    record(op, &[a, b], &y, &[a, b], move |s, dy| {
        let (a, b) = (&s[0], &s[1]);
        let ga = match (ta, tb) {
            (false, false) => matmul(dy, b, false, true)?,
            (false, true) => matmul(dy, b, false, false)?,
            (true, false) => matmul(b, dy, false, true)?,
            (true, true) => matmul(b, dy, true, true)?,
        };
        // A batched `a` against an unbatched `b` (a dense layer on [batch, rows, features]):
        // fold the batch into the rows instead of a batched product followed by a sum.
        let gb = if !ta && sb.len() == 2 && sa.len() > 2 {
            let rows = sa[..sa.len() - 1].iter().product::<usize>() as isize;
            let a2 = reshape(a, &[rows, sa[sa.len() - 1] as isize])?;
            let dy2 = reshape(dy, &[rows, dy.shape()[dy.ndim() - 1] as isize])?;
            if tb {
                matmul(&dy2, &a2, true, false)?
            } else {
                matmul(&a2, &dy2, true, false)?
            }
        } else {
            match (ta, tb) {
                (false, false) => matmul(a, dy, true, false)?,
                (false, true) => matmul(dy, a, true, false)?,
                (true, false) => matmul(a, dy, false, false)?,
                (true, true) => matmul(dy, a, true, true)?,
            }
        };
        Ok(vec![
            Some(sum_to_shape(&ga, &sa)?),
            Some(sum_to_shape(&gb, &sb)?),
        ])
    });
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
    if let Err(e) = super::broadcast_shapes(op, &sa[..sa.len() - 2], &sx[..sx.len() - 1]) {
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

// ---------------------------------------------------------------------------------------------
// eye
// ---------------------------------------------------------------------------------------------

/// Identity matrices `batch_shape + [num_rows, num_columns]` (columns default to rows).
pub fn eye(
    num_rows: usize,
    num_columns: Option<usize>,
    batch_shape: &[usize],
    dtype: DType,
) -> Tensor {
    let cols = num_columns.unwrap_or(num_rows);
    let mut shape = batch_shape.to_vec();
    shape.extend([num_rows, cols]);
    fn build<T: Element>(shape: &[usize], rows: usize, cols: usize) -> Tensor {
        let (zero, one) = (T::from_f64(0.0), T::from_f64(1.0));
        let per = rows * cols;
        let total: usize = shape.iter().product();
        let values: Vec<T> = (0..total)
            .map(|i| {
                let r = i % per;
                if r / cols == r % cols {
                    one
                } else {
                    zero
                }
            })
            .collect();
        match ArrayD::from_shape_vec(IxDyn(shape), values) {
            Ok(a) => Tensor::from_array(a),
            Err(_) => unreachable!("the length is the product of the shape"),
        }
    }
    match dtype {
        DType::F32 => build::<f32>(&shape, num_rows, cols),
        DType::F64 => build::<f64>(&shape, num_rows, cols),
        DType::I32 => build::<i32>(&shape, num_rows, cols),
        DType::I64 => build::<i64>(&shape, num_rows, cols),
        DType::Bool => build::<bool>(&shape, num_rows, cols),
    }
}

// ---------------------------------------------------------------------------------------------
// solve, inv
// ---------------------------------------------------------------------------------------------

/// LU factorisation with partial pivoting of the row-major `n x n` matrix in `lu`, in place.
/// Returns the row permutation, or `None` when a pivot is exactly zero (singular matrix, the
/// test TensorFlow and LAPACK make).
fn lu_factor<T: Float>(lu: &mut [T], n: usize) -> Option<Vec<usize>> {
    let mut perm: Vec<usize> = (0..n).collect();
    for col in 0..n {
        let mut best = col;
        let mut best_abs = lu[col * n + col].abs();
        for r in col + 1..n {
            let v = lu[r * n + col].abs();
            if v > best_abs {
                best = r;
                best_abs = v;
            }
        }
        if best_abs == T::zero() || best_abs.is_nan() {
            return None;
        }
        if best != col {
            for j in 0..n {
                lu.swap(col * n + j, best * n + j);
            }
            perm.swap(col, best);
        }
        let pivot = lu[col * n + col];
        for r in col + 1..n {
            let factor = lu[r * n + col] / pivot;
            lu[r * n + col] = factor;
            if factor != T::zero() {
                for j in col + 1..n {
                    let u = lu[col * n + j];
                    lu[r * n + j] = lu[r * n + j] - factor * u;
                }
            }
        }
    }
    Some(perm)
}

/// Solves `LU x = P b` for the `n x k` row-major right-hand side `b`, writing `x` to `out`.
fn lu_solve<T: Float>(lu: &[T], perm: &[usize], n: usize, k: usize, b: &[T], out: &mut [T]) {
    for (i, &p) in perm.iter().enumerate() {
        out[i * k..(i + 1) * k].copy_from_slice(&b[p * k..(p + 1) * k]);
    }
    for i in 0..n {
        for r in 0..i {
            let l = lu[i * n + r];
            if l != T::zero() {
                for j in 0..k {
                    out[i * k + j] = out[i * k + j] - l * out[r * k + j];
                }
            }
        }
    }
    for i in (0..n).rev() {
        for r in i + 1..n {
            let u = lu[i * n + r];
            if u != T::zero() {
                for j in 0..k {
                    out[i * k + j] = out[i * k + j] - u * out[r * k + j];
                }
            }
        }
        let d = lu[i * n + i];
        for j in 0..k {
            out[i * k + j] = out[i * k + j] / d;
        }
    }
}

fn not_invertible(op: &str, shape: &[usize], index: usize) -> Error {
    Error::value(
        op,
        format!(
            "matrix is not invertible (matrix {index} of the batch of shape {} has a zero pivot in \
             its LU factorisation)",
            fmt_shape(shape)
        ),
    )
}

/// The batch of `a` broadcast to `batch + [r, c]`, row-major, each matrix transposed if asked.
fn batched_values<T: Element>(a: &ArcArray<T, IxDyn>, batch: &[usize], transposed: bool) -> Vec<T> {
    let nd = a.ndim();
    let (r, c) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let mut shape = batch.to_vec();
    shape.extend([r, c]);
    let view = match a.broadcast(IxDyn(&shape)) {
        Some(v) => v,
        None => unreachable!("batch shapes were validated"),
    };
    if !transposed {
        return view.iter().copied().collect();
    }
    let mut perm: Vec<usize> = (0..shape.len()).collect();
    perm.swap(shape.len() - 2, shape.len() - 1);
    view.permuted_axes(IxDyn(&perm)).iter().copied().collect()
}

fn solve_kernel<T: Float + Element>(
    op: &str,
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    adjoint: bool,
    batch: &[usize],
    full_a_shape: &[usize],
) -> Result<ArrayD<T>> {
    let n = a.shape()[a.ndim() - 1];
    let k = b.shape()[b.ndim() - 1];
    let av = batched_values(a, batch, adjoint);
    let bv = batched_values(b, batch, false);
    let count: usize = batch.iter().product();
    let mut out = vec![T::zero(); count * n * k];
    if n > 0 {
        let work = |(i, dst): (usize, &mut [T])| -> Result<()> {
            let mut lu = av[i * n * n..(i + 1) * n * n].to_vec();
            let perm = lu_factor(&mut lu, n).ok_or_else(|| not_invertible(op, full_a_shape, i))?;
            if k > 0 {
                lu_solve(&lu, &perm, n, k, &bv[i * n * k..(i + 1) * n * k], dst);
            }
            Ok(())
        };
        if count > 1 && count * n * n * (n + k) >= 1 << 20 {
            out.par_chunks_mut((n * k).max(1))
                .enumerate()
                .try_for_each(work)?;
        } else if k > 0 {
            out.chunks_mut(n * k).enumerate().try_for_each(work)?;
        } else {
            // Nothing to solve for, but a singular matrix is still an error.
            (0..count).try_for_each(|i| work((i, &mut [])))?;
        }
    }
    let mut shape = batch.to_vec();
    shape.extend([n, k]);
    match ArrayD::from_shape_vec(IxDyn(&shape), out) {
        Ok(array) => Ok(array),
        Err(_) => unreachable!("the output holds batch * n * k elements"),
    }
}

/// Validates a square `[..., M, M]` matrix operand.
fn check_square(op: &str, matrix: &Tensor) -> Result<usize> {
    let s = matrix.shape();
    if s.len() < 2 || s[s.len() - 1] != s[s.len() - 2] {
        return Err(Error::shape(
            op,
            format!(
                "matrix must have shape [..., M, M] (square), got {}",
                fmt_shape(s)
            ),
        ));
    }
    Ok(s[s.len() - 1])
}

/// Solves `matrix @ x = rhs` for `x`: `matrix` `[..., M, M]`, `rhs` `[..., M, K]`, the batch
/// axes broadcast. A singular matrix is a ValueError ("matrix is not invertible").
pub fn solve(matrix: &Tensor, rhs: &Tensor) -> Result<Tensor> {
    solve_adjoint(matrix, rhs, false)
}

/// [`solve`] with TensorFlow's `adjoint` flag: solves `matrix^T @ x = rhs` when `adjoint`.
pub fn solve_adjoint(matrix: &Tensor, rhs: &Tensor, adjoint: bool) -> Result<Tensor> {
    let op = "solve";
    let m = check_square(op, matrix)?;
    let (sa, sb) = (matrix.shape(), rhs.shape());
    if sb.len() < 2 || sb[sb.len() - 2] != m {
        return Err(Error::shape(
            op,
            format!(
                "rhs must have shape [..., {m}, K] to match matrix of shape {}, got {}",
                fmt_shape(sa),
                fmt_shape(sb)
            ),
        ));
    }
    let batch =
        super::broadcast_shapes(op, &sa[..sa.len() - 2], &sb[..sb.len() - 2]).map_err(|_| {
            Error::shape(
                op,
                format!(
                    "batch dimensions of matrix {} and rhs {} do not broadcast",
                    fmt_shape(sa),
                    fmt_shape(sb)
                ),
            )
        })?;
    let full: Vec<usize> = sa.to_vec();
    let y = Tensor::new(
        dispatch2!(float matrix.data(), rhs.data(), op, |a, b| solve_kernel(
        op, a, b, adjoint, &batch, &full
    )?),
    );
    let (sa, sb) = (shape_of(matrix), shape_of(rhs));
    record(op, &[matrix, rhs], &y, &[matrix, &y], move |s, dy| {
        let (a, x) = (&s[0], &s[1]);
        // TensorFlow's MatrixSolve gradient: grhs = A^-T dy, gA = -grhs x^T (or -x grhs^T).
        let grhs = solve_adjoint(a, dy, !adjoint)?;
        let ga = if adjoint {
            matmul(x, &grhs, false, true)?
        } else {
            matmul(&grhs, x, false, true)?
        };
        Ok(vec![
            Some(sum_to_shape(&negative(&ga)?, &sa)?),
            Some(sum_to_shape(&grhs, &sb)?),
        ])
    });
    Ok(y)
}

/// The `m x m` identity in `like`'s element type.
fn identity_like<T: Element>(_like: &ArcArray<T, IxDyn>, m: usize) -> ArcArray<T, IxDyn> {
    let (zero, one) = (T::from_f64(0.0), T::from_f64(1.0));
    ArcArray::from_shape_fn(IxDyn(&[m, m]), |i| if i[0] == i[1] { one } else { zero })
}

/// The inverse of each `[..., M, M]` matrix. A singular matrix is a ValueError.
pub fn inv(matrix: &Tensor) -> Result<Tensor> {
    let op = "inv";
    let m = check_square(op, matrix)?;
    let batch = matrix.shape()[..matrix.ndim() - 2].to_vec();
    let full = matrix.shape().to_vec();
    let y = Tensor::new(dispatch!(float matrix.data(), op, |a| {
        let identity = identity_like(a, m);
        solve_kernel(op, a, &identity, false, &batch, &full)?
    }));
    record(op, &[matrix], &y, &[&y], |s, dy| {
        // d(A^-1) = -A^-1 dA A^-1, so gA = -Y^T dy Y^T.
        let yinv = &s[0];
        let g = matmul(&matmul(yinv, dy, true, false)?, yinv, false, true)?;
        Ok(vec![Some(negative(&g)?)])
    });
    Ok(y)
}

// ---------------------------------------------------------------------------------------------
// generalised diagonals (for einsum's repeated labels)
// ---------------------------------------------------------------------------------------------

/// Validates `axis_map` (input axis -> output axis, onto `0..k`) for `shape`, returning the
/// output shape.
fn diagonal_shape(op: &str, shape: &[usize], axis_map: &[usize]) -> Result<Vec<usize>> {
    if axis_map.len() != shape.len() {
        return Err(Error::value(
            op,
            format!(
                "axis map {axis_map:?} does not match a tensor of shape {}",
                fmt_shape(shape)
            ),
        ));
    }
    let k = axis_map.iter().map(|&j| j + 1).max().unwrap_or(0);
    let mut out: Vec<Option<usize>> = vec![None; k];
    for (i, &j) in axis_map.iter().enumerate() {
        match out[j] {
            None => out[j] = Some(shape[i]),
            Some(d) if d == shape[i] => {}
            Some(d) => {
                return Err(Error::shape(
                    op,
                    format!(
                    "axes mapped to one diagonal must have equal sizes, got {d} and {} in shape {}",
                    shape[i],
                    fmt_shape(shape)
                ),
                ))
            }
        }
    }
    out.into_iter()
        .map(|d| {
            d.ok_or_else(|| Error::value(op, format!("axis map {axis_map:?} skips an output axis")))
        })
        .collect()
}

/// Row-major offsets into a standard-layout array of `full` shape, for every index of the
/// `diag` shape (row-major), where diagonal axis `j` steps every full axis mapped to it.
fn diagonal_offsets(full: &[usize], axis_map: &[usize], diag: &[usize]) -> Vec<usize> {
    let mut full_strides = vec![0usize; full.len()];
    let mut acc = 1;
    for i in (0..full.len()).rev() {
        full_strides[i] = acc;
        acc *= full[i];
    }
    let mut steps = vec![0usize; diag.len()];
    for (i, &j) in axis_map.iter().enumerate() {
        steps[j] += full_strides[i];
    }
    let count: usize = diag.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; diag.len()];
    let mut offset = 0usize;
    for _ in 0..count {
        out.push(offset);
        for d in (0..diag.len()).rev() {
            index[d] += 1;
            offset += steps[d];
            if index[d] < diag[d] {
                break;
            }
            offset -= steps[d] * diag[d];
            index[d] = 0;
        }
    }
    out
}

/// The generalised diagonal: axis `i` of `x` becomes axis `axis_map[i]` of the result; axes
/// mapped to the same output axis are walked together (`[1, 0, 0]` on `[i, j, j]`-labelled
/// `x` gives `y[j, i] = x[i, j, j]`). Its gradient embeds back into zeros
/// ([`diagonal_embed`]).
pub fn diagonal_part(x: &Tensor, axis_map: &[usize]) -> Result<Tensor> {
    let op = "diagonal_part";
    let diag = diagonal_shape(op, x.shape(), axis_map)?;
    let offsets = diagonal_offsets(x.shape(), axis_map, &diag);
    fn take<T: Element>(a: &ArcArray<T, IxDyn>, offsets: &[usize], diag: &[usize]) -> ArrayD<T> {
        let standard = a.as_standard_layout();
        let values: Vec<T> = match standard.as_slice() {
            Some(s) => offsets.iter().map(|&o| s[o]).collect(),
            None => unreachable!("a standard-layout array is contiguous"),
        };
        match ArrayD::from_shape_vec(IxDyn(diag), values) {
            Ok(v) => v,
            Err(_) => unreachable!("one value per index"),
        }
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| take(a, &offsets, &diag)));
    let full = shape_of(x);
    let map = axis_map.to_vec();
    record(op, &[x], &y, &[], move |_, dy| {
        Ok(vec![Some(diagonal_embed(dy, &map, &full)?)])
    });
    Ok(y)
}

/// The inverse of [`diagonal_part`]: a tensor of shape `shape`, zero except on the diagonal,
/// which holds `x`. Its gradient is the diagonal part.
pub fn diagonal_embed(x: &Tensor, axis_map: &[usize], shape: &[usize]) -> Result<Tensor> {
    let op = "diagonal_embed";
    let diag = diagonal_shape(op, shape, axis_map)?;
    if diag != x.shape() {
        return Err(Error::shape(
            op,
            format!(
                "the diagonal of shape {} under axis map {axis_map:?} is {}, got a tensor of shape {}",
                fmt_shape(shape),
                fmt_shape(&diag),
                fmt_shape(x.shape())
            ),
        ));
    }
    let offsets = diagonal_offsets(shape, axis_map, &diag);
    fn put<T: Element>(a: &ArcArray<T, IxDyn>, offsets: &[usize], shape: &[usize]) -> ArrayD<T> {
        let total: usize = shape.iter().product();
        let mut values = vec![T::default(); total];
        for (&o, &v) in offsets.iter().zip(a.iter()) {
            values[o] = v;
        }
        match ArrayD::from_shape_vec(IxDyn(shape), values) {
            Ok(v) => v,
            Err(_) => unreachable!("one value per index"),
        }
    }
    let y = Tensor::new(dispatch!(all x.data(), |a| put(a, &offsets, shape)));
    let map = axis_map.to_vec();
    record(op, &[x], &y, &[], move |_, dy| {
        Ok(vec![Some(diagonal_part(dy, &map)?)])
    });
    Ok(y)
}

// ---------------------------------------------------------------------------------------------
// einsum
// ---------------------------------------------------------------------------------------------

/// A subscript label: a letter, or one axis of the broadcast (`...`) part, counted from the
/// right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Label {
    Letter(char),
    Ellipsis(usize),
}

/// One term of the equation: its letters, with the position of `...` if present.
struct Term {
    letters: Vec<char>,
    ellipsis: Option<usize>,
}

fn parse_term(equation: &str, text: &str) -> Result<Term> {
    let bad = |why: String| Error::value("einsum", format!("invalid equation '{equation}': {why}"));
    let mut letters = Vec::new();
    let mut ellipsis = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_alphabetic() {
            letters.push(c);
        } else if c == '.' {
            if chars.next() != Some('.') || chars.next() != Some('.') {
                return Err(bad(format!(
                    "'.' must come as an ellipsis '...' in term '{text}'"
                )));
            }
            if ellipsis.is_some() {
                return Err(bad(format!("more than one ellipsis in term '{text}'")));
            }
            ellipsis = Some(letters.len());
        } else {
            return Err(bad(format!(
                "unexpected character '{c}' (labels are letters a-z, A-Z)"
            )));
        }
    }
    Ok(Term { letters, ellipsis })
}

/// The labels of a term for an operand of rank `ndim`, with `...` expanded right-aligned.
fn term_labels(equation: &str, term: &Term, shape: &[usize], index: usize) -> Result<Vec<Label>> {
    let ndim = shape.len();
    let named = term.letters.len();
    let fits = match term.ellipsis {
        None => ndim == named,
        Some(_) => ndim >= named,
    };
    if !fits {
        return Err(Error::shape(
            "einsum",
            format!(
                "equation '{equation}': operand {index} has shape {} (rank {ndim}) but its subscripts name {named} axes{}",
                fmt_shape(shape),
                if term.ellipsis.is_some() { " besides '...'" } else { "" }
            ),
        ));
    }
    let mut labels: Vec<Label> = term.letters.iter().map(|&c| Label::Letter(c)).collect();
    if let Some(at) = term.ellipsis {
        let extra = ndim - named;
        let broadcast = (0..extra).map(|i| Label::Ellipsis(extra - 1 - i));
        labels.splice(at..at, broadcast);
    }
    Ok(labels)
}

/// Contracts two operands over their shared labels not in `keep`, with one batched matmul.
fn contract(
    a: &Tensor,
    la: &[Label],
    b: &Tensor,
    lb: &[Label],
    keep: &[Label],
    size: &dyn Fn(Label) -> usize,
) -> Result<(Tensor, Vec<Label>)> {
    // Labels of one side that neither the other side nor anything later needs: sum them now.
    let lonely = |x: &Tensor, own: &[Label], other: &[Label]| -> Result<(Tensor, Vec<Label>)> {
        let axes: Vec<isize> = (0..own.len())
            .filter(|&i| !other.contains(&own[i]) && !keep.contains(&own[i]))
            .map(|i| i as isize)
            .collect();
        if axes.is_empty() {
            return Ok((x.clone(), own.to_vec()));
        }
        let rest = own
            .iter()
            .copied()
            .filter(|l| other.contains(l) || keep.contains(l))
            .collect();
        Ok((reduce_sum(x, Some(&axes), false)?, rest))
    };
    let (a, la) = lonely(a, la, lb)?;
    let (b, lb) = lonely(b, lb, &la)?;
    let (a, la, b, lb) = (&a, &la[..], &b, &lb[..]);
    let batch: Vec<Label> = la
        .iter()
        .copied()
        .filter(|l| lb.contains(l) && keep.contains(l))
        .collect();
    let summed: Vec<Label> = la
        .iter()
        .copied()
        .filter(|l| lb.contains(l) && !keep.contains(l))
        .collect();
    let a_only: Vec<Label> = la.iter().copied().filter(|l| !lb.contains(l)).collect();
    let b_only: Vec<Label> = lb.iter().copied().filter(|l| !la.contains(l)).collect();
    let position = |labels: &[Label], l: &Label| labels.iter().position(|x| x == l).unwrap_or(0);
    let product = |ls: &[Label]| ls.iter().map(|&l| size(l)).product::<usize>() as isize;
    let nb = product(&batch);

    // Arrange each operand as [batch, free, summed] or [batch, summed, free], whichever is
    // already its layout (then no transpose), and tell matmul which through its flags.
    let arrange = |x: &Tensor,
                   labels: &[Label],
                   free: &[Label],
                   summed_first: bool|
     -> Result<(Tensor, bool)> {
        let order_plain: Vec<Label> = batch.iter().chain(free).chain(&summed).copied().collect();
        let order_flipped: Vec<Label> = batch.iter().chain(&summed).chain(free).copied().collect();
        let flipped = if order_flipped == labels {
            true
        } else if order_plain == labels {
            false
        } else {
            summed_first
        };
        let order = if flipped { order_flipped } else { order_plain };
        let perm: Vec<usize> = order.iter().map(|l| position(labels, l)).collect();
        let x = transpose(x, Some(&perm))?;
        let dims = if flipped {
            [nb, product(&summed), product(free)]
        } else {
            [nb, product(free), product(&summed)]
        };
        Ok((reshape(&x, &dims)?, flipped))
    };
    let (a3, a_flipped) = arrange(a, la, &a_only, false)?;
    let (b3, b_flipped) = arrange(b, lb, &b_only, true)?;
    // a3 is [nb, M, K] (flipped: [nb, K, M]); b3 is [nb, K, N] when flipped, else [nb, N, K].
    let product3 = matmul(&a3, &b3, a_flipped, !b_flipped)?;
    let labels: Vec<Label> = batch
        .iter()
        .chain(&a_only)
        .chain(&b_only)
        .copied()
        .collect();
    let dims: Vec<isize> = labels.iter().map(|&l| size(l) as isize).collect();
    Ok((reshape(&product3, &dims)?, labels))
}

/// Einstein summation, TensorFlow's `tf.einsum`: `"ij,jk->ik"`, `"bij,bjk->bik"`, `"ii->i"`
/// (diagonal), `"ii->"` (trace), `"bxby->bxy"`, `"i,i->"`, `"ij->ji"`, any number of operands,
/// `...` for broadcast axes, and the implicit form without `->` (output: the labels used once,
/// in alphabetical order). Built from differentiable ops, so gradients of any order follow.
pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    let op = "einsum";
    let bad = |why: String| Error::value(op, format!("invalid equation '{equation}': {why}"));
    let compact: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match compact.split_once("->") {
        Some((l, r)) => {
            if r.contains("->") {
                return Err(bad("more than one '->'".into()));
            }
            (l, Some(r))
        }
        None => (compact.as_str(), None),
    };
    let terms_text: Vec<&str> = lhs.split(',').collect();
    if terms_text.len() != operands.len() {
        return Err(bad(format!(
            "it has {} input term(s) but {} operand(s) were given",
            terms_text.len(),
            operands.len()
        )));
    }
    let terms = terms_text
        .iter()
        .map(|t| parse_term(equation, t))
        .collect::<Result<Vec<_>>>()?;
    let out_term = match rhs {
        Some(text) => {
            let term = parse_term(equation, text)?;
            for (i, c) in term.letters.iter().enumerate() {
                if term.letters[..i].contains(c) {
                    return Err(bad(format!("output label '{c}' appears more than once")));
                }
                if !terms.iter().any(|t| t.letters.contains(c)) {
                    return Err(bad(format!("output label '{c}' appears in no input")));
                }
            }
            Some(term)
        }
        None => None,
    };
    for x in operands.iter().skip(1) {
        same_dtype(op, &operands[0], x)?;
    }

    // Labels of every operand, and each label's size (equal everywhere, except that broadcast
    // axes may be 1).
    let mut labels: Vec<Vec<Label>> = Vec::with_capacity(operands.len());
    for (i, (term, x)) in terms.iter().zip(operands).enumerate() {
        labels.push(term_labels(equation, term, x.shape(), i)?);
    }
    let mut sizes: Vec<(Label, usize)> = Vec::new();
    for (i, (ls, x)) in labels.iter().zip(operands).enumerate() {
        for (&l, &d) in ls.iter().zip(x.shape()) {
            match sizes.iter_mut().find(|(k, _)| *k == l) {
                None => sizes.push((l, d)),
                Some((_, s)) if *s == d => {}
                Some((Label::Ellipsis(_), s)) if *s == 1 || d == 1 => *s = (*s).max(d),
                Some((_, s)) => {
                    let name = match l {
                        Label::Letter(c) => format!("label '{c}'"),
                        Label::Ellipsis(_) => "the '...' axes".to_string(),
                    };
                    return Err(Error::shape(
                        op,
                        format!(
                            "equation '{equation}': {name} has size {s} elsewhere but {d} in operand {i} of shape {}",
                            fmt_shape(x.shape())
                        ),
                    ));
                }
            }
        }
    }
    let size_of = |l: Label| {
        sizes
            .iter()
            .find(|(k, _)| *k == l)
            .map(|&(_, s)| s)
            .unwrap_or(1)
    };
    let max_ellipsis = labels
        .iter()
        .flat_map(|ls| ls.iter())
        .filter_map(|l| match l {
            Label::Ellipsis(i) => Some(i + 1),
            Label::Letter(_) => None,
        })
        .max()
        .unwrap_or(0);
    let ellipsis_out: Vec<Label> = (0..max_ellipsis).rev().map(Label::Ellipsis).collect();

    // The output labels.
    let output: Vec<Label> = match out_term {
        Some(term) => {
            let mut out: Vec<Label> = term.letters.iter().map(|&c| Label::Letter(c)).collect();
            match term.ellipsis {
                Some(at) => {
                    out.splice(at..at, ellipsis_out.iter().copied());
                }
                None if max_ellipsis > 0 => {
                    return Err(bad(
                        "the inputs have '...' axes but the output has no '...'".into(),
                    ));
                }
                None => {}
            }
            out
        }
        None => {
            let mut once: Vec<char> = Vec::new();
            for term in &terms {
                for &c in &term.letters {
                    let count = terms
                        .iter()
                        .flat_map(|t| t.letters.iter())
                        .filter(|&&x| x == c)
                        .count();
                    if count == 1 {
                        once.push(c);
                    }
                }
            }
            once.sort_unstable();
            ellipsis_out
                .iter()
                .copied()
                .chain(once.into_iter().map(Label::Letter))
                .collect()
        }
    };

    // Per operand: take diagonals of repeated labels, drop broadcast axes of size 1 that others
    // stretch, and sum labels that appear nowhere else.
    let mut current: Vec<(Tensor, Vec<Label>)> = Vec::with_capacity(operands.len());
    for (i, (x, ls)) in operands.iter().zip(&labels).enumerate() {
        let mut x = x.clone();
        let mut unique: Vec<Label> = Vec::new();
        for l in ls {
            if !unique.contains(l) {
                unique.push(*l);
            }
        }
        if unique.len() != ls.len() {
            let map: Vec<usize> = ls
                .iter()
                .map(|l| unique.iter().position(|u| u == l).unwrap_or(0))
                .collect();
            x = diagonal_part(&x, &map)?;
        }
        let squeezed: Vec<Label> = unique
            .iter()
            .copied()
            .enumerate()
            .filter(|&(axis, l)| {
                !(matches!(l, Label::Ellipsis(_)) && x.shape()[axis] == 1 && size_of(l) != 1)
            })
            .map(|(_, l)| l)
            .collect();
        if squeezed.len() != unique.len() {
            let dims: Vec<isize> = squeezed.iter().map(|&l| size_of(l) as isize).collect();
            x = reshape(&x, &dims)?;
        }
        let elsewhere = |l: &Label| {
            output.contains(l)
                || labels
                    .iter()
                    .enumerate()
                    .any(|(j, other)| j != i && other.contains(l))
        };
        let lonely: Vec<isize> = (0..squeezed.len())
            .filter(|&a| !elsewhere(&squeezed[a]))
            .map(|a| a as isize)
            .collect();
        let kept: Vec<Label> = squeezed.iter().copied().filter(|l| elsewhere(l)).collect();
        if !lonely.is_empty() {
            x = reduce_sum(&x, Some(&lonely), false)?;
        }
        current.push((x, kept));
    }

    // Contract left to right.
    let mut iter = current.into_iter();
    let (mut acc, mut acc_labels) = match iter.next() {
        Some(first) => first,
        None => return Err(bad("it needs at least one operand".into())),
    };
    let rest: Vec<(Tensor, Vec<Label>)> = iter.collect();
    for (j, (x, lx)) in rest.iter().enumerate() {
        let mut keep: Vec<Label> = output.clone();
        for (_, later) in &rest[j + 1..] {
            keep.extend(later.iter().copied());
        }
        let (t, l) = contract(&acc, &acc_labels, x, lx, &keep, &size_of)?;
        acc = t;
        acc_labels = l;
    }
    // Broadcast axes that were 1 everywhere may have been dropped by nothing; every output
    // label is now in `acc_labels`.
    let perm: Vec<usize> = output
        .iter()
        .map(|l| {
            acc_labels.iter().position(|x| x == l).ok_or_else(|| {
                Error::value(
                    op,
                    format!("internal: output label {l:?} was lost in '{equation}'"),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    transpose(&acc, Some(&perm))
}
