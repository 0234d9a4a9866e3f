//! Products whose left operand is zero in most columns (a Jacobian's one-hot seeds after an
//! elementwise VJP) multiply only the nonzero columns: the same numbers as the dense product
//! (bit for bit for one column), NaN where a dropped `0 * inf` makes one, and a batch Jacobian
//! through them equal to its rows' plain gradients.
use rustape::ops::{self, elu, matmul, reduce_sum, slice_axis};
use rustape::testing::pseudo_random;
use rustape::{DType, JacobianOptions, Source, Tape, Tensor, Unconnected};

mod support;
use support::linalg::{naive_matmul, rand64};
use support::*;

/// `[rows, k]` random values kept only in the columns `keep`.
fn sparse_columns(rows: usize, k: usize, keep: &[usize], seed: u64) -> Vec<f64> {
    let dense = rand64(&[rows, k], seed).to_f64_vec();
    (0..rows * k)
        .map(|i| {
            if keep.contains(&(i % k)) {
                dense[i]
            } else {
                0.0
            }
        })
        .collect()
}

#[test]
fn one_nonzero_column_gives_each_exact_product() {
    let (rows, k, cols) = (256, 32, 64);
    let mut a = sparse_columns(rows, k, &[5], 1);
    a[5] = -0.0; // a product of -0 comes out +0, as from the GEMM's accumulator
    let b = rand64(&[k, cols], 2).to_f64_vec();
    let want = |i: usize, c: usize| a[i * k + 5] * b[5 * cols + c] + 0.0;
    let y = matmul(&t64(&a, &[rows, k]), &t64(&b, &[k, cols]), false, false).unwrap();
    for (at, v) in y.to_f64_vec().iter().enumerate() {
        assert_eq!(v.to_bits(), want(at / cols, at % cols).to_bits(), "{at}");
    }
    // float32, and the left operand read transposed (strided rows).
    let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
    let b32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
    let at = ops::transpose(&t32(&a32, &[rows, k]), None).unwrap();
    let y = matmul(&at, &t32(&b32, &[k, cols]), true, false).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    for (i, v) in y.to_f64_vec().iter().enumerate() {
        let (r, c) = (i / cols, i % cols);
        let exact = a32[r * k + 5] * b32[5 * cols + c] + 0.0;
        assert_eq!((*v as f32).to_bits(), exact.to_bits(), "{i}");
    }
}

#[test]
fn few_nonzero_columns_match_the_dense_product() {
    let (rows, k, cols) = (200, 64, 48);
    for keep in [
        &[0, 7, 63][..],
        &[3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18],
    ] {
        let a = sparse_columns(rows, k, keep, 3);
        let b = rand64(&[k, cols], 4).to_f64_vec();
        let (want, _) = naive_matmul(&a, &[rows, k], &b, &[k, cols], false, false);
        let y = matmul(&t64(&a, &[rows, k]), &t64(&b, &[k, cols]), false, false).unwrap();
        assert_close_labelled(&y.to_f64_vec(), &want, 1e-13, &format!("{keep:?}"));
    }
    // An all-zero left operand: zeros.
    let zeros = vec![0.0; rows * k];
    let b = rand64(&[k, cols], 5);
    let y = matmul(&t64(&zeros, &[rows, k]), &b, false, false).unwrap();
    assert!(y.to_f64_vec().iter().all(|v| v.to_bits() == 0));
}

#[test]
fn a_dropped_zero_times_infinity_still_makes_nan() {
    let (rows, k, cols) = (128, 16, 32);
    let a = sparse_columns(rows, k, &[2], 6);
    let mut b = rand64(&[k, cols], 7).to_f64_vec();
    b[9 * cols + 4] = f64::INFINITY; // row 9 meets only zeros of `a`
    let y = matmul(&t64(&a, &[rows, k]), &t64(&b, &[k, cols]), false, false)
        .unwrap()
        .to_f64_vec();
    let (want, _) = naive_matmul(&a, &[rows, k], &b, &[k, cols], false, false);
    for (i, (v, w)) in y.iter().zip(&want).enumerate() {
        assert_eq!(v.is_nan(), w.is_nan(), "{i}");
        if !w.is_nan() {
            assert_eq!(v, w, "{i}");
        }
    }
    assert!(y.iter().filter(|v| v.is_nan()).count() == rows);
}

fn model(x: &Tensor, l1: &Tensor, l2: &Tensor) -> Tensor {
    let h = elu(&matmul(x, l1, false, false).unwrap()).unwrap();
    elu(&matmul(&h, l2, false, false).unwrap()).unwrap()
}

/// W4's shape of model, large enough that its first VJP products take the packed path: the
/// batch Jacobian equals each row's plain gradient (of `sum_b y[b, j]`) bit for bit, and the
/// chain rule written out to rounding.
#[test]
fn batch_jacobian_through_packed_products_equals_its_row_gradients() {
    let (b, d, h, o) = (128, 24, 48, 16);
    let x = pseudo_random(&[b, d], 31);
    let l1 = pseudo_random(&[d, h], 32);
    let l2 = pseudo_random(&[h, o], 33);
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        model(&x, &l1, &l2)
    };
    let jac = tape
        .batch_jacobian_with(
            &y,
            &Source::from(&x),
            Unconnected::None,
            JacobianOptions::default(),
        )
        .unwrap()
        .unwrap()
        .to_f64_vec();
    let dense_rows: Vec<f64> = (0..o)
        .flat_map(|j| {
            let tape = Tape::new(false, true);
            let target = {
                let _r = tape.enter().unwrap();
                tape.watch(&x);
                let col = slice_axis(&model(&x, &l1, &l2), 1, j, j + 1).unwrap();
                reduce_sum(&col, None, false).unwrap()
            };
            tape.gradient(&[target], &[Source::from(&x)], None, Unconnected::None)
                .unwrap()
                .remove(0)
                .unwrap()
                .to_f64_vec()
        })
        .collect();
    for j in 0..o {
        for r in 0..b {
            for k in 0..d {
                let (got, want) = (jac[(r * o + j) * d + k], dense_rows[(j * b + r) * d + k]);
                assert_eq!(got.to_bits(), want.to_bits(), "row {j}, batch {r}, {k}");
            }
        }
    }
    // J[r, j, k] = elu'(z2[r, j]) sum_m l2[m, j] elu'(z1[r, m]) l1[k, m].
    let (xv, w1, w2) = (x.to_f64_vec(), l1.to_f64_vec(), l2.to_f64_vec());
    let slope = |z: f64| if z > 0.0 { 1.0 } else { z.exp() };
    let elu = |z: f64| if z > 0.0 { z } else { z.exp_m1() };
    let mut want = vec![0.0; b * o * d];
    for r in 0..b {
        let z1: Vec<f64> = (0..h)
            .map(|m| (0..d).map(|k| xv[r * d + k] * w1[k * h + m]).sum())
            .collect();
        for j in 0..o {
            let z2: f64 = (0..h).map(|m| elu(z1[m]) * w2[m * o + j]).sum();
            for k in 0..d {
                let inner: f64 = (0..h)
                    .map(|m| w2[m * o + j] * slope(z1[m]) * w1[k * h + m])
                    .sum();
                want[(r * o + j) * d + k] = slope(z2) * inner;
            }
        }
    }
    assert_close_labelled(&jac, &want, 1e-12, "chain rule");
}
