//! Binary arithmetic with NumPy broadcasting, and its gradients.
use super::{
    broadcast_mixes, cast, greater, greater_equal, less_equal, log, logical_not, max_nan, min_nan,
    negative, plus, where_, zip, Arith,
};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::{
    broadcast_shapes, same_dtype, scalar_like, shape_of, sum_to_batched_shape, zip_map,
};
use crate::tape::{input_needed, record_batched};
use crate::tensor::{Data, Tensor};

/// Whether an integer tensor has an element for which `f` holds (false for other dtypes).
fn any_int(t: &Tensor, f: impl Fn(i64) -> bool) -> bool {
    match t.data() {
        Data::I32(a) => a.iter().any(|&v| f(v as i64)),
        Data::I64(a) => a.iter().any(|&v| f(v)),
        _ => false,
    }
}

/// Integer division by zero is an error in TensorFlow (floats give inf or NaN).
fn validate_division(op: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    broadcast_shapes(op, a.shape(), b.shape())?;
    same_dtype(op, a, b)?;
    if any_int(b, |v| v == 0) {
        return Err(Error::value(
            op,
            format!("integer division by zero ({} divisor)", b.dtype()),
        ));
    }
    Ok(())
}

/// A binary op's input gradients, each summed back over the axes its operand was broadcast along
/// (keeping `batch` leading axes of a vectorised Jacobian). Only the gradients the sweep needs
/// are computed: a Python number's gradient is never used.
pub(super) fn unbroadcast(
    batch: usize,
    da: impl FnOnce() -> Result<Tensor>,
    a: &[usize],
    db: impl FnOnce() -> Result<Tensor>,
    b: &[usize],
) -> Result<Vec<Option<Tensor>>> {
    let ga = if input_needed(0) {
        Some(sum_to_batched_shape(&da()?, batch, a)?)
    } else {
        None
    };
    let gb = if input_needed(1) {
        Some(sum_to_batched_shape(&db()?, batch, b)?)
    } else {
        None
    };
    Ok(vec![ga, gb])
}

/// `dy` where `mask` holds, else zero.
fn masked(mask: &Tensor, dy: &Tensor) -> Result<Tensor> {
    where_(mask, dy, &scalar_like(0.0, dy))
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

/// `a + b`, broadcasting.
pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num "add", a, b, |p, q| Arith::add(p, q));
    let (sa, sb) = (shape_of(a), shape_of(b));
    let rows = broadcast_mixes(&[a, b], y.shape());
    record_batched("add", &[a, b], &y, &[], rows, true, move |_, dy, batch| {
        unbroadcast(batch, || Ok(dy.clone()), &sa, || Ok(dy.clone()), &sb)
    });
    Ok(y)
}

/// `a - b`, broadcasting.
pub fn subtract(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num "subtract", a, b, |p, q| Arith::sub(p, q));
    let (sa, sb) = (shape_of(a), shape_of(b));
    let rows = broadcast_mixes(&[a, b], y.shape());
    record_batched(
        "subtract",
        &[a, b],
        &y,
        &[],
        rows,
        true,
        move |_, dy, batch| unbroadcast(batch, || Ok(dy.clone()), &sa, || negative(dy), &sb),
    );
    Ok(y)
}

/// `a * b`, broadcasting.
pub fn multiply(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num "multiply", a, b, |p, q| Arith::mul(p, q));
    let rows = broadcast_mixes(&[a, b], y.shape());
    record_batched(
        "multiply",
        &[a, b],
        &y,
        &[a, b],
        rows,
        true,
        |s, dy, batch| {
            let (a, b) = (&s[0], &s[1]);
            unbroadcast(
                batch,
                || multiply(dy, b),
                a.shape(),
                || multiply(dy, a),
                b.shape(),
            )
        },
    );
    Ok(y)
}

/// `a / b`, broadcasting: true division, as TensorFlow's `truediv`. Two integer operands
/// (int32 or int64, the same) are converted to float64 first, so the result is float64; use
/// [`floordiv`] for integer division. Division by zero gives inf or NaN.
pub fn divide(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dtype().is_int() && b.dtype().is_int() {
        broadcast_shapes("divide", a.shape(), b.shape())?;
        same_dtype("divide", a, b)?;
        return divide(&cast(a, DType::F64)?, &cast(b, DType::F64)?);
    }
    let y = zip!(float "divide", a, b, |p, q| p / q);
    let rows = broadcast_mixes(&[a, b], y.shape());
    record_batched(
        "divide",
        &[a, b],
        &y,
        &[a, b],
        rows,
        true,
        |s, dy, batch| {
            let (a, b) = (&s[0], &s[1]);
            let da = divide(dy, b)?;
            // d(a/b)/db = -a / b^2, written as -(dy/b) * (a/b) to stay in range.
            let db = negative(&multiply(&da, &divide(a, b)?)?)?;
            unbroadcast(batch, || Ok(da), a.shape(), || Ok(db), b.shape())
        },
    );
    Ok(y)
}

/// `floor(a / b)`, broadcasting; integers stay integers (rounding toward negative infinity).
/// Not differentiable (TensorFlow's `FloorDiv` has no gradient): never recorded.
pub fn floordiv(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    validate_division("floordiv", a, b)?;
    Ok(zip!(num "floordiv", a, b, |p, q| Arith::floordiv(p, q)))
}

/// `a - floor(a / b) * b`, broadcasting: the remainder takes the divisor's sign.
/// Gradient (TensorFlow's): `da = dy`, `db = -dy * floor(a / b)`.
pub fn floormod(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    validate_division("floormod", a, b)?;
    let y = zip!(num "floormod", a, b, |p, q| Arith::floormod(p, q));
    let rows = broadcast_mixes(&[a, b], y.shape());
    record_batched(
        "floormod",
        &[a, b],
        &y,
        &[a, b],
        rows,
        true,
        |s, dy, batch| {
            let (a, b) = (&s[0], &s[1]);
            let db = negative(&multiply(dy, &floordiv(a, b)?)?)?;
            unbroadcast(batch, || Ok(dy.clone()), a.shape(), || Ok(db), b.shape())
        },
    );
    Ok(y)
}

/// `a ** b`, broadcasting. A negative base to a non-integer power is NaN; for integers a
/// negative exponent is an error (as in TensorFlow) and overflow wraps.
/// Gradient (TensorFlow's): `da = dy * b * a^(b-1)`, `db = dy * a^b * log(a)` where `a > 0`,
/// else 0.
pub fn pow(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let op = "pow";
    broadcast_shapes(op, a.shape(), b.shape())?;
    same_dtype(op, a, b)?;
    if any_int(b, |v| v < 0) {
        return Err(Error::value(
            op,
            "integers to negative integer powers are not allowed",
        ));
    }
    let y = zip!(num op, a, b, |p, q| Arith::pow(p, q));
    let rows = broadcast_mixes(&[a, b], y.shape());
    record_batched(op, &[a, b], &y, &[a, b, &y], rows, true, |s, dy, batch| {
        let (a, b, y) = (&s[0], &s[1], &s[2]);
        let da = multiply(&multiply(dy, b)?, &pow(a, &plus(b, -1.0)?)?)?;
        let positive = greater(a, &scalar_like(0.0, a))?;
        let safe_a = where_(&positive, a, &scalar_like(1.0, a))?;
        let log_a = masked(&positive, &log(&safe_a)?)?;
        let db = multiply(&multiply(dy, y)?, &log_a)?;
        unbroadcast(batch, || Ok(da), a.shape(), || Ok(db), b.shape())
    });
    Ok(y)
}

/// The elementwise larger of `a` and `b`, broadcasting; NaN if either is NaN. The gradient goes
/// to `a` where `a >= b` (ties included, TensorFlow's rule), to `b` elsewhere.
pub fn maximum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num "maximum", a, b, |p, q| max_nan(p, q));
    record_extremum("maximum", a, b, &y, greater_equal);
    Ok(y)
}

/// The elementwise smaller of `a` and `b`, broadcasting; NaN if either is NaN. The gradient goes
/// to `a` where `a <= b` (ties included, TensorFlow's rule), to `b` elsewhere.
pub fn minimum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num "minimum", a, b, |p, q| min_nan(p, q));
    record_extremum("minimum", a, b, &y, less_equal);
    Ok(y)
}

/// The VJP of `maximum`/`minimum`: `dy` to `a` where `a_wins(a, b)`, to `b` elsewhere.
fn record_extremum(
    op: &'static str,
    a: &Tensor,
    b: &Tensor,
    y: &Tensor,
    a_wins: fn(&Tensor, &Tensor) -> Result<Tensor>,
) {
    let rows = broadcast_mixes(&[a, b], y.shape());
    record_batched(op, &[a, b], y, &[a, b], rows, true, move |s, dy, batch| {
        let (a, b) = (&s[0], &s[1]);
        let mask = a_wins(a, b)?;
        let da = masked(&mask, dy)?;
        let db = masked(&logical_not(&mask)?, dy)?;
        unbroadcast(batch, || Ok(da), a.shape(), || Ok(db), b.shape())
    });
}

/// `t` clipped to `[lo, hi]`, as TensorFlow computes it: `maximum(minimum(t, hi), lo)`, which
/// also gives TensorFlow's gradients (`t` gets `dy` where `lo <= t <= hi`; `lo` and `hi` get it
/// where they clip, reduced to their shapes). `lo` and `hi` broadcast to `t`'s shape and may not
/// enlarge it. With `lo > hi` every element is `lo`.
pub fn clip_by_value(t: &Tensor, lo: &Tensor, hi: &Tensor) -> Result<Tensor> {
    let op = "clip_by_value";
    for (name, bound) in [("clip_value_min", lo), ("clip_value_max", hi)] {
        if broadcast_shapes(op, t.shape(), bound.shape())? != t.shape() {
            return Err(Error::shape(
                op,
                format!(
                    "{name} of shape {} would broadcast t of shape {} to a larger shape",
                    fmt_shape(bound.shape()),
                    fmt_shape(t.shape())
                ),
            ));
        }
        same_dtype(op, t, bound)?;
    }
    maximum(&minimum(t, hi)?, lo)
}
