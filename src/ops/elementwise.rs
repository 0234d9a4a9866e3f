//! Elementwise ops: arithmetic with NumPy broadcasting, unary math, activations, selection,
//! comparisons and logic.
//!
//! Values follow NumPy and TensorFlow at the edges: `log(0)` is `-inf`, `sqrt(-1)` is NaN,
//! `maximum`/`minimum` propagate NaN, integers wrap on overflow and floor toward negative
//! infinity in `floordiv`/`floormod`. Only integer division by zero and integer powers with a
//! negative exponent are errors (as in TensorFlow).
//!
//! Gradients follow TensorFlow's registered gradients, ties and kinks included; `floordiv`,
//! `round`, `floor`, comparisons and logic are not recorded (their gradient is None).
use ndarray::{IxDyn, Zip};

use super::arith::Arith;
use super::kernel::{map_array_with, select_vec, PAR_CHEAP, PAR_MATH};
use super::vmath::{map_slice_trig, VMath};
use super::{broadcast_shapes, same_dtype, scalar_like, shape_of, sum_to_batched_shape, zip_map};
use crate::dispatch2;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{input_needed, mixes_input, record_batched};
use crate::tensor::{Data, Element, Tensor, Values};

// ---------------------------------------------------------------------------------------------
// Kernels

/// The larger of two elements; NaN if either is NaN (NumPy's `maximum`).
pub(super) fn max_nan<T: Arith>(p: T, q: T) -> T {
    if p.is_nan() || p >= q {
        p
    } else {
        q
    }
}

/// The smaller of two elements; NaN if either is NaN (NumPy's `minimum`).
fn min_nan<T: Arith>(p: T, q: T) -> T {
    if p.is_nan() || p <= q {
        p
    } else {
        q
    }
}

/// `|v| expr` over every element of a floating tensor (the closure is instantiated for float32
/// and float64 alike), as a new `Tensor`; other dtypes are a TypeError naming `op`. `math`
/// marks a costly `expr` (a polynomial): it goes parallel at a smaller size.
macro_rules! map_float {
    (math $x:expr, $op:expr, |$v:ident| $f:expr) => {
        Tensor::new($crate::dispatch!(values float $x.data(), $op, |a| $crate::ops::kernel::map_array(
            a, $crate::ops::kernel::PAR_MATH, |$v| $f)))
    };
    ($x:expr, $op:expr, |$v:ident| $f:expr) => {
        Tensor::new($crate::dispatch!(values float $x.data(), $op, |a| $crate::ops::kernel::map_array(
            a, $crate::ops::kernel::PAR_CHEAP, |$v| $f)))
    };
}

/// Like [`map_float!`] for every numeric dtype (use [`Arith`] for integer-safe arithmetic).
macro_rules! map_num {
    ($x:expr, $op:expr, |$v:ident| $f:expr) => {
        Tensor::new($crate::dispatch!(values num $x.data(), $op, |a| $crate::ops::kernel::map_array(
            a, $crate::ops::kernel::PAR_CHEAP, |$v| $f)))
    };
}

/// sin (or cos) over a tensor: the vectorised kernel, std beyond its range.
fn map_trig(x: &Tensor, op: &str, sin: bool) -> Result<Tensor> {
    // Function items (not pointers), so that the kernels inline into the vector loops.
    fn run<T: VMath + Default>(a: &Values<T>, sin: bool) -> Values<T> {
        if sin {
            map_array_with(a, PAR_MATH, |s, d| {
                map_slice_trig(s, d, T::v_sin_reduced, T::std_sin)
            })
        } else {
            map_array_with(a, PAR_MATH, |s, d| {
                map_slice_trig(s, d, T::v_cos_reduced, T::std_cos)
            })
        }
    }
    Ok(Tensor::new(match x.data() {
        Data::F32(a) => run(a, sin).into(),
        Data::F64(a) => run(a, sin).into(),
        other => return Err(crate::tensor::unsupported(op, other.dtype(), "a floating")),
    }))
}

/// `|p, q| expr` over `a` and `b` broadcast together, for the dtypes of `class` (`float`,
/// `num` or `all`, as in `dispatch2!`), as a new `Tensor`. Validates shapes and dtypes.
macro_rules! zip {
    ($class:ident $op:expr, $a:expr, $b:expr, |$p:ident, $q:ident| $f:expr) => {{
        let shape = broadcast_shapes($op, $a.shape(), $b.shape())?;
        Tensor::new($crate::dispatch2!($class $a.data(), $b.data(), $op, |x, z| zip_map(x, z, &shape, |$p, $q| $f)))
    }};
}
pub(super) use {map_float, map_num, zip};

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

// ---------------------------------------------------------------------------------------------
// Gradient helpers

/// Which tensor a unary op's VJP reads: its input or its output.
#[derive(Clone, Copy)]
pub(super) enum Saves {
    Input,
    Output,
}

/// Records the unary op `op` (`x -> y`) whose gradient is `vjp(saved, dy)`, and returns `y`.
pub(super) fn unary_vjp(
    op: &'static str,
    x: &Tensor,
    y: Tensor,
    saves: Saves,
    vjp: fn(&Tensor, &Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    let saved = match saves {
        Saves::Input => x,
        Saves::Output => &y,
    };
    // `vjp` scales `dy` elementwise, so batched cotangents pass through it unchanged.
    record_batched(op, &[x], &y, &[saved], 0, true, move |s, dy, _batch| {
        Ok(vec![Some(vjp(&s[0], dy)?)])
    });
    Ok(y)
}

/// The row-mixing mask (see `crate::tape::mixes_input`) of a broadcasting op whose result has
/// `out_shape`. Input `k` keeps the batch rows when its axis 0 lines up with the result's (the
/// same rank, the same leading size); an input broadcast along axis 0 (fewer dimensions, or a
/// leading 1 stretched) reaches every row of the result.
pub(crate) fn broadcast_mixes(inputs: &[&Tensor], out_shape: &[usize]) -> u8 {
    inputs
        .iter()
        .enumerate()
        .filter(|(_, t)| t.ndim() != out_shape.len() || t.shape().first() != out_shape.first())
        .fold(0, |mask, (k, _)| mask | mixes_input(k))
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

/// `t + c` for a constant `c` of `t`'s dtype.
pub(super) fn plus(t: &Tensor, c: f64) -> Result<Tensor> {
    add(t, &scalar_like(c, t))
}

/// `c - t` for a constant `c` of `t`'s dtype.
pub(super) fn rsub(c: f64, t: &Tensor) -> Result<Tensor> {
    subtract(&scalar_like(c, t), t)
}

/// `t * c` for a constant `c` of `t`'s dtype.
pub(super) fn scale(t: &Tensor, c: f64) -> Result<Tensor> {
    multiply(t, &scalar_like(c, t))
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

// ---------------------------------------------------------------------------------------------
// Unary math

/// `-x`.
pub fn negative(x: &Tensor) -> Result<Tensor> {
    let y = map_num!(x, "negative", |v| Arith::neg(v));
    record_batched("negative", &[x], &y, &[], 0, true, |_, dy, _batch| {
        Ok(vec![Some(negative(dy)?)])
    });
    Ok(y)
}

/// `|x|` (integers wrap: the most negative value stays itself). Gradient `dy * sign(x)`.
pub fn abs(x: &Tensor) -> Result<Tensor> {
    let y = map_num!(x, "abs", |v| Arith::abs(v));
    unary_vjp("abs", x, y, Saves::Input, |x, dy| multiply(dy, &sign(x)?))
}

/// -1, 0 or 1 by the sign of `x`; NaN stays NaN. Its gradient is zero (TensorFlow's).
pub fn sign(x: &Tensor) -> Result<Tensor> {
    let y = map_num!(x, "sign", |v| Arith::sign(v));
    record_batched("sign", &[x], &y, &[], 0, true, |_, dy, _batch| {
        Ok(vec![Some(dy.zeros_like())])
    });
    Ok(y)
}

/// `x * x`.
pub fn square(x: &Tensor) -> Result<Tensor> {
    let y = map_num!(x, "square", |v| Arith::mul(v, v));
    unary_vjp("square", x, y, Saves::Input, |x, dy| {
        multiply(dy, &scale(x, 2.0)?)
    })
}

/// `√x`; NaN for negative `x`. Gradient `dy / (2 √x)`.
pub fn sqrt(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(x, "sqrt", |v| v.sqrt());
    unary_vjp("sqrt", x, y, Saves::Output, |y, dy| {
        divide(dy, &scale(y, 2.0)?)
    })
}

/// `e^x`.
pub fn exp(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "exp", |v| v.v_exp());
    unary_vjp("exp", x, y, Saves::Output, |y, dy| multiply(dy, y))
}

/// The natural logarithm; `-inf` at 0, NaN below.
pub fn log(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "log", |v| v.v_ln());
    unary_vjp("log", x, y, Saves::Input, |x, dy| divide(dy, x))
}

/// `log(1 + x)`, accurate for small `x`.
pub fn log1p(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "log1p", |v| v.v_ln_1p());
    unary_vjp("log1p", x, y, Saves::Input, |x, dy| {
        divide(dy, &plus(x, 1.0)?)
    })
}

/// `tan(x)`. Gradient `dy / cos(x)^2`.
pub fn tan(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "tan", |v| v.tan());
    unary_vjp("tan", x, y, Saves::Input, |x, dy| {
        divide(dy, &square(&cos(x)?)?)
    })
}

/// `sin(x)`.
pub fn sin(x: &Tensor) -> Result<Tensor> {
    let y = map_trig(x, "sin", true)?;
    unary_vjp("sin", x, y, Saves::Input, |x, dy| multiply(dy, &cos(x)?))
}

/// `cos(x)`.
pub fn cos(x: &Tensor) -> Result<Tensor> {
    let y = map_trig(x, "cos", false)?;
    unary_vjp("cos", x, y, Saves::Input, |x, dy| {
        negative(&multiply(dy, &sin(x)?)?)
    })
}

/// Rounds half to even (banker's rounding, as TensorFlow and NumPy); integers are returned
/// unchanged. Not differentiable: never recorded.
pub fn round(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_int() {
        return Ok(x.alias());
    }
    Ok(map_float!(x, "round", |v| v.round_ties_even()))
}

/// The largest integer not above `x` (floating dtypes). Not differentiable: never recorded.
pub fn floor(x: &Tensor) -> Result<Tensor> {
    Ok(map_float!(x, "floor", |v| v.floor()))
}

// ---------------------------------------------------------------------------------------------
// Selection

/// `x` where `cond` holds, else `y`; the three broadcast together (TensorFlow 2's `where`).
/// `cond` is bool; `x` and `y` share any dtype. Gradient: `dy` masked by `cond` to `x`, by its
/// negation to `y`, each reduced to its shape; none to `cond`.
pub fn where_(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let op = "where";
    if cond.dtype() != DType::Bool {
        return Err(Error::dtype(
            op,
            format!("condition must be bool, got {}", cond.dtype()),
        ));
    }
    let shape = broadcast_shapes(op, cond.shape(), x.shape())
        .and_then(|s| broadcast_shapes(op, &s, y.shape()))
        .map_err(|_| {
            Error::shape(
                op,
                format!(
                    "condition {}, x {} and y {} are not broadcast-compatible",
                    fmt_shape(cond.shape()),
                    fmt_shape(x.shape()),
                    fmt_shape(y.shape())
                ),
            )
        })?;
    let Some(c) = cond.values::<bool>() else {
        unreachable!("checked to be bool")
    };
    fn select<T: Element>(
        c: &Values<bool>,
        x: &Values<T>,
        y: &Values<T>,
        shape: &[usize],
    ) -> Values<T> {
        if c.shape() == shape && x.shape() == shape && y.shape() == shape {
            let (c, x, y) = (c.as_slice(), x.as_slice(), y.as_slice());
            let v = select_vec(c, x, y, PAR_CHEAP, |c, x, y| if c { x } else { y });
            return Values::from_vec(shape, v);
        }
        let (c, x, y) = (c.view(), x.view(), y.view());
        match (c.broadcast(shape), x.broadcast(shape), y.broadcast(shape)) {
            (Some(c), Some(x), Some(y)) => Zip::from(&c)
                .and(&x)
                .and(&y)
                .map_collect(|&c, &x, &y| if c { x } else { y })
                .into(),
            _ => unreachable!("shapes were validated by broadcast_shapes"),
        }
    }
    let out = Tensor::new(dispatch2!(all x.data(), y.data(), op, |p, q| select(c, p, q, &shape)));
    let (sx, sy) = (shape_of(x), shape_of(y));
    let rows = broadcast_mixes(&[cond, x, y], out.shape());
    record_batched(
        op,
        &[cond, x, y],
        &out,
        &[cond],
        rows,
        true,
        move |s, dy, batch| {
            let zero = scalar_like(0.0, dy);
            let to_x = where_(&s[0], dy, &zero)?;
            let to_y = where_(&s[0], &zero, dy)?;
            Ok(vec![
                None,
                Some(sum_to_batched_shape(&to_x, batch, &sx)?),
                Some(sum_to_batched_shape(&to_y, batch, &sy)?),
            ])
        },
    );
    Ok(out)
}

/// The coordinates of the true elements of `cond`, in row-major order, as an int64 tensor of
/// shape `[n, rank]` (TensorFlow's `where` with one argument).
pub fn where_indices(cond: &Tensor) -> Result<Tensor> {
    let Some(c) = cond.array::<bool>() else {
        return Err(Error::dtype(
            "where",
            format!("condition must be bool, got {}", cond.dtype()),
        ));
    };
    let rank = cond.ndim();
    let hits: Vec<IxDyn> = c
        .indexed_iter()
        .filter(|(_, &v)| v)
        .map(|(index, _)| index)
        .collect();
    let coords: Vec<i64> = hits
        .iter()
        .flat_map(|index| (0..rank).map(|k| index[k] as i64))
        .collect();
    Tensor::from_vec(coords, &[hits.len(), rank])
}

// ---------------------------------------------------------------------------------------------
// Comparisons and logic (bool results, broadcasting, never recorded)

/// `a == b`, any dtype (NaN equals nothing).
pub fn equal(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(zip!(all "equal", a, b, |p, q| p == q))
}

/// `a != b`, any dtype (NaN differs from everything).
pub fn not_equal(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(zip!(all "not_equal", a, b, |p, q| p != q))
}

/// `a < b`, numeric dtypes.
pub fn less(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(zip!(num "less", a, b, |p, q| p < q))
}

/// `a <= b`, numeric dtypes.
pub fn less_equal(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(zip!(num "less_equal", a, b, |p, q| p <= q))
}

/// `a > b`, numeric dtypes.
pub fn greater(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(zip!(num "greater", a, b, |p, q| p > q))
}

/// `a >= b`, numeric dtypes.
pub fn greater_equal(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(zip!(num "greater_equal", a, b, |p, q| p >= q))
}

/// `f` over two bool operands broadcast together.
fn logical(op: &str, a: &Tensor, b: &Tensor, f: fn(bool, bool) -> bool) -> Result<Tensor> {
    let shape = broadcast_shapes(op, a.shape(), b.shape())?;
    match (a.values::<bool>(), b.values::<bool>()) {
        (Some(p), Some(q)) => Ok(Tensor::new(Data::from(zip_map(p, q, &shape, f)))),
        _ => Err(Error::dtype(
            op,
            format!(
                "expected bool operands, got {} and {}",
                a.dtype(),
                b.dtype()
            ),
        )),
    }
}

/// `a && b`, bool operands, broadcasting.
pub fn logical_and(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    logical("logical_and", a, b, |p, q| p && q)
}

/// `a || b`, bool operands, broadcasting.
pub fn logical_or(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    logical("logical_or", a, b, |p, q| p || q)
}

/// `!x`, a bool operand.
pub fn logical_not(x: &Tensor) -> Result<Tensor> {
    let Some(a) = x.array::<bool>() else {
        return Err(Error::dtype(
            "logical_not",
            format!("expected a bool operand, got {}", x.dtype()),
        ));
    };
    Ok(Tensor::from_array(a.mapv(|v| !v)))
}

// ---------------------------------------------------------------------------------------------
// Conversions

/// Converts to `dtype`. Gradients pass between floating dtypes; integer and bool ends have none.
pub fn cast(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    fn convert<T: Element>(x: &Tensor) -> Data {
        fn each<S: Element, T: Element>(a: &Values<S>) -> Data {
            T::into_data(a.mapv(|v| T::from_f64(v.to_f64())))
        }
        match x.data() {
            Data::F32(a) => each::<f32, T>(a),
            Data::F64(a) => each::<f64, T>(a),
            Data::I32(a) => each::<i32, T>(a),
            Data::I64(a) => each::<i64, T>(a),
            Data::Bool(a) => each::<bool, T>(a),
        }
    }
    let data = match dtype {
        DType::F32 => convert::<f32>(x),
        DType::F64 => convert::<f64>(x),
        DType::I32 => convert::<i32>(x),
        DType::I64 => convert::<i64>(x),
        DType::Bool => convert::<bool>(x),
    };
    let y = Tensor::new(data);
    let from = x.dtype();
    if from.is_float() {
        record_batched("cast", &[x], &y, &[], 0, true, move |_, dy, _batch| {
            Ok(vec![Some(cast(dy, from)?)])
        });
    }
    Ok(y)
}

/// The same values with no gradient flowing back through them. Recorded (with a VJP that
/// passes nothing) so that `unconnected_gradients='raise'` can name it as the reason.
pub fn stop_gradient(x: &Tensor) -> Tensor {
    let y = x.alias();
    record_batched("stop_gradient", &[x], &y, &[], 0, true, |_, _, _| {
        Ok(vec![None])
    });
    y
}
