//! Helpers shared by the shape test files (tests/shape_*.rs).
#![allow(dead_code)]

use rustape::ops::{multiply, reduce_sum, sin, SliceItem};
use rustape::testing::{gradcheck, Tolerance};
use rustape::{Error, ErrorKind, Result, Tape, Tensor, Unconnected};

/// `0, 1, ..., n - 1` in float64, shaped.
pub fn arange(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec((0..n).map(|v| v as f64).collect(), shape).unwrap()
}

pub fn f64s(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

pub fn i32s(values: &[i32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

pub fn assert_tensor(t: &Tensor, shape: &[usize], values: &[f64]) {
    assert_eq!(t.shape(), shape, "shape of {t:?}");
    assert_eq!(t.to_f64_vec(), values, "values of {t:?}");
}

pub fn assert_close(t: &Tensor, shape: &[usize], values: &[f64]) {
    assert_eq!(t.shape(), shape, "shape of {t:?}");
    for (a, b) in t.to_f64_vec().iter().zip(values) {
        assert!(
            (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
            "{t:?} vs {values:?}"
        );
    }
    assert_eq!(t.size(), values.len());
}

/// d sum(f(x)) / dx.
pub fn grad_of_sum(f: impl Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> Tensor {
    let tape = Tape::new(false, true);
    let y = {
        let _r = tape.enter().unwrap();
        tape.watch(x);
        reduce_sum(&f(x).unwrap(), None, false).unwrap()
    };
    tape.gradient(&[y], &[x.into()], None, Unconnected::Zero)
        .unwrap()
        .pop()
        .unwrap()
        .unwrap()
}

/// `y * sin(y)`: a nonlinearity after the op, so the second-order check goes through the
/// op's VJP (a linear op alone has a zero second derivative that needs no VJP of the VJP).
pub fn curved(y: Tensor) -> Result<Tensor> {
    multiply(&y, &sin(&y)?)
}

pub fn check(f: &dyn Fn(&[Tensor]) -> Result<Tensor>, inputs: &[Tensor]) {
    gradcheck(f, inputs, true, Tolerance::default()).unwrap();
}

pub fn assert_err(
    result: Result<impl std::fmt::Debug>,
    kind: ErrorKind,
    op: &str,
    needles: &[&str],
) -> Error {
    let err = result.expect_err("expected an error");
    assert_eq!(err.kind, kind, "{err}");
    assert_eq!(err.op, op, "{err}");
    for needle in needles {
        assert!(
            err.message.contains(needle),
            "{err:?} should mention {needle:?}"
        );
    }
    err
}

pub fn r(start: Option<isize>, stop: Option<isize>, step: isize) -> SliceItem {
    SliceItem::Range { start, stop, step }
}
