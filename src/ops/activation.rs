//! Activations, and their gradients as single fused ops like TensorFlow's `TanhGrad`,
//! `SigmoidGrad`, `ReluGrad` and `EluGrad`: one pass over `dy` and the saved output instead of
//! two or three passes and their temporaries. Each gradient op is recorded with its own VJP
//! written in rustape ops, so second-order gradients and nested tapes still work.
//!
//! A gradient op takes the activation's output `y` and a cotangent `dy`; `dy` may carry leading
//! batch axes (a vectorised Jacobian), and `y` broadcasts against it from the right.
use super::elementwise::{
    broadcast_mixes, map_float, map_num, max_nan, rsub, scale, unary_vjp, zip, Saves,
};
use super::vmath::VMath;
use super::{
    broadcast_shapes, divide, greater, multiply, negative, scalar_like, sum_to_batched_shape,
    where_, zip_map,
};
use crate::error::Result;
use crate::tape::{input_needed, record_batched};
use crate::tensor::Tensor;

/// `tanh(x)`. Gradient `tanh_grad(y, dy) = dy * (1 - y^2)`.
pub fn tanh(x: &Tensor) -> Result<Tensor> {
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

/// Records a gradient op `g = op(y, dy)` whose VJP gives `(to_y, to_dy)` from the saved `y`,
/// `dy` and the incoming `ddg`; each is reduced to its input's shape.
fn record_grad(
    op: &'static str,
    y: &Tensor,
    dy: &Tensor,
    g: &Tensor,
    to_y: fn(&Tensor, &Tensor, &Tensor) -> Result<Option<Tensor>>,
    to_dy: fn(&Tensor, &Tensor) -> Result<Tensor>,
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
            let gy = match input_needed(0) {
                true => to_y(y, dy, ddg)?,
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
    record_grad(
        "tanh_grad",
        y,
        dy,
        &g,
        |y, dy, ddg| Ok(Some(multiply(&multiply(ddg, dy)?, &scale(y, -2.0)?)?)),
        tanh_grad,
    );
    Ok(g)
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
        |y, dy, ddg| {
            let ga = divide(ddg, y)?;
            Ok(Some(negative(&multiply(&ga, &sqrt_grad(y, dy)?)?)?))
        },
        |y, ddg| divide(ddg, &scale(y, 2.0)?),
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
        |y, dy, ddg| {
            Ok(Some(multiply(
                &multiply(ddg, dy)?,
                &rsub(1.0, &scale(y, 2.0)?)?,
            )?))
        },
        sigmoid_grad,
    );
    Ok(g)
}

/// `dy` where `y > 0`, else 0: the gradient of `y = relu(x)` (TensorFlow's `ReluGrad`). Its own
/// gradient reaches `dy` only (`y` enters through a comparison).
pub fn relu_grad(y: &Tensor, dy: &Tensor) -> Result<Tensor> {
    let g = zip!(num "relu_grad", y, dy, |p, q| if p > Default::default() { q } else { Default::default() });
    record_grad("relu_grad", y, dy, &g, |_, _, _| Ok(None), relu_grad);
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
        |y, dy, ddg| {
            // zero where y > 0; elsewhere (NaN included, as in the forward) d(dy (y + 1))/dy
            let positive = greater(y, &scalar_like(0.0, y))?;
            let g = where_(&positive, &scalar_like(0.0, y), &multiply(ddg, dy)?)?;
            Ok(Some(g))
        },
        elu_grad,
    );
    Ok(g)
}
