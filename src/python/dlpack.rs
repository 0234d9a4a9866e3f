//! Zero-copy exchange with NumPy, PyTorch, JAX and other array libraries through DLPack, both
//! ways (`Tensor.__dlpack__`, `rt.from_dlpack`, `rt.experimental.dlpack`); the buffer protocol
//! is in `buffer.rs`.
//!
//! Out: the consumer gets the tensor's own storage, marked read-only (DLPack 1.0's flag, and
//! a read-only buffer), because tensors are immutable. In: a C-contiguous, aligned tensor on
//! the CPU with a dtype rustape has becomes a tensor over the producer's memory (no copy); the
//! producer's deleter runs when no tensor needs it. Anything else (other strides, a bool
//! array, `copy=True`) is copied.
//!
//! The DLPack structs are written out here from `dlpack.h` (v1.0 ABI; the legacy unversioned
//! capsule too): the Rust crates for DLPack bind older PyO3 versions.
use std::ffi::{c_void, CStr};
use std::ptr;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyTuple};

use super::error::{guard, value_error};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::tensor::{Data, Element, Tensor, Values};
use num_complex::Complex;

const OP: &str = "from_dlpack";

// ---------------------------------------------------------------------------------------
// dlpack.h

/// `kDLCPU`: the only device rustape has.
const CPU: i32 = 1;
/// `DLPACK_FLAG_BITMASK_READ_ONLY`, `DLPACK_FLAG_BITMASK_IS_COPIED`.
const FLAG_READ_ONLY: u64 = 1;
const FLAG_IS_COPIED: u64 = 1 << 1;

const LEGACY: &CStr = c"dltensor";
const VERSIONED: &CStr = c"dltensor_versioned";
const USED_LEGACY: &CStr = c"used_dltensor";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

/// DLPack's code for each dtype (`kDLInt` 0, `kDLFloat` 2, `kDLComplex` 5, `kDLBool` 6).
fn dl_dtype(dtype: DType) -> DLDataType {
    let (code, bits) = match dtype {
        DType::F32 => (2, 32),
        DType::F64 => (2, 64),
        DType::I32 => (0, 32),
        DType::I64 => (0, 64),
        DType::Bool => (6, 8),
        DType::Complex64 => (5, 64),
        DType::Complex128 => (5, 128),
        // Never exported (`export_capsule` refuses strings); an opaque code no importer takes.
        DType::String => (255, 128),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

fn rt_dtype(dtype: DLDataType) -> Option<DType> {
    [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::Bool,
        DType::Complex64,
        DType::Complex128,
    ]
    .into_iter()
    .find(|&d| dl_dtype(d) == dtype)
}

// ---------------------------------------------------------------------------------------
// Out: __dlpack__

/// A tensor handed out through DLPack: the managed struct first (the consumer's pointer is
/// this allocation's), then what keeps its memory and metadata alive.
#[repr(C)]
struct Export<M> {
    managed: M,
    _tensor: Tensor,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
}

/// The address of the first element (stable: inline elements live in the tensor's shared
/// allocation, which `Export` holds).
pub(super) fn data_ptr(t: &Tensor) -> *mut c_void {
    fn ptr<T>(v: &Values<T>) -> *mut c_void {
        v.as_slice().as_ptr() as *mut c_void
    }
    match t.data() {
        Data::F32(v) => ptr(v),
        Data::F64(v) => ptr(v),
        Data::I32(v) => ptr(v),
        Data::I64(v) => ptr(v),
        Data::Bool(v) => ptr(v),
        Data::C64(v) => ptr(v),
        Data::C128(v) => ptr(v),
        Data::Str(v) => ptr(v),
    }
}

/// Row-major strides in elements.
pub(super) fn row_major(shape: &[usize]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1].max(1) as i64;
    }
    strides
}

fn dl_tensor(t: &Tensor, shape: &mut [i64], strides: &mut [i64]) -> DLTensor {
    DLTensor {
        data: data_ptr(t),
        device: DLDevice {
            device_type: CPU,
            device_id: 0,
        },
        ndim: shape.len() as i32,
        dtype: dl_dtype(t.dtype()),
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut_ptr(),
        byte_offset: 0,
    }
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    // SAFETY: `m` is the `Export` allocated by `export_capsule`, deleted once.
    drop(unsafe { Box::from_raw(m.cast::<Export<DLManagedTensor>>()) });
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    // SAFETY: as `delete_legacy`.
    drop(unsafe { Box::from_raw(m.cast::<Export<DLManagedTensorVersioned>>()) });
}

/// The capsule's destructor: frees the tensor unless a consumer took it (and renamed it).
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: the names are checked before the pointer is read; IsValid sets no error.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, LEGACY.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, LEGACY.as_ptr()).cast::<DLManagedTensor>();
            if let Some(delete) = (*m).deleter {
                delete(m);
            }
        } else if ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr())
                .cast::<DLManagedTensorVersioned>();
            if let Some(delete) = (*m).deleter {
                delete(m);
            }
        }
    }
}

/// A DLPack capsule of `t`: DLPack 1.0 (`versioned`, read-only unless `copied`) or the
/// legacy form older consumers ask for.
pub fn export_capsule(
    py: Python<'_>,
    t: Tensor,
    versioned: bool,
    copied: bool,
) -> PyResult<Bound<'_, PyAny>> {
    if t.dtype() == DType::String {
        return Err(buffer_error(
            "a string tensor cannot be exported through DLPack (no fixed-size elements)".into(),
        ));
    }
    let mut shape: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let mut strides = row_major(t.shape());
    let dl = dl_tensor(&t, &mut shape, &mut strides);
    let (pointer, name) = if versioned {
        let managed = DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 0 },
            manager_ctx: ptr::null_mut(),
            deleter: Some(delete_versioned),
            flags: if copied {
                FLAG_IS_COPIED
            } else {
                FLAG_READ_ONLY
            },
            dl_tensor: dl,
        };
        let boxed = Box::new(Export {
            managed,
            _tensor: t,
            _shape: shape,
            _strides: strides,
        });
        (Box::into_raw(boxed).cast::<c_void>(), VERSIONED)
    } else {
        let managed = DLManagedTensor {
            dl_tensor: dl,
            manager_ctx: ptr::null_mut(),
            deleter: Some(delete_legacy),
        };
        let boxed = Box::new(Export {
            managed,
            _tensor: t,
            _shape: shape,
            _strides: strides,
        });
        (Box::into_raw(boxed).cast::<c_void>(), LEGACY)
    };
    // SAFETY: a valid pointer and a static name; on failure the export is freed here.
    unsafe {
        let capsule = ffi::PyCapsule_New(pointer, name.as_ptr(), Some(capsule_destructor));
        if capsule.is_null() {
            if versioned {
                delete_versioned(pointer.cast());
            } else {
                delete_legacy(pointer.cast());
            }
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, capsule))
    }
}

/// `Tensor.__dlpack__`: the array API's arguments (`stream` must be None on the CPU).
pub fn dlpack_method<'py>(
    py: Python<'py>,
    t: Tensor,
    stream: Option<&Bound<'py, PyAny>>,
    max_version: Option<(u32, u32)>,
    dl_device: Option<(i32, i32)>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyAny>> {
    const METHOD: &str = "Tensor.__dlpack__";
    if let Some(stream) = stream.filter(|s| !s.is_none()) {
        return Err(buffer_error(format!(
            "{METHOD}: stream must be None for a CPU tensor, got {stream}"
        )));
    }
    if let Some((device_type, device_id)) = dl_device {
        if (device_type, device_id) != (CPU, 0) {
            return Err(buffer_error(format!(
                "{METHOD}: rustape tensors are on the CPU (device (1, 0)); device \
                 ({device_type}, {device_id}) was asked for"
            )));
        }
    }
    let copied = copy == Some(true);
    let t = if copied { deep_copy(&t) } else { t };
    let versioned = max_version.is_some_and(|(major, _)| major >= 1);
    export_capsule(py, t, versioned, copied)
}

fn deep_copy(t: &Tensor) -> Tensor {
    fn fresh<T: Element>(v: &Values<T>) -> Tensor {
        Tensor::new(T::into_data(Values::from_vec(
            v.shape(),
            v.as_slice().to_vec(),
        )))
    }
    match t.data() {
        Data::F32(v) => fresh(v),
        Data::F64(v) => fresh(v),
        Data::I32(v) => fresh(v),
        Data::I64(v) => fresh(v),
        Data::Bool(v) => fresh(v),
        Data::C64(v) => fresh(v),
        Data::C128(v) => fresh(v),
        Data::Str(v) => fresh(v),
    }
}

pub(super) fn buffer_error(message: String) -> PyErr {
    pyo3::exceptions::PyBufferError::new_err(message)
}

// ---------------------------------------------------------------------------------------
// In: from_dlpack

/// A consumed capsule's managed tensor, given back to its producer when dropped.
struct Imported {
    legacy: *mut DLManagedTensor,
    versioned: *mut DLManagedTensorVersioned,
}

// SAFETY: DLPack's deleters may be called from any thread (producers that need the GIL, as
// NumPy's does, take it themselves), and the tensor is only read.
unsafe impl Send for Imported {}
unsafe impl Sync for Imported {}

impl Imported {
    fn dl_tensor(&self) -> &DLTensor {
        // SAFETY: exactly one pointer is set, to a live managed tensor we own.
        unsafe {
            if self.versioned.is_null() {
                &(*self.legacy).dl_tensor
            } else {
                &(*self.versioned).dl_tensor
            }
        }
    }
}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: we own the managed tensor (the capsule was renamed "used_..."); its deleter
        // is called once, here.
        unsafe {
            if !self.versioned.is_null() {
                if let Some(delete) = (*self.versioned).deleter {
                    delete(self.versioned);
                }
            } else if let Some(delete) = (*self.legacy).deleter {
                delete(self.legacy);
            }
        }
    }
}

/// Takes the managed tensor out of a DLPack capsule (renaming it, as the protocol asks).
fn consume(capsule: &Bound<'_, PyAny>) -> PyResult<Imported> {
    let Ok(capsule) = capsule.cast::<PyCapsule>() else {
        return Err(PyTypeError::new_err(format!(
            "{OP}: expected a DLPack capsule or an object with __dlpack__, got {}",
            capsule.get_type().name()?
        )));
    };
    let raw = capsule.as_ptr();
    // SAFETY: names are checked with IsValid before the pointer is taken.
    unsafe {
        for (name, used, versioned) in [
            (VERSIONED, USED_VERSIONED, true),
            (LEGACY, USED_LEGACY, false),
        ] {
            if ffi::PyCapsule_IsValid(raw, name.as_ptr()) != 1 {
                continue;
            }
            let pointer = ffi::PyCapsule_GetPointer(raw, name.as_ptr());
            if ffi::PyCapsule_SetName(raw, used.as_ptr()) != 0 {
                return Err(PyErr::fetch(capsule.py()));
            }
            return Ok(if versioned {
                let m = pointer.cast::<DLManagedTensorVersioned>();
                if (*m).version.major != 1 {
                    let major = (*m).version.major;
                    drop(Imported {
                        legacy: ptr::null_mut(),
                        versioned: m,
                    });
                    return Err(buffer_error(format!(
                        "{OP}: DLPack version {major} is not supported (rustape reads 1.x)"
                    )));
                }
                Imported {
                    legacy: ptr::null_mut(),
                    versioned: m,
                }
            } else {
                Imported {
                    legacy: pointer.cast(),
                    versioned: ptr::null_mut(),
                }
            });
        }
    }
    Err(value_error(
        OP,
        "the capsule is not an unused DLPack tensor (a DLPack capsule can be consumed once)",
    ))
}

/// The tensor a consumed capsule holds: over the producer's memory when it is C-contiguous
/// and aligned (and `copy` is not True), else copied.
fn import(imported: Imported, copy: Option<bool>) -> PyResult<Tensor> {
    let dl = imported.dl_tensor();
    if dl.device.device_type != CPU {
        return Err(value_error(
            OP,
            format!(
                "the tensor is on DLPack device type {} (rustape runs on the CPU, type 1): \
                 move it to the CPU first",
                dl.device.device_type
            ),
        ));
    }
    let Some(dtype) = rt_dtype(dl.dtype) else {
        return Err(PyTypeError::new_err(format!(
            "{OP}: DLPack dtype (code {}, {} bits, {} lanes) has no rustape dtype (float32, \
             float64, int32, int64, bool)",
            dl.dtype.code, dl.dtype.bits, dl.dtype.lanes
        )));
    };
    let ndim = usize::try_from(dl.ndim).map_err(|_| value_error(OP, "negative ndim"))?;
    // SAFETY: DLPack: `shape` holds `ndim` entries, `strides` too unless null.
    let shape: Vec<i64> = if ndim == 0 {
        Vec::new()
    } else {
        unsafe { std::slice::from_raw_parts(dl.shape, ndim) }.to_vec()
    };
    let strides: Option<Vec<i64>> = (!dl.strides.is_null() && ndim > 0)
        .then(|| unsafe { std::slice::from_raw_parts(dl.strides, ndim) }.to_vec());
    let shape: Vec<usize> = shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<_, _>>()
        .map_err(|_| value_error(OP, format!("negative dimension in shape {shape:?}")))?;
    let len = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| value_error(OP, format!("shape {shape:?} overflows")))?;
    let contiguous = match &strides {
        None => true,
        Some(s) => shape
            .iter()
            .zip(s)
            .zip(row_major(&shape))
            .all(|((&d, &s), r)| d <= 1 || s == r),
    };
    let start = (dl.data as usize).wrapping_add(dl.byte_offset as usize);
    let aligned = start % dtype.size_of() == 0;
    let zero_copy = contiguous && aligned && copy != Some(true) && dtype != DType::Bool;
    if !zero_copy && copy == Some(false) {
        return Err(value_error(
            OP,
            "copy=False, but the tensor must be copied (it is not C-contiguous, not aligned, \
             or bool)",
        ));
    }
    /// What an imported buffer becomes a tensor from.
    struct Import<'a> {
        imported: Imported,
        shape: &'a [usize],
        len: usize,
        start: usize,
        strides: Option<&'a [i64]>,
        zero_copy: bool,
    }
    impl Import<'_> {
        /// The tensor: the producer's memory itself when `zero_copy`, else the elements read
        /// one by one with `map` (through the strides).
        fn build<T: Element>(self, map: impl Fn(*const u8) -> T) -> Tensor {
            let Import {
                imported,
                shape,
                len,
                start,
                strides,
                zero_copy,
            } = self;
            if zero_copy {
                // SAFETY: aligned and C-contiguous (checked), `len` elements valid while the
                // producer's tensor lives, which `imported` keeps until the values are dropped.
                let values = unsafe {
                    Values::from_foreign(shape, start as *const T, len, Box::new(imported))
                };
                return Tensor::new(T::into_data(values));
            }
            let item = std::mem::size_of::<T>() as i64;
            let strides = strides.map_or_else(|| row_major(shape), <[i64]>::to_vec);
            let mut out = Vec::with_capacity(len);
            let mut index = vec![0usize; shape.len()];
            for _ in 0..len {
                let offset: i64 = index
                    .iter()
                    .zip(&strides)
                    .map(|(&i, &s)| i as i64 * s)
                    .sum();
                out.push(map((start as i64 + offset * item) as *const u8));
                for k in (0..shape.len()).rev() {
                    index[k] += 1;
                    if index[k] < shape[k] {
                        break;
                    }
                    index[k] = 0;
                }
            }
            drop(imported);
            Tensor::new(T::into_data(Values::from_vec(shape, out)))
        }
    }
    /// One element at `p`, unaligned.
    ///
    /// # Safety
    /// `p` points at a readable `T` of the producer's tensor.
    unsafe fn read<T>(p: *const u8) -> T {
        unsafe { p.cast::<T>().read_unaligned() }
    }
    let from = Import {
        imported,
        shape: &shape,
        len,
        start,
        strides: strides.as_deref(),
        zero_copy,
    };
    // SAFETY (the reads below): each address is an element of the producer's tensor (its
    // shape and strides); bools are read as bytes and compared with zero.
    Ok(match dtype {
        DType::F32 => from.build(|p| unsafe { read::<f32>(p) }),
        DType::F64 => from.build(|p| unsafe { read::<f64>(p) }),
        DType::I32 => from.build(|p| unsafe { read::<i32>(p) }),
        DType::I64 => from.build(|p| unsafe { read::<i64>(p) }),
        DType::Complex64 => from.build(|p| unsafe { read::<Complex<f32>>(p) }),
        DType::Complex128 => from.build(|p| unsafe { read::<Complex<f64>>(p) }),
        DType::Bool => Import {
            zero_copy: false,
            ..from
        }
        .build(|p| unsafe { p.read() != 0 }),
        DType::String => return Err(buffer_error("DLPack has no string dtype".into())),
    })
}

/// A tensor from any object with `__dlpack__` (a NumPy array, a torch tensor, ...) or from a
/// DLPack capsule, sharing its memory when it can (C-contiguous, aligned, on the CPU, a dtype
/// rustape has), else a copy.
///
/// The tensor is immutable, but the producer's array may not be: writing to it afterwards
/// changes the tensor too. Pass `copy=True` for a tensor of its own.
///
/// >>> import numpy as np
/// >>> a = np.arange(6.0).reshape(2, 3)
/// >>> t = rt.from_dlpack(a)
/// >>> t.shape, t.dtype.name
/// ((2, 3), 'float64')
/// >>> float(rt.reduce_sum(t))
/// 15.0
#[pyfunction]
#[pyo3(signature = (x, /, *, device=None, copy=None))]
fn from_dlpack(
    x: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<PyTensor> {
    guard(|| {
        let py = x.py();
        if let Some(device) = device.filter(|d| !d.is_none()) {
            let cpu = device.extract::<(i32, i32)>().is_ok_and(|d| d == (CPU, 0))
                || device.extract::<String>().is_ok_and(|d| d == "cpu");
            if !cpu {
                return Err(value_error(
                    OP,
                    format!("rustape tensors live on the CPU; device {device} was asked for"),
                ));
            }
        }
        let capsule = if x.hasattr("__dlpack__")? {
            if let Ok(device) = x.call_method0("__dlpack_device__") {
                let (device_type, _): (i32, i32) = device.extract()?;
                if device_type != CPU {
                    return Err(value_error(
                        OP,
                        format!(
                            "the tensor is on DLPack device type {device_type} (rustape runs \
                             on the CPU, type 1): move it to the CPU first"
                        ),
                    ));
                }
            }
            let kwargs = PyDict::new(py);
            kwargs.set_item("max_version", (1, 0))?;
            if let Some(copy) = copy {
                kwargs.set_item("copy", copy)?;
            }
            match x.call_method("__dlpack__", (), Some(&kwargs)) {
                Ok(capsule) => capsule,
                // A producer older than DLPack 1.0 takes no keywords.
                Err(e) if e.is_instance_of::<PyTypeError>(py) => x.call_method0("__dlpack__")?,
                Err(e) => return Err(e),
            }
        } else {
            x.clone()
        };
        let imported = consume(&capsule)?;
        Ok(PyTensor::new(import(imported, copy)?))
    })
}

/// TensorFlow's `tf.experimental.dlpack.to_dlpack`: a DLPack capsule (the legacy form) of
/// the tensor's memory, for a consumer that takes capsules. Objects are better passed
/// directly: `np.from_dlpack(t)`, `torch.from_dlpack(t)`.
///
/// >>> capsule = rt.experimental.dlpack.to_dlpack(rt.constant([1.0, 2.0]))
/// >>> rt.experimental.dlpack.from_dlpack(capsule).numpy()
/// array([1., 2.], dtype=float32)
#[pyfunction]
fn to_dlpack<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let t = super::convert::to_tensor(x, None)?;
        export_capsule(x.py(), t, false, false)
    })
}

/// `(1, 0)`: DLPack's CPU device, for `__dlpack_device__`.
pub fn cpu_device<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [CPU, 0])
}

super::bindings::bindings! {
    fn from_dlpack => [rt, experimental.dlpack];
    fn to_dlpack => [experimental.dlpack];
}
