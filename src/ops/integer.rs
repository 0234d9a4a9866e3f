//! Integer ops: TensorFlow's `tf.bitwise` (`bitwise_and`, `bitwise_or`, `bitwise_xor`, `invert`,
//! `left_shift`, `right_shift`) and the greatest common divisor and least common multiple
//! Keras 3 computes (`keras.ops.gcd`, `keras.ops.lcm`). int32 and int64 only, broadcasting as
//! every binary op; none is differentiable (integers carry no gradient), so nothing is recorded.
//! Also `saturate_cast`, the cast that clamps to the target's range first.
//!
//! Shifts follow TensorFlow's kernels: the shift count is clamped to `[0, bits - 1]` (a negative
//! count shifts by 0, a count of `bits` or more by `bits - 1`), the left shift works on the
//! unsigned bits (wrapping), the right shift is arithmetic (it copies the sign bit).
use super::{
    broadcast_shapes, cast, clip_by_value, complex, imag, kernel, real, scalar_like, zip_map,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::{Element, Tensor, Values};

/// Bit and divisor arithmetic of one integer dtype.
pub(crate) trait IntBits: Element + Ord {
    /// Bitwise and, or, xor and not.
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
    /// TensorFlow's `LeftShift` and `RightShift` (count clamped to `[0, BITS - 1]`).
    fn shl_clamped(self, count: Self) -> Self;
    fn shr_clamped(self, count: Self) -> Self;
    /// Keras's gcd: Euclid's loop with floor modulo on the wrapping absolute values.
    fn gcd(self, o: Self) -> Self;
    /// Keras's lcm: `|a| * (|b| // gcd)` (wrapping), 0 when the gcd is 0.
    fn lcm(self, o: Self) -> Self;
}

macro_rules! int_bits {
    ($t:ty, $u:ty) => {
        impl IntBits for $t {
            fn and(self, o: Self) -> Self {
                self & o
            }
            fn or(self, o: Self) -> Self {
                self | o
            }
            fn xor(self, o: Self) -> Self {
                self ^ o
            }
            fn not(self) -> Self {
                !self
            }
            fn shl_clamped(self, count: Self) -> Self {
                let c = count.clamp(0, (<$t>::BITS - 1) as $t) as u32;
                ((self as $u) << c) as $t
            }
            fn shr_clamped(self, count: Self) -> Self {
                self >> count.clamp(0, (<$t>::BITS - 1) as $t) as u32
            }
            fn gcd(self, o: Self) -> Self {
                use super::arith::Arith;
                let (mut a, mut b) = (self.wrapping_abs(), o.wrapping_abs());
                while b != 0 {
                    (a, b) = (b, Arith::floormod(a, b));
                }
                a
            }
            fn lcm(self, o: Self) -> Self {
                use super::arith::Arith;
                let (a, b) = (self.wrapping_abs(), o.wrapping_abs());
                let d = a.gcd(b);
                if d == 0 {
                    0
                } else {
                    a.wrapping_mul(Arith::floordiv(b, d))
                }
            }
        }
    };
}
int_bits!(i32, u32);
int_bits!(i64, u64);

/// `f` over the broadcast pairs of two integer tensors of one dtype (int32 or int64).
macro_rules! zip_int {
    ($op:expr, $a:expr, $b:expr, |$p:ident, $q:ident| $f:expr) => {{
        let shape = broadcast_shapes($op, $a.shape(), $b.shape())?;
        Ok(Tensor::new($crate::dispatch2!(@arms $a.data(), $b.data(), $op, "an integer",
            |x, z| zip_map($op, x, z, &shape, |$p, $q| $f)?; I32, I64)))
    }};
}

/// The bits set in both `x` and `y`, broadcasting (`tf.bitwise.bitwise_and`).
pub fn bitwise_and(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    zip_int!("bitwise_and", x, y, |p, q| IntBits::and(p, q))
}

/// The bits set in `x` or `y`, broadcasting (`tf.bitwise.bitwise_or`).
pub fn bitwise_or(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    zip_int!("bitwise_or", x, y, |p, q| IntBits::or(p, q))
}

/// The bits set in exactly one of `x` and `y`, broadcasting (`tf.bitwise.bitwise_xor`).
pub fn bitwise_xor(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    zip_int!("bitwise_xor", x, y, |p, q| IntBits::xor(p, q))
}

/// `x` shifted left by `y` bits, broadcasting (`tf.bitwise.left_shift`): the count is clamped
/// to `[0, bits - 1]` as TensorFlow's kernel clamps it, and the bits shifted out are lost.
pub fn left_shift(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    zip_int!("left_shift", x, y, |p, q| p.shl_clamped(q))
}

/// `x` shifted right by `y` bits, copying the sign bit, broadcasting (`tf.bitwise.right_shift`):
/// the count is clamped to `[0, bits - 1]` as TensorFlow's kernel clamps it.
pub fn right_shift(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    zip_int!("right_shift", x, y, |p, q| p.shr_clamped(q))
}

/// The greatest common divisor of `|x|` and `|y|`, broadcasting (`keras.ops.gcd`); 0 for two
/// zeros. The absolute values wrap as Keras's do (`|int32 min|` stays negative).
pub fn gcd(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    zip_int!("gcd", x, y, |p, q| IntBits::gcd(p, q))
}

/// The least common multiple of `|x|` and `|y|`, broadcasting (`keras.ops.lcm`); 0 when either
/// is 0. Overflow wraps, as in Keras.
pub fn lcm(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    zip_int!("lcm", x, y, |p, q| IntBits::lcm(p, q))
}

/// Every bit of `x` flipped (`tf.bitwise.invert`; `-x - 1` for signed integers).
pub fn invert(x: &Tensor) -> Result<Tensor> {
    fn run<T: IntBits>(a: &Values<T>) -> Result<Values<T>> {
        kernel::map_array("invert", a, kernel::PAR_CHEAP, IntBits::not)
    }
    Ok(Tensor::new(
        crate::dispatch!(@class values x.data(), "invert", "an integer",
        |a| run(a)?; I32, I64),
    ))
}

/// The range of a real dtype, as exact integers (floats: their largest finite magnitude, far
/// beyond every integer dtype's range).
fn range_of(dtype: DType) -> (i128, i128) {
    match dtype {
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DType::I64 => (i64::MIN as i128, i64::MAX as i128),
        _ => (i128::MIN, i128::MAX),
    }
}

/// The clamp bounds (in `from`, a real dtype) that keep a cast to the real dtype `to` in range:
/// `None` when `from`'s range fits. A float bound that rounds outside `to`'s range is moved one
/// step toward 0 (`float32` to `int32` clamps at 2147483520, not 2^31).
fn saturation_bounds(from: DType, to: DType) -> Option<(f64, f64)> {
    match (from.is_float(), to.is_float()) {
        (true, true) => {
            let max = if from == DType::F32 || to == DType::F32 {
                f32::MAX as f64
            } else {
                f64::MAX
            };
            Some((-max, max))
        }
        (true, false) => {
            let (lo, hi) = range_of(to); // powers of two and one less: only `hi` can round up
            let below = |v: f64| {
                if from == DType::F32 {
                    let r = v as f32;
                    (if r as i128 > hi {
                        libm::nextafterf(r, 0.0)
                    } else {
                        r
                    }) as f64
                } else if v as i128 > hi {
                    libm::nextafter(v, 0.0)
                } else {
                    v
                }
            };
            Some((lo as f64, below(hi as f64)))
        }
        (false, true) => None,
        (false, false) => {
            let ((a, b), (c, d)) = (range_of(from), range_of(to));
            (c > a || d < b).then(|| (a.max(c) as f64, b.min(d) as f64))
        }
    }
}

/// `x` cast to `dtype` after clamping it to the range `dtype` can hold
/// (`tf.dtypes.saturate_cast`): a float to an integer clamps to the nearest float inside the
/// integer's range; a float64 to float32 clamps to float32's finite range (infinities too, as
/// TensorFlow's unconditional clamp does); a complex value to a smaller complex dtype clamps
/// its real and imaginary parts; a complex value to a real dtype keeps the real part. NaN stays
/// NaN between floats and becomes 0 as an integer (as `cast` converts it). Gradient: the
/// clamp's (`dy` where the value was inside the range) through the cast's.
///
/// TensorFlow's Python wrapper overflows computing int64 bounds (it turns every int64 into the
/// lowest int64) and leaves floats at 2^63 to the cast's undefined behaviour; rustape clamps
/// int64 to the target's range and floats to the largest float below 2^63 instead.
pub fn saturate_cast(x: &Tensor, dtype: DType) -> Result<Tensor> {
    let op = "saturate_cast";
    if x.dtype() == DType::Bool || dtype == DType::Bool {
        return Err(Error::dtype(
            op,
            format!(
                "bool has no numeric range to saturate to (casting {} to {dtype})",
                x.dtype()
            ),
        ));
    }
    let clamp = |t: &Tensor, to: DType| -> Result<Tensor> {
        match saturation_bounds(t.dtype(), to) {
            Some((lo, hi)) => clip_by_value(t, &scalar_like(lo, t), &scalar_like(hi, t)),
            None => Ok(t.clone()),
        }
    };
    let mut x = x.clone();
    if x.dtype().is_complex() {
        if dtype.is_complex() {
            if dtype.real_dtype() != x.dtype().real_dtype() {
                let part = |t: Tensor| clamp(&t, dtype.real_dtype());
                x = complex(&part(real(&x)?)?, &part(imag(&x)?)?)?;
            }
            return cast(&x, dtype);
        }
        x = real(&x)?;
    }
    cast(&clamp(&x, dtype.real_dtype())?, dtype)
}
