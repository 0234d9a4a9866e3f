//! Conversions between Python strings and string tensors (`rt.string`, see `crate::text`).
//!
//! Into a tensor: `str` (encoded as UTF-8) and `bytes` scalars, nested lists/tuples whose
//! first leaf is one of them, and NumPy arrays of kind `U`, `S` or `O` (whose elements must
//! each be `str` or `bytes`). Out of one: `bytes` for a 0-d tensor, else a NumPy object array
//! of `bytes`, as TensorFlow's `.numpy()` gives.
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};

use super::convert::short_repr;
use super::dtype::numpy;
use super::error::type_error;
use crate::dtype::DType;
use crate::memory;
use crate::tensor::{Data, Tensor, Values};
use crate::text::Str;

const OP: &str = "convert_to_tensor";

/// The element a Python `str` or `bytes` (or a subclass: NumPy's `str_`, `bytes_`) stands for.
pub fn element(obj: &Bound<'_, PyAny>) -> PyResult<Option<Str>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(Str::new(s.to_cow()?.as_bytes())));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(Str::new(b.as_bytes())));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Some(Str::new(&b.to_vec())));
    }
    Ok(None)
}

fn not_a_string(obj: &Bound<'_, PyAny>) -> PyErr {
    type_error(
        OP,
        format!(
            "a string tensor holds str or bytes elements, got {} ({})",
            short_repr(obj),
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ),
    )
}

fn check_hint(obj: &Bound<'_, PyAny>, hint: Option<DType>) -> PyResult<()> {
    match hint {
        None | Some(DType::String) => Ok(()),
        Some(h) => Err(type_error(
            OP,
            format!(
                "Cannot convert {} to EagerTensor of dtype {h}",
                short_repr(obj)
            ),
        )),
    }
}

/// `obj` as a string tensor when it is one (a `str`/`bytes` scalar, a nested sequence whose
/// first leaf is a string, a NumPy string or object array); `None` otherwise.
pub fn to_string_tensor(obj: &Bound<'_, PyAny>, hint: Option<DType>) -> PyResult<Option<Tensor>> {
    if let Some(s) = element(obj)? {
        check_hint(obj, hint)?;
        return Ok(Some(Tensor::scalar(s)));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        if !first_leaf_is_string(obj)? {
            return Ok(None);
        }
        check_hint(obj, hint)?;
        let np = numpy(obj.py())?;
        let array = np.call_method1("array", (obj, "object"))?;
        return array_of_strings(&array).map(Some);
    }
    Ok(None)
}

/// Whether the first leaf of nested lists/tuples (following first items) is a string.
fn first_leaf_is_string(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let mut item = obj.clone();
    loop {
        let next = if let Ok(l) = item.cast::<PyList>() {
            if l.is_empty() {
                return Ok(false);
            }
            l.get_item(0)?
        } else if let Ok(t) = item.cast::<PyTuple>() {
            if t.is_empty() {
                return Ok(false);
            }
            t.get_item(0)?
        } else {
            return Ok(element(&item)?.is_some());
        };
        item = next;
    }
}

/// A NumPy array of kind `U`, `S` or `O` as a string tensor.
pub fn array_of_strings(array: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let n = memory::checked_size(OP, &shape)?;
    let flat = array.call_method0("ravel")?.call_method0("tolist")?;
    let flat = flat.cast::<PyList>()?;
    let mut out = memory::try_vec::<Str>(OP, n)?;
    for item in flat.iter() {
        match element(&item)? {
            Some(s) => out.push(s),
            None => return Err(not_a_string(&item)),
        }
    }
    Ok(Tensor::new(Data::from(Values::from_vec(&shape, out))))
}

/// `bytes` for a 0-d string tensor, else a NumPy object array of `bytes` (a fresh copy).
pub fn to_numpy<'py>(py: Python<'py>, values: &Values<Str>) -> PyResult<Bound<'py, PyAny>> {
    let items: Vec<Bound<'py, PyBytes>> = values
        .as_slice()
        .iter()
        .map(|s| PyBytes::new(py, s.bytes()))
        .collect();
    let np = numpy(py)?;
    let flat = np.call_method1("empty", (items.len(), "object"))?;
    for (i, b) in items.into_iter().enumerate() {
        flat.set_item(i, b)?;
    }
    flat.call_method1("reshape", (PyTuple::new(py, values.shape())?,))
}

/// The Python value of a one-element string tensor: `bytes`.
pub fn item<'py>(py: Python<'py>, values: &Values<Str>) -> Bound<'py, PyAny> {
    let s = values.as_slice().first().copied().unwrap_or_default();
    PyBytes::new(py, s.bytes()).into_any()
}
