//! Special functions: `erf`, `erfc`, `erfinv`, `lgamma`, `digamma` and `polygamma`, each with
//! its gradient written in these same ops (so every order works).
//!
//! `erf`, `erfc` and `lgamma` come from the `libm` crate (a port of musl's libm, kept by the
//! Rust project; float32 uses its single-precision functions). `digamma` and the Hurwitz zeta
//! behind `polygamma` are written here, in float64 (float32 rounds the result):
//! - digamma: the recurrence `ψ(x) = ψ(x + 1) − 1/x` up to `x ≥ 10`, then the asymptotic
//!   series `ln x − 1/(2x) − Σ B₂ₖ / (2k x²ᵏ)` (Bernoulli numbers); the reflection formula
//!   `ψ(1 − x) − ψ(x) = π cot(πx)` for `x ≤ 0`;
//! - Hurwitz zeta `ζ(s, q) = Σₖ (q + k)^−s`: Euler–Maclaurin summation (nine terms summed
//!   directly, then the tail as an integral with Bernoulli corrections), the method of the
//!   Cephes library that Eigen (and so TensorFlow) uses; `ψ⁽ⁿ⁾(x) = (−1)ⁿ⁺¹ n! ζ(n + 1, x)`.
//!
//! - erfinv: Winitzki's closed-form approximation (about 2e-3 relative), then Newton steps on
//!   `erf` (or on `erfc` where |y| > 1/2, so the tails keep their precision) until they stop
//!   changing: float64 to a few units in the last place.
//!
//! At the poles (zero and the negative integers) the values are TensorFlow's: `lgamma` is
//! `+inf`, `digamma` NaN, `polygamma(n ≥ 1)` infinite.
use super::elementwise::{map_float, scale, unary_vjp, Saves};
use super::{exp, multiply, negative, square};
use crate::error::{Error, Result};
use crate::tape::record_batched;
use crate::tensor::Tensor;

/// The inverse error function in float64: `x` with `erf(x) = y`; ±inf at ±1, NaN outside.
pub(crate) fn erfinv_f64(y: f64) -> f64 {
    if y.is_nan() || y.abs() > 1.0 {
        return f64::NAN;
    }
    if y.abs() == 1.0 {
        return y * f64::INFINITY;
    }
    if y == 0.0 {
        return y;
    }
    let (sign, a) = (y.signum(), y.abs());
    // Winitzki: erf(x) ≈ 1 − exp(−x² (4/π + c x²) / (1 + c x²)), c = 0.147, solved for x.
    let c = 0.147;
    let log_rest = (-a).ln_1p() + a.ln_1p(); // ln(1 − a²), accurate near a = 1
    let t = 2.0 / (std::f64::consts::PI * c) + log_rest / 2.0;
    let mut x = ((t * t - log_rest / c).sqrt() - t).sqrt();
    // The complement 1 − a is exact for a ≥ 1/2 (Sterbenz).
    let tail = a > 0.5;
    let target = if tail { 1.0 - a } else { a };
    for _ in 0..8 {
        let value = if tail { libm::erfc(x) } else { libm::erf(x) };
        let slope = std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp();
        let step = if tail {
            (target - value) / slope
        } else {
            (value - target) / slope
        };
        let next = x - step;
        if next == x || !next.is_finite() {
            break;
        }
        x = next;
    }
    sign * x
}

/// The digamma function ψ(x) = Γ′(x)/Γ(x) in float64.
pub(crate) fn digamma_f64(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    let mut x = x;
    let mut reflection = 0.0;
    if x <= 0.0 {
        let floor = x.floor();
        if floor == x {
            return f64::NAN; // a pole
        }
        // ψ(x) = ψ(1 - x) - π cot(πx), with the fraction taken nearest zero for accuracy.
        let mut frac = x - floor;
        if frac > 0.5 {
            frac -= 1.0;
        }
        reflection = if frac == 0.5 {
            0.0
        } else {
            std::f64::consts::PI / (std::f64::consts::PI * frac).tan()
        };
        x = 1.0 - x;
    }
    let mut shift = 0.0;
    while x < 10.0 {
        shift += 1.0 / x;
        x += 1.0;
    }
    // B_2k / (2k) for k = 7 down to 1, in powers of 1/x^2.
    const SERIES: [f64; 7] = [
        8.333_333_333_333_333e-2,
        -2.109_279_609_279_609_3e-2,
        7.575_757_575_757_576e-3,
        -4.166_666_666_666_667e-3,
        3.968_253_968_253_968e-3,
        -8.333_333_333_333_333e-3,
        8.333_333_333_333_333e-2,
    ];
    let tail = if x < 1e17 {
        let z = 1.0 / (x * x);
        z * SERIES.iter().fold(0.0, |acc, &c| acc * z + c)
    } else {
        0.0
    };
    x.ln() - 0.5 / x - tail - shift - reflection
}

/// The Hurwitz zeta function ζ(s, q) for `s > 1` (Euler–Maclaurin summation).
pub(crate) fn zeta_f64(s: f64, q: f64) -> f64 {
    if s.is_nan() || q.is_nan() || s <= 1.0 {
        return if s == 1.0 { f64::INFINITY } else { f64::NAN };
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY; // a pole of every ψ⁽ⁿ⁾
        }
        if s != s.floor() {
            return f64::NAN; // q^-s is not real
        }
    }
    // (2k)! / B_2k for k = 1..12.
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1_209_600.0,
        47_900_160.0,
        -1.892_437_580_318_379_2e9,
        7.472_424_96e10,
        -2.950_130_727_918_164e12,
        1.164_678_281_435_006_7e14,
        -4.597_978_722_407_473e15,
        1.815_210_540_194_354_7e17,
        -7.166_165_256_175_667e18,
    ];
    let mut sum = q.powf(-s);
    let mut a = q;
    let mut b = 0.0;
    let mut i = 0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-s);
        sum += b;
        if (b / sum).abs() < f64::EPSILON {
            return sum;
        }
    }
    let w = a;
    sum += b * w / (s - 1.0);
    sum -= 0.5 * b;
    let mut fac = 1.0;
    let mut k = 0.0;
    for &c in &A {
        fac *= s + k;
        b /= w;
        let t = fac * b / c;
        sum += t;
        if (t / sum).abs() < f64::EPSILON {
            break;
        }
        k += 1.0;
        fac *= s + k;
        b /= w;
        k += 1.0;
    }
    sum
}

/// ψ⁽ⁿ⁾(x) for `n ≥ 1` in float64.
pub(crate) fn polygamma_f64(n: u32, x: f64) -> f64 {
    let factorial: f64 = (1..=n).map(f64::from).product();
    let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
    sign * factorial * zeta_f64(f64::from(n) + 1.0, x)
}

/// Float math for the kernels, in the element's own precision where libm has it.
trait SpecialFloat: Copy {
    fn erf(self) -> Self;
    fn erfinv(self) -> Self;
    fn erfc(self) -> Self;
    fn lgamma(self) -> Self;
    fn digamma(self) -> Self;
    fn polygamma(self, n: u32) -> Self;
}

impl SpecialFloat for f64 {
    fn erf(self) -> f64 {
        libm::erf(self)
    }
    fn erfc(self) -> f64 {
        libm::erfc(self)
    }
    fn erfinv(self) -> f64 {
        erfinv_f64(self)
    }
    fn lgamma(self) -> f64 {
        libm::lgamma(self)
    }
    fn digamma(self) -> f64 {
        digamma_f64(self)
    }
    fn polygamma(self, n: u32) -> f64 {
        polygamma_f64(n, self)
    }
}

impl SpecialFloat for f32 {
    fn erf(self) -> f32 {
        libm::erff(self)
    }
    fn erfc(self) -> f32 {
        libm::erfcf(self)
    }
    fn erfinv(self) -> f32 {
        erfinv_f64(f64::from(self)) as f32
    }
    fn lgamma(self) -> f32 {
        libm::lgammaf(self)
    }
    fn digamma(self) -> f32 {
        digamma_f64(f64::from(self)) as f32
    }
    fn polygamma(self, n: u32) -> f32 {
        polygamma_f64(n, f64::from(self)) as f32
    }
}

/// `2/√π · e^(−x²)`: the derivative of `erf`.
fn erf_slope(x: &Tensor) -> Result<Tensor> {
    scale(
        &exp(&negative(&square(x)?)?)?,
        std::f64::consts::FRAC_2_SQRT_PI,
    )
}

/// The error function `erf(x) = 2/√π ∫₀ˣ e^(−t²) dt`. Gradient `dy · 2/√π · e^(−x²)`.
pub fn erf(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "erf", |v| SpecialFloat::erf(v));
    unary_vjp("erf", x, y, Saves::Input, |x, dy| {
        multiply(dy, &erf_slope(x)?)
    })
}

/// The complementary error function `1 − erf(x)`, accurate where `erf(x)` is near 1.
/// Gradient `−dy · 2/√π · e^(−x²)`.
pub fn erfc(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "erfc", |v| SpecialFloat::erfc(v));
    unary_vjp("erfc", x, y, Saves::Input, |x, dy| {
        negative(&multiply(dy, &erf_slope(x)?)?)
    })
}

/// The inverse error function: `erfinv(erf(x)) = x` on (−1, 1), ±inf at ±1, NaN outside.
/// Gradient `dy · √π/2 · e^(y²)` with `y = erfinv(x)`.
pub fn erfinv(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "erfinv", |v| SpecialFloat::erfinv(v));
    unary_vjp("erfinv", x, y, Saves::Output, |y, dy| {
        let slope = scale(&exp(&square(y)?)?, std::f64::consts::PI.sqrt() / 2.0)?;
        multiply(dy, &slope)
    })
}

/// `ln |Γ(x)|`; `+inf` at zero and the negative integers. Gradient `dy · digamma(x)` (NaN at
/// the poles, as in TensorFlow).
pub fn lgamma(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "lgamma", |v| SpecialFloat::lgamma(v));
    unary_vjp("lgamma", x, y, Saves::Input, |x, dy| {
        multiply(dy, &digamma(x)?)
    })
}

/// The digamma function `ψ(x) = d/dx ln Γ(x)`; NaN at zero and the negative integers.
/// Gradient `dy · polygamma(1, x)` (`+inf` at the poles, as in TensorFlow).
pub fn digamma(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "digamma", |v| SpecialFloat::digamma(v));
    unary_vjp("digamma", x, y, Saves::Input, |x, dy| {
        multiply(dy, &polygamma(1, x)?)
    })
}

/// The polygamma function `ψ⁽ⁿ⁾(x)`, the `n`-th derivative of digamma (`n = 0` is
/// [`digamma`]); infinite at zero and the negative integers. Gradient
/// `dy · polygamma(n + 1, x)`.
pub fn polygamma(n: u32, x: &Tensor) -> Result<Tensor> {
    if n == 0 {
        return digamma(x);
    }
    if n > 170 {
        return Err(Error::value(
            "polygamma",
            format!("order {n} is too large: n! overflows float64 beyond 170"),
        ));
    }
    let y = map_float!(math x, "polygamma", |v| SpecialFloat::polygamma(v, n));
    record_batched(
        "polygamma",
        &[x],
        &y,
        &[x],
        0,
        true,
        move |s, dy, _batch| {
            Ok(crate::grads![Some(multiply(
                dy,
                &polygamma(n + 1, &s[0])?
            )?)])
        },
    );
    Ok(y)
}

#[cfg(test)]
mod tests {
    use super::erfinv_f64;

    #[test]
    fn erfinv_inverts_erf_to_the_last_places() {
        // erf(erfinv(y)) gives y back; in the tails the complement 1 - |y| comes back
        // from erfc (the precision an input near 1 holds).
        for k in 1..2000 {
            let y = k as f64 / 2000.0;
            for y in [y, -y, 1.0 - 1e-3 * y, 1e-200 * y] {
                let x = erfinv_f64(y);
                let (got, want) = if y.abs() > 0.5 {
                    (libm::erfc(x.abs()), 1.0 - y.abs())
                } else {
                    (libm::erf(x), y)
                };
                assert!(((got - want) / want).abs() < 1e-13, "{y}: {x}");
            }
        }
        assert_eq!(erfinv_f64(1.0), f64::INFINITY);
        assert_eq!(erfinv_f64(-1.0), f64::NEG_INFINITY);
        assert!(erfinv_f64(1.5).is_nan() && erfinv_f64(f64::NAN).is_nan());
        assert_eq!(erfinv_f64(-0.0).to_bits(), (-0.0f64).to_bits());
    }
}
