//! Op functions, part two: shape, linear algebra, creation.
use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::bindings::bindings;
use super::convert::{convert_all, dtype_of, items, to_tensor};
use super::dtype::parse_optional_dtype;
use super::error::{axis_arg, axis_or, count_arg, guard, type_error, value_error};
use super::ops::{axis, ints, number, shape, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::ops::{self, PadMode};
use crate::tensor::Tensor;

// ---------------------------------------------------------------------------------------
// Shape

/// `tensor` with the same elements in `shape` (one dimension may be -1: inferred).
///
/// >>> rt.reshape(rt.range(6), [2, -1]).numpy()
/// array([[0, 1, 2],
///        [3, 4, 5]], dtype=int32)
#[pyfunction]
#[pyo3(signature = (tensor, shape, name=None))]
pub fn reshape(tensor: Obj, shape: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let dims: Vec<isize> = ints(shape, "reshape")?
            .into_iter()
            .map(|d| d as isize)
            .collect();
        wrap(ops::reshape(&super::ops::tensor(tensor)?, &dims))
    })
}

/// `rt.transpose(a, perm=None)`: `perm` None reverses the axes; negative entries count from
/// the end.
///
/// >>> rt.transpose(rt.constant([[1, 2, 3], [4, 5, 6]])).numpy()
/// array([[1, 4],
///        [2, 5],
///        [3, 6]], dtype=int32)
/// >>> rt.transpose(rt.zeros([2, 3, 4]), perm=[0, 2, 1]).shape
/// (2, 4, 3)
#[pyfunction]
#[pyo3(signature = (a, perm=None, conjugate=false, name=None))]
pub fn transpose(a: Obj, perm: OptObj, conjugate: bool, name: OptObj) -> PyResult<PyTensor> {
    let _ = (name, conjugate);
    guard(|| {
        let x = tensor(a)?;
        let perm = match perm.filter(|p| !p.is_none()) {
            None => None,
            Some(p) => Some(
                ints(p, "transpose")?
                    .into_iter()
                    .map(|v| ops::normalize_axis("transpose", v as isize, x.ndim()))
                    .collect::<crate::Result<Vec<usize>>>()?,
            ),
        };
        wrap(ops::transpose(&x, perm.as_deref()))
    })
}

/// `input` with a new axis of size 1 at `axis`.
///
/// >>> rt.expand_dims([1.0, 2.0], 0).shape
/// (1, 2)
/// >>> rt.expand_dims([1.0, 2.0], -1).shape
/// (2, 1)
#[pyfunction]
#[pyo3(signature = (input, axis, name=None))]
pub fn expand_dims(input: Obj, axis: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        wrap(ops::expand_dims(
            &tensor(input)?,
            self::axis(axis, "expand_dims")?,
        ))
    })
}

/// `input` without its axes of size 1 (only those in `axis` when given).
///
/// >>> rt.squeeze(rt.zeros([1, 3, 1])).shape
/// (3,)
/// >>> rt.squeeze(rt.zeros([1, 3, 1]), axis=[0]).shape
/// (3, 1)
#[pyfunction]
#[pyo3(signature = (input, axis=None, name=None))]
pub fn squeeze(input: Obj, axis: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let axes = super::ops::axes(axis, "squeeze")?;
        wrap(ops::squeeze(&tensor(input)?, axes.as_deref()))
    })
}

/// The tensors of a `values` list, sharing the first tensor's dtype.
fn tensors(values: Obj) -> PyResult<Vec<Tensor>> {
    convert_all(&items(values)?, None)
}

/// The tensors of `values` joined along `axis`.
///
/// >>> rt.concat([[[1, 2]], [[3, 4]]], axis=0).numpy()
/// array([[1, 2],
///        [3, 4]], dtype=int32)
#[pyfunction]
#[pyo3(signature = (values, axis, name=None))]
pub fn concat(values: Obj, axis: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::concat(&tensors(values)?, self::axis(axis, "concat")?)))
}

/// The tensors of `values` (of one shape) stacked along a new axis.
///
/// >>> rt.stack([[1, 2], [3, 4]], axis=1).numpy()
/// array([[1, 3],
///        [2, 4]], dtype=int32)
#[pyfunction]
#[pyo3(signature = (values, axis=None, name=None), text_signature = "(values, axis=0, name=None)")]
pub fn stack(values: Obj, axis: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let axis = axis_or(axis, 0, "stack", "axis")?;
        wrap(ops::stack(&tensors(values)?, axis))
    })
}

/// `rt.unstack(value, num=None, axis=0)`: a list of tensors.
///
/// >>> [t.numpy() for t in rt.unstack(rt.constant([[1, 2], [3, 4]]))]
/// [array([1, 2], dtype=int32), array([3, 4], dtype=int32)]
#[pyfunction]
#[pyo3(signature = (value, num=None, axis=None, name=None), text_signature = "(value, num=None, axis=0, name=None)")]
pub fn unstack(value: Obj, num: OptObj, axis: OptObj, name: OptObj) -> PyResult<Vec<PyTensor>> {
    let _ = name;
    guard(|| {
        let axis = match axis.filter(|a| !a.is_none()) {
            Some(a) => axis_arg(a, "unstack", "axis")?,
            None => 0,
        };
        let num = match num.filter(|n| !n.is_none()) {
            Some(n) => Some(count_arg(n, "unstack", "num")?),
            None => None,
        };
        let parts = ops::unstack(&tensor(value)?, axis)?;
        if let Some(n) = num {
            if n != parts.len() {
                return Err(value_error(
                    "unstack",
                    format!("num is {n} but the axis has {} elements", parts.len()),
                ));
            }
        }
        Ok(parts.into_iter().map(PyTensor::new).collect())
    })
}

/// `rt.pad(tensor, paddings, mode='CONSTANT', constant_values=0)`.
///
/// >>> rt.pad([[1, 2]], [[1, 0], [0, 1]]).numpy()
/// array([[0, 0, 0],
///        [1, 2, 0]], dtype=int32)
#[pyfunction]
#[pyo3(signature = (tensor, paddings, mode="CONSTANT", constant_values=None, name=None))]
pub fn pad(
    tensor: Obj,
    paddings: Obj,
    mode: &str,
    constant_values: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let x = super::ops::tensor(tensor)?;
        let flat = ints(paddings, "pad")?;
        if flat.len() % 2 != 0 || flat.iter().any(|&p| p < 0) {
            return Err(value_error(
                "pad",
                format!("paddings must be [rank, 2] non-negative integers, got {flat:?}"),
            ));
        }
        let pairs: Vec<(usize, usize)> = flat
            .chunks(2)
            .map(|p| (p[0] as usize, p[1] as usize))
            .collect();
        let mode = match mode.to_ascii_uppercase().as_str() {
            "CONSTANT" => PadMode::Constant,
            "REFLECT" => PadMode::Reflect,
            "SYMMETRIC" => PadMode::Symmetric,
            other => {
                return Err(value_error(
                    "pad",
                    format!("mode must be CONSTANT, REFLECT or SYMMETRIC, got {other:?}"),
                ))
            }
        };
        let fill = match constant_values.filter(|c| !c.is_none()) {
            Some(c) => number(c, "pad")?,
            None => 0.0,
        };
        wrap(ops::pad(&x, &pairs, mode, fill))
    })
}

/// `input` repeated `multiples[i]` times along each axis.
///
/// >>> rt.tile([[1, 2]], [2, 2]).numpy()
/// array([[1, 2, 1, 2],
///        [1, 2, 1, 2]], dtype=int32)
#[pyfunction]
#[pyo3(signature = (input, multiples, name=None))]
pub fn tile(input: Obj, multiples: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| wrap(ops::tile(&tensor(input)?, &shape(multiples, "tile")?)))
}

/// `input` broadcast to `shape` (NumPy's rules).
///
/// >>> rt.broadcast_to([1.0, 2.0], [2, 2]).numpy()
/// array([[1., 2.],
///        [1., 2.]], dtype=float32)
#[pyfunction]
#[pyo3(signature = (input, shape, name=None))]
pub fn broadcast_to(input: Obj, shape: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        wrap(ops::broadcast_to(
            &tensor(input)?,
            &self::shape(shape, "broadcast_to")?,
        ))
    })
}

/// `rt.gather(params, indices, axis=None, batch_dims=0)` (axis None is `batch_dims`).
///
/// >>> rt.gather([10.0, 20.0, 30.0], [2, 0, 2]).numpy()
/// array([30., 10., 30.], dtype=float32)
#[pyfunction]
#[pyo3(signature = (params, indices, axis=None, batch_dims=None, *, validate_indices=None, name=None), text_signature = "(params, indices, axis=None, batch_dims=0, *, validate_indices=None, name=None)")]
pub fn gather(
    params: Obj,
    indices: Obj,
    axis: OptObj,
    batch_dims: OptObj,
    validate_indices: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = (name, validate_indices);
    guard(|| {
        let batch_dims = match batch_dims.filter(|b| !b.is_none()) {
            Some(b) => axis_arg(b, "gather", "batch_dims")?,
            None => 0,
        };
        let params = tensor(params)?;
        let indices = tensor(indices)?;
        let batch_dims = if batch_dims < 0 {
            batch_dims + indices.ndim() as isize
        } else {
            batch_dims
        };
        let batch_dims = usize::try_from(batch_dims).map_err(|_| {
            value_error("gather", format!("batch_dims {batch_dims} is out of range"))
        })?;
        let ax = match axis.filter(|a| !a.is_none()) {
            Some(a) => self::axis(a, "gather")?,
            None => batch_dims as isize,
        };
        wrap(ops::gather(&params, &indices, ax, batch_dims))
    })
}

/// `rt.one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None)`.
///
/// >>> rt.one_hot([0, 2], 3).numpy()
/// array([[1., 0., 0.],
///        [0., 0., 1.]], dtype=float32)
#[pyfunction]
#[pyo3(signature = (indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None))]
pub fn one_hot(
    indices: Obj,
    depth: Obj,
    on_value: OptObj,
    off_value: OptObj,
    axis: OptObj,
    dtype: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let depth = count_arg(depth, "one_hot", "depth")?;
        let axis = match axis.filter(|a| !a.is_none()) {
            Some(a) => Some(axis_arg(a, "one_hot", "axis")?),
            None => None,
        };
        let on = on_value.filter(|o| !o.is_none());
        let off = off_value.filter(|o| !o.is_none());
        let dtype = match parse_optional_dtype(dtype)? {
            Some(d) => d,
            None => on
                .or(off)
                .and_then(|v| to_tensor(v, None).ok())
                .map_or(DType::F32, |t| t.dtype()),
        };
        let indices = tensor(indices)?;
        let mut y = ops::one_hot(&indices, depth, dtype)?;
        if on.is_some() || off.is_some() {
            let on = match on {
                Some(v) => to_tensor(v, Some(dtype))?,
                None => Tensor::ones(&[], dtype),
            };
            let off = match off {
                Some(v) => to_tensor(v, Some(dtype))?,
                None => Tensor::zeros(&[], dtype),
            };
            // on * hot + off * (1 - hot)
            let cold = ops::subtract(&Tensor::ones(&[], dtype), &y)?;
            y = ops::add(&ops::multiply(&y, &on)?, &ops::multiply(&cold, &off)?)?;
        }
        if let Some(ax) = axis.filter(|&a| a != -1) {
            let rank = y.ndim();
            let ax = ops::normalize_axis("one_hot", ax, rank)?;
            let mut perm: Vec<usize> = (0..rank - 1).collect();
            perm.insert(ax, rank - 1);
            y = ops::transpose(&y, Some(&perm))?;
        }
        Ok(PyTensor::new(y))
    })
}

// ---------------------------------------------------------------------------------------
// Linear algebra

/// `rt.matmul(a, b, transpose_a=False, transpose_b=False)` (batched, broadcasting; `adjoint_*`
/// are the same for real tensors).
///
/// >>> rt.matmul([[1.0, 2.0]], [[3.0], [4.0]]).numpy()
/// array([[11.]], dtype=float32)
/// >>> rt.matmul(rt.ones([5, 2, 3]), rt.ones([3, 4])).shape
/// (5, 2, 4)
#[pyfunction]
#[pyo3(signature = (a, b, transpose_a=false, transpose_b=false, adjoint_a=false, adjoint_b=false, name=None))]
pub fn matmul(
    a: Obj,
    b: Obj,
    transpose_a: bool,
    transpose_b: bool,
    adjoint_a: bool,
    adjoint_b: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (x, y) = super::convert::convert_pair(a, b)?;
        // An adjoint is the conjugated operand, transposed (free, in the kernel's strides).
        let x = if adjoint_a {
            Cow::Owned(ops::conj(&x)?)
        } else {
            x
        };
        let y = if adjoint_b {
            Cow::Owned(ops::conj(&y)?)
        } else {
            y
        };
        wrap(ops::matmul(
            &x,
            &y,
            transpose_a || adjoint_a,
            transpose_b || adjoint_b,
        ))
    })
}

/// The matrix-vector product `a @ b` for a vector `b` (batched over leading axes).
///
/// >>> rt.linalg.matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]).numpy()
/// array([3., 7.], dtype=float32)
#[pyfunction]
#[pyo3(signature = (a, b, transpose_a=false, adjoint_a=false, name=None))]
pub fn matvec(
    a: Obj,
    b: Obj,
    transpose_a: bool,
    adjoint_a: bool,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (x, y) = super::convert::convert_pair(a, b)?;
        let x = if adjoint_a {
            Cow::Owned(ops::conj(&x)?)
        } else {
            x
        };
        wrap(ops::matvec(&x, &y, transpose_a || adjoint_a))
    })
}

/// `rt.einsum(equation, *inputs)`.
///
/// >>> rt.einsum('ij,j->i', [[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]).numpy()
/// array([3., 7.], dtype=float32)
/// >>> rt.einsum('ii->i', [[1.0, 2.0], [3.0, 4.0]]).numpy()
/// array([1., 4.], dtype=float32)
#[pyfunction]
#[pyo3(signature = (equation, *inputs, name=None))]
pub fn einsum(equation: &str, inputs: &Bound<'_, PyTuple>, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let objs: Vec<Bound<'_, PyAny>> = inputs.iter().collect();
        wrap(ops::einsum(equation, &convert_all(&objs, None)?))
    })
}

/// The identity matrix of `num_rows` rows (`num_columns` columns), optionally batched by
/// `batch_shape`.
///
/// >>> rt.eye(2).numpy()
/// array([[1., 0.],
///        [0., 1.]], dtype=float32)
/// >>> rt.eye(2, batch_shape=[3]).shape
/// (3, 2, 2)
#[pyfunction]
#[pyo3(signature = (num_rows, num_columns=None, batch_shape=None, dtype=None, name=None))]
pub fn eye(
    num_rows: Obj,
    num_columns: OptObj,
    batch_shape: OptObj,
    dtype: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let num_rows = count_arg(num_rows, "eye", "num_rows")?;
        let num_columns = match num_columns.filter(|c| !c.is_none()) {
            Some(c) => Some(count_arg(c, "eye", "num_columns")?),
            None => None,
        };
        let batch = match batch_shape.filter(|b| !b.is_none()) {
            Some(b) => shape(b, "eye")?,
            None => Vec::new(),
        };
        let dtype = parse_optional_dtype(dtype)?.unwrap_or(DType::F32);
        wrap(ops::eye(num_rows, num_columns, &batch, dtype))
    })
}

/// `rt.linalg.solve(matrix, rhs, adjoint=False)`.
///
/// >>> rt.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [[2.0], [8.0]]).numpy()
/// array([[1.],
///        [2.]], dtype=float32)
#[pyfunction]
#[pyo3(signature = (matrix, rhs, adjoint=false, name=None))]
pub fn solve(matrix: Obj, rhs: Obj, adjoint: bool, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let (m, r) = super::convert::convert_pair(matrix, rhs)?;
        wrap(ops::solve_adjoint(&m, &r, adjoint))
    })
}

/// `rt.linalg.inv(input, adjoint=False)`.
///
/// >>> rt.linalg.inv([[2.0, 0.0], [0.0, 4.0]]).numpy()
/// array([[0.5 , 0.  ],
///        [0.  , 0.25]], dtype=float32)
#[pyfunction]
#[pyo3(signature = (input, adjoint=false, name=None))]
pub fn inv(input: Obj, adjoint: bool, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let x = tensor(input)?;
        let inverse = ops::inv(&x)?;
        if adjoint {
            return wrap(ops::adjoint(&inverse));
        }
        Ok(PyTensor::new(inverse))
    })
}

// ---------------------------------------------------------------------------------------
// Creation

fn dtype_or(dtype: OptObj, default: DType) -> PyResult<DType> {
    Ok(parse_optional_dtype(dtype)?.unwrap_or(default))
}

/// A tensor of `shape` filled with zeros (float32 unless `dtype`).
///
/// >>> rt.zeros([2, 3]).shape
/// (2, 3)
/// >>> rt.zeros([2], dtype=rt.int32).numpy()
/// array([0, 0], dtype=int32)
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, name=None))]
pub fn zeros(shape: Obj, dtype: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        wrap(ops::zeros(
            &self::shape(shape, "zeros")?,
            dtype_or(dtype, DType::F32)?,
        ))
    })
}

/// A tensor of `shape` filled with ones (float32 unless `dtype`).
///
/// >>> rt.ones([2]).numpy()
/// array([1., 1.], dtype=float32)
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, name=None))]
pub fn ones(shape: Obj, dtype: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        wrap(ops::ones(
            &self::shape(shape, "ones")?,
            dtype_or(dtype, DType::F32)?,
        ))
    })
}

/// Zeros of `input`'s shape (and dtype, unless `dtype`).
///
/// >>> rt.zeros_like([[1, 2]]).numpy()
/// array([[0, 0]], dtype=int32)
#[pyfunction]
#[pyo3(signature = (input, dtype=None, name=None))]
pub fn zeros_like(input: Obj, dtype: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let x = tensor(input)?;
        wrap(ops::zeros(x.shape(), dtype_or(dtype, x.dtype())?))
    })
}

/// Ones of `input`'s shape (and dtype, unless `dtype`).
///
/// >>> rt.ones_like([1.5, 2.5]).numpy()
/// array([1., 1.], dtype=float32)
#[pyfunction]
#[pyo3(signature = (input, dtype=None, name=None))]
pub fn ones_like(input: Obj, dtype: OptObj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let x = tensor(input)?;
        wrap(ops::ones(x.shape(), dtype_or(dtype, x.dtype())?))
    })
}

/// `rt.fill(dims, value)`: the value's dtype, differentiable with respect to the value.
///
/// >>> rt.fill([2, 2], 7).numpy()
/// array([[7, 7],
///        [7, 7]], dtype=int32)
#[pyfunction]
#[pyo3(signature = (dims, value, name=None))]
pub fn fill(dims: Obj, value: Obj, name: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let v = tensor(value)?;
        if v.size() != 1 {
            return Err(value_error(
                "fill",
                format!("value must have one element, got shape {:?}", v.shape()),
            ));
        }
        let v = ops::reshape(&v, &[])?;
        wrap(ops::broadcast_to(&v, &shape(dims, "fill")?))
    })
}

/// `rt.linspace(start, stop, num)`: the dtype of `start` when floating, else float32.
///
/// >>> rt.linspace(0.0, 1.0, 5).numpy()
/// array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
#[pyfunction]
#[pyo3(signature = (start, stop, num, name=None, axis=None), text_signature = "(start, stop, num, name=None, axis=0)")]
pub fn linspace(start: Obj, stop: Obj, num: Obj, name: OptObj, axis: OptObj) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let num = count_arg(num, "linspace", "num")?;
        let axis = match axis.filter(|a| !a.is_none()) {
            Some(a) => axis_arg(a, "linspace", "axis")?,
            None => 0,
        };
        if axis != 0 {
            return Err(value_error(
                "linspace",
                "only scalar start and stop (axis=0) are supported",
            ));
        }
        let dtype = dtype_of(start)
            .or_else(|| dtype_of(stop))
            .filter(|d| d.is_float())
            .unwrap_or(DType::F32);
        wrap(ops::linspace(
            number(start, "linspace")?,
            number(stop, "linspace")?,
            num,
            dtype,
        ))
    })
}

/// `rt.range(start, limit=None, delta=1, dtype=None)`: like Python's range; int arguments give
/// int32, a float one float32 (a tensor argument gives its dtype).
///
/// >>> rt.range(4).numpy()
/// array([0, 1, 2, 3], dtype=int32)
/// >>> rt.range(1.0, 2.0, 0.25).numpy()
/// array([1.  , 1.25, 1.5 , 1.75], dtype=float32)
#[pyfunction]
#[pyo3(signature = (start, limit=None, delta=None, dtype=None, name=None))]
pub fn range(
    start: Obj,
    limit: OptObj,
    delta: OptObj,
    dtype: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let limit = limit.filter(|l| !l.is_none());
        let delta = delta.filter(|d| !d.is_none());
        let (start_obj, limit_obj) = match limit {
            Some(l) => (Some(start), l),
            None => (None, start),
        };
        let args: Vec<&Bound<'_, PyAny>> = start_obj
            .into_iter()
            .chain([limit_obj])
            .chain(delta)
            .collect();
        let inferred = {
            let dtypes = args
                .iter()
                .map(|a| to_tensor(a, None).map(|t| t.dtype()))
                .collect::<PyResult<Vec<_>>>()?;
            if dtypes.contains(&DType::F64) {
                DType::F64
            } else if dtypes.iter().any(|d| d.is_float()) {
                DType::F32
            } else if dtypes.contains(&DType::I64) {
                DType::I64
            } else if dtypes.iter().all(|d| d.is_int()) {
                DType::I32
            } else {
                return Err(type_error(
                    "range",
                    "start, limit and delta must be numbers",
                ));
            }
        };
        let dtype = dtype_or(dtype, inferred)?;
        let start = match start_obj {
            Some(s) => number(s, "range")?,
            None => 0.0,
        };
        let delta = match delta {
            Some(d) => number(d, "range")?,
            None => 1.0,
        };
        wrap(ops::range(start, number(limit_obj, "range")?, delta, dtype))
    })
}

// ---------------------------------------------------------------------------------------
// Random

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn reshape => [rt];
    fn transpose => [rt];
    fn expand_dims => [rt];
    fn squeeze => [rt];
    fn concat => [rt];
    fn stack => [rt];
    fn unstack => [rt];
    fn pad => [rt];
    fn tile => [rt];
    fn broadcast_to => [rt];
    fn gather => [rt];
    fn one_hot => [rt];
    fn matmul => [rt, linalg];
    fn matvec => [rt, linalg];
    fn einsum => [rt, linalg];
    fn eye => [rt, linalg];
    fn solve => [rt, linalg];
    fn inv => [rt, linalg];
    fn zeros => [rt];
    fn ones => [rt];
    fn zeros_like => [rt];
    fn ones_like => [rt];
    fn fill => [rt];
    fn linspace => [rt];
    fn range => [rt];
}
