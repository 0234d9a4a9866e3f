//! Helpers shared by every Rust test file: tensors from literals, the one closeness assertion,
//! the one gradient helper and the gradcheck wrapper. A test file includes them with
//!
//! ```ignore
//! mod support;
//! use support::*;
//! use support::reduce::*; // a family's own helpers, when it has some
//! ```
//!
//! Family helpers (`elementwise`, `linalg`, `nn`, `reduce`, `shape`) build on these; a helper two
//! families need belongs here, not in a second copy.
#![allow(dead_code)] // each test file uses its own subset

pub mod elementwise;
pub mod linalg;
pub mod nn;
pub mod reduce;
pub mod shape;

use rustape::testing::{gradcheck, Function, Tolerance};
use rustape::{Result, Source, Tape, Tensor, Unconnected};

// ------------------------------------------------------------------------------------------
// Tensors from literals

/// A float64 tensor of `shape` (row-major `values`).
pub fn t64(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// A float32 tensor of `shape`.
pub fn t32(values: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// An int32 tensor of `shape`.
pub fn i32s(values: &[i32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// An int64 tensor of `shape`.
pub fn i64s(values: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// A bool tensor of `shape`.
pub fn bools(values: &[bool], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// A float64 vector.
pub fn v64(values: &[f64]) -> Tensor {
    t64(values, &[values.len()])
}

/// A float32 vector.
pub fn v32(values: &[f32]) -> Tensor {
    t32(values, &[values.len()])
}

/// An int32 vector.
pub fn vi32(values: &[i32]) -> Tensor {
    i32s(values, &[values.len()])
}

/// An int64 vector.
pub fn vi64(values: &[i64]) -> Tensor {
    i64s(values, &[values.len()])
}

/// A 0-d float64 tensor.
pub fn s64(v: f64) -> Tensor {
    Tensor::scalar(v)
}

/// A tensor's elements as float64, row-major.
pub fn values(t: &Tensor) -> Vec<f64> {
    t.to_f64_vec()
}

// ------------------------------------------------------------------------------------------
// Comparison

/// Asserts `actual` and `expected` have the same length and agree elementwise within `tol`
/// relative to `max(1, |expected|)`: `|a - e| <= tol * max(1, |e|)`. NaN matches only NaN, an
/// infinity only itself; `tol = 0` asks for equality (the sign of zero aside).
#[track_caller]
pub fn assert_close(actual: &[f64], expected: &[f64], tol: f64) {
    assert_close_labelled(actual, expected, tol, "");
}

/// [`assert_close`], naming the comparison (`what`) in the failure message: for loops over
/// cases.
#[track_caller]
pub fn assert_close_labelled(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    let label = if what.is_empty() {
        String::new()
    } else {
        format!("{what}: ")
    };
    assert_eq!(
        actual.len(),
        expected.len(),
        "{label}lengths differ: {actual:?} vs {expected:?}"
    );
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let ok = if a.is_nan() || e.is_nan() {
            a.is_nan() && e.is_nan()
        } else if a.is_infinite() || e.is_infinite() {
            a == e
        } else {
            (a - e).abs() <= tol * e.abs().max(1.0)
        };
        assert!(
            ok,
            "{label}element {i}: got {a}, expected {e} (tolerance {tol})\n  actual   {actual:?}\n  \
             expected {expected:?}"
        );
    }
}

// ------------------------------------------------------------------------------------------
// Gradients

/// The gradient of `y` with respect to `x` on `tape`, which recorded `y` (`None` when
/// unconnected). For a `y` of several elements, the gradient of their sum.
pub fn tape_gradient(tape: &Tape, y: &Tensor, x: impl Into<Source>) -> Option<Tensor> {
    tape.gradient(
        std::slice::from_ref(y),
        &[x.into()],
        None,
        Unconnected::None,
    )
    .unwrap()
    .pop()
    .unwrap()
}

/// The gradients of `sum(f(xs))` with respect to each of `xs`, on a fresh tape (`None` where
/// unconnected). Called while another tape records, the gradient is recorded too, so nesting
/// gives higher orders.
pub fn gradients(f: Function, xs: &[Tensor]) -> Result<Vec<Option<Tensor>>> {
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter()?;
        xs.iter().for_each(|x| tape.watch(x));
        f(xs)?
    };
    let sources: Vec<Source> = xs.iter().map(Source::from).collect();
    tape.gradient(&[y], &sources, None, Unconnected::None)
}

/// The gradient of `sum(f(x))` with respect to `x` (zeros when unconnected), recorded by the
/// tapes around it like [`gradients`].
pub fn gradient(f: &dyn Fn(&Tensor) -> Result<Tensor>, x: &Tensor) -> Result<Tensor> {
    let g = gradients(&|xs| f(&xs[0]), std::slice::from_ref(x))?
        .pop()
        .flatten();
    Ok(g.unwrap_or_else(|| x.zeros_like()))
}

/// First- and second-order gradcheck (finite differences, float64, default tolerance).
#[track_caller]
pub fn check(f: Function, inputs: &[Tensor]) {
    check_labelled(f, inputs, "");
}

/// [`check`], naming the case (`what`) in the failure message.
#[track_caller]
pub fn check_labelled(f: Function, inputs: &[Tensor], what: &str) {
    if let Err(e) = gradcheck(f, inputs, true, Tolerance::default()) {
        panic!("gradcheck of {what} failed: {e}");
    }
}
