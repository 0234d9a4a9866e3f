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
use num_complex::Complex;

use super::arith::{Arith, Ring};
use super::cmath::CMath;
use super::complex::{complex_abs, div_conj, mul_conj};
use super::kernel::{map_array, map_array_with, select_vec, PAR_CHEAP, PAR_MATH};
use super::vmath::{map_slice_trig, VMath};
use super::{broadcast_shapes, scalar_like, shape_of, sum_to_batched_shape, zip_map};
use crate::dispatch2;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{
    any_tape_active, input_needed, record_batched, record_per_example, AxisMap, Grads, ALIGNED,
};
use crate::tensor::{Data, Element, Tensor, Values};

mod binary;
mod binary_math;
pub(crate) mod fused;
mod unary;
pub use binary::*;
pub use binary_math::*;
pub use fused::triple_product;
pub use unary::*;

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
            $op, a, $crate::ops::kernel::PAR_MATH, |$v| $f)?))
    };
    ($x:expr, $op:expr, |$v:ident| $f:expr) => {
        Tensor::new($crate::dispatch!(values float $x.data(), $op, |a| $crate::ops::kernel::map_array(
            $op, a, $crate::ops::kernel::PAR_CHEAP, |$v| $f)?))
    };
}

/// Like [`map_float!`] for every numeric dtype (use [`Arith`] for integer-safe arithmetic).
macro_rules! map_num {
    ($x:expr, $op:expr, |$v:ident| $f:expr) => {
        Tensor::new($crate::dispatch!(values num $x.data(), $op, |a| $crate::ops::kernel::map_array(
            $op, a, $crate::ops::kernel::PAR_CHEAP, |$v| $f)?))
    };
}

/// Like [`map_num!`] for complex dtypes too (use [`Ring`] for arithmetic every dtype has).
macro_rules! map_num_or_complex {
    ($x:expr, $op:expr, |$v:ident| $f:expr) => {
        Tensor::new($crate::dispatch!(values num_or_complex $x.data(), $op, |a| $crate::ops::kernel::map_array(
            $op, a, $crate::ops::kernel::PAR_CHEAP, |$v| $f)?))
    };
}

/// `|v| real` over a floating tensor and `|c| complex` over a complex one (each closure
/// instantiated for both widths), as a new `Tensor`; other dtypes are a TypeError naming `op`.
/// `par` is the floating kernel's parallel threshold (complex kernels use `PAR_MATH`).
macro_rules! map_float_or_complex {
    ($par:expr, $x:expr, $op:expr, |$v:ident| $f:expr, |$c:ident| $g:expr) => {
        Tensor::new(match $x.data() {
            Data::F32(a) => map_array($op, a, $par, |$v| $f)?.into(),
            Data::F64(a) => map_array($op, a, $par, |$v| $f)?.into(),
            Data::C64(a) => map_array($op, a, PAR_MATH, |$c| $g)?.into(),
            Data::C128(a) => {
                map_array($op, $crate::tensor::values_ref(a), PAR_MATH, |$c| $g)?.into()
            }
            other => {
                return Err($crate::tensor::unsupported(
                    $op,
                    other.dtype(),
                    "a floating or complex",
                ))
            }
        })
    };
}

/// sin (or cos) over a tensor: the vectorised kernel, std beyond its range.
fn map_trig(x: &Tensor, op: &str, sin: bool) -> Result<Tensor> {
    // Function items (not pointers), so that the kernels inline into the vector loops.
    fn run<T: VMath + Default>(op: &str, a: &Values<T>, sin: bool) -> Result<Values<T>> {
        if sin {
            map_array_with(op, a, PAR_MATH, |s, d| {
                map_slice_trig(s, d, T::v_sin_reduced, T::std_sin)
            })
        } else {
            map_array_with(op, a, PAR_MATH, |s, d| {
                map_slice_trig(s, d, T::v_cos_reduced, T::std_cos)
            })
        }
    }
    fn run_complex<T: CMath + Default>(op: &str, a: &Values<T>, sin: bool) -> Result<Values<T>> {
        if sin {
            map_array(op, a, PAR_MATH, T::c_sin)
        } else {
            map_array(op, a, PAR_MATH, T::c_cos)
        }
    }
    Ok(Tensor::new(match x.data() {
        Data::F32(a) => run(op, a, sin)?.into(),
        Data::F64(a) => run(op, a, sin)?.into(),
        Data::C64(a) => run_complex(op, a, sin)?.into(),
        Data::C128(a) => run_complex(op, a, sin)?.into(),
        other => {
            return Err(crate::tensor::unsupported(
                op,
                other.dtype(),
                "a floating or complex",
            ))
        }
    }))
}

/// `|p, q| expr` over `a` and `b` broadcast together, for the dtypes of `class` (`float`,
/// `num` or `all`, as in `dispatch2!`), as a new `Tensor`. Validates shapes and dtypes.
macro_rules! zip {
    ($class:ident $op:expr, $a:expr, $b:expr, |$p:ident, $q:ident| $f:expr) => {{
        let shape = broadcast_shapes($op, $a.shape(), $b.shape())?;
        Tensor::new($crate::dispatch2!($class $a.data(), $b.data(), $op, |x, z| zip_map($op, x, z, &shape, |$p, $q| $f)?))
    }};
}
pub(super) use {map_float, map_float_or_complex, map_num, zip};

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
    record_batched(
        op,
        &[x],
        &y,
        &[saved],
        ALIGNED,
        true,
        move |s, dy, _batch| Ok(crate::grads![Some(vjp(&s[0], dy)?)]),
    );
    Ok(y)
}

/// The axis map (see `crate::tape::AxisMap`) of a broadcasting op (NumPy rules): every input
/// lines up with the result from its last axis, and an axis of size 1 stretched over a longer
/// one mixes (each of its elements reaches every row there). A batch axis of more than one row
/// is never stretched, so `batch_jacobian` loses nothing; a per-example Jacobian needs the
/// mark to give a broadcast bias `[1, n]` one gradient per row.
pub(crate) fn broadcast_mixes(inputs: &[&Tensor], out_shape: &[usize]) -> AxisMap {
    let stretched = |t: &Tensor| -> smallvec::SmallVec<[usize; 4]> {
        let offset = out_shape.len().saturating_sub(t.ndim());
        (0..t.ndim())
            .filter(|&i| t.shape()[i] == 1 && out_shape.get(offset + i).is_some_and(|&n| n > 1))
            .collect()
    };
    match inputs {
        [a, b] => {
            let (sa, sb) = (stretched(a), stretched(b));
            match sa.is_empty() && sb.is_empty() {
                true => ALIGNED,
                false => AxisMap::mix_per_input(a.ndim(), &sa, b.ndim(), &sb),
            }
        }
        _ if inputs.iter().all(|t| stretched(t).is_empty()) => ALIGNED,
        _ => AxisMap::UNKNOWN,
    }
}

/// `f()` if `need`, else `None`.
pub(super) fn when(need: bool, f: impl FnOnce() -> Result<Tensor>) -> Result<Option<Tensor>> {
    need.then(f).transpose()
}

/// Records an op whose VJP sums gradients back to the shapes of two of its inputs, `shaped`,
/// and gets them as its last argument. A shape is the output's (`dy`'s, past the batch axes)
/// unless it differs and can get a gradient (a shared scalar never does): then both are
/// captured. Otherwise the closure captures nothing beyond `vjp` (which must capture nothing
/// either), and recording allocates nothing for it.
pub(super) fn record_shaped<G>(
    op: &'static str,
    inputs: &[&Tensor],
    out: &Tensor,
    saved: &[&Tensor],
    shaped: [&Tensor; 2],
    per_example: bool,
    vjp: G,
) where
    G: Fn(&[Tensor], &Tensor, usize, [&[usize]; 2]) -> Result<Grads> + Send + Sync + 'static,
{
    if !out.is_differentiable() || !any_tape_active() {
        return;
    }
    let rows = broadcast_mixes(inputs, out.shape());
    let implied = |t: &Tensor| t.is_shared_scalar() || t.shape() == out.shape();
    // Generic (not boxed): a closure capturing nothing stays zero-sized, recorded without an
    // allocation.
    fn record<F>(per_example: bool, op: &'static str, args: RecordArgs, rows: AxisMap, vjp: F)
    where
        F: Fn(&[Tensor], &Tensor, usize) -> Result<Grads> + Send + Sync + 'static,
    {
        let (inputs, out, saved) = args;
        if per_example {
            record_per_example(op, inputs, out, saved, rows, vjp)
        } else {
            record_batched(op, inputs, out, saved, rows, true, vjp)
        }
    }
    let args = (inputs, out, saved);
    if implied(shaped[0]) && implied(shaped[1]) {
        record(per_example, op, args, rows, move |s, dy, batch| {
            let shape = &dy.shape()[batch..];
            vjp(s, dy, batch, [shape, shape])
        });
    } else {
        let shapes = [shape_of(shaped[0]), shape_of(shaped[1])];
        record(per_example, op, args, rows, move |s, dy, batch| {
            vjp(s, dy, batch, [&shapes[0], &shapes[1]])
        });
    }
}

/// An op's inputs, output and saved tensors, as `record_shaped` passes them on.
type RecordArgs<'a, 'b> = (&'a [&'b Tensor], &'a Tensor, &'a [&'b Tensor]);

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
// Unary math

/// `-x`.
pub fn negative(x: &Tensor) -> Result<Tensor> {
    let y = map_num_or_complex!(x, "negative", |v| Ring::neg(v));
    record_batched("negative", &[x], &y, &[], ALIGNED, true, |_, dy, _batch| {
        Ok(crate::grads![Some(negative(dy)?)])
    });
    Ok(y)
}

/// `|x|` (integers wrap: the most negative value stays itself). Gradient `dy * sign(x)`. The
/// modulus of a complex tensor is real (float32 for complex64, float64 for complex128), with
/// gradient `dy * x / |x|` (0 where `x` is 0).
pub fn abs(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        return complex_abs(x);
    }
    let y = map_num!(x, "abs", |v| Arith::abs(v));
    unary_vjp("abs", x, y, Saves::Input, |x, dy| multiply(dy, &sign(x)?))
}

/// -1, 0 or 1 by the sign of `x`; NaN stays NaN. Its gradient is zero (TensorFlow's).
pub fn sign(x: &Tensor) -> Result<Tensor> {
    let y = map_num!(x, "sign", |v| Arith::sign(v));
    record_batched("sign", &[x], &y, &[], ALIGNED, true, |_, dy, _batch| {
        Ok(crate::grads![Some(dy.zeros_like())])
    });
    Ok(y)
}

// The complex VJPs below apply the conjugate of the derivative (`mul_conj`, `div_conj`:
// TensorFlow's convention, see `ops::complex`); for real dtypes they are the plain products.

/// `x * x`. Gradient `dy * conj(2x)`.
pub fn square(x: &Tensor) -> Result<Tensor> {
    let y = map_num_or_complex!(x, "square", |v| Ring::mul(v, v));
    unary_vjp("square", x, y, Saves::Input, |x, dy| {
        mul_conj(dy, &scale(x, 2.0)?)
    })
}

/// `√x`; NaN for negative real `x`, the principal root of a complex one. Gradient
/// `dy / conj(2 √x)`.
pub fn sqrt(x: &Tensor) -> Result<Tensor> {
    let y = map_float_or_complex!(PAR_CHEAP, x, "sqrt", |v| v.sqrt(), |c| c.c_sqrt());
    unary_vjp("sqrt", x, y, Saves::Output, |y, dy| {
        match y.dtype().is_complex() {
            true => div_conj(dy, &scale(y, 2.0)?),
            // TensorFlow's SqrtGrad: 0 where `dy` is 0, so a zero cotangent at sqrt(0) is no NaN.
            false => super::sqrt_grad(y, dy),
        }
    })
}

/// `e^x`. Gradient `dy * conj(e^x)`.
pub fn exp(x: &Tensor) -> Result<Tensor> {
    let y = map_float_or_complex!(PAR_MATH, x, "exp", |v| v.v_exp(), |c| c.c_exp());
    unary_vjp("exp", x, y, Saves::Output, |y, dy| mul_conj(dy, y))
}

/// The natural logarithm; `-inf` at 0, NaN below (real), the principal branch for complex
/// `x`. Gradient `dy / conj(x)`.
pub fn log(x: &Tensor) -> Result<Tensor> {
    let y = map_float_or_complex!(PAR_MATH, x, "log", |v| v.v_ln(), |c| c.c_ln());
    unary_vjp("log", x, y, Saves::Input, |x, dy| div_conj(dy, x))
}

/// `log(1 + x)`, accurate for small `x`.
pub fn log1p(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "log1p", |v| v.v_ln_1p());
    unary_vjp("log1p", x, y, Saves::Input, |x, dy| {
        divide(dy, &plus(x, 1.0)?)
    })
}

/// `tan(x)`. Gradient `dy / conj(cos(x)^2)`.
pub fn tan(x: &Tensor) -> Result<Tensor> {
    let y = map_float_or_complex!(PAR_MATH, x, "tan", |v| v.tan(), |c| c.c_tan());
    unary_vjp("tan", x, y, Saves::Input, |x, dy| {
        div_conj(dy, &square(&cos(x)?)?)
    })
}

/// `sin(x)`. Gradient `dy * conj(cos(x))`.
pub fn sin(x: &Tensor) -> Result<Tensor> {
    let y = map_trig(x, "sin", true)?;
    unary_vjp("sin", x, y, Saves::Input, |x, dy| mul_conj(dy, &cos(x)?))
}

/// `cos(x)`. Gradient `-dy * conj(sin(x))`.
pub fn cos(x: &Tensor) -> Result<Tensor> {
    let y = map_trig(x, "cos", false)?;
    unary_vjp("cos", x, y, Saves::Input, |x, dy| {
        negative(&mul_conj(dy, &sin(x)?)?)
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
        op: &str,
        c: &Values<bool>,
        x: &Values<T>,
        y: &Values<T>,
        shape: &[usize],
    ) -> Result<Values<T>> {
        if c.shape() == shape && x.shape() == shape && y.shape() == shape {
            let (c, x, y) = (c.as_slice(), x.as_slice(), y.as_slice());
            let v = select_vec(op, c, x, y, PAR_CHEAP, |c, x, y| if c { x } else { y })?;
            return Ok(Values::from_vec(shape, v));
        }
        crate::memory::ensure::<T>(op, crate::memory::checked_size(op, shape)?)?;
        let (c, x, y) = (c.view(), x.view(), y.view());
        match (c.broadcast(shape), x.broadcast(shape), y.broadcast(shape)) {
            (Some(c), Some(x), Some(y)) => Ok(Zip::from(&c)
                .and(&x)
                .and(&y)
                .map_collect(|&c, &x, &y| if c { x } else { y })
                .into()),
            _ => unreachable!("shapes were validated by broadcast_shapes"),
        }
    }
    let out =
        Tensor::new(dispatch2!(all x.data(), y.data(), op, |p, q| select(op, c, p, q, &shape)?));
    if !out.is_differentiable() || !any_tape_active() {
        return Ok(out);
    }
    let inputs = [cond, x, y];
    record_shaped(
        op,
        &inputs,
        &out,
        &[cond],
        [x, y],
        false,
        |s, dy, batch, [sx, sy]| {
            let zero = || scalar_like(0.0, dy);
            let to_x = || sum_to_batched_shape(&where_(&s[0], dy, &zero())?, batch, sx);
            let to_y = || sum_to_batched_shape(&where_(&s[0], &zero(), dy)?, batch, sy);
            Ok(crate::grads![
                None,
                when(input_needed(1), to_x)?,
                when(input_needed(2), to_y)?,
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
        (Some(p), Some(q)) => Ok(Tensor::new(Data::from(zip_map(op, p, q, &shape, f)?))),
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

/// Converts to `dtype`, as TensorFlow's cast: a complex value cast to a real dtype keeps its
/// real part, a real value cast to a complex dtype gets imaginary part 0. Gradients pass
/// between floating and complex dtypes (cast back to the source's dtype: a real source keeps
/// the real part of a complex gradient); integer and bool ends have none.
pub fn cast(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    if x.dtype() == DType::String || dtype == DType::String {
        return Err(Error::dtype(
            "cast",
            format!(
                "cast from {} to {dtype} is not supported (use rt.strings.to_number or \
                 rt.strings.as_string)",
                x.dtype()
            ),
        ));
    }
    // The conversion's buffer is ndarray's: check it can be had first (MemoryError, no abort).
    crate::memory::ensure_shape("cast", x.shape(), dtype)?;
    fn convert<T: Element>(x: &Tensor) -> Data {
        fn each<S: Element, T: Element>(a: &Values<S>) -> Data {
            if S::DTYPE.is_complex() || T::DTYPE.is_complex() {
                T::into_data(a.mapv(|v| T::from_complex(v.to_complex())))
            } else {
                T::into_data(a.mapv(|v| T::from_f64(v.to_f64())))
            }
        }
        match x.data() {
            Data::F32(a) => each::<f32, T>(a),
            Data::F64(a) => each::<f64, T>(a),
            Data::I32(a) => each::<i32, T>(a),
            Data::I64(a) => each::<i64, T>(a),
            Data::Bool(a) => each::<bool, T>(a),
            Data::C64(a) => each::<Complex<f32>, T>(a),
            Data::C128(a) => each::<Complex<f64>, T>(a),
            Data::Str(a) => each::<crate::text::Str, T>(a),
        }
    }
    let data = match dtype {
        DType::F32 => convert::<f32>(x),
        DType::F64 => convert::<f64>(x),
        DType::I32 => convert::<i32>(x),
        DType::I64 => convert::<i64>(x),
        DType::Bool => convert::<bool>(x),
        DType::Complex64 => convert::<Complex<f32>>(x),
        DType::Complex128 => convert::<Complex<f64>>(x),
        DType::String => unreachable!("string casts were refused above"),
    };
    let y = Tensor::new(data);
    let from = x.dtype();
    if from.is_differentiable() {
        record_batched(
            "cast",
            &[x],
            &y,
            &[],
            ALIGNED,
            true,
            move |_, dy, _batch| Ok(crate::grads![Some(cast(dy, from)?)]),
        );
    }
    Ok(y)
}

/// The same values as a new tensor (`tf.identity`): its own id, so watching it and
/// differentiating with respect to it is separate from `x`; the gradient passes through.
pub fn identity(x: &Tensor) -> Tensor {
    let y = x.alias();
    record_batched("identity", &[x], &y, &[], ALIGNED, true, |_, dy, _| {
        Ok(crate::grads![Some(dy.clone())])
    });
    y
}

/// The same values with no gradient flowing back through them. Recorded (with a VJP that
/// passes nothing) so that `unconnected_gradients='raise'` can name it as the reason, as a node
/// whose outputs depend on no source (nothing downstream of it runs in a backward pass).
pub fn stop_gradient(x: &Tensor) -> Tensor {
    let y = x.alias();
    record_batched(
        "stop_gradient",
        &[x],
        &y,
        &[],
        AxisMap::STOP,
        true,
        |_, _, _| Ok(crate::grads![None]),
    );
    y
}
