//! Binary arithmetic with NumPy broadcasting, and its gradients.
use super::{
    cast, greater, greater_equal, less_equal, log, logical_not, max_nan, min_nan, negative, plus,
    record_shaped, when, where_, zip, Arith,
};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::arith::{Field, Ring};
use crate::ops::cmath::CMath;
use crate::ops::complex::{div_conj, mul_conj, pow_grads_complex};
use crate::ops::kernel::{worth_splitting, zip_assign, PAR_CHEAP};
use crate::ops::vmath::widest;
use crate::ops::{
    broadcast_shapes, into_batched_shape, into_per_example_shape, same_dtype, scalar_like, zip_map,
};
use crate::tape::{any_tape_active, any_tape_recording, input_needed, per_example_input};
use crate::tensor::{Data, Tensor};
use crate::values::{Values, INLINE};

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
// Recording

/// Bits of a gradient's reads in [`record_binary`]: the first operand, the second, the output.
pub(super) const A: u8 = 1;
pub(super) const B: u8 = 2;
const Y: u8 = 4;
const NOTHING: u8 = 0;

/// `[da, db]` before unbroadcasting; `None` where not asked for.
pub(super) type BranchGrads = Result<[Option<Tensor>; 2]>;

/// Records the binary op `y = op(a, b)`. `reads[k]` names what the gradient of input `k` reads
/// (bits [`A`], [`B`], [`Y`]). `rule(s, dy, need)` computes `[da, db]` from the saved tensors
/// (`s[0]` is `a`, `s[1]` is `b`, `s[2]` is `y`) and `dy`, only those with `need[k]`, in rustape
/// ops (so higher orders work) that broadcast `dy`'s leading batch axes; each gradient is then
/// summed back to its operand's shape.
///
/// A shared scalar (a Python number, see `Tensor::is_shared_scalar`) is never watched, so its
/// gradient is never needed: what only its gradient reads is not saved (`y * 0.5` keeps `0.5`,
/// not `y`: the slot of `y` holds the shared operand, which the rule never reads there), and its
/// shape is not kept. Only a broadcasting operand makes the VJP capture shapes (see
/// [`record_shaped`]); otherwise it captures nothing (`rule` must not either) and recording
/// allocates nothing for it.
pub(super) fn record_binary<R>(
    op: &'static str,
    a: &Tensor,
    b: &Tensor,
    y: &Tensor,
    reads: [u8; 2],
    rule: R,
) where
    R: Fn(&[Tensor], &Tensor, [bool; 2]) -> BranchGrads + Send + Sync + 'static,
{
    if !y.is_differentiable() || !any_tape_active() {
        return; // record_batched would drop it: skip the bookkeeping below
    }
    let grad = [!a.is_shared_scalar(), !b.is_shared_scalar()];
    let keep = (0..2)
        .filter(|&k| grad[k])
        .fold(NOTHING, |m, k| m | reads[k]);
    let filler = if grad[0] { b } else { a };
    let mut saved = [filler; 3];
    for (j, t) in [a, b, y].into_iter().enumerate() {
        if keep & (1 << j) != 0 {
            saved[j] = t;
        }
    }
    let saved = &saved[..(u8::BITS - keep.leading_zeros()) as usize];
    record_shaped(
        op,
        &[a, b],
        y,
        saved,
        [a, b],
        true,
        move |s, dy, batch, shapes| reduce(rule(s, dy, needed())?, batch, shapes),
    );
}

/// Which of the two inputs the sweep will use.
fn needed() -> [bool; 2] {
    [input_needed(0), input_needed(1)]
}

/// Each gradient summed over the axes its operand was broadcast along, keeping `batch` leading
/// axes of a vectorised Jacobian.
fn reduce(
    grads: [Option<Tensor>; 2],
    batch: usize,
    shapes: [&[usize]; 2],
) -> Result<crate::tape::Grads> {
    let [da, db] = grads;
    // In a per-example sweep an operand broadcast over the rows gets one gradient per row.
    let sum = |g: Option<Tensor>, k: usize| {
        g.map(|g| match per_example_input(k) {
            true => into_per_example_shape(g, shapes[k]),
            false => into_batched_shape(g, batch, shapes[k]),
        })
        .transpose()
    };
    Ok(crate::grads![sum(da, 0)?, sum(db, 1)?])
}

/// `dy` where `mask` holds, else zero.
fn masked(mask: &Tensor, dy: &Tensor) -> Result<Tensor> {
    where_(mask, dy, &scalar_like(0.0, dy))
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

/// `a + b`, broadcasting.
pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num_or_complex "add", a, b, |p, q| Ring::add(p, q));
    record_binary("add", a, b, &y, [NOTHING, NOTHING], |_, dy, need| {
        Ok([need[0].then(|| dy.clone()), need[1].then(|| dy.clone())])
    });
    Ok(y)
}

/// The sum of two gradients of one tensor, for the backward sweep: written into the buffer of
/// whichever operand nothing else holds, as a new tensor, when no tape would record the sum;
/// else [`add`]. Same numbers either way (`p + q` is `q + p` in floating point).
pub(crate) fn accumulate(mut total: Tensor, mut grad: Tensor) -> Result<Tensor> {
    // Inline values (scalars) have no buffer to reuse: skip the checks.
    if total.size() > INLINE && total.shape() == grad.shape() && !any_tape_recording() {
        if let Some(sum) = add_into(&mut total, &grad).or_else(|| add_into(&mut grad, &total)) {
            return Ok(sum);
        }
    }
    add(&total, &grad)
}

/// `dst + src` in `dst`'s buffer when only `dst` holds it (same floating or complex dtype),
/// under a fresh id.
fn add_into(dst: &mut Tensor, src: &Tensor) -> Option<Tensor> {
    fn add_slices<T: Summand + Send + Sync>(dst: &mut Values<T>, src: &Values<T>) -> Option<()> {
        let (dst, src) = (dst.unshared_slice_mut()?, src.as_slice());
        match worth_splitting(dst.len(), PAR_CHEAP) {
            true => zip_assign(dst, src, PAR_CHEAP, |p, q| p + q),
            false => add_assign(dst, src),
        }
        Some(())
    }
    match (dst.data_mut()?, src.data()) {
        (Data::F32(d), Data::F32(s)) => add_slices(d, s)?,
        (Data::F64(d), Data::F64(s)) => add_slices(d, s)?,
        (Data::C64(d), Data::C64(s)) => add_slices(d, s)?,
        (Data::C128(d), Data::C128(s)) => add_slices(d, s)?,
        _ => return None,
    }
    Some(Tensor::new(dst.data().clone()))
}

/// An element the sweep sums in place.
trait Summand: Copy + std::ops::Add<Output = Self> {}
impl<T: Copy + std::ops::Add<Output = T>> Summand for T {}

// `dst += src` compiled for the widest vectors the CPU has: the sums of gradients are a pass
// over the largest tensors of a sweep.
widest!(fn add_assign<T: Summand>(dst: &mut [T], src: &[T]) => add_assign_body, dst.len());

#[inline(always)]
fn add_assign_body<T: Summand>(dst: &mut [T], src: &[T]) {
    let src = &src[..dst.len()];
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = *d + s;
    }
}

/// `a - b`, broadcasting.
pub fn subtract(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num_or_complex "subtract", a, b, |p, q| Ring::sub(p, q));
    record_binary("subtract", a, b, &y, [NOTHING, NOTHING], |_, dy, need| {
        Ok([need[0].then(|| dy.clone()), when(need[1], || negative(dy))?])
    });
    Ok(y)
}

/// `a * b`, broadcasting. Gradients `dy * conj(b)` and `dy * conj(a)` (TensorFlow's complex
/// convention; the plain products for real dtypes).
pub fn multiply(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num_or_complex "multiply", a, b, |p, q| Ring::mul(p, q));
    record_binary("multiply", a, b, &y, [B, A], |s, dy, need| {
        Ok([
            when(need[0], || mul_conj(dy, &s[1]))?,
            when(need[1], || mul_conj(dy, &s[0]))?,
        ])
    });
    Ok(y)
}

/// `a / b`, broadcasting: true division, as TensorFlow's `truediv`. Two integer operands
/// (int32 or int64, the same) are converted to float64 first, so the result is float64; use
/// [`floordiv`] for integer division. Division by zero gives inf or NaN. Complex division
/// is TensorFlow's (scaled by the divisor's larger part: no overflow; C99's values at zero
/// and infinity).
pub fn divide(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dtype().is_int() && b.dtype().is_int() {
        broadcast_shapes("divide", a.shape(), b.shape())?;
        same_dtype("divide", a, b)?;
        return divide(&cast(a, DType::F64)?, &cast(b, DType::F64)?);
    }
    let y = zip!(float_or_complex "divide", a, b, |p, q| Field::div(p, q));
    record_binary("divide", a, b, &y, [B, A | B], |s, dy, need| {
        if !need[1] {
            return Ok([when(need[0], || div_conj(dy, &s[1]))?, None]);
        }
        let da = div_conj(dy, &s[1])?;
        // d(a/b)/db = -a / b^2, written as -(dy/b) * (a/b) to stay in range (conjugated for
        // complex operands).
        let db = negative(&mul_conj(&da, &divide(&s[0], &s[1])?)?)?;
        Ok([need[0].then_some(da), Some(db)])
    });
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
    record_binary("floormod", a, b, &y, [NOTHING, A | B], |s, dy, need| {
        let db = || negative(&multiply(dy, &floordiv(&s[0], &s[1])?)?);
        Ok([need[0].then(|| dy.clone()), when(need[1], db)?])
    });
    Ok(y)
}

/// `a ** b`, broadcasting. A negative base to a non-integer power is NaN; for integers a
/// negative exponent is an error (as in TensorFlow) and overflow wraps.
/// Gradient (TensorFlow's): `da = dy * b * a^(b-1)`, `db = dy * a^b * log(a)` where `a > 0`,
/// else 0. Complex: `a^b = exp(b log a)` (principal branch), gradients the conjugates of those
/// products, `log(a)` taken where `a != 0`, computed from `conj(a)` and `conj(b)` as TensorFlow.
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
    let y = if a.dtype().is_complex() {
        zip!(complex op, a, b, |p, q| p.c_pow(q))
    } else {
        zip!(num op, a, b, |p, q| Arith::pow(p, q))
    };
    record_binary(op, a, b, &y, [A | B, A | Y], |s, dy, need| {
        if s[0].dtype().is_complex() {
            return pow_grads_complex(s, dy, need);
        }
        let a = &s[0];
        let da = || multiply(&multiply(dy, &s[1])?, &pow(a, &plus(&s[1], -1.0)?)?);
        let db = || {
            let positive = greater(a, &scalar_like(0.0, a))?;
            let safe_a = where_(&positive, a, &scalar_like(1.0, a))?;
            let log_a = masked(&positive, &log(&safe_a)?)?;
            multiply(&multiply(dy, &s[2])?, &log_a)
        };
        Ok([when(need[0], da)?, when(need[1], db)?])
    });
    Ok(y)
}

/// The elementwise larger of `a` and `b`, broadcasting; NaN if either is NaN. The gradient goes
/// to `a` where `a >= b` (ties included, TensorFlow's rule), to `b` elsewhere.
pub fn maximum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num "maximum", a, b, |p, q| max_nan(p, q));
    record_binary("maximum", a, b, &y, [A | B, A | B], |s, dy, need| {
        extremum_grads(s, dy, need, greater_equal)
    });
    Ok(y)
}

/// The elementwise smaller of `a` and `b`, broadcasting; NaN if either is NaN. The gradient goes
/// to `a` where `a <= b` (ties included, TensorFlow's rule), to `b` elsewhere.
pub fn minimum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = zip!(num "minimum", a, b, |p, q| min_nan(p, q));
    record_binary("minimum", a, b, &y, [A | B, A | B], |s, dy, need| {
        extremum_grads(s, dy, need, less_equal)
    });
    Ok(y)
}

/// The gradients of `maximum`/`minimum`: `dy` to `a` where `a_wins(a, b)`, to `b` elsewhere.
fn extremum_grads(
    s: &[Tensor],
    dy: &Tensor,
    need: [bool; 2],
    a_wins: fn(&Tensor, &Tensor) -> Result<Tensor>,
) -> BranchGrads {
    let mask = a_wins(&s[0], &s[1])?;
    Ok([
        when(need[0], || masked(&mask, dy))?,
        when(need[1], || masked(&logical_not(&mask)?, dy))?,
    ])
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
