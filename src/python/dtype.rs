//! `DType`: the Python face of [`crate::DType`]. One instance per dtype, so `t.dtype is
//! rt.float32` holds as in TensorFlow.
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyString, PyTuple, PyType};

use super::bindings::Table;
use super::error::type_error;
use crate::dtype::DType;

pub const ALL: [DType; 8] = [
    DType::F32,
    DType::F64,
    DType::I32,
    DType::I64,
    DType::Bool,
    DType::Complex64,
    DType::Complex128,
    DType::String,
];

/// A tensor's element type: `rt.float32`, `rt.float64`, `rt.int32`, `rt.int64`, `rt.bool`
/// (one object per dtype, so `t.dtype is rt.float32` works).
///
/// >>> rt.float32.name, rt.float32.is_floating, rt.float32.size
/// ('float32', True, 4)
/// >>> rt.constant([1, 2]).dtype is rt.int32
/// True
#[pyclass(frozen, name = "DType", module = "rustape._rustape")]
pub struct PyDType {
    pub dtype: DType,
}

static INSTANCES: PyOnceLock<Vec<Py<PyDType>>> = PyOnceLock::new();

fn index(dtype: DType) -> usize {
    match dtype {
        DType::F32 => 0,
        DType::F64 => 1,
        DType::I32 => 2,
        DType::I64 => 3,
        DType::Bool => 4,
        DType::Complex64 => 5,
        DType::Complex128 => 6,
        DType::String => 7,
    }
}

/// The one `DType` object of `dtype`.
pub fn dtype_object(py: Python<'_>, dtype: DType) -> PyResult<Bound<'_, PyDType>> {
    let all = INSTANCES.get_or_try_init(py, || {
        ALL.iter()
            .map(|&d| Py::new(py, PyDType { dtype: d }))
            .collect::<PyResult<Vec<_>>>()
    })?;
    Ok(all[index(dtype)].bind(py).clone())
}

static NUMPY: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

pub fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    NUMPY
        .get_or_try_init(py, || py.import("numpy").map(Bound::unbind))
        .map(|m| m.bind(py))
}

/// NumPy's name for the scalar type of `dtype` (`np.bool_` for bool).
pub fn numpy_type_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "bool_",
        DType::String => "object_",
        other => other.name(),
    }
}

pub const SUPPORTED: &str = "float32, float64, int32, int64, bool, complex64, complex128, string";

/// What a `dtype=` argument names: a `DType`, a name (`"float32"`), a NumPy dtype or scalar
/// type, or Python's `float` (float32, as in TensorFlow), `int` (int64), `bool`, `complex`
/// (complex128). `None` when
/// `obj` is not a dtype at all.
pub fn lookup_dtype(obj: &Bound<'_, PyAny>) -> PyResult<Option<DType>> {
    let py = obj.py();
    if let Ok(d) = obj.cast::<PyDType>() {
        return Ok(Some(d.get().dtype));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(DType::from_name(&s.to_cow()?));
    }
    let np = numpy(py)?;
    let is_np_dtype = obj.is_instance(&np.getattr("dtype")?)?;
    if let Ok(t) = obj.cast::<PyType>() {
        if t.is(py.get_type::<PyFloat>()) {
            return Ok(Some(DType::F32));
        }
        if t.is(py.get_type::<PyBool>()) {
            return Ok(Some(DType::Bool));
        }
        if t.is(py.get_type::<PyInt>()) {
            return Ok(Some(DType::I64));
        }
        if t.is(py.get_type::<PyComplex>()) {
            return Ok(Some(DType::Complex128));
        }
        if t.is(py.get_type::<PyString>()) || t.is(py.get_type::<pyo3::types::PyBytes>()) {
            return Ok(Some(DType::String));
        }
        if !t.is_subclass(&np.getattr("generic")?)? {
            return Ok(None);
        }
    } else if !is_np_dtype {
        return Ok(None);
    }
    let name: String = np
        .getattr("dtype")?
        .call1((obj,))?
        .getattr("name")?
        .extract()?;
    if name == "object" || name.starts_with("str") || name.starts_with("bytes") {
        return Ok(Some(DType::String));
    }
    Ok(DType::from_name(&name))
}

/// A `dtype=` argument; TypeError when it names no supported dtype.
pub fn parse_dtype(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    match lookup_dtype(obj)? {
        Some(d) => Ok(d),
        None => Err(type_error(
            "dtype",
            format!(
                "{} is not a supported dtype (supported: {SUPPORTED})",
                obj.repr()?
            ),
        )),
    }
}

pub fn parse_optional_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        Some(o) if !o.is_none() => parse_dtype(o).map(Some),
        _ => Ok(None),
    }
}

#[pymethods]
impl PyDType {
    /// Its name: `'float32'`, `'int64'`, ...
    #[getter]
    fn name(&self) -> &'static str {
        self.dtype.name()
    }
    /// Whether it is float32 or float64 (the differentiable dtypes).
    #[getter]
    fn is_floating(&self) -> bool {
        self.dtype.is_float()
    }
    /// complex64 or complex128.
    #[getter]
    fn is_complex(&self) -> bool {
        self.dtype.is_complex()
    }
    /// The dtype of a complex dtype's parts (float32 for complex64); any other dtype itself.
    #[getter]
    fn real_dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDType>> {
        dtype_object(py, self.dtype.real_dtype())
    }
    /// Whether it is int32 or int64.
    #[getter]
    fn is_integer(&self) -> bool {
        self.dtype.is_int()
    }
    /// Whether it is bool.
    #[getter]
    fn is_bool(&self) -> bool {
        self.dtype == DType::Bool
    }
    /// Bytes per element.
    #[getter]
    fn size(&self) -> usize {
        self.dtype.size_of()
    }
    /// The NumPy scalar type (`numpy.float32`, ...).
    #[getter]
    fn as_numpy_dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy(py)?.getattr(numpy_type_name(self.dtype))
    }
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let same = lookup_dtype(other).unwrap_or(None) == Some(self.dtype);
        Ok(match op {
            CompareOp::Eq => PyBool::new(py, same).to_owned().into_any().unbind(),
            CompareOp::Ne => PyBool::new(py, !same).to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }
    /// The hash of the name, so that `rt.float32` and `"float32"` find the same dict entry.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyString::new(py, self.dtype.name()).hash()
    }
    fn __repr__(&self) -> String {
        format!("rt.{}", self.dtype.name())
    }
    fn __str__(&self) -> String {
        format!("<dtype: '{}'>", self.dtype.name())
    }
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let module = py.import("rustape._rustape")?;
        Ok((
            module.getattr("as_dtype")?,
            PyTuple::new(py, [self.dtype.name()])?,
        ))
    }
}

/// `rt.as_dtype(x)`: the `DType` that `x` names.
///
/// >>> rt.as_dtype("float64")
/// rt.float64
/// >>> rt.as_dtype(np.int32) == rt.int32
/// True
#[pyfunction]
pub fn as_dtype<'py>(
    py: Python<'py>,
    type_value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDType>> {
    super::error::guard(|| dtype_object(py, parse_dtype(type_value)?))
}

/// Registers `DType`, one attribute per dtype (`float32`, ...) and `as_dtype`, all in `rt`.
/// (Not a `bindings!` table: the dtype attributes come from [`ALL`].)
pub fn register(m: &Bound<'_, PyModule>, table: &mut Table) -> PyResult<()> {
    const RT: super::bindings::Namespaces = &[("rt", None)];
    table.class::<PyDType>(m, RT)?;
    for d in ALL {
        table.value(m, d.name(), dtype_object(m.py(), d)?, RT)?;
    }
    table.function(m, wrap_pyfunction!(as_dtype, m)?, RT)
}
