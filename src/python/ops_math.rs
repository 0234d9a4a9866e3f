//! Op functions, part three: inverse trigonometric, hyperbolic and special functions, the
//! guarded binary ops, more activations and reductions, scans and cross-entropies (part four,
//! `ops_index.rs`, has sorting, segments, N-d gathers and scatters and rearranging ops).
//!
//! Signatures and namespaces are TensorFlow 2.21's; every function accepts and ignores
//! `name=None`.
use pyo3::prelude::*;

use super::bindings::bindings;
use super::convert::{convert_pair, to_tensor};
use super::error::{axis_or, guard, value_error};
use super::ops::{axes, tensor, wrap, Obj, OptObj};
use super::tensor::{binary, PyTensor};
use crate::ops;

macro_rules! unary {
    ($($(#[doc = $doc:literal])* $name:ident($arg:ident);)*) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(signature = ($arg, name=None))]
        pub fn $name($arg: Obj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            guard(|| wrap(ops::$name(&tensor($arg)?)))
        }
    )*};
}

macro_rules! binary {
    ($($(#[doc = $doc:literal])* $name:ident($a:ident, $b:ident);)*) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(signature = ($a, $b, name=None))]
        pub fn $name($a: Obj, $b: Obj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            binary($a, $b, ops::$name)
        }
    )*};
}

macro_rules! reduction {
    ($($(#[doc = $doc:literal])* $name:ident;)*) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(signature = (input_tensor, axis=None, keepdims=false, name=None))]
        pub fn $name(input_tensor: Obj, axis: OptObj, keepdims: bool, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            guard(|| {
                let axes = axes(axis, stringify!($name))?;
                wrap(ops::$name(&tensor(input_tensor)?, axes.as_deref(), keepdims))
            })
        }
    )*};
}

unary! {
    /// Inverse sine, elementwise (NaN outside [-1, 1]).
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.asin(1.0))
    /// 1.5707963705062866
    asin(x);
    /// Inverse cosine, elementwise (NaN outside [-1, 1]).
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.acos(1.0))
    /// 0.0
    acos(x);
    /// Inverse tangent, elementwise.
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.atan(0.0))
    /// 0.0
    atan(x);
    /// Hyperbolic sine, elementwise.
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.sinh(0.0))
    /// 0.0
    sinh(x);
    /// Hyperbolic cosine, elementwise.
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.cosh(0.0))
    /// 1.0
    cosh(x);
    /// Inverse hyperbolic sine, elementwise.
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.asinh(0.0))
    /// 0.0
    asinh(x);
    /// Inverse hyperbolic cosine, elementwise (NaN below 1).
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.acosh(1.0))
    /// 0.0
    acosh(x);
    /// Inverse hyperbolic tangent, elementwise (±inf at ±1).
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.atanh(0.0))
    /// 0.0
    atanh(x);
    /// `exp(x) - 1`, accurate for small `x`.
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.math.expm1(0.0))
    /// 0.0
    expm1(x);
    /// The error function.
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.erf(1.0)), 6)
    /// 0.842701
    erf(x);
    /// The complementary error function `1 - erf(x)`.
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.erfc(1.0)), 6)
    /// 0.157299
    erfc(x);
    /// The inverse error function: `erfinv(erf(x)) = x` (±inf at ±1, NaN outside [-1, 1]).
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.erfinv(0.5)), 6)
    /// 0.476936
    erfinv(x);
    /// `log |Γ(x)|` (inf at 0 and the negative integers).
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.math.lgamma(3.0))
    /// 0.6931471824645996
    lgamma(x);
    /// The digamma function `Γ'(x) / Γ(x)` (NaN at 0 and the negative integers).
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.digamma(1.0)), 6)
    /// -0.577216
    digamma(x);
    /// The modified Bessel function of the first kind of order 0, `I0(x)` (`tf.math.bessel_i0`).
    /// Differentiable to any order (`I0' = I1`).
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.bessel_i0(1.0)), 6)
    /// 1.266066
    bessel_i0(x);
    /// The exponentially scaled `I0`: `exp(-|x|) I0(x)`, finite for every `x`
    /// (`tf.math.bessel_i0e`).
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.bessel_i0e(1.0)), 6)
    /// 0.46576
    bessel_i0e(x);
    /// The modified Bessel function of the first kind of order 1, `I1(x)` (`tf.math.bessel_i1`).
    /// Its gradient at 0 is the derivative, 1/2 (TensorFlow's is 1 there).
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.bessel_i1(1.0)), 6)
    /// 0.565159
    bessel_i1(x);
    /// The exponentially scaled `I1`: `exp(-|x|) I1(x)` (`tf.math.bessel_i1e`).
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.bessel_i1e(1.0)), 6)
    /// 0.20791
    bessel_i1e(x);
    /// Whether each element is NaN (floating dtypes only).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.is_nan([1.0, float("nan")]).numpy().tolist()
    /// [False, True]
    is_nan(x);
    /// Whether each element is infinite (floating dtypes only).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.is_inf([1.0, float("inf")]).numpy().tolist()
    /// [False, True]
    is_inf(x);
    /// Whether each element is finite (floating dtypes only).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.is_finite([1.0, float("inf")]).numpy().tolist()
    /// [True, False]
    is_finite(x);
    /// `log(sigmoid(x))`, computed without overflow.
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.math.log_sigmoid(0.0)), 6)
    /// -0.693147
    log_sigmoid(x);
    /// `x / (1 + |x|)`.
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.nn.softsign(1.0))
    /// 0.5
    softsign(features);
    /// Scaled exponential linear unit (Klambauer et al.).
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.nn.selu(1.0)), 6)
    /// 1.050701
    selu(features);
}

binary! {
    /// The angle of the point `(x, y)`, in `(-pi, pi]`.
    ///
    /// >>> import rustape as rt
    /// >>> round(float(rt.atan2(1.0, 1.0)), 6)
    /// 0.785398
    atan2(y, x);
    /// `x * log(y)`, and 0 where `x == 0`.
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.xlogy([0.0, 2.0], [0.0, 1.0]).numpy().tolist()
    /// [0.0, 0.0]
    xlogy(x, y);
    /// The next representable number after `x1` toward `x2`, elementwise with broadcasting
    /// (float32 or float64); its gradient is `dy` to `x1` and zeros to `x2` (TensorFlow's).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.nextafter(rt.constant([1.0], rt.float64), 2.0).numpy() - 1.0
    /// array([2.22044605e-16])
    nextafter(x1, x2);
    /// `x / y`, and 0 where `x == 0`.
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.xdivy([0.0, 2.0], [0.0, 4.0]).numpy().tolist()
    /// [0.0, 0.5]
    xdivy(x, y);
    /// `x / y`, and 0 where `y == 0`.
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.divide_no_nan([1.0, 2.0], [0.0, 4.0]).numpy().tolist()
    /// [0.0, 0.5]
    divide_no_nan(x, y);
    /// `scalar * x` for a 0-d `scalar`.
    ///
    /// >>> import rustape as rt
    /// >>> rt.scalar_mul(2.0, [1.0, 3.0]).numpy().tolist()
    /// [2.0, 6.0]
    scalar_mul(scalar, x);
}

reduction! {
    /// `sqrt(sum(x**2))` over `axis`.
    ///
    /// >>> import rustape as rt
    /// >>> float(rt.math.reduce_euclidean_norm([3.0, 4.0]))
    /// 5.0
    reduce_euclidean_norm;
    /// Logical AND over `axis` (bool input).
    ///
    /// >>> import rustape as rt
    /// >>> rt.reduce_all([[True, False], [True, True]], axis=1).numpy().tolist()
    /// [False, True]
    reduce_all;
    /// Logical OR over `axis` (bool input).
    ///
    /// >>> import rustape as rt
    /// >>> bool(rt.reduce_any([False, True]))
    /// True
    reduce_any;
}

/// The polygamma function `ψ⁽ᵃ⁾(x)` for a non-negative integer order `a` (one value).
///
/// >>> import rustape as rt
/// >>> round(float(rt.math.polygamma(1.0, 1.0)), 6)
/// 1.644934
#[pyfunction]
#[pyo3(signature = (a, x, name=None))]
pub fn polygamma(a: Obj, x: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let order = to_tensor(a, None)?.to_f64_vec();
        match order.as_slice() {
            [n] if *n >= 0.0 && n.fract() == 0.0 => wrap(ops::polygamma(*n as u32, &tensor(x)?)),
            _ => Err(value_error(
                "polygamma",
                format!("the order a must be one non-negative integer, got {order:?}"),
            )),
        }
    })
}

/// GELU, `x * Phi(x)`; with `approximate=True` TensorFlow's tanh approximation.
///
/// >>> import rustape as rt
/// >>> round(float(rt.nn.gelu(1.0)), 6)
/// 0.841345
#[pyfunction]
#[pyo3(signature = (features, approximate=false, name=None))]
pub fn gelu(features: Obj, approximate: bool, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::gelu(&tensor(features)?, approximate)))
}

/// The cumulative sum along `axis` (`exclusive`: the sum before each element; `reverse`: from
/// the end).
///
/// >>> import rustape as rt
/// >>> rt.cumsum([1.0, 2.0, 3.0], exclusive=True).numpy().tolist()
/// [0.0, 1.0, 3.0]
#[pyfunction]
#[pyo3(signature = (x, axis=None, exclusive=false, reverse=false, name=None),
    text_signature = "(x, axis=0, exclusive=False, reverse=False, name=None)"
)]
pub fn cumsum(
    x: Obj,
    axis: OptObj,
    exclusive: bool,
    reverse: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let axis = axis_or(axis, 0, "cumsum", "axis")?;
    guard(|| wrap(ops::cumsum(&tensor(x)?, axis, exclusive, reverse)))
}

/// The cumulative product along `axis` (`exclusive`, `reverse` as in `cumsum`). Its gradient
/// is exact where `x` holds zeros (TensorFlow's formula gives 0 there).
///
/// >>> import rustape as rt
/// >>> rt.math.cumprod([1.0, 2.0, 3.0], reverse=True).numpy().tolist()
/// [6.0, 6.0, 3.0]
#[pyfunction]
#[pyo3(signature = (x, axis=None, exclusive=false, reverse=false, name=None),
    text_signature = "(x, axis=0, exclusive=False, reverse=False, name=None)"
)]
pub fn cumprod(
    x: Obj,
    axis: OptObj,
    exclusive: bool,
    reverse: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let axis = axis_or(axis, 0, "cumprod", "axis")?;
    guard(|| wrap(ops::cumprod(&tensor(x)?, axis, exclusive, reverse)))
}

/// `max(x, 0) - x * z + log(1 + exp(-|x|))` for logits `x` and labels `z`.
///
/// >>> import rustape as rt
/// >>> round(float(rt.nn.sigmoid_cross_entropy_with_logits(labels=1.0, logits=0.0)), 6)
/// 0.693147
#[pyfunction]
#[pyo3(signature = (labels=None, logits=None, name=None))]
pub fn sigmoid_cross_entropy_with_logits(
    labels: OptObj,
    logits: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "sigmoid_cross_entropy_with_logits";
    guard(|| match (labels, logits) {
        (Some(z), Some(x)) => {
            let (x, z) = convert_pair(x, z)?;
            wrap(ops::sigmoid_cross_entropy_with_logits(&z, &x))
        }
        _ => Err(value_error(op, "both labels and logits must be given")),
    })
}

/// `-sum(labels * log_softmax(logits), axis)`, computed stably. The logits' gradient is
/// `sum(labels) * softmax - labels`: TensorFlow's `softmax - labels` for labels that sum to 1,
/// exact for others.
///
/// >>> import rustape as rt
/// >>> round(float(rt.nn.softmax_cross_entropy_with_logits([0.0, 1.0], [0.0, 0.0])), 6)
/// 0.693147
#[pyfunction]
#[pyo3(signature = (labels, logits, axis=None, name=None),
    text_signature = "(labels, logits, axis=-1, name=None)"
)]
pub fn softmax_cross_entropy_with_logits(
    labels: Obj,
    logits: Obj,
    axis: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let axis = axis_or(axis, -1, "softmax_cross_entropy_with_logits", "axis")?;
        let (x, z) = convert_pair(logits, labels)?;
        wrap(ops::softmax_cross_entropy_with_logits(&z, &x, axis))
    })
}

/// `logsumexp(logits) - logits[label]` for integer class labels.
///
/// >>> import rustape as rt
/// >>> round(float(rt.nn.sparse_softmax_cross_entropy_with_logits(1, [0.0, 0.0])), 6)
/// 0.693147
#[pyfunction]
#[pyo3(signature = (labels, logits, name=None))]
pub fn sparse_softmax_cross_entropy_with_logits(
    labels: Obj,
    logits: Obj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        wrap(ops::sparse_softmax_cross_entropy_with_logits(
            &tensor(labels)?,
            &tensor(logits)?,
        ))
    })
}

bindings! {
    fn asin => [rt, math];
    fn acos => [rt, math];
    fn atan => [rt, math];
    fn sinh => [rt, math];
    fn cosh => [rt, math];
    fn asinh => [rt, math];
    fn acosh => [rt, math];
    fn atanh => [rt, math];
    fn expm1 => [math];
    fn erf => [math];
    fn erfc => [math];
    fn erfinv => [math];
    fn lgamma => [math];
    fn digamma => [math];
    fn bessel_i0 => [math, math.special];
    fn bessel_i0e => [math, math.special];
    fn bessel_i1 => [math, math.special];
    fn bessel_i1e => [math, math.special];
    fn polygamma => [math];
    fn is_nan => [math];
    fn is_inf => [math];
    fn is_finite => [math];
    fn log_sigmoid => [math];
    fn softsign => [math, nn];
    fn selu => [nn];
    fn gelu => [nn];
    fn atan2 => [rt, math];
    fn xlogy => [math];
    fn nextafter => [math];
    fn xdivy => [math];
    fn divide_no_nan => [math];
    fn scalar_mul => [rt, math];
    fn reduce_euclidean_norm => [math];
    fn reduce_all => [rt, math];
    fn reduce_any => [rt, math];
    fn cumsum => [rt, math];
    fn cumprod => [math];
    fn sigmoid_cross_entropy_with_logits => [nn];
    fn softmax_cross_entropy_with_logits => [nn];
    fn sparse_softmax_cross_entropy_with_logits => [nn];
}
