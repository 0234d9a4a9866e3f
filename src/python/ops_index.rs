//! Op functions, part four: sorting, segment reductions, N-d gathers and scatters,
//! rearranging ops, contractions and shuffle.
//!
//! Signatures and namespaces are TensorFlow 2.21's; every function accepts and ignores
//! `name=None`.
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use super::bindings::bindings;
use super::convert::{convert_pair, to_tensor};
use super::error::{axis_or, count_or, guard, int_arg, number_or, seed_arg, value_error};
use super::ops::{axis, ints, shape, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::ops;
use crate::tensor::Tensor;

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
#[pyo3(signature = (input, k=None, sorted=true, index_type=None, name=None),
    text_signature = "(input, k=1, sorted=True, index_type=None, name=None)"
)]
pub fn top_k<'py>(
    py: Python<'py>,
    input: Obj,
    k: OptObj,
    sorted: bool,
    index_type: OptObj,
    name: OptObj,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = (name, sorted);
    let k = count_or(k, 1, "top_k", "k")?;
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
#[pyo3(signature = (values, axis=None, direction="ASCENDING", name=None),
    text_signature = "(values, axis=-1, direction=\"ASCENDING\", name=None)"
)]
pub fn sort(values: Obj, axis: OptObj, direction: &str, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let axis = axis_or(axis, -1, "sort", "axis")?;
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
#[pyo3(signature = (values, axis=None, direction="ASCENDING", stable=false, name=None),
    text_signature = "(values, axis=-1, direction=\"ASCENDING\", stable=False, name=None)"
)]
pub fn argsort(
    values: Obj,
    axis: OptObj,
    direction: &str,
    stable: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, stable);
    guard(|| {
        let axis = axis_or(axis, -1, "argsort", "axis")?;
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
    /// The product of the rows of `data` in each segment (1 for an empty one).
    ///
    /// >>> import rustape as rt
    /// >>> rt.math.unsorted_segment_prod([2.0, 3.0, 4.0], [1, 0, 1], 3).numpy().tolist()
    /// [3.0, 8.0, 1.0]
    unsorted_segment_prod;
}

/// The product of the rows of `data` in each segment, for sorted segment ids.
///
/// >>> import rustape as rt
/// >>> rt.math.segment_prod([2.0, 3.0, 4.0], [0, 0, 2]).numpy().tolist()
/// [6.0, 1.0, 4.0]
#[pyfunction]
#[pyo3(signature = (data, segment_ids, name=None))]
pub fn segment_prod(data: Obj, segment_ids: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::segment_prod(&tensor(data)?, &tensor(segment_ids)?)))
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
#[pyo3(signature = (params, indices, batch_dims=None, name=None),
    text_signature = "(params, indices, batch_dims=0, name=None)"
)]
pub fn gather_nd(
    params: Obj,
    indices: Obj,
    batch_dims: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let batch_dims = count_or(batch_dims, 0, "gather_nd", "batch_dims")?;
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

/// `tensor` with the slices at `indices` replaced by `updates`; where indices repeat, the last
/// update wins (and only it gets a gradient).
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
#[pyo3(signature = (value, num_or_size_splits, axis=None, num=None, name=None),
    text_signature = "(value, num_or_size_splits, axis=0, num=None, name=None)"
)]
pub fn split(
    value: Obj,
    num_or_size_splits: Obj,
    axis: OptObj,
    num: OptObj,
    name: OptObj,
) -> PyResult<Vec<PyTensor>> {
    let _ = name;
    guard(|| {
        let x = tensor(value)?;
        let ax = axis_or(axis, 0, "split", "axis")?;
        count_or(num, 0, "split", "num")?;
        let whole = num_or_size_splits.is_instance_of::<pyo3::types::PyInt>();
        let parts = match whole.then(|| {
            int_arg(
                num_or_size_splits,
                "split",
                "num_or_size_splits",
                1,
                isize::MAX as i128,
            )
        }) {
            Some(n) => ops::split_evenly(&x, n? as usize, ax)?,
            None => {
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
#[pyo3(signature = (input, name=None, k=None, padding_value=None, align=None),
    text_signature = "(input, name=None, k=0, padding_value=0.0, align=None)"
)]
pub fn diag_part(
    input: Obj,
    name: OptObj,
    k: OptObj,
    padding_value: OptObj,
    align: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, align);
    guard(|| {
        let k = axis_or(k, 0, "diag_part", "k")?;
        number_or(padding_value, 0.0, "diag_part", "padding_value")?;
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

/// `value` with its rows (first axis) in a random order; `seed` as in the other random ops
/// (TensorFlow's order: its kernel's Fisher-Yates over Philox words).
///
/// >>> import rustape as rt
/// >>> sorted(rt.random.shuffle([1, 2, 3], seed=4).numpy().tolist())
/// [1, 2, 3]
#[pyfunction]
#[pyo3(signature = (value, seed=None, name=None))]
pub fn random_shuffle(value: Obj, seed: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let seed = match seed.filter(|s| !s.is_none()) {
            Some(s) => Some(seed_arg(s, "random.shuffle", "seed")?),
            None => None,
        };
        wrap(ops::shuffle(&tensor(value)?, seed))
    })
}

bindings! {
    fn top_k => [math, nn];
    fn sort => [rt];
    fn argsort => [rt];
    fn unsorted_segment_sum => [math];
    fn unsorted_segment_mean => [math];
    fn unsorted_segment_max => [math];
    fn segment_sum => [math];
    fn unsorted_segment_prod => [math];
    fn segment_prod => [math];
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
    fn tensordot => [rt, linalg];
    fn diag_part => [linalg];
    fn trace => [linalg];
    fn random_shuffle => [random as shuffle];
}
