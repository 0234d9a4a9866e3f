//! `tensor[key]`: NumPy-style basic indexing through `ops::strided_slice` (ints, slices with
//! steps, `...`, `None`, negative indices, tuples of them), one list/array/tensor of ints in any
//! position through `ops::gather` on its axis, and a boolean mask as the whole key through
//! `ops::boolean_mask` (TensorFlow's `x[mask]`). All are differentiable.
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PyList, PySlice, PyTuple};

use super::convert::{tensorish, to_tensor};
use super::error::type_error;
use crate::ops::{self, SliceItem};
use crate::tensor::{Data, Tensor};
use crate::DType;

const OP: &str = "__getitem__";

/// An item of the key: a basic item, integer indices to gather on the item's axis, or a
/// boolean mask (the whole key).
enum Item {
    Basic(SliceItem),
    Gather(Tensor),
    Mask(Tensor),
}

pub fn getitem(x: &Tensor, key: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let keys: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    let mut rest: Vec<SliceItem> = Vec::with_capacity(keys.len());
    // The one list/array/tensor of indices: its place in the key and the indices.
    let mut gather: Option<(usize, Tensor)> = None;
    for (position, k) in keys.iter().enumerate() {
        match parse_item(k)? {
            Item::Basic(b) => rest.push(b),
            Item::Mask(mask) if keys.len() == 1 => {
                // TensorFlow's `x[mask]`: `boolean_mask` on the leading axes.
                return Ok(ops::boolean_mask(x, &mask, 0)?);
            }
            Item::Mask(_) => {
                return Err(type_error(
                    OP,
                    "a boolean mask is only supported as the whole index (`x[mask]`)",
                ))
            }
            Item::Gather(_) if gather.is_some() => {
                return Err(type_error(
                    OP,
                    "only one list, array or tensor of indices is supported in an index (it \
                     gathers along its own axis)",
                ))
            }
            Item::Gather(indices) => {
                // The axis is taken whole by the slice, then gathered.
                gather = Some((position, indices));
                rest.push(SliceItem::all());
            }
        }
    }
    check_bounds(x.shape(), &rest)?;
    let original = x.id();
    let mut y = ops::strided_slice(x, &rest)?;
    if let Some((position, indices)) = gather {
        let axis = output_axis(x.ndim(), &rest, position);
        let indices = wrap_negative(&indices, y.shape()[axis], axis)?;
        y = ops::gather(&y, &indices, axis as isize, 0)?;
    }
    // `x[...]` (or `x[:]`) is a new tensor, as in TensorFlow: never `x` itself.
    Ok(match y.id() == original {
        true => ops::identity(&y),
        false => y,
    })
}

/// The axis of the sliced result that the key's item at `position` (a full range) became:
/// ranges and new axes before it each make one, an ellipsis as many as it spans.
fn output_axis(ndim: usize, items: &[SliceItem], position: usize) -> usize {
    let takes_axis = |i: &SliceItem| matches!(i, SliceItem::Index(_) | SliceItem::Range { .. });
    let spanned = ndim.saturating_sub(items.iter().filter(|i| takes_axis(i)).count());
    items[..position]
        .iter()
        .map(|i| match i {
            SliceItem::Index(_) => 0,
            SliceItem::Range { .. } | SliceItem::NewAxis => 1,
            SliceItem::Ellipsis => spanned,
        })
        .sum()
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
        if t.dtype() == DType::Bool && t.ndim() > 0 {
            return Ok(Item::Mask(t));
        }
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
            "only integers, slices (`:`), ellipsis (`...`), None (newaxis), integer \
             lists/arrays/tensors and boolean masks are valid indices, got {}",
            super::convert::short_repr(k)
        ),
    )
}

/// Negative indices count from the end, as in NumPy.
fn wrap_negative(indices: &Tensor, dim: usize, axis: usize) -> PyResult<Tensor> {
    let dim = dim as i64;
    let check = |v: i64| -> PyResult<i64> {
        if v < -dim || v >= dim {
            return Err(PyIndexError::new_err(format!(
                "{OP}: index {v} is out of bounds for axis {axis} with size {dim}"
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
