//! Op functions: `rt.bitwise` (TensorFlow's `tf.bitwise`), `rt.saturate_cast`, and the integer
//! kernels behind `keras.ops.gcd`, `lcm` and `argpartition` (rows of the extension only).
use pyo3::prelude::*;

use super::bindings::bindings;
use super::dtype::parse_dtype;
use super::error::{axis_arg, axis_or, guard};
use super::ops::{tensor, wrap, Obj, OptObj};
use super::tensor::{binary, PyTensor};
use crate::ops;

macro_rules! binary_int {
    ($($(#[doc = $doc:literal])* $name:ident($a:ident, $b:ident);)*) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(signature = ($a, $b, name=None))]
        pub fn $name($a: Obj, $b: Obj, name: OptObj) -> PyResult<PyTensor> {
            let _ = name;
            binary($a, $b, ops::$name)
        }
    )*};
}

binary_int! {
    /// The bits set in both `x` and `y`, elementwise with broadcasting (int32 or int64).
    ///
    /// >>> import rustape as rt
    /// >>> rt.bitwise.bitwise_and([12, -1], [10, 6]).numpy()
    /// array([8, 6], dtype=int32)
    bitwise_and(x, y);
    /// The bits set in `x` or `y`, elementwise with broadcasting (int32 or int64).
    ///
    /// >>> import rustape as rt
    /// >>> rt.bitwise.bitwise_or([12, 0], [10, 6]).numpy()
    /// array([14,  6], dtype=int32)
    bitwise_or(x, y);
    /// The bits set in exactly one of `x` and `y`, elementwise with broadcasting.
    ///
    /// >>> import rustape as rt
    /// >>> rt.bitwise.bitwise_xor([12, -1], [10, 6]).numpy()
    /// array([ 6, -7], dtype=int32)
    bitwise_xor(x, y);
    /// `x` shifted left by `y` bits (int32 or int64), with broadcasting. As TensorFlow's
    /// kernel, a count below 0 shifts by 0 and one of the width or more by the width minus 1;
    /// the bits shifted out are lost.
    ///
    /// >>> import rustape as rt
    /// >>> rt.bitwise.left_shift([1, -3, 1], [4, 1, 40]).numpy()
    /// array([         16,          -6, -2147483648], dtype=int32)
    left_shift(x, y);
    /// `x` shifted right by `y` bits, copying the sign bit (int32 or int64), with
    /// broadcasting; counts clamped to `[0, width - 1]` as TensorFlow's kernel clamps them.
    ///
    /// >>> import rustape as rt
    /// >>> rt.bitwise.right_shift([256, -256, -1], [4, 4, 99]).numpy()
    /// array([ 16, -16,  -1], dtype=int32)
    right_shift(x, y);
    /// The greatest common divisor of `|x1|` and `|x2|`, with broadcasting, as Keras 3
    /// computes it (0 for two zeros); the kernel of `keras.ops.gcd`.
    ///
    /// >>> import rustape as rt
    /// >>> rt.keras.ops.gcd([12, 0, -9], [18, 5, 6]).numpy()
    /// array([6, 5, 3], dtype=int32)
    gcd(x1, x2);
    /// The least common multiple of `|x1|` and `|x2|`, with broadcasting, as Keras 3 computes
    /// it (0 when either is 0; overflow wraps); the kernel of `keras.ops.lcm`.
    ///
    /// >>> import rustape as rt
    /// >>> rt.keras.ops.lcm([4, 0, -3], [6, 5, 7]).numpy()
    /// array([12,  0, 21], dtype=int32)
    lcm(x1, x2);
}

/// Every bit of `x` flipped (int32 or int64): `-x - 1`.
///
/// >>> import rustape as rt
/// >>> rt.bitwise.invert([0, 5, -1]).numpy()
/// array([-1, -6,  0], dtype=int32)
#[pyfunction]
#[pyo3(signature = (x, name=None))]
pub fn invert(x: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::invert(&tensor(x)?)))
}

/// `value` cast to `dtype` after clamping it to the range `dtype` can hold
/// (`tf.dtypes.saturate_cast`): floats to integers clamp to the nearest float inside the
/// integer's range (float32 to int32 at 2147483520), float64 to float32 clamps to float32's
/// finite range (infinities too, as TensorFlow), complex parts are clamped separately, and
/// a complex value cast to a real dtype keeps its real part. The gradient is the clamp's.
///
/// >>> import rustape as rt
/// >>> rt.saturate_cast([-1e10, 2.5, 1e10], rt.int32).numpy()
/// array([-2147483648,           2,  2147483520], dtype=int32)
#[pyfunction]
#[pyo3(signature = (value, dtype, name=None))]
pub fn saturate_cast(value: Obj, dtype: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::saturate_cast(&tensor(value)?, parse_dtype(dtype)?)))
}

/// The positions (int32) that partition every lane of `x` along `axis` around its `kth`
/// smallest element (NumPy's definition; a negative `kth` counts from the end): the `kth + 1`
/// smallest first, ascending, then the rest, descending. The kernel of
/// `keras.ops.argpartition`.
///
/// >>> import rustape as rt
/// >>> rt.keras.ops.argpartition([3, 1, 2, 5, 4, 0], 2).numpy()
/// array([5, 1, 2, 3, 4, 0], dtype=int32)
#[pyfunction]
#[pyo3(signature = (x, kth, axis=None), text_signature = "(x, kth, axis=-1)")]
pub fn argpartition(x: Obj, kth: Obj, axis: OptObj) -> PyResult<PyTensor> {
    guard(|| {
        let op = "argpartition";
        let kth = axis_arg(kth, op, "kth")?;
        let axis = axis_or(axis, -1, op, "axis")?;
        wrap(ops::argpartition(&tensor(x)?, kth, axis))
    })
}

bindings! {
    fn bitwise_and => [bitwise];
    fn bitwise_or => [bitwise];
    fn bitwise_xor => [bitwise];
    fn invert => [bitwise];
    fn left_shift => [bitwise];
    fn right_shift => [bitwise];
    fn saturate_cast => [rt];
    fn gcd => [];
    fn lcm => [];
    fn argpartition => [];
}
