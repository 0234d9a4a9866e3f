//! Gamma samples with TensorFlow's values (`tf.random.gamma`, `tf.random.stateless_gamma`)
//! and their implicit reparameterisation gradient with respect to `alpha`.
//!
//! TensorFlow's CPU kernel: sample `k` (alpha index `k / samples_per_alpha`) draws from the
//! generator advanced by `256 * k`, float64 normals and uniforms two per Philox output, used
//! last first; `alpha == 1` is an exponential (`-log1p(-u)`), otherwise Marsaglia and Tsang's
//! transformation-rejection (`alpha < 1`: boosted by one, times `u^(1/alpha)`). The value for
//! alpha index `a` and sample `s` sits at `s * num_alphas + a`.
//!
//! The gradient is TensorFlow's `random_gamma_grad`: `dx/dalpha = -(dP/dalpha) / (dP/dx)`
//! with `P(alpha, x)` the regularised lower incomplete gamma function (its alpha-derivative
//! by a central difference of a float64 series / continued fraction).
use super::philox::{self, Philox, RESERVED_PER_OUTPUT};
use super::random::{tensor_of, Stream};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tape::{mixes_input, record_batched};
use crate::tensor::Tensor;

/// Two float64 values per Philox output, handed out last first (TensorFlow's buffers).
struct Buffer {
    values: [f64; 2],
    left: usize,
}

impl Buffer {
    fn new() -> Buffer {
        Buffer {
            values: [0.0; 2],
            left: 0,
        }
    }
    fn take(&mut self, gen: &mut Philox, normal: bool) -> f64 {
        if self.left == 0 {
            let g = *gen;
            gen.skip(1);
            self.values = if normal {
                philox::normal_f64(g)
            } else {
                philox::uniform_f64(g)
            };
            self.left = 2;
        }
        self.left -= 1;
        self.values[self.left]
    }
}

/// One gamma sample of shape `alpha` from `gen`.
fn sample(mut gen: Philox, alpha: f64) -> f64 {
    if alpha == 1.0 {
        let u = philox::uniform_f64(gen)[1];
        return -(-u).ln_1p();
    }
    let less = alpha < 1.0;
    let d = alpha + if less { 2.0 / 3.0 } else { -1.0 / 3.0 };
    let c = 1.0 / 3.0 / d.sqrt();
    let (mut normals, mut uniforms) = (Buffer::new(), Buffer::new());
    loop {
        let x = normals.take(&mut gen, true);
        let mut v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        v = v * v * v;
        let u = uniforms.take(&mut gen, false);
        if u < 1.0 - 0.0331 * (x * x) * (x * x) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            let mut res = d * v;
            if less {
                let b = uniforms.take(&mut gen, false);
                res *= b.powf(1.0 / alpha);
            }
            return res;
        }
    }
}

/// Gamma samples of unit rate: `out_shape` ends with `alpha`'s shape; `stateful` kernels
/// reserve 256 outputs per value.
pub fn gamma_from(
    op: &'static str,
    stream: Stream,
    out_shape: &[usize],
    alpha: &Tensor,
) -> Result<Tensor> {
    let dtype = alpha.dtype();
    if !matches!(dtype, DType::F32 | DType::F64) {
        return Err(Error::dtype(
            op,
            format!("expected a floating dtype (float32, float64), got {dtype}"),
        ));
    }
    let n = crate::memory::checked_size(op, out_shape)?;
    let a_shape = alpha.shape();
    if a_shape.len() > out_shape.len() || !out_shape.ends_with(a_shape) {
        return Err(Error::shape(
            op,
            format!(
                "the shape {} must end with alpha's shape {}",
                fmt_shape(out_shape),
                fmt_shape(a_shape)
            ),
        ));
    }
    let alphas = alpha.to_f64_vec();
    let num_alphas = alphas.len();
    if num_alphas == 0 && n > 0 {
        return Err(Error::shape(op, "alpha has no elements"));
    }
    let base = stream.generator("RandomGamma", dtype, n as u64);
    let mut out = crate::memory::try_filled(op, n, 0.0f64)?;
    if n > 0 {
        let per_alpha = n / num_alphas;
        for (k, &a) in alphas.iter().enumerate() {
            for s in 0..per_alpha {
                let index = (k * per_alpha + s) as u64;
                let gen = base.skipped(index.wrapping_mul(RESERVED_PER_OUTPUT));
                out[s * num_alphas + k] = sample(gen, a);
            }
        }
    }
    // Each sample as stored (float32: rounded), and d sample / d alpha of it with its alpha
    // (constant for the VJP, as TensorFlow's RandomGammaGrad has no gradient).
    if dtype == DType::F32 {
        out.iter_mut().for_each(|v| *v = f64::from(*v as f32));
    }
    let mut partial: Vec<f64> = crate::memory::try_vec(op, n)?;
    partial.extend(
        out.iter()
            .enumerate()
            .map(|(i, &x)| gamma_sample_der_alpha(alphas[i % num_alphas.max(1)], x)),
    );
    let (samples, partial) = match dtype {
        DType::F32 => {
            let mut s: Vec<f32> = crate::memory::try_vec(op, n)?;
            s.extend(out.iter().map(|&v| v as f32));
            let mut p: Vec<f32> = crate::memory::try_vec(op, n)?;
            p.extend(partial.iter().map(|&v| v as f32));
            (tensor_of(out_shape, s), tensor_of(out_shape, p))
        }
        _ => (tensor_of(out_shape, out), tensor_of(out_shape, partial)),
    };
    let lead = out_shape.len() - a_shape.len();
    let rows = mixes_input(0);
    record_batched(
        op,
        &[alpha],
        &samples,
        &[&partial],
        rows,
        false,
        move |s, dy, _| {
            let g = super::multiply(dy, &s[0])?;
            let axes: Vec<isize> = (0..lead as isize).collect();
            Ok(crate::grads![Some(if axes.is_empty() {
                g
            } else {
                super::reduce_sum(&g, Some(&axes), false)?
            })])
        },
    );
    Ok(samples)
}

/// The regularised lower incomplete gamma function `P(a, x)` in float64.
fn igamma(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let lead = a * x.ln() - x - libm::lgamma(a);
    if x < a + 1.0 {
        // Series: P = x^a e^-x / Γ(a + 1) · Σ x^n / ((a + 1)…(a + n)).
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..2000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        sum * lead.exp()
    } else {
        // Continued fraction for Q (modified Lentz).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..2000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        1.0 - lead.exp() * h
    }
}

/// `dx/dalpha` for a gamma sample `x` (TensorFlow's `random_gamma_grad`).
fn gamma_sample_der_alpha(a: f64, x: f64) -> f64 {
    if x.is_nan() || a.is_nan() || x <= 0.0 || a <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    let h = 1e-5 * a.max(1e-3);
    let dp_da = (igamma(a + h, x) - igamma(a - h, x)) / (2.0 * h);
    let dp_dx = ((a - 1.0) * x.ln() - x - libm::lgamma(a)).exp();
    if dp_dx == 0.0 {
        return 0.0;
    }
    -dp_da / dp_dx
}

/// `alpha` and `beta` (default 1) broadcast together, for the samplers below.
fn alpha_beta(op: &str, alpha: &Tensor, beta: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let beta = match beta {
        Some(b) => b.clone(),
        None => match alpha.dtype() {
            DType::F32 => Tensor::scalar(1.0f32),
            _ => Tensor::scalar(1.0f64),
        },
    };
    let shape = super::broadcast_shapes(op, alpha.shape(), beta.shape())?;
    Ok((super::broadcast_to(alpha, &shape)?, beta))
}

/// TensorFlow's `maximum(tiny, samples / beta)`.
fn rate_scaled(samples: &Tensor, beta: &Tensor) -> Result<Tensor> {
    let tiny = match samples.dtype() {
        DType::F32 => Tensor::scalar(f32::MIN_POSITIVE),
        _ => Tensor::scalar(f64::MIN_POSITIVE),
    };
    super::maximum(&tiny, &super::divide(samples, beta)?)
}

/// Gamma samples (`tf.random.gamma`): shape `shape + broadcast(alpha, beta).shape`, seeded as
/// the other stateful samplers; differentiable in `alpha` (implicit reparameterisation) and
/// `beta`.
pub fn gamma(
    shape: &[usize],
    alpha: &Tensor,
    beta: Option<&Tensor>,
    seed: Option<u64>,
) -> Result<Tensor> {
    let op = "random.gamma";
    let (alpha_b, beta) = alpha_beta(op, alpha, beta)?;
    let mut out = shape.to_vec();
    out.extend_from_slice(alpha_b.shape());
    rate_scaled(
        &gamma_from(op, Stream::Seeded(seed), &out, &alpha_b)?,
        &beta,
    )
}

/// Gamma samples from a seed pair alone (`tf.random.stateless_gamma`): `shape` must end with
/// `broadcast(alpha, beta).shape`.
pub fn stateless_gamma(
    shape: &[usize],
    seed: [u64; 2],
    alpha: &Tensor,
    beta: Option<&Tensor>,
) -> Result<Tensor> {
    let op = "random.stateless_gamma";
    let (alpha_b, beta) = alpha_beta(op, alpha, beta)?;
    rate_scaled(
        &gamma_from(op, Stream::Stateless(seed), shape, &alpha_b)?,
        &beta,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incomplete_gamma_values() {
        // P(1, x) = 1 - e^-x; P(0.5, x) = erf(sqrt(x)).
        for x in [0.1, 1.0, 3.0, 10.0] {
            assert!((igamma(1.0, x) - (1.0 - (-x).exp())).abs() < 1e-13);
            assert!((igamma(0.5, x) - libm::erf(f64::sqrt(x))).abs() < 1e-13);
        }
        // Exponential samples: x = -ln(1 - P) has dx/da from P(a, x) alone; at a = 1 it is
        // finite and positive.
        assert!(gamma_sample_der_alpha(1.0, 0.7) > 0.0);
    }
}
