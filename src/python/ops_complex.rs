//! Complex numbers: `rt.complex`, `rt.math.real`, `imag`, `conj`, `angle` and
//! `rt.linalg.adjoint`, with TensorFlow 2.21's signatures (each accepts and ignores `name`).
//! Gradients follow TensorFlow's convention (see `ops::complex`).
use pyo3::prelude::*;

use super::bindings::bindings;
use super::error::guard;
use super::ops::{tensor, wrap, Obj, OptObj};
use super::tensor::{binary, PyTensor};
use crate::ops;

/// `real + imag * 1j`, broadcasting: float32 parts give complex64, float64 parts complex128
/// (the parts must share a dtype). Gradient: the real part of the output gradient to `real`,
/// its imaginary part to `imag`.
///
/// >>> import rustape as rt
/// >>> z = rt.complex(rt.constant([1.0, 2.0]), rt.constant([3.0, -1.0]))
/// >>> z.dtype, z.numpy().tolist()
/// (rt.complex64, [(1+3j), (2-1j)])
#[pyfunction]
#[pyo3(signature = (real, imag, name=None))]
pub fn complex(real: Obj, imag: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    binary(real, imag, ops::complex)
}

/// The real part of a complex tensor (float32 for complex64, float64 for complex128); a real
/// tensor is returned unchanged.
///
/// >>> import rustape as rt
/// >>> rt.math.real(rt.constant([1 + 2j, 3 - 4j])).numpy().tolist()
/// [1.0, 3.0]
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn real(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::real(&tensor(input)?)))
}

/// The imaginary part of a complex tensor; zeros for a real tensor.
///
/// >>> import rustape as rt
/// >>> rt.math.imag(rt.constant([1 + 2j, 3 - 4j])).numpy().tolist()
/// [2.0, -4.0]
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn imag(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::imag(&tensor(input)?)))
}

/// The complex conjugate; a real tensor is returned unchanged.
///
/// >>> import rustape as rt
/// >>> rt.math.conj(rt.constant([1 + 2j])).numpy().tolist()
/// [(1-2j)]
#[pyfunction]
#[pyo3(signature = (x, name=None))]
pub fn conj(x: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::conj(&tensor(x)?)))
}

/// The argument of each complex element, in (-pi, pi]; for a real tensor pi where it is
/// negative and 0 elsewhere.
///
/// >>> import rustape as rt
/// >>> round(float(rt.math.angle(rt.constant(1j))), 6)
/// 1.570796
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn angle(input: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::angle(&tensor(input)?)))
}

/// The conjugate transpose of the last two axes (the transpose for a real tensor).
///
/// >>> import rustape as rt
/// >>> rt.linalg.adjoint(rt.constant([[1 + 1j, 2j]])).numpy().tolist()
/// [[(1-1j)], [-2j]]
#[pyfunction]
#[pyo3(signature = (matrix, name=None))]
pub fn adjoint(matrix: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::adjoint(&tensor(matrix)?)))
}

bindings! {
    fn complex => [rt];
    fn real => [math];
    fn imag => [math];
    fn conj => [math];
    fn angle => [math];
    fn adjoint => [linalg];
}
