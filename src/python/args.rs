//! How op functions read their arguments: tensors, integers, axes, shapes and numbers from
//! whatever Python passes, with errors that name the op.
use pyo3::prelude::*;

use super::convert::to_tensor;
use super::error::{type_error, value_error};
use super::tensor::PyTensor;
use crate::tensor::{Data, Tensor};

pub type Obj<'a, 'py> = &'a Bound<'py, PyAny>;
pub type OptObj<'a, 'py> = Option<&'a Bound<'py, PyAny>>;

#[inline]
pub fn tensor(obj: Obj) -> PyResult<Tensor> {
    to_tensor(obj, None)
}

#[inline]
pub fn wrap(t: crate::Result<Tensor>) -> PyResult<PyTensor> {
    Ok(PyTensor::new(t?))
}

/// Integers from an int, a list/tuple of ints, or an integer array/tensor (any shape,
/// flattened).
pub fn ints(obj: Obj, what: &str) -> PyResult<Vec<i64>> {
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(vec![v]);
    }
    let t = tensor(obj)?;
    match t.data() {
        Data::I32(a) => Ok(a.iter().map(|&v| v as i64).collect()),
        Data::I64(a) => Ok(a.iter().copied().collect()),
        _ if t.size() == 0 => Ok(Vec::new()),
        _ => Err(type_error(
            what,
            format!("expected integers, got a {} value", t.dtype()),
        )),
    }
}

/// An `axis=` argument: None (all axes), an int, or a list/tuple/tensor of ints.
pub fn axes(obj: OptObj, what: &str) -> PyResult<Option<Vec<isize>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => Ok(Some(
            ints(o, what)?.into_iter().map(|v| v as isize).collect(),
        )),
    }
}

/// One axis.
pub fn axis(obj: Obj, what: &str) -> PyResult<isize> {
    match ints(obj, what)?.as_slice() {
        [a] => Ok(*a as isize),
        other => Err(value_error(
            what,
            format!("axis must be a single integer, got {other:?}"),
        )),
    }
}

/// A shape argument: an int, a list/tuple of ints, or a 1-d integer tensor/array.
pub fn shape(obj: Obj, what: &str) -> PyResult<Vec<usize>> {
    ints(obj, what)?
        .into_iter()
        .map(|d| {
            usize::try_from(d)
                .map_err(|_| value_error(what, format!("dimensions must be >= 0, got {d}")))
        })
        .collect()
}

/// A Python number (or one-element tensor) as f64.
pub fn number(obj: Obj, what: &str) -> PyResult<f64> {
    if let Ok(v) = obj.extract::<f64>() {
        return Ok(v);
    }
    let t = tensor(obj)?;
    t.item()
        .map_err(|_| value_error(what, "expected a number or a one-element tensor"))
}
