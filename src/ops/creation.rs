//! Creation ops: zeros, ones, zeros_like, ones_like, fill, linspace, range, one_hot.
//!
//! None of these records anything: their results are constants (TensorFlow gives them no
//! gradient either).

use crate::dtype::DType;
use num_complex::Complex;

use crate::error::{Error, Result};
use crate::tensor::{Data, Element, Tensor, Values};

/// A tensor of `shape` and `dtype` from values computed as f64 (cast to the dtype).
fn from_f64s(values: Vec<f64>, shape: &[usize], dtype: DType) -> Tensor {
    fn build<T: Element>(values: Vec<f64>, shape: &[usize]) -> Data {
        let values: Vec<T> = values.into_iter().map(T::from_f64).collect();
        debug_assert_eq!(values.len(), shape.iter().product::<usize>());
        T::into_data(Values::from_vec(shape, values))
    }
    Tensor::new(match dtype {
        DType::F32 => build::<f32>(values, shape),
        DType::F64 => build::<f64>(values, shape),
        DType::I32 => build::<i32>(values, shape),
        DType::I64 => build::<i64>(values, shape),
        DType::Bool => build::<bool>(values, shape),
        DType::Complex64 => build::<Complex<f32>>(values, shape),
        DType::Complex128 => build::<Complex<f64>>(values, shape),
    })
}

/// Zeros of `shape` and `dtype` (`tf.zeros`).
pub fn zeros(shape: &[usize], dtype: DType) -> Tensor {
    Tensor::zeros(shape, dtype)
}

/// Ones of `shape` and `dtype` (`tf.ones`).
pub fn ones(shape: &[usize], dtype: DType) -> Tensor {
    Tensor::ones(shape, dtype)
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
pub fn fill(shape: &[usize], value: f64, dtype: DType) -> Tensor {
    Tensor::full(shape, dtype, value)
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
    let values: Vec<f64> = (0..num)
        .map(|i| {
            if i + 1 == num && num > 1 {
                stop
            } else {
                start + i as f64 * step
            }
        })
        .collect();
    Ok(from_f64s(values, &[num], dtype))
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
    if count > (isize::MAX as f64) / 8.0 {
        return Err(Error::value(
            op,
            format!(
                "start {start}, limit {limit} and delta {delta} give {count} elements, too many"
            ),
        ));
    }
    let count = count as usize;
    let values: Vec<f64> = (0..count).map(|i| start + i as f64 * delta).collect();
    Ok(from_f64s(values, &[count], dtype))
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
    let mut values = vec![0.0; idx.len() * depth];
    for (row, &k) in idx.iter().enumerate() {
        if k >= 0 && (k as u64) < depth as u64 {
            values[row * depth + k as usize] = 1.0;
        }
    }
    let mut shape = indices.shape().to_vec();
    shape.push(depth);
    Ok(from_f64s(values, &shape, dtype))
}
