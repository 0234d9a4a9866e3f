//! Keras 3's streaming metrics: state that `update_state` accumulates over batches and `result`
//! reads, with Keras's numbers (float32 totals, accumulated in Keras's order of operations).
//!
//! - [`Mean`] and [`Sum`]: weighted totals of values (`sample_weight` broadcast as Keras does).
//! - [`MeanMetric`]: the mean of a per-sample [`Matcher`] (accuracy, binary / categorical /
//!   sparse categorical / top-k accuracy, mean squared error); the matchers are also plain
//!   functions ([`accuracy`], [`binary_accuracy`], ...).
//! - [`Auc`]: confusion counts at thresholds and the area under the ROC or PR curve, for one
//!   label or many (`multi_label`, `label_weights`).
//! - [`AtOperatingPoint`]: the best precision, recall, sensitivity or specificity where the
//!   other rate of its pair reaches a target ([`OperatingPoint`]).
//!
//! Metrics are not differentiable: nothing here records on a tape.
//!
//! ```
//! use rustape::metrics::{Mean, MeanMetric, Matcher};
//! use rustape::Tensor;
//! let mut mean = Mean::new();
//! mean.update_state(&Tensor::from_vec(vec![1.0f32, 2.0, 6.0], &[3]).unwrap(), None).unwrap();
//! assert_eq!(mean.result(), 3.0);
//!
//! let mut acc = MeanMetric::new(Matcher::SparseCategoricalAccuracy);
//! let labels = Tensor::from_vec(vec![1i32, 0], &[2]).unwrap();
//! let scores = Tensor::from_vec(vec![0.3f32, 0.7, 0.4, 0.6], &[2, 2]).unwrap();
//! acc.update_state(&labels, &scores, None).unwrap();
//! assert_eq!(acc.result(), 0.5);
//! ```
mod accuracy;
mod auc;
mod operating_point;
mod reduction;

pub use accuracy::{
    accuracy, binary_accuracy, categorical_accuracy, mean_absolute_error, mean_squared_error,
    sparse_categorical_accuracy, top_k_categorical_accuracy, Matcher, MeanMetric,
};
pub use auc::{Auc, AucOptions, Curve, SummationMethod};
pub use operating_point::{AtOperatingPoint, OperatingPoint};
pub use reduction::{Mean, Sum};

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::Tensor;

/// A tensor's elements as `f64` (exact for every real dtype) with its shape and dtype: the
/// metrics read their inputs once into this form.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    pub values: Vec<f64>,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

impl Dense {
    /// Reads `t`, refusing dtypes that are not real numbers or booleans.
    pub fn of(t: &Tensor, metric: &str, what: &str) -> Result<Dense> {
        let dtype = t.dtype();
        if !(dtype.is_float() || dtype.is_int() || dtype == DType::Bool) {
            return Err(Error::dtype(
                metric,
                format!(
                    "`{what}` must be a real or boolean tensor, got {} of shape {}",
                    dtype.name(),
                    fmt_shape(t.shape())
                ),
            ));
        }
        Ok(Dense {
            values: t.to_f64_vec(),
            shape: t.shape().to_vec(),
            dtype,
        })
    }

    /// The elements converted to `dtype` as TensorFlow's cast does (floats rounded to float32,
    /// truncated towards zero for integers, nonzero for bool).
    pub fn cast(mut self, dtype: DType) -> Dense {
        if dtype != self.dtype {
            for v in &mut self.values {
                *v = round_to(*v, dtype);
            }
            self.dtype = dtype;
        }
        self
    }

    /// The elements as float32 (Keras's `floatx`).
    pub fn f32_values(&self) -> Vec<f32> {
        self.values.iter().map(|&v| v as f32).collect()
    }
}

/// `v` as a value of `dtype` (TensorFlow's cast), back in `f64`.
pub(crate) fn round_to(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F32 => v as f32 as f64,
        DType::Bool => f64::from(u8::from(v != 0.0)),
        d if d.is_int() => v.trunc(),
        _ => v,
    }
}

/// Keras's `squeeze_or_expand_to_same_rank` on two shapes: when the ranks differ by one and
/// the longer ends in 1, that axis is squeezed (or, for a rank-1 partner and
/// `expand_rank_1`, the partner gets a trailing 1). The elements never move.
pub(crate) fn same_rank(a: &mut Vec<usize>, b: &mut Vec<usize>, expand_rank_1: bool) {
    fn fit(long: &mut Vec<usize>, short: &mut Vec<usize>, expand_rank_1: bool) {
        if long.len() == short.len() + 1 && long.last() == Some(&1) {
            if short.len() == 1 && expand_rank_1 {
                short.push(1);
            } else {
                long.pop();
            }
        }
    }
    if a.len() == b.len() {
        return;
    }
    fit(a, b, expand_rank_1);
    fit(b, a, expand_rank_1);
}

/// NumPy's broadcast of two shapes, or an error naming the metric and both shapes.
pub(crate) fn broadcast_shapes(a: &[usize], b: &[usize], metric: &str) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() < rank {
            1
        } else {
            s[i + s.len() - rank]
        }
    };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            _ => Err(Error::shape(
                metric,
                format!(
                    "shapes {} and {} are incompatible (they do not broadcast)",
                    fmt_shape(a),
                    fmt_shape(b)
                ),
            )),
        })
        .collect()
}

/// `values` of shape `from` broadcast to shape `to` (NumPy's `broadcast_to`), row-major.
pub(crate) fn broadcast_to<T: Copy>(
    values: &[T],
    from: &[usize],
    to: &[usize],
    metric: &str,
    what: &str,
) -> Result<Vec<T>> {
    if from == to {
        return Ok(values.to_vec());
    }
    let refuse = || {
        Error::shape(
            metric,
            format!(
                "`{what}` of shape {} does not broadcast to shape {}",
                fmt_shape(from),
                fmt_shape(to)
            ),
        )
    };
    if from.len() > to.len() {
        return Err(refuse());
    }
    let pad = to.len() - from.len();
    // Strides of the source along the target's axes: 0 where the source repeats.
    let mut strides = vec![0usize; to.len()];
    let mut stride = 1;
    for i in (0..from.len()).rev() {
        let (f, t) = (from[i], to[pad + i]);
        if f == t {
            strides[pad + i] = stride;
        } else if f != 1 {
            return Err(refuse());
        }
        stride *= f;
    }
    let size: usize = to.iter().product();
    let mut out = Vec::with_capacity(size);
    let mut index = vec![0usize; to.len()];
    let mut offset = 0usize;
    for _ in 0..size {
        out.push(values[offset]);
        // Advance the multi-index (last axis fastest), keeping the source offset in step.
        for axis in (0..to.len()).rev() {
            index[axis] += 1;
            offset += strides[axis];
            if index[axis] < to[axis] {
                break;
            }
            offset -= strides[axis] * to[axis];
            index[axis] = 0;
        }
    }
    Ok(out)
}

/// Keras's `divide_no_nan` in float32: 0 where the denominator is 0.
pub(crate) fn divide_no_nan(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}
