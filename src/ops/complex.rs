//! Complex numbers: `complex`, `real`, `imag`, `conj`, `angle` and the modulus (`abs` of a
//! complex tensor), and the helpers every complex VJP uses.
//!
//! The gradient convention is TensorFlow's: for a real-valued `R = sum(Re(conj(c) * y))` (`c`
//! the output gradient, ones by default), the gradient of `z = x + iy` is `dR/dx + i dR/dy`.
//! So a holomorphic op's VJP multiplies the cotangent by the conjugate of its derivative
//! ([`mul_conj`], [`div_conj`]: `z^2` at `1 + 2i` has gradient `2 - 4i`), a real loss `L` of
//! `z` gets `2 dL/dz̄` (`|z|^2` at `1 + 2i` gives `2 + 4i`), and a real tensor that reached
//! complex values through `cast` or `complex` gets the real part of its cotangent back.
use num_complex::Complex;

use super::cmath::CMath;
use super::elementwise::{record_shaped, unary_vjp, Saves};
use super::kernel::{map_array, PAR_CHEAP, PAR_MATH};
use super::{
    broadcast_shapes, cast, divide, equal, log, multiply, negative, not_equal, pow, scalar_like,
    subtract, sum_to_batched_shape, transpose, where_, zip_map,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tape::{input_needed, record_batched};
use crate::tensor::{unsupported, values_ref, Data, Tensor};

/// `dy * conj(t)`: how a holomorphic op's VJP applies its derivative `t` (TensorFlow's
/// convention); `dy * t` for real dtypes.
pub(crate) fn mul_conj(dy: &Tensor, t: &Tensor) -> Result<Tensor> {
    if t.dtype().is_complex() {
        multiply(dy, &conj(t)?)
    } else {
        multiply(dy, t)
    }
}

/// `dy / conj(t)` (see [`mul_conj`]).
pub(crate) fn div_conj(dy: &Tensor, t: &Tensor) -> Result<Tensor> {
    if t.dtype().is_complex() {
        divide(dy, &conj(t)?)
    } else {
        divide(dy, t)
    }
}

/// The complex dtype whose parts are `real` (float32 or float64), for `op`'s errors.
fn complex_of(op: &str, real: DType) -> Result<DType> {
    match real {
        DType::F32 | DType::F64 => Ok(real.complex_dtype().unwrap_or(DType::Complex128)),
        other => Err(Error::dtype(
            op,
            format!("the real and imaginary parts must be float32 or float64, got {other}"),
        )),
    }
}

/// `re + i im`, broadcasting (TensorFlow's `complex`): float32 parts give complex64, float64
/// parts complex128; the parts must share a dtype. Gradient: the real part of the cotangent
/// to `re`, its imaginary part to `im`.
pub fn complex(re: &Tensor, im: &Tensor) -> Result<Tensor> {
    let op = "complex";
    if re.dtype() != im.dtype() {
        return Err(Error::dtype(
            op,
            format!(
                "the real and imaginary parts must have the same dtype, got {} and {}",
                re.dtype(),
                im.dtype()
            ),
        ));
    }
    complex_of(op, re.dtype())?;
    let shape = broadcast_shapes(op, re.shape(), im.shape())?;
    let y = Tensor::new(match (re.data(), im.data()) {
        (Data::F32(a), Data::F32(b)) => zip_map(op, a, b, &shape, Complex::new)?.into(),
        (Data::F64(a), Data::F64(b)) => zip_map(op, a, b, &shape, Complex::new)?.into(),
        _ => unreachable!("checked to be float32 or float64 alike"),
    });
    record_shaped(
        op,
        &[re, im],
        &y,
        &[],
        [re, im],
        false,
        |_, dy, batch, [sr, si]| {
            let to_re = || sum_to_batched_shape(&real(dy)?, batch, sr);
            let to_im = || sum_to_batched_shape(&imag(dy)?, batch, si);
            Ok(crate::grads![
                input_needed(0).then(to_re).transpose()?,
                input_needed(1).then(to_im).transpose()?,
            ])
        },
    );
    Ok(y)
}

/// The real part of a complex tensor (float32 for complex64, float64 for complex128); a real
/// tensor is returned as is (TensorFlow's `real`). Gradient: the cotangent as a complex number.
pub fn real(x: &Tensor) -> Result<Tensor> {
    let y = match x.data() {
        Data::C64(a) => Tensor::new(map_array("real", a, PAR_CHEAP, |v| v.re)?.into()),
        Data::C128(a) => Tensor::new(map_array("real", values_ref(a), PAR_CHEAP, |v| v.re)?.into()),
        _ if x.dtype().is_float() || x.dtype().is_int() => return Ok(x.clone()),
        other => return Err(unsupported("real", other.dtype(), "a numeric")),
    };
    let dtype = x.dtype();
    record_batched("real", &[x], &y, &[], 0, true, move |_, dy, _batch| {
        Ok(crate::grads![Some(cast(dy, dtype)?)])
    });
    Ok(y)
}

/// The imaginary part of a complex tensor; zeros for a real tensor (TensorFlow's `imag`).
/// Gradient: `i` times the cotangent.
pub fn imag(x: &Tensor) -> Result<Tensor> {
    let y = match x.data() {
        Data::C64(a) => Tensor::new(map_array("imag", a, PAR_CHEAP, |v| v.im)?.into()),
        Data::C128(a) => Tensor::new(map_array("imag", values_ref(a), PAR_CHEAP, |v| v.im)?.into()),
        _ if x.dtype().is_float() || x.dtype().is_int() => return Ok(x.zeros_like()),
        other => return Err(unsupported("imag", other.dtype(), "a numeric")),
    };
    record_batched("imag", &[x], &y, &[], 0, true, |_, dy, _batch| {
        Ok(crate::grads![Some(complex(&scalar_like(0.0, dy), dy)?)])
    });
    Ok(y)
}

/// The complex conjugate; a real tensor is returned as is (TensorFlow's `conj`). Gradient:
/// the conjugate of the cotangent.
pub fn conj(x: &Tensor) -> Result<Tensor> {
    let y = match x.data() {
        Data::C64(a) => Tensor::new(map_array("conj", a, PAR_CHEAP, |v| v.conj())?.into()),
        Data::C128(a) => {
            Tensor::new(map_array("conj", values_ref(a), PAR_CHEAP, |v| v.conj())?.into())
        }
        _ if x.dtype().is_float() || x.dtype().is_int() => return Ok(x.clone()),
        other => return Err(unsupported("conj", other.dtype(), "a numeric")),
    };
    record_batched("conj", &[x], &y, &[], 0, true, |_, dy, _batch| {
        Ok(crate::grads![Some(conj(dy)?)])
    });
    Ok(y)
}

/// The argument of each complex element, in `(-pi, pi]` (`atan2(imag, real)`); for a real
/// tensor, `pi` where it is negative and 0 elsewhere, with no gradient (TensorFlow's `angle`).
/// Gradient (TensorFlow's): `-dy / (imag + i real)`.
pub fn angle(x: &Tensor) -> Result<Tensor> {
    let op = "angle";
    let y = match x.data() {
        Data::C64(a) => Tensor::new(map_array(op, a, PAR_MATH, |v| v.c_arg())?.into()),
        Data::C128(a) => Tensor::new(map_array(op, values_ref(a), PAR_MATH, |v| v.c_arg())?.into()),
        Data::F32(a) => {
            let pi = std::f32::consts::PI;
            let v = map_array(op, a, PAR_CHEAP, |v| if v < 0.0 { pi } else { 0.0 })?;
            return Ok(Tensor::new(v.into()));
        }
        Data::F64(a) => {
            let pi = std::f64::consts::PI;
            let v = map_array(op, a, PAR_CHEAP, |v| if v < 0.0 { pi } else { 0.0 })?;
            return Ok(Tensor::new(v.into()));
        }
        other => return Err(unsupported(op, other.dtype(), "a floating or complex")),
    };
    unary_vjp(op, x, y, Saves::Input, |x, dy| {
        let flipped = complex(&imag(x)?, &real(x)?)?;
        negative(&divide(&cast(dy, x.dtype())?, &flipped)?)
    })
}

/// The conjugate transpose of the last two axes (TensorFlow's `linalg.adjoint`): the
/// transpose for real tensors. Gradient: the adjoint of the cotangent.
pub fn adjoint(x: &Tensor) -> Result<Tensor> {
    let n = x.ndim();
    if n < 2 {
        return Err(Error::shape(
            "adjoint",
            format!(
                "needs a tensor of rank >= 2, got shape {}",
                crate::error::fmt_shape(x.shape())
            ),
        ));
    }
    let perm: Vec<usize> = (0..n - 2).chain([n - 1, n - 2]).collect();
    conj(&transpose(x, Some(&perm))?)
}

/// `|x|` of a complex tensor, as float32 (complex64) or float64 (complex128), without
/// overflow. Gradient (TensorFlow's): `dy * x / |x|`, 0 where `x` is 0.
pub(crate) fn complex_abs(x: &Tensor) -> Result<Tensor> {
    let y = match x.data() {
        Data::C64(a) => Tensor::new(map_array("abs", a, PAR_MATH, |v| v.c_abs())?.into()),
        Data::C128(a) => {
            Tensor::new(map_array("abs", values_ref(a), PAR_MATH, |v| v.c_abs())?.into())
        }
        other => return Err(unsupported("abs", other.dtype(), "a complex")),
    };
    record_batched("abs", &[x], &y, &[x, &y], 0, true, |s, dy, _batch| {
        let (x, y) = (&s[0], &s[1]);
        // (dy x) / |x| in TensorFlow's order (so |z|^2 at 1 + 2i gives exactly 2 + 4i), and
        // 0 / 1 where x is 0 (its modulus replaced by 1).
        let zero = equal(y, &scalar_like(0.0, y))?;
        let safe = where_(&zero, &scalar_like(1.0, y), y)?;
        let scaled = multiply(&cast(dy, x.dtype())?, x)?;
        Ok(crate::grads![Some(divide(
            &scaled,
            &cast(&safe, x.dtype())?
        )?)])
    });
    Ok(y)
}

/// `[da, db]` of the complex `y = a^b` (TensorFlow's `_PowGrad` on `conj(a)`, `conj(b)`,
/// `conj(y)`): `dy * conj(b) * conj(a)^(conj(b) - 1)` and `dy * conj(y) * log(conj(a))`, the
/// logarithm taken as 0 where `a` is 0. `s` holds `a`, `b` and (when `db` is needed) `y`.
pub(crate) fn pow_grads_complex(
    s: &[Tensor],
    dy: &Tensor,
    need: [bool; 2],
) -> Result<[Option<Tensor>; 2]> {
    let a = conj(&s[0])?;
    let da = if need[0] {
        let b = conj(&s[1])?;
        let b_minus_one = subtract(&b, &scalar_like(1.0, &b))?;
        Some(multiply(&multiply(dy, &b)?, &pow(&a, &b_minus_one)?)?)
    } else {
        None
    };
    let db = if need[1] {
        let nonzero = not_equal(&a, &scalar_like(0.0, &a))?;
        let safe_a = where_(&nonzero, &a, &scalar_like(1.0, &a))?;
        let log_a = where_(&nonzero, &log(&safe_a)?, &scalar_like(0.0, &a))?;
        Some(multiply(&multiply(dy, &conj(&s[2])?)?, &log_a)?)
    } else {
        None
    };
    Ok([da, db])
}
