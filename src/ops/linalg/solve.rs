//! `solve`, `solve_adjoint` and `inv` (LU factorisation with partial pivoting, batched), and
//! `eye`. Real and complex: a complex pivot is chosen by modulus, `adjoint` is the conjugate
//! transpose, and the gradients multiply by adjoints (TensorFlow's).
use ndarray::{ArrayD, IxDyn};
use rayon::prelude::*;

use num_complex::Complex;

use super::matmul;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::arith::Field;
use crate::ops::kernel::may_split;
use crate::ops::{broadcast_shapes, conj, negative, shape_of, sum_to_batched_shape};
use crate::tape::{record_batched, AxisMap};
use crate::tensor::{Element, Tensor};
use crate::{dispatch, dispatch2};

/// Identity matrices `batch_shape + [num_rows, num_columns]` (columns default to rows). A
/// shape too large is a ValueError, a failed allocation a MemoryError.
pub fn eye(
    num_rows: usize,
    num_columns: Option<usize>,
    batch_shape: &[usize],
    dtype: DType,
) -> Result<Tensor> {
    let cols = num_columns.unwrap_or(num_rows);
    let mut shape = batch_shape.to_vec();
    shape.extend([num_rows, cols]);
    fn build<T: Element>(shape: &[usize], rows: usize, cols: usize) -> Result<Tensor> {
        let (zero, one) = (T::from_f64(0.0), T::from_f64(1.0));
        let total = crate::memory::checked_size("eye", shape)?;
        let mut values: Vec<T> = crate::memory::try_vec("eye", total)?;
        let per = rows * cols;
        values.extend((0..total).map(|i| {
            let r = i % per;
            if r / cols == r % cols {
                one
            } else {
                zero
            }
        }));
        Tensor::from_vec(values, shape)
    }
    match dtype {
        DType::F32 => build::<f32>(&shape, num_rows, cols),
        DType::F64 => build::<f64>(&shape, num_rows, cols),
        DType::I32 => build::<i32>(&shape, num_rows, cols),
        DType::I64 => build::<i64>(&shape, num_rows, cols),
        DType::Bool => build::<bool>(&shape, num_rows, cols),
        DType::Complex64 => build::<num_complex::Complex<f32>>(&shape, num_rows, cols),
        DType::Complex128 => build::<num_complex::Complex<f64>>(&shape, num_rows, cols),
        DType::String => Err(crate::tensor::unsupported(
            "eye",
            dtype,
            "a numeric or bool",
        )),
    }
}

/// The element types LU factorises: float32, float64, complex64 and complex128.
pub(crate) trait LuElem: Element + Field {
    /// The size a pivot is chosen by (`|x|`, the modulus for complex numbers, as Eigen's LU).
    fn magnitude(self) -> f64;
    /// The complex conjugate (the value itself for real types).
    fn conjugate(self) -> Self;
}

impl LuElem for f32 {
    fn magnitude(self) -> f64 {
        self.abs() as f64
    }
    fn conjugate(self) -> Self {
        self
    }
}

impl LuElem for f64 {
    fn magnitude(self) -> f64 {
        self.abs()
    }
    fn conjugate(self) -> Self {
        self
    }
}

impl LuElem for Complex<f32> {
    fn magnitude(self) -> f64 {
        (self.re as f64).hypot(self.im as f64)
    }
    fn conjugate(self) -> Self {
        self.conj()
    }
}

impl LuElem for Complex<f64> {
    fn magnitude(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn conjugate(self) -> Self {
        self.conj()
    }
}

/// LU factorisation with partial pivoting of the row-major `n x n` matrix in `lu`, in place
/// (pivot: the first entry of largest magnitude in the column, as Eigen's `PartialPivLU`,
/// which TensorFlow's kernels run; `tf.linalg.lu` packs exactly this). Returns the row
/// permutation, or `None` when a pivot is exactly zero or NaN (singular matrix, the test
/// TensorFlow and LAPACK make).
pub(super) fn lu_factor<T: LuElem>(lu: &mut [T], n: usize) -> Option<Vec<usize>> {
    let zero = T::default();
    let mut perm: Vec<usize> = (0..n).collect();
    for col in 0..n {
        let mut best = col;
        let mut best_abs = lu[col * n + col].magnitude();
        for r in col + 1..n {
            let v = lu[r * n + col].magnitude();
            if v > best_abs {
                best = r;
                best_abs = v;
            }
        }
        if best_abs == 0.0 || best_abs.is_nan() {
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
            let factor = lu[r * n + col].div(pivot);
            lu[r * n + col] = factor;
            if factor != zero {
                for j in col + 1..n {
                    let u = lu[col * n + j];
                    lu[r * n + j] = lu[r * n + j].sub(factor.mul(u));
                }
            }
        }
    }
    Some(perm)
}

/// Solves `LU x = P b` for the `n x k` row-major right-hand side `b`, writing `x` to `out`.
pub(super) fn lu_solve<T: LuElem>(
    lu: &[T],
    perm: &[usize],
    n: usize,
    k: usize,
    b: &[T],
    out: &mut [T],
) {
    let zero = T::default();
    for (i, &p) in perm.iter().enumerate() {
        out[i * k..(i + 1) * k].copy_from_slice(&b[p * k..(p + 1) * k]);
    }
    for i in 0..n {
        for r in 0..i {
            let l = lu[i * n + r];
            if l != zero {
                for j in 0..k {
                    out[i * k + j] = out[i * k + j].sub(l.mul(out[r * k + j]));
                }
            }
        }
    }
    for i in (0..n).rev() {
        for r in i + 1..n {
            let u = lu[i * n + r];
            if u != zero {
                for j in 0..k {
                    out[i * k + j] = out[i * k + j].sub(u.mul(out[r * k + j]));
                }
            }
        }
        let d = lu[i * n + i];
        for j in 0..k {
            out[i * k + j] = out[i * k + j].div(d);
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
pub(super) fn batched_values<T: Element>(
    a: &ndarray::ArrayViewD<'_, T>,
    batch: &[usize],
    transposed: bool,
) -> Vec<T> {
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

/// For each index of `batch` (row-major), the index (row-major) into `own`, a batch shape that
/// broadcasts to it (right-aligned; axes of size 1 repeat).
pub(super) fn broadcast_index(own: &[usize], batch: &[usize]) -> Vec<usize> {
    let lead = batch.len() - own.len();
    let mut strides = vec![0usize; batch.len()];
    let mut acc = 1;
    for d in (lead..batch.len()).rev() {
        let size = own[d - lead];
        strides[d] = if size == 1 { 0 } else { acc };
        acc *= size;
    }
    let count: usize = batch.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; batch.len()];
    let mut at = 0usize;
    for _ in 0..count {
        out.push(at);
        for d in (0..batch.len()).rev() {
            index[d] += 1;
            at += strides[d];
            if index[d] < batch[d] {
                break;
            }
            at -= strides[d] * batch[d];
            index[d] = 0;
        }
    }
    out
}

/// Solves every system of the broadcast batch. Each matrix of `a` is factorised once, however
/// many right-hand sides it meets: a matrix shared by a batch of right-hand sides (the VJP of a
/// vectorised Jacobian, whose cotangents carry a batch axis the matrix lacks) costs one LU.
fn solve_kernel<T: LuElem>(
    op: &str,
    a: &ndarray::ArrayViewD<'_, T>,
    b: &ndarray::ArrayViewD<'_, T>,
    adjoint: bool,
    batch: &[usize],
    full_a_shape: &[usize],
) -> Result<ArrayD<T>> {
    let n = a.shape()[a.ndim() - 1];
    let k = b.shape()[b.ndim() - 1];
    let own = &a.shape()[..a.ndim() - 2];
    let matrices: usize = own.iter().product();
    let count: usize = batch.iter().product();
    let mut out = vec![T::default(); count * n * k];
    // No right-hand sides (k = 0) or empty matrices: nothing to solve, and no index per
    // matrix of a broadcast batch that may be as long as a shape allows.
    if n > 0 && k > 0 && count > 0 {
        let mut av = batched_values(a, own, adjoint);
        if adjoint && T::DTYPE.is_complex() {
            av.iter_mut().for_each(|v| *v = v.conjugate());
        }
        let factor = |i: usize| -> Result<(Vec<T>, Vec<usize>)> {
            let mut lu = av[i * n * n..(i + 1) * n * n].to_vec();
            let perm = lu_factor(&mut lu, n).ok_or_else(|| not_invertible(op, full_a_shape, i))?;
            Ok((lu, perm))
        };
        // Above this many multiply-adds, matrices and systems go to rayon's threads.
        let parallel_work = 1 << 20;
        let factors: Vec<(Vec<T>, Vec<usize>)> =
            if matrices > 1 && matrices * n * n * n >= parallel_work && may_split() {
                (0..matrices)
                    .into_par_iter()
                    .map(factor)
                    .collect::<Result<_>>()?
            } else {
                (0..matrices).map(factor).collect::<Result<_>>()?
            };
        if k > 0 {
            let which = broadcast_index(own, batch);
            let bv = batched_values(b, batch, false);
            let work = |(i, dst): (usize, &mut [T])| {
                let (lu, perm) = &factors[which[i]];
                lu_solve(lu, perm, n, k, &bv[i * n * k..(i + 1) * n * k], dst);
            };
            if count > 1 && count * n * n * k >= parallel_work && may_split() {
                out.par_chunks_mut(n * k).enumerate().for_each(work);
            } else {
                out.chunks_mut(n * k).enumerate().for_each(work);
            }
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
pub(super) fn check_square(op: &str, matrix: &Tensor) -> Result<usize> {
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

/// [`solve`] with TensorFlow's `adjoint` flag: solves `matrix^H @ x = rhs` when `adjoint` (the
/// conjugate transpose; the transpose for real matrices).
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
    let batch = broadcast_shapes(op, &sa[..sa.len() - 2], &sb[..sb.len() - 2]).map_err(|_| {
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
    let out_shape = [&batch[..], &sb[sb.len() - 2..]].concat();
    crate::memory::ensure_shape(op, &out_shape, rhs.dtype())?;
    let y = Tensor::new(
        dispatch2!(float_or_complex matrix.data(), rhs.data(), op, |a, b| solve_kernel(
        op, &a.view(), &b.view(), adjoint, &batch, &full
    )?),
    );
    // Every unknown depends on every equation: the matrices' axes and the rhs's rows mix; the
    // batch axes and the rhs's columns (solved one by one) stay apart.
    let (ra, rb) = (sa.len(), sb.len());
    let mixes = AxisMap::mix_per_input(ra, &[ra - 2, ra - 1], rb, &[rb - 2]);
    let (sa, sb) = (shape_of(matrix), shape_of(rhs));
    // Batchable: `dy`'s leading batch axes broadcast through the solve (one factorisation of
    // the saved matrix for all of them) and the product below.
    record_batched(
        op,
        &[matrix, rhs],
        &y,
        &[matrix, &y],
        mixes,
        true,
        move |s, dy, batch| {
            let (a, x) = (&s[0], &s[1]);
            // TensorFlow's MatrixSolve gradient: grhs = A^-H dy, gA = -grhs x^H (or -x grhs^H).
            let grhs = solve_adjoint(a, dy, !adjoint)?;
            let ga = if adjoint {
                matmul(x, &conj(&grhs)?, false, true)?
            } else {
                matmul(&grhs, &conj(x)?, false, true)?
            };
            Ok(crate::grads![
                Some(negative(&sum_to_batched_shape(&ga, batch, &sa)?)?),
                Some(sum_to_batched_shape(&grhs, batch, &sb)?),
            ])
        },
    );
    Ok(y)
}

/// The `m x m` identity in `like`'s element type.
fn identity_like<T: Element>(_like: &ndarray::ArrayViewD<'_, T>, m: usize) -> ArrayD<T> {
    let (zero, one) = (T::from_f64(0.0), T::from_f64(1.0));
    ArrayD::from_shape_fn(IxDyn(&[m, m]), |i| if i[0] == i[1] { one } else { zero })
}

/// The inverse of each `[..., M, M]` matrix, real or complex. A singular matrix is a
/// ValueError.
pub fn inv(matrix: &Tensor) -> Result<Tensor> {
    let op = "inv";
    let m = check_square(op, matrix)?;
    let batch = matrix.shape()[..matrix.ndim() - 2].to_vec();
    let full = matrix.shape().to_vec();
    let y = Tensor::new(dispatch!(float_or_complex matrix.data(), op, |a| {
        let identity = identity_like(a, m);
        solve_kernel(op, a, &identity.view(), false, &batch, &full)?
    }));
    // Every entry of an inverse depends on every entry of its matrix; a batch of inverses
    // keeps each batch element apart.
    let rank = matrix.ndim();
    let mixes = AxisMap::along(rank, &[rank - 2, rank - 1]);
    // Batchable: the products broadcast over `dy`'s leading batch axes.
    record_batched(op, &[matrix], &y, &[&y], mixes, true, |s, dy, _batch| {
        // d(A^-1) = -A^-1 dA A^-1, so gA = -Y^H dy Y^H.
        let yinv = &conj(&s[0])?;
        let g = matmul(&matmul(yinv, dy, true, false)?, yinv, false, true)?;
        Ok(crate::grads![Some(negative(&g)?)])
    });
    Ok(y)
}
