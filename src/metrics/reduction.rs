//! `Mean` and `Sum`: float32 totals of (weighted) values, as Keras's reduction metrics keep them.
use super::{broadcast_to, divide_no_nan, same_rank, Dense};
use crate::error::Result;
use crate::tensor::Tensor;

/// How values are reduced over the axes a weight does not have: `Sum` sums them, `Mean`
/// averages them (Keras passes `ops.sum` or `ops.mean` as `reduce_fn`).
#[derive(Clone, Copy, Debug)]
enum Reduce {
    Sum,
    Mean,
}

/// `values` (row-major, `shape`) reduced over every axis from `keep` on, in float32.
fn reduce_trailing(values: &[f32], shape: &[usize], keep: usize, how: Reduce) -> Vec<f32> {
    let inner: usize = shape[keep..].iter().product();
    if inner == 0 {
        // Reducing an empty axis: the sum is 0, the mean NaN (as TensorFlow's).
        let outer: usize = shape[..keep].iter().product();
        let empty = match how {
            Reduce::Sum => 0.0,
            Reduce::Mean => f32::NAN,
        };
        return vec![empty; outer];
    }
    values
        .chunks(inner)
        .map(|row| {
            let total: f32 = row.iter().sum();
            match how {
                Reduce::Sum => total,
                Reduce::Mean => total / inner as f32,
            }
        })
        .collect()
}

/// Per-sample values, their shape, and per-sample weights when weighted.
type Samplewise = (Vec<f32>, Vec<usize>, Option<Vec<f32>>);

/// Keras's `reduce_to_samplewise_values`: the values (float32) reduced to one per sample,
/// multiplied by the weights, and the weights reduced to one per sample (when given).
fn samplewise(
    metric: &str,
    values: Vec<f32>,
    mut shape: Vec<usize>,
    sample_weight: Option<&Tensor>,
    how: Reduce,
) -> Result<Samplewise> {
    let mut values = values;
    let mut weight = None;
    if let Some(sw) = sample_weight {
        let w = Dense::of(sw, metric, "sample_weight")?;
        let mut w_shape = w.shape.clone();
        same_rank(&mut shape, &mut w_shape, true);
        if shape.len() > w_shape.len() {
            values = reduce_trailing(&values, &shape, w_shape.len(), how);
            shape.truncate(w_shape.len());
        }
        let mut w = broadcast_to(&w.f32_values(), &w_shape, &shape, metric, "sample_weight")?;
        for (v, w) in values.iter_mut().zip(&w) {
            *v *= w;
        }
        if shape.len() > 1 {
            w = reduce_trailing(&w, &shape, 1, how);
        }
        weight = Some(w);
    }
    if shape.len() > 1 {
        values = reduce_trailing(&values, &shape, 1, how);
        shape.truncate(1);
    }
    Ok((values, shape, weight))
}

/// The weighted sum of every value seen (Keras's `metrics.Sum`), a float32 total.
///
/// ```
/// use rustape::{metrics::Sum, Tensor};
/// let mut s = Sum::new();
/// let values = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
/// let weights = Tensor::from_vec(vec![1.0f32, 0.5], &[2]).unwrap();
/// s.update_state(&values, Some(&weights)).unwrap();
/// assert_eq!(s.result(), 2.0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Sum {
    total: f32,
}

impl Sum {
    /// A sum of nothing yet (0).
    pub fn new() -> Sum {
        Sum::default()
    }

    /// Adds `values` (any shape), each multiplied by its `sample_weight` (broadcast as Keras
    /// does: a weight of lower rank sums the values over the axes it lacks).
    pub fn update_state(&mut self, values: &Tensor, sample_weight: Option<&Tensor>) -> Result<()> {
        let v = Dense::of(values, "Sum", "values")?;
        let (values, _, _) =
            samplewise("Sum", v.f32_values(), v.shape, sample_weight, Reduce::Sum)?;
        self.total += values.iter().sum::<f32>();
        Ok(())
    }

    /// The total.
    pub fn result(&self) -> f32 {
        self.total
    }

    /// Back to 0.
    pub fn reset_state(&mut self) {
        self.total = 0.0;
    }
}

/// The weighted mean of every value seen (Keras's `metrics.Mean`): a float32 `total` of
/// weighted per-sample values and a float32 `count` of weights (or samples).
///
/// ```
/// use rustape::{metrics::Mean, Tensor};
/// let mut m = Mean::new();
/// let values = Tensor::from_vec(vec![1.0f32, 3.0], &[2]).unwrap();
/// let weights = Tensor::from_vec(vec![3.0f32, 1.0], &[2]).unwrap();
/// m.update_state(&values, Some(&weights)).unwrap();
/// assert_eq!(m.result(), 1.5);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Mean {
    total: f32,
    count: f32,
}

impl Mean {
    /// A mean of nothing yet (its result is 0).
    pub fn new() -> Mean {
        Mean::default()
    }

    /// Adds `values` (any shape; axes after the first are averaged per sample), weighted by
    /// `sample_weight` broadcast as Keras does.
    pub fn update_state(&mut self, values: &Tensor, sample_weight: Option<&Tensor>) -> Result<()> {
        let v = Dense::of(values, "Mean", "values")?;
        self.update_f32("Mean", v.f32_values(), v.shape, sample_weight)
    }

    /// [`Mean::update_state`] on float32 values already in hand (`metric` names errors).
    pub(crate) fn update_f32(
        &mut self,
        metric: &str,
        values: Vec<f32>,
        shape: Vec<usize>,
        sample_weight: Option<&Tensor>,
    ) -> Result<()> {
        let (values, shape, weight) =
            samplewise(metric, values, shape, sample_weight, Reduce::Mean)?;
        self.total += values.iter().sum::<f32>();
        self.count += match (weight, shape.first()) {
            (Some(w), _) => w.iter().sum::<f32>(),
            (None, Some(&n)) => n as f32,
            (None, None) => 1.0,
        };
        Ok(())
    }

    /// `total / count`, or 0 before any weight was seen.
    pub fn result(&self) -> f32 {
        divide_no_nan(self.total, self.count)
    }

    /// The weighted total so far.
    pub fn total(&self) -> f32 {
        self.total
    }

    /// The total weight (or number of samples) so far.
    pub fn count(&self) -> f32 {
        self.count
    }

    /// Back to no values.
    pub fn reset_state(&mut self) {
        self.total = 0.0;
        self.count = 0.0;
    }
}
