//! `Optimizer` and `Schedule`: the engine objects behind `rt.keras.optimizers` (the Keras-style
//! Python classes each hold one). Updates run with the GIL released.
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::bindings::bindings;
use super::convert::to_tensor;
use super::error::{guard, type_error, value_error};
use super::tensor::{wrap_variable, PyVariable};
use crate::optim::{
    Adadelta, Adafactor, Adagrad, Adam, AdamW, Adamax, Algorithm, CosineDecay, CosineDecayRestarts,
    ExponentialDecay, Ftrl, InverseTimeDecay, Lamb, LearningRate, Lion, Muon, Nadam, Optimizer,
    Options, PiecewiseConstantDecay, PolynomialDecay, RmsProp, Schedule, Sgd,
};
use crate::variable::Variable;

/// A learning-rate schedule of the engine.
#[pyclass(frozen, name = "Schedule", module = "rustape._rustape")]
pub struct PySchedule {
    schedule: Arc<dyn Schedule>,
}

fn schedule(s: impl Schedule + 'static) -> PySchedule {
    PySchedule {
        schedule: Arc::new(s),
    }
}

#[pymethods]
impl PySchedule {
    #[staticmethod]
    fn exponential(initial: f64, steps: f64, rate: f64, staircase: bool) -> PyResult<PySchedule> {
        guard(|| {
            Ok(schedule(ExponentialDecay::new(
                initial, steps, rate, staircase,
            )?))
        })
    }
    #[staticmethod]
    fn piecewise(boundaries: Vec<i64>, values: Vec<f64>) -> PyResult<PySchedule> {
        guard(|| Ok(schedule(PiecewiseConstantDecay::new(boundaries, values)?)))
    }
    #[staticmethod]
    fn inverse_time(initial: f64, steps: f64, rate: f64, staircase: bool) -> PyResult<PySchedule> {
        guard(|| {
            Ok(schedule(InverseTimeDecay::new(
                initial, steps, rate, staircase,
            )?))
        })
    }
    #[staticmethod]
    fn polynomial(
        initial: f64,
        steps: f64,
        end: f64,
        power: f64,
        cycle: bool,
    ) -> PyResult<PySchedule> {
        guard(|| {
            Ok(schedule(PolynomialDecay::new(
                initial, steps, end, power, cycle,
            )?))
        })
    }
    #[staticmethod]
    #[pyo3(signature = (initial, steps, alpha, warmup_target, warmup_steps))]
    fn cosine(
        initial: f64,
        steps: f64,
        alpha: f64,
        warmup_target: Option<f64>,
        warmup_steps: f64,
    ) -> PyResult<PySchedule> {
        guard(|| {
            Ok(schedule(CosineDecay::new(
                initial,
                steps,
                alpha,
                warmup_target,
                warmup_steps,
            )?))
        })
    }
    #[staticmethod]
    fn cosine_restarts(
        initial: f64,
        first_steps: f64,
        t_mul: f64,
        m_mul: f64,
        alpha: f64,
    ) -> PyResult<PySchedule> {
        guard(|| {
            Ok(schedule(CosineDecayRestarts::new(
                initial,
                first_steps,
                t_mul,
                m_mul,
                alpha,
            )?))
        })
    }
    /// The rate at `step`, a float32 value.
    fn __call__(&self, step: i64) -> f32 {
        self.schedule.rate(step)
    }
}

/// An optimizer of the engine: algorithm, options, learning rate, iterations and slots.
#[pyclass(frozen, name = "Optimizer", module = "rustape._rustape")]
pub struct PyOptimizer {
    inner: Mutex<Optimizer>,
}

/// A hyperparameter: a number (or a bool for the switches) from the dict, else its default.
trait Hyper: Sized {
    fn read(value: &Bound<'_, PyAny>) -> Option<Self>;
}

impl Hyper for f64 {
    fn read(value: &Bound<'_, PyAny>) -> Option<f64> {
        value.extract().ok()
    }
}

impl Hyper for bool {
    fn read(value: &Bound<'_, PyAny>) -> Option<bool> {
        value.extract().ok()
    }
}

fn hyper<T: Hyper>(d: &Bound<'_, PyDict>, key: &str, default: T) -> PyResult<T> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => T::read(&v)
            .ok_or_else(|| type_error("Optimizer", format!("`{key}` must be a number, got {v}"))),
        _ => Ok(default),
    }
}

/// A hyperparameter that may be switched off: absent takes `default`, None is None.
fn optional_hyper(d: &Bound<'_, PyDict>, key: &str, default: Option<f64>) -> PyResult<Option<f64>> {
    match d.get_item(key)? {
        None => Ok(default),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => hyper(d, key, 0.0).map(Some).map_err(|_| {
            type_error(
                "Optimizer",
                format!("`{key}` must be a number or None, got {v}"),
            )
        }),
    }
}

fn algorithm(name: &str, h: &Bound<'_, PyDict>) -> PyResult<Algorithm> {
    let adam = |d: Adam| -> PyResult<Adam> {
        Ok(Adam {
            beta_1: hyper(h, "beta_1", d.beta_1)?,
            beta_2: hyper(h, "beta_2", d.beta_2)?,
            epsilon: hyper(h, "epsilon", d.epsilon)?,
            amsgrad: hyper(h, "amsgrad", d.amsgrad)?,
        })
    };
    Ok(match name {
        "SGD" => {
            let d = Sgd::default();
            Algorithm::Sgd(Sgd {
                momentum: hyper(h, "momentum", d.momentum)?,
                nesterov: hyper(h, "nesterov", d.nesterov)?,
            })
        }
        "Adam" => Algorithm::Adam(adam(Adam::default())?),
        "AdamW" => {
            let d = AdamW::default();
            Algorithm::AdamW(AdamW {
                adam: adam(d.adam)?,
                weight_decay: hyper(h, "weight_decay", d.weight_decay)?,
            })
        }
        "RMSprop" => {
            let d = RmsProp::default();
            Algorithm::RmsProp(RmsProp {
                rho: hyper(h, "rho", d.rho)?,
                momentum: hyper(h, "momentum", d.momentum)?,
                epsilon: hyper(h, "epsilon", d.epsilon)?,
                centered: hyper(h, "centered", d.centered)?,
            })
        }
        "Adagrad" => {
            let d = Adagrad::default();
            Algorithm::Adagrad(Adagrad {
                initial_accumulator_value: hyper(
                    h,
                    "initial_accumulator_value",
                    d.initial_accumulator_value,
                )?,
                epsilon: hyper(h, "epsilon", d.epsilon)?,
            })
        }
        "Adadelta" => {
            let d = Adadelta::default();
            Algorithm::Adadelta(Adadelta {
                rho: hyper(h, "rho", d.rho)?,
                epsilon: hyper(h, "epsilon", d.epsilon)?,
            })
        }
        "Nadam" => {
            let d = Nadam::default();
            Algorithm::Nadam(Nadam {
                beta_1: hyper(h, "beta_1", d.beta_1)?,
                beta_2: hyper(h, "beta_2", d.beta_2)?,
                epsilon: hyper(h, "epsilon", d.epsilon)?,
            })
        }
        "Adamax" => {
            let d = Adamax::default();
            Algorithm::Adamax(Adamax {
                beta_1: hyper(h, "beta_1", d.beta_1)?,
                beta_2: hyper(h, "beta_2", d.beta_2)?,
                epsilon: hyper(h, "epsilon", d.epsilon)?,
            })
        }
        "Lion" => {
            let d = Lion::default();
            Algorithm::Lion(Lion {
                beta_1: hyper(h, "beta_1", d.beta_1)?,
                beta_2: hyper(h, "beta_2", d.beta_2)?,
            })
        }
        "Ftrl" => {
            let d = Ftrl::default();
            Algorithm::Ftrl(Ftrl {
                learning_rate_power: hyper(h, "learning_rate_power", d.learning_rate_power)?,
                initial_accumulator_value: hyper(
                    h,
                    "initial_accumulator_value",
                    d.initial_accumulator_value,
                )?,
                l1_regularization_strength: hyper(
                    h,
                    "l1_regularization_strength",
                    d.l1_regularization_strength,
                )?,
                l2_regularization_strength: hyper(
                    h,
                    "l2_regularization_strength",
                    d.l2_regularization_strength,
                )?,
                l2_shrinkage_regularization_strength: hyper(
                    h,
                    "l2_shrinkage_regularization_strength",
                    d.l2_shrinkage_regularization_strength,
                )?,
                beta: hyper(h, "beta", d.beta)?,
            })
        }
        "Lamb" => {
            let d = Lamb::default();
            Algorithm::Lamb(Lamb {
                beta_1: hyper(h, "beta_1", d.beta_1)?,
                beta_2: hyper(h, "beta_2", d.beta_2)?,
                epsilon: hyper(h, "epsilon", d.epsilon)?,
            })
        }
        "Adafactor" => {
            let d = Adafactor::default();
            Algorithm::Adafactor(Adafactor {
                beta_2_decay: hyper(h, "beta_2_decay", d.beta_2_decay)?,
                epsilon_1: hyper(h, "epsilon_1", d.epsilon_1)?,
                epsilon_2: hyper(h, "epsilon_2", d.epsilon_2)?,
                clip_threshold: hyper(h, "clip_threshold", d.clip_threshold)?,
                relative_step: hyper(h, "relative_step", d.relative_step)?,
            })
        }
        "Muon" => {
            let d = Muon::default();
            let steps: f64 = hyper(h, "ns_steps", d.ns_steps as f64)?;
            if !(0.0..=1e4).contains(&steps) || steps.fract() != 0.0 {
                return Err(value_error(
                    "Muon",
                    format!("Argument `ns_steps` must be an integer in [0, 10000]. Received: ns_steps={steps}"),
                ));
            }
            Algorithm::Muon(Muon {
                adam_beta_1: hyper(h, "adam_beta_1", d.adam_beta_1)?,
                adam_beta_2: hyper(h, "adam_beta_2", d.adam_beta_2)?,
                epsilon: hyper(h, "epsilon", d.epsilon)?,
                adam_weight_decay: optional_hyper(h, "adam_weight_decay", d.adam_weight_decay)?,
                adam_lr_ratio: hyper(h, "adam_lr_ratio", d.adam_lr_ratio)?,
                momentum: hyper(h, "momentum", d.momentum)?,
                nesterov: hyper(h, "nesterov", d.nesterov)?,
                ns_steps: steps as usize,
                muon_a: hyper(h, "muon_a", d.muon_a)?,
                muon_b: hyper(h, "muon_b", d.muon_b)?,
                muon_c: hyper(h, "muon_c", d.muon_c)?,
                rms_rate: optional_hyper(h, "rms_rate", d.rms_rate)?,
            })
        }
        other => {
            return Err(value_error(
                "Optimizer",
                format!("unknown optimizer {other:?}"),
            ))
        }
    })
}

/// A learning rate from a number, a Variable or a `Schedule`.
fn learning_rate(obj: &Bound<'_, PyAny>) -> PyResult<LearningRate> {
    if let Ok(v) = obj.cast::<PyVariable>() {
        return Ok(LearningRate::Variable(v.get().v.clone()));
    }
    if let Ok(s) = obj.cast::<PySchedule>() {
        return Ok(LearningRate::Schedule(s.get().schedule.clone()));
    }
    match obj.extract::<f64>() {
        Ok(rate) => Ok(LearningRate::from(rate)),
        Err(_) => Err(value_error(
            "Optimizer",
            format!(
                "Argument `learning_rate` should be float, a Variable or a \
                 LearningRateSchedule. Received instead: learning_rate={obj}"
            ),
        )),
    }
}

fn engine_vars(vars: &[Bound<'_, PyVariable>]) -> Vec<Variable> {
    vars.iter().map(|v| v.get().v.clone()).collect()
}

impl PyOptimizer {
    fn lock(&self) -> MutexGuard<'_, Optimizer> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl PyOptimizer {
    #[new]
    #[pyo3(signature = (algorithm_name, learning_rate_value, hyperparameters, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None))]
    fn new(
        algorithm_name: &str,
        learning_rate_value: &Bound<'_, PyAny>,
        hyperparameters: &Bound<'_, PyDict>,
        weight_decay: Option<f64>,
        clipnorm: Option<f64>,
        clipvalue: Option<f64>,
        global_clipnorm: Option<f64>,
    ) -> PyResult<PyOptimizer> {
        guard(|| {
            let algo = algorithm(algorithm_name, hyperparameters)?;
            let default_decay = match &algo {
                Algorithm::AdamW(a) => Some(a.weight_decay),
                _ => None,
            };
            let options = Options {
                weight_decay: weight_decay.or(default_decay),
                clipnorm,
                clipvalue,
                global_clipnorm,
            };
            let opt =
                Optimizer::new(algo, learning_rate(learning_rate_value)?)?.with_options(options)?;
            Ok(PyOptimizer {
                inner: Mutex::new(opt),
            })
        })
    }

    /// Applies `grads[i]` (a tensor, array or None) to `variables[i]`; `learning_rate` overrides
    /// the optimizer's own for this step.
    #[pyo3(signature = (grads, variables, learning_rate=None))]
    fn apply(
        &self,
        py: Python<'_>,
        grads: Vec<Option<Bound<'_, PyAny>>>,
        variables: Vec<Bound<'_, PyVariable>>,
        learning_rate: Option<f64>,
    ) -> PyResult<()> {
        guard(|| {
            let grads = grads
                .iter()
                .map(|g| g.as_ref().map(|g| to_tensor(g, None)).transpose())
                .collect::<PyResult<Vec<_>>>()?;
            let vars = engine_vars(&variables);
            py.detach(|| {
                let mut opt = self.lock();
                match learning_rate {
                    Some(rate) => opt.apply_gradients_with_rate(&grads, &vars, rate),
                    None => opt.apply_gradients(&grads, &vars),
                }
            })?;
            Ok(())
        })
    }

    /// Creates the slots of `variables` (once).
    fn build(&self, variables: Vec<Bound<'_, PyVariable>>) -> PyResult<()> {
        guard(|| Ok(self.lock().build(&engine_vars(&variables))?))
    }

    /// Whether the slots exist.
    #[getter]
    fn built(&self) -> bool {
        self.lock().built()
    }

    /// The int64 step counter.
    #[getter]
    fn iterations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyVariable>> {
        let v = self.lock().iterations_variable().clone();
        wrap_variable(py, v)
    }

    /// The learning-rate variable (None when the rate is a schedule).
    #[getter]
    fn learning_rate_variable<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyVariable>>> {
        let source = self.lock().learning_rate_source().clone();
        match source {
            LearningRate::Variable(v) => Ok(Some(wrap_variable(py, v)?)),
            LearningRate::Schedule(_) => Ok(None),
        }
    }

    /// The rate the next update uses.
    fn current_learning_rate(&self) -> PyResult<f64> {
        guard(|| Ok(self.lock().learning_rate()?))
    }

    /// Replaces the learning rate (a number, a Variable or a Schedule).
    fn set_learning_rate(&self, learning_rate_value: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| {
            let rate = learning_rate(learning_rate_value)?;
            self.lock().set_learning_rate(rate)?;
            Ok(())
        })
    }

    /// Every variable the optimizer owns, in Keras's order.
    fn variables<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyVariable>>> {
        let vars = self.lock().variables();
        vars.into_iter().map(|v| wrap_variable(py, v)).collect()
    }

    /// Slot `name` of `variable` (None before the optimizer is built).
    fn slot<'py>(
        &self,
        py: Python<'py>,
        variable: &Bound<'py, PyVariable>,
        name: &str,
    ) -> PyResult<Option<Bound<'py, PyVariable>>> {
        let slot = self.lock().slot(&variable.get().v, name);
        slot.map(|v| wrap_variable(py, v)).transpose()
    }

    /// Has Muon step the matrices `variables` with AdamW (before the optimizer is built).
    fn use_adamw_for(&self, variables: Vec<Bound<'_, PyVariable>>) -> PyResult<()> {
        guard(|| Ok(self.lock().use_adamw_for(&engine_vars(&variables))?))
    }

    /// Leaves `variables` (and names containing one of `names`) out of weight decay.
    fn exclude_from_weight_decay(
        &self,
        variables: Vec<Bound<'_, PyVariable>>,
        names: Vec<String>,
    ) -> PyResult<()> {
        guard(|| {
            Ok(self
                .lock()
                .exclude_from_weight_decay(&engine_vars(&variables), &names)?)
        })
    }
}

// The engine objects behind rt.keras.optimizers (the extension only: users meet the Python
// classes that hold them).
bindings! {
    class PyOptimizer => [];
    class PySchedule => [];
}
