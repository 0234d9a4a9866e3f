//! Keras 3's `PrecisionAtRecall`, `RecallAtPrecision`, `SensitivityAtSpecificity` and
//! `SpecificityAtSensitivity`: confusion counts at evenly spaced thresholds in [0, 1], and the
//! best value of one rate among the thresholds where the other reaches a target.
use super::{broadcast_to, divide_no_nan, round_to, same_rank, Dense};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::Tensor;

/// Which rate is maximised under which constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperatingPoint {
    /// The best precision where recall >= the target.
    PrecisionAtRecall,
    /// The best recall where precision >= the target.
    RecallAtPrecision,
    /// The best sensitivity (recall) where specificity >= the target.
    SensitivityAtSpecificity,
    /// The best specificity where sensitivity (recall) >= the target.
    SpecificityAtSensitivity,
}

impl OperatingPoint {
    /// Keras's class name.
    pub fn name(self) -> &'static str {
        match self {
            OperatingPoint::PrecisionAtRecall => "PrecisionAtRecall",
            OperatingPoint::RecallAtPrecision => "RecallAtPrecision",
            OperatingPoint::SensitivityAtSpecificity => "SensitivityAtSpecificity",
            OperatingPoint::SpecificityAtSensitivity => "SpecificityAtSensitivity",
        }
    }

    /// The name of the target argument (`"recall"`, `"precision"`, ...).
    pub fn target_name(self) -> &'static str {
        match self {
            OperatingPoint::PrecisionAtRecall => "recall",
            OperatingPoint::RecallAtPrecision => "precision",
            OperatingPoint::SensitivityAtSpecificity => "specificity",
            OperatingPoint::SpecificityAtSensitivity => "sensitivity",
        }
    }
}

/// One of Keras's "rate at rate" metrics: float32 true/false positive/negative counts at
/// `num_thresholds` thresholds (`[0, 1/(n-1), ..., 1]`, or `[0.5]` for one), summed over
/// batches. Predictions are clipped to [0, 1] and bucketed as Keras does
/// (`ceil(p * (n - 1)) - 1`, so a prediction of 0 is below every threshold).
///
/// ```
/// use rustape::metrics::{AtOperatingPoint, OperatingPoint};
/// use rustape::Tensor;
/// let mut m = AtOperatingPoint::new(OperatingPoint::PrecisionAtRecall, 0.5, 200, None).unwrap();
/// let y_true = Tensor::from_vec(vec![0.0f32, 0.0, 0.0, 1.0, 1.0], &[5]).unwrap();
/// let y_pred = Tensor::from_vec(vec![0.0f32, 0.3, 0.8, 0.3, 0.8], &[5]).unwrap();
/// m.update_state(&y_true, &y_pred, None).unwrap();
/// assert!((m.result() - 0.5).abs() < 1e-6);
/// ```
#[derive(Clone, Debug)]
pub struct AtOperatingPoint {
    kind: OperatingPoint,
    target: f64,
    thresholds: Vec<f64>,
    class_id: Option<usize>,
    true_positives: Vec<f32>,
    false_positives: Vec<f32>,
    true_negatives: Vec<f32>,
    false_negatives: Vec<f32>,
}

impl AtOperatingPoint {
    /// The metric `kind` with target `target` in [0, 1], `num_thresholds >= 1`, and optionally
    /// one column `class_id` of the predictions; ValueError naming the bad argument.
    pub fn new(
        kind: OperatingPoint,
        target: f64,
        num_thresholds: usize,
        class_id: Option<usize>,
    ) -> Result<AtOperatingPoint> {
        let name = kind.name();
        let arg = kind.target_name();
        if !(0.0..=1.0).contains(&target) {
            return Err(Error::value(
                name,
                format!("Argument `{arg}` must be in the range [0, 1]. Received: {arg}={target}"),
            ));
        }
        if num_thresholds == 0 {
            return Err(Error::value(
                name,
                "Argument `num_thresholds` must be an integer > 0. Received: num_thresholds=0",
            ));
        }
        let thresholds = if num_thresholds == 1 {
            vec![0.5]
        } else {
            let n = num_thresholds;
            let mut t = vec![0.0];
            t.extend((0..n - 2).map(|i| (i + 1) as f64 / (n - 1) as f64));
            t.push(1.0);
            t
        };
        let zeros = vec![0.0f32; thresholds.len()];
        Ok(AtOperatingPoint {
            kind,
            target,
            thresholds,
            class_id,
            true_positives: zeros.clone(),
            false_positives: zeros.clone(),
            true_negatives: zeros.clone(),
            false_negatives: zeros,
        })
    }

    /// The thresholds.
    pub fn thresholds(&self) -> &[f64] {
        &self.thresholds
    }

    /// Adds one batch's confusion counts. `y_true` and `y_pred` have one shape (up to a
    /// trailing axis of 1); `sample_weight` broadcasts to it (a rank-1 weight weights the
    /// samples). With `class_id`, only that column of the last axis counts.
    pub fn update_state(
        &mut self,
        y_true: &Tensor,
        y_pred: &Tensor,
        sample_weight: Option<&Tensor>,
    ) -> Result<()> {
        let name = self.kind.name();
        let truth = Dense::of(y_true, name, "y_true")?;
        let pred = Dense::of(y_pred, name, "y_pred")?;
        let (mut pred_shape, mut true_shape) = (pred.shape.clone(), truth.shape.clone());
        same_rank(&mut pred_shape, &mut true_shape, true);
        if pred_shape != true_shape {
            return Err(Error::shape(
                name,
                format!(
                    "y_true of shape {} and y_pred of shape {} must have the same shape",
                    fmt_shape(&truth.shape),
                    fmt_shape(&pred.shape)
                ),
            ));
        }
        let weights = match sample_weight {
            Some(sw) => {
                let w = Dense::of(sw, name, "sample_weight")?;
                let mut w_shape = w.shape.clone();
                w_shape.push(1);
                same_rank(&mut true_shape.clone(), &mut w_shape, false);
                Some(broadcast_to(
                    &w.f32_values(),
                    &w_shape,
                    &pred_shape,
                    name,
                    "sample_weight",
                )?)
            }
            None => None,
        };
        let scores = pred.f32_values();
        let (columns, column) = match self.class_id {
            Some(id) => {
                let classes = pred_shape.last().copied().unwrap_or(0);
                if pred_shape.len() < 2 || id >= classes {
                    return Err(Error::value(
                        name,
                        format!(
                            "class_id {id} needs y_pred of shape (samples, classes > {id}), got \
                             shape {}",
                            fmt_shape(&pred.shape)
                        ),
                    ));
                }
                (classes, id)
            }
            None => (1, 0),
        };
        self.count(&truth.values, &scores, weights.as_deref(), columns, column);
        Ok(())
    }

    /// How many thresholds (from the lowest) `p` is above.
    fn above(&self, p: f32) -> usize {
        let n = self.thresholds.len();
        if p.is_nan() {
            0
        } else if n == 1 {
            usize::from(p > 0.5)
        } else {
            // Keras's bucket `ceil(p * (n - 1)) - 1` in float32; -1 (p = 0) is no bucket.
            (p.clamp(0.0, 1.0) * (n - 1) as f32).ceil() as usize
        }
    }

    /// Adds the counts of the elements in column `column` of `columns`: weights bucketed by
    /// how many thresholds each prediction is above, then summed from the top threshold down.
    fn count(
        &mut self,
        truth: &[f64],
        scores: &[f32],
        weights: Option<&[f32]>,
        columns: usize,
        column: usize,
    ) {
        let n = self.thresholds.len();
        let mut positive = vec![0.0f32; n];
        let mut negative = vec![0.0f32; n];
        let (mut total_positive, mut total_negative) = (0.0f32, 0.0f32);
        for (i, (&t, &p)) in truth.iter().zip(scores).enumerate() {
            if i % columns != column {
                continue;
            }
            let w = weights.map_or(1.0, |w| w[i]);
            let (bucket, total) = if round_to(t, DType::F32) != 0.0 {
                (&mut positive, &mut total_positive)
            } else {
                (&mut negative, &mut total_negative)
            };
            *total += w;
            let k = self.above(p);
            if k > 0 {
                bucket[k - 1] += w;
            }
        }
        let (mut tp, mut fp) = (0.0f32, 0.0f32);
        for t in (0..n).rev() {
            tp += positive[t];
            fp += negative[t];
            self.true_positives[t] += tp;
            self.false_positives[t] += fp;
            self.false_negatives[t] += total_positive - tp;
            self.true_negatives[t] += total_negative - fp;
        }
    }

    /// The best dependent rate among thresholds where the constrained rate reaches the target
    /// (0 where none does).
    pub fn result(&self) -> f32 {
        let rate = |a: &[f32], b: &[f32]| -> Vec<f32> {
            a.iter()
                .zip(b)
                .map(|(&x, &y)| divide_no_nan(x, x + y))
                .collect()
        };
        let (tp, fp, tn, fn_) = (
            &self.true_positives,
            &self.false_positives,
            &self.true_negatives,
            &self.false_negatives,
        );
        let recall = rate(tp, fn_);
        let (constrained, dependent) = match self.kind {
            OperatingPoint::PrecisionAtRecall => (recall, rate(tp, fp)),
            OperatingPoint::RecallAtPrecision => (rate(tp, fp), recall),
            OperatingPoint::SensitivityAtSpecificity => (rate(tn, fp), recall),
            OperatingPoint::SpecificityAtSensitivity => (recall, rate(tn, fp)),
        };
        let target = self.target as f32;
        constrained
            .iter()
            .zip(&dependent)
            .filter(|(&c, _)| c >= target)
            .fold(0.0f32, |best, (_, &d)| if best < d { d } else { best })
    }

    /// The counts, one per threshold: true positives, false positives, true negatives, false
    /// negatives.
    pub fn counts(&self) -> Result<[Tensor; 4]> {
        let n = [self.thresholds.len()];
        Ok([
            Tensor::from_vec(self.true_positives.clone(), &n)?,
            Tensor::from_vec(self.false_positives.clone(), &n)?,
            Tensor::from_vec(self.true_negatives.clone(), &n)?,
            Tensor::from_vec(self.false_negatives.clone(), &n)?,
        ])
    }

    /// Every count back to 0.
    pub fn reset_state(&mut self) {
        for counts in [
            &mut self.true_positives,
            &mut self.false_positives,
            &mut self.true_negatives,
            &mut self.false_negatives,
        ] {
            counts.iter_mut().for_each(|c| *c = 0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(m: &mut AtOperatingPoint, truth: &[f32], pred: &[f32], w: Option<&[f32]>) {
        let t = Tensor::from_vec(truth.to_vec(), &[truth.len()]).unwrap();
        let p = Tensor::from_vec(pred.to_vec(), &[pred.len()]).unwrap();
        let w = w.map(|w| Tensor::from_vec(w.to_vec(), &[w.len()]).unwrap());
        m.update_state(&t, &p, w.as_ref()).unwrap();
    }

    #[test]
    fn keras_docstring_examples() {
        use OperatingPoint::*;
        let (t, p) = ([0.0, 0.0, 0.0, 1.0, 1.0], [0.0, 0.3, 0.8, 0.3, 0.8]);
        let cases: [(OperatingPoint, f64, Option<[f32; 5]>, f32); 6] = [
            (SensitivityAtSpecificity, 0.5, None, 0.5),
            (
                SensitivityAtSpecificity,
                0.5,
                Some([1.0, 1.0, 2.0, 2.0, 1.0]),
                1.0 / 3.0,
            ),
            (SpecificityAtSensitivity, 0.5, None, 2.0 / 3.0),
            (
                SpecificityAtSensitivity,
                0.5,
                Some([1.0, 1.0, 2.0, 2.0, 2.0]),
                0.5,
            ),
            (PrecisionAtRecall, 0.5, None, 0.5),
            (
                PrecisionAtRecall,
                0.5,
                Some([2.0, 2.0, 2.0, 1.0, 1.0]),
                1.0 / 3.0,
            ),
        ];
        for (kind, target, w, want) in cases {
            let mut m = AtOperatingPoint::new(kind, target, 200, None).unwrap();
            batch(&mut m, &t, &p, w.as_ref().map(|w| &w[..]));
            assert!(
                (m.result() - want).abs() < 1e-6,
                "{kind:?} {w:?}: {}",
                m.result()
            );
        }
        let mut m = AtOperatingPoint::new(RecallAtPrecision, 0.8, 200, None).unwrap();
        batch(&mut m, &[0.0, 0.0, 1.0, 1.0], &[0.0, 0.5, 0.3, 0.9], None);
        assert_eq!(m.result(), 0.5);
        m.reset_state();
        batch(
            &mut m,
            &[0.0, 0.0, 1.0, 1.0],
            &[0.0, 0.5, 0.3, 0.9],
            Some(&[1.0, 0.0, 0.0, 1.0]),
        );
        assert_eq!(m.result(), 1.0);
    }

    #[test]
    fn bad_arguments_name_the_metric() {
        let err = AtOperatingPoint::new(OperatingPoint::PrecisionAtRecall, 1.5, 10, None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("PrecisionAtRecall") && err.contains("recall"),
            "{err}"
        );
        let err = AtOperatingPoint::new(OperatingPoint::RecallAtPrecision, 0.5, 0, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("num_thresholds"), "{err}");
        let mut m =
            AtOperatingPoint::new(OperatingPoint::RecallAtPrecision, 0.5, 10, Some(3)).unwrap();
        let t = Tensor::from_vec(vec![0.0f32; 4], &[2, 2]).unwrap();
        let err = m.update_state(&t, &t, None).unwrap_err().to_string();
        assert!(err.contains("class_id"), "{err}");
    }
}
