//! Helpers shared by the reduction and nn test files (tests/reduce_*.rs).
#![allow(dead_code)]

use rustape::ops::{multiply, reduce_sum};
use rustape::testing::{gradcheck, pseudo_random, Tolerance};
use rustape::{ErrorKind, Result, Tape, Tensor, Unconnected};

pub type Op = fn(&Tensor, Option<&[isize]>, bool) -> Result<Tensor>;

/// The axis choices every reduction is checked with, on a `[2, 3, 4]` input.
pub const AXES: [Option<&[isize]>; 6] = [
    None,
    Some(&[1]),
    Some(&[-1]),
    Some(&[0, 2]),
    Some(&[-3, -1]),
    Some(&[0, 1, 2]),
];

pub fn t64(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

pub fn t32(values: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

pub fn s64(v: f64) -> Tensor {
    Tensor::scalar(v)
}

pub fn assert_close(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(
        actual.len(),
        expected.len(),
        "{what}: {actual:?} vs {expected:?}"
    );
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let ok = (a.is_nan() && e.is_nan()) || a == e || (a - e).abs() <= tol * (1.0 + e.abs());
        assert!(
            ok,
            "{what}: element {i}: got {a}, expected {e} (all: {actual:?} vs {expected:?})"
        );
    }
}

pub fn values(t: &Tensor) -> Vec<f64> {
    t.to_f64_vec()
}

/// The gradient of `f(x)` (summed if not scalar) with respect to `x`, on a fresh tape. Called
/// under other tapes, it is itself recorded (higher orders).
pub fn grad_of(f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> Result<Tensor> {
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter()?;
        tape.watch(x);
        f(x)?
    };
    Ok(tape
        .gradient(&[y], &[x.into()], None, Unconnected::Zero)?
        .pop()
        .flatten()
        .expect("zeros when unconnected"))
}

pub fn one_hot(n: usize, i: usize, shape: &[usize]) -> Tensor {
    let mut v = vec![0.0; n];
    v[i] = 1.0;
    t64(&v, shape)
}

/// The Hessian of scalar `f` at `x`, row by row with nested tapes, as a flat row-major matrix.
pub fn hessian(f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> Vec<f64> {
    let n = x.size();
    let mut out = Vec::new();
    for i in 0..n {
        let e = one_hot(n, i, x.shape());
        let row = grad_of(
            &|x| reduce_sum(&multiply(&grad_of(f, x)?, &e)?, None, false),
            x,
        )
        .unwrap();
        out.extend(values(&row));
    }
    out
}

/// Checks `op` by finite differences, first and second order, for every axis choice, keepdims
/// both ways.
pub fn gradcheck_reduction(op: Op, x: &Tensor) {
    for axes in AXES {
        for keepdims in [false, true] {
            let f = |xs: &[Tensor]| op(&xs[0], axes, keepdims);
            gradcheck(&f, std::slice::from_ref(x), true, Tolerance::default())
                .unwrap_or_else(|e| panic!("axes {axes:?}, keepdims {keepdims}: {e}"));
        }
    }
}

pub fn input() -> Tensor {
    pseudo_random(&[2, 3, 4], 7)
}

/// `[[1, 2, 3], [4, 5, 6]]`.
pub fn m23() -> Tensor {
    t64(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])
}

pub fn assert_axis_error(result: Result<Tensor>, op: &str, rank: usize) {
    let err = result.expect_err("an out-of-range axis must fail");
    assert_eq!(err.kind, ErrorKind::Value, "{err}");
    assert_eq!(err.op, op, "{err}");
    assert!(err.message.contains(&format!("rank {rank}")), "{err}");
}
