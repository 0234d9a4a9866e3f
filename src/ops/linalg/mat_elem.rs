//! The element types of the GEMM driver: how one single-threaded product of each type runs (the
//! `gemm` crate's kernel for floats and complex numbers, with an accumulating form and an
//! optional turned product; a plain wrapping loop for integers, as TensorFlow allows).
use gemm::Parallelism;

use crate::tensor::Element;

/// Element types the matmul kernel handles.
pub(super) trait MatElem: Element {
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

    /// `lhs[m x k] @ rhs[k x n]` in a new column-major buffer (row stride 1, column stride
    /// `m`), through [`MatElem::matmul_into`]: the turned and narrow products compute there and
    /// then copy the result to its row-major destination.
    ///
    /// # Safety
    /// The operands as for [`MatElem::matmul_into`] (each `(pointer, row stride, column stride)`).
    unsafe fn column_major_product(
        m: usize,
        n: usize,
        k: usize,
        lhs: (*const Self, isize, isize),
        rhs: (*const Self, isize, isize),
    ) -> Vec<Self> {
        let mut out: Vec<Self> = Vec::with_capacity(m * n);
        // SAFETY: `out` holds m * n elements at row stride 1 and column stride m, each written
        // once by the GEMM (which reads none of them); the operands are as the caller promises.
        unsafe {
            Self::matmul_into(
                m,
                n,
                k,
                out.as_mut_ptr(),
                1,
                m as isize,
                lhs.0,
                lhs.1,
                lhs.2,
                rhs.0,
                rhs.1,
                rhs.2,
            );
            out.set_len(m * n);
        }
        out
    }

    /// `dst[m x n] += lhs[m x k] @ rhs[k x n]` (the product summed first, then added to each
    /// element), as [`MatElem::matmul_into`]'s GEMM with `dst` read; false (nothing written)
    /// for types without one. Same safety contract, `dst` initialised.
    #[allow(clippy::too_many_arguments)]
    unsafe fn matmul_add_into(
        _m: usize,
        _n: usize,
        _k: usize,
        _dst: *mut Self,
        _dst_rs: isize,
        _dst_cs: isize,
        _lhs: *const Self,
        _lhs_rs: isize,
        _lhs_cs: isize,
        _rhs: *const Self,
        _rhs_rs: isize,
        _rhs_cs: isize,
    ) -> bool {
        false
    }

    /// A single-threaded product that writes `dst` in another way than `matmul_into` when
    /// that pays, returning false (nothing written) when it does not; same safety contract.
    /// `None` for types without one.
    fn turned_product() -> Option<TurnedProduct<Self>> {
        None
    }
}

/// `(rows, cols, k, dst, lhs, rhs)`, each operand its first element and strides, as
/// `split_gemm` (gemm_driver.rs) takes them: see [`MatElem::turned_product`].
pub(super) type TurnedProduct<T> = unsafe fn(
    usize,
    usize,
    usize,
    (*mut T, isize, isize),
    (*const T, isize, isize),
    (*const T, isize, isize),
) -> bool;

macro_rules! gemm_elem {
    ($t:ty, $zero:expr, $one:expr) => {
        gemm_elem!($t, $zero, $one, None);
    };
    ($t:ty, $zero:expr, $one:expr, $turned:expr) => {
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

            unsafe fn matmul_add_into(
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
            ) -> bool {
                if k == 1 {
                    // An outer product: each term one rounded product, then the sum (as the
                    // product computed alone and added after; no fused multiply-add).
                    for i in 0..m as isize {
                        let a = unsafe { *lhs.offset(i * lhs_rs) };
                        for j in 0..n as isize {
                            unsafe {
                                let d = dst.offset(i * dst_rs + j * dst_cs);
                                *d += a * *rhs.offset(j * rhs_cs);
                            }
                        }
                    }
                    return true;
                }
                // dst := 1 * dst + 1 * lhs @ rhs: both scalings exact, one rounding per add.
                unsafe {
                    gemm::gemm(
                        m,
                        n,
                        k,
                        dst,
                        dst_cs,
                        dst_rs,
                        true,
                        lhs,
                        lhs_cs,
                        lhs_rs,
                        rhs,
                        rhs_cs,
                        rhs_rs,
                        $one,
                        $one,
                        false,
                        false,
                        false,
                        Parallelism::None,
                    )
                };
                true
            }

            fn turned_product() -> Option<TurnedProduct<$t>> {
                $turned
            }
        }
    };
}
gemm_elem!(f32, 0.0, 1.0, Some(super::turned_gemm::product_f32));
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
