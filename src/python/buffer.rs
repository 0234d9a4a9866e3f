//! The buffer protocol (read-only, C-contiguous): `memoryview(t)`, `np.frombuffer(t, ...)`.
//!
//! Under the stable ABI PyO3 offers `__getbuffer__` only when building for Python 3.11+, but
//! CPython takes the buffer slots in a type spec since 3.9, so the slots are handed to PyO3's
//! class builder directly (through the `multiple-pymethods` inventory).
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

use pyo3::ffi;
use pyo3::prelude::*;

use super::dlpack::{buffer_error, data_ptr, row_major};
use super::error::guard;
use super::tensor::{PyTensor, PyVariable};
use crate::dtype::DType;
use crate::tensor::Tensor;

/// `Py_buffer` as CPython lays it out (part of the stable ABI from 3.11; the same layout since
/// 3.3). PyO3 defines it only when building for 3.11+.
#[repr(C)]
struct PyBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

const PYBUF_WRITABLE: c_int = 0x0001;
const PYBUF_FORMAT: c_int = 0x0004;
const PYBUF_ND: c_int = 0x0008;
const PYBUF_STRIDES: c_int = 0x0010 | PYBUF_ND;
const PYBUF_F_CONTIGUOUS: c_int = 0x0040 | PYBUF_STRIDES;

/// What a buffer view keeps alive until it is released.
struct View {
    _tensor: Tensor,
    shape: Vec<ffi::Py_ssize_t>,
    strides: Vec<ffi::Py_ssize_t>,
}

/// The struct-module format of each dtype.
fn format(dtype: DType) -> &'static CStr {
    match dtype {
        DType::F32 => c"f",
        DType::F64 => c"d",
        DType::I32 => c"i",
        DType::I64 => c"q",
        DType::Bool => c"?",
        DType::Complex64 => c"Zf",
        DType::Complex128 => c"Zd",
        DType::String => c"O",
    }
}

fn fill_buffer(obj: &Bound<'_, PyAny>, view: *mut PyBuffer, flags: c_int) -> PyResult<()> {
    let t = if let Ok(t) = obj.cast::<PyTensor>() {
        t.get().t.clone()
    } else if let Ok(v) = obj.cast::<PyVariable>() {
        v.get().v.peek()
    } else {
        return Err(buffer_error("not a rustape Tensor or Variable".into()));
    };
    if flags & PYBUF_WRITABLE == PYBUF_WRITABLE {
        return Err(buffer_error(
            "rustape tensors are immutable: their buffer is read-only".into(),
        ));
    }
    if t.dtype() == DType::String {
        return Err(buffer_error(
            "a string tensor has no buffer (its elements are not fixed-size numbers)".into(),
        ));
    }
    let fortran = t.shape().iter().filter(|&&d| d > 1).count() > 1;
    if flags & PYBUF_F_CONTIGUOUS == PYBUF_F_CONTIGUOUS && fortran {
        return Err(buffer_error(
            "rustape tensors are C-contiguous (row-major), not Fortran-contiguous".into(),
        ));
    }
    let itemsize = t.dtype().size_of() as ffi::Py_ssize_t;
    let shape: Vec<ffi::Py_ssize_t> = t.shape().iter().map(|&d| d as _).collect();
    let strides = row_major(t.shape())
        .into_iter()
        .map(|s| s as ffi::Py_ssize_t * itemsize)
        .collect();
    let ndim = shape.len() as c_int;
    let len = t.size() as ffi::Py_ssize_t * itemsize;
    let buf = data_ptr(&t);
    let dtype = t.dtype();
    let mut kept = Box::new(View {
        _tensor: t,
        shape,
        strides,
    });
    // SAFETY: `view` is the caller's struct to fill; the pointers stay valid until
    // `release_buffer` frees `kept` (stored in `internal`).
    unsafe {
        let view = &mut *view;
        view.buf = buf;
        view.obj = obj.clone().into_ptr();
        view.len = len;
        view.itemsize = itemsize;
        view.readonly = 1;
        view.ndim = ndim;
        view.format = if flags & PYBUF_FORMAT != 0 {
            format(dtype).as_ptr().cast_mut()
        } else {
            ptr::null_mut()
        };
        view.shape = if flags & PYBUF_ND == PYBUF_ND {
            kept.shape.as_mut_ptr()
        } else {
            ptr::null_mut()
        };
        view.strides = if flags & PYBUF_STRIDES == PYBUF_STRIDES {
            kept.strides.as_mut_ptr()
        } else {
            ptr::null_mut()
        };
        view.suboffsets = ptr::null_mut();
        view.internal = Box::into_raw(kept).cast();
    }
    Ok(())
}

unsafe extern "C" fn get_buffer(
    obj: *mut ffi::PyObject,
    view: *mut PyBuffer,
    flags: c_int,
) -> c_int {
    // SAFETY: CPython calls this slot holding the GIL, with a live object.
    let py = unsafe { Python::assume_attached() };
    let obj = unsafe { Bound::from_borrowed_ptr(py, obj) };
    if view.is_null() {
        buffer_error("a buffer request without a view".into()).restore(py);
        return -1;
    }
    match guard(|| fill_buffer(&obj, view, flags)) {
        Ok(()) => 0,
        Err(e) => {
            // SAFETY: the protocol asks for `obj` NULL on failure.
            unsafe { (*view).obj = ptr::null_mut() };
            e.restore(py);
            -1
        }
    }
}

unsafe extern "C" fn release_buffer(_obj: *mut ffi::PyObject, view: *mut PyBuffer) {
    // SAFETY: `internal` is the `View` that `fill_buffer` leaked for this view.
    unsafe {
        let kept = (*view).internal.cast::<View>();
        if !kept.is_null() {
            drop(Box::from_raw(kept));
            (*view).internal = ptr::null_mut();
        }
    }
}

type GetBuffer = unsafe extern "C" fn(*mut ffi::PyObject, *mut PyBuffer, c_int) -> c_int;
type ReleaseBuffer = unsafe extern "C" fn(*mut ffi::PyObject, *mut PyBuffer);

/// The buffer slots of both classes, added to what `#[pymethods]` declares.
macro_rules! buffer_slots {
    ($cls:ty) => {
        pyo3::inventory::submit! {
            type Inventory = <$cls as pyo3::impl_::pyclass::PyClassImpl>::Inventory;
            Inventory::new(pyo3::impl_::pyclass::PyClassItems {
                methods: &[],
                slots: &[
                    ffi::PyType_Slot {
                        slot: ffi::Py_bf_getbuffer,
                        pfunc: get_buffer as GetBuffer as *mut c_void,
                    },
                    ffi::PyType_Slot {
                        slot: ffi::Py_bf_releasebuffer,
                        pfunc: release_buffer as ReleaseBuffer as *mut c_void,
                    },
                ],
            })
        }
    };
}

buffer_slots!(PyTensor);
buffer_slots!(PyVariable);
