//! Op functions, part one: conversion, elementwise math, reductions, nn.
//!
//! Signatures follow TensorFlow (`rt.reduce_sum(input_tensor, axis=None, keepdims=False)`);
//! every function accepts and ignores `name=None`. Arguments where a tensor goes take anything
//! [`to_tensor`] converts; a binary op's Python operand takes the dtype of its tensor operand.
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::bindings::bindings;
use super::convert::{convert_all, convert_pair, tensorish, to_tensor};
use super::dtype::{parse_dtype, parse_optional_dtype};
use super::error::{guard, type_error, value_error};
use super::tensor::{binary, PyTensor};
use crate::dtype::DType;
use crate::ops::{self, NormOrd};
use crate::tensor::Tensor;

pub use super::args::{axes, axis, ints, number, shape, tensor, wrap, Obj, OptObj};

// ---------------------------------------------------------------------------------------
// Conversion

/// `value` as a tensor of `dtype` (when given): Python and NumPy values are converted to it
/// where TensorFlow allows; a tensor of another dtype is a TypeError.
pub fn convert_with_dtype(value: Obj, dtype: Option<DType>) -> PyResult<Tensor> {
    let t = to_tensor(value, dtype)?;
    match dtype {
        Some(d) if t.dtype() != d => Err(type_error(
            "constant",
            format!(
                "Expected tensor with dtype {d}, but got dtype {} (use rt.cast to convert)",
                t.dtype()
            ),
        )),
        _ => Ok(t),
    }
}

/// `rt.constant(value, dtype=None, shape=None)`: `shape` reshapes the value, or broadcasts a
/// one-element value (as `tf.constant`).
///
/// >>> rt.constant([1, 2, 3])
/// <rt.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>
/// >>> rt.constant(2.5, shape=[2]).numpy()
/// array([2.5, 2.5], dtype=float32)
/// >>> rt.constant([1, 2], dtype=rt.float64).dtype.name
/// 'float64'
#[pyfunction]
#[pyo3(signature = (value, dtype=None, shape=None, name=None))]
pub fn constant(value: Obj, dtype: OptObj, shape: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let t = convert_with_dtype(value, parse_optional_dtype(dtype)?)?;
        let Some(shape) = shape.filter(|s| !s.is_none()) else {
            return Ok(PyTensor::new(t));
        };
        let dims = self::shape(shape, "constant")?;
        let wanted = crate::memory::checked_size("constant", &dims)?;
        let t = if t.size() == wanted {
            let dims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
            ops::reshape(&t, &dims)?
        } else if t.size() == 1 {
            ops::broadcast_to(&ops::reshape(&t, &[])?, &dims)?
        } else {
            return Err(type_error(
                "constant",
                format!(
                    "Eager execution of rt.constant with unsupported shape. Value has {} elements, \
                     shape is {dims:?} with {wanted} elements",
                    t.size()
                ),
            ));
        };
        Ok(PyTensor::new(t))
    })
}

/// `rt.convert_to_tensor(value, dtype=None, dtype_hint=None)`.
///
/// >>> rt.convert_to_tensor([1.0, 2.0]).dtype.name
/// 'float32'
/// >>> rt.convert_to_tensor(3, dtype_hint=rt.float32).dtype.name
/// 'float32'
#[pyfunction]
#[pyo3(signature = (value, dtype=None, dtype_hint=None, name=None))]
pub fn convert_to_tensor(
    value: Obj,
    dtype: OptObj,
    dtype_hint: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        if let Some(d) = parse_optional_dtype(dtype)? {
            let t = to_tensor(value, Some(d))?;
            if t.dtype() != d {
                return Err(value_error(
                    "convert_to_tensor",
                    format!(
                        "Tensor conversion requested dtype {d} for Tensor with dtype {}",
                        t.dtype()
                    ),
                ));
            }
            return Ok(PyTensor::new(t));
        }
        if let Some(h) = parse_optional_dtype(dtype_hint)? {
            if tensorish(value).is_none() {
                if let Ok(t) = to_tensor(value, Some(h)) {
                    return Ok(PyTensor::new(t));
                }
            }
        }
        Ok(PyTensor::new(tensor(value)?))
    })
}

/// TensorFlow's warning when a cast drops imaginary parts, as NumPy's `ComplexWarning`.
fn complex_cast_warning(py: Python<'_>, from: DType, to: DType) -> PyResult<()> {
    let np = super::dtype::numpy(py)?;
    let category = match np.getattr("exceptions") {
        Ok(e) => e.getattr("ComplexWarning")?,
        Err(_) => np.getattr("ComplexWarning")?,
    };
    let message = std::ffi::CString::new(format!(
        "You are casting an input of type {from} to an incompatible dtype {to}.  This will \
         discard the imaginary part and may not be what you intended."
    ))?;
    PyErr::warn(py, &category, &message, 1)
}

/// `x` converted to `dtype` (float to int truncates towards zero; the gradient flows between
/// floating dtypes only).
///
/// >>> rt.cast([1.7, -1.7], rt.int32).numpy()
/// array([ 1, -1], dtype=int32)
#[pyfunction]
#[pyo3(signature = (x, dtype, name=None))]
pub fn cast(x: Obj, dtype: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (x, to) = (tensor(x)?, parse_dtype(dtype)?);
        if x.dtype().is_complex() && !to.is_complex() {
            complex_cast_warning(dtype.py(), x.dtype(), to)?;
        }
        wrap(ops::cast(&x, to))
    })
}

/// `input` unchanged, but no gradient flows through it.
///
/// >>> x = rt.constant(3.0)
/// >>> with rt.GradientTape() as tape:
/// ...     tape.watch(x)
/// ...     y = x * rt.stop_gradient(x)
/// >>> float(tape.gradient(y, x))
/// 3.0
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn stop_gradient(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| Ok(PyTensor::new(ops::stop_gradient(&tensor(input)?))))
}

// ---------------------------------------------------------------------------------------
// Elementwise

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident($arg:ident)),* $(,)?) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = ($arg, name=None))]
        pub fn $name($arg: Obj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            guard(|| wrap(ops::$name(&tensor($arg)?)))
        }
    )*};
}

macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (x, y, name=None))]
        pub fn $name(x: Obj, y: Obj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            binary(x, y, ops::$name)
        }
    )*};
}

unary!(
    /// `-x`, elementwise.
    ///
    /// >>> rt.negative([1.0, -2.0]).numpy()
    /// array([-1.,  2.], dtype=float32)
    negative(x),
    /// `|x|`, elementwise (the gradient at 0 is 0, as TensorFlow's).
    ///
    /// >>> rt.abs([-1.5, 2.0]).numpy()
    /// array([1.5, 2. ], dtype=float32)
    abs(x),
    /// -1, 0 or 1 by the sign of each element.
    ///
    /// >>> rt.sign([-3.0, 0.0, 2.0]).numpy()
    /// array([-1.,  0.,  1.], dtype=float32)
    sign(x),
    /// The square root, elementwise.
    ///
    /// >>> rt.sqrt([4.0, 9.0]).numpy()
    /// array([2., 3.], dtype=float32)
    sqrt(x),
    /// `x * x`, elementwise.
    ///
    /// >>> rt.square([2.0, -3.0]).numpy()
    /// array([4., 9.], dtype=float32)
    square(x),
    /// `e ** x`, elementwise.
    ///
    /// >>> rt.exp([0.0, 1.0]).numpy()
    /// array([1.       , 2.7182817], dtype=float32)
    exp(x),
    /// The natural logarithm, elementwise.
    ///
    /// >>> rt.math.log([1.0, 100.0]).numpy()
    /// array([0.       , 4.6051702], dtype=float32)
    log(x),
    /// `log(1 + x)`, accurate for small `x`.
    ///
    /// >>> float(rt.math.log1p(1e-10))
    /// 1.000000013351432e-10
    log1p(x),
    /// The sine, elementwise.
    ///
    /// >>> rt.sin([0.0, 1.5707964]).numpy()
    /// array([0., 1.], dtype=float32)
    sin(x),
    /// The cosine, elementwise.
    ///
    /// >>> rt.cos([0.0, 3.1415927]).numpy()
    /// array([ 1., -1.], dtype=float32)
    cos(x),
    /// The tangent, elementwise.
    ///
    /// >>> rt.tan([0.0, 0.7853982]).numpy()
    /// array([0., 1.], dtype=float32)
    tan(x),
    /// The hyperbolic tangent, elementwise.
    ///
    /// >>> rt.tanh([0.0, 100.0]).numpy()
    /// array([0., 1.], dtype=float32)
    tanh(x),
    /// `1 / (1 + exp(-x))`, elementwise (stable for large `|x|`).
    ///
    /// >>> rt.sigmoid([0.0, 100.0, -100.0]).numpy()
    /// array([0.5, 1. , 0. ], dtype=float32)
    sigmoid(x),
    /// `max(features, 0)`, elementwise.
    ///
    /// >>> rt.nn.relu([-1.0, 2.0]).numpy()
    /// array([0., 2.], dtype=float32)
    relu(features),
    /// `features` where positive, else `exp(features) - 1`.
    ///
    /// >>> rt.nn.elu([-1.0, 2.0]).numpy()
    /// array([-0.63212055,  2.        ], dtype=float32)
    elu(features),
    /// `log(1 + exp(features))`, stable for large inputs.
    ///
    /// >>> rt.nn.softplus([0.0, 100.0]).numpy()
    /// array([  0.6931472, 100.       ], dtype=float32)
    softplus(features),
    /// Rounds half to even, as TensorFlow and NumPy do (not differentiable: gradient None).
    ///
    /// >>> rt.round([0.5, 1.5, 2.7]).numpy()
    /// array([0., 2., 3.], dtype=float32)
    round(x),
    /// The largest integer not above each element (not differentiable: gradient None).
    ///
    /// >>> rt.floor([-1.5, 2.7]).numpy()
    /// array([-2.,  2.], dtype=float32)
    floor(x),
    /// `not x` for a bool tensor.
    ///
    /// >>> rt.logical_not([True, False]).numpy()
    /// array([False,  True])
    logical_not(x),
);

binary!(
    /// `x + y`, elementwise with NumPy broadcasting.
    ///
    /// >>> rt.add([1.0, 2.0], 10.0).numpy()
    /// array([11., 12.], dtype=float32)
    add,
    /// `x - y`, elementwise with broadcasting.
    ///
    /// >>> rt.subtract([5.0, 7.0], [1.0, 2.0]).numpy()
    /// array([4., 5.], dtype=float32)
    subtract,
    /// `x * y`, elementwise with broadcasting.
    ///
    /// >>> rt.multiply([[1.0], [2.0]], [3.0, 4.0]).numpy()
    /// array([[3., 4.],
    ///        [6., 8.]], dtype=float32)
    multiply,
    /// `x / y`, elementwise with broadcasting.
    ///
    /// >>> rt.divide([1.0, 3.0], 2.0).numpy()
    /// array([0.5, 1.5], dtype=float32)
    divide,
    /// `x ** y`, elementwise with broadcasting.
    ///
    /// >>> rt.pow([2.0, 3.0], 2.0).numpy()
    /// array([4., 9.], dtype=float32)
    pow,
    /// The larger of `x` and `y`, elementwise (ties send the gradient to `x`).
    ///
    /// >>> rt.maximum([1.0, 5.0], [3.0, 2.0]).numpy()
    /// array([3., 5.], dtype=float32)
    maximum,
    /// The smaller of `x` and `y`, elementwise (ties send the gradient to `x`).
    ///
    /// >>> rt.minimum([1.0, 5.0], [3.0, 2.0]).numpy()
    /// array([1., 2.], dtype=float32)
    minimum,
    /// `x // y`: division rounded towards minus infinity.
    ///
    /// >>> rt.math.floordiv([7, -7], 2).numpy()
    /// array([ 3, -4], dtype=int32)
    floordiv,
    /// `x % y` with the sign of `y` (Python's and TensorFlow's rule).
    ///
    /// >>> rt.math.floormod([7, -7], 3).numpy()
    /// array([1, 2], dtype=int32)
    floormod,
    /// `x == y`, elementwise (bool; not differentiable).
    ///
    /// >>> rt.equal([1, 2], [1, 3]).numpy()
    /// array([ True, False])
    equal,
    /// `x != y`, elementwise.
    ///
    /// >>> rt.not_equal([1, 2], [1, 3]).numpy()
    /// array([False,  True])
    not_equal,
    /// `x < y`, elementwise.
    ///
    /// >>> rt.less([1.0, 3.0], 2.0).numpy()
    /// array([ True, False])
    less,
    /// `x <= y`, elementwise.
    ///
    /// >>> rt.less_equal([1.0, 2.0], 2.0).numpy()
    /// array([ True,  True])
    less_equal,
    /// `x > y`, elementwise.
    ///
    /// >>> rt.greater([1.0, 3.0], 2.0).numpy()
    /// array([False,  True])
    greater,
    /// `x >= y`, elementwise.
    ///
    /// >>> rt.greater_equal([1.0, 2.0], 2.0).numpy()
    /// array([False,  True])
    greater_equal,
    /// `x and y` for bool tensors, elementwise.
    ///
    /// >>> rt.logical_and([True, True], [True, False]).numpy()
    /// array([ True, False])
    logical_and,
    /// `x or y` for bool tensors, elementwise.
    ///
    /// >>> rt.logical_or([True, False], [False, False]).numpy()
    /// array([ True, False])
    logical_or,
);

/// `rt.where(condition, x, y)`: `x` where `condition`, else `y` (broadcasting). Without `x`
/// and `y`: the coordinates of the true elements, int64 `[n, ndim]` (as `tf.where`).
///
/// The branch not taken still gets a zero gradient, and `0 * inf` is NaN: the gradient of
/// `where(x > 0, log(x), 0)` is NaN at `x = 0` (as in TensorFlow; `sqrt` is safe). Keep the bad
/// input out of the branch: `where(x > 0, log(where(x > 0, x, 1)), 0)`.
/// >>> rt.where([True, False], [1.0, 2.0], [10.0, 20.0]).numpy()
/// array([ 1., 20.], dtype=float32)
/// >>> rt.where([[True, False], [False, True]]).numpy()
/// array([[0, 0],
///        [1, 1]])
#[pyfunction(name = "where")]
#[pyo3(signature = (condition, x=None, y=None, name=None))]
pub fn where_(condition: Obj, x: OptObj, y: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let cond = to_tensor(condition, Some(DType::Bool))?;
        match (x.filter(|o| !o.is_none()), y.filter(|o| !o.is_none())) {
            (Some(x), Some(y)) => {
                let (x, y) = convert_pair(x, y)?;
                wrap(ops::where_(&cond, &x, &y))
            }
            (None, None) => wrap(ops::where_indices(&cond)),
            _ => Err(value_error(
                "where",
                "x and y must both be given, or neither",
            )),
        }
    })
}

/// `rt.clip_by_value(t, clip_value_min, clip_value_max)`.
///
/// >>> rt.clip_by_value([-2.0, 0.5, 3.0], -1.0, 1.0).numpy()
/// array([-1. ,  0.5,  1. ], dtype=float32)
#[pyfunction]
#[pyo3(signature = (t, clip_value_min, clip_value_max, name=None))]
pub fn clip_by_value(
    t: Obj,
    clip_value_min: Obj,
    clip_value_max: Obj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let all = convert_all(
            &[t.clone(), clip_value_min.clone(), clip_value_max.clone()],
            None,
        )?;
        wrap(ops::clip_by_value(&all[0], &all[1], &all[2]))
    })
}

// ---------------------------------------------------------------------------------------
// Reductions

macro_rules! reduction {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
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

reduction!(
    /// The sum over `axis` (all axes when None; pairwise summation), keeping the reduced axes as 1
    /// with `keepdims`.
    ///
    /// >>> x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    /// >>> float(rt.reduce_sum(x))
    /// 10.0
    /// >>> rt.reduce_sum(x, axis=0).numpy()
    /// array([4., 6.], dtype=float32)
    /// >>> rt.reduce_sum(x, axis=1, keepdims=True).numpy()
    /// array([[3.],
    ///        [7.]], dtype=float32)
    reduce_sum,
    /// The mean over `axis` (all axes when None).
    ///
    /// >>> rt.reduce_mean([[1.0, 2.0], [3.0, 4.0]], axis=1).numpy()
    /// array([1.5, 3.5], dtype=float32)
    reduce_mean,
    /// The maximum over `axis` (the gradient goes to the maxima, shared between ties).
    ///
    /// >>> rt.reduce_max([[1.0, 5.0], [3.0, 4.0]], axis=0).numpy()
    /// array([3., 5.], dtype=float32)
    reduce_max,
    /// The minimum over `axis` (the gradient goes to the minima, shared between ties).
    ///
    /// >>> rt.reduce_min([[1.0, 5.0], [3.0, 4.0]], axis=0).numpy()
    /// array([1., 4.], dtype=float32)
    reduce_min,
    /// The product over `axis` (its gradient is exact with zeros among the elements).
    ///
    /// >>> rt.reduce_prod([[1.0, 2.0], [3.0, 4.0]], axis=1).numpy()
    /// array([ 2., 12.], dtype=float32)
    reduce_prod,
    /// `log(sum(exp(x)))` over `axis`, without overflow.
    ///
    /// >>> float(rt.reduce_logsumexp([1000.0, 1000.0]))
    /// 1000.6931762695312
    reduce_logsumexp
);

fn arg_extremum(
    f: fn(&Tensor, isize) -> crate::Result<Tensor>,
    input: Obj,
    axis: OptObj,
    output_type: OptObj,
) -> PyResult<PyTensor> {
    guard(|| {
        let ax = match axis.filter(|a| !a.is_none()) {
            Some(a) => self::axis(a, "argmax")?,
            None => 0,
        };
        let out = f(&tensor(input)?, ax)?;
        match parse_optional_dtype(output_type)? {
            Some(d) if d != out.dtype() => wrap(ops::cast(&out, d)),
            _ => Ok(PyTensor::new(out)),
        }
    })
}

/// `rt.argmax(input, axis=None, output_type=rt.int64)` (axis None is 0, as in TensorFlow).
///
/// >>> rt.argmax([[1.0, 9.0], [8.0, 2.0]], axis=1).numpy()
/// array([1, 0])
#[pyfunction]
#[pyo3(signature = (input, axis=None, output_type=None, name=None))]
pub fn argmax(input: Obj, axis: OptObj, output_type: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    arg_extremum(ops::argmax, input, axis, output_type)
}

/// The index of the smallest element along `axis` (int64 unless `output_type`).
///
/// >>> rt.argmin([[1.0, 9.0], [8.0, 2.0]], axis=1).numpy()
/// array([0, 1])
#[pyfunction]
#[pyo3(signature = (input, axis=None, output_type=None, name=None))]
pub fn argmin(input: Obj, axis: OptObj, output_type: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    arg_extremum(ops::argmin, input, axis, output_type)
}

/// `rt.norm(tensor, ord='euclidean', axis=None, keepdims=False)`.
///
/// >>> float(rt.norm([3.0, 4.0]))
/// 5.0
/// >>> float(rt.norm([3.0, -4.0], ord=1))
/// 7.0
#[pyfunction]
#[pyo3(signature = (tensor, ord=None, axis=None, keepdims=false, name=None))]
pub fn norm(
    tensor: Obj,
    ord: OptObj,
    axis: OptObj,
    keepdims: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let ord = match ord.filter(|o| !o.is_none()) {
            None => NormOrd::Euclidean,
            Some(o) => match o.extract::<String>() {
                Ok(s) if s == "euclidean" || s == "fro" => NormOrd::Euclidean,
                Ok(s) => {
                    return Err(value_error(
                        "norm",
                        format!("ord must be 'euclidean', 'fro', or a positive number, got {s:?}"),
                    ))
                }
                Err(_) => NormOrd::P(number(o, "norm")?),
            },
        };
        let axes = axes(axis, "norm")?;
        wrap(ops::norm(
            &self::tensor(tensor)?,
            ord,
            axes.as_deref(),
            keepdims,
        ))
    })
}

// ---------------------------------------------------------------------------------------
// nn

/// `exp(logits) / sum(exp(logits))` along `axis` (the last by default), stable for large
/// logits.
///
/// >>> rt.nn.softmax([1.0, 1.0, 1000.0]).numpy()
/// array([0., 0., 1.], dtype=float32)
#[pyfunction]
#[pyo3(signature = (logits, axis=None, name=None))]
pub fn softmax(logits: Obj, axis: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let ax = match axis.filter(|a| !a.is_none()) {
            Some(a) => self::axis(a, "softmax")?,
            None => -1,
        };
        wrap(ops::softmax(&tensor(logits)?, ax))
    })
}

/// `logits - log(sum(exp(logits)))` along `axis`, stable for large logits.
///
/// >>> rt.nn.log_softmax([0.0, 0.0]).numpy()
/// array([-0.6931472, -0.6931472], dtype=float32)
#[pyfunction]
#[pyo3(signature = (logits, axis=None, name=None))]
pub fn log_softmax(logits: Obj, axis: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let ax = match axis.filter(|a| !a.is_none()) {
            Some(a) => self::axis(a, "log_softmax")?,
            None => -1,
        };
        wrap(ops::log_softmax(&tensor(logits)?, ax))
    })
}

/// `rt.clip_by_norm(t, clip_norm, axes=None)`.
///
/// >>> rt.clip_by_norm([3.0, 4.0], 1.0).numpy()
/// array([0.6, 0.8], dtype=float32)
#[pyfunction]
#[pyo3(signature = (t, clip_norm, axes=None, name=None))]
pub fn clip_by_norm(t: Obj, clip_norm: Obj, axes: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (t, c) = convert_pair(t, clip_norm)?;
        let axes = self::axes(axes, "clip_by_norm")?;
        wrap(ops::clip_by_norm(&t, &c, axes.as_deref()))
    })
}

/// `rt.moments(x, axes, keepdims=False)`: `(mean, variance)`.
///
/// >>> mean, variance = rt.nn.moments(rt.constant([1.0, 2.0, 3.0, 4.0]), axes=[0])
/// >>> float(mean), float(variance)
/// (2.5, 1.25)
#[pyfunction]
#[pyo3(signature = (x, axes, shift=None, keepdims=false, name=None))]
pub fn moments<'py>(
    py: Python<'py>,
    x: Obj,
    axes: Obj,
    shift: OptObj,
    keepdims: bool,
    name: OptObj,
) -> PyResult<Bound<'py, PyTuple>> {
    let _ = (name, shift);
    guard(|| {
        let axes: Vec<isize> = ints(axes, "moments")?
            .into_iter()
            .map(|a| a as isize)
            .collect();
        let (mean, variance) = ops::moments(&tensor(x)?, &axes, keepdims)?;
        PyTuple::new(py, [PyTensor::new(mean), PyTensor::new(variance)])
    })
}

/// `rt.batch_normalization(x, mean, variance, offset, scale, variance_epsilon)`.
///
/// >>> float(rt.nn.batch_normalization(rt.constant(3.0), 1.0, 4.0, 0.5, 2.0, 0.0))
/// 2.5
#[pyfunction]
#[pyo3(signature = (x, mean, variance, offset, scale, variance_epsilon, name=None))]
pub fn batch_normalization(
    x: Obj,
    mean: Obj,
    variance: Obj,
    offset: OptObj,
    scale: OptObj,
    variance_epsilon: Obj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let x = tensor(x)?;
        let hint = Some(x.dtype());
        let optional = |o: OptObj| -> PyResult<Option<Tensor>> {
            match o.filter(|o| !o.is_none()) {
                Some(o) => to_tensor(o, hint).map(Some),
                None => Ok(None),
            }
        };
        let (mean, variance) = (to_tensor(mean, hint)?, to_tensor(variance, hint)?);
        let (offset, scale) = (optional(offset)?, optional(scale)?);
        let eps = number(variance_epsilon, "batch_normalization")?;
        wrap(ops::batch_normalization(
            &x,
            &mean,
            &variance,
            offset.as_ref(),
            scale.as_ref(),
            eps,
        ))
    })
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn constant => [rt];
    fn convert_to_tensor => [rt];
    fn cast => [rt];
    fn stop_gradient => [rt];
    fn negative => [rt, math];
    fn abs => [rt, math];
    fn sign => [rt, math];
    fn sqrt => [rt, math];
    fn square => [rt, math];
    fn exp => [rt, math];
    fn log => [rt, math];
    fn log1p => [rt, math];
    fn sin => [rt, math];
    fn cos => [rt, math];
    fn tan => [rt, math];
    fn tanh => [rt, math, nn];
    fn sigmoid => [rt, math, nn];
    fn relu => [rt, nn];
    fn elu => [rt, nn];
    fn softplus => [rt, math, nn];
    fn round => [rt, math];
    fn floor => [rt, math];
    fn logical_not => [rt, math];
    fn add => [rt, math];
    fn subtract => [rt, math];
    fn multiply => [rt, math];
    fn divide => [rt, math];
    fn pow => [rt, math];
    fn maximum => [rt, math];
    fn minimum => [rt, math];
    fn floordiv => [rt, math];
    fn floormod => [rt, math];
    fn equal => [rt, math];
    fn not_equal => [rt, math];
    fn less => [rt, math];
    fn less_equal => [rt, math];
    fn greater => [rt, math];
    fn greater_equal => [rt, math];
    fn logical_and => [rt, math];
    fn logical_or => [rt, math];
    fn where_ => [rt];
    fn clip_by_value => [rt];
    fn reduce_sum => [rt, math];
    fn reduce_mean => [rt, math];
    fn reduce_max => [rt, math];
    fn reduce_min => [rt, math];
    fn reduce_prod => [rt, math];
    fn reduce_logsumexp => [rt, math];
    fn argmax => [rt, math];
    fn argmin => [rt, math];
    fn norm => [rt, linalg];
    fn softmax => [rt, math, nn];
    fn log_softmax => [rt, math, nn];
    fn clip_by_norm => [rt];
    fn moments => [rt, nn];
    fn batch_normalization => [rt, nn];
}
