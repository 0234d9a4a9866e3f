//! Op functions, part three: inverse trigonometric, hyperbolic and special functions, the
//! guarded binary ops, more activations and reductions, scans, sorting, segment reductions,
//! N-d gathers and scatters, rearranging ops, cross-entropies, contractions and shuffle.
//!
//! Signatures and namespaces are TensorFlow 2.21's; every function accepts and ignores
//! `name=None`.
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use super::bindings::bindings;
use super::convert::{convert_pair, to_tensor};
use super::error::{guard, value_error};
use super::ops::{axes, axis, ints, shape, tensor, wrap, Obj, OptObj};
use super::tensor::{binary, PyTensor};
use crate::ops;
use crate::tensor::Tensor;

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
#[pyo3(signature = (x, axis=0, exclusive=false, reverse=false, name=None))]
pub fn cumsum(
    x: Obj,
    axis: isize,
    exclusive: bool,
    reverse: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::cumsum(&tensor(x)?, axis, exclusive, reverse)))
}

/// The cumulative product along `axis` (`exclusive`, `reverse` as in `cumsum`).
///
/// >>> import rustape as rt
/// >>> rt.math.cumprod([1.0, 2.0, 3.0], reverse=True).numpy().tolist()
/// [6.0, 6.0, 3.0]
#[pyfunction]
#[pyo3(signature = (x, axis=0, exclusive=false, reverse=false, name=None))]
pub fn cumprod(
    x: Obj,
    axis: isize,
    exclusive: bool,
    reverse: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::cumprod(&tensor(x)?, axis, exclusive, reverse)))
}

/// TensorFlow's `TopKV2(values, indices)` named tuple type.
fn top_k_type(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    TYPE.get_or_try_init(py, || {
        let namedtuple = py.import("collections")?.getattr("namedtuple")?;
        Ok(namedtuple
            .call1(("TopKV2", ("values", "indices")))?
            .unbind())
    })
    .map(|t| t.bind(py))
}

/// The `k` largest values along the last axis and their int32 indices, as a named tuple
/// `(values, indices)`; equal values come in order of position.
///
/// >>> import rustape as rt
/// >>> rt.math.top_k([1.0, 5.0, 3.0], k=2).indices.numpy().tolist()
/// [1, 2]
#[pyfunction]
#[pyo3(signature = (input, k=1, sorted=true, index_type=None, name=None))]
pub fn top_k<'py>(
    py: Python<'py>,
    input: Obj,
    k: usize,
    sorted: bool,
    index_type: OptObj,
    name: OptObj,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = (name, sorted);
    let (values, indices) = guard(|| Ok(ops::top_k(&tensor(input)?, k)?))?;
    let indices = match index_type.filter(|t| !t.is_none()) {
        Some(t) => {
            let dtype = super::dtype::parse_dtype(t)?;
            guard(|| Ok(ops::cast(&indices, dtype)?))?
        }
        None => indices,
    };
    top_k_type(py)?.call1((PyTensor::new(values), PyTensor::new(indices)))
}

/// `ASCENDING` or `DESCENDING` (TensorFlow's `direction`).
fn descending(direction: &str, op: &str) -> PyResult<bool> {
    match direction {
        "ASCENDING" => Ok(false),
        "DESCENDING" => Ok(true),
        other => Err(value_error(
            op,
            format!("direction must be 'ASCENDING' or 'DESCENDING', got {other:?}"),
        )),
    }
}

/// The values sorted along `axis` (stable).
///
/// >>> import rustape as rt
/// >>> rt.sort([3.0, 1.0, 2.0], direction="DESCENDING").numpy().tolist()
/// [3.0, 2.0, 1.0]
#[pyfunction]
#[pyo3(signature = (values, axis=-1, direction="ASCENDING", name=None))]
pub fn sort(values: Obj, axis: isize, direction: &str, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        wrap(ops::sort(
            &tensor(values)?,
            axis,
            descending(direction, "sort")?,
        ))
    })
}

/// The int32 indices that sort `values` along `axis` (always stable).
///
/// >>> import rustape as rt
/// >>> rt.argsort([3.0, 1.0, 2.0]).numpy().tolist()
/// [1, 2, 0]
#[pyfunction]
#[pyo3(signature = (values, axis=-1, direction="ASCENDING", stable=false, name=None))]
pub fn argsort(
    values: Obj,
    axis: isize,
    direction: &str,
    stable: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, stable);
    guard(|| {
        wrap(ops::argsort(
            &tensor(values)?,
            axis,
            descending(direction, "argsort")?,
        ))
    })
}

/// A count argument (`num_segments`) as a non-negative size.
fn count(obj: Obj, op: &str) -> PyResult<usize> {
    match ints(obj, op)?.as_slice() {
        [n] if *n >= 0 => Ok(*n as usize),
        other => Err(value_error(
            op,
            format!("expected one non-negative integer, got {other:?}"),
        )),
    }
}

macro_rules! segment {
    ($($(#[doc = $doc:literal])* $name:ident;)*) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(signature = (data, segment_ids, num_segments, name=None))]
        pub fn $name(data: Obj, segment_ids: Obj, num_segments: Obj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            guard(|| {
                let n = count(num_segments, stringify!($name))?;
                wrap(ops::$name(&tensor(data)?, &tensor(segment_ids)?, n))
            })
        }
    )*};
}

segment! {
    /// The sum of the rows of `data` in each segment (negative ids are dropped).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.unsorted_segment_sum([1.0, 2.0, 3.0], [1, 0, 1], 2).numpy().tolist()
    /// [2.0, 4.0]
    unsorted_segment_sum;
    /// The mean of the rows of `data` in each segment (0 for an empty one).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.unsorted_segment_mean([1.0, 2.0, 3.0], [1, 0, 1], 3).numpy().tolist()
    /// [2.0, 2.0, 0.0]
    unsorted_segment_mean;
    /// The maximum of the rows of `data` in each segment (the lowest value for an empty one).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.unsorted_segment_max([1.0, 2.0, 3.0], [1, 0, 1], 2).numpy().tolist()
    /// [2.0, 3.0]
    unsorted_segment_max;
}

/// The sum of the rows of `data` in each segment, for sorted segment ids.
///
/// >>> import rustape as rt
/// >>> rt.math.segment_sum([1.0, 2.0, 3.0], [0, 0, 2]).numpy().tolist()
/// [3.0, 0.0, 3.0]
#[pyfunction]
#[pyo3(signature = (data, segment_ids, name=None))]
pub fn segment_sum(data: Obj, segment_ids: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::segment_sum(&tensor(data)?, &tensor(segment_ids)?)))
}

/// The slices of `params` named by the last axis of `indices`.
///
/// >>> import rustape as rt
/// >>> rt.gather_nd([[1.0, 2.0], [3.0, 4.0]], [[1, 0], [0, 1]]).numpy().tolist()
/// [3.0, 2.0]
#[pyfunction]
#[pyo3(signature = (params, indices, batch_dims=0, name=None))]
pub fn gather_nd(params: Obj, indices: Obj, batch_dims: usize, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        wrap(ops::gather_nd(
            &tensor(params)?,
            &tensor(indices)?,
            batch_dims,
        ))
    })
}

/// Zeros of `shape` with `updates` added at `indices` (repeated indices add up).
///
/// >>> import rustape as rt
/// >>> rt.scatter_nd([[1], [3]], [5.0, 7.0], [4]).numpy().tolist()
/// [0.0, 5.0, 0.0, 7.0]
#[pyfunction]
#[pyo3(signature = (indices, updates, shape, name=None))]
pub fn scatter_nd(indices: Obj, updates: Obj, shape: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let dims = self::shape(shape, "scatter_nd")?;
        wrap(ops::scatter_nd(&tensor(indices)?, &tensor(updates)?, &dims))
    })
}

/// `tensor` with the slices at `indices` replaced by `updates`.
///
/// >>> import rustape as rt
/// >>> rt.tensor_scatter_nd_update([1.0, 2.0, 3.0], [[0]], [9.0]).numpy().tolist()
/// [9.0, 2.0, 3.0]
#[pyfunction]
#[pyo3(signature = (tensor, indices, updates, name=None))]
pub fn tensor_scatter_nd_update(
    tensor: Obj,
    indices: Obj,
    updates: Obj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (t, u) = convert_pair(tensor, updates)?;
        wrap(ops::tensor_scatter_nd_update(
            &t,
            &super::ops::tensor(indices)?,
            &u,
        ))
    })
}

/// `tensor` with `updates` added at `indices`.
///
/// >>> import rustape as rt
/// >>> rt.tensor_scatter_nd_add([1.0, 2.0, 3.0], [[0], [0]], [9.0, 1.0]).numpy().tolist()
/// [11.0, 2.0, 3.0]
#[pyfunction]
#[pyo3(signature = (tensor, indices, updates, name=None))]
pub fn tensor_scatter_nd_add(
    tensor: Obj,
    indices: Obj,
    updates: Obj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (t, u) = convert_pair(tensor, updates)?;
        wrap(ops::tensor_scatter_nd_add(
            &t,
            &super::ops::tensor(indices)?,
            &u,
        ))
    })
}

/// Splits `value` along `axis` into `num_or_size_splits` equal parts (a number) or parts of
/// the given sizes (a list; one may be -1).
///
/// >>> import rustape as rt
/// >>> [p.numpy().tolist() for p in rt.split([1.0, 2.0, 3.0], [1, -1])]
/// [[1.0], [2.0, 3.0]]
#[pyfunction]
#[pyo3(signature = (value, num_or_size_splits, axis=0, num=None, name=None))]
pub fn split(
    value: Obj,
    num_or_size_splits: Obj,
    axis: isize,
    num: Option<usize>,
    name: OptObj,
) -> PyResult<Vec<PyTensor>> {
    let _ = (name, num);
    guard(|| {
        let x = tensor(value)?;
        let ax = axis;
        let parts = match num_or_size_splits.extract::<i64>() {
            Ok(n) if n > 0 => ops::split_evenly(&x, n as usize, ax)?,
            Ok(n) => {
                return Err(value_error(
                    "split",
                    format!("num_or_size_splits must be positive, got {n}"),
                ))
            }
            Err(_) => {
                let sizes: Vec<isize> = ints(num_or_size_splits, "split")?
                    .into_iter()
                    .map(|s| s as isize)
                    .collect();
                ops::split(&x, &sizes, ax)?
            }
        };
        Ok(parts.into_iter().map(PyTensor::new).collect())
    })
}

/// The elements (or slices) of `tensor` where the bool `mask` is true.
///
/// >>> import rustape as rt
/// >>> rt.boolean_mask([1.0, 2.0, 3.0], [True, False, True]).numpy().tolist()
/// [1.0, 3.0]
#[pyfunction]
#[pyo3(signature = (tensor, mask, axis=None, name=None))]
pub fn boolean_mask(tensor: Obj, mask: Obj, axis: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let ax = match axis.filter(|a| !a.is_none()) {
            Some(a) => self::axis(a, "boolean_mask")?,
            None => 0,
        };
        let mask = to_tensor(mask, Some(crate::dtype::DType::Bool))?;
        wrap(ops::boolean_mask(&super::ops::tensor(tensor)?, &mask, ax))
    })
}

/// `tensor` with the elements along each of `axis` in reverse order.
///
/// >>> import rustape as rt
/// >>> rt.reverse([[1, 2], [3, 4]], [1]).numpy().tolist()
/// [[2, 1], [4, 3]]
#[pyfunction]
#[pyo3(signature = (tensor, axis, name=None))]
pub fn reverse(tensor: Obj, axis: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let axes: Vec<isize> = ints(axis, "reverse")?
            .into_iter()
            .map(|a| a as isize)
            .collect();
        wrap(ops::reverse(&super::ops::tensor(tensor)?, &axes))
    })
}

/// The elements shifted by `shift` along `axis`, wrapping around.
///
/// >>> import rustape as rt
/// >>> rt.roll([1, 2, 3, 4], shift=1, axis=0).numpy().tolist()
/// [4, 1, 2, 3]
#[pyfunction]
#[pyo3(signature = (input, shift, axis, name=None))]
pub fn roll(input: Obj, shift: Obj, axis: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let shifts: Vec<isize> = ints(shift, "roll")?
            .into_iter()
            .map(|a| a as isize)
            .collect();
        let axes: Vec<isize> = ints(axis, "roll")?
            .into_iter()
            .map(|a| a as isize)
            .collect();
        wrap(ops::roll(&tensor(input)?, &shifts, &axes))
    })
}

/// Each element repeated `repeats` times along `axis` (flattened when `axis` is None).
///
/// >>> import rustape as rt
/// >>> rt.repeat([1, 2], 2).numpy().tolist()
/// [1, 1, 2, 2]
#[pyfunction]
#[pyo3(signature = (input, repeats, axis=None, name=None))]
pub fn repeat(input: Obj, repeats: Obj, axis: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let counts = ints(repeats, "repeat")?
            .into_iter()
            .map(|r| {
                usize::try_from(r)
                    .map_err(|_| value_error("repeat", format!("repeats must be >= 0, got {r}")))
            })
            .collect::<PyResult<Vec<usize>>>()?;
        let ax = match axis.filter(|a| !a.is_none()) {
            Some(a) => Some(self::axis(a, "repeat")?),
            None => None,
        };
        wrap(ops::repeat(&tensor(input)?, &counts, ax))
    })
}

/// Coordinate grids from 1-D tensors; `indexing='xy'` (default) or `'ij'`.
///
/// >>> import rustape as rt
/// >>> X, Y = rt.meshgrid([1, 2, 3], [4, 5])
/// >>> X.numpy().tolist()
/// [[1, 2, 3], [1, 2, 3]]
#[pyfunction]
#[pyo3(signature = (*args, indexing="xy", name=None))]
pub fn meshgrid(
    args: &Bound<'_, PyTuple>,
    indexing: &str,
    name: OptObj,
) -> PyResult<Vec<PyTensor>> {
    let _ = name;
    guard(|| {
        let xy = match indexing {
            "xy" => true,
            "ij" => false,
            other => {
                return Err(value_error(
                    "meshgrid",
                    format!("indexing must be 'xy' or 'ij', got {other:?}"),
                ))
            }
        };
        let tensors = args
            .iter()
            .map(|a| tensor(&a))
            .collect::<PyResult<Vec<Tensor>>>()?;
        Ok(ops::meshgrid(&tensors, xy)?
            .into_iter()
            .map(PyTensor::new)
            .collect())
    })
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

/// `-sum(labels * log_softmax(logits), axis)`, computed stably.
///
/// >>> import rustape as rt
/// >>> round(float(rt.nn.softmax_cross_entropy_with_logits([0.0, 1.0], [0.0, 0.0])), 6)
/// 0.693147
#[pyfunction]
#[pyo3(signature = (labels, logits, axis=-1, name=None))]
pub fn softmax_cross_entropy_with_logits(
    labels: Obj,
    logits: Obj,
    axis: isize,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
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

/// Contracts `axes` of `a` with `axes` of `b`: an int `n` (the last `n` of `a` with the first
/// `n` of `b`) or a pair of axis lists.
///
/// >>> import rustape as rt
/// >>> float(rt.tensordot([1.0, 2.0], [3.0, 4.0], axes=1))
/// 11.0
#[pyfunction]
#[pyo3(signature = (a, b, axes, name=None))]
pub fn tensordot(a: Obj, b: Obj, axes: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (a, b) = convert_pair(a, b)?;
        if let Ok(n) = axes.extract::<i64>() {
            let n = usize::try_from(n)
                .map_err(|_| value_error("tensordot", format!("axes must be >= 0, got {n}")))?;
            return wrap(ops::tensordot_n(&a, &b, n));
        }
        let pair: Vec<Bound<'_, PyAny>> = super::convert::items(axes)?;
        let [first, second] = pair.as_slice() else {
            return Err(value_error(
                "tensordot",
                "axes must be an int or a pair of axis lists",
            ));
        };
        let list = |o: &Bound<'_, PyAny>| -> PyResult<Vec<isize>> {
            Ok(ints(o, "tensordot")?
                .into_iter()
                .map(|v| v as isize)
                .collect())
        };
        wrap(ops::tensordot(&a, &b, &list(first)?, &list(second)?))
    })
}

/// The main diagonals of the matrices in the last two axes.
///
/// >>> import rustape as rt
/// >>> rt.linalg.diag_part([[1.0, 2.0], [3.0, 4.0]]).numpy().tolist()
/// [1.0, 4.0]
#[pyfunction]
#[pyo3(signature = (input, name=None, k=0, padding_value=0.0, align=None))]
pub fn diag_part(
    input: Obj,
    name: OptObj,
    k: i64,
    padding_value: f64,
    align: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, padding_value, align);
    guard(|| {
        if k != 0 {
            return Err(value_error(
                "diag_part",
                format!("only the main diagonal (k=0) is supported, got k={k}"),
            ));
        }
        wrap(ops::diag_part(&tensor(input)?))
    })
}

/// The sum of the main diagonal of each matrix in the last two axes.
///
/// >>> import rustape as rt
/// >>> float(rt.linalg.trace([[1.0, 2.0], [3.0, 4.0]]))
/// 5.0
#[pyfunction]
#[pyo3(signature = (x, name=None))]
pub fn trace(x: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::trace(&tensor(x)?)))
}

/// `value` with its rows (first axis) in a random order; `seed` as in the other random ops.
///
/// >>> import rustape as rt
/// >>> sorted(rt.random.shuffle([1, 2, 3], seed=4).numpy().tolist())
/// [1, 2, 3]
#[pyfunction]
#[pyo3(signature = (value, seed=None, name=None))]
pub fn random_shuffle(value: Obj, seed: Option<i64>, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::shuffle(&tensor(value)?, seed.map(|s| s as u64))))
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
    fn lgamma => [math];
    fn digamma => [math];
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
    fn xdivy => [math];
    fn divide_no_nan => [math];
    fn scalar_mul => [rt, math];
    fn reduce_euclidean_norm => [math];
    fn reduce_all => [rt, math];
    fn reduce_any => [rt, math];
    fn cumsum => [rt, math];
    fn cumprod => [math];
    fn top_k => [math, nn];
    fn sort => [rt];
    fn argsort => [rt];
    fn unsorted_segment_sum => [math];
    fn unsorted_segment_mean => [math];
    fn unsorted_segment_max => [math];
    fn segment_sum => [math];
    fn gather_nd => [rt];
    fn scatter_nd => [rt];
    fn tensor_scatter_nd_update => [rt];
    fn tensor_scatter_nd_add => [rt];
    fn split => [rt];
    fn boolean_mask => [rt];
    fn reverse => [rt];
    fn roll => [rt];
    fn repeat => [rt];
    fn meshgrid => [rt];
    fn sigmoid_cross_entropy_with_logits => [nn];
    fn softmax_cross_entropy_with_logits => [nn];
    fn sparse_softmax_cross_entropy_with_logits => [nn];
    fn tensordot => [rt, linalg];
    fn diag_part => [linalg];
    fn trace => [linalg];
    fn random_shuffle => [random as shuffle];
}
