//! Small float32 GEMMs whose right operand is column-major (`dy @ W^T`, the input gradient of
//! `x @ W`), computed turned around. The gemm crate writes a row-major output as the transposed
//! product, `dst^T = rhs^T @ lhs^T`, whose left operand `rhs^T` is then row-major: it packs it
//! element by element, one strided read each. For RNN-sized products (`[32, 128] @ [128, 128]^T`)
//! that packing of the large weight took ~40% of the product. Turned around, the GEMM writes a
//! column-major scratch output and packs the small `lhs` instead; an 8x8 AVX transpose then
//! writes the output row-major. Each output element is the same sum in the same order (one
//! inner block: `k` at most the crate's block depth), so the values do not change.

use super::mat_elem::MatElem;

/// Inner dimensions up to this take one inner block in the gemm crate either way round (its
/// small-product and general blockings both keep `kc = k` up to 512): sums stay in one order.
const MAX_DEPTH: usize = 512;

/// Outputs up to this many elements may take the gemm crate's dot-product kernels (16 x 16),
/// which sum in another order: left alone.
const MIN_OUTPUT: usize = 16 * 16;

/// `dst[rows x cols]` (row-major, row stride `dst_rs`) `= lhs[rows x k] @ rhs[k x cols]` (first
/// element and strides of each), computed turned around when that pays: `rhs` column-major and
/// larger than `lhs` and the output together, both output sides multiples of 8, AVX present.
/// False (nothing written) otherwise.
///
/// # Safety
/// Every pointer, offset by its strides over the given sizes, stays inside its allocation;
/// `dst` is valid for writes and aliases neither operand.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn product_f32(
    rows: usize,
    cols: usize,
    k: usize,
    dst: (*mut f32, isize, isize),
    lhs: (*const f32, isize, isize),
    rhs: (*const f32, isize, isize),
) -> bool {
    let row_major_dst = dst.2 == 1 && dst.1 >= cols as isize;
    let column_major_rhs = rhs.1 == 1 && rhs.2 != 1;
    // The packing saved (k * cols strided reads) against what turning costs (rows * k strided
    // reads of lhs, rows * cols written twice).
    let pays = rows * (k + 2 * cols) <= k * cols;
    if !(row_major_dst && column_major_rhs && pays)
        || k > MAX_DEPTH
        || k <= 2
        || rows * cols <= MIN_OUTPUT
        || rows % 8 != 0
        || cols % 8 != 0
        || rows == 0
        || cols == 0
    {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the operands are as the caller promises; the scratch holds the column-major
        // product, which `transpose_avx` writes to the row-major `dst`.
        unsafe {
            let scratch = <f32 as MatElem>::column_major_product(rows, cols, k, lhs, rhs);
            transpose_avx(cols, rows, scratch.as_ptr(), dst.0, dst.1 as usize);
        }
        return true;
    }
    false
}

/// `dst[j * dst_rs + i] = src[i * cols + j]`: the row-major `[rows x cols]` at `src` written
/// transposed, in 8x8 tiles.
///
/// # Safety
/// AVX is present; `rows` and `cols` are multiples of 8; `src` holds `rows * cols` elements and
/// `dst` rows of `rows` elements `dst_rs` apart, `cols` of them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn transpose_avx(rows: usize, cols: usize, src: *const f32, dst: *mut f32, dst_rs: usize) {
    for i in (0..rows).step_by(8) {
        for j in (0..cols).step_by(8) {
            // SAFETY: the tile lies inside both matrices.
            unsafe { tile_8x8(src.add(i * cols + j), cols, dst.add(j * dst_rs + i), dst_rs) };
        }
    }
}

/// One 8x8 tile: rows `src_rs` apart in, rows `dst_rs` apart out, transposed.
///
/// # Safety
/// AVX is present; 8 rows of 8 elements at each pointer are valid.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn tile_8x8(src: *const f32, src_rs: usize, dst: *mut f32, dst_rs: usize) {
    use std::arch::x86_64::*;
    // SAFETY: the 8 rows read and written lie inside the tiles, as the caller promises.
    unsafe {
        let r = |i: usize| _mm256_loadu_ps(src.add(i * src_rs));
        let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
        let (r4, r5, r6, r7) = (r(4), r(5), r(6), r(7));
        // Pairs of rows interleaved, then pairs of pairs, then the 128-bit halves swapped.
        let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
        let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
        let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
        let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        let w = |i: usize, v| _mm256_storeu_ps(dst.add(i * dst_rs), v);
        w(0, _mm256_permute2f128_ps::<0x20>(s0, s4));
        w(1, _mm256_permute2f128_ps::<0x20>(s1, s5));
        w(2, _mm256_permute2f128_ps::<0x20>(s2, s6));
        w(3, _mm256_permute2f128_ps::<0x20>(s3, s7));
        w(4, _mm256_permute2f128_ps::<0x31>(s0, s4));
        w(5, _mm256_permute2f128_ps::<0x31>(s1, s5));
        w(6, _mm256_permute2f128_ps::<0x31>(s2, s6));
        w(7, _mm256_permute2f128_ps::<0x31>(s3, s7));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The product the gemm crate computes for a row-major output, as `split_gemm` asks it.
    fn plain(rows: usize, cols: usize, k: usize, lhs: &[f32], rhs_t: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0f32; rows * cols];
        // SAFETY: sizes match the buffers.
        unsafe {
            gemm::gemm(
                rows,
                cols,
                k,
                out.as_mut_ptr(),
                1,
                cols as isize,
                false,
                lhs.as_ptr(),
                1,
                k as isize,
                rhs_t.as_ptr(),
                k as isize,
                1,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            )
        };
        out
    }

    #[test]
    fn turned_products_equal_the_plain_ones_bit_for_bit() {
        let mut seed = 12345u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        for (rows, cols, k) in [
            (32, 128, 128),
            (16, 64, 64),
            (16, 256, 200),
            (8, 96, 40),
            (24, 512, 512),
        ] {
            let lhs: Vec<f32> = (0..rows * k).map(|_| next()).collect();
            // rhs^T stored row-major: rhs is column-major.
            let rhs_t: Vec<f32> = (0..cols * k).map(|_| next()).collect();
            let expected = plain(rows, cols, k, &lhs, &rhs_t);
            let mut out = vec![f32::NAN; rows * cols];
            // SAFETY: sizes match the buffers.
            let turned = unsafe {
                product_f32(
                    rows,
                    cols,
                    k,
                    (out.as_mut_ptr(), cols as isize, 1),
                    (lhs.as_ptr(), k as isize, 1),
                    (rhs_t.as_ptr(), 1, k as isize),
                )
            };
            if std::arch::is_x86_feature_detected!("avx") {
                assert!(turned, "{rows}x{cols}x{k} should be turned");
                assert_eq!(
                    out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "{rows}x{cols}x{k}"
                );
            }
        }
    }

    #[test]
    fn other_layouts_are_left_alone() {
        let (lhs, rhs) = (vec![1.0f32; 64 * 64], vec![1.0f32; 64 * 64]);
        let mut out = vec![0.0f32; 64 * 64];
        // A row-major rhs: nothing to turn.
        let done = unsafe {
            product_f32(
                64,
                64,
                64,
                (out.as_mut_ptr(), 64, 1),
                (lhs.as_ptr(), 64, 1),
                (rhs.as_ptr(), 64, 1),
            )
        };
        assert!(!done);
        // Many rows against a small rhs: packing rhs is the cheaper side.
        let done = unsafe {
            product_f32(
                64,
                8,
                8,
                (out.as_mut_ptr(), 8, 1),
                (lhs.as_ptr(), 8, 1),
                (rhs.as_ptr(), 1, 8),
            )
        };
        assert!(!done);
    }
}
