//! `MetricState` and `metric_values`: the engine's metrics (`rustape::metrics`) behind
//! `rt.keras.metrics` (the Keras-style Python classes each hold one state).
use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;

use super::bindings::bindings;
use super::convert::to_tensor;
use super::error::{count_arg, guard, number_arg, value_error};
use super::tensor::PyTensor;
use crate::metrics::{
    AtOperatingPoint, Auc, AucOptions, Curve, Matcher, Mean, MeanMetric, OperatingPoint, Sum,
    SummationMethod,
};
use crate::tensor::Tensor;

/// The accumulated state of one metric.
enum State {
    Mean(Mean),
    Sum(Sum),
    Matcher(MeanMetric),
    Auc(Auc),
    AtPoint(AtOperatingPoint),
}

/// A matcher from its Keras name (`"accuracy"`, `"binary_accuracy"`, ...).
fn matcher(name: &str, threshold: f64, k: usize) -> PyResult<Matcher> {
    Ok(match name {
        "accuracy" => Matcher::Accuracy,
        "binary_accuracy" => Matcher::BinaryAccuracy { threshold },
        "categorical_accuracy" => Matcher::CategoricalAccuracy,
        "sparse_categorical_accuracy" => Matcher::SparseCategoricalAccuracy,
        "top_k_categorical_accuracy" => Matcher::TopKCategoricalAccuracy { k },
        "mean_squared_error" => Matcher::MeanSquaredError,
        "mean_absolute_error" => Matcher::MeanAbsoluteError,
        other => {
            return Err(value_error(
                "metric_values",
                format!("unknown metric {other:?}"),
            ))
        }
    })
}

/// `(y_true, y_pred)` as tensors, `y_true` converted with `y_pred`'s dtype as Keras does.
fn pair(y_true: &Bound<'_, PyAny>, y_pred: &Bound<'_, PyAny>) -> PyResult<(Tensor, Tensor)> {
    let pred = to_tensor(y_pred, None)?;
    let truth = to_tensor(y_true, Some(pred.dtype()))?;
    Ok((truth, pred))
}

fn optional(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Tensor>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(to_tensor(o, None)?)),
        _ => Ok(None),
    }
}

/// Per-sample values of a Keras metric function (`accuracy`, `binary_accuracy`, ...).
#[pyfunction]
#[pyo3(signature = (metric, y_true, y_pred, threshold = None, k = None))]
fn metric_values(
    metric: &str,
    y_true: &Bound<'_, PyAny>,
    y_pred: &Bound<'_, PyAny>,
    threshold: Option<&Bound<'_, PyAny>>,
    k: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let threshold = threshold.map_or(Ok(0.5), |t| number_arg(t, metric, "threshold"))?;
    let k = k.map_or(Ok(5), |k| count_arg(k, metric, "k"))?;
    guard(|| {
        let (truth, pred) = pair(y_true, y_pred)?;
        Ok(PyTensor::new(
            matcher(metric, threshold, k)?.values(&truth, &pred)?,
        ))
    })
}

/// The state of one streaming metric of the engine.
#[pyclass(frozen, name = "MetricState", module = "rustape._rustape")]
pub struct PyMetricState {
    inner: Mutex<State>,
}

impl PyMetricState {
    fn of(state: State) -> PyMetricState {
        PyMetricState {
            inner: Mutex::new(state),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl PyMetricState {
    /// A weighted mean.
    #[staticmethod]
    fn mean() -> PyMetricState {
        PyMetricState::of(State::Mean(Mean::new()))
    }

    /// A weighted sum.
    #[staticmethod]
    fn sum() -> PyMetricState {
        PyMetricState::of(State::Sum(Sum::new()))
    }

    /// The mean of a metric function over every sample.
    #[staticmethod]
    #[pyo3(signature = (metric, threshold = 0.5, k = 5))]
    fn matcher(metric: &str, threshold: f64, k: usize) -> PyResult<PyMetricState> {
        let m = matcher(metric, threshold, k)?;
        Ok(PyMetricState::of(State::Matcher(MeanMetric::new(m))))
    }

    /// Confusion counts at thresholds and the area under a curve.
    #[staticmethod]
    #[pyo3(signature = (num_thresholds = 200, curve = "ROC", summation_method = "interpolation",
                        thresholds = None, multi_label = false, num_labels = None,
                        label_weights = None, from_logits = false))]
    #[allow(clippy::too_many_arguments)] // Keras's arguments
    fn auc(
        num_thresholds: i64,
        curve: &str,
        summation_method: &str,
        thresholds: Option<Vec<f64>>,
        multi_label: bool,
        num_labels: Option<usize>,
        label_weights: Option<&Bound<'_, PyAny>>,
        from_logits: bool,
    ) -> PyResult<PyMetricState> {
        guard(|| {
            let label_weights = optional(label_weights)?.map(|w| w.to_f64_vec());
            let options = AucOptions {
                num_thresholds: usize::try_from(num_thresholds).unwrap_or(0),
                curve: Curve::from_name(curve)?,
                summation_method: SummationMethod::from_name(summation_method)?,
                thresholds,
                multi_label,
                num_labels,
                label_weights,
                from_logits,
            };
            if options.thresholds.is_none() && num_thresholds <= 1 {
                return Err(value_error(
                    "AUC",
                    format!(
                        "Argument `num_thresholds` must be an integer > 1. Received: \
                         num_thresholds={num_thresholds}"
                    ),
                ));
            }
            Ok(PyMetricState::of(State::Auc(Auc::new(options)?)))
        })
    }

    /// Confusion counts at `num_thresholds` thresholds and the best rate where its pair
    /// reaches `target` (`kind` is Keras's class name, `PrecisionAtRecall`, ...).
    #[staticmethod]
    #[pyo3(signature = (kind, target, num_thresholds = 200, class_id = None))]
    fn at_operating_point(
        kind: &str,
        target: f64,
        num_thresholds: i64,
        class_id: Option<usize>,
    ) -> PyResult<PyMetricState> {
        guard(|| {
            let kind = match kind {
                "PrecisionAtRecall" => OperatingPoint::PrecisionAtRecall,
                "RecallAtPrecision" => OperatingPoint::RecallAtPrecision,
                "SensitivityAtSpecificity" => OperatingPoint::SensitivityAtSpecificity,
                "SpecificityAtSensitivity" => OperatingPoint::SpecificityAtSensitivity,
                other => {
                    return Err(value_error(
                        "MetricState",
                        format!("unknown metric {other:?}"),
                    ))
                }
            };
            let n = usize::try_from(num_thresholds).unwrap_or(0);
            Ok(PyMetricState::of(State::AtPoint(AtOperatingPoint::new(
                kind, target, n, class_id,
            )?)))
        })
    }

    /// Accumulates one batch: `update(values, None, sample_weight)` for a mean or sum,
    /// `update(y_true, y_pred, sample_weight)` for the others.
    #[pyo3(signature = (a, b = None, sample_weight = None))]
    fn update(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: Option<&Bound<'_, PyAny>>,
        sample_weight: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        guard(|| {
            let weight = optional(sample_weight)?;
            let b = b.filter(|b| !b.is_none());
            let mut state = self.state();
            match (&mut *state, b) {
                (State::Mean(m), None) => {
                    let values = to_tensor(a, None)?;
                    py.detach(|| m.update_state(&values, weight.as_ref()))?
                }
                (State::Sum(s), None) => {
                    let values = to_tensor(a, None)?;
                    py.detach(|| s.update_state(&values, weight.as_ref()))?
                }
                (State::Matcher(m), Some(b)) => {
                    let (truth, pred) = pair(a, b)?;
                    py.detach(|| m.update_state(&truth, &pred, weight.as_ref()))?
                }
                (State::Auc(m), Some(b)) => {
                    let (truth, pred) = pair(a, b)?;
                    py.detach(|| m.update_state(&truth, &pred, weight.as_ref()))?
                }
                (State::AtPoint(m), Some(b)) => {
                    let (truth, pred) = pair(a, b)?;
                    py.detach(|| m.update_state(&truth, &pred, weight.as_ref()))?
                }
                (State::Mean(_) | State::Sum(_), Some(_)) => {
                    return Err(value_error("Metric.update_state", "takes values only"))
                }
                (_, None) => {
                    return Err(value_error(
                        "Metric.update_state",
                        "needs y_true and y_pred",
                    ))
                }
            }
            Ok(())
        })
    }

    /// The metric's value, a float32 number.
    fn result(&self) -> f32 {
        match &*self.state() {
            State::Mean(m) => m.result(),
            State::Sum(s) => s.result(),
            State::Matcher(m) => m.result(),
            State::Auc(a) => a.result(),
            State::AtPoint(m) => m.result(),
        }
    }

    /// Forgets every batch.
    fn reset(&self) {
        match &mut *self.state() {
            State::Mean(m) => m.reset_state(),
            State::Sum(s) => s.reset_state(),
            State::Matcher(m) => m.reset_state(),
            State::Auc(a) => a.reset_state(),
            State::AtPoint(m) => m.reset_state(),
        }
    }

    /// The state's variables by Keras's names (`total`, `count`, `true_positives`, ...).
    fn variables(&self) -> PyResult<Vec<(&'static str, PyTensor)>> {
        guard(|| {
            let scalar = |v: f32| PyTensor::new(Tensor::scalar(v));
            Ok(match &*self.state() {
                State::Mean(m) => vec![("total", scalar(m.total())), ("count", scalar(m.count()))],
                State::Matcher(m) => {
                    let m = m.mean();
                    vec![("total", scalar(m.total())), ("count", scalar(m.count()))]
                }
                State::Sum(s) => vec![("total", scalar(s.result()))],
                State::Auc(a) => vec![
                    ("true_positives", PyTensor::new(a.true_positives()?)),
                    ("false_positives", PyTensor::new(a.false_positives()?)),
                    ("true_negatives", PyTensor::new(a.true_negatives()?)),
                    ("false_negatives", PyTensor::new(a.false_negatives()?)),
                ],
                State::AtPoint(m) => {
                    let [tp, fp, tn, fn_] = m.counts()?;
                    vec![
                        ("true_positives", PyTensor::new(tp)),
                        ("false_positives", PyTensor::new(fp)),
                        ("true_negatives", PyTensor::new(tn)),
                        ("false_negatives", PyTensor::new(fn_)),
                    ]
                }
            })
        })
    }

    /// An AUC's thresholds (the outer two just outside [0, 1]) or a rate-at-rate metric's;
    /// empty for other metrics.
    fn thresholds(&self) -> Vec<f64> {
        match &*self.state() {
            State::Auc(a) => a.thresholds().to_vec(),
            State::AtPoint(m) => m.thresholds().to_vec(),
            _ => Vec::new(),
        }
    }
}

bindings! {
    fn metric_values => [];
    class PyMetricState => [];
}
