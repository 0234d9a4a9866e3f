//! Helpers of the elementwise test files (tests/elementwise_*.rs): the op lists and their
//! independent reference values.
use super::{assert_close, gradients};
use rustape::ops::*;
use rustape::testing::Function;
use rustape::{Result, Tensor};

pub type Unary = fn(&Tensor) -> Result<Tensor>;
pub type Binary = fn(&Tensor, &Tensor) -> Result<Tensor>;
pub type Boxed = Box<dyn Fn(&[Tensor]) -> Result<Tensor>>;

/// Exact equality, NaN matching NaN and the sign of zero ignored.
#[track_caller]
pub fn assert_same(actual: &Tensor, expected: &[f64]) {
    assert_close(&actual.to_f64_vec(), expected, 0.0);
}

/// The gradients of `sum(f(xs))` with respect to each input, as float64 values (every input
/// must be connected).
pub fn grad_values(f: Function, xs: &[Tensor]) -> Vec<Vec<f64>> {
    gradients(f, xs)
        .unwrap()
        .iter()
        .map(|g| g.as_ref().expect("a gradient").to_f64_vec())
        .collect()
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
