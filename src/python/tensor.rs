//! `Tensor` and `Variable`. Both carry the whole tensor protocol (operators, indexing, NumPy
//! interop), written once in [`tensor_protocol!`]; a `Variable` operand is read through
//! `Variable::value()`, which records the read and auto-watches it per the tape rules.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyList, PyTuple, PyWeakrefReference};
use rustc_hash::FxHashMap;

use super::convert::{convert_pair, tensorish, to_numpy, to_numpy_copy, to_numpy_view, to_tensor};
use super::dtype::{dtype_object, parse_optional_dtype, PyDType};
use super::error::guard;
use crate::error::{ErrorKind, Result};
use crate::ops;
use crate::tensor::{Data, Tensor, TensorId};
use crate::variable::Variable;

/// An immutable n-dimensional array of one dtype, on which the ops run and tapes record (as
/// `tf.Tensor`): `.shape`, `.dtype`, `.numpy()`, NumPy's operators and broadcasting, indexing,
/// DLPack and the buffer protocol. Made by `rt.constant` and every op.
///
/// >>> t = rt.constant([[1.0, 2.0], [3.0, 4.0]])
/// >>> t.shape, t.dtype.name
/// ((2, 2), 'float32')
/// >>> (t * 2 + 1)[1].numpy()
/// array([7., 9.], dtype=float32)
#[pyclass(frozen, weakref, name = "Tensor", module = "rustape._rustape")]
pub struct PyTensor {
    pub t: Tensor,
    /// Set on `variable[key]`: the variable and the key, so that `.assign(...)` writes that
    /// slice back (TensorFlow's sliced assignment).
    slice_of: Option<Box<(Py<PyVariable>, Py<PyAny>)>>,
}

impl PyTensor {
    pub fn new(t: Tensor) -> PyTensor {
        PyTensor { t, slice_of: None }
    }
}

/// A mutable tensor with a stable identity (as `tf.Variable`): `assign`, `assign_add`,
/// `assign_sub` change it in place (never recorded); reading a trainable one while a tape
/// records watches it on that tape.
///
/// >>> v = rt.Variable([1.0, 2.0])
/// >>> with rt.GradientTape() as tape:
/// ...     loss = rt.reduce_sum(v * v)
/// >>> tape.gradient(loss, v).numpy()
/// array([2., 4.], dtype=float32)
/// >>> v.assign_sub([0.5, 0.5]).numpy()
/// array([0.5, 1.5], dtype=float32)
#[pyclass(frozen, weakref, name = "Variable", module = "rustape._rustape")]
pub struct PyVariable {
    pub v: Variable,
    /// In [`REGISTRY`]: this object is the one Python sees for `v`.
    registered: AtomicBool,
}

/// The Python object of each engine variable that reached a tape, so that
/// `watched_variables()` and `end_variable_watch()` return the user's own objects.
static REGISTRY: Mutex<Option<FxHashMap<TensorId, Py<PyWeakrefReference>>>> = Mutex::new(None);

fn register(var: &Bound<'_, PyVariable>) {
    if var.get().registered.swap(true, Ordering::Relaxed) {
        return;
    }
    let Ok(weak) = PyWeakrefReference::new(var.as_any()) else {
        return;
    };
    let mut registry = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    let map = registry.get_or_insert_with(FxHashMap::default);
    if map.len() >= 64 && map.len().is_power_of_two() {
        map.retain(|_, w| w.bind(var.py()).upgrade().is_some());
    }
    let id = var.get().v.id();
    let alive = map
        .get(&id)
        .is_some_and(|w| w.bind(var.py()).upgrade().is_some());
    if !alive {
        map.insert(id, weak.unbind());
    }
}

/// Reads a variable (recorded and auto-watched by the active tapes).
pub fn read_variable(var: &Bound<'_, PyVariable>) -> Tensor {
    register(var);
    var.get().v.value()
}

/// Marks `var` as the Python object of its engine variable (when a tape watches it).
pub fn register_variable(var: &Bound<'_, PyVariable>) {
    register(var);
}

/// The Python object of an engine variable: the user's own when it is still alive.
pub fn wrap_variable(py: Python<'_>, v: Variable) -> PyResult<Bound<'_, PyVariable>> {
    {
        let registry = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(existing) = registry.as_ref().and_then(|m| m.get(&v.id())) {
            if let Some(obj) = existing.bind(py).upgrade() {
                if let Ok(var) = obj.cast_into::<PyVariable>() {
                    return Ok(var);
                }
            }
        }
    }
    let var = Bound::new(
        py,
        PyVariable {
            v,
            registered: AtomicBool::new(false),
        },
    )?;
    register(&var);
    Ok(var)
}

/// What the shared protocol needs from each class.
pub trait TensorLike: pyo3::PyClass {
    /// The value as an operand: a variable is read (recorded).
    fn operand(slf: &Bound<'_, Self>) -> Tensor;
    /// The value for inspection (shape, printing, NumPy): never recorded.
    fn peek(slf: &Bound<'_, Self>) -> Tensor;
    /// A `Tensor` object holding `peek`'s value, to own a zero-copy NumPy view.
    fn owner<'py>(slf: &Bound<'py, Self>, t: Tensor) -> PyResult<Bound<'py, PyTensor>>;
    fn engine_id(slf: &Bound<'_, Self>) -> TensorId;
    /// `slf[key]`, whose value is `t` (a variable's slice remembers where it came from).
    fn sliced(_slf: &Bound<'_, Self>, _key: &Bound<'_, PyAny>, t: Tensor) -> PyTensor {
        PyTensor::new(t)
    }
}

impl TensorLike for PyTensor {
    #[inline]
    fn operand(slf: &Bound<'_, Self>) -> Tensor {
        slf.get().t.clone()
    }
    #[inline]
    fn peek(slf: &Bound<'_, Self>) -> Tensor {
        slf.get().t.clone()
    }
    fn owner<'py>(slf: &Bound<'py, Self>, _t: Tensor) -> PyResult<Bound<'py, PyTensor>> {
        Ok(slf.clone())
    }
    fn engine_id(slf: &Bound<'_, Self>) -> TensorId {
        slf.get().t.id()
    }
}

impl TensorLike for PyVariable {
    fn operand(slf: &Bound<'_, Self>) -> Tensor {
        read_variable(slf)
    }
    fn peek(slf: &Bound<'_, Self>) -> Tensor {
        slf.get().v.peek()
    }
    fn owner<'py>(slf: &Bound<'py, Self>, t: Tensor) -> PyResult<Bound<'py, PyTensor>> {
        Bound::new(slf.py(), PyTensor::new(t))
    }
    fn sliced(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>, t: Tensor) -> PyTensor {
        PyTensor {
            t,
            slice_of: Some(Box::new((slf.clone().unbind(), key.clone().unbind()))),
        }
    }
    fn engine_id(slf: &Bound<'_, Self>) -> TensorId {
        slf.get().v.id()
    }
}

/// `f(a, b)` on two operands converted by [`convert_pair`].
#[inline]
pub fn binary(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    f: fn(&Tensor, &Tensor) -> Result<Tensor>,
) -> PyResult<PyTensor> {
    guard(|| {
        let (x, y) = convert_pair(a, b)?;
        Ok(PyTensor::new(f(&x, &y)?))
    })
}

fn matmul2(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    ops::matmul(a, b, false, false)
}

/// `(2,)`, `()`, `(2, 3)`: a shape as Python prints a tuple.
pub fn fmt_tuple(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The value part of a repr: `2.0` for a scalar, `array([1., 2.], dtype=float32)` otherwise.
fn numpy_text(py: Python<'_>, t: &Tensor, repr: bool) -> PyResult<String> {
    if t.size() == 0 && t.ndim() > 1 {
        // Said without NumPy: an empty tensor's shape may be beyond what NumPy can describe.
        return Ok(if repr {
            format!(
                "array([], shape={}, dtype={})",
                fmt_tuple(t.shape()),
                super::dtype::numpy_type_name(t.dtype())
            )
        } else {
            "[]".to_string()
        });
    }
    let value = to_numpy(py, t)?;
    Ok(if repr && t.ndim() > 0 {
        value.repr()?.to_string()
    } else {
        value.str()?.to_string()
    })
}

/// The single element of `t` as a Python `float`, `int`, `bool` or `complex`.
fn python_scalar<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    if t.size() != 1 {
        return Err(PyValueError::new_err(format!(
            "only a one-element tensor converts to a Python scalar, got shape {}",
            fmt_tuple(t.shape())
        )));
    }
    Ok(match t.data() {
        Data::F32(a) => {
            PyFloat::new(py, a.iter().next().copied().unwrap_or_default() as f64).into_any()
        }
        Data::F64(a) => PyFloat::new(py, a.iter().next().copied().unwrap_or_default()).into_any(),
        Data::I32(a) => a
            .iter()
            .next()
            .copied()
            .unwrap_or_default()
            .into_pyobject(py)?
            .into_any(),
        Data::I64(a) => a
            .iter()
            .next()
            .copied()
            .unwrap_or_default()
            .into_pyobject(py)?
            .into_any(),
        Data::Bool(a) => PyBool::new(py, a.iter().next().copied().unwrap_or_default())
            .to_owned()
            .into_any(),
        Data::C64(_) | Data::C128(_) => {
            let v = t.to_complex_vec()[0];
            PyComplex::from_doubles(py, v.re, v.im).into_any()
        }
        Data::Str(a) => super::text_convert::item(py, a),
    })
}

fn comparison(
    slf: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    op: CompareOp,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let f: fn(&Tensor, &Tensor) -> Result<Tensor> = match op {
        CompareOp::Lt => ops::less,
        CompareOp::Le => ops::less_equal,
        CompareOp::Gt => ops::greater,
        CompareOp::Ge => ops::greater_equal,
        CompareOp::Eq => ops::equal,
        CompareOp::Ne => ops::not_equal,
    };
    guard(|| {
        if matches!(op, CompareOp::Eq | CompareOp::Ne) {
            // As TensorFlow: `==` is elementwise where it can be; a value that is no tensor
            // (None, a string) or a shape that cannot broadcast compares by identity.
            let by_identity = |py: Python<'_>| {
                let same = slf.is(other);
                let answer = if matches!(op, CompareOp::Eq) {
                    same
                } else {
                    !same
                };
                PyBool::new(py, answer).to_owned().into_any().unbind()
            };
            let Ok((x, y)) = convert_pair(slf, other) else {
                return Ok(by_identity(py));
            };
            return match f(&x, &y) {
                Ok(t) => Ok(Bound::new(py, PyTensor::new(t))?.into_any().unbind()),
                Err(e) if e.kind == ErrorKind::Shape => Ok(by_identity(py)),
                Err(e) => Err(e.into()),
            };
        }
        let (x, y) = convert_pair(slf, other)?;
        Ok(Bound::new(py, PyTensor::new(f(&x, &y)?))?
            .into_any()
            .unbind())
    })
}

/// `dims` as `rustape._shape.TensorShape`: a tuple that also has TensorFlow's shape methods.
fn shape_object<'py>(py: Python<'py>, dims: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let tuple = PyTuple::new(py, dims)?;
    py.import("rustape._shape")?
        .getattr("TensorShape")?
        .call1((tuple,))
}

/// The shared protocol of `Tensor` and `Variable`, with each class's own items first.
macro_rules! tensor_protocol {
    ($cls:ty { $($own:tt)* }) => {
        #[pymethods]
        impl $cls {
            $($own)*

            /// Lets `np.float64(2) * t` and `ndarray + t` defer to us.
            #[classattr]
            fn __array_priority__() -> i32 {
                100
            }
            /// A tuple of ints with TensorFlow's `TensorShape` methods (`as_list()`, `rank`,
            /// `num_elements()`).
            #[getter(shape)]
            fn tensor_shape<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                guard(|| shape_object(slf.py(), <$cls>::peek(slf).shape()))
            }
            /// The shape (TensorFlow's older spelling of `.shape`).
            #[pyo3(name = "get_shape")]
            fn shape_method<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                guard(|| shape_object(slf.py(), <$cls>::peek(slf).shape()))
            }
            /// The device holding the value: rustape's one device, the CPU, in TensorFlow's
            /// spelling.
            #[getter]
            fn device(_slf: &Bound<'_, Self>) -> &'static str {
                "/job:localhost/replica:0/task:0/device:CPU:0"
            }
            /// The element type (`rt.float32`, ...).
            #[getter]
            fn dtype<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDType>> {
                guard(|| dtype_object(slf.py(), <$cls>::peek(slf).dtype()))
            }
            /// The number of axes.
            #[getter]
            fn ndim(slf: &Bound<'_, Self>) -> PyResult<usize> {
                guard(|| Ok(<$cls>::peek(slf).ndim()))
            }
            /// The engine's id (a tensor's, or a variable's handle).
            #[getter]
            fn _id(slf: &Bound<'_, Self>) -> TensorId {
                <$cls>::engine_id(slf)
            }
            /// A writable NumPy copy (a NumPy scalar for a 0-d value).
            fn numpy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                guard(|| to_numpy(slf.py(), &<$cls>::peek(slf)))
            }
            /// NumPy's conversion protocol: a read-only view of the storage, no copy, unless
            /// `copy=True` or another `dtype` is asked for.
            #[pyo3(signature = (dtype=None, copy=None))]
            fn __array__<'py>(
                slf: &Bound<'py, Self>,
                dtype: Option<&Bound<'py, PyAny>>,
                copy: Option<bool>,
            ) -> PyResult<Bound<'py, PyAny>> {
                guard(|| {
                    let py = slf.py();
                    let t = <$cls>::peek(slf);
                    let array = if copy == Some(true) {
                        to_numpy_copy(py, &t)?
                    } else {
                        to_numpy_view(&t, <$cls>::owner(slf, t.clone())?)?
                    };
                    match dtype {
                        Some(d) if !d.is_none() => {
                            let wanted = super::dtype::numpy(py)?.getattr("dtype")?.call1((d,))?;
                            if array.getattr("dtype")?.eq(&wanted)? {
                                return Ok(array);
                            }
                            if copy == Some(false) {
                                return Err(PyValueError::new_err(format!(
                                    "Unable to avoid a copy: the tensor is {} and {} was asked for",
                                    t.dtype(),
                                    wanted.str()?
                                )));
                            }
                            array.call_method1("astype", (wanted,))
                        }
                        _ => Ok(array),
                    }
                })
            }
            /// DLPack (the array API's form): the tensor's memory, read-only and without a
            /// copy, for `np.from_dlpack`, `torch.from_dlpack`, ...
            #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
            fn __dlpack__<'py>(
                slf: &Bound<'py, Self>,
                stream: Option<&Bound<'py, PyAny>>,
                max_version: Option<(u32, u32)>,
                dl_device: Option<(i32, i32)>,
                copy: Option<bool>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let t = <$cls>::peek(slf);
                guard(|| super::dlpack::dlpack_method(slf.py(), t, stream, max_version, dl_device, copy))
            }
            /// DLPack's device of the tensor: `(1, 0)`, the CPU.
            fn __dlpack_device__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
                super::dlpack::cpu_device(slf.py())
            }
            /// `f"{loss:.4f}"`: NumPy's formatting of the value; `""` is `str()`.
            fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
                guard(|| {
                    if spec.is_empty() {
                        return Ok(slf.str()?.to_string());
                    }
                    let value = to_numpy(slf.py(), &<$cls>::peek(slf))?;
                    value.call_method1("__format__", (spec,))?.extract()
                })
            }
            /// A complex value gives its real part with NumPy's ComplexWarning (as TensorFlow).
            fn __float__(slf: &Bound<'_, Self>) -> PyResult<f64> {
                guard(|| {
                    let t = <$cls>::peek(slf);
                    if t.dtype().is_complex() && t.size() == 1 {
                        return to_numpy(slf.py(), &t)?.call_method0("__float__")?.extract::<f64>();
                    }
                    python_scalar(slf.py(), &t)?.extract::<f64>()
                })
            }
            fn __complex__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyComplex>> {
                guard(|| {
                    let t = <$cls>::peek(slf);
                    python_scalar(slf.py(), &t)?; // one element, or the error saying so
                    let v = t.to_complex_vec()[0];
                    Ok(PyComplex::from_doubles(slf.py(), v.re, v.im))
                })
            }
            fn __int__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                guard(|| {
                    let value = python_scalar(slf.py(), &<$cls>::peek(slf))?;
                    value.call_method0("__int__")
                })
            }
            /// Integer scalars can index Python sequences and ranges.
            fn __index__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                guard(|| {
                    let t = <$cls>::peek(slf);
                    if !t.dtype().is_int() || t.ndim() != 0 {
                        return Err(PyTypeError::new_err(format!(
                            "only a 0-d integer tensor can be used as an index, got shape {} dtype {}",
                            fmt_tuple(t.shape()),
                            t.dtype()
                        )));
                    }
                    python_scalar(slf.py(), &t)
                })
            }
            fn __bool__(slf: &Bound<'_, Self>) -> PyResult<bool> {
                guard(|| {
                    let t = <$cls>::peek(slf);
                    if t.size() != 1 {
                        return Err(PyValueError::new_err(format!(
                            "The truth value of a tensor of shape {} is ambiguous: only a \
                             one-element tensor has one",
                            fmt_tuple(t.shape())
                        )));
                    }
                    python_scalar(slf.py(), &t)?.is_truthy()
                })
            }
            fn __len__(slf: &Bound<'_, Self>) -> PyResult<usize> {
                guard(|| match <$cls>::peek(slf).shape().first() {
                    Some(&n) => Ok(n),
                    None => Err(PyTypeError::new_err("len() of a 0-d tensor (a scalar has no len())")),
                })
            }
            /// The rows along the first axis (differentiable, through `unstack`).
            fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                guard(|| {
                    let py = slf.py();
                    let t = <$cls>::operand(slf);
                    if t.ndim() == 0 {
                        return Err(PyTypeError::new_err("iteration over a 0-d tensor"));
                    }
                    let rows = ops::unstack(&t, 0)?;
                    let rows = rows.into_iter().map(PyTensor::new).collect::<Vec<_>>();
                    Ok(PyList::new(py, rows)?.try_iter()?.into_any())
                })
            }
            fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                guard(|| {
                    let t = super::index::getitem(&<$cls>::operand(slf), key)?;
                    Ok(<$cls>::sliced(slf, key, t))
                })
            }
            /// Tensors compare elementwise, so they cannot be hashed (as in TensorFlow).
            fn __hash__(&self) -> PyResult<isize> {
                Err(PyTypeError::new_err(
                    "unhashable: == on tensors and variables is elementwise; use id(x) or x._id as a key",
                ))
            }
            fn __richcmp__(
                slf: &Bound<'_, Self>,
                other: &Bound<'_, PyAny>,
                op: CompareOp,
            ) -> PyResult<Py<PyAny>> {
                comparison(slf.as_any(), other, op)
            }

            fn __add__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::add)
            }
            fn __radd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::add)
            }
            fn __sub__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::subtract)
            }
            fn __rsub__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::subtract)
            }
            fn __mul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::multiply)
            }
            fn __rmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::multiply)
            }
            fn __truediv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::divide)
            }
            fn __rtruediv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::divide)
            }
            fn __floordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::floordiv)
            }
            fn __rfloordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::floordiv)
            }
            fn __mod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::floormod)
            }
            fn __rmod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::floormod)
            }
            fn __pow__(
                slf: &Bound<'_, Self>,
                other: &Bound<'_, PyAny>,
                modulo: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<PyTensor> {
                if modulo.is_some_and(|m| !m.is_none()) {
                    return Err(PyTypeError::new_err("pow() with a modulo is not supported"));
                }
                binary(slf.as_any(), other, ops::pow)
            }
            fn __rpow__(
                slf: &Bound<'_, Self>,
                other: &Bound<'_, PyAny>,
                modulo: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<PyTensor> {
                if modulo.is_some_and(|m| !m.is_none()) {
                    return Err(PyTypeError::new_err("pow() with a modulo is not supported"));
                }
                binary(other, slf.as_any(), ops::pow)
            }
            fn __matmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, matmul2)
            }
            fn __rmatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), matmul2)
            }
            fn __and__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::logical_and)
            }
            fn __rand__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::logical_and)
            }
            fn __or__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(slf.as_any(), other, ops::logical_or)
            }
            fn __ror__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
                binary(other, slf.as_any(), ops::logical_or)
            }
            fn __invert__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
                guard(|| Ok(PyTensor::new(ops::logical_not(&<$cls>::operand(slf))?)))
            }
            fn __neg__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
                guard(|| Ok(PyTensor::new(ops::negative(&<$cls>::operand(slf))?)))
            }
            fn __pos__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
                guard(|| Ok(PyTensor::new(<$cls>::operand(slf))))
            }
            fn __abs__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
                guard(|| Ok(PyTensor::new(ops::abs(&<$cls>::operand(slf))?)))
            }
        }
    };
}

tensor_protocol!(PyTensor {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        guard(|| {
            let t = &slf.get().t;
            Ok(format!(
                "<rt.Tensor: shape={}, dtype={}, numpy={}>",
                fmt_tuple(t.shape()),
                t.dtype(),
                numpy_text(slf.py(), t, true)?
            ))
        })
    }
    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        guard(|| {
            let t = &slf.get().t;
            Ok(format!(
                "rt.Tensor({}, shape={}, dtype={})",
                numpy_text(slf.py(), t, false)?,
                fmt_tuple(t.shape()),
                t.dtype()
            ))
        })
    }
    /// Pickles as `constant(values)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        guard(|| {
            let py = slf.py();
            let constant = py.import("rustape._rustape")?.getattr("constant")?;
            Ok((constant, (to_numpy_copy(py, &slf.get().t)?,)))
        })
    }
    /// `variable[key].assign(value)`: writes `value` into that slice of the variable
    /// (TensorFlow's sliced assignment, NumPy's rules for the key) and returns the variable.
    /// Any other tensor is immutable.
    fn assign<'py>(
        slf: &Bound<'py, Self>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Py<PyVariable>> {
        guard(|| sliced_update(slf, value, None))
    }
    /// `variable[key].assign_add(delta)`: adds `delta` to that slice of the variable.
    fn assign_add<'py>(
        slf: &Bound<'py, Self>,
        delta: &Bound<'py, PyAny>,
    ) -> PyResult<Py<PyVariable>> {
        guard(|| sliced_update(slf, delta, Some("__add__")))
    }
    /// `variable[key].assign_sub(delta)`: subtracts `delta` from that slice of the variable.
    fn assign_sub<'py>(
        slf: &Bound<'py, Self>,
        delta: &Bound<'py, PyAny>,
    ) -> PyResult<Py<PyVariable>> {
        guard(|| sliced_update(slf, delta, Some("__sub__")))
    }
    /// Tensors are immutable: a copy is the tensor itself.
    fn __copy__(slf: &Bound<'_, Self>) -> Py<PyTensor> {
        slf.clone().unbind()
    }
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> Py<PyTensor> {
        slf.clone().unbind()
    }
});

/// A variable slice's `assign` (`combine` None) or `assign_add`/`assign_sub` (`__add__`/`__sub__`
/// of the slice's current values and `value`): the slice is updated in a NumPy copy of the
/// variable's value (never recorded), which then replaces the value.
fn sliced_update<'py>(
    slf: &Bound<'py, PyTensor>,
    value: &Bound<'py, PyAny>,
    combine: Option<&str>,
) -> PyResult<Py<PyVariable>> {
    let py = slf.py();
    let Some(source) = slf.get().slice_of.as_deref() else {
        return Err(pyo3::exceptions::PyAttributeError::new_err(
            "Tensor.assign: tensors are immutable; only a slice of a Variable \
             (`v[1:3].assign(x)`) or a Variable can be assigned",
        ));
    };
    let (variable, key) = (source.0.bind(py), source.1.bind(py));
    let numpy = py.import("numpy")?;
    let full = numpy.call_method1("array", (variable.call_method0("numpy")?,))?;
    let value = numpy.call_method1("asarray", (value,))?;
    let part = match combine {
        None => value,
        Some(method) => full.get_item(key)?.call_method1(method, (value,))?,
    };
    full.set_item(key, part)?;
    variable.call_method1("assign", (full,))?;
    Ok(variable.clone().unbind())
}

/// `assign`, `assign_add`, `assign_sub`: `value` takes the variable's dtype where it can.
fn update<'py>(
    slf: &Bound<'py, PyVariable>,
    value: &Bound<'py, PyAny>,
    f: fn(&Variable, &Tensor) -> Result<()>,
) -> PyResult<Bound<'py, PyVariable>> {
    guard(|| {
        let v = &slf.get().v;
        f(v, &to_tensor(value, Some(v.dtype()))?)?;
        Ok(slf.clone())
    })
}

tensor_protocol!(PyVariable {
    #[new]
    #[pyo3(signature = (initial_value, trainable=true, name=None, dtype=None))]
    fn py_new(
        initial_value: &Bound<'_, PyAny>,
        trainable: bool,
        name: Option<String>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyVariable> {
        guard(|| {
            let dtype = parse_optional_dtype(dtype)?;
            // TensorFlow also takes a callable that returns the initial value.
            let value = if initial_value.is_callable() && tensorish(initial_value).is_none() {
                initial_value.call0()?
            } else {
                initial_value.clone()
            };
            let t = super::ops::convert_with_dtype(&value, dtype)?;
            let v = Variable::new(t, trainable, name.as_deref());
            Ok(PyVariable { v, registered: AtomicBool::new(false) })
        })
    }
    /// Whether tapes watch the variable automatically when it is read.
    #[getter]
    fn trainable(&self) -> bool {
        self.v.trainable()
    }
    /// The variable's name (`'Variable'` unless given).
    #[getter]
    fn name(&self) -> String {
        self.v.name().to_string()
    }
    /// A read of the current value (recorded on the active tapes).
    fn value(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        guard(|| Ok(PyTensor::new(read_variable(slf))))
    }
    /// A read of the current value (recorded on the active tapes), as `value()`.
    fn read_value(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        guard(|| Ok(PyTensor::new(read_variable(slf))))
    }
    /// Replaces the value in place (never recorded); returns the variable. `use_locking`,
    /// `name` and `read_value` are accepted for TensorFlow's signature.
    #[pyo3(signature = (value, use_locking=None, name=None, read_value=true))]
    fn assign<'py>(
        slf: &Bound<'py, Self>,
        value: &Bound<'py, PyAny>,
        use_locking: Option<&Bound<'py, PyAny>>,
        name: Option<&Bound<'py, PyAny>>,
        read_value: bool,
    ) -> PyResult<Bound<'py, Self>> {
        let _ = (use_locking, name, read_value);
        update(slf, value, Variable::assign)
    }
    /// Adds `delta` in place (never recorded); returns the variable.
    #[pyo3(signature = (delta, use_locking=None, name=None, read_value=true))]
    fn assign_add<'py>(
        slf: &Bound<'py, Self>,
        delta: &Bound<'py, PyAny>,
        use_locking: Option<&Bound<'py, PyAny>>,
        name: Option<&Bound<'py, PyAny>>,
        read_value: bool,
    ) -> PyResult<Bound<'py, Self>> {
        let _ = (use_locking, name, read_value);
        update(slf, delta, Variable::assign_add)
    }
    /// Subtracts `delta` in place (never recorded); returns the variable.
    #[pyo3(signature = (delta, use_locking=None, name=None, read_value=true))]
    fn assign_sub<'py>(
        slf: &Bound<'py, Self>,
        delta: &Bound<'py, PyAny>,
        use_locking: Option<&Bound<'py, PyAny>>,
        name: Option<&Bound<'py, PyAny>>,
        read_value: bool,
    ) -> PyResult<Bound<'py, Self>> {
        let _ = (use_locking, name, read_value);
        update(slf, delta, Variable::assign_sub)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        guard(|| {
            let v = &slf.get().v;
            let t = v.peek();
            Ok(format!(
                "<rt.Variable '{}' shape={} dtype={}, numpy={}>",
                v.name(),
                fmt_tuple(t.shape()),
                t.dtype(),
                numpy_text(slf.py(), &t, true)?
            ))
        })
    }
    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Self::__repr__(slf)
    }
});
