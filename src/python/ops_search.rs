//! Op functions: searching and counting (`searchsorted`, `bincount`, `unique`, histograms).
//!
//! Signatures and namespaces are TensorFlow 2.21's; every function accepts and ignores
//! `name=None`. None of them is differentiable.
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use super::bindings::bindings;
use super::dtype::parse_optional_dtype;
use super::error::{axis_arg, count_arg, guard, number_arg, value_error};
use super::ops::{ints, number, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::ops::{self, Bincount};

/// A named tuple type made once per interpreter.
pub(super) fn named_tuple<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
    fields: &[&str],
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        let namedtuple = py.import("collections")?.getattr("namedtuple")?;
        Ok(namedtuple.call1((name, fields.to_vec()))?.unbind())
    })
    .map(|t| t.bind(py))
}

/// An optional non-negative length argument.
fn length(obj: OptObj, op: &str, what: &str) -> PyResult<Option<usize>> {
    match obj {
        Some(o) if !o.is_none() => match ints(o, op)?.as_slice() {
            [n] if *n >= 0 => Ok(Some(*n as usize)),
            other => Err(value_error(
                op,
                format!("`{what}` must be one non-negative integer, got {other:?}"),
            )),
        },
        _ => Ok(None),
    }
}

/// The positions at which `values` would be inserted into `sorted_sequence` to keep it sorted:
/// before equal elements (`side="left"`) or after them (`side="right"`). `sorted_sequence`'s
/// leading axes match `values`' (each innermost row searched for its own values), or it is 1-D.
///
/// >>> import rustape as rt
/// >>> rt.searchsorted([1.0, 2.0, 2.0, 5.0], [2.0, 3.0, 9.0]).numpy().tolist()
/// [1, 3, 4]
/// >>> rt.searchsorted([1.0, 2.0, 2.0, 5.0], [2.0], side="right").numpy().tolist()
/// [3]
#[pyfunction]
#[pyo3(signature = (sorted_sequence, values, side="left", out_type=None, name=None))]
pub fn searchsorted(
    sorted_sequence: Obj,
    values: Obj,
    side: &str,
    out_type: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let right = match side {
            "left" => false,
            "right" => true,
            other => {
                return Err(value_error(
                    "searchsorted",
                    format!("side must be 'left' or 'right', got {other:?}"),
                ))
            }
        };
        let out = parse_optional_dtype(out_type)?.unwrap_or(DType::I32);
        wrap(ops::searchsorted(
            &tensor(sorted_sequence)?,
            &tensor(values)?,
            right,
            out,
        ))
    })
}

/// How often each non-negative integer occurs in `arr`: bin `i` counts the values equal to
/// `i`, or sums their `weights`. The bins run to the largest value, at least `minlength`
/// and at most `maxlength` (larger values are not counted). `axis=-1` counts each row of a
/// 2-D `arr`; `binary_output` gives 1 where a value occurs. ValueError for negative values.
///
/// >>> import rustape as rt
/// >>> rt.math.bincount([1, 1, 3]).numpy().tolist()
/// [0, 2, 0, 1]
/// >>> rt.math.bincount([1, 1, 3], weights=[0.5, 1.0, 2.0], minlength=5).numpy().tolist()
/// [0.0, 1.5, 0.0, 2.0, 0.0]
#[pyfunction]
#[pyo3(signature = (arr, weights=None, minlength=None, maxlength=None, dtype=None, name=None, axis=None, binary_output=false))]
#[allow(clippy::too_many_arguments)]
pub fn bincount(
    arr: Obj,
    weights: OptObj,
    minlength: OptObj,
    maxlength: OptObj,
    dtype: OptObj,
    name: OptObj,
    axis: OptObj,
    binary_output: bool,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "bincount";
    guard(|| {
        let per_row = match axis {
            Some(a) if !a.is_none() => match ints(a, op)?.as_slice() {
                [0] => false,
                [-1] => true,
                other => {
                    return Err(value_error(
                        op,
                        format!("axis must be None, 0 or -1, got {other:?}"),
                    ))
                }
            },
            _ => false,
        };
        let weights = weights.filter(|w| !w.is_none()).map(tensor).transpose()?;
        let how = Bincount {
            weights: weights.as_ref(),
            minlength: length(minlength, op, "minlength")?,
            maxlength: length(maxlength, op, "maxlength")?,
            per_row,
            binary_output,
        };
        let dtype = parse_optional_dtype(dtype)?.unwrap_or(DType::I32);
        wrap(ops::bincount(&tensor(arr)?, &how, dtype))
    })
}

fn unique_parts(x: Obj, op: &str, out_idx: OptObj) -> PyResult<ops::Unique> {
    let x = tensor(x)?;
    if x.ndim() != 1 {
        return Err(value_error(
            op,
            format!("{op} expects a 1-D vector, got shape {:?}", x.shape()),
        ));
    }
    let out = parse_optional_dtype(out_idx)?.unwrap_or(DType::I32);
    Ok(ops::unique(&x, 0, false, out)?)
}

/// The distinct elements of a 1-D `x` in order of first occurrence, and for each element of
/// `x` the position of its value among them: a named tuple `(y, idx)`.
///
/// >>> import rustape as rt
/// >>> y, idx = rt.unique([4, 1, 4, 2])
/// >>> y.numpy().tolist(), idx.numpy().tolist()
/// ([4, 1, 2], [0, 1, 0, 2])
#[pyfunction]
#[pyo3(signature = (x, out_idx=None, name=None))]
pub fn unique<'py>(
    py: Python<'py>,
    x: Obj,
    out_idx: OptObj,
    name: OptObj,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = name;
    static TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let parts = guard(|| unique_parts(x, "unique", out_idx))?;
    let fields = (PyTensor::new(parts.values), PyTensor::new(parts.inverse));
    named_tuple(py, &TYPE, "Unique", &["y", "idx"])?.call1(fields)
}

/// [`unique`] with how often each distinct element occurs: a named tuple `(y, idx, count)`.
///
/// >>> import rustape as rt
/// >>> rt.unique_with_counts([4, 1, 4, 2]).count.numpy().tolist()
/// [2, 1, 1]
#[pyfunction]
#[pyo3(signature = (x, out_idx=None, name=None))]
pub fn unique_with_counts<'py>(
    py: Python<'py>,
    x: Obj,
    out_idx: OptObj,
    name: OptObj,
) -> PyResult<Bound<'py, PyAny>> {
    let _ = name;
    static TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let parts = guard(|| unique_parts(x, "unique_with_counts", out_idx))?;
    let fields = (
        PyTensor::new(parts.values),
        PyTensor::new(parts.inverse),
        PyTensor::new(parts.counts),
    );
    named_tuple(py, &TYPE, "UniqueWithCounts", &["y", "idx", "count"])?.call1(fields)
}

/// The distinct slices of `x` along `axis`, in order of first occurrence or ascending
/// (`sorted`), with the first position of each, each slice's position among them and their
/// counts (for `keras.ops.unique` and NumPy's `np.unique`).
#[pyfunction]
#[pyo3(signature = (x, axis, sorted))]
pub fn unique_slices<'py>(
    py: Python<'py>,
    x: Obj,
    axis: Obj,
    sorted: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let parts = guard(|| {
        let axis = axis_arg(axis, "unique", "axis")?;
        Ok(ops::unique(&tensor(x)?, axis, sorted, DType::I32)?)
    })?;
    PyTuple::new(
        py,
        [parts.values, parts.first, parts.inverse, parts.counts].map(PyTensor::new),
    )
}

/// A histogram's `value_range` as `(lo, hi)` and its `nbins` (100 when not given).
fn histogram_args(value_range: Obj, nbins: OptObj, op: &str) -> PyResult<(f64, f64, usize)> {
    let t = tensor(value_range)?;
    let [lo, hi] = t.to_f64_vec()[..] else {
        return Err(value_error(
            op,
            format!(
                "value_range must hold two numbers [lo, hi], got shape {:?}",
                t.shape()
            ),
        ));
    };
    let nbins = match nbins {
        None => 100,
        Some(n) => {
            let n = number(n, op)?;
            if n.fract() != 0.0 || !(1.0..=1e9).contains(&n) {
                return Err(value_error(
                    op,
                    format!("nbins must be a positive integer, got {n}"),
                ));
            }
            n as usize
        }
    };
    Ok((lo, hi, nbins))
}

/// Counts of `values` in `nbins` equal bins spanning `value_range` `[lo, hi]`; values below
/// `lo` count in the first bin, values above `hi` in the last.
///
/// >>> import rustape as rt
/// >>> rt.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0], [0.0, 2.0], nbins=4).numpy().tolist()
/// [2, 0, 0, 3]
#[pyfunction]
#[pyo3(signature = (values, value_range, nbins=None, dtype=None, name=None))]
pub fn histogram_fixed_width(
    values: Obj,
    value_range: Obj,
    nbins: OptObj,
    dtype: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "histogram_fixed_width";
    guard(|| {
        let (lo, hi, nbins) = histogram_args(value_range, nbins, op)?;
        let dtype = parse_optional_dtype(dtype)?.unwrap_or(DType::I32);
        wrap(ops::histogram_fixed_width(
            &tensor(values)?,
            lo,
            hi,
            nbins,
            dtype,
        ))
    })
}

/// The bin of each of `values` among `nbins` equal bins spanning `value_range` `[lo, hi]`
/// (clipped to the first and last bin), int32 of the values' shape.
///
/// >>> import rustape as rt
/// >>> rt.histogram_fixed_width_bins([-1.0, 0.6, 1.5, 5.0], [0.0, 2.0], nbins=4).numpy().tolist()
/// [0, 1, 3, 3]
#[pyfunction]
#[pyo3(signature = (values, value_range, nbins=None, dtype=None, name=None))]
pub fn histogram_fixed_width_bins(
    values: Obj,
    value_range: Obj,
    nbins: OptObj,
    dtype: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "histogram_fixed_width_bins";
    guard(|| {
        let (lo, hi, nbins) = histogram_args(value_range, nbins, op)?;
        let bins = ops::histogram_fixed_width_bins(&tensor(values)?, lo, hi, nbins)?;
        match parse_optional_dtype(dtype)? {
            Some(d) if d != DType::I32 => wrap(ops::cast(&bins, d)),
            _ => Ok(PyTensor::new(bins)),
        }
    })
}

/// `Discretization.adapt`'s step: the summary `(values, weights)` of the batches so far
/// merged with the summary of `data` (flattened, as float32), compressed to `epsilon`.
#[pyfunction]
pub fn quantile_summary_update(
    values: Vec<f32>,
    weights: Vec<f32>,
    data: Obj,
    epsilon: Obj,
) -> PyResult<(Vec<f32>, Vec<f32>)> {
    guard(|| {
        let op = "Discretization.adapt";
        let epsilon = number_arg(epsilon, op, "epsilon")?;
        if !(epsilon > 0.0 && epsilon <= 1.0) {
            return Err(value_error(
                op,
                format!("epsilon must be in (0, 1], got {epsilon}"),
            ));
        }
        if values.len() != weights.len() {
            return Err(value_error(op, "a summary needs one weight per value"));
        }
        let data = ops::cast(&tensor(data)?, DType::F32)?;
        let batch: Vec<f32> = data.to_f64_vec().into_iter().map(|v| v as f32).collect();
        let seen = ops::QuantileSummary { values, weights };
        let merged = ops::QuantileSummary::of(&batch, epsilon).merge(&seen, epsilon);
        Ok((merged.values, merged.weights))
    })
}

/// The boundaries of `num_bins` bins of about equal weight under the summary
/// `(values, weights)`.
#[pyfunction]
pub fn quantile_bin_boundaries(
    values: Vec<f32>,
    weights: Vec<f32>,
    num_bins: Obj,
) -> PyResult<Vec<f32>> {
    guard(|| {
        let num_bins = count_arg(num_bins, "Discretization.adapt", "num_bins")?;
        if num_bins == 0 || values.is_empty() || values.len() != weights.len() {
            return Err(value_error(
                "Discretization.adapt",
                format!(
                    "needs num_bins >= 1 and some data, got num_bins={num_bins} and {} summary \
                     points",
                    values.len()
                ),
            ));
        }
        Ok(ops::QuantileSummary { values, weights }.bin_boundaries(num_bins))
    })
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn searchsorted => [rt];
    fn bincount => [math];
    fn unique => [rt];
    fn unique_with_counts => [rt];
    fn unique_slices => [];
    fn histogram_fixed_width => [rt];
    fn histogram_fixed_width_bins => [rt];
    fn quantile_summary_update => [];
    fn quantile_bin_boundaries => [];
}
