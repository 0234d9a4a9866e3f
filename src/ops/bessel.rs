//! Modified Bessel functions of the first kind: `bessel_i0`, `bessel_i0e`, `bessel_i1`,
//! `bessel_i1e` (TensorFlow's `tf.math.bessel_*`), each with its gradient written in these
//! same ops, so every order works.
//!
//! The kernels run in float64 (float32 rounds the result). For `|x| ≤ 20` the power series
//! `I₀(x) = Σ (x²/4)ᵏ / (k!)²` and `I₁(x) = (x/2) Σ (x²/4)ᵏ / (k! (k+1)!)` (positive terms: no
//! cancellation, a few units in the last place); beyond, the asymptotic expansion
//! `e⁻ˣ Iᵥ(x) = (2πx)^(−½) Σ (−1)ᵏ aₖ(ν) / xᵏ` with `aₖ(ν) = Π_{j≤k} (4ν² − (2j−1)²) / (k! 8ᵏ)`,
//! summed up to its smallest term (below `e⁻⁴⁰` relative there). The scaled forms `i0e`, `i1e`
//! never overflow; `i0` / `i1` multiply by `e^|x|` in two halves so they overflow only where the
//! value does (past |x| ≈ 713).
//!
//! Derivatives: `I₀′ = I₁`; `I₁′(x) = I₀(x) − I₁(x)/x` (½ at 0); for the scaled forms
//! `i0e′ = i1e − sign(x) i0e` and `i1e′ = i0e − i1e (sign(x) + 1/x)` (½ at 0). TensorFlow's
//! gradient of `bessel_i1` at 0 is 1 (its `_BesselI1Grad` imputes 1.0); the derivative is ½,
//! which rustape gives.

use super::elementwise::{map_float, unary_vjp, Saves};
use super::{add, divide, equal, multiply, scalar_like, sign, subtract, where_};
use crate::error::Result;
use crate::tensor::Tensor;

/// Where the kernels switch from the power series to the asymptotic expansion.
const SERIES_LIMIT: f64 = 20.0;

/// `Σ (x²/4)ᵏ / (k! (k+ν)!)` times `(x/2)^ν` for ν ∈ {0, 1}, `x ≥ 0`.
fn series(nu: u32, x: f64) -> f64 {
    let q = 0.25 * x * x;
    let mut term = if nu == 0 { 1.0 } else { 0.5 * x };
    let mut sum = term;
    let mut k = 1.0;
    loop {
        term *= q / (k * (k + f64::from(nu)));
        sum += term;
        if term <= sum * f64::EPSILON * 0.25 {
            return sum;
        }
        k += 1.0;
    }
}

/// `e⁻ˣ Iᵥ(x)` for large `x` by the asymptotic expansion, summed up to its smallest term.
fn asymptotic_scaled(nu: u32, x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    let mu = 4.0 * f64::from(nu * nu);
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..200 {
        let odd = f64::from(2 * k - 1);
        let next = -term * (mu - odd * odd) / (f64::from(k) * 8.0 * x);
        if next.abs() >= term.abs() {
            break;
        }
        term = next;
        sum += term;
        if term.abs() <= sum.abs() * f64::EPSILON * 0.25 {
            break;
        }
    }
    sum / (2.0 * std::f64::consts::PI * x).sqrt()
}

/// `e^(−|x|) Iᵥ(x)` in float64 (odd in `x` for ν = 1, even for ν = 0).
pub(crate) fn bessel_scaled_f64(nu: u32, x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let value = if a <= SERIES_LIMIT {
        series(nu, a) * (-a).exp()
    } else {
        asymptotic_scaled(nu, a)
    };
    if nu == 1 && x < 0.0 {
        -value
    } else if nu == 1 && x == 0.0 {
        x // ±0 keeps its sign
    } else {
        value
    }
}

/// `Iᵥ(x)` in float64: `+inf` (ν = 0) or `±inf` (ν = 1) past |x| ≈ 713.
pub(crate) fn bessel_f64(nu: u32, x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a <= SERIES_LIMIT {
        let value = series(nu, a);
        return if nu == 1 && x.is_sign_negative() {
            -value
        } else {
            value
        };
    }
    let half = (0.5 * a).exp();
    bessel_scaled_f64(nu, x) * half * half
}

/// The kernels in the element's precision (float32 rounds the float64 value).
trait BesselFloat: Copy {
    fn i(self, nu: u32) -> Self;
    fn ie(self, nu: u32) -> Self;
}

impl BesselFloat for f64 {
    fn i(self, nu: u32) -> f64 {
        bessel_f64(nu, self)
    }
    fn ie(self, nu: u32) -> f64 {
        bessel_scaled_f64(nu, self)
    }
}

impl BesselFloat for f32 {
    fn i(self, nu: u32) -> f32 {
        bessel_f64(nu, f64::from(self)) as f32
    }
    fn ie(self, nu: u32) -> f32 {
        bessel_scaled_f64(nu, f64::from(self)) as f32
    }
}

/// `(x with 1 where x = 0, mask x = 0)`: a divisor that is never 0, so `where` never sends a
/// NaN through its unused branch.
fn nonzero(x: &Tensor) -> Result<(Tensor, Tensor)> {
    let zero = equal(x, &scalar_like(0.0, x))?;
    let safe = where_(&zero, &scalar_like(1.0, x), x)?;
    Ok((safe, zero))
}

/// The modified Bessel function of the first kind of order 0, `I₀(x)` (float32, float64).
/// Gradient `dy · I₁(x)`.
pub fn bessel_i0(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "bessel_i0", |v| BesselFloat::i(v, 0));
    unary_vjp("bessel_i0", x, y, Saves::Input, |x, dy| {
        multiply(dy, &bessel_i1(x)?)
    })
}

/// The exponentially scaled `I₀`: `e^(−|x|) I₀(x)`. Gradient `dy · (i1e(x) − sign(x) i0e(x))`.
pub fn bessel_i0e(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "bessel_i0e", |v| BesselFloat::ie(v, 0));
    unary_vjp("bessel_i0e", x, y, Saves::Input, |x, dy| {
        let slope = subtract(&bessel_i1e(x)?, &multiply(&sign(x)?, &bessel_i0e(x)?)?)?;
        multiply(dy, &slope)
    })
}

/// The modified Bessel function of the first kind of order 1, `I₁(x)` (odd). Gradient
/// `dy · (I₀(x) − I₁(x)/x)`, `dy / 2` at 0 (TensorFlow gives `dy` there).
pub fn bessel_i1(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "bessel_i1", |v| BesselFloat::i(v, 1));
    unary_vjp("bessel_i1", x, y, Saves::Input, |x, dy| {
        let (safe, zero) = nonzero(x)?;
        let slope = subtract(&bessel_i0(x)?, &divide(&bessel_i1(&safe)?, &safe)?)?;
        let slope = where_(&zero, &scalar_like(0.5, x), &slope)?;
        multiply(dy, &slope)
    })
}

/// The exponentially scaled `I₁`: `e^(−|x|) I₁(x)`. Gradient
/// `dy · (i0e(x) − i1e(x) (sign(x) + 1/x))`, `dy / 2` at 0.
pub fn bessel_i1e(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "bessel_i1e", |v| BesselFloat::ie(v, 1));
    unary_vjp("bessel_i1e", x, y, Saves::Input, |x, dy| {
        let (safe, zero) = nonzero(x)?;
        let factor = add(&sign(x)?, &divide(&scalar_like(1.0, x), &safe)?)?;
        let slope = subtract(&bessel_i0e(x)?, &multiply(&bessel_i1e(&safe)?, &factor)?)?;
        let slope = where_(&zero, &scalar_like(0.5, x), &slope)?;
        multiply(dy, &slope)
    })
}

#[cfg(test)]
mod tests {
    use super::{bessel_f64, bessel_scaled_f64};

    #[test]
    fn series_and_expansion_agree_at_the_switch() {
        for nu in [0, 1] {
            let below = bessel_scaled_f64(nu, 20.0);
            let above = super::asymptotic_scaled(nu, 20.0);
            assert!(
                ((below - above) / below).abs() < 1e-14,
                "{nu}: {below} {above}"
            );
        }
    }

    #[test]
    fn known_values() {
        // Abramowitz & Stegun table 9.8 and mpmath.
        let cases = [
            (0, 1.0, 1.266_065_877_752_008_4),
            (1, 1.0, 0.565_159_103_992_485_1),
            (0, 10.0, 2_815.716_628_466_254),
            (1, 10.0, 2_670.988_303_701_255),
        ];
        for (nu, x, want) in cases {
            let got = bessel_f64(nu, x);
            assert!(
                ((got - want) / want).abs() < 1e-14,
                "I{nu}({x}) = {got}, want {want}"
            );
        }
        assert_eq!(bessel_f64(0, 0.0), 1.0);
        assert_eq!(bessel_f64(0, 800.0), f64::INFINITY);
        assert_eq!(bessel_f64(1, -800.0), f64::NEG_INFINITY);
        assert!(bessel_f64(0, 700.0).is_finite());
        assert_eq!(bessel_scaled_f64(0, f64::INFINITY), 0.0);
    }
}
