//! Per-sample matchers (the accuracy family, mean squared error) and [`MeanMetric`], the mean of
//! one over every sample seen (Keras's `MeanMetricWrapper`).
use super::{broadcast_shapes, broadcast_to, same_rank, Dense, Mean};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::Tensor;

/// Per-sample float32 values and their shape, as the matchers compute them.
type Samples = (Vec<f32>, Vec<usize>);

/// A function of `(y_true, y_pred)` giving one float32 value per sample (or per element), as
/// Keras's metric functions of the same names.
#[derive(Clone, Debug, PartialEq)]
pub enum Matcher {
    /// 1 where `y_true == y_pred` (`y_true` cast to `y_pred`'s dtype), else 0.
    Accuracy,
    /// 1 where `y_true == (y_pred > threshold)`, else 0 (the threshold rounded to float32).
    BinaryAccuracy {
        /// Predictions above it count as 1.
        threshold: f64,
    },
    /// 1 where the argmax of `y_pred` is the argmax of the one-hot `y_true`.
    CategoricalAccuracy,
    /// 1 where the argmax of `y_pred` equals the integer label.
    SparseCategoricalAccuracy,
    /// 1 where the argmax of the one-hot `y_true` is among the `k` highest scores
    /// (`tf.math.in_top_k`: fewer than `k` scores strictly above it; ties count in; a row with
    /// a non-finite score never does).
    TopKCategoricalAccuracy {
        /// How many of the highest scores count.
        k: usize,
    },
    /// `mean(square(y_true - y_pred), axis=-1)`.
    MeanSquaredError,
    /// `mean(abs(y_true - y_pred), axis=-1)`.
    MeanAbsoluteError,
}

impl Matcher {
    /// Keras's name of the metric (`"accuracy"`, `"binary_accuracy"`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Matcher::Accuracy => "accuracy",
            Matcher::BinaryAccuracy { .. } => "binary_accuracy",
            Matcher::CategoricalAccuracy => "categorical_accuracy",
            Matcher::SparseCategoricalAccuracy => "sparse_categorical_accuracy",
            Matcher::TopKCategoricalAccuracy { .. } => "top_k_categorical_accuracy",
            Matcher::MeanSquaredError => "mean_squared_error",
            Matcher::MeanAbsoluteError => "mean_absolute_error",
        }
    }

    /// The per-sample values as a float32 tensor.
    pub fn values(&self, y_true: &Tensor, y_pred: &Tensor) -> Result<Tensor> {
        let (values, shape) = self.samples(y_true, y_pred)?;
        Tensor::from_vec(values, &shape)
    }

    fn samples(&self, y_true: &Tensor, y_pred: &Tensor) -> Result<Samples> {
        let name = self.name();
        let t = Dense::of(y_true, name, "y_true")?;
        let p = Dense::of(y_pred, name, "y_pred")?;
        match *self {
            Matcher::Accuracy => equal_elements(name, t.cast(p.dtype), p),
            Matcher::BinaryAccuracy { threshold } => binary(name, t, p, threshold),
            Matcher::CategoricalAccuracy => categorical(name, t, p),
            Matcher::SparseCategoricalAccuracy => sparse_categorical(name, t, p),
            Matcher::TopKCategoricalAccuracy { k } => top_k(name, t, p, k),
            Matcher::MeanSquaredError => mean_error(name, t, p, |d| d * d, |d| d * d),
            Matcher::MeanAbsoluteError => mean_error(name, t, p, f32::abs, f64::abs),
        }
    }
}

fn check_rank(name: &str, what: &str, d: &Dense) -> Result<()> {
    if d.shape.last().is_none_or(|&classes| classes == 0) {
        return Err(Error::shape(
            name,
            format!(
                "`{what}` needs a last axis of at least one class, got shape {}",
                fmt_shape(&d.shape)
            ),
        ));
    }
    Ok(())
}

/// `a` and `b` broadcast to one shape (after `same_rank`), compared elementwise by `hit`.
fn compare(name: &str, a: Dense, b: Dense, hit: impl Fn(f64, f64) -> bool) -> Result<Samples> {
    let (mut a_shape, mut b_shape) = (a.shape, b.shape);
    same_rank(&mut a_shape, &mut b_shape, true);
    let shape = broadcast_shapes(&a_shape, &b_shape, name)?;
    let a = broadcast_to(&a.values, &a_shape, &shape, name, "y_true")?;
    let b = broadcast_to(&b.values, &b_shape, &shape, name, "y_pred")?;
    let values = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| f32::from(u8::from(hit(x, y))))
        .collect();
    Ok((values, shape))
}

fn equal_elements(name: &str, t: Dense, p: Dense) -> Result<Samples> {
    compare(name, t, p, |a, b| a == b)
}

fn binary(name: &str, t: Dense, p: Dense, threshold: f64) -> Result<Samples> {
    // Keras makes the threshold a float32 tensor; an integer `y_pred` meets it as float32.
    let threshold = threshold as f32 as f64;
    let p = if p.dtype.is_float() {
        p
    } else {
        p.cast(DType::F32)
    };
    let true_dtype = t.dtype;
    compare(name, t, p, move |t, p| {
        t == super::round_to(f64::from(u8::from(p > threshold)), true_dtype)
    })
}

/// The index of the first largest element of each row of the last axis (TensorFlow's argmax;
/// NaN never wins), as `f64`, with the shape of the other axes.
fn argmax_rows(d: &Dense) -> (Vec<f64>, Vec<usize>) {
    let classes = d.shape[d.shape.len() - 1];
    let shape = d.shape[..d.shape.len() - 1].to_vec();
    let rows = shape.iter().product::<usize>();
    let values = (0..rows)
        .map(|r| {
            let row = &d.values[r * classes..(r + 1) * classes];
            let mut best = 0;
            for (i, &v) in row.iter().enumerate() {
                if v > row[best] {
                    best = i;
                }
            }
            best as f64
        })
        .collect();
    (values, shape)
}

/// Labels `t` (already one per sample) against the argmax of `p`, as Keras's
/// `sparse_categorical_accuracy` (`squeeze_last`: squeeze `t`'s last axis when its rank is
/// `p`'s; Keras's `categorical_accuracy` does so whatever that axis's size).
fn labels_against_argmax(name: &str, t: Dense, p: Dense, categorical: bool) -> Result<Samples> {
    check_rank(name, "y_pred", &p)?;
    let t = t.cast(p.dtype);
    let original = t.shape.clone();
    let mut t_shape = t.shape.clone();
    let mut reshaped = false;
    if t_shape.len() == p.shape.len() && (categorical || t_shape.last() == Some(&1)) {
        if t_shape.last() != Some(&1) {
            return Err(Error::shape(
                name,
                format!(
                    "cannot squeeze the last axis of labels of shape {} (scores of shape {})",
                    fmt_shape(&t.shape),
                    fmt_shape(&p.shape)
                ),
            ));
        }
        t_shape.pop();
        reshaped = true;
    }
    let (pred, pred_shape) = argmax_rows(&p);
    // The argmax is cast to the labels' dtype (exact for any index of a real tensor).
    let shape = broadcast_shapes(&t_shape, &pred_shape, name)?;
    let a = broadcast_to(&t.values, &t_shape, &shape, name, "y_true")?;
    let b = broadcast_to(&pred, &pred_shape, &shape, name, "y_pred")?;
    let values: Vec<f32> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| f32::from(u8::from(x == y)))
        .collect();
    let mut shape = shape;
    if reshaped {
        if values.len() != original.iter().product::<usize>() {
            return Err(Error::shape(
                name,
                format!(
                    "labels of shape {} do not match scores of shape {}",
                    fmt_shape(&original),
                    fmt_shape(&p.shape)
                ),
            ));
        }
        shape = original;
    }
    if !categorical && shape.len() > 1 && shape.last() == Some(&1) {
        shape.pop();
    }
    Ok((values, shape))
}

fn sparse_categorical(name: &str, t: Dense, p: Dense) -> Result<Samples> {
    labels_against_argmax(name, t, p, false)
}

fn categorical(name: &str, t: Dense, p: Dense) -> Result<Samples> {
    check_rank(name, "y_true", &t)?;
    let (labels, shape) = argmax_rows(&t);
    let t = Dense {
        values: labels,
        shape,
        dtype: DType::I64,
    };
    labels_against_argmax(name, t, p, true)
}

fn top_k(name: &str, t: Dense, p: Dense, k: usize) -> Result<Samples> {
    check_rank(name, "y_true", &t)?;
    check_rank(name, "y_pred", &p)?;
    let true_shape = t.shape.clone();
    let (labels, label_shape) = argmax_rows(&t.cast(p.dtype));
    let classes = p.shape[p.shape.len() - 1];
    let rows = p.values.len() / classes.max(1);
    if labels.len() != rows {
        return Err(Error::shape(
            name,
            format!(
                "labels of shape {} give {} samples, scores of shape {} give {rows}",
                fmt_shape(&true_shape),
                labels.len(),
                fmt_shape(&p.shape)
            ),
        ));
    }
    let values = labels
        .iter()
        .enumerate()
        .map(|(r, &label)| {
            let row = &p.values[r * classes..(r + 1) * classes];
            let target = row[label as usize];
            let in_top_k = row.iter().all(|v| v.is_finite())
                && row.iter().filter(|&&v| v > target).count() < k;
            f32::from(u8::from(in_top_k))
        })
        .collect();
    let shape = if label_shape.len() > 1 {
        label_shape
    } else {
        vec![labels.len()]
    };
    Ok((values, shape))
}

/// `mean(error(y_true - y_pred), axis=-1)`, with `error32` on float32 inputs and `error64` on
/// others.
fn mean_error(
    name: &str,
    t: Dense,
    p: Dense,
    error32: fn(f32) -> f32,
    error64: fn(f64) -> f64,
) -> Result<Samples> {
    let dtype = p.dtype;
    let t = t.cast(dtype);
    let (mut t_shape, mut p_shape) = (t.shape, p.shape);
    same_rank(&mut t_shape, &mut p_shape, true);
    let shape = broadcast_shapes(&t_shape, &p_shape, name)?;
    if shape.is_empty() {
        return Err(Error::shape(
            name,
            "the mean over the last axis needs inputs of rank >= 1, got shape []",
        ));
    }
    let a = broadcast_to(&t.values, &t_shape, &shape, name, "y_true")?;
    let b = broadcast_to(&p.values, &p_shape, &shape, name, "y_pred")?;
    let last = shape[shape.len() - 1];
    let out_shape = shape[..shape.len() - 1].to_vec();
    let rows = out_shape.iter().product::<usize>();
    // float32 inputs in float32 arithmetic (Keras's), others in float64, rounded at the end.
    let values = (0..rows)
        .map(|r| {
            let (a, b) = (&a[r * last..(r + 1) * last], &b[r * last..(r + 1) * last]);
            if dtype == DType::F32 {
                let sum: f32 = a
                    .iter()
                    .zip(b)
                    .map(|(&x, &y)| error32(x as f32 - y as f32))
                    .sum();
                sum / last as f32
            } else {
                let sum: f64 = a.iter().zip(b).map(|(x, y)| error64(x - y)).sum();
                (sum / last as f64) as f32
            }
        })
        .collect();
    Ok((values, out_shape))
}

/// Keras's `accuracy`: 1 where `y_true == y_pred`, else 0 (float32).
pub fn accuracy(y_true: &Tensor, y_pred: &Tensor) -> Result<Tensor> {
    Matcher::Accuracy.values(y_true, y_pred)
}

/// Keras's `binary_accuracy`: 1 where `y_true == (y_pred > threshold)`, else 0.
pub fn binary_accuracy(y_true: &Tensor, y_pred: &Tensor, threshold: f64) -> Result<Tensor> {
    Matcher::BinaryAccuracy { threshold }.values(y_true, y_pred)
}

/// Keras's `categorical_accuracy`: 1 where the argmaxes of one-hot `y_true` and `y_pred` agree.
pub fn categorical_accuracy(y_true: &Tensor, y_pred: &Tensor) -> Result<Tensor> {
    Matcher::CategoricalAccuracy.values(y_true, y_pred)
}

/// Keras's `sparse_categorical_accuracy`: 1 where the argmax of `y_pred` is the label.
pub fn sparse_categorical_accuracy(y_true: &Tensor, y_pred: &Tensor) -> Result<Tensor> {
    Matcher::SparseCategoricalAccuracy.values(y_true, y_pred)
}

/// Keras's `top_k_categorical_accuracy` (`in_top_k` ties: fewer than `k` scores above).
pub fn top_k_categorical_accuracy(y_true: &Tensor, y_pred: &Tensor, k: usize) -> Result<Tensor> {
    Matcher::TopKCategoricalAccuracy { k }.values(y_true, y_pred)
}

/// Keras's `mean_squared_error` as a metric: `mean(square(y_true - y_pred), axis=-1)`.
pub fn mean_squared_error(y_true: &Tensor, y_pred: &Tensor) -> Result<Tensor> {
    Matcher::MeanSquaredError.values(y_true, y_pred)
}

/// Keras's `mean_absolute_error` as a metric: `mean(abs(y_true - y_pred), axis=-1)`.
pub fn mean_absolute_error(y_true: &Tensor, y_pred: &Tensor) -> Result<Tensor> {
    Matcher::MeanAbsoluteError.values(y_true, y_pred)
}

/// The mean of a [`Matcher`] over every sample seen (Keras's `MeanMetricWrapper`, behind
/// `Accuracy`, `BinaryAccuracy`, ..., `MeanSquaredError`).
///
/// ```
/// use rustape::metrics::{Matcher, MeanMetric};
/// use rustape::Tensor;
/// let mut m = MeanMetric::new(Matcher::BinaryAccuracy { threshold: 0.5 });
/// let y_true = Tensor::from_vec(vec![1.0f32, 0.0], &[2]).unwrap();
/// let y_pred = Tensor::from_vec(vec![0.8f32, 0.6], &[2]).unwrap();
/// m.update_state(&y_true, &y_pred, None).unwrap();
/// assert_eq!(m.result(), 0.5);
/// ```
#[derive(Clone, Debug)]
pub struct MeanMetric {
    matcher: Matcher,
    mean: Mean,
}

impl MeanMetric {
    /// The mean of `matcher`, over nothing yet.
    pub fn new(matcher: Matcher) -> MeanMetric {
        MeanMetric {
            matcher,
            mean: Mean::new(),
        }
    }

    /// The matcher averaged.
    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// Adds the matcher's values on one batch, weighted by `sample_weight` (as [`Mean`]).
    pub fn update_state(
        &mut self,
        y_true: &Tensor,
        y_pred: &Tensor,
        sample_weight: Option<&Tensor>,
    ) -> Result<()> {
        let (values, shape) = self.matcher.samples(y_true, y_pred)?;
        self.mean
            .update_f32(self.matcher.name(), values, shape, sample_weight)
    }

    /// The weighted mean so far (0 before any weight).
    pub fn result(&self) -> f32 {
        self.mean.result()
    }

    /// The underlying total and count.
    pub fn mean(&self) -> &Mean {
        &self.mean
    }

    /// Back to no samples.
    pub fn reset_state(&mut self) {
        self.mean.reset_state();
    }
}
