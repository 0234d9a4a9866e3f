//! `tensor[key]`: NumPy-style basic indexing through `ops::strided_slice` (ints, slices with
//! steps, `...`, `None`, negative indices, tuples of them), and a list/array/tensor of ints as
//! the first item through `ops::gather` on the first axis. Both are differentiable.
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PyList, PySlice, PyTuple};

use super::convert::{tensorish, to_tensor};
use super::error::type_error;
use crate::ops::{self, SliceItem};
use crate::tensor::{Data, Tensor};

const OP: &str = "__getitem__";

/// An item of the key: a basic item, or integer indices to gather on the item's axis.
enum Item {
    Basic(SliceItem),
    Gather(Tensor),
}

pub fn getitem(x: &Tensor, key: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let keys: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    let mut items = Vec::with_capacity(keys.len());
    for (position, k) in keys.iter().enumerate() {
        let item = parse_item(k)?;
        if matches!(item, Item::Gather(_)) && position != 0 {
            return Err(type_error(
                OP,
                "a list, array or tensor of indices is only supported as the first index \
                 (it gathers along the first axis)",
            ));
        }
        items.push(item);
    }
    let mut rest: Vec<SliceItem> = Vec::with_capacity(items.len());
    let mut x = x.clone();
    for item in items {
        match item {
            Item::Gather(indices) => {
                if x.ndim() == 0 {
                    return Err(PyIndexError::new_err(format!(
                        "{OP}: too many indices for a tensor of rank 0"
                    )));
                }
                let indices = wrap_negative(&indices, x.shape()[0])?;
                x = ops::gather(&x, &indices, 0, 0)?;
                // The gathered axes are taken whole by the rest of the key.
                rest.extend(std::iter::repeat_n(SliceItem::all(), indices.ndim()));
            }
            Item::Basic(b) => rest.push(b),
        }
    }
    check_bounds(x.shape(), &rest)?;
    Ok(ops::strided_slice(&x, &rest)?)
}

fn parse_item(k: &Bound<'_, PyAny>) -> PyResult<Item> {
    if k.is_none() {
        return Ok(Item::Basic(SliceItem::NewAxis));
    }
    if k.is_instance_of::<PyEllipsis>() {
        return Ok(Item::Basic(SliceItem::Ellipsis));
    }
    if let Ok(s) = k.cast::<PySlice>() {
        let bound = |name: &str| -> PyResult<Option<isize>> {
            let v = s.getattr(name)?;
            if v.is_none() {
                Ok(None)
            } else {
                index_value(&v).map(Some)
            }
        };
        let step = bound("step")?.unwrap_or(1);
        return Ok(Item::Basic(SliceItem::Range {
            start: bound("start")?,
            stop: bound("stop")?,
            step,
        }));
    }
    if k.is_instance_of::<PyBool>() {
        return Err(unsupported(k));
    }
    if k.is_instance_of::<PyInt>() {
        return Ok(Item::Basic(SliceItem::Index(index_value(k)?)));
    }
    let array_like =
        k.is_instance_of::<PyList>() || k.hasattr("__array__")? || tensorish(k).is_some();
    if array_like {
        let t = to_tensor(k, None)?;
        if !t.dtype().is_int() {
            return Err(unsupported(k));
        }
        if t.ndim() == 0 {
            return Ok(Item::Basic(SliceItem::Index(t.item()? as isize)));
        }
        return Ok(Item::Gather(t));
    }
    // NumPy integer scalars and anything else with __index__.
    match k.extract::<isize>() {
        Ok(i) => Ok(Item::Basic(SliceItem::Index(i))),
        Err(_) => Err(unsupported(k)),
    }
}

fn index_value(v: &Bound<'_, PyAny>) -> PyResult<isize> {
    if let Some(t) = tensorish(v) {
        if t.dtype().is_int() && t.size() == 1 {
            return Ok(t.item()? as isize);
        }
        return Err(unsupported(v));
    }
    match v.extract::<isize>() {
        Ok(i) => Ok(i),
        // An integer beyond isize (2**70): as far as an index goes that way, so slice bounds
        // clamp (as in NumPy) and a plain index is out of range.
        Err(_) if v.is_instance_of::<PyInt>() => {
            Ok(if v.gt(0)? { isize::MAX } else { -isize::MAX })
        }
        Err(_) => Err(unsupported(v)),
    }
}

fn unsupported(k: &Bound<'_, PyAny>) -> PyErr {
    type_error(
        OP,
        format!(
            "only integers, slices (`:`), ellipsis (`...`), None (newaxis) and integer \
             lists/arrays/tensors are valid indices, got {}",
            super::convert::short_repr(k)
        ),
    )
}

/// Negative indices count from the end, as in NumPy.
fn wrap_negative(indices: &Tensor, dim: usize) -> PyResult<Tensor> {
    let dim = dim as i64;
    let check = |v: i64| -> PyResult<i64> {
        if v < -dim || v >= dim {
            return Err(PyIndexError::new_err(format!(
                "{OP}: index {v} is out of bounds for axis 0 with size {dim}"
            )));
        }
        Ok(if v < 0 { v + dim } else { v })
    };
    let wrapped = match indices.data() {
        Data::I32(a) => {
            let values = a
                .iter()
                .map(|&v| check(v as i64).map(|v| v as i32))
                .collect::<PyResult<Vec<_>>>()?;
            Tensor::from_vec(values, indices.shape())?
        }
        Data::I64(a) => {
            let values = a.iter().map(|&v| check(v)).collect::<PyResult<Vec<_>>>()?;
            Tensor::from_vec(values, indices.shape())?
        }
        _ => return Ok(indices.clone()),
    };
    Ok(wrapped)
}

/// An integer index past the end of its axis is an IndexError (NumPy's rule, and what makes
/// Python's sequence protocol stop).
fn check_bounds(shape: &[usize], items: &[SliceItem]) -> PyResult<()> {
    let takes_axis = |i: &SliceItem| matches!(i, SliceItem::Index(_) | SliceItem::Range { .. });
    let ellipsis = items.iter().position(|i| matches!(i, SliceItem::Ellipsis));
    for (k, item) in items.iter().enumerate() {
        let SliceItem::Index(v) = *item else { continue };
        let axis = match ellipsis {
            Some(e) if k > e => {
                let after = items[k..].iter().filter(|i| takes_axis(i)).count();
                match shape.len().checked_sub(after) {
                    Some(a) => a,
                    None => continue,
                }
            }
            _ => items[..k].iter().filter(|i| takes_axis(i)).count(),
        };
        let Some(&dim) = shape.get(axis) else {
            continue;
        };
        let dim = dim as isize;
        if v < -dim || v >= dim {
            return Err(PyIndexError::new_err(format!(
                "{OP}: index {v} is out of bounds for axis {axis} with size {dim}"
            )));
        }
    }
    Ok(())
}
