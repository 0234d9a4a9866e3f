//! Op functions: `rt.signal` (the FFTs and the frequency shifts).
use pyo3::prelude::*;

use super::bindings::bindings;
use super::error::{guard, value_error};
use super::ops::{axes, ints, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::ops;
use crate::tensor::Tensor;

/// `fft_length` as `rank` non-negative lengths (`None`: the op's default).
fn fft_lengths(op: &str, fft_length: OptObj, x: &Tensor) -> PyResult<Option<Vec<usize>>> {
    let Some(obj) = fft_length.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let values = ints(obj, op)?;
    if values.iter().any(|&v| v < 0) {
        return Err(value_error(
            op,
            format!(
                "fft_length must be non-negative, got {values:?} for an input of shape {:?} ({})",
                x.shape(),
                x.dtype()
            ),
        ));
    }
    Ok(Some(values.into_iter().map(|v| v as usize).collect()))
}

macro_rules! complex_transforms {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (input, name=None))]
        pub fn $name(input: Obj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            guard(|| wrap(ops::$name(&tensor(input)?)))
        }
    )*};
}

complex_transforms! {
    /// `rt.signal.fft(input)`: the discrete Fourier transform of the innermost axis of a
    /// complex tensor (complex64 or complex128), as `tf.signal.fft`. Differentiable (its
    /// gradient is `n * ifft` of the cotangent).
    ///
    /// >>> rt.signal.fft(rt.constant([1, 2, 3, 4], dtype=rt.complex64)).numpy().tolist()
    /// [(10+0j), (-2+2j), (-2+0j), (-2-2j)]
    fft;
    /// `rt.signal.ifft(input)`: the inverse DFT of the innermost axis, scaled by `1 / n`
    /// (`tf.signal.ifft`).
    ///
    /// >>> rt.signal.ifft(rt.constant([4, 0, 0, 0], dtype=rt.complex128)).numpy().tolist()
    /// [(1+0j), (1+0j), (1+0j), (1+0j)]
    ifft;
    /// `rt.signal.fft2d(input)`: the DFT over the innermost two axes (`tf.signal.fft2d`).
    ///
    /// >>> rt.signal.fft2d(rt.ones([2, 2], dtype=rt.complex64)).numpy().real.tolist()
    /// [[4.0, 0.0], [0.0, 0.0]]
    fft2d;
    /// `rt.signal.ifft2d(input)`: the inverse DFT over the innermost two axes, scaled by
    /// `1 / (m n)` (`tf.signal.ifft2d`).
    ///
    /// >>> x = rt.constant([[4, 0], [0, 0]], dtype=rt.complex64)
    /// >>> rt.signal.ifft2d(x).numpy().real.tolist()
    /// [[1.0, 1.0], [1.0, 1.0]]
    ifft2d;
    /// `rt.signal.fft3d(input)`: the DFT over the innermost three axes (`tf.signal.fft3d`).
    ///
    /// >>> rt.signal.fft3d(rt.ones([2, 2, 2], dtype=rt.complex64)).numpy().real[0, 0, 0]
    /// np.float32(8.0)
    fft3d;
    /// `rt.signal.ifft3d(input)`: the inverse DFT over the innermost three axes
    /// (`tf.signal.ifft3d`).
    ///
    /// >>> x = rt.signal.fft3d(rt.ones([2, 2, 2], dtype=rt.complex64))
    /// >>> rt.signal.ifft3d(x).numpy().real.tolist()[0]
    /// [[1.0, 1.0], [1.0, 1.0]]
    ifft3d;
}

macro_rules! real_transforms {
    ($($(#[$doc:meta])* $name:ident => $rust:ident, $rank:expr;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (input_tensor, fft_length=None, name=None))]
        pub fn $name(input_tensor: Obj, fft_length: OptObj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            guard(|| {
                let x = tensor(input_tensor)?;
                let lengths = fft_lengths(stringify!($name), fft_length, &x)?;
                wrap(ops::$rust(&x, $rank, lengths.as_deref()))
            })
        }
    )*};
}

real_transforms! {
    /// `rt.signal.rfft(input_tensor, fft_length=None)`: the DFT of the innermost axis of a
    /// real tensor, its `fft_length // 2 + 1` non-negative frequencies (`tf.signal.rfft`).
    /// `fft_length` (a list of one length; default the axis's length) crops or zero-pads the
    /// axis first. float32 gives complex64, float64 complex128. Differentiable, also through
    /// the cropping and padding.
    ///
    /// >>> rt.signal.rfft(rt.constant([1.0, 2.0, 3.0, 4.0])).numpy().tolist()
    /// [(10+0j), (-2+2j), (-2+0j)]
    rfft => rfft_nd, 1;
    /// `rt.signal.irfft(input_tensor, fft_length=None)`: the real signals whose `rfft` is
    /// `input_tensor` (`tf.signal.irfft`): `fft_length` (default `2 * (bins - 1)`) samples;
    /// the input's innermost axis is cropped or zero-padded to `fft_length // 2 + 1` bins. The
    /// imaginary parts of the zero and Nyquist bins are ignored.
    ///
    /// >>> spectrum = rt.signal.rfft(rt.constant([1.0, 2.0, 3.0, 4.0]))
    /// >>> rt.signal.irfft(spectrum).numpy().tolist()
    /// [1.0, 2.0, 3.0, 4.0]
    irfft => irfft_nd, 1;
    /// `rt.signal.rfft2d(input_tensor, fft_length=None)`: the DFT of a real tensor over its
    /// innermost two axes, the innermost keeping `fft_length[1] // 2 + 1` frequencies
    /// (`tf.signal.rfft2d`).
    ///
    /// >>> rt.signal.rfft2d(rt.ones([2, 4])).numpy().real.tolist()
    /// [[8.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    rfft2d => rfft_nd, 2;
    /// `rt.signal.irfft2d(input_tensor, fft_length=None)`: the inverse of `rfft2d`
    /// (`tf.signal.irfft2d`).
    ///
    /// >>> x = rt.signal.rfft2d(rt.ones([2, 4]))
    /// >>> rt.signal.irfft2d(x).numpy().tolist()
    /// [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    irfft2d => irfft_nd, 2;
    /// `rt.signal.rfft3d(input_tensor, fft_length=None)`: the DFT of a real tensor over its
    /// innermost three axes (`tf.signal.rfft3d`).
    ///
    /// >>> rt.signal.rfft3d(rt.ones([2, 2, 2])).shape
    /// (2, 2, 2)
    rfft3d => rfft_nd, 3;
    /// `rt.signal.irfft3d(input_tensor, fft_length=None)`: the inverse of `rfft3d`
    /// (`tf.signal.irfft3d`).
    ///
    /// >>> x = rt.signal.rfft3d(rt.ones([2, 2, 3]))
    /// >>> rt.signal.irfft3d(x, fft_length=[2, 2, 3]).shape
    /// (2, 2, 3)
    irfft3d => irfft_nd, 3;
}

/// `rt.signal.fftshift(x, axes=None)`: rolls each of `axes` (default: every axis) by half its
/// length, moving the zero frequency to the centre (`tf.signal.fftshift`).
///
/// >>> rt.signal.fftshift(rt.constant([0, 1, 2, 3, 4])).numpy().tolist()
/// [3, 4, 0, 1, 2]
#[pyfunction]
#[pyo3(signature = (x, axes=None, name=None))]
pub fn fftshift(x: Obj, axes: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let axes = self::axes(axes, "fftshift")?;
        wrap(ops::fftshift(&tensor(x)?, axes.as_deref()))
    })
}

/// `rt.signal.ifftshift(x, axes=None)`: the inverse of `fftshift` (`tf.signal.ifftshift`).
///
/// >>> rt.signal.ifftshift(rt.constant([3, 4, 0, 1, 2])).numpy().tolist()
/// [0, 1, 2, 3, 4]
#[pyfunction]
#[pyo3(signature = (x, axes=None, name=None))]
pub fn ifftshift(x: Obj, axes: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let axes = self::axes(axes, "ifftshift")?;
        wrap(ops::ifftshift(&tensor(x)?, axes.as_deref()))
    })
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn fft => [signal];
    fn ifft => [signal];
    fn fft2d => [signal];
    fn ifft2d => [signal];
    fn fft3d => [signal];
    fn ifft3d => [signal];
    fn rfft => [signal];
    fn irfft => [signal];
    fn rfft2d => [signal];
    fn irfft2d => [signal];
    fn rfft3d => [signal];
    fn irfft3d => [signal];
    fn fftshift => [signal];
    fn ifftshift => [signal];
}
