//! Binary math with TensorFlow's edge rules: `atan2`, `xlogy`, `xdivy`, `divide_no_nan`, and
//! `scalar_mul`. Broadcasting as in every binary op; gradients are TensorFlow's registered
//! ones (so `atan2` at the origin has NaN gradients, and `xlogy`, `xdivy` and
//! `divide_no_nan` pass zero where their guard holds).
use super::binary::{record_binary, A, B};
use super::{cast, not_equal, when, zip};
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{add, broadcast_shapes, multiply, negative, scalar_like, square, zip_map};
use crate::tensor::{Data, Tensor};

/// `1` where `x != 0`, else `0`, in `x`'s dtype.
fn nonzero(x: &Tensor) -> Result<Tensor> {
    cast(&not_equal(x, &scalar_like(0.0, x))?, x.dtype())
}

/// The angle of the point `(x, y)` from the positive x axis, in `(-π, π]`, broadcasting.
/// Gradients `dy · x / (x² + y²)` to `y` and `−dy · y / (x² + y²)` to `x` (NaN at the origin,
/// as in TensorFlow).
pub fn atan2(y: &Tensor, x: &Tensor) -> Result<Tensor> {
    let out = zip!(float "atan2", y, x, |p, q| p.atan2(q));
    record_binary("atan2", y, x, &out, [A | B, A | B], |s, dy, need| {
        let (y, x) = (&s[0], &s[1]);
        let inv = super::divide(dy, &add(&square(x)?, &square(y)?)?)?;
        Ok([
            when(need[0], || multiply(x, &inv))?,
            when(need[1], || negative(&multiply(y, &inv)?))?,
        ])
    });
    Ok(out)
}

/// `x · log(y)`, and `0` wherever `x == 0` (even where `y` is 0 or NaN), broadcasting.
/// Gradients (TensorFlow's): `dy · xlogy(x != 0, y)` to `x`, `dy · xdivy(x, y)` to `y`.
pub fn xlogy(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let out = zip!(float "xlogy", x, y, |p, q| if p == 0.0 { 0.0 } else { p * q.ln() });
    record_binary("xlogy", x, y, &out, [A | B, A | B], |s, dy, need| {
        let (x, y) = (&s[0], &s[1]);
        Ok([
            when(need[0], || multiply(dy, &xlogy(&nonzero(x)?, y)?))?,
            when(need[1], || multiply(dy, &xdivy(x, y)?))?,
        ])
    });
    Ok(out)
}

/// `x / y`, and `0` wherever `x == 0` (even where `y` is 0), broadcasting. Gradients
/// (TensorFlow's): `dy · xdivy(x != 0, y)` to `x`, `dy · xdivy(−x, y²)` to `y`.
pub fn xdivy(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let out = zip!(float "xdivy", x, y, |p, q| if p == 0.0 { 0.0 } else { p / q });
    record_binary("xdivy", x, y, &out, [A | B, A | B], |s, dy, need| {
        let (x, y) = (&s[0], &s[1]);
        Ok([
            when(need[0], || multiply(dy, &xdivy(&nonzero(x)?, y)?))?,
            when(need[1], || {
                multiply(dy, &xdivy(&negative(x)?, &square(y)?)?)
            })?,
        ])
    });
    Ok(out)
}

/// `x / y`, and `0` wherever `y == 0` (even where `x` is 0, inf or NaN), broadcasting.
/// Gradients (TensorFlow's): `divide_no_nan(dy, y)` to `x`,
/// `dy · divide_no_nan(divide_no_nan(−x, y), y)` to `y`.
pub fn divide_no_nan(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let out = zip!(float "divide_no_nan", x, y, |p, q| if q == 0.0 { 0.0 } else { p / q });
    record_binary("divide_no_nan", x, y, &out, [B, A | B], |s, dy, need| {
        let (x, y) = (&s[0], &s[1]);
        Ok([
            when(need[0], || divide_no_nan(dy, y))?,
            when(need[1], || {
                multiply(dy, &divide_no_nan(&divide_no_nan(&negative(x)?, y)?, y)?)
            })?,
        ])
    });
    Ok(out)
}

/// `scalar · x` for a 0-d `scalar` (`tf.math.scalar_mul`); any other shape is
/// a ValueError. Gradients go to both, as for [`multiply`].
pub fn scalar_mul(scalar: &Tensor, x: &Tensor) -> Result<Tensor> {
    if scalar.ndim() != 0 {
        return Err(Error::value(
            "scalar_mul",
            format!(
                "only a scalar multiplies, got a scalar of shape {} (x has shape {})",
                fmt_shape(scalar.shape()),
                fmt_shape(x.shape())
            ),
        ));
    }
    multiply(scalar, x)
}

/// The next representable number after `x1` in the direction of `x2`, elementwise with
/// broadcasting (`tf.math.nextafter`, float32 or float64); `x2` when they are equal, NaN when
/// either is NaN. Gradients (TensorFlow's): `dy` to `x1`, zeros to `x2`.
pub fn nextafter(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    let op = "nextafter";
    let shape = broadcast_shapes(op, x1.shape(), x2.shape())?;
    let out = Tensor::new(match (x1.data(), x2.data()) {
        (Data::F32(a), Data::F32(b)) => zip_map(op, a, b, &shape, libm::nextafterf)?.into(),
        (Data::F64(a), Data::F64(b)) => zip_map(op, a, b, &shape, libm::nextafter)?.into(),
        (p, q) if p.dtype() == q.dtype() => {
            return Err(crate::tensor::unsupported(op, p.dtype(), "a floating"))
        }
        (p, q) => return Err(crate::tensor::mismatch(op, p.dtype(), q.dtype())),
    });
    record_binary(op, x1, x2, &out, [0, 0], |_, dy, need| {
        Ok([
            need[0].then(|| dy.clone()),
            need[1].then(|| crate::ops::zeros_like(dy)),
        ])
    });
    Ok(out)
}
