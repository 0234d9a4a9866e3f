//! `matmul` and `matvec`.
//!
//! The kernel is the `gemm` crate: it takes raw pointers with row and column strides, so
//! transposes, broadcast batch dimensions (stride 0) and any ndarray layout cost no copy.
//! Integer matmul (as TensorFlow allows) uses a plain loop with wrapping arithmetic.
use gemm::Parallelism;
use ndarray::{ArcArray, ArrayD, IxDyn};
use rayon::prelude::*;

use super::batch_axis_rows;
use crate::dispatch2;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{broadcast_shapes, expand_dims, reshape, same_dtype, shape_of, sum_to_shape};
use crate::tape::{mixes_input, record_rows};
use crate::tensor::{Element, Tensor};

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

/// Which operands' batch rows reach other rows of the product (for `batch_jacobian`).
///
/// With batch axes (output rank > 2), output row `i` is batch element `i`: an operand keeps
/// its rows when it has that axis unbroadcast; one broadcast along it (a rank-2 `b` against a
/// rank-3 `a`) reaches every row. A plain matrix product's row `i` is row `i` of `op(a)`: `a`
/// keeps its rows unless transposed (then its axis 0 is contracted), and `b` always mixes (its
/// axis 0 is either contracted or, transposed, becomes the output's columns).
fn matmul_row_mixing(sa: &[usize], sb: &[usize], ta: bool, dims: &MatmulDims) -> u8 {
    match dims.batch.first() {
        Some(&rows) => {
            let rank = dims.batch.len() + 2;
            batch_axis_rows(0, sa, rank, rows) | batch_axis_rows(1, sb, rank, rows)
        }
        None if ta => mixes_input(0) | mixes_input(1),
        None => mixes_input(1),
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
    let mixes = matmul_row_mixing(&sa, &sb, ta, &dims);
    record_rows(op, &[a, b], &y, &[a, b], mixes, move |s, dy| {
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
