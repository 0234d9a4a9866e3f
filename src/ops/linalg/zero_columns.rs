//! GEMMs whose left operand is zero in most of its columns. A Jacobian's rows are VJPs seeded
//! with one-hot cotangents, and an elementwise VJP keeps them one-hot: the first `dy @ W^T` of
//! each row of `batch_jacobian` on `[b, n]` has one nonzero column out of `n`. Multiplying only
//! the nonzero columns (and the matching rows of the right operand) gives the same sums: a zero
//! term `0 * w` adds nothing unless `w` is infinite or NaN, and then the dense product runs.
use crate::tensor::Element;

/// Products smaller than this many multiply-adds run dense: the scan would not pay.
const MIN_WORK: usize = 1 << 16;

/// Output columns below which the scan of the left operand (one read per element) is too large
/// a share of the product (`cols` multiply-adds per element).
const MIN_COLS: usize = 16;

/// A GEMM's operand: first element, row stride, column stride.
type Operand<T> = (*const T, isize, isize);

/// `dst = lhs[rows x k] @ rhs[k x cols]` (first element and strides of each) computed from the
/// nonzero columns of `lhs` alone, when at most a quarter of them hold a nonzero value and the
/// rows of `rhs` dropped are finite: one column is an outer product written here (each element
/// one exact product, as the GEMM's), more go packed to `gemm(k, lhs, rhs)`. False (nothing
/// written) otherwise. A dense `lhs` is seen as such within its first row.
///
/// # Safety
/// Every pointer, offset by its strides over the given sizes, stays inside its allocation;
/// `dst` is valid for writes and aliases neither operand.
pub(super) unsafe fn product<T: Element>(
    rows: usize,
    cols: usize,
    k: usize,
    dst: (*mut T, isize, isize),
    lhs: Operand<T>,
    rhs: Operand<T>,
    gemm: impl FnOnce(usize, Operand<T>, Operand<T>),
) -> bool {
    if k < 4 || cols < MIN_COLS || rows.saturating_mul(cols).saturating_mul(k) < MIN_WORK {
        return false;
    }
    // The scan and the outer product are plain loops: 8-wide where the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present; the rest as for this function.
        return unsafe { product_avx2(rows, cols, k, dst, lhs, rhs, gemm) };
    }
    unsafe { product_any(rows, cols, k, dst, lhs, rhs, gemm) }
}

/// [`product_any`] compiled for AVX2.
///
/// # Safety
/// As for [`product`], on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn product_avx2<T: Element>(
    rows: usize,
    cols: usize,
    k: usize,
    dst: (*mut T, isize, isize),
    lhs: Operand<T>,
    rhs: Operand<T>,
    gemm: impl FnOnce(usize, Operand<T>, Operand<T>),
) -> bool {
    unsafe { product_any(rows, cols, k, dst, lhs, rhs, gemm) }
}

/// The body of [`product`], inlined into each target's copy.
///
/// # Safety
/// As for [`product`].
#[inline(always)]
unsafe fn product_any<T: Element>(
    rows: usize,
    cols: usize,
    k: usize,
    dst: (*mut T, isize, isize),
    lhs: Operand<T>,
    rhs: Operand<T>,
    gemm: impl FnOnce(usize, Operand<T>, Operand<T>),
) -> bool {
    // SAFETY (all reads): indices stay within `rows x k` of `lhs` and `k x cols` of `rhs`.
    let at = |p: Operand<T>, i: usize, j: usize| unsafe {
        *p.0.offset(i as isize * p.1 + j as isize * p.2)
    };
    let zero = T::default();
    let mut nonzero = vec![false; k];
    let count = |nonzero: &[bool]| nonzero.iter().filter(|&&n| n).count();
    for i in 0..rows {
        if lhs.2 == 1 {
            // SAFETY: row `i` holds `k` contiguous elements.
            let row = unsafe { std::slice::from_raw_parts(lhs.0.offset(i as isize * lhs.1), k) };
            for (seen, &v) in nonzero.iter_mut().zip(row) {
                *seen |= v != zero;
            }
        } else {
            for (j, seen) in nonzero.iter_mut().enumerate() {
                *seen |= at(lhs, i, j) != zero;
            }
        }
        if i == 0 && count(&nonzero) > k / 4 {
            return false;
        }
    }
    if count(&nonzero) > k / 4 {
        return false;
    }
    // A dropped term is 0 * w: exactly zero only for a finite w.
    let finite = |v: T| {
        let c = v.to_complex();
        c.re.is_finite() && c.im.is_finite()
    };
    for j in (0..k).filter(|&j| !nonzero[j]) {
        if !(0..cols).all(|c| finite(at(rhs, j, c))) {
            return false;
        }
    }
    let mut kept: Vec<usize> = (0..k).filter(|&j| nonzero[j]).collect();
    if kept.is_empty() {
        // An all-zero `lhs`: one zero column makes the zero product.
        kept.push(0);
    }
    if let [j] = kept[..] {
        // SAFETY: as for this function.
        let done = unsafe {
            outer::<T, f32>(rows, cols, dst, lhs, rhs, j)
                || outer::<T, f64>(rows, cols, dst, lhs, rhs, j)
        };
        if done {
            return true;
        }
    }
    let mut packed_lhs = Vec::with_capacity(rows * kept.len());
    for i in 0..rows {
        packed_lhs.extend(kept.iter().map(|&j| at(lhs, i, j)));
    }
    let mut packed_rhs = Vec::with_capacity(kept.len() * cols);
    for &j in &kept {
        packed_rhs.extend((0..cols).map(|c| at(rhs, j, c)));
    }
    let left = (packed_lhs.as_ptr(), kept.len() as isize, 1);
    gemm(kept.len(), left, (packed_rhs.as_ptr(), cols as isize, 1));
    true
}

/// `dst[i, c] = lhs[i, j] * rhs[j, c] + 0` when `T` is the float `F` (true), else nothing (false).
///
/// # Safety
/// As for [`product`].
#[inline(always)]
unsafe fn outer<T, F>(
    rows: usize,
    cols: usize,
    dst: (*mut T, isize, isize),
    lhs: Operand<T>,
    rhs: Operand<T>,
    j: usize,
) -> bool
where
    T: Element,
    F: Element + std::ops::Mul<Output = F> + std::ops::Add<Output = F>,
{
    if std::any::TypeId::of::<T>() != std::any::TypeId::of::<F>() {
        return false;
    }
    // SAFETY: `T` is `F`; every offset stays inside its operand (see `product`).
    unsafe {
        // `+ 0` as the GEMM's accumulator adds it: a product of -0 comes out +0.
        let zero = F::default();
        let (d, l, r) = (dst.0 as *mut F, lhs.0 as *const F, rhs.0 as *const F);
        let w: Vec<F> = (0..cols as isize)
            .map(|c| *r.offset(j as isize * rhs.1 + c * rhs.2))
            .collect();
        for i in 0..rows as isize {
            let a = *l.offset(i * lhs.1 + j as isize * lhs.2);
            let row = d.offset(i * dst.1);
            if dst.2 == 1 {
                let out = std::slice::from_raw_parts_mut(row, cols);
                for (o, &v) in out.iter_mut().zip(&w) {
                    *o = a * v + zero;
                }
            } else {
                for (c, &v) in w.iter().enumerate() {
                    *row.offset(c as isize * dst.2) = a * v + zero;
                }
            }
        }
    }
    true
}
