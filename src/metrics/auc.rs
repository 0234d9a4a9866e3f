//! `Auc`: confusion counts at thresholds and the area under the ROC or precision-recall curve,
//! as Keras 3's `metrics.AUC` accumulates and integrates them (float32 counts).
use super::{broadcast_to, divide_no_nan, round_to, same_rank, Dense};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::tensor::Tensor;

/// Keras's `backend.epsilon()`: the outer thresholds sit this far outside [0, 1].
const EPSILON: f64 = 1e-7;

/// Which curve [`Auc`] integrates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    /// True-positive rate (y) against false-positive rate (x).
    Roc,
    /// Precision (y) against recall (x).
    Pr,
}

impl Curve {
    /// `"ROC"` or `"PR"` (any case), Keras's names.
    pub fn from_name(name: &str) -> Result<Curve> {
        match name.to_ascii_uppercase().as_str() {
            "ROC" => Ok(Curve::Roc),
            "PR" => Ok(Curve::Pr),
            _ => Err(Error::value(
                "AUC",
                format!("Invalid `curve` argument value \"{name}\". Expected one of: ROC, PR"),
            )),
        }
    }

    /// Keras's name: `"ROC"` or `"PR"`.
    pub fn name(self) -> &'static str {
        match self {
            Curve::Roc => "ROC",
            Curve::Pr => "PR",
        }
    }
}

/// How [`Auc`] sums the area between two thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummationMethod {
    /// The trapezoid (ROC), or Davis & Goadrich's interpolation of precision (PR).
    Interpolation,
    /// The lower of the two heights (a lower bound).
    Minoring,
    /// The higher of the two heights (an upper bound).
    Majoring,
}

impl SummationMethod {
    /// `"interpolation"`, `"minoring"` or `"majoring"` (any case), Keras's names.
    pub fn from_name(name: &str) -> Result<SummationMethod> {
        match name.to_ascii_lowercase().as_str() {
            "interpolation" => Ok(SummationMethod::Interpolation),
            "minoring" => Ok(SummationMethod::Minoring),
            "majoring" => Ok(SummationMethod::Majoring),
            _ => Err(Error::value(
                "AUC",
                format!(
                    "Invalid `summation_method` argument value \"{name}\". Expected one of: \
                     interpolation, minoring, majoring"
                ),
            )),
        }
    }

    /// Keras's name.
    pub fn name(self) -> &'static str {
        match self {
            SummationMethod::Interpolation => "interpolation",
            SummationMethod::Minoring => "minoring",
            SummationMethod::Majoring => "majoring",
        }
    }
}

/// The arguments of Keras's `AUC` (its defaults in [`Default`]).
#[derive(Clone, Debug)]
pub struct AucOptions {
    /// Evenly spaced thresholds, the outer two just outside [0, 1] (ignored when `thresholds`
    /// is given). At least 2.
    pub num_thresholds: usize,
    /// ROC or PR.
    pub curve: Curve,
    /// How the area between thresholds is summed.
    pub summation_method: SummationMethod,
    /// The inner thresholds (sorted here; `-1e-7` and `1 + 1e-7` are added around them).
    pub thresholds: Option<Vec<f64>>,
    /// Keep counts per label (the last axis of a rank-2 `y_pred`) and average the labels'
    /// areas, instead of flattening every label into one curve.
    pub multi_label: bool,
    /// The number of labels, known before the first batch (only with `multi_label`).
    pub num_labels: Option<usize>,
    /// Non-negative weights of the labels: in the counts when the labels are flattened, in
    /// the average of the labels' areas with `multi_label`.
    pub label_weights: Option<Vec<f64>>,
    /// `y_pred` are logits (the sigmoid is applied first).
    pub from_logits: bool,
}

impl Default for AucOptions {
    fn default() -> AucOptions {
        AucOptions {
            num_thresholds: 200,
            curve: Curve::Roc,
            summation_method: SummationMethod::Interpolation,
            thresholds: None,
            multi_label: false,
            num_labels: None,
            label_weights: None,
            from_logits: false,
        }
    }
}

/// Keras's `metrics.AUC`: float32 true/false positive/negative counts at each threshold
/// (`y_pred > threshold` is positive; `y_true` is true where nonzero), summed over batches,
/// and the area under the chosen curve computed from them.
///
/// With evenly spaced thresholds (the default) predictions are clipped to [0, 1] and bucketed
/// as Keras does (`ceil(p * (n - 1)) - 1`), which decides ties exactly as Keras. A NaN
/// prediction is above no threshold.
///
/// ```
/// use rustape::metrics::{Auc, AucOptions};
/// use rustape::Tensor;
/// let mut auc = Auc::new(AucOptions::default()).unwrap();
/// let y_true = Tensor::from_vec(vec![0.0f32, 0.0, 1.0, 1.0], &[4]).unwrap();
/// let y_pred = Tensor::from_vec(vec![0.1f32, 0.4, 0.35, 0.8], &[4]).unwrap();
/// auc.update_state(&y_true, &y_pred, None).unwrap();
/// assert!((auc.result() - 0.75).abs() < 1e-6);
/// ```
#[derive(Clone, Debug)]
pub struct Auc {
    thresholds: Vec<f64>,
    evenly_spaced: bool,
    curve: Curve,
    summation_method: SummationMethod,
    multi_label: bool,
    label_weights: Option<Vec<f32>>,
    from_logits: bool,
    /// Columns of the counts: 1 unless `multi_label`; `None` until the first batch shows
    /// how many labels there are.
    labels: Option<usize>,
    /// `[thresholds, labels]`, row-major.
    true_positives: Vec<f32>,
    false_positives: Vec<f32>,
    true_negatives: Vec<f32>,
    false_negatives: Vec<f32>,
}

/// NumPy's `allclose(thresholds, arange(n, dtype=float32) / (n - 1), atol=1e-7)`, Keras's
/// test for evenly spaced thresholds (`thresholds` includes 0 and 1 here).
fn evenly_spaced(thresholds: &[f64]) -> bool {
    let n = thresholds.len();
    n >= 3
        && thresholds.iter().enumerate().all(|(i, &t)| {
            let even = f64::from(i as f32 / (n - 1) as f32);
            (t - even).abs() <= EPSILON + 1e-5 * even.abs()
        })
}

impl Auc {
    /// An AUC with the given options, or an error naming the bad argument.
    pub fn new(options: AucOptions) -> Result<Auc> {
        let (thresholds, evenly) = match options.thresholds {
            Some(mut inner) => {
                if let Some(bad) = inner.iter().find(|t| !t.is_finite()) {
                    return Err(Error::value(
                        "AUC",
                        format!("thresholds must be finite, got {bad}"),
                    ));
                }
                inner.sort_by(f64::total_cmp);
                let mut with_ends = vec![0.0];
                with_ends.extend(&inner);
                with_ends.push(1.0);
                (inner, evenly_spaced(&with_ends))
            }
            None => {
                let n = options.num_thresholds;
                if n <= 1 {
                    return Err(Error::value(
                        "AUC",
                        format!("Argument `num_thresholds` must be an integer > 1. Received: num_thresholds={n}"),
                    ));
                }
                let inner = (0..n - 2)
                    .map(|i| (i + 1) as f64 / (n - 1) as f64)
                    .collect();
                (inner, true)
            }
        };
        let mut all = Vec::with_capacity(thresholds.len() + 2);
        all.push(0.0 - EPSILON);
        all.extend(thresholds);
        all.push(1.0 + EPSILON);
        if options.num_labels.is_some() && !options.multi_label {
            return Err(Error::value(
                "AUC",
                "`num_labels` is needed only when `multi_label` is True.",
            ));
        }
        let label_weights = match options.label_weights {
            Some(w) => {
                if let Some(bad) = w.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
                    return Err(Error::value(
                        "AUC",
                        format!("label_weights must be finite and non-negative, got {bad}"),
                    ));
                }
                Some(w.iter().map(|&w| w as f32).collect::<Vec<_>>())
            }
            None => None,
        };
        let mut auc = Auc {
            thresholds: all,
            evenly_spaced: evenly,
            curve: options.curve,
            summation_method: options.summation_method,
            multi_label: options.multi_label,
            label_weights,
            from_logits: options.from_logits,
            labels: None,
            true_positives: Vec::new(),
            false_positives: Vec::new(),
            true_negatives: Vec::new(),
            false_negatives: Vec::new(),
        };
        match (options.multi_label, options.num_labels) {
            (true, Some(n)) => auc.build(n)?,
            (true, None) => {}
            (false, _) => auc.build(1)?,
        }
        Ok(auc)
    }

    /// Allocates the counts for `labels` columns.
    fn build(&mut self, labels: usize) -> Result<()> {
        if let (true, Some(w)) = (self.multi_label, &self.label_weights) {
            if w.len() != labels {
                return Err(Error::shape(
                    "AUC",
                    format!("label_weights has {} entries for {labels} labels", w.len()),
                ));
            }
        }
        self.labels = Some(labels);
        self.reset_state();
        Ok(())
    }

    /// Every threshold, the outer two at `-1e-7` and `1 + 1e-7`.
    pub fn thresholds(&self) -> &[f64] {
        &self.thresholds
    }

    /// How many thresholds (the inner ones and the two outer).
    pub fn num_thresholds(&self) -> usize {
        self.thresholds.len()
    }

    /// The curve integrated.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// How the area is summed.
    pub fn summation_method(&self) -> SummationMethod {
        self.summation_method
    }

    /// Whether counts are kept per label.
    pub fn multi_label(&self) -> bool {
        self.multi_label
    }

    /// The number of labels counted (1 unless `multi_label`; `None` before a `multi_label`
    /// AUC without `num_labels` has seen a batch).
    pub fn num_labels(&self) -> Option<usize> {
        self.labels
    }

    /// The label weights (float32), if any.
    pub fn label_weights(&self) -> Option<&[f32]> {
        self.label_weights.as_deref()
    }

    /// Whether predictions are logits.
    pub fn from_logits(&self) -> bool {
        self.from_logits
    }

    /// Adds one batch's confusion counts. `y_true` and `y_pred` have one shape (up to a
    /// trailing axis of 1); `sample_weight` broadcasts to it (a rank-1 weight weights the
    /// samples, i.e. the first axis).
    pub fn update_state(
        &mut self,
        y_true: &Tensor,
        y_pred: &Tensor,
        sample_weight: Option<&Tensor>,
    ) -> Result<()> {
        let truth = Dense::of(y_true, "AUC", "y_true")?;
        let pred = Dense::of(y_pred, "AUC", "y_pred")?;
        let (mut pred_shape, mut true_shape) = (pred.shape.clone(), truth.shape.clone());
        same_rank(&mut pred_shape, &mut true_shape, true);
        if pred_shape != true_shape {
            return Err(Error::shape(
                "AUC",
                format!(
                    "y_true of shape {} and y_pred of shape {} must have the same shape",
                    fmt_shape(&truth.shape),
                    fmt_shape(&pred.shape)
                ),
            ));
        }
        let labels = if self.multi_label {
            if pred_shape.len() != 2 {
                return Err(Error::shape(
                    "AUC",
                    format!(
                        "`y_pred` must have rank 2 when `multi_label=True`, got shape {}",
                        fmt_shape(&pred.shape)
                    ),
                ));
            }
            match self.labels {
                Some(n) if n != pred_shape[1] => {
                    return Err(Error::shape(
                        "AUC",
                        format!(
                            "y_pred of shape {} has {} labels, the metric counts {n}",
                            fmt_shape(&pred.shape),
                            pred_shape[1]
                        ),
                    ))
                }
                Some(n) => n,
                None => {
                    self.build(pred_shape[1])?;
                    pred_shape[1]
                }
            }
        } else {
            1
        };
        let weights = self.weights(&true_shape, &pred_shape, sample_weight)?;
        let mut scores = pred.f32_values();
        if self.from_logits {
            for p in &mut scores {
                *p = 1.0 / (1.0 + (-*p).exp());
            }
        }
        self.count(&truth.values, &scores, weights.as_deref(), labels);
        Ok(())
    }

    /// The weight of each element of `y_pred`: `sample_weight` (given a trailing axis, then
    /// fitted to `y_true`'s rank as Keras does) times the label weights when labels are
    /// flattened.
    fn weights(
        &self,
        true_shape: &[usize],
        pred_shape: &[usize],
        sample_weight: Option<&Tensor>,
    ) -> Result<Option<Vec<f32>>> {
        let mut weights = match sample_weight {
            Some(sw) => {
                let w = Dense::of(sw, "AUC", "sample_weight")?;
                let mut w_shape = w.shape.clone();
                w_shape.push(1);
                same_rank(&mut true_shape.to_vec(), &mut w_shape, false);
                Some(broadcast_to(
                    &w.f32_values(),
                    &w_shape,
                    pred_shape,
                    "AUC",
                    "sample_weight",
                )?)
            }
            None => None,
        };
        if let (false, Some(lw)) = (self.multi_label, &self.label_weights) {
            let lw = broadcast_to(lw, &[1, lw.len()], pred_shape, "AUC", "label_weights")?;
            weights = Some(match weights {
                Some(w) => w.iter().zip(&lw).map(|(a, b)| a * b).collect(),
                None => lw,
            });
        }
        Ok(weights)
    }

    /// How many thresholds (from the lowest) `p` is above: Keras's bucket formula when the
    /// thresholds are evenly spaced (predictions clipped to [0, 1]), else `p > threshold`.
    fn above(&self, p: f32, thresholds: &[f32]) -> usize {
        if p.is_nan() {
            return 0;
        }
        if self.evenly_spaced {
            let steps = (thresholds.len() - 1) as f32;
            let bucket = (p.clamp(0.0, 1.0) * steps).ceil() - 1.0;
            bucket.max(0.0) as usize + 1
        } else {
            thresholds.partition_point(|&t| t < p)
        }
    }

    /// Adds the counts of one batch: per label, weights bucketed by how many thresholds each
    /// prediction is above, then summed from the top threshold down.
    fn count(&mut self, truth: &[f64], scores: &[f32], weights: Option<&[f32]>, labels: usize) {
        let n = self.thresholds.len();
        let thresholds: Vec<f32> = self.thresholds.iter().map(|&t| t as f32).collect();
        let mut positive = vec![0.0f32; n * labels];
        let mut negative = vec![0.0f32; n * labels];
        let mut total_positive = vec![0.0f32; labels];
        let mut total_negative = vec![0.0f32; labels];
        for (i, (&t, &p)) in truth.iter().zip(scores).enumerate() {
            let label = i % labels;
            let w = weights.map_or(1.0, |w| w[i]);
            let is_true = round_to(t, DType::F32) != 0.0;
            let (bucket, total) = if is_true {
                (&mut positive, &mut total_positive)
            } else {
                (&mut negative, &mut total_negative)
            };
            total[label] += w;
            let k = self.above(p, &thresholds);
            if k > 0 {
                bucket[(k - 1) * labels + label] += w;
            }
        }
        for label in 0..labels {
            let (mut tp, mut fp) = (0.0f32, 0.0f32);
            for t in (0..n).rev() {
                let at = t * labels + label;
                tp += positive[at];
                fp += negative[at];
                self.true_positives[at] += tp;
                self.false_positives[at] += fp;
                self.false_negatives[at] += total_positive[label] - tp;
                self.true_negatives[at] += total_negative[label] - fp;
            }
        }
    }

    /// The area under the curve: with `multi_label`, the mean of the labels' areas (weighted
    /// by `label_weights` when given). 0 before any batch.
    pub fn result(&self) -> f32 {
        let Some(labels) = self.labels else {
            return 0.0;
        };
        let areas: Vec<f32> = (0..labels).map(|l| self.area(l, labels)).collect();
        if !self.multi_label {
            return areas[0];
        }
        match &self.label_weights {
            None => areas.iter().sum::<f32>() / labels as f32,
            Some(w) => divide_no_nan(
                areas.iter().zip(w).map(|(a, w)| a * w).sum(),
                w.iter().sum(),
            ),
        }
    }

    /// The area of one label's curve.
    fn area(&self, label: usize, labels: usize) -> f32 {
        let column =
            |v: &[f32]| -> Vec<f32> { v.iter().skip(label).step_by(labels).copied().collect() };
        let tp = column(&self.true_positives);
        let fp = column(&self.false_positives);
        let tn = column(&self.true_negatives);
        let fn_ = column(&self.false_negatives);
        if self.curve == Curve::Pr && self.summation_method == SummationMethod::Interpolation {
            return interpolate_pr(&tp, &fp, &fn_);
        }
        let recall: Vec<f32> = tp
            .iter()
            .zip(&fn_)
            .map(|(&a, &b)| divide_no_nan(a, a + b))
            .collect();
        let (x, y) = match self.curve {
            Curve::Roc => {
                let fpr = fp
                    .iter()
                    .zip(&tn)
                    .map(|(&a, &b)| divide_no_nan(a, a + b))
                    .collect();
                (fpr, recall)
            }
            Curve::Pr => {
                let precision = tp
                    .iter()
                    .zip(&fp)
                    .map(|(&a, &b)| divide_no_nan(a, a + b))
                    .collect();
                (recall, precision)
            }
        };
        (0..x.len() - 1)
            .map(|i| {
                let height = match self.summation_method {
                    SummationMethod::Interpolation => (y[i] + y[i + 1]) / 2.0,
                    SummationMethod::Minoring => y[i].min(y[i + 1]),
                    SummationMethod::Majoring => y[i].max(y[i + 1]),
                };
                (x[i] - x[i + 1]) * height
            })
            .sum()
    }

    /// The true-positive counts, shape `[thresholds]` (or `[thresholds, labels]`).
    pub fn true_positives(&self) -> Result<Tensor> {
        self.counts(&self.true_positives)
    }

    /// The false-positive counts.
    pub fn false_positives(&self) -> Result<Tensor> {
        self.counts(&self.false_positives)
    }

    /// The true-negative counts.
    pub fn true_negatives(&self) -> Result<Tensor> {
        self.counts(&self.true_negatives)
    }

    /// The false-negative counts.
    pub fn false_negatives(&self) -> Result<Tensor> {
        self.counts(&self.false_negatives)
    }

    fn counts(&self, values: &[f32]) -> Result<Tensor> {
        let n = self.thresholds.len();
        match (self.multi_label, self.labels) {
            (false, _) => Tensor::from_vec(values.to_vec(), &[n]),
            (true, labels) => Tensor::from_vec(values.to_vec(), &[n, labels.unwrap_or(0)]),
        }
    }

    /// Every count back to 0 (a `multi_label` AUC keeps its number of labels).
    pub fn reset_state(&mut self) {
        let size = self.thresholds.len() * self.labels.unwrap_or(0);
        for counts in [
            &mut self.true_positives,
            &mut self.false_positives,
            &mut self.true_negatives,
            &mut self.false_negatives,
        ] {
            counts.clear();
            counts.resize(size, 0.0);
        }
    }
}

/// Keras's `interpolate_pr_auc` (Davis & Goadrich): precision interpolated linearly in the
/// number of predicted positives between thresholds, integrated in closed form.
fn interpolate_pr(tp: &[f32], fp: &[f32], fn_: &[f32]) -> f32 {
    let positives: Vec<f32> = tp.iter().zip(fp).map(|(a, b)| a + b).collect();
    (0..tp.len() - 1)
        .map(|i| {
            let dtp = tp[i] - tp[i + 1];
            let (p, p_next) = (positives[i], positives[i + 1]);
            let slope = divide_no_nan(dtp, (p - p_next).max(0.0));
            let intercept = tp[i + 1] - slope * p_next;
            let ratio = if p > 0.0 && p_next > 0.0 {
                divide_no_nan(p, p_next.max(0.0))
            } else {
                1.0
            };
            divide_no_nan(
                slope * (dtp + intercept * ratio.ln()),
                (tp[i + 1] + fn_[i + 1]).max(0.0),
            )
        })
        .sum()
}
