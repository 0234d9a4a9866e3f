//! Jacobian rows in blocks (vectorised blocks on rayon's threads, written straight into the
//! result's final layout): every block size and strategy gives the numbers of row-by-row
//! gradients, rows that miss a source leave zeros, and under a recording tape the Jacobian is
//! still recorded.
use rustape::ops::{concat, elu, matmul, multiply, reduce_sum, slice_axis, tanh};
use rustape::testing::{numeric_gradient, pseudo_random};
use rustape::{JacobianOptions, JacobianStrategy, Source, Tape, Tensor, Unconnected};

mod support;
use support::*;

const STRATEGIES: [JacobianStrategy; 4] = [
    JacobianStrategy::Auto,
    JacobianStrategy::Vectorized,
    JacobianStrategy::ParallelRows,
    JacobianStrategy::Sequential,
];

const LIMITS: [Option<usize>; 6] = [None, Some(1), Some(2), Some(3), Some(5), Some(64)];

fn options(strategy: JacobianStrategy, parallel_iterations: Option<usize>) -> JacobianOptions {
    JacobianOptions {
        parallel_iterations,
        strategy,
    }
}

/// W4's model at a small size, float64: `elu(elu(x @ l1) @ l2)`.
fn w4_model(x: &Tensor, l1: &Tensor, l2: &Tensor) -> Tensor {
    let h = elu(&matmul(x, l1, false, false).unwrap()).unwrap();
    elu(&matmul(&h, l2, false, false).unwrap()).unwrap()
}

fn w4_batch_jacobian(x: &Tensor, l1: &Tensor, l2: &Tensor, options: JacobianOptions) -> Tensor {
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(x);
        w4_model(x, l1, l2)
    };
    tape.batch_jacobian_with(&y, &Source::from(x), Unconnected::None, options)
        .unwrap()
        .unwrap()
}

#[test]
fn batch_jacobian_blocks_match_row_gradients_and_finite_differences() {
    let (b, d, h, o) = (9, 4, 6, 7);
    let x = pseudo_random(&[b, d], 21);
    let l1 = pseudo_random(&[d, h], 22);
    let l2 = pseudo_random(&[h, o], 23);
    // Row j of the batch Jacobian is the gradient of sum_b y[b, j].
    let mut expected = vec![0.0; b * o * d];
    for j in 0..o {
        let pick = |y: &Tensor| {
            let col = slice_axis(y, 1, j, j + 1)?;
            reduce_sum(&col, None, false)
        };
        let tape = Tape::new(false, true);
        let target = {
            let _r = tape.enter().unwrap();
            tape.watch(&x);
            pick(&w4_model(&x, &l1, &l2)).unwrap()
        };
        let g = tape
            .gradient(&[target], &[Source::from(&x)], None, Unconnected::None)
            .unwrap()
            .remove(0)
            .unwrap()
            .to_f64_vec();
        let numeric = numeric_gradient(
            &|xs: &[Tensor]| pick(&w4_model(&xs[0], &l1, &l2)),
            std::slice::from_ref(&x),
            1e-6,
        )
        .unwrap()
        .remove(0);
        assert_close_labelled(
            &g,
            &numeric,
            1e-7,
            &format!("row {j} vs finite differences"),
        );
        for r in 0..b {
            for k in 0..d {
                expected[(r * o + j) * d + k] = g[r * d + k];
            }
        }
    }
    let sequential = w4_batch_jacobian(&x, &l1, &l2, options(JacobianStrategy::Sequential, None));
    assert_eq!(sequential.shape(), &[b, o, d]);
    assert_close_labelled(&sequential.to_f64_vec(), &expected, 1e-12, "sequential");
    for strategy in STRATEGIES {
        for limit in LIMITS {
            let j = w4_batch_jacobian(&x, &l1, &l2, options(strategy, limit));
            assert_eq!(j.shape(), &[b, o, d]);
            assert_close_labelled(
                &j.to_f64_vec(),
                &sequential.to_f64_vec(),
                1e-12,
                &format!("{strategy:?} {limit:?}"),
            );
        }
    }
}

/// A target whose first rows depend on `a` only and last rows on `b` only: blocks that miss a
/// source leave zeros; a source no row reaches is `None`.
#[test]
fn rows_that_miss_a_source_leave_zeros() {
    let a = pseudo_random(&[3], 31);
    let b = pseudo_random(&[2], 32);
    let c = pseudo_random(&[2], 33);
    for strategy in STRATEGIES {
        for limit in LIMITS {
            let tape = Tape::new(false, true);
            let y = {
                let _r = tape.enter().unwrap();
                tape.watch(&a);
                tape.watch(&b);
                tape.watch(&c);
                concat(&[tanh(&a).unwrap(), multiply(&b, &b).unwrap()], 0).unwrap()
            };
            let j = tape
                .jacobian_with(
                    &y,
                    &[Source::from(&a), Source::from(&b), Source::from(&c)],
                    Unconnected::None,
                    options(strategy, limit),
                )
                .unwrap();
            let what = format!("{strategy:?} {limit:?}");
            let ja = j[0].as_ref().unwrap();
            let jb = j[1].as_ref().unwrap();
            assert!(j[2].is_none(), "{what}");
            assert_eq!(ja.shape(), &[5, 3], "{what}");
            assert_eq!(jb.shape(), &[5, 2], "{what}");
            let (av, bv) = (a.to_f64_vec(), b.to_f64_vec());
            let mut want_a = vec![0.0; 15];
            let mut want_b = vec![0.0; 10];
            for i in 0..3 {
                want_a[i * 3 + i] = 1.0 - av[i].tanh().powi(2);
            }
            for i in 0..2 {
                want_b[(3 + i) * 2 + i] = 2.0 * bv[i];
            }
            assert_close_labelled(&ja.to_f64_vec(), &want_a, 1e-14, &what);
            assert_close_labelled(&jb.to_f64_vec(), &want_b, 1e-14, &what);
        }
    }
}

/// Under a recording tape the rows are joined by recorded ops: the gradient of a function of the
/// batch Jacobian matches finite differences.
#[test]
fn batch_jacobian_under_an_outer_tape_is_recorded() {
    let x = pseudo_random(&[5, 3], 41);
    let l1 = pseudo_random(&[3, 4], 42);
    let l2 = pseudo_random(&[4, 2], 43);
    let weights = pseudo_random(&[5, 2, 3], 44);
    // f(x) = sum(weights * batch_jacobian(y, x)), with the Jacobian taken on an inner tape.
    let f = |x: &Tensor, limit: Option<usize>| -> rustape::Result<Tensor> {
        let inner = Tape::new(false, true);
        let y = {
            let _i = inner.enter()?;
            inner.watch(x);
            w4_model(x, &l1, &l2)
        };
        let j = inner
            .batch_jacobian_with(
                &y,
                &Source::from(x),
                Unconnected::None,
                options(JacobianStrategy::Auto, limit),
            )?
            .unwrap();
        reduce_sum(&multiply(&j, &weights)?, None, false)
    };
    let numeric = numeric_gradient(
        &|xs: &[Tensor]| f(&xs[0], None),
        std::slice::from_ref(&x),
        1e-6,
    )
    .unwrap()
    .remove(0);
    for limit in LIMITS {
        let outer = Tape::new(false, true);
        let total = {
            let _o = outer.enter().unwrap();
            outer.watch(&x);
            f(&x, limit).unwrap()
        };
        let g = outer
            .gradient(&[total], &[Source::from(&x)], None, Unconnected::None)
            .unwrap()
            .remove(0)
            .unwrap();
        assert_close_labelled(&g.to_f64_vec(), &numeric, 1e-6, &format!("{limit:?}"));
    }
}

/// Float32 rows written in place agree with float64 ones (the dtype of the result buffer
/// follows the source).
#[test]
fn float32_blocks_agree_with_float64() {
    let x = pseudo_random(&[6, 3], 51);
    let l1 = pseudo_random(&[3, 5], 52);
    let l2 = pseudo_random(&[5, 4], 53);
    let f32_of = |t: &Tensor| rustape::ops::cast(t, rustape::DType::F32).unwrap();
    let j64 = w4_batch_jacobian(&x, &l1, &l2, JacobianOptions::default());
    for strategy in STRATEGIES {
        let j32 = w4_batch_jacobian(
            &f32_of(&x),
            &f32_of(&l1),
            &f32_of(&l2),
            options(strategy, None),
        );
        assert_eq!(j32.dtype(), rustape::DType::F32);
        assert_close_labelled(
            &j32.to_f64_vec(),
            &j64.to_f64_vec(),
            1e-5,
            &format!("{strategy:?}"),
        );
    }
}
