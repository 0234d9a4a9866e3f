//! Scalar complex math for the complex64 and complex128 kernels, with the values TensorFlow's
//! CPU kernels give (C99 Annex G semantics at the edges) and without the overflow of the
//! textbook formulas (`num_complex`'s `tanh(400 + 1i)` is NaN, its `1e300 / 1e300` is NaN).
//!
//! Every function is computed in f64; complex64 values are widened first and rounded after (an
//! f32's square never overflows an f64, so complex64 division needs no scaling), which costs
//! little next to the transcendental functions themselves.
//!
//! - division: scaled by the divisor's larger part (TensorFlow's vectorised kernel, bit for
//!   bit), with C99 Annex G's infinities and zeros where that gives NaN: `x / 0` is `inf` (or
//!   `inf + NaN i`), as in TensorFlow;
//! - `sqrt`: `w = sqrt((|x| + |z|) / 2)`, the stable branch chosen by the sign of `x` (Eigen's
//!   formula, so `sqrt(-4 - 0i)` is `2i` as in TensorFlow);
//! - `tanh`: Kahan's formula `(beta rho s + i t) / (1 + beta s^2)` with `t = tan y`,
//!   `beta = 1 + t^2`, `s = sinh x`, `rho = sqrt(1 + s^2)`, and `±1 + 4 sin y cos y e^(-2|x|) i`
//!   once `|x| >= 22` (where `tanh x` rounds to ±1); `tan z = -i tanh(i z)`;
//! - `ln`: `ln|z|` through `log1p` near the unit circle (no cancellation);
//! - `pow`: `exp(b ln a)`, as C99's `cpow` and TensorFlow (so `0^0` is NaN there too).
use num_complex::Complex;

type C = Complex<f64>;

/// The complex element types, with their math.
pub(crate) trait CMath: Copy + Send + Sync + 'static {
    /// The type of a part.
    type Real: Copy + Send + Sync + Default + 'static;
    fn widen(self) -> C;
    fn narrow(z: C) -> Self;
    fn narrow_real(v: f64) -> Self::Real;

    fn c_div(self, o: Self) -> Self {
        Self::narrow(div(self.widen(), o.widen()))
    }
    fn c_sqrt(self) -> Self {
        Self::narrow(sqrt(self.widen()))
    }
    fn c_exp(self) -> Self {
        Self::narrow(exp(self.widen()))
    }
    fn c_ln(self) -> Self {
        Self::narrow(ln(self.widen()))
    }
    fn c_sin(self) -> Self {
        Self::narrow(sin(self.widen()))
    }
    fn c_cos(self) -> Self {
        Self::narrow(cos(self.widen()))
    }
    fn c_tan(self) -> Self {
        Self::narrow(tan(self.widen()))
    }
    fn c_sinh(self) -> Self {
        Self::narrow(sinh(self.widen()))
    }
    fn c_cosh(self) -> Self {
        Self::narrow(cosh(self.widen()))
    }
    fn c_tanh(self) -> Self {
        Self::narrow(tanh(self.widen()))
    }
    fn c_pow(self, e: Self) -> Self {
        Self::narrow(pow(self.widen(), e.widen()))
    }
    /// `|z|`, without overflow (`hypot`).
    fn c_abs(self) -> Self::Real {
        let z = self.widen();
        Self::narrow_real(z.re.hypot(z.im))
    }
    /// The argument of `z` in `(-pi, pi]` (`atan2(im, re)`).
    fn c_arg(self) -> Self::Real {
        let z = self.widen();
        Self::narrow_real(z.im.atan2(z.re))
    }
}

impl CMath for Complex<f32> {
    type Real = f32;
    #[inline(always)]
    fn widen(self) -> C {
        C::new(self.re as f64, self.im as f64)
    }
    #[inline(always)]
    fn narrow(z: C) -> Self {
        Complex::new(z.re as f32, z.im as f32)
    }
    #[inline(always)]
    fn narrow_real(v: f64) -> f32 {
        v as f32
    }
}

impl CMath for Complex<f64> {
    type Real = f64;
    #[inline(always)]
    fn widen(self) -> C {
        self
    }
    #[inline(always)]
    fn narrow(z: C) -> Self {
        z
    }
    #[inline(always)]
    fn narrow_real(v: f64) -> f64 {
        v
    }
}

/// `z / w`: the divisor scaled by its larger part `m` (no overflow or underflow in `|w|^2`),
/// `z * conj(w / m) / |w / m|^2 / m`, which is what TensorFlow's vectorised CPU kernel (Eigen)
/// computes, bit for bit. Where that gives `NaN + NaN i` (a zero or infinite operand) the
/// values of C99 Annex G are recovered, as TensorFlow's scalar path gives them: `x / 0` is
/// infinite, `x / inf` is zero.
pub(crate) fn div(z: C, w: C) -> C {
    let (a, b) = (z.re, z.im);
    let (c, d) = (w.re, w.im);
    let m = c.abs().max(d.abs());
    let (cs, ds) = (c / m, d / m);
    let denom = cs * cs + ds * ds;
    let mut x = (a * cs + b * ds) / denom / m;
    let mut y = (b * cs - a * ds) / denom / m;
    if x.is_nan() && y.is_nan() {
        let unit = |v: f64| (if v.is_infinite() { 1.0f64 } else { 0.0 }).copysign(v);
        if c == 0.0 && d == 0.0 && (!a.is_nan() || !b.is_nan()) {
            let inf = f64::INFINITY.copysign(c);
            x = inf * a;
            y = inf * b;
        } else if (a.is_infinite() || b.is_infinite()) && c.is_finite() && d.is_finite() {
            let (a, b) = (unit(a), unit(b));
            x = f64::INFINITY * (a * c + b * d);
            y = f64::INFINITY * (b * c - a * d);
        } else if m.is_infinite() && a.is_finite() && b.is_finite() {
            let (c, d) = (unit(c), unit(d));
            x = 0.0 * (a * c + b * d);
            y = 0.0 * (b * c - a * d);
        }
    }
    C::new(x, y)
}

/// The principal square root.
pub(crate) fn sqrt(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if y.is_infinite() {
        return C::new(f64::INFINITY, y);
    }
    let w = (0.5 * (x.abs() + x.hypot(y))).sqrt();
    let signed_w = if y < 0.0 { -w } else { w };
    if x == 0.0 {
        C::new(w, signed_w)
    } else if x > 0.0 {
        C::new(w, y / (2.0 * w))
    } else {
        C::new(y.abs() / (2.0 * w), signed_w)
    }
}

/// `e^z`, with C99's values at infinities (`e^(800 + 0i)` is `inf + 0i`, not `inf + NaN i`).
pub(crate) fn exp(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if y == 0.0 {
        return C::new(x.exp(), y);
    }
    if x.is_infinite() {
        if x < 0.0 && !y.is_finite() {
            return C::new(0.0, 0.0);
        }
        if x > 0.0 && !y.is_finite() {
            return C::new(x, f64::NAN);
        }
    }
    let e = x.exp();
    let (s, c) = y.sin_cos();
    C::new(e * c, e * s)
}

/// The principal logarithm: `ln|z| + i arg z`.
pub(crate) fn ln(z: C) -> C {
    let (x, y) = (z.re, z.im);
    let r = x.hypot(y);
    let re = if (0.7..1.4).contains(&r) {
        // ln|z| = log1p(|z|^2 - 1) / 2, with |z|^2 - 1 = (x - 1)(x + 1) + y^2: no cancellation.
        0.5 * ((x - 1.0) * (x + 1.0) + y * y).ln_1p()
    } else {
        r.ln()
    };
    C::new(re, y.atan2(x))
}

/// `a * b` where `a` may be an exact zero that must stay zero against an infinite `b` (the
/// zero parts of `sin`, `sinh` on an axis).
fn times(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        a * b.signum()
    } else {
        a * b
    }
}

pub(crate) fn sin(z: C) -> C {
    let (s, c) = z.re.sin_cos();
    C::new(times(s, z.im.cosh()), times(c, z.im.sinh()))
}

pub(crate) fn cos(z: C) -> C {
    let (s, c) = z.re.sin_cos();
    C::new(times(c, z.im.cosh()), -times(s, z.im.sinh()))
}

pub(crate) fn sinh(z: C) -> C {
    let (s, c) = z.im.sin_cos();
    C::new(times(z.re.sinh(), c), times(s, z.re.cosh()))
}

pub(crate) fn cosh(z: C) -> C {
    let (s, c) = z.im.sin_cos();
    C::new(times(c, z.re.cosh()), times(z.re.sinh(), s))
}

/// Beyond this `|x|`, `tanh(x)` rounds to ±1 in f64.
const TANH_SATURATED: f64 = 22.0;

pub(crate) fn tanh(z: C) -> C {
    let (x, y) = (z.re, z.im);
    if x.is_nan() {
        return C::new(x, if y == 0.0 { y } else { f64::NAN });
    }
    if x.abs() >= TANH_SATURATED {
        // tanh z = ±1 + 4 sin y cos y e^(-2|x|) i (+ smaller terms); e^(-2|x|) underflows
        // gracefully, and an infinite x gives ±1 + 0i.
        let e = (-x.abs()).exp();
        let (s, c) = y.sin_cos();
        let im = if y == 0.0 { y } else { 4.0 * s * c * e * e };
        return C::new(1.0f64.copysign(x), im);
    }
    let t = y.tan();
    let beta = 1.0 + t * t;
    let s = x.sinh();
    let rho = (1.0 + s * s).sqrt();
    let denom = 1.0 + beta * s * s;
    C::new(beta * rho * s / denom, t / denom)
}

pub(crate) fn tan(z: C) -> C {
    // tan z = -i tanh(i z)
    let t = tanh(C::new(-z.im, z.re));
    C::new(t.im, -t.re)
}

pub(crate) fn pow(a: C, b: C) -> C {
    exp(b * ln(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: C, b: C, tol: f64) -> bool {
        (a - b).norm() <= tol * (1.0 + b.norm())
    }

    #[test]
    fn agree_with_the_textbook_formulas_on_ordinary_values() {
        let values = [
            C::new(0.3, -0.7),
            C::new(-1.2, 0.4),
            C::new(2.5, 1.5),
            C::new(-0.01, -3.0),
        ];
        for &z in &values {
            for &w in &values {
                assert!(close(div(z, w), z / w, 1e-15));
                assert!(close(pow(z, w), z.powc(w), 1e-13));
            }
            assert!(close(sqrt(z), z.sqrt(), 1e-15));
            assert!(close(exp(z), z.exp(), 1e-15));
            assert!(close(ln(z), z.ln(), 1e-15));
            assert!(close(sin(z), z.sin(), 1e-15));
            assert!(close(cos(z), z.cos(), 1e-15));
            assert!(close(sinh(z), z.sinh(), 1e-15));
            assert!(close(cosh(z), z.cosh(), 1e-15));
            assert!(close(tanh(z), z.tanh(), 1e-14));
            assert!(close(tan(z), z.tan(), 1e-14));
        }
    }

    #[test]
    fn edges_give_tensorflows_values() {
        // TensorFlow 2.21 on CPU: reciprocal(0) = inf+nanj, (1+1j)/0 = inf+infj,
        // sqrt(-4-0j) = 2j, tanh(±400+1j) = ±1, tan(1+400j) = 1j, exp(800+0j) = inf+0j,
        // log(0) = -inf+0j, (1e300+1e300j)/(1e300+1e300j) = 1.
        let r = div(C::new(1.0, 0.0), C::new(0.0, 0.0));
        assert!(r.re == f64::INFINITY && r.im.is_nan());
        assert_eq!(
            div(C::new(1.0, 1.0), C::new(0.0, 0.0)),
            C::new(f64::INFINITY, f64::INFINITY)
        );
        assert_eq!(sqrt(C::new(-4.0, -0.0)), C::new(0.0, 2.0));
        assert_eq!(sqrt(C::new(-4.0, 0.0)), C::new(0.0, 2.0));
        assert_eq!(tanh(C::new(400.0, 1.0)), C::new(1.0, 0.0));
        assert_eq!(tanh(C::new(-400.0, 1.0)), C::new(-1.0, 0.0));
        assert_eq!(tan(C::new(1.0, 400.0)), C::new(0.0, 1.0));
        assert_eq!(exp(C::new(800.0, 0.0)), C::new(f64::INFINITY, 0.0));
        assert_eq!(ln(C::new(0.0, 0.0)), C::new(f64::NEG_INFINITY, 0.0));
        let big = C::new(1e300, 1e300);
        assert_eq!(div(big, big), C::new(1.0, 0.0));
        let tiny = C::new(1e-300, -1e-300);
        assert!(close(
            div(C::new(1.0, 0.0), tiny),
            C::new(5e299, 5e299),
            1e-15
        ));
        // |z| near 1: ln keeps the tiny real part.
        assert!(close(ln(C::new(1.0, 1e-10)), C::new(5e-21, 1e-10), 1e-12));
    }
}
