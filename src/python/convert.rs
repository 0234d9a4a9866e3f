//! Conversions between Python values and tensors, in one place.
//!
//! Into a tensor ([`to_tensor`]):
//! - a `Tensor` is itself; a `Variable` is a read of it (recorded and auto-watched);
//! - Python `bool` -> bool, `int` -> int32 (int64 if it does not fit), `float` -> float32,
//!   `complex` -> complex128; nested lists/tuples of them likewise (ints with floats -> float32;
//!   complex numbers with other numbers or ragged -> ValueError, as TensorFlow);
//! - NumPy arrays and scalars keep their dtype (small integer types widen to int32);
//! - with a dtype `hint` (the dtype of the tensor the value meets), numbers, lists and arrays
//!   take the hint when TensorFlow would: int -> int, float or complex, float -> float or
//!   complex, complex -> complex, bool -> bool.
//!   Anything else (`2.5` meeting int32) is TensorFlow's TypeError "Cannot convert 2.5 to
//!   EagerTensor of dtype int32". Tensors are never converted: two tensors of different
//!   dtypes meet in the op, which raises a TypeError naming both.
//!
//! Out of a tensor: [`to_numpy_copy`] (a fresh, writable array) and [`to_numpy_view`] (a
//! read-only array over the tensor's own storage, no copy).
use std::borrow::Cow;

use ndarray::ArrayD;
use num_complex::Complex;
use numpy::npyffi::{_PyArray_GET_ITEM_DATA, flags::NPY_ARRAY_WRITEABLE};
use numpy::PyArrayDescrMethods;
use numpy::{
    Element as NpElement, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
    ToPyArray,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};

use super::dtype::{numpy, numpy_type_name, SUPPORTED};
use super::error::{type_error, value_error};
use super::tensor::{read_variable, PyTensor, PyVariable};
use crate::dtype::DType;
use crate::ops;
use crate::tensor::{Data, Element, Tensor, Values};

const OP: &str = "convert_to_tensor";

/// The tensor a `Tensor` or `Variable` stands for (a variable is read); `None` for anything
/// else.
#[inline]
pub fn tensorish(obj: &Bound<'_, PyAny>) -> Option<Tensor> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(t.get().t.clone());
    }
    obj.cast::<PyVariable>().ok().map(read_variable)
}

/// The dtype of a `Tensor` or `Variable` without reading it.
pub fn dtype_of(obj: &Bound<'_, PyAny>) -> Option<DType> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(t.get().t.dtype());
    }
    obj.cast::<PyVariable>().ok().map(|v| v.get().v.dtype())
}

/// `obj` as a tensor, taking `hint` where the rules allow (see the module docs).
pub fn to_tensor(obj: &Bound<'_, PyAny>, hint: Option<DType>) -> PyResult<Tensor> {
    if let Some(t) = tensorish(obj) {
        return Ok(t);
    }
    if let Some(t) = super::text_convert::to_string_tensor(obj, hint)? {
        return Ok(t);
    }
    if obj.is_exact_instance_of::<PyFloat>() {
        return float_scalar(
            obj,
            obj.cast::<PyFloat>().map(|f| f.value()).unwrap_or(0.0),
            hint,
            Scalar::Fresh,
        );
    }
    if obj.is_exact_instance_of::<PyBool>() {
        return bool_scalar(obj, obj.is_truthy()?, hint);
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return int_scalar(obj, hint, Scalar::Fresh);
    }
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        return array_to_tensor(array, hint);
    }
    if let Ok(c) = obj.cast::<PyComplex>() {
        return complex_scalar(obj, Complex::new(c.real(), c.imag()), hint, Scalar::Fresh);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return sequence_to_tensor(obj, hint);
    }
    let py = obj.py();
    let np = numpy(py)?;
    if obj.is_instance(np_generic(py)?)? {
        let array = np.call_method1("asarray", (obj,))?;
        return array_to_tensor(array.cast::<PyUntypedArray>()?, hint);
    }
    // Subclasses of Python's scalar types (IntEnum, ...).
    if obj.is_instance_of::<PyBool>() {
        return bool_scalar(obj, obj.is_truthy()?, hint);
    }
    if obj.is_instance_of::<PyInt>() {
        return int_scalar(obj, hint, Scalar::Fresh);
    }
    if obj.is_instance_of::<PyFloat>() {
        return float_scalar(obj, obj.extract::<f64>()?, hint, Scalar::Fresh);
    }
    // Array-likes (objects with __array__, buffers).
    if obj.hasattr("__array__")? || obj.hasattr("__array_interface__")? {
        let array = np.call_method1("asarray", (obj,))?;
        if let Ok(array) = array.cast::<PyUntypedArray>() {
            return array_to_tensor(array, hint);
        }
    }
    Err(type_error(
        OP,
        format!(
            "Attempt to convert a value ({}) with an unsupported type ({}) to a Tensor",
            short_repr(obj),
            obj.get_type().repr()?
        ),
    ))
}

/// Two operands of a binary op: the first `Tensor`/`Variable` among them gives the dtype the
/// other takes. Two plain Python values: each converts alone, and if the dtypes differ the
/// int one takes the float one's dtype (`maximum(1, 2.5)` is float32).
pub fn convert_pair<'a>(
    a: &'a Bound<'_, PyAny>,
    b: &'a Bound<'_, PyAny>,
) -> PyResult<(Cow<'a, Tensor>, Cow<'a, Tensor>)> {
    match (borrowed_tensor(a), borrowed_tensor(b)) {
        (Some(x), Some(y)) => Ok((x, y)),
        (Some(x), None) => {
            let y = operand(b, x.dtype())?;
            Ok((x, Cow::Owned(y)))
        }
        (None, Some(y)) => Ok((Cow::Owned(operand(a, y.dtype())?), y)),
        (None, None) => {
            let (x, y) = (to_tensor(a, None)?, to_tensor(b, None)?);
            if x.dtype() == y.dtype() {
                return Ok((Cow::Owned(x), Cow::Owned(y)));
            }
            if let Ok(x2) = to_tensor(a, Some(y.dtype())) {
                return Ok((Cow::Owned(x2), Cow::Owned(y)));
            }
            let y2 = to_tensor(b, Some(x.dtype()))?;
            Ok((Cow::Owned(x), Cow::Owned(y2)))
        }
    }
}

/// [`tensorish`] without a reference-count bump for a `Tensor` object (the operator fast path).
fn borrowed_tensor<'a>(obj: &'a Bound<'_, PyAny>) -> Option<Cow<'a, Tensor>> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(Cow::Borrowed(&t.get().t));
    }
    obj.cast::<PyVariable>()
        .ok()
        .map(|v| Cow::Owned(read_variable(v)))
}

/// The other operand of a binary op whose tensor operand has `dtype`. A Python float or int
/// (`y * 0.5`, `x + 1`) becomes a shared scalar: it is an operand only, never returned to the
/// user, so nobody can watch it, and a loop repeating it costs no allocation.
fn operand(obj: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Tensor> {
    if let Ok(f) = obj.cast_exact::<PyFloat>() {
        return float_scalar(obj, f.value(), Some(dtype), Scalar::Shared);
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return int_scalar(obj, Some(dtype), Scalar::Shared);
    }
    if let Ok(c) = obj.cast_exact::<PyComplex>() {
        let v = Complex::new(c.real(), c.imag());
        return complex_scalar(obj, v, Some(dtype), Scalar::Shared);
    }
    to_tensor(obj, Some(dtype))
}

/// Several operands sharing a dtype (concat, stack, where, ...): the first `Tensor`/`Variable`
/// gives the hint for the rest.
pub fn convert_all(objs: &[Bound<'_, PyAny>], hint: Option<DType>) -> PyResult<Vec<Tensor>> {
    let hint = hint.or_else(|| objs.iter().find_map(dtype_of));
    objs.iter().map(|o| to_tensor(o, hint)).collect()
}

/// The items of a list argument: a list, a tuple or any other iterable but a string; a single
/// `Tensor` or `Variable` is a list of one.
pub fn items<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(l) = obj.cast::<PyList>() {
        return Ok(l.iter().collect());
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return Ok(t.iter().collect());
    }
    if obj.is_instance_of::<PyTensor>() || obj.is_instance_of::<PyVariable>() {
        return Ok(vec![obj.clone()]);
    }
    let not_a_list = || {
        type_error(
            OP,
            format!("expected a list or tuple, got {}", short_repr(obj)),
        )
    };
    if obj.is_instance_of::<PyString>() {
        return Err(not_a_list());
    }
    obj.try_iter().map_err(|_| not_a_list())?.collect()
}

static NP_GENERIC: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn np_generic(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    NP_GENERIC.import(py, "numpy", "generic")
}

/// A repr short enough for an error message.
pub fn short_repr(obj: &Bound<'_, PyAny>) -> String {
    let text = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<object>".into());
    if text.chars().count() > 200 {
        let head: String = text.chars().take(200).collect();
        format!("{head}...")
    } else {
        text
    }
}

fn cannot_convert(obj: &Bound<'_, PyAny>, dtype: DType) -> PyErr {
    type_error(
        OP,
        format!(
            "Cannot convert {} to EagerTensor of dtype {dtype}",
            short_repr(obj)
        ),
    )
}

/// Whether a Python number becomes a tensor of its own or the thread's shared constant
/// (`Tensor::shared_scalar`, for operands no user can reach).
#[derive(Clone, Copy)]
enum Scalar {
    Fresh,
    Shared,
}

impl Scalar {
    fn of<T: Element>(self, v: T) -> Tensor {
        match self {
            Scalar::Fresh => Tensor::scalar(v),
            Scalar::Shared => Tensor::shared_scalar(v),
        }
    }
}

fn float_scalar(
    obj: &Bound<'_, PyAny>,
    v: f64,
    hint: Option<DType>,
    make: Scalar,
) -> PyResult<Tensor> {
    match hint {
        None | Some(DType::F32) => Ok(make.of(v as f32)),
        Some(DType::F64) => Ok(make.of(v)),
        Some(DType::Complex64) => Ok(make.of(Complex::new(v as f32, 0.0))),
        Some(DType::Complex128) => Ok(make.of(Complex::new(v, 0.0))),
        Some(d) => Err(cannot_convert(obj, d)),
    }
}

/// A Python `complex`: complex128 by itself (as TensorFlow), or the complex dtype it meets.
fn complex_scalar(
    obj: &Bound<'_, PyAny>,
    v: Complex<f64>,
    hint: Option<DType>,
    make: Scalar,
) -> PyResult<Tensor> {
    match hint {
        None | Some(DType::Complex128) => Ok(make.of(v)),
        Some(DType::Complex64) => Ok(make.of(Complex::new(v.re as f32, v.im as f32))),
        Some(d) => Err(cannot_convert(obj, d)),
    }
}

fn bool_scalar(obj: &Bound<'_, PyAny>, v: bool, hint: Option<DType>) -> PyResult<Tensor> {
    match hint {
        None | Some(DType::Bool) => Ok(Tensor::scalar(v)),
        Some(d) => Err(cannot_convert(obj, d)),
    }
}

fn int_value(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    obj.extract::<i64>().map_err(|_| {
        value_error(
            OP,
            format!(
                "Can't convert Python int {} to a Tensor: out of the int64 range",
                short_repr(obj)
            ),
        )
    })
}

fn int_scalar(obj: &Bound<'_, PyAny>, hint: Option<DType>, make: Scalar) -> PyResult<Tensor> {
    let v = int_value(obj)?;
    match hint {
        None => Ok(match i32::try_from(v) {
            Ok(small) => make.of(small),
            Err(_) => make.of(v),
        }),
        Some(DType::I32) => match i32::try_from(v) {
            Ok(small) => Ok(make.of(small)),
            Err(_) => Err(value_error(
                OP,
                format!("Can't convert Python int {v} to int32: out of range"),
            )),
        },
        Some(DType::I64) => Ok(make.of(v)),
        Some(DType::F32) => Ok(make.of(v as f32)),
        Some(DType::F64) => Ok(make.of(v as f64)),
        Some(DType::Complex64) => Ok(make.of(Complex::new(v as f32, 0.0))),
        Some(DType::Complex128) => Ok(make.of(Complex::new(v as f64, 0.0))),
        Some(d @ (DType::Bool | DType::String)) => Err(cannot_convert(obj, d)),
    }
}

/// May a value whose own dtype is `natural` take `target`? TensorFlow's rule: int -> int,
/// int or float -> float, int, float or complex -> complex, and bool only to bool.
fn compatible(natural: DType, target: DType) -> bool {
    natural == target
        || (target.is_int() && natural.is_int())
        || (target.is_float() && (natural.is_float() || natural.is_int()))
        || (target.is_complex() && natural != DType::Bool)
}

// ---------------------------------------------------------------------------------------
// NumPy arrays

/// The dtype a NumPy array converts to by itself (`None`: unsupported).
fn natural_dtype(kind: u8, itemsize: usize) -> Option<DType> {
    Some(match (kind, itemsize) {
        (b'f', 4) => DType::F32,
        (b'f', 8) => DType::F64,
        (b'i', 8) => DType::I64,
        (b'i', 1 | 2 | 4) => DType::I32,
        (b'u', 1 | 2) => DType::I32,
        (b'u', 4) => DType::I64,
        (b'b', 1) => DType::Bool,
        (b'c', 8) => DType::Complex64,
        (b'c', 16) => DType::Complex128,
        _ => return None,
    })
}

fn array_to_tensor(array: &Bound<'_, PyUntypedArray>, hint: Option<DType>) -> PyResult<Tensor> {
    let descr = array.dtype();
    if matches!(descr.kind(), b'U' | b'S' | b'O') {
        if let Some(h) = hint.filter(|&h| h != DType::String) {
            return Err(cannot_convert(array.as_any(), h));
        }
        return super::text_convert::array_of_strings(array.as_any());
    }
    let natural = natural_dtype(descr.kind(), descr.itemsize()).ok_or_else(|| {
        let name = descr.str().map(|s| s.to_string()).unwrap_or_default();
        type_error(
            OP,
            format!("NumPy arrays of dtype {name} are not supported (supported: {SUPPORTED})"),
        )
    })?;
    let dtype = match hint {
        Some(h) if compatible(natural, h) => h,
        Some(h) => return Err(cannot_convert(array.as_any(), h)),
        None => natural,
    };
    Ok(Tensor::new(match dtype {
        DType::F32 => Data::F32(extract::<f32>(array)?),
        DType::F64 => Data::F64(extract::<f64>(array)?),
        DType::I32 => Data::I32(extract::<i32>(array)?),
        DType::I64 => Data::I64(extract::<i64>(array)?),
        DType::Bool => Data::Bool(extract::<bool>(array)?),
        DType::Complex64 => Data::C64(extract::<Complex<f32>>(array)?),
        DType::Complex128 => Data::from(extract::<Complex<f64>>(array)?),
        DType::String => return Err(cannot_convert(array.as_any(), dtype)),
    }))
}

/// A copy of the array's elements as `T` (after a NumPy `astype` when its dtype is another
/// one, or not in native byte order), in row-major layout whatever the array's strides.
fn extract<T: NpElement + Element>(array: &Bound<'_, PyUntypedArray>) -> PyResult<Values<T>> {
    if array.is_empty() {
        // No elements to read: NumPy gives empty arrays strides that ndarray's views refuse
        // (`np.array([]).reshape(0, 4)` has strides (16, 4)), so no view is made at all.
        let empty = ArrayD::from_shape_vec(ndarray::IxDyn(array.shape()), Vec::new())
            .map_err(|e| value_error(OP, e.to_string()))?;
        return Ok(Values::from_array(empty));
    }
    let typed = match array.cast::<PyArrayDyn<T>>() {
        Ok(typed) => typed.clone(),
        Err(_) => {
            let name = numpy_type_name(T::DTYPE);
            let np = numpy(array.py())?;
            let converted = array.call_method1("astype", (np.getattr(name)?,))?;
            converted.cast_into::<PyArrayDyn<T>>()?
        }
    };
    let readonly = typed
        .try_readonly()
        .map_err(|e| value_error(OP, e.to_string()))?;
    let view = readonly.as_array();
    let owned: ArrayD<T> = if view.is_standard_layout() {
        view.to_owned()
    } else {
        view.as_standard_layout().into_owned()
    };
    Ok(Values::from_array(owned))
}

// ---------------------------------------------------------------------------------------
// Nested Python sequences

enum Leaf {
    Bool(bool),
    Int(i64),
    Float(f64),
    Complex(Complex<f64>),
}

fn ragged() -> PyErr {
    value_error(
        OP,
        "Can't convert non-rectangular Python sequence to Tensor.",
    )
}

/// Flattens nested lists/tuples of exact Python scalars: the shape and the leaves in row-major
/// order. `None` when some leaf is something else (a tensor, a NumPy value): the caller then
/// converts element by element. An explicit stack, so deep nesting cannot overflow ours.
fn flatten(root: &Bound<'_, PyAny>) -> PyResult<Option<(Vec<usize>, Vec<Leaf>)>> {
    fn as_seq<'py>(obj: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
        if let Ok(l) = obj.cast::<PyList>() {
            Some(l.iter().collect())
        } else if let Ok(t) = obj.cast::<PyTuple>() {
            Some(t.iter().collect())
        } else {
            None
        }
    }
    let mut shape: Vec<usize> = Vec::new();
    let mut leaves: Vec<Leaf> = Vec::new();
    let mut leaf_depth: Option<usize> = None;
    // (items of a sequence, next index); the stack's length is the depth of those items.
    let mut stack: Vec<(Vec<Bound<'_, PyAny>>, usize)> = Vec::new();
    let first = as_seq(root).unwrap_or_default();
    shape.push(first.len());
    stack.push((first, 0));
    while let Some((items, next)) = stack.last_mut() {
        if *next == items.len() {
            stack.pop();
            continue;
        }
        let item = items[*next].clone();
        *next += 1;
        let depth = stack.len();
        if let Some(sub) = as_seq(&item) {
            if leaf_depth == Some(depth) {
                return Err(ragged());
            }
            if shape.len() == depth {
                shape.push(sub.len());
            } else if shape[depth] != sub.len() {
                return Err(ragged());
            }
            stack.push((sub, 0));
            continue;
        }
        if shape.len() != depth || leaf_depth.is_some_and(|d| d != depth) {
            return Err(ragged());
        }
        leaf_depth = Some(depth);
        let leaf = if item.is_exact_instance_of::<PyFloat>() {
            Leaf::Float(item.extract()?)
        } else if item.is_exact_instance_of::<PyBool>() {
            Leaf::Bool(item.is_truthy()?)
        } else if item.is_exact_instance_of::<PyInt>() {
            Leaf::Int(int_value(&item)?)
        } else if let Ok(c) = item.cast_exact::<PyComplex>() {
            Leaf::Complex(Complex::new(c.real(), c.imag()))
        } else {
            return Ok(None);
        };
        leaves.push(leaf);
    }
    Ok(Some((shape, leaves)))
}

fn sequence_to_tensor(obj: &Bound<'_, PyAny>, hint: Option<DType>) -> PyResult<Tensor> {
    let Some((shape, leaves)) = flatten(obj)? else {
        return mixed_sequence_to_tensor(obj, hint);
    };
    let (mut bools, mut ints, mut floats, mut complexes) = (false, false, false, false);
    let mut wide = false;
    for leaf in &leaves {
        match leaf {
            Leaf::Bool(_) => bools = true,
            Leaf::Int(v) => {
                ints = true;
                wide |= i32::try_from(*v).is_err();
            }
            Leaf::Float(_) => floats = true,
            Leaf::Complex(_) => complexes = true,
        }
    }
    // TensorFlow takes a sequence's dtype from its first element: after a complex one every
    // number (bools too) converts to complex128; a complex one after a real one is an error.
    let complex_first = matches!(leaves.first(), Some(Leaf::Complex(_)));
    if complexes && !complex_first && (bools || ints || floats) {
        return Err(value_error(
            OP,
            "Can't convert Python sequence with mixed types to Tensor.",
        ));
    }
    if !complexes && bools && (ints || floats) {
        return Err(type_error(
            OP,
            format!(
                "Can't convert {} to a Tensor: it mixes bools and numbers",
                short_repr(obj)
            ),
        ));
    }
    let natural = if complexes {
        DType::Complex128
    } else if bools {
        DType::Bool
    } else if floats || !ints {
        DType::F32
    } else if wide {
        DType::I64
    } else {
        DType::I32
    };
    let dtype = match hint {
        // An empty list takes any dtype.
        Some(h) if leaves.is_empty() || compatible(natural, h) => h,
        Some(h) => return Err(cannot_convert(obj, h)),
        None => natural,
    };
    if dtype == DType::I32 && wide {
        return Err(value_error(
            OP,
            format!(
                "Can't convert {} to int32: a value is out of range",
                short_repr(obj)
            ),
        ));
    }
    fn build<T: Element>(
        shape: &[usize],
        leaves: &[Leaf],
        f: impl Fn(&Leaf) -> T,
    ) -> PyResult<Tensor> {
        Ok(Tensor::from_vec(leaves.iter().map(f).collect(), shape)?)
    }
    let as_f64 = |l: &Leaf| match *l {
        Leaf::Float(v) => v,
        Leaf::Int(v) => v as f64,
        Leaf::Bool(v) => f64::from(u8::from(v)),
        Leaf::Complex(v) => v.re,
    };
    let as_i64 = |l: &Leaf| match *l {
        Leaf::Int(v) => v,
        Leaf::Float(v) => v as i64,
        Leaf::Bool(v) => i64::from(v),
        Leaf::Complex(v) => v.re as i64,
    };
    let as_complex = |l: &Leaf| match *l {
        Leaf::Complex(v) => v,
        _ => Complex::new(as_f64(l), 0.0),
    };
    match dtype {
        DType::F32 => build(&shape, &leaves, |l| as_f64(l) as f32),
        DType::F64 => build(&shape, &leaves, as_f64),
        DType::I32 => build(&shape, &leaves, |l| as_i64(l) as i32),
        DType::I64 => build(&shape, &leaves, as_i64),
        DType::Bool => build(&shape, &leaves, |l| matches!(l, Leaf::Bool(true))),
        DType::Complex64 => build(&shape, &leaves, |l| {
            let v = as_complex(l);
            Complex::new(v.re as f32, v.im as f32)
        }),
        DType::Complex128 => build(&shape, &leaves, as_complex),
        // Only an empty sequence gets here with strings (strings take text_convert's path).
        DType::String if leaves.is_empty() => {
            build(&shape, &leaves, |_| crate::text::Str::default())
        }
        DType::String => Err(cannot_convert(obj, dtype)),
    }
}

/// A list holding tensors, variables or NumPy values: each element is converted, then they
/// are stacked (differentiably, as TensorFlow packs such lists).
fn mixed_sequence_to_tensor(obj: &Bound<'_, PyAny>, hint: Option<DType>) -> PyResult<Tensor> {
    let elements = items(obj)?;
    let hint = hint.or_else(|| {
        elements.iter().find_map(|e| {
            dtype_of(e).or_else(|| {
                let array = e.cast::<PyUntypedArray>().ok()?;
                let descr = array.dtype();
                natural_dtype(descr.kind(), descr.itemsize())
            })
        })
    });
    let tensors = elements
        .iter()
        .map(|e| to_tensor(e, hint))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(ops::stack(&tensors, 0)?)
}

// ---------------------------------------------------------------------------------------
// Out to NumPy

/// Arrays from this many bytes on are allocated by `numpy.empty` (which raises MemoryError when
/// the allocation fails) rather than by the numpy crate (which would panic).
const LARGE_ARRAY: usize = 1 << 20;

/// A ValueError when NumPy cannot describe `t`'s shape: its non-zero dimensions times the item
/// size overflow NumPy's sizes (an empty tensor of shape `[0, 2**62]` is a rustape tensor but
/// not a NumPy array).
fn numpy_can_hold(t: &Tensor) -> PyResult<()> {
    let fits = t
        .shape()
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(t.dtype().size_of(), |n, &d| n.checked_mul(d))
        .is_some_and(|n| n <= isize::MAX as usize);
    if fits {
        return Ok(());
    }
    Err(value_error(
        "numpy",
        format!(
            "a {} tensor of shape {} has no NumPy form (its dimensions overflow NumPy's sizes)",
            t.dtype(),
            crate::error::fmt_shape(t.shape())
        ),
    ))
}

/// A fresh, writable NumPy array with the tensor's values. A ValueError when NumPy cannot hold
/// its shape, a MemoryError when the array cannot be allocated.
pub fn to_numpy_copy<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    numpy_can_hold(t)?;
    if let Data::Str(a) = t.data() {
        return super::text_convert::to_numpy(py, a);
    }
    if t.nbytes() >= LARGE_ARRAY {
        fn fill<T: NpElement + Element>(
            target: &Bound<'_, PyAny>,
            values: &Values<T>,
        ) -> PyResult<()> {
            let array = target.cast::<PyArrayDyn<T>>()?;
            // SAFETY: a fresh C-contiguous array no one else holds yet.
            let slice = unsafe { array.as_slice_mut() }
                .map_err(|_| value_error("numpy", "numpy.empty gave a non-contiguous array"))?;
            slice.copy_from_slice(values.as_slice());
            Ok(())
        }
        let shape = PyTuple::new(py, t.shape())?;
        let array = numpy(py)?.call_method1("empty", (shape, numpy_type_name(t.dtype())))?;
        match t.data() {
            Data::F32(a) => fill(&array, a)?,
            Data::F64(a) => fill(&array, a)?,
            Data::I32(a) => fill(&array, a)?,
            Data::I64(a) => fill(&array, a)?,
            Data::Bool(a) => fill(&array, a)?,
            Data::C64(a) => fill(&array, a)?,
            Data::C128(a) => fill(&array, crate::tensor::values_ref(a))?,
            Data::Str(_) => unreachable!("string tensors returned above"),
        }
        return Ok(array);
    }
    Ok(match t.data() {
        Data::F32(a) => a.view().to_pyarray(py).into_any(),
        Data::F64(a) => a.view().to_pyarray(py).into_any(),
        Data::I32(a) => a.view().to_pyarray(py).into_any(),
        Data::I64(a) => a.view().to_pyarray(py).into_any(),
        Data::Bool(a) => a.view().to_pyarray(py).into_any(),
        Data::C64(a) => a.view().to_pyarray(py).into_any(),
        Data::C128(a) => a.view().to_pyarray(py).into_any(),
        Data::Str(_) => unreachable!("string tensors returned above"),
    })
}

/// A read-only NumPy array over the storage of `t`, which `owner` (a `Tensor` object holding
/// `t`) keeps alive.
pub fn to_numpy_view<'py>(t: &Tensor, owner: Bound<'py, PyTensor>) -> PyResult<Bound<'py, PyAny>> {
    numpy_can_hold(t)?;
    fn view<'py, T: NpElement>(
        a: &ndarray::ArrayViewD<'_, T>,
        owner: Bound<'py, PyAny>,
    ) -> Bound<'py, PyAny> {
        // SAFETY: `owner` holds the tensor whose elements `a` views (inline in the tensor's
        // own allocation, or in a buffer it shares); tensor storage is never mutated or
        // reallocated while a tensor refers to it, and `owner` becomes the array's base
        // object, so the memory outlives the array. The array is made read-only below.
        let array = unsafe { PyArrayDyn::<T>::borrow_from_array(a, owner) };
        unsafe {
            (*_PyArray_GET_ITEM_DATA(array.as_array_ptr())).flags &= !NPY_ARRAY_WRITEABLE;
        }
        array.into_any()
    }
    let owner = owner.into_any();
    Ok(match t.data() {
        Data::F32(a) => view(&a.view(), owner),
        Data::F64(a) => view(&a.view(), owner),
        Data::I32(a) => view(&a.view(), owner),
        Data::I64(a) => view(&a.view(), owner),
        Data::Bool(a) => view(&a.view(), owner),
        Data::C64(a) => view(&a.view(), owner),
        Data::C128(a) => view(&a.view(), owner),
        Data::Str(a) => super::text_convert::to_numpy(owner.py(), a)?,
    })
}

/// What `Tensor.numpy()` returns: a writable copy, or a NumPy scalar for a 0-d tensor (as
/// TensorFlow does).
pub fn to_numpy<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    let array = to_numpy_copy(py, t)?;
    if t.ndim() == 0 {
        return array.get_item(PyTuple::empty(py));
    }
    Ok(array)
}
