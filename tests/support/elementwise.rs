//! Helpers shared by the elementwise test files (tests/elementwise_*.rs).
#![allow(dead_code)]

use rustape::ops::*;
use rustape::testing::{gradcheck, Function, Tolerance};
use rustape::{Result, Source, Tape, Tensor, Unconnected};

pub type Unary = fn(&Tensor) -> Result<Tensor>;
pub type Binary = fn(&Tensor, &Tensor) -> Result<Tensor>;
pub type Boxed = Box<dyn Fn(&[Tensor]) -> Result<Tensor>>;

pub fn t64(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

pub fn v64(values: &[f64]) -> Tensor {
    t64(values, &[values.len()])
}

pub fn v32(values: &[f32]) -> Tensor {
    Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap()
}

pub fn vi32(values: &[i32]) -> Tensor {
    Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap()
}

pub fn vi64(values: &[i64]) -> Tensor {
    Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap()
}

pub fn vbool(values: &[bool], shape: &[usize]) -> Tensor {
    Tensor::from_vec(values.to_vec(), shape).unwrap()
}

/// Elementwise `|a - e| <= tol * max(1, |e|)`; NaN matches NaN and infinities match exactly.
#[track_caller]
pub fn assert_close(actual: &[f64], expected: &[f64], tol: f64) {
    assert_eq!(
        actual.len(),
        expected.len(),
        "lengths differ: {actual:?} vs {expected:?}"
    );
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() {
            a.is_nan()
        } else if e.is_infinite() {
            a == e
        } else {
            (a - e).abs() <= tol * e.abs().max(1.0)
        };
        assert!(
            ok,
            "element {i}: got {a}, expected {e}\n  actual   {actual:?}\n  expected {expected:?}"
        );
    }
}

/// Exact equality, NaN matching NaN and the sign of zero ignored.
#[track_caller]
pub fn assert_same(actual: &Tensor, expected: &[f64]) {
    assert_close(&actual.to_f64_vec(), expected, 0.0);
}

/// The gradients of `sum(f(xs))` with respect to each input (None where unconnected).
pub fn grads(f: Function, xs: &[Tensor]) -> Vec<Option<Tensor>> {
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter().unwrap();
        xs.iter().for_each(|x| tape.watch(x));
        f(xs).unwrap()
    };
    let sources: Vec<Source> = xs.iter().map(Source::from).collect();
    tape.gradient(&[y], &sources, None, Unconnected::None)
        .unwrap()
}

pub fn grad_values(f: Function, xs: &[Tensor]) -> Vec<Vec<f64>> {
    grads(f, xs)
        .iter()
        .map(|g| g.as_ref().expect("a gradient").to_f64_vec())
        .collect()
}

/// First- and second-order gradcheck in float64.
#[track_caller]
pub fn check(name: &str, f: Function, inputs: &[Tensor]) {
    if let Err(e) = gradcheck(f, inputs, true, Tolerance::default()) {
        panic!("gradcheck of {name} failed: {e}");
    }
}

pub fn unary_ops() -> Vec<(&'static str, Unary)> {
    vec![
        ("negative", negative),
        ("abs", abs),
        ("sign", sign),
        ("square", square),
        ("sqrt", sqrt),
        ("exp", exp),
        ("log", log),
        ("log1p", log1p),
        ("sin", sin),
        ("cos", cos),
        ("tan", tan),
        ("tanh", tanh),
        ("sigmoid", sigmoid),
        ("relu", relu),
        ("elu", elu),
        ("softplus", softplus),
        ("round", round),
        ("floor", floor),
    ]
}

pub fn binary_ops() -> Vec<(&'static str, Binary)> {
    vec![
        ("add", add),
        ("subtract", subtract),
        ("multiply", multiply),
        ("divide", divide),
        ("pow", pow),
        ("maximum", maximum),
        ("minimum", minimum),
        ("floordiv", floordiv),
        ("floormod", floormod),
        ("equal", equal),
        ("not_equal", not_equal),
        ("less", less),
        ("less_equal", less_equal),
        ("greater", greater),
        ("greater_equal", greater_equal),
    ]
}

/// The value of each unary op in float64 arithmetic, written independently of the kernels.
pub fn reference(name: &str, v: f64) -> f64 {
    match name {
        "negative" => -v,
        "abs" => v.abs(),
        "sign" => {
            if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                v
            }
        }
        "square" => v * v,
        "sqrt" => v.sqrt(),
        "exp" => v.exp(),
        "log" => v.ln(),
        "log1p" => v.ln_1p(),
        "sin" => v.sin(),
        "cos" => v.cos(),
        "tan" => v.tan(),
        "tanh" => v.tanh(),
        "sigmoid" => 1.0 / (1.0 + (-v).exp()),
        "relu" => {
            if v > 0.0 {
                v
            } else {
                0.0
            }
        }
        "elu" => {
            if v > 0.0 {
                v
            } else {
                v.exp() - 1.0
            }
        }
        "softplus" => (1.0 + v.exp()).ln(),
        "round" => v.round_ties_even(),
        "floor" => v.floor(),
        _ => unreachable!("{name}"),
    }
}
