//! Helpers of the shape test files (tests/shape_*.rs): ranges, exact tensor checks, error
//! checks, slice items.
use rustape::ops::{multiply, sin, SliceItem};
use rustape::{Error, ErrorKind, Result, Tensor};

/// `0, 1, ..., n - 1` in float64, shaped.
pub fn arange(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec((0..n).map(|v| v as f64).collect(), shape).unwrap()
}

pub fn assert_tensor(t: &Tensor, shape: &[usize], values: &[f64]) {
    assert_eq!(t.shape(), shape, "shape of {t:?}");
    assert_eq!(t.to_f64_vec(), values, "values of {t:?}");
}

/// `y * sin(y)`: a nonlinearity after the op, so the second-order check goes through the
/// op's VJP (a linear op alone has a zero second derivative that needs no VJP of the VJP).
pub fn curved(y: Tensor) -> Result<Tensor> {
    multiply(&y, &sin(&y)?)
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
