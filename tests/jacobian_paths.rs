//! Every way of running Jacobian rows gives the same numbers, and they are right.
use rustape::ops::{elu, matmul, reduce_sum, tanh};
use rustape::testing::{numeric_gradient, pseudo_random};
use rustape::{JacobianOptions, JacobianStrategy, Source, Tape, Tensor, Unconnected};

mod support;
use support::*;

fn model(x: &Tensor, w: &Tensor) -> Tensor {
    tanh(&matmul(w, x, false, false).unwrap()).unwrap()
}

fn jacobian_with(options: JacobianOptions) -> (Tensor, Tensor) {
    let x = pseudo_random(&[6, 1], 3);
    let w = pseudo_random(&[5, 6], 4);
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(&x);
        tape.watch(&w);
        model(&x, &w)
    };
    let mut j = tape
        .jacobian_with(
            &y,
            &[Source::from(&x), Source::from(&w)],
            Unconnected::None,
            options,
        )
        .unwrap();
    (j.remove(0).unwrap(), j.remove(0).unwrap())
}

fn options(strategy: JacobianStrategy, parallel_iterations: Option<usize>) -> JacobianOptions {
    JacobianOptions {
        parallel_iterations,
        strategy,
    }
}

/// Row paths give the very same numbers; a vectorised sweep may add in another order (its
/// matmuls have other shapes), so it agrees to float64 rounding.
fn assert_agree(a: &Tensor, b: &Tensor, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}");
    assert_close_labelled(&values(a), &values(b), 1e-12, what);
}

#[test]
fn every_strategy_and_block_size_agrees() {
    use JacobianStrategy::*;
    let sequential = jacobian_with(options(Sequential, None));
    for parallel_iterations in [None, Some(1), Some(2), Some(3), Some(64)] {
        let rows = jacobian_with(options(ParallelRows, parallel_iterations));
        assert_eq!(
            rows.0.to_f64_vec(),
            sequential.0.to_f64_vec(),
            "{parallel_iterations:?}"
        );
        assert_eq!(
            rows.1.to_f64_vec(),
            sequential.1.to_f64_vec(),
            "{parallel_iterations:?}"
        );
        for strategy in [Auto, Vectorized] {
            let other = jacobian_with(options(strategy, parallel_iterations));
            assert_agree(
                &other.0,
                &sequential.0,
                &format!("{strategy:?} {parallel_iterations:?}"),
            );
            assert_agree(
                &other.1,
                &sequential.1,
                &format!("{strategy:?} {parallel_iterations:?}"),
            );
        }
    }
    assert_eq!(sequential.0.shape(), &[5, 1, 6, 1]);
    assert_eq!(sequential.1.shape(), &[5, 1, 5, 6]);
}

#[test]
fn jacobian_rows_match_finite_differences() {
    let (jx, _) = jacobian_with(JacobianOptions::default());
    let x = pseudo_random(&[6, 1], 3);
    let w = pseudo_random(&[5, 6], 4);
    let jx = jx.to_f64_vec();
    for row in 0..5 {
        let loss = |xs: &[Tensor]| {
            let y = model(&xs[0], &w);
            let pick = Tensor::from_vec(
                (0..5).map(|i| if i == row { 1.0 } else { 0.0 }).collect(),
                &[5, 1],
            )?;
            reduce_sum(&rustape::ops::multiply(&y, &pick)?, None, false)
        };
        let numeric = numeric_gradient(&loss, std::slice::from_ref(&x), 1e-6)
            .unwrap()
            .remove(0);
        for (k, n) in numeric.iter().enumerate() {
            assert!(
                (jx[row * 6 + k] - n).abs() < 1e-8,
                "row {row} col {k}: {} vs {n}",
                jx[row * 6 + k]
            );
        }
    }
}

#[test]
fn batch_jacobian_paths_agree() {
    let x = pseudo_random(&[7, 5], 8);
    let l1 = pseudo_random(&[5, 4], 9);
    let run = |options| {
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&x);
            elu(&matmul(&x, &l1, false, false).unwrap()).unwrap()
        };
        tape.batch_jacobian_with(&y, &Source::from(&x), Unconnected::None, options)
            .unwrap()
            .unwrap()
    };
    let sequential = run(options(JacobianStrategy::Sequential, None));
    for strategy in [JacobianStrategy::ParallelRows, JacobianStrategy::Vectorized] {
        let other = run(options(strategy, Some(3)));
        assert_agree(&other, &sequential, &format!("{strategy:?}"));
    }
    let parallel = run(JacobianOptions::default());
    assert_eq!(parallel.shape(), &[7, 4, 5]);
    assert_eq!(parallel.to_f64_vec(), sequential.to_f64_vec());
}

#[test]
fn jacobian_under_an_outer_tape_is_recorded() {
    // d/dx of sum(jacobian(x*x*x)) = d/dx sum(diag(3x^2)) = 6x.
    let x = Tensor::from_vec(vec![1.0f64, 2.0, -1.5], &[3]).unwrap();
    let outer = Tape::new(false, true);
    let total = {
        let _o = outer.enter().unwrap();
        outer.watch(&x);
        let inner = Tape::new(false, true);
        let y = {
            let _i = inner.enter().unwrap();
            inner.watch(&x);
            let x2 = rustape::ops::multiply(&x, &x).unwrap();
            rustape::ops::multiply(&x2, &x).unwrap()
        };
        let j = inner
            .jacobian(&y, &[Source::from(&x)], Unconnected::None)
            .unwrap()
            .remove(0)
            .unwrap();
        reduce_sum(&j, None, false).unwrap()
    };
    let g = outer
        .gradient(&[total], &[Source::from(&x)], None, Unconnected::None)
        .unwrap()
        .remove(0)
        .unwrap();
    assert_eq!(g.to_f64_vec(), vec![6.0, 12.0, -9.0]);
}

#[test]
fn an_empty_target_gives_an_empty_jacobian_on_every_path() {
    use JacobianStrategy::*;
    let x = pseudo_random(&[3, 2], 5);
    for strategy in [Auto, Vectorized, ParallelRows, Sequential] {
        let tape = Tape::new(false, true);
        let y = {
            let _r = tape.enter().unwrap();
            tape.watch(&x);
            rustape::ops::slice_axis(&tanh(&x).unwrap(), 1, 2, 2).unwrap()
        };
        let j = tape
            .jacobian_with(
                &y,
                &[Source::from(&x)],
                Unconnected::None,
                options(strategy, None),
            )
            .unwrap();
        assert_eq!(
            j[0].as_ref().unwrap().shape(),
            &[3, 0, 3, 2],
            "{strategy:?}"
        );
    }
}
