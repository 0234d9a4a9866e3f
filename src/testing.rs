//! Gradient checking against central finite differences, for rustape's own tests and for
//! users' ops (`rt.test.gradcheck` in Python).
//!
//! Complex128 inputs are checked in both directions: the gradient of a complex input `z = x +
//! iy` must be `dR/dx + i dR/dy`, `R` the real part of the (complex) loss (TensorFlow's
//! convention, see `ops::complex`), each part against its own central difference.
use num_complex::Complex;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::tape::{Source, Tape, Unconnected};
use crate::tensor::Tensor;

/// Tolerances: |analytic - numeric| <= atol + rtol * |numeric|.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    /// Finite-difference step.
    pub eps: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
}

impl Default for Tolerance {
    fn default() -> Tolerance {
        Tolerance {
            eps: 1e-6,
            atol: 1e-6,
            rtol: 1e-5,
        }
    }
}

/// A function of tensors to a tensor, as gradcheck calls it.
pub type Function<'a> = &'a dyn Fn(&[Tensor]) -> Result<Tensor>;

/// Checks first-order gradients of `f` at float64 or complex128 `inputs`, and second-order ones
/// when `second_order` (the gradient of a random projection of the gradient, by nested tapes).
pub fn gradcheck(f: Function, inputs: &[Tensor], second_order: bool, tol: Tolerance) -> Result<()> {
    for (i, x) in inputs.iter().enumerate() {
        if x.dtype() != DType::F64 && x.dtype() != DType::Complex128 {
            return Err(Error::dtype(
                "gradcheck",
                format!(
                    "input {i} must be float64 or complex128 for finite differences, got {}",
                    x.dtype()
                ),
            ));
        }
    }
    let output = f(inputs)?;
    let weights = pseudo_random_like(output.shape(), output.dtype(), 17);
    // L(x) = sum(f(x) * w): a scalar whose gradient exercises every output element differently
    // (both parts of each, for complex outputs and weights: what is checked is Re L).
    let loss = |xs: &[Tensor]| -> Result<Tensor> {
        ops::reduce_sum(&ops::multiply(&f(xs)?, &weights)?, None, false)
    };
    compare(
        "first order",
        &loss,
        &|xs: &[Tensor]| analytic_gradient(&loss, xs),
        inputs,
        tol,
    )?;
    if second_order {
        let directions: Vec<Tensor> = inputs
            .iter()
            .enumerate()
            .map(|(i, x)| pseudo_random_like(x.shape(), x.dtype(), 31 + i as u64))
            .collect();
        // G(x) = sum_i Re sum(dL/dx_i * v_i), computed with tapes, then differentiated again.
        let projected = |xs: &[Tensor]| -> Result<Tensor> {
            let grads = analytic_gradient(&loss, xs)?;
            let mut total = Tensor::scalar(0.0f64);
            for (g, v) in grads.iter().zip(&directions) {
                let term = ops::reduce_sum(&ops::multiply(g, v)?, None, false)?;
                total = ops::add(&total, &ops::real(&term)?)?;
            }
            Ok(total)
        };
        compare(
            "second order",
            &projected,
            &|xs: &[Tensor]| analytic_gradient(&projected, xs),
            inputs,
            tol,
        )?;
    }
    Ok(())
}

/// The gradient of scalar `loss` at `xs` (of its real part, for a complex `loss`), zeros
/// where unconnected.
pub fn analytic_gradient(
    loss: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
) -> Result<Vec<Tensor>> {
    let tape = Tape::new(false, true);
    let y = {
        let _recording = tape.enter()?;
        xs.iter().for_each(|x| tape.watch(x));
        loss(xs)?
    };
    let sources: Vec<Source> = xs.iter().map(Source::from).collect();
    let grads = tape.gradient(&[y], &sources, None, Unconnected::Zero)?;
    Ok(grads
        .into_iter()
        .zip(xs)
        .map(|(g, x)| g.unwrap_or_else(|| x.zeros_like()))
        .collect())
}

/// The central-difference gradient of scalar `loss` at float64 `xs`.
pub fn numeric_gradient(
    loss: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
    eps: f64,
) -> Result<Vec<Vec<f64>>> {
    Ok(numeric_gradient_complex(loss, xs, eps)?
        .into_iter()
        .map(|g| g.into_iter().map(|v| v.re).collect())
        .collect())
}

/// The central-difference gradient of the real part of scalar `loss` at `xs` (float64 or
/// complex128): `dR/dx + i dR/dy` for each complex element `x + iy` (0 imaginary part for real
/// inputs), TensorFlow's convention.
pub fn numeric_gradient_complex(
    loss: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
    eps: f64,
) -> Result<Vec<Vec<Complex<f64>>>> {
    let mut out = Vec::with_capacity(xs.len());
    for i in 0..xs.len() {
        let complex = xs[i].dtype().is_complex();
        let base = xs[i].to_complex_vec();
        let mut grad = vec![Complex::new(0.0, 0.0); base.len()];
        for j in 0..base.len() {
            let at = |delta: Complex<f64>| -> Result<f64> {
                let mut moved = base.clone();
                moved[j] += delta;
                let mut args = xs.to_vec();
                args[i] = if complex {
                    Tensor::from_vec(moved, xs[i].shape())?
                } else {
                    Tensor::from_vec(moved.iter().map(|v| v.re).collect(), xs[i].shape())?
                };
                Ok(loss(&args)?.item_complex()?.re)
            };
            let step = |d: Complex<f64>| -> Result<f64> { Ok((at(d)? - at(-d)?) / (2.0 * eps)) };
            grad[j].re = step(Complex::new(eps, 0.0))?;
            if complex {
                grad[j].im = step(Complex::new(0.0, eps))?;
            }
        }
        out.push(grad);
    }
    Ok(out)
}

fn compare(
    what: &str,
    loss: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    analytic: &dyn Fn(&[Tensor]) -> Result<Vec<Tensor>>,
    inputs: &[Tensor],
    tol: Tolerance,
) -> Result<()> {
    let numeric = numeric_gradient_complex(loss, inputs, tol.eps)?;
    let analytic = analytic(inputs)?;
    for (i, (a, n)) in analytic.iter().zip(&numeric).enumerate() {
        if a.shape() != inputs[i].shape() {
            return Err(Error::shape(
                "gradcheck",
                format!(
                    "{what}: gradient of input {i} has shape {:?}, the input {:?}",
                    a.shape(),
                    inputs[i].shape()
                ),
            ));
        }
        if a.dtype() != inputs[i].dtype() {
            return Err(Error::dtype(
                "gradcheck",
                format!(
                    "{what}: gradient of input {i} has dtype {}, the input {}",
                    a.dtype(),
                    inputs[i].dtype()
                ),
            ));
        }
        for (j, (a, n)) in a.to_complex_vec().iter().zip(n).enumerate() {
            // Written negated so that a NaN on either side fails the check.
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            let close = |a: f64, n: f64| (a - n).abs() <= tol.atol + tol.rtol * n.abs();
            if !(close(a.re, n.re) && close(a.im, n.im)) {
                let (a, n) = if inputs[i].dtype().is_complex() {
                    (format!("{a:.10e}"), format!("{n:.10e}"))
                } else {
                    (format!("{:.10e}", a.re), format!("{:.10e}", n.re))
                };
                return Err(Error::value(
                    "gradcheck",
                    format!("{what}: input {i}, element {j}: analytic {a} but finite differences give {n}"),
                ));
            }
        }
    }
    Ok(())
}

/// Deterministic values in [0.5, 1.5) of `shape` (weights that make every element count).
pub fn pseudo_random(shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let values = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            0.5 + (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    Tensor::from_vec(values, shape).unwrap_or_else(|_| Tensor::scalar(1.0f64))
}

/// [`pseudo_random`] values of `dtype`: complex128 ones get an imaginary part of their own
/// (in `[0.5, 1.5)` too), any other dtype the real values (float64).
pub fn pseudo_random_like(shape: &[usize], dtype: DType, seed: u64) -> Tensor {
    let re = pseudo_random(shape, seed);
    if !dtype.is_complex() {
        return re;
    }
    let im = pseudo_random(shape, seed ^ 0x5555);
    let values = re
        .to_f64_vec()
        .into_iter()
        .zip(im.to_f64_vec())
        .map(|(re, im)| Complex::new(re, im))
        .collect();
    Tensor::from_vec(values, shape).unwrap_or_else(|_| Tensor::scalar(Complex::new(1.0, 1.0)))
}

/// Checks that the vectorised Jacobian of `f` (one sweep, seeds stacked on a leading axis)
/// equals the row-by-row one, for the Jacobian with respect to every input and, when `f`'s
/// output and every input share a first dimension, for the batch Jacobian too (a rank-1 input
/// or output read as `[b, 1]`: batch_jacobian wants rank 2). Fails (naming the op) when an op
/// on the path cannot take batched cotangents.
pub fn check_vectorized(f: Function, inputs: &[Tensor], rtol: f64) -> Result<()> {
    use crate::tape::{JacobianOptions, JacobianStrategy};
    let lift = |t: &Tensor| match t.ndim() {
        1 => ops::expand_dims(t, -1),
        _ => Ok(t.clone()),
    };
    let run = |strategy: JacobianStrategy, batch: bool| -> Result<Vec<Option<Tensor>>> {
        let tape = Tape::new(false, true);
        // For the batch Jacobian, the watched source is the input lifted to rank 2.
        let lifted: Vec<Tensor> = match batch {
            true => inputs.iter().map(lift).collect::<Result<_>>()?,
            false => inputs.to_vec(),
        };
        let y = {
            let _recording = tape.enter()?;
            lifted.iter().for_each(|x| tape.watch(x));
            let args: Vec<Tensor> = lifted
                .iter()
                .zip(inputs)
                .map(|(l, x)| match l.ndim() == x.ndim() {
                    true => Ok(l.clone()),
                    false => ops::reshape(l, &[-1]),
                })
                .collect::<Result<_>>()?;
            let y = f(&args)?;
            match batch {
                true => lift(&y)?,
                false => y,
            }
        };
        let options = JacobianOptions {
            parallel_iterations: None,
            strategy,
        };
        let sources: Vec<Source> = lifted.iter().map(Source::from).collect();
        if batch {
            Ok(vec![tape.batch_jacobian_with(
                &y,
                &sources[0],
                Unconnected::Zero,
                options,
            )?])
        } else {
            tape.jacobian_with(&y, &sources, Unconnected::Zero, options)
        }
    };
    let output = f(inputs)?;
    let batched = inputs.len() == 1
        && output.ndim() > 0
        && inputs[0].ndim() > 0
        && output.shape()[0] == inputs[0].shape()[0];
    let modes: &[bool] = if batched { &[false, true] } else { &[false] };
    for &batch in modes {
        let want = run(JacobianStrategy::Sequential, batch)?;
        let got = run(JacobianStrategy::Vectorized, batch)?;
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            let (w, g) = match (w, g) {
                (Some(w), Some(g)) => (w, g),
                _ => {
                    return Err(Error::value(
                        "check_vectorized",
                        format!("input {i}: a Jacobian is missing"),
                    ))
                }
            };
            if w.shape() != g.shape() {
                return Err(Error::shape(
                    "check_vectorized",
                    format!("input {i}: shapes {:?} and {:?}", w.shape(), g.shape()),
                ));
            }
            for (j, (a, b)) in g
                .to_complex_vec()
                .iter()
                .zip(w.to_complex_vec())
                .enumerate()
            {
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                if !((a - b).norm() <= rtol * (1.0 + b.norm())) {
                    let what = if batch { "batch_jacobian" } else { "jacobian" };
                    return Err(Error::value(
                        "check_vectorized",
                        format!(
                            "{what}, input {i}, element {j}: vectorised {a:e} but row by row {b:e}"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
