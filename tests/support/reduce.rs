//! Helpers of the reduction and nn test files (tests/reduce_*.rs): the axis choices, a
//! Hessian by nested gradients, the reduction gradcheck.
use super::{gradient, t64, values};
use rustape::ops::{multiply, reduce_sum};
use rustape::testing::{gradcheck, pseudo_random, Tolerance};
use rustape::{ErrorKind, Result, Tensor};

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
        let row = gradient(
            &|x| reduce_sum(&multiply(&gradient(f, x)?, &e)?, None, false),
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
