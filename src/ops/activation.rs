//! Activations, and their gradients as single fused ops like TensorFlow's `TanhGrad`,
//! `SigmoidGrad`, `ReluGrad` and `EluGrad`: one pass over `dy` and the saved output instead of
//! two or three passes and their temporaries. Each gradient op is recorded with its own VJP
//! written in rustape ops, so second-order gradients and nested tapes still work.
//!
//! A gradient op takes the activation's output `y` and a cotangent `dy`; `dy` may carry leading
//! batch axes (a vectorised Jacobian), and `y` broadcasts against it from the right.
use super::cmath::CMath;
use super::elementwise::fused::{
    pieces, record as record_triple_product, repeated_block, Landing, OwnBuffer, Reduction, Summed,
};
use super::elementwise::{
    broadcast_mixes, map_float, map_num, max_nan, plus, rsub, scale, unary_vjp, zip, Saves,
};
use super::kernel::worth_splitting;
use super::kernel::{map_array, PAR_CHEAP, PAR_MATH};
use super::vmath::widest;
use super::vmath::VMath;
use super::{
    abs, accumulate, add, broadcast_shapes, divide, erfc, exp, greater, less, multiply, negative,
    scalar_like, square, sum_to_batched_shape, triple_product, where_, zip_map,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::tape::{input_needed, record_batched, take_running_total};
use crate::tensor::{Data, Element, Tensor, Values};
use num_traits::Float;
use std::mem::MaybeUninit;

/// `tanh(x)`. Gradient `tanh_grad(y, dy) = dy * (1 - y^2)`; for a complex `x`,
/// `dy * conj(1 - y^2)` (TensorFlow's convention, see `ops::complex`).
pub fn tanh(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        let y = Tensor::new(crate::dispatch!(values complex x.data(), "tanh", |a| {
            map_array("tanh", a, PAR_MATH, |c| c.c_tanh())?
        }));
        return unary_vjp("tanh", x, y, Saves::Output, |y, dy| {
            super::complex::mul_conj(dy, &rsub(1.0, &super::square(y)?)?)
        });
    }
    let y = map_float!(math x, "tanh", |v| v.v_tanh());
    unary_vjp("tanh", x, y, Saves::Output, tanh_grad)
}

/// `1 / (1 + e^-x)`, saturating to exactly 0 or 1 far out. Gradient
/// `sigmoid_grad(y, dy) = dy * y * (1 - y)`.
pub fn sigmoid(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "sigmoid", |v| v.v_sigmoid());
    unary_vjp("sigmoid", x, y, Saves::Output, sigmoid_grad)
}

/// `max(x, 0)` (NaN stays NaN). Gradient `relu_grad(y, dy)`: `dy` where `x > 0`, else 0.
pub fn relu(x: &Tensor) -> Result<Tensor> {
    let y = map_num!(x, "relu", |v| max_nan(v, Default::default()));
    unary_vjp("relu", x, y, Saves::Output, relu_grad)
}

/// `x` for `x > 0`, else `e^x - 1` (alpha 1). Gradient `elu_grad(y, dy)`: `dy` where `x > 0`,
/// else `dy * (y + 1)`.
pub fn elu(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "elu", |v| {
        let e = v.v_exp_m1();
        if v > 0.0 {
            v
        } else {
            e
        }
    });
    unary_vjp("elu", x, y, Saves::Output, elu_grad)
}

/// `log(1 + e^x)`, computed as `max(x, 0) + log1p(e^-|x|)` so it neither overflows nor loses
/// precision. Gradient `dy * sigmoid(x)`.
pub fn softplus(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "softplus", |v| max_nan(v, 0.0)
        + (-v.abs()).v_exp().v_ln_1p());
    unary_vjp("softplus", x, y, Saves::Input, |x, dy| {
        multiply(dy, &sigmoid(x)?)
    })
}

// ---------------------------------------------------------------------------------------------
// Fused gradients

/// The two gradients of a gradient op `op(y, dy)` from one pass, when it has such a pass and
/// the shapes suit it (`None`: each from its own ops).
type BothGrads = fn(&Tensor, &Tensor, &Tensor, usize) -> Result<Option<[Tensor; 2]>>;

/// Records a gradient op `g = op(y, dy)` whose VJP gives `(to_y, to_dy)` from the saved `y`,
/// `dy` and the incoming `ddg` (with `batch` leading axes); each is reduced to its input's
/// shape (`to_y` may return it reduced already). `both`, when both are needed, may give the
/// two at once.
fn record_grad(
    op: &'static str,
    y: &Tensor,
    dy: &Tensor,
    g: &Tensor,
    to_y: fn(&Tensor, &Tensor, &Tensor, usize) -> Result<Option<Tensor>>,
    to_dy: fn(&Tensor, &Tensor) -> Result<Tensor>,
    both: Option<BothGrads>,
) {
    let rows = broadcast_mixes(&[y, dy], g.shape());
    record_batched(
        op,
        &[y, dy],
        g,
        &[y, dy],
        rows,
        true,
        move |s, ddg, batch| {
            let (y, dy) = (&s[0], &s[1]);
            if let (Some(both), true, true) = (both, input_needed(0), input_needed(1)) {
                if let Some([gy, gdy]) = both(y, dy, ddg, batch)? {
                    return Ok(crate::grads![Some(gy), Some(gdy)]);
                }
            }
            let gy = match input_needed(0) {
                true => to_y(y, dy, ddg, batch)?,
                false => None,
            };
            let gy = match gy {
                Some(t) => Some(sum_to_batched_shape(&t, batch, y.shape())?),
                None => None,
            };
            let gdy = match input_needed(1) {
                true => Some(sum_to_batched_shape(&to_dy(y, ddg)?, batch, dy.shape())?),
                false => None,
            };
            Ok(crate::grads![gy, gdy])
        },
    );
}

/// `dy * (1 - y^2)`: the gradient of `y = tanh(x)` (TensorFlow's `TanhGrad`).
pub fn tanh_grad(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let g = zip!(float "tanh_grad", y, dy, |p, q| q * (1.0 - p * p));
    record_tanh_grad(y, dy, &g);
    Ok(g)
}

/// Records `g = tanh_grad(y, dy)` (computed already).
fn record_tanh_grad(y: &Tensor, dy: &Tensor, g: &Tensor) {
    record_grad(
        "tanh_grad",
        y,
        dy,
        g,
        // -2 y dy ddg, summed to y's shape in the same pass
        |y, dy, ddg, batch| triple_product(y, dy, ddg, -2.0, batch, y.shape()).map(Some),
        tanh_grad,
        Some(tanh_grad_grads),
    );
}

/// `tanh_grad`'s two gradients, `triple_product(y, dy, ddg, -2, ..)` for `y` and
/// `tanh_grad(y, ddg)` for `dy`, from one blocked pass over `ddg` (each recorded as that op;
/// the same numbers). Taken when `ddg` has the whole broadcast shape, `y` and `dy` repeat
/// trailing blocks of it, `dy`'s gradient needs no sum, and the work is too small to split.
fn tanh_grad_grads(
    y: &Tensor,
    dy: &Tensor,
    ddg: &Tensor,
    batch: usize,
) -> Result<Option<[Tensor; 2]>> {
    let n = ddg.size();
    if n == 0 || ddg.shape().contains(&0) || worth_splitting(n, PAR_CHEAP) {
        return Ok(None);
    }
    match ddg.dtype() {
        DType::F32 => tanh_grad_grads_typed::<f32>(y, dy, ddg, batch),
        DType::F64 => tanh_grad_grads_typed::<f64>(y, dy, ddg, batch),
        _ => Ok(None),
    }
}

fn tanh_grad_grads_typed<T: Element + Float + OwnBuffer>(
    y: &Tensor,
    dy: &Tensor,
    ddg: &Tensor,
    batch: usize,
) -> Result<Option<[Tensor; 2]>>
where
    Data: From<Values<T>>,
{
    let (Some(vy), Some(vdy), Some(vg)) = (y.values::<T>(), dy.values::<T>(), ddg.values::<T>())
    else {
        return Ok(None);
    };
    let (full, n) = (ddg.shape(), ddg.size());
    let (Some(ly), Some(ldy)) = (
        repeated_block(y.shape(), full),
        repeated_block(dy.shape(), full),
    ) else {
        return Ok(None);
    };
    let op = "tanh_grad";
    let (Some(mut to_y), Some(mut to_dy)) = (
        Summed::<T>::new(op, full, batch, y.shape())?,
        Summed::<T>::new(op, full, batch, dy.shape())?,
    ) else {
        return Ok(None);
    };
    if to_dy.block() * full[..batch].iter().product::<usize>() != n {
        return Ok(None); // dy's gradient would need a sum
    }
    let step = ly.min(ldy).min(to_y.block()).min(to_dy.block());
    // Running totals of the sweep's for y or dy are added into in the pass (a plain sweep
    // that nothing records), saving a pass over each.
    let left_y = take_running_total(0).and_then(|t| to_y.add_to(t).err());
    let left_dy = take_running_total(1).and_then(|t| to_dy.add_to(t).err());
    let (sy, sdy, sg) = (vy.as_slice(), vdy.as_slice(), vg.as_slice());
    let minus_two = T::from(-2.0).unwrap_or_else(T::nan);
    for (at, len) in pieces(n, step) {
        let (oy, ody) = (at % ly, at % ldy);
        let (py, pdy, pg) = (&sy[oy..oy + len], &sdy[ody..ody + len], &sg[at..at + len]);
        to_y.at(at, len).product(py, pdy, pg, minus_two);
        match to_dy.at(at, len) {
            Landing::First(d) => tanh_grad_write(d, py, pg),
            Landing::Later(d) => tanh_grad_add(d, py, pg),
        }
    }
    let (onto_y, onto_dy) = (to_y.onto_total(), to_dy.onto_total());
    let (mut gy, mut gdy) = (to_y.finish(), to_dy.finish());
    if !onto_y {
        let plan = Reduction::new(full, batch, y.shape())?;
        record_triple_product(y, dy, ddg, -2.0, &plan, &gy);
    }
    if !onto_dy {
        record_tanh_grad(y, ddg, &gdy);
    }
    // Totals taken but not added into (their buffers are shared): summed after.
    if let Some(total) = left_y {
        gy = accumulate(total, gy)?;
    }
    if let Some(total) = left_dy {
        gdy = accumulate(total, gdy)?;
    }
    Ok(Some([gy, gdy]))
}

// `d = g * (1 - y^2)` (tanh_grad's kernel) compiled for the widest vectors the CPU has.
widest!(fn tanh_grad_write<T: Float>(d: &mut [MaybeUninit<T>], y: &[T], g: &[T]) => tanh_grad_body, d.len());

#[inline(always)]
fn tanh_grad_body<T: Float>(d: &mut [MaybeUninit<T>], y: &[T], g: &[T]) {
    let len = d.len();
    let (y, g) = (&y[..len], &g[..len]);
    for j in 0..len {
        d[j] = MaybeUninit::new(g[j] * (T::one() - y[j] * y[j]));
    }
}

// `d += g * (1 - y^2)`: tanh_grad's kernel added into a running total.
widest!(fn tanh_grad_add<T: Float>(d: &mut [T], y: &[T], g: &[T]) => tanh_grad_add_body, d.len());

#[inline(always)]
fn tanh_grad_add_body<T: Float>(d: &mut [T], y: &[T], g: &[T]) {
    let len = d.len();
    let (y, g) = (&y[..len], &g[..len]);
    for j in 0..len {
        d[j] = d[j] + g[j] * (T::one() - y[j] * y[j]);
    }
}

/// `dy / (2 y)`, and 0 wherever `dy` is 0: the gradient of `y = sqrt(x)` (TensorFlow's
/// `SqrtGrad`). The zero where no gradient flows is what makes `where(x > 0, sqrt(x), 0)`
/// differentiable at `x <= 0` (0, not NaN), as in TensorFlow. Its own gradient is TensorFlow's
/// (`-ddg / y * g` for `y`, `ddg / (2 y)` for `dy`).
pub fn sqrt_grad(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let g = zip!(float "sqrt_grad", y, dy, |p, q| if q == 0.0 { 0.0 } else { 0.5 * q / p });
    record_grad(
        "sqrt_grad",
        y,
        dy,
        &g,
        |y, dy, ddg, _| {
            let ga = divide(ddg, y)?;
            Ok(Some(negative(&multiply(&ga, &sqrt_grad(y, dy)?)?)?))
        },
        |y, ddg| divide(ddg, &scale(y, 2.0)?),
        None,
    );
    Ok(g)
}

/// `dy * y * (1 - y)`: the gradient of `y = sigmoid(x)` (TensorFlow's `SigmoidGrad`).
pub fn sigmoid_grad(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let g = zip!(float "sigmoid_grad", y, dy, |p, q| q * (p * (1.0 - p)));
    record_grad(
        "sigmoid_grad",
        y,
        dy,
        &g,
        |y, dy, ddg, _| {
            Ok(Some(multiply(
                &multiply(ddg, dy)?,
                &rsub(1.0, &scale(y, 2.0)?)?,
            )?))
        },
        sigmoid_grad,
        None,
    );
    Ok(g)
}

/// `dy` where `y > 0`, else 0: the gradient of `y = relu(x)` (TensorFlow's `ReluGrad`). Its own
/// gradient reaches `dy` only (`y` enters through a comparison).
pub fn relu_grad(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let g = zip!(num "relu_grad", y, dy, |p, q| if p > Default::default() { q } else { Default::default() });
    record_grad(
        "relu_grad",
        y,
        dy,
        &g,
        |_, _, _, _| Ok(None),
        relu_grad,
        None,
    );
    Ok(g)
}

/// `dy` where `y > 0`, else `dy * (y + 1)`: the gradient of `y = elu(x)` (TensorFlow's
/// `EluGrad`, alpha 1).
pub fn elu_grad(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let g = zip!(float "elu_grad", y, dy, |p, q| if p > 0.0 { q } else { q * (p + 1.0) });
    record_grad(
        "elu_grad",
        y,
        dy,
        &g,
        |y, dy, ddg, _| {
            // zero where y > 0; elsewhere (NaN included, as in the forward) d(dy (y + 1))/dy
            let positive = greater(y, &scalar_like(0.0, y))?;
            let g = where_(&positive, &scalar_like(0.0, y), &multiply(ddg, dy)?)?;
            Ok(Some(g))
        },
        elu_grad,
        None,
    );
    Ok(g)
}

// ---------------------------------------------------------------------------------------------
// More activations

/// `log(sigmoid(x)) = -softplus(-x)`, computed as `min(x, 0) - log1p(e^-|x|)` (no overflow,
/// no cancellation). Gradient `dy * sigmoid(-x)`.
pub fn log_sigmoid(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "log_sigmoid", |v| {
        let lower = if v < 0.0 { v } else { 0.0 };
        lower - (-v.abs()).v_exp().v_ln_1p()
    });
    unary_vjp("log_sigmoid", x, y, Saves::Input, |x, dy| {
        multiply(dy, &sigmoid(&negative(x)?)?)
    })
}

/// `x / (1 + |x|)`. Gradient `dy / (1 + |x|)^2` (TensorFlow's `SoftsignGrad`).
pub fn softsign(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(x, "softsign", |v| v / (1.0 + v.abs()));
    unary_vjp("softsign", x, y, Saves::Input, |x, dy| {
        divide(dy, &square(&plus(&abs(x)?, 1.0)?)?)
    })
}

/// SELU's scale and `scale * alpha` (Klambauer et al., as TensorFlow has them).
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;
const SELU_SCALE_ALPHA: f64 = 1.758_099_340_847_376_9;

/// `scale * x` for `x >= 0`, else `scale * alpha * (e^x - 1)` (TensorFlow's `selu`). Gradient
/// from the output, TensorFlow's `SeluGrad`: `dy * (y + scale * alpha)` where `y < 0`, else
/// `dy * scale`.
pub fn selu(x: &Tensor) -> Result<Tensor> {
    let y = map_float!(math x, "selu", |v| {
        let e = v.v_exp_m1();
        if v < 0.0 {
            e.times(SELU_SCALE_ALPHA)
        } else {
            v.times(SELU_SCALE)
        }
    });
    unary_vjp("selu", x, y, Saves::Output, |y, dy| {
        let negative_side = less(y, &scalar_like(0.0, y))?;
        let slope = where_(
            &negative_side,
            &plus(y, SELU_SCALE_ALPHA)?,
            &scalar_like(SELU_SCALE, y),
        )?;
        multiply(dy, &slope)
    })
}

/// `√(2/π)`, and the cubic coefficient of the tanh approximation of GELU.
const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
const GELU_CUBIC: f64 = 0.044_715;

/// GELU, `x * Φ(x)` with `Φ` the standard normal CDF (`0.5 * x * erfc(-x / √2)`), or with
/// `approximate` TensorFlow's tanh form `0.5 * x * (1 + tanh(√(2/π) (x + 0.044715 x³)))`.
/// The gradient is the derivative of the formula computed, in rustape ops.
pub fn gelu(x: &Tensor, approximate: bool) -> Result<Tensor> {
    if approximate {
        let y = map_float!(math x, "gelu", |v| {
            let u = (v + (v * v * v).times(GELU_CUBIC)).times(SQRT_2_OVER_PI);
            0.5 * v * (1.0 + u.v_tanh())
        });
        return unary_vjp("gelu", x, y, Saves::Input, |x, dy| {
            // 0.5 (1 + t) + 0.5 x (1 - t^2) √(2/π) (1 + 3c x^2), t = tanh(√(2/π)(x + c x^3))
            let x2 = square(x)?;
            let inner = scale(
                &multiply(x, &plus(&scale(&x2, GELU_CUBIC)?, 1.0)?)?,
                SQRT_2_OVER_PI,
            )?;
            let t = tanh(&inner)?;
            let du = scale(&plus(&scale(&x2, 3.0 * GELU_CUBIC)?, 1.0)?, SQRT_2_OVER_PI)?;
            let left = scale(&plus(&t, 1.0)?, 0.5)?;
            let right = multiply(&scale(&multiply(x, &rsub(1.0, &square(&t)?)?)?, 0.5)?, &du)?;
            multiply(dy, &add(&left, &right)?)
        });
    }
    let y = map_float!(math x, "gelu", |v| {
        // erfc(-x/√2) rather than 1 + erf(x/√2): no cancellation for negative x (TensorFlow's)
        0.5 * v * (-v).times(std::f64::consts::FRAC_1_SQRT_2).erfc_of()
    });
    unary_vjp("gelu", x, y, Saves::Input, |x, dy| {
        // Φ(x) + x φ(x), φ(x) = e^(-x²/2) / √(2π)
        let cdf = scale(&erfc(&scale(x, -std::f64::consts::FRAC_1_SQRT_2)?)?, 0.5)?;
        let pdf = scale(
            &exp(&scale(&square(x)?, -0.5)?)?,
            0.5 * std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2,
        )?;
        multiply(dy, &add(&cdf, &multiply(x, &pdf)?)?)
    })
}

/// Constants and erfc in the element's precision, for the kernels above.
trait KernelFloat {
    /// `self * c`, `c` rounded to the element's precision.
    fn times(self, c: f64) -> Self;
    fn erfc_of(self) -> Self;
}
impl KernelFloat for f32 {
    fn times(self, c: f64) -> f32 {
        self * c as f32
    }
    fn erfc_of(self) -> f32 {
        libm::erfcf(self)
    }
}
impl KernelFloat for f64 {
    fn times(self, c: f64) -> f64 {
        self * c
    }
    fn erfc_of(self) -> f64 {
        libm::erfc(self)
    }
}
