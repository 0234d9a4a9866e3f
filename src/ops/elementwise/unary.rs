//! More unary math: inverse trigonometric and hyperbolic functions, `expm1`, and the float
//! classification predicates `is_nan`, `is_inf`, `is_finite`.
//!
//! Gradients are TensorFlow's registered ones, written in rustape ops (so the infinities and
//! NaNs at domain edges are TensorFlow's too: `asin'(±1)` and `atanh'(±1)` are `inf`,
//! `acosh'(1)` is `inf`).
use super::{map_float, map_float_or_complex, plus, rsub, unary_vjp, Saves};
use crate::dispatch;
use crate::error::Result;
use crate::ops::cmath::CMath;
use crate::ops::complex::mul_conj;
use crate::ops::kernel::PAR_MATH;
use crate::ops::kernel::{map_array, PAR_CHEAP};
use crate::ops::{divide, exp, multiply, negative, sqrt, square};
use crate::tensor::{Data, Element, Tensor};

/// `sqrt(1 - x^2)`.
fn sqrt_one_minus_square(x: &Tensor) -> Result<Tensor> {
    sqrt(&rsub(1.0, &square(x)?)?)
}

/// `asin(x)`, NaN outside `[-1, 1]`. Gradient `dy / sqrt(1 - x^2)`.
pub fn asin(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "asin", |v| v.asin());
    unary_vjp("asin", x, y, Saves::Input, |x, dy| {
        divide(dy, &sqrt_one_minus_square(x)?)
    })
}

/// `acos(x)`, NaN outside `[-1, 1]`. Gradient `-dy / sqrt(1 - x^2)`.
pub fn acos(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "acos", |v| v.acos());
    unary_vjp("acos", x, y, Saves::Input, |x, dy| {
        negative(&divide(dy, &sqrt_one_minus_square(x)?)?)
    })
}

/// `atan(x)`. Gradient `dy / (1 + x^2)`.
pub fn atan(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "atan", |v| v.atan());
    unary_vjp("atan", x, y, Saves::Input, |x, dy| {
        divide(dy, &plus(&square(x)?, 1.0)?)
    })
}

/// `sinh(x)`, real or complex. Gradient `dy * conj(cosh(x))`.
pub fn sinh(x: &Tensor) -> Result<Tensor> {
    let y = map_float_or_complex!(PAR_MATH, x, "sinh", |v| v.sinh(), |c| c.c_sinh());
    unary_vjp("sinh", x, y, Saves::Input, |x, dy| mul_conj(dy, &cosh(x)?))
}

/// `cosh(x)`, real or complex. Gradient `dy * conj(sinh(x))`.
pub fn cosh(x: &Tensor) -> Result<Tensor> {
    let y = map_float_or_complex!(PAR_MATH, x, "cosh", |v| v.cosh(), |c| c.c_cosh());
    unary_vjp("cosh", x, y, Saves::Input, |x, dy| mul_conj(dy, &sinh(x)?))
}

/// `asinh(x)`. Gradient `dy / cosh(y)` (TensorFlow's form, from the output).
pub fn asinh(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "asinh", |v| v.asinh());
    unary_vjp("asinh", x, y, Saves::Output, |y, dy| divide(dy, &cosh(y)?))
}

/// `acosh(x)`, NaN below 1. Gradient `dy / sinh(y)` (TensorFlow's form: `inf` at 1).
pub fn acosh(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "acosh", |v| v.acosh());
    unary_vjp("acosh", x, y, Saves::Output, |y, dy| divide(dy, &sinh(y)?))
}

/// `atanh(x)`: `±inf` at `±1`, NaN beyond. Gradient `dy / (1 - x^2)`.
pub fn atanh(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "atanh", |v| v.atanh());
    unary_vjp("atanh", x, y, Saves::Input, |x, dy| {
        divide(dy, &rsub(1.0, &square(x)?)?)
    })
}

/// `e^x - 1`, accurate for small `x`. Gradient `dy * e^x`.
pub fn expm1(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "expm1", |v| v.exp_m1());
    unary_vjp("expm1", x, y, Saves::Input, |x, dy| multiply(dy, &exp(x)?))
}

/// `f` of every element of a floating tensor, as a bool tensor (not recorded).
fn classify(x: &Tensor, op: &str, f: fn(f64) -> bool) -> Result<Tensor> {
    let data: Data = dispatch!(values float x.data(), op, |a| map_array(op, a, PAR_CHEAP, |v| f(Element::to_f64(v)))?);
    Ok(Tensor::new(data))
}

/// Whether each element is NaN (floating dtypes; others are a TypeError, as in TensorFlow).
pub fn is_nan(x: &Tensor) -> Result<Tensor> {
    classify(x, "is_nan", f64::is_nan)
}

/// Whether each element is `+inf` or `-inf` (floating dtypes).
pub fn is_inf(x: &Tensor) -> Result<Tensor> {
    classify(x, "is_inf", f64::is_infinite)
}

/// Whether each element is neither infinite nor NaN (floating dtypes).
pub fn is_finite(x: &Tensor) -> Result<Tensor> {
    classify(x, "is_finite", f64::is_finite)
}
