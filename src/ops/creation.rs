//! Creation ops: zeros, ones, zeros_like, ones_like, fill, linspace, range, one_hot.
//!
//! None of these records anything: their results are constants (TensorFlow gives them no
//! gradient either). Sizes are checked products and buffers are reserved fallibly (see
//! `crate::memory`): a shape too large is a ValueError, a failed allocation a MemoryError.

use crate::dtype::DType;
use num_complex::Complex;

use crate::error::{Error, Result};
use crate::memory::{checked_size, try_vec};
use crate::tensor::{Data, Element, Tensor, Values};

/// A tensor of `shape` and `dtype` whose element `i` is `value(i)` (computed as f64, cast to
/// the dtype), for `op`.
fn from_fn(
    op: &str,
    shape: &[usize],
    dtype: DType,
    value: impl Fn(usize) -> f64,
) -> Result<Tensor> {
    fn build<T: Element>(op: &str, shape: &[usize], value: impl Fn(usize) -> f64) -> Result<Data> {
        let n = checked_size(op, shape)?;
        let mut values: Vec<T> = try_vec(op, n)?;
        values.extend((0..n).map(|i| T::from_f64(value(i))));
        Ok(T::into_data(Values::from_vec(shape, values)))
    }
    Ok(Tensor::new(match dtype {
        DType::F32 => build::<f32>(op, shape, value)?,
        DType::F64 => build::<f64>(op, shape, value)?,
        DType::I32 => build::<i32>(op, shape, value)?,
        DType::I64 => build::<i64>(op, shape, value)?,
        DType::Bool => build::<bool>(op, shape, value)?,
        DType::Complex64 => build::<Complex<f32>>(op, shape, value)?,
        DType::Complex128 => build::<Complex<f64>>(op, shape, value)?,
        DType::String => build::<crate::text::Str>(op, shape, value)?,
    }))
}

/// Zeros of `shape` and `dtype` (`tf.zeros`).
pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
    Tensor::try_full("zeros", shape, dtype, 0.0)
}

/// Ones of `shape` and `dtype` (`tf.ones`).
pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
    Tensor::try_full("ones", shape, dtype, 1.0)
}

/// Zeros of `x`'s shape and dtype (`tf.zeros_like`).
pub fn zeros_like(x: &Tensor) -> Tensor {
    x.zeros_like()
}

/// Ones of `x`'s shape and dtype (`tf.ones_like`).
pub fn ones_like(x: &Tensor) -> Tensor {
    x.ones_like()
}

/// `value` (cast to `dtype`) everywhere in a tensor of `shape` (`tf.fill`).
pub fn fill(shape: &[usize], value: f64, dtype: DType) -> Result<Tensor> {
    Tensor::try_full("fill", shape, dtype, value)
}

/// `num` evenly spaced values from `start` to `stop`, both included (`tf.linspace`); `num = 1`
/// gives `[start]`, `num = 0` an empty tensor. `dtype` must be floating.
pub fn linspace(start: f64, stop: f64, num: usize, dtype: DType) -> Result<Tensor> {
    let op = "linspace";
    if !dtype.is_float() {
        return Err(Error::dtype(
            op,
            format!("expected a floating dtype, got {dtype}"),
        ));
    }
    if !start.is_finite() || !stop.is_finite() {
        return Err(Error::value(
            op,
            format!("start and stop must be finite, got {start} and {stop}"),
        ));
    }
    let step = if num > 1 {
        (stop - start) / (num - 1) as f64
    } else {
        0.0
    };
    from_fn(op, &[num], dtype, |i| {
        if i + 1 == num && num > 1 {
            stop
        } else {
            start + i as f64 * step
        }
    })
}

/// `start, start + delta, ...` up to but excluding `limit` (`tf.range`). For an integer dtype
/// the arguments are first truncated to integers, as `tf.range(..., dtype=tf.int32)` casts
/// them. `delta = 0`, or a `delta` pointing away from `limit`, is a Value error (as in
/// TensorFlow); `start == limit` gives an empty tensor.
pub fn range(start: f64, limit: f64, delta: f64, dtype: DType) -> Result<Tensor> {
    let op = "range";
    if dtype == DType::Bool || dtype.is_complex() {
        return Err(Error::dtype(
            op,
            format!("expected a real numeric dtype, got {dtype}"),
        ));
    }
    if !start.is_finite() || !limit.is_finite() || !delta.is_finite() {
        return Err(Error::value(
            op,
            format!("start, limit and delta must be finite, got {start}, {limit} and {delta}"),
        ));
    }
    let (start, limit, delta) = if dtype.is_int() {
        (start.trunc(), limit.trunc(), delta.trunc())
    } else {
        (start, limit, delta)
    };
    if delta == 0.0 {
        return Err(Error::value(
            op,
            format!("requires delta != 0 (as {dtype}), got {delta}"),
        ));
    }
    if delta > 0.0 && start > limit {
        return Err(Error::value(
            op,
            format!("requires start <= limit when delta > 0, got start {start}, limit {limit}, delta {delta}"),
        ));
    }
    if delta < 0.0 && start < limit {
        return Err(Error::value(
            op,
            format!("requires start >= limit when delta < 0, got start {start}, limit {limit}, delta {delta}"),
        ));
    }
    let count = ((limit - start) / delta).ceil();
    if count.is_nan() || count >= isize::MAX as f64 {
        return Err(Error::value(
            op,
            format!(
                "start {start}, limit {limit} and delta {delta} give {count} elements, too many"
            ),
        ));
    }
    from_fn(op, &[count as usize], dtype, |i| start + i as f64 * delta)
}

/// `indices` (int32 or int64, any shape) as one-hot vectors of length `depth` along a new last
/// axis (`tf.one_hot` with `on_value=1`, `off_value=0`, `axis=-1`). An index outside
/// `[0, depth)`, negative included, gives a row of zeros, as in TensorFlow.
pub fn one_hot(indices: &Tensor, depth: usize, dtype: DType) -> Result<Tensor> {
    let op = "one_hot";
    let idx: Vec<i64> = match indices.data() {
        Data::I32(a) => a.iter().map(|&v| v as i64).collect(),
        Data::I64(a) => a.iter().copied().collect(),
        other => {
            return Err(Error::dtype(
                op,
                format!("indices must be int32 or int64, got {}", other.dtype()),
            ));
        }
    };
    let mut shape = indices.shape().to_vec();
    shape.push(depth);
    // Element `i` is row `i / depth`, column `i % depth` (depth > 0 whenever there are any).
    from_fn(op, &shape, dtype, |i| {
        let k = idx[i / depth];
        f64::from(u8::from(k >= 0 && k as u64 == (i % depth) as u64))
    })
}
