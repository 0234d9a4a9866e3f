//! Op functions, part three: convolution, pooling and the ops under Keras layers, with
//! TensorFlow's argument forms (`strides=2`, `[2, 2]` or `[1, 2, 2, 1]`; `padding='SAME'` or
//! explicit pairs; `data_format` checked).
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::bindings::bindings;
use super::convert::{items, to_tensor};
use super::error::{guard, number_arg, seed_arg, value_error};
use super::ops::{ints, number, shape, tensor, wrap, Obj, OptObj};
use super::tensor::PyTensor;
use crate::ops::{self, DataFormat, Padding};

/// TensorFlow's `_get_sequence`: `value` (an int, or a list of 1, `n` or `n + 2` ints, the
/// last form with batch and channel entries that must be 1) as `n` spatial values; `None`
/// gives `default`.
fn spatial<const N: usize>(
    op: &str,
    what: &str,
    value: OptObj,
    default: usize,
) -> PyResult<[usize; N]> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok([default; N]);
    };
    let v: Vec<i64> = ints(value, op)?;
    let bad = || {
        value_error(
            op,
            format!(
                "{what} must be an int or a list of 1, {N} or {} ints (batch and channel entries 1), \
                 each at least 1, got {v:?}",
                N + 2
            ),
        )
    };
    let picked: Vec<i64> = match v.len() {
        1 => vec![v[0]; N],
        n if n == N => v.clone(),
        n if n == N + 2 && v[0] == 1 && v[N + 1] == 1 => v[1..=N].to_vec(),
        _ => return Err(bad()),
    };
    let mut out = [0usize; N];
    for (o, p) in out.iter_mut().zip(picked) {
        *o = usize::try_from(p)
            .ok()
            .filter(|&p| p >= 1)
            .ok_or_else(bad)?;
    }
    Ok(out)
}

/// `padding`: 'SAME' / 'VALID', or explicit `(before, after)` pairs, one per spatial axis or
/// one per axis of the input (batch and channel pairs zero).
fn padding(op: &str, value: Obj, spatial: usize) -> PyResult<Padding> {
    if let Ok(text) = value.extract::<String>() {
        return Ok(Padding::parse(op, &text)?);
    }
    let rows = items(value)?;
    let mut pairs = Vec::with_capacity(rows.len());
    for row in &rows {
        let p = shape(row, op)?;
        if p.len() != 2 {
            return Err(value_error(
                op,
                format!("explicit padding must be (before, after) pairs, got {p:?}"),
            ));
        }
        pairs.push((p[0], p[1]));
    }
    if pairs.len() == spatial + 2 {
        if pairs[0] != (0, 0) || pairs[spatial + 1] != (0, 0) {
            return Err(value_error(
                op,
                format!(
                    "explicit padding of the batch and channel axes must be zero, got {pairs:?}"
                ),
            ));
        }
        pairs = pairs[1..=spatial].to_vec();
    }
    if pairs.len() != spatial {
        return Err(value_error(
            op,
            format!(
                "explicit padding needs {spatial} spatial pairs (or {} with the batch and channel \
                 axes), got {pairs:?}",
                spatial + 2
            ),
        ));
    }
    Ok(Padding::Explicit(pairs))
}

/// Only channels-last layouts (TensorFlow's CPU kernels support no other for these ops).
fn channels_last(op: &str, data_format: Option<&str>) -> PyResult<()> {
    match data_format {
        Some(f) if !(f.starts_with('N') && f.ends_with('C')) => Err(value_error(
            op,
            format!("data_format {f:?} is not supported: only channels last (NHWC, NWC, NDHWC)"),
        )),
        _ => Ok(()),
    }
}

/// Converts a filter or second operand to the first operand's dtype where it is a Python or
/// NumPy value (a tensor keeps its dtype, and a mismatch is the op's TypeError).
fn operand(obj: Obj, like: &crate::Tensor) -> PyResult<crate::Tensor> {
    to_tensor(obj, Some(like.dtype()))
}

/// `rt.nn.conv2d(input, filters, strides, padding, data_format='NHWC', dilations=None)`.
///
/// >>> rt.nn.conv2d(rt.ones([1, 4, 4, 1]), rt.ones([3, 3, 1, 2]), 1, 'VALID').shape
/// (1, 2, 2, 2)
#[pyfunction]
#[pyo3(signature = (input, filters, strides, padding, data_format="NHWC", dilations=None, name=None))]
pub fn conv2d(
    input: Obj,
    filters: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    dilations: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "conv2d";
    guard(|| {
        channels_last(op, data_format)?;
        let x = tensor(input)?;
        let f = operand(filters, &x)?;
        let s = spatial::<2>(op, "strides", Some(strides), 1)?;
        let d = spatial::<2>(op, "dilations", dilations, 1)?;
        wrap(ops::conv2d(&x, &f, s, &self::padding(op, padding, 2)?, d))
    })
}

/// `rt.nn.conv1d(input, filters, stride, padding, data_format='NWC', dilations=None)`.
///
/// >>> rt.nn.conv1d(rt.ones([1, 5, 1]), rt.ones([3, 1, 1]), 1, 'VALID').numpy().ravel().tolist()
/// [3.0, 3.0, 3.0]
#[pyfunction]
#[pyo3(signature = (input, filters, stride, padding, data_format="NWC", dilations=None, name=None))]
pub fn conv1d(
    input: Obj,
    filters: Obj,
    stride: Obj,
    padding: Obj,
    data_format: Option<&str>,
    dilations: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "conv1d";
    guard(|| {
        channels_last(op, data_format)?;
        let x = tensor(input)?;
        let f = operand(filters, &x)?;
        let [s] = spatial::<1>(op, "stride", Some(stride), 1)?;
        let [d] = spatial::<1>(op, "dilations", dilations, 1)?;
        wrap(ops::conv1d(&x, &f, s, &self::padding(op, padding, 1)?, d))
    })
}

/// `rt.nn.conv2d_transpose(input, filters, output_shape, strides, padding='SAME', ...)`.
///
/// >>> rt.nn.conv2d_transpose(rt.ones([1, 2, 2, 1]), rt.ones([2, 2, 1, 1]), [1, 4, 4, 1], 2).shape
/// (1, 4, 4, 1)
#[pyfunction]
#[pyo3(signature = (input, filters, output_shape, strides, padding=None, data_format="NHWC", dilations=None, name=None))]
#[allow(clippy::too_many_arguments)]
pub fn conv2d_transpose(
    input: Obj,
    filters: Obj,
    output_shape: Obj,
    strides: Obj,
    padding: OptObj,
    data_format: Option<&str>,
    dilations: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "conv2d_transpose";
    guard(|| {
        channels_last(op, data_format)?;
        let x = tensor(input)?;
        let f = operand(filters, &x)?;
        let out = shape(output_shape, op)?;
        let s = spatial::<2>(op, "strides", Some(strides), 1)?;
        let d = spatial::<2>(op, "dilations", dilations, 1)?;
        let padding = match padding.filter(|p| !p.is_none()) {
            Some(p) => self::padding(op, p, 2)?,
            None => Padding::Same,
        };
        wrap(ops::conv2d_transpose(&x, &f, &out, s, &padding, d))
    })
}

/// `rt.nn.conv3d(input, filters, strides, padding, data_format='NDHWC', dilations=None)`:
/// `input` `[batch, depth, height, width, channels]`, `filters`
/// `[depth, height, width, in_channels, out_channels]`.
///
/// >>> rt.nn.conv3d(rt.ones([1, 3, 4, 4, 1]), rt.ones([2, 3, 3, 1, 2]), 1, 'VALID').shape
/// (1, 2, 2, 2, 2)
#[pyfunction]
#[pyo3(signature = (input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None))]
pub fn conv3d(
    input: Obj,
    filters: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    dilations: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "conv3d";
    guard(|| {
        channels_last(op, data_format)?;
        let x = tensor(input)?;
        let f = operand(filters, &x)?;
        let s = spatial::<3>(op, "strides", Some(strides), 1)?;
        let d = spatial::<3>(op, "dilations", dilations, 1)?;
        wrap(ops::conv3d(&x, &f, s, &self::padding(op, padding, 3)?, d))
    })
}

/// `rt.nn.conv3d_transpose(input, filters, output_shape, strides, padding='SAME', ...)`: the
/// gradient of `conv3d` with respect to its input; `filters`
/// `[depth, height, width, output_channels, in_channels]`.
///
/// >>> x, f = rt.ones([1, 2, 2, 2, 1]), rt.ones([2, 2, 2, 3, 1])
/// >>> rt.nn.conv3d_transpose(x, f, [1, 4, 4, 4, 3], 2).shape
/// (1, 4, 4, 4, 3)
#[pyfunction]
#[pyo3(signature = (input, filters, output_shape, strides, padding=None, data_format="NDHWC", dilations=None, name=None))]
#[allow(clippy::too_many_arguments)]
pub fn conv3d_transpose(
    input: Obj,
    filters: Obj,
    output_shape: Obj,
    strides: Obj,
    padding: OptObj,
    data_format: Option<&str>,
    dilations: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "conv3d_transpose";
    guard(|| {
        channels_last(op, data_format)?;
        let x = tensor(input)?;
        let f = operand(filters, &x)?;
        let out = shape(output_shape, op)?;
        let s = spatial::<3>(op, "strides", Some(strides), 1)?;
        let d = spatial::<3>(op, "dilations", dilations, 1)?;
        let padding = match padding.filter(|p| !p.is_none()) {
            Some(p) => self::padding(op, p, 3)?,
            None => Padding::Same,
        };
        wrap(ops::conv3d_transpose(&x, &f, &out, s, &padding, d))
    })
}

/// `rt.nn.depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None)`.
///
/// >>> x, f = rt.ones([1, 3, 3, 2]), rt.ones([2, 2, 2, 1])
/// >>> rt.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], 'VALID').shape
/// (1, 2, 2, 2)
#[pyfunction]
#[pyo3(signature = (input, filter, strides, padding, data_format=None, dilations=None, name=None))]
pub fn depthwise_conv2d(
    input: Obj,
    filter: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    dilations: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "depthwise_conv2d";
    guard(|| {
        channels_last(op, data_format)?;
        let x = tensor(input)?;
        let f = operand(filter, &x)?;
        let s = spatial::<2>(op, "strides", Some(strides), 1)?;
        let d = spatial::<2>(op, "dilations", dilations, 1)?;
        wrap(ops::depthwise_conv2d(
            &x,
            &f,
            s,
            &self::padding(op, padding, 2)?,
            d,
        ))
    })
}

/// A 2-D and a 1-D pooling op.
type PoolFn2 = fn(&crate::Tensor, [usize; 2], [usize; 2], &Padding) -> crate::Result<crate::Tensor>;
type PoolFn1 = fn(&crate::Tensor, usize, usize, &Padding) -> crate::Result<crate::Tensor>;
/// A 3-D pooling op.
type PoolFn3 = fn(&crate::Tensor, [usize; 3], [usize; 3], &Padding) -> crate::Result<crate::Tensor>;

/// A 3-D pooling of `input` (rank 5 or more, `batch_shape + [d, h, w, c]`).
fn pool3d(
    op: &str,
    three: PoolFn3,
    input: &crate::Tensor,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
) -> PyResult<PyTensor> {
    let k = spatial::<3>(op, "ksize", Some(ksize), 1)?;
    let s = spatial::<3>(op, "strides", Some(strides), 1)?;
    wrap(three(input, k, s, &self::padding(op, padding, 3)?))
}

#[allow(clippy::too_many_arguments)]
fn pool(
    op: &str,
    two: PoolFn2,
    one: PoolFn1,
    three: Option<PoolFn3>,
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
) -> PyResult<PyTensor> {
    // `ksize`, `strides` and `padding` for the spatial axes of a rank-3 (1-D) or rank-4 input,
    // or (with `three`) a rank-5 one (3-D).
    channels_last(op, data_format)?;
    let x = tensor(input)?;
    match (x.ndim(), three) {
        (5, Some(three)) => pool3d(op, three, &x, ksize, strides, padding),
        (3, _) => {
            let [k] = spatial::<1>(op, "ksize", Some(ksize), 1)?;
            let [s] = spatial::<1>(op, "strides", Some(strides), 1)?;
            wrap(one(&x, k, s, &self::padding(op, padding, 1)?))
        }
        _ => {
            let k = spatial::<2>(op, "ksize", Some(ksize), 1)?;
            let s = spatial::<2>(op, "strides", Some(strides), 1)?;
            wrap(two(&x, k, s, &self::padding(op, padding, 2)?))
        }
    }
}

/// `rt.nn.max_pool2d(input, ksize, strides, padding, data_format='NHWC')`.
///
/// >>> x = rt.reshape(rt.range(16.0), [1, 4, 4, 1])
/// >>> rt.nn.max_pool2d(x, 2, 2, 'VALID').numpy().ravel().tolist()
/// [5.0, 7.0, 13.0, 15.0]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format="NHWC", name=None))]
pub fn max_pool2d(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        pool(
            "max_pool2d",
            ops::max_pool2d,
            ops::max_pool1d,
            None,
            input,
            ksize,
            strides,
            padding,
            data_format,
        )
    })
}

/// `rt.nn.avg_pool2d(input, ksize, strides, padding, data_format='NHWC')`.
///
/// >>> x = rt.reshape(rt.range(16.0), [1, 4, 4, 1])
/// >>> rt.nn.avg_pool2d(x, 2, 2, 'VALID').numpy().ravel().tolist()
/// [2.5, 4.5, 10.5, 12.5]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format="NHWC", name=None))]
pub fn avg_pool2d(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        pool(
            "avg_pool2d",
            ops::avg_pool2d,
            ops::avg_pool1d,
            None,
            input,
            ksize,
            strides,
            padding,
            data_format,
        )
    })
}

/// `rt.nn.max_pool1d(input, ksize, strides, padding, data_format='NWC')`.
///
/// >>> x = rt.reshape(rt.range(6.0), [1, 6, 1])
/// >>> rt.nn.max_pool1d(x, 2, 2, 'VALID').numpy().ravel().tolist()
/// [1.0, 3.0, 5.0]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format="NWC", name=None))]
pub fn max_pool1d(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        pool(
            "max_pool1d",
            ops::max_pool2d,
            ops::max_pool1d,
            None,
            input,
            ksize,
            strides,
            padding,
            data_format,
        )
    })
}

/// `rt.nn.avg_pool1d(input, ksize, strides, padding, data_format='NWC')`.
///
/// >>> x = rt.reshape(rt.range(6.0), [1, 6, 1])
/// >>> rt.nn.avg_pool1d(x, 2, 2, 'VALID').numpy().ravel().tolist()
/// [0.5, 2.5, 4.5]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format="NWC", name=None))]
pub fn avg_pool1d(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        pool(
            "avg_pool1d",
            ops::avg_pool2d,
            ops::avg_pool1d,
            None,
            input,
            ksize,
            strides,
            padding,
            data_format,
        )
    })
}

/// `rt.nn.max_pool3d(input, ksize, strides, padding, data_format='NDHWC')`: the maximum of
/// each window of a `[batch, depth, height, width, channels]` input.
///
/// >>> x = rt.reshape(rt.range(8.0), [1, 2, 2, 2, 1])
/// >>> rt.nn.max_pool3d(x, 2, 2, 'VALID').numpy().ravel().tolist()
/// [7.0]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format="NDHWC", name=None))]
pub fn max_pool3d(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "max_pool3d";
    guard(|| {
        channels_last(op, data_format)?;
        pool3d(
            op,
            ops::max_pool3d,
            &tensor(input)?,
            ksize,
            strides,
            padding,
        )
    })
}

/// `rt.nn.avg_pool3d(input, ksize, strides, padding, data_format='NDHWC')`: the mean of each
/// window of a `[batch, depth, height, width, channels]` input ('SAME' padding not counted).
///
/// >>> x = rt.reshape(rt.range(8.0), [1, 2, 2, 2, 1])
/// >>> rt.nn.avg_pool3d(x, 2, 2, 'VALID').numpy().ravel().tolist()
/// [3.5]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format="NDHWC", name=None))]
pub fn avg_pool3d(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    let op = "avg_pool3d";
    guard(|| {
        channels_last(op, data_format)?;
        pool3d(
            op,
            ops::avg_pool3d,
            &tensor(input)?,
            ksize,
            strides,
            padding,
        )
    })
}

/// `rt.nn.max_pool(input, ksize, strides, padding, data_format=None)`: 1-D for a rank-3 input,
/// 2-D for rank 4, 3-D for rank 5 (as TensorFlow: the input's rank gives the spatial axes).
///
/// >>> x = rt.reshape(rt.range(6.0), [1, 6, 1])
/// >>> rt.nn.max_pool(x, 3, 3, 'VALID').numpy().ravel().tolist()
/// [2.0, 5.0]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format=None, name=None))]
pub fn max_pool(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        pool(
            "max_pool",
            ops::max_pool2d,
            ops::max_pool1d,
            Some(ops::max_pool3d),
            input,
            ksize,
            strides,
            padding,
            data_format,
        )
    })
}

/// `rt.nn.avg_pool(input, ksize, strides, padding, data_format=None)`: 1-D, 2-D or 3-D by rank
/// (3, 4 or 5).
///
/// >>> x = rt.reshape(rt.range(16.0), [1, 4, 4, 1])
/// >>> rt.nn.avg_pool(x, 4, 4, 'VALID').numpy().ravel().tolist()
/// [7.5]
#[pyfunction]
#[pyo3(signature = (input, ksize, strides, padding, data_format=None, name=None))]
pub fn avg_pool(
    input: Obj,
    ksize: Obj,
    strides: Obj,
    padding: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        pool(
            "avg_pool",
            ops::avg_pool2d,
            ops::avg_pool1d,
            Some(ops::avg_pool3d),
            input,
            ksize,
            strides,
            padding,
            data_format,
        )
    })
}

/// `rt.nn.dropout(x, rate, noise_shape=None, seed=None)`.
///
/// Kept elements are scaled by `1 / (1 - rate)`, so the expected value is unchanged:
///
/// >>> y = rt.nn.dropout(rt.ones([1000]), 0.5, seed=1)
/// >>> sorted(set(y.numpy().tolist()))
/// [0.0, 2.0]
#[pyfunction]
#[pyo3(signature = (x, rate, noise_shape=None, seed=None, name=None))]
pub fn dropout(
    x: Obj,
    rate: Obj,
    noise_shape: OptObj,
    seed: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let seed = match seed.filter(|s| !s.is_none()) {
            Some(s) => Some(seed_arg(s, "dropout", "seed")?),
            None => None,
        };
        let x = tensor(x)?;
        let rate = number(rate, "dropout")?;
        let noise = match noise_shape.filter(|n| !n.is_none()) {
            Some(n) => Some(shape(n, "dropout")?),
            None => None,
        };
        wrap(ops::dropout(&x, rate, noise.as_deref(), seed))
    })
}

/// `rt.nn.bias_add(value, bias, data_format=None)`.
///
/// >>> rt.nn.bias_add(rt.zeros([2, 3]), [1.0, 2.0, 3.0]).numpy().tolist()
/// [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
#[pyfunction]
#[pyo3(signature = (value, bias, data_format=None, name=None))]
pub fn bias_add(
    value: Obj,
    bias: Obj,
    data_format: Option<&str>,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let v = tensor(value)?;
        let b = operand(bias, &v)?;
        wrap(ops::bias_add(
            &v,
            &b,
            DataFormat::parse("bias_add", data_format)?,
        ))
    })
}

/// `rt.nn.embedding_lookup(params, ids, max_norm=None)`: `params` one tensor (or a list of
/// one).
///
/// >>> table = rt.constant([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
/// >>> rt.nn.embedding_lookup(table, [2, 0]).numpy().tolist()
/// [[4.0, 5.0], [0.0, 1.0]]
#[pyfunction]
#[pyo3(signature = (params, ids, max_norm=None, name=None))]
pub fn embedding_lookup(
    params: Obj,
    ids: Obj,
    max_norm: OptObj,
    name: OptObj,
) -> PyResult<PyTensor> {
    let _ = name;
    guard(|| {
        let op = "embedding_lookup";
        let max_norm = match max_norm.filter(|m| !m.is_none()) {
            Some(m) => Some(number_arg(m, op, "max_norm")?),
            None => None,
        };
        let table = if params.is_instance_of::<pyo3::types::PyList>()
            || params.is_instance_of::<PyTuple>()
        {
            let parts = items(params)?;
            match parts.as_slice() {
                [one] => tensor(one)?,
                _ => {
                    return Err(value_error(
                        op,
                        format!("params must be one tensor (sharded tables are not supported), got {} parts", parts.len()),
                    ))
                }
            }
        } else {
            tensor(params)?
        };
        wrap(ops::embedding_lookup(&table, &tensor(ids)?, max_norm))
    })
}

/// `lstm_cell(z, c_prev)` -> `(h, c)`: one fused LSTM step (Keras 3's gates `i, f, c, o`).
#[pyfunction]
pub fn lstm_cell<'py>(py: Python<'py>, z: Obj, c_prev: Obj) -> PyResult<Bound<'py, PyTuple>> {
    guard(|| {
        let z = tensor(z)?;
        let (h, c) = ops::lstm_cell(&z, &operand(c_prev, &z)?)?;
        PyTuple::new(py, [PyTensor::new(h), PyTensor::new(c)])
    })
}

/// `lstm_sequence(x_proj, recurrent_kernel, h0, c0)` -> `(hs, c)`: a whole LSTM loop (time-major
/// input projections `[steps, batch, 4 * units]`; every step's `h` and the last `c`).
#[pyfunction]
pub fn lstm_sequence<'py>(
    py: Python<'py>,
    x_proj: Obj,
    recurrent_kernel: Obj,
    h0: Obj,
    c0: Obj,
) -> PyResult<Bound<'py, PyTuple>> {
    guard(|| {
        let x = tensor(x_proj)?;
        let (hs, c) = ops::lstm_sequence(
            &x,
            &operand(recurrent_kernel, &x)?,
            &operand(h0, &x)?,
            &operand(c0, &x)?,
        )?;
        PyTuple::new(py, [PyTensor::new(hs), PyTensor::new(c)])
    })
}

/// `gru_cell(x_proj, h_proj, h_prev)` -> `h`: one fused GRU step (`reset_after=True`).
#[pyfunction]
pub fn gru_cell(x_proj: Obj, h_proj: Obj, h_prev: Obj) -> PyResult<PyTensor> {
    guard(|| {
        let x = tensor(x_proj)?;
        wrap(ops::gru_cell(
            &x,
            &operand(h_proj, &x)?,
            &operand(h_prev, &x)?,
        ))
    })
}

// The Python bindings of this file (rows: src/python/bindings.rs, DEVELOPERS.md "Adding an op").
bindings! {
    fn conv1d => [nn];
    fn conv2d => [nn];
    fn conv2d_transpose => [nn];
    fn conv3d => [nn];
    fn conv3d_transpose => [nn];
    fn depthwise_conv2d => [nn];
    fn max_pool => [nn];
    fn avg_pool => [nn];
    fn max_pool1d => [nn];
    fn avg_pool1d => [nn];
    fn max_pool2d => [nn];
    fn avg_pool2d => [nn];
    fn max_pool3d => [nn];
    fn avg_pool3d => [nn];
    fn dropout => [nn];
    fn bias_add => [nn];
    fn embedding_lookup => [nn];
    fn lstm_cell => [];
    fn lstm_sequence => [];
    fn gru_cell => [];
}
