//! Optimizers: Keras 3's update rules, each a fused kernel over a variable's elements.
//!
//! An [`Optimizer`] holds an [`Algorithm`] (its hyperparameters), the [`Options`] every Keras
//! optimizer shares (weight decay and one of three gradient clippings), a [`LearningRate`] (a
//! variable or a [`Schedule`]), the step count `iterations` and, per variable, the algorithm's
//! slots (momenta, velocities, ...) as [`Variable`]s. `apply_gradients` changes the variables in
//! place, never through recorded ops: one pass per variable does clipping, weight decay and the
//! update, element by element in the order of Keras's formulas, so a float32 model follows
//! Keras's numbers to the last bit where TensorFlow's kernels round each operation exactly.
//!
//! ```
//! use rustape::optim::{Adam, Optimizer};
//! use rustape::{Tensor, Variable};
//! let w = Variable::new(Tensor::from_vec(vec![1.0f32, -2.0], &[2]).unwrap(), true, Some("w"));
//! let mut adam = Optimizer::new(Adam::default(), 0.1).unwrap();
//! let grad = Tensor::from_vec(vec![0.5f32, -0.5], &[2]).unwrap();
//! adam.apply_gradients(&[Some(grad)], std::slice::from_ref(&w)).unwrap();
//! assert_eq!(adam.iterations(), 1);
//! // Adam's first step moves every element by about the learning rate, against its gradient.
//! let moved = w.peek().to_f64_vec();
//! assert!((moved[0] - 0.9).abs() < 1e-5 && (moved[1] + 1.9).abs() < 1e-5);
//! ```
mod ftrl;
mod hyperparameters;
mod layerwise;
mod muon;
mod rules;
mod schedule;
mod update;

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

pub use ftrl::Ftrl;
pub use layerwise::{Adafactor, Lamb};
pub use muon::{Muon, MUON_WEIGHT_DECAY};
pub use rules::{Adadelta, Adagrad, Adam, AdamW, Adamax, Algorithm, Lion, Nadam, RmsProp, Sgd};
pub use schedule::{
    CosineDecay, CosineDecayRestarts, ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay,
    PolynomialDecay, Schedule,
};

use crate::dtype::{DType, Float};
use crate::error::{fmt_shape, Error, Result};
use crate::ops;
use crate::tape::{without_recording, Source, Tape, Unconnected};
use crate::tensor::{Data, Element, Tensor, TensorId};
use crate::variable::Variable;
use update::Prep;

/// The options every Keras optimizer shares. At most one of the clippings may be set; a value
/// of 0 (or less) turns a clipping off, as in Keras.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// Decoupled weight decay: before each update, `w -= w * weight_decay * learning_rate`.
    pub weight_decay: Option<f64>,
    /// Clip each gradient to this L2 norm (`tf.clip_by_norm`).
    pub clipnorm: Option<f64>,
    /// Clip each gradient element to `[-clipvalue, clipvalue]`.
    pub clipvalue: Option<f64>,
    /// Scale all gradients together so that their joint L2 norm is at most this.
    pub global_clipnorm: Option<f64>,
}

impl Options {
    /// ValueError when more than one clipping is set, or an option is NaN or infinite.
    pub fn validate(&self) -> Result<()> {
        for (name, value) in [
            ("weight_decay", self.weight_decay),
            ("clipnorm", self.clipnorm),
            ("clipvalue", self.clipvalue),
            ("global_clipnorm", self.global_clipnorm),
        ] {
            if let Some(value) = value {
                rules::finite("Optimizer", name, value)?;
            }
        }
        let set = [self.clipnorm, self.clipvalue, self.global_clipnorm]
            .iter()
            .filter(|c| c.is_some())
            .count();
        if set > 1 {
            return Err(Error::value(
                "Optimizer",
                format!(
                    "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. \
                     Received: clipnorm={:?}, clipvalue={:?}, global_clipnorm={:?}",
                    self.clipnorm, self.clipvalue, self.global_clipnorm
                ),
            ));
        }
        Ok(())
    }
}

/// Where the learning rate comes from.
#[derive(Clone, Debug)]
pub enum LearningRate {
    /// A scalar variable (float32 when made from a number): assign it to change the rate.
    Variable(Variable),
    /// A function of the step (`iterations` before the update).
    Schedule(Arc<dyn Schedule>),
}

impl From<f64> for LearningRate {
    fn from(rate: f64) -> LearningRate {
        LearningRate::Variable(Variable::new(
            Tensor::scalar(rate as f32),
            false,
            Some("learning_rate"),
        ))
    }
}

impl From<f32> for LearningRate {
    fn from(rate: f32) -> LearningRate {
        LearningRate::from(rate as f64)
    }
}

impl From<Variable> for LearningRate {
    fn from(rate: Variable) -> LearningRate {
        LearningRate::Variable(rate)
    }
}

impl From<Arc<dyn Schedule>> for LearningRate {
    fn from(schedule: Arc<dyn Schedule>) -> LearningRate {
        LearningRate::Schedule(schedule)
    }
}

macro_rules! from_schedule {
    ($($t:ident),*) => {$(
        impl From<$t> for LearningRate {
            fn from(schedule: $t) -> LearningRate {
                LearningRate::Schedule(Arc::new(schedule))
            }
        }
    )*};
}
from_schedule!(
    ExponentialDecay,
    PiecewiseConstantDecay,
    InverseTimeDecay,
    PolynomialDecay,
    CosineDecay
);

/// ValueError for a learning-rate variable holding one value that is NaN or infinite as float32
/// (Keras takes it and trains every weight to NaN).
fn check_learning_rate(learning_rate: &LearningRate) -> Result<()> {
    if let LearningRate::Variable(v) = learning_rate {
        let value = v.peek();
        if value.dtype().is_float() && value.size() == 1 {
            rules::finite("Optimizer", "learning_rate", value.item()?)?;
        }
    }
    Ok(())
}

/// An optimizer: an algorithm, its options, learning rate, step count and slots.
#[derive(Debug)]
pub struct Optimizer {
    algorithm: Algorithm,
    options: Options,
    learning_rate: LearningRate,
    iterations: Variable,
    built: bool,
    /// Position of each variable the optimizer was built with, by id.
    index: FxHashMap<TensorId, usize>,
    tracked: Vec<Variable>,
    /// `slots[i][k]`: slot `k` (flattened [`Algorithm::slot_groups`]) of variable `i`.
    slots: Vec<Vec<Variable>>,
    /// Nadam's running product of momentum factors.
    u_product: Option<Variable>,
    no_decay: FxHashSet<TensorId>,
    no_decay_names: Vec<String>,
    /// Matrices Muon steps with AdamW (besides every variable that is not a matrix).
    adamw_matrices: FxHashSet<TensorId>,
}

impl Optimizer {
    /// An optimizer with Keras's default options (AdamW's weight decay included). ValueError
    /// for hyperparameters Keras refuses.
    pub fn new(
        algorithm: impl Into<Algorithm>,
        learning_rate: impl Into<LearningRate>,
    ) -> Result<Optimizer> {
        let algorithm = algorithm.into();
        algorithm.validate()?;
        let learning_rate = learning_rate.into();
        check_learning_rate(&learning_rate)?;
        let options = Options {
            weight_decay: match &algorithm {
                Algorithm::AdamW(a) => Some(a.weight_decay),
                Algorithm::Muon(_) => Some(MUON_WEIGHT_DECAY),
                _ => None,
            },
            ..Options::default()
        };
        Ok(Optimizer {
            iterations: Variable::new(Tensor::scalar(0i64), false, Some("iteration")),
            algorithm,
            options,
            learning_rate,
            built: false,
            index: FxHashMap::default(),
            tracked: Vec::new(),
            slots: Vec::new(),
            u_product: None,
            no_decay: FxHashSet::default(),
            no_decay_names: Vec::new(),
            adamw_matrices: FxHashSet::default(),
        })
    }

    /// The same optimizer with `options` (ValueError if more than one clipping is set).
    pub fn with_options(mut self, options: Options) -> Result<Optimizer> {
        options.validate()?;
        self.options = options;
        Ok(self)
    }

    /// The algorithm and its hyperparameters.
    pub fn algorithm(&self) -> &Algorithm {
        &self.algorithm
    }

    /// The shared options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Where the learning rate comes from.
    pub fn learning_rate_source(&self) -> &LearningRate {
        &self.learning_rate
    }

    /// Replaces where the learning rate comes from (ValueError for a NaN or infinite rate).
    pub fn set_learning_rate(&mut self, learning_rate: impl Into<LearningRate>) -> Result<()> {
        let learning_rate = learning_rate.into();
        check_learning_rate(&learning_rate)?;
        self.learning_rate = learning_rate;
        Ok(())
    }

    /// The learning rate the next update uses.
    pub fn learning_rate(&self) -> Result<f64> {
        match &self.learning_rate {
            LearningRate::Variable(v) => {
                let value = v.peek();
                if !value.dtype().is_float() || value.size() != 1 {
                    return Err(Error::value(
                        "Optimizer.learning_rate",
                        format!(
                            "the learning-rate variable must hold one floating value, got a {} \
                             value of shape {}",
                            value.dtype(),
                            fmt_shape(value.shape())
                        ),
                    ));
                }
                value.item()
            }
            LearningRate::Schedule(s) => Ok(s.rate(self.iterations()) as f64),
        }
    }

    /// How many updates were applied.
    pub fn iterations(&self) -> i64 {
        self.iterations.peek().item().map_or(0, |v| v as i64)
    }

    /// The int64 variable counting the updates (assign it to restore a count).
    pub fn iterations_variable(&self) -> &Variable {
        &self.iterations
    }

    /// Whether the slots exist (after [`Optimizer::build`] or the first update).
    pub fn built(&self) -> bool {
        self.built
    }

    /// Creates the slots of `vars` (done by the first `apply_gradients`). Once only: later calls
    /// do nothing, as in Keras.
    pub fn build(&mut self, vars: &[Variable]) -> Result<()> {
        if self.built {
            return Ok(());
        }
        let kinds: Vec<&str> = self.algorithm.slot_groups().concat();
        let prefix = self.algorithm.name();
        let mut slots = Vec::with_capacity(vars.len());
        for (i, v) in vars.iter().enumerate() {
            let value = v.peek();
            if !value.dtype().is_float() {
                return Err(Error::dtype(
                    "Optimizer.build",
                    format!(
                        "variable '{}' has dtype {}; optimizers update floating variables only",
                        v.name(),
                        value.dtype()
                    ),
                ));
            }
            self.index.entry(v.id()).or_insert(i);
            let base = v.name().trim_end_matches(":0").replace(['/', ':'], "_");
            // Muon keeps a velocity only for the variables it steps with AdamW.
            let own = match self.algorithm {
                Algorithm::Muon(_) if !self.takes_adamw(v, value.shape()) => &kinds[..1],
                _ => &kinds[..],
            };
            slots.push(
                own.iter()
                    .map(|k| self.make_slot(k, &value, &base))
                    .collect(),
            );
        }
        if matches!(self.algorithm, Algorithm::Nadam(_)) {
            let dtype = vars.first().map_or(DType::F32, Variable::dtype);
            self.u_product = Some(Variable::new(
                Tensor::full(&[], dtype, 1.0),
                false,
                Some(&format!("{prefix}/u_product")),
            ));
        }
        self.tracked = vars.to_vec();
        self.slots = slots;
        self.built = true;
        Ok(())
    }

    /// Slot `kind` of a variable holding `value` named `base`, as Keras makes it.
    fn make_slot(&self, kind: &str, value: &Tensor, base: &str) -> Variable {
        let prefix = self.algorithm.name();
        // Keras's `initializers.Constant` goes through `ops.cast`: float32 first.
        let init = self.algorithm.slot_initial_value(kind) as f32 as f64;
        if matches!(self.algorithm, Algorithm::Adafactor(_)) && matches!(kind, "r" | "c") {
            // Keras names `r` and `c` after the variable; below rank 2 they are int32 scalar
            // placeholders outside the optimizer's name scope.
            let (shape, dtype) = layerwise::adafactor_slot(kind, value.shape(), value.dtype());
            let name = if value.ndim() < 2 {
                base.to_string()
            } else {
                format!("{prefix}/{base}")
            };
            return Variable::new(Tensor::full(&shape, dtype, init), false, Some(&name));
        }
        Variable::new(
            Tensor::full(value.shape(), value.dtype(), init),
            false,
            Some(&format!("{prefix}/{base}_{kind}")),
        )
    }

    /// Every variable the optimizer owns, in Keras's order: `iterations`, the learning rate (when
    /// it is a variable), the slots (group by group, alternating per variable within a group),
    /// then Nadam's product.
    pub fn variables(&self) -> Vec<Variable> {
        let mut out = vec![self.iterations.clone()];
        if let LearningRate::Variable(v) = &self.learning_rate {
            out.push(v.clone());
        }
        let mut first = 0;
        for group in self.algorithm.slot_groups() {
            for per_var in &self.slots {
                let end = (first + group.len()).min(per_var.len());
                out.extend(per_var[first.min(end)..end].iter().cloned());
            }
            first += group.len();
        }
        out.extend(self.u_product.iter().cloned());
        out
    }

    /// The variables the optimizer was built with.
    pub fn tracked_variables(&self) -> &[Variable] {
        &self.tracked
    }

    /// Slot `name` (`"momentum"`, `"velocity"`, ...) of `var`, once built.
    pub fn slot(&self, var: &Variable, name: &str) -> Option<Variable> {
        let k = self
            .algorithm
            .slot_groups()
            .concat()
            .iter()
            .position(|s| *s == name)?;
        let i = *self.index.get(&var.id())?;
        self.slots.get(i)?.get(k).cloned()
    }

    /// Leaves `vars`, and variables whose name contains one of `names`, out of weight decay.
    /// ValueError once the optimizer is built, as in Keras.
    pub fn exclude_from_weight_decay(&mut self, vars: &[Variable], names: &[String]) -> Result<()> {
        if self.built {
            return Err(Error::value(
                "Optimizer.exclude_from_weight_decay",
                "`exclude_from_weight_decay()` can only be configured before the optimizer is \
                 built.",
            ));
        }
        self.no_decay = vars.iter().map(Variable::id).collect();
        self.no_decay_names = names.to_vec();
        Ok(())
    }

    /// Has Muon step the matrices `vars` with AdamW (Keras's `exclude_layers` and
    /// `exclude_embeddings` name them). ValueError once the optimizer is built.
    pub fn use_adamw_for(&mut self, vars: &[Variable]) -> Result<()> {
        if self.built {
            return Err(Error::value(
                "Muon.use_adamw_for",
                "the variables that take the AdamW step can only be chosen before the \
                 optimizer is built",
            ));
        }
        self.adamw_matrices = vars.iter().map(Variable::id).collect();
        Ok(())
    }

    /// Whether Muon steps `var` (of `shape`) with AdamW.
    fn takes_adamw(&self, var: &Variable, shape: &[usize]) -> bool {
        Muon::adamw_by_shape(shape) || self.adamw_matrices.contains(&var.id())
    }

    fn decays(&self, var: &Variable) -> bool {
        !self.no_decay.contains(&var.id())
            && !self
                .no_decay_names
                .iter()
                .any(|n| var.name().contains(n.as_str()))
    }

    /// Applies one update: `grads[i]` to `vars[i]`. A `None` gradient leaves its variable (and
    /// its slots) alone, as Keras does; all `None` is a ValueError. The first call builds the
    /// slots; later calls accept only variables it was built with. `iterations` counts the call.
    pub fn apply_gradients(&mut self, grads: &[Option<Tensor>], vars: &[Variable]) -> Result<()> {
        let rate = self.learning_rate()?;
        self.apply(grads, vars, rate)
    }

    /// [`Optimizer::apply_gradients`] with the learning rate given for this step (a rate the
    /// optimizer cannot compute itself, such as a Python callable's).
    pub fn apply_gradients_with_rate(
        &mut self,
        grads: &[Option<Tensor>],
        vars: &[Variable],
        learning_rate: f64,
    ) -> Result<()> {
        // A rate computed by the caller (a schedule of its own): NaN or infinity would turn
        // every weight into NaN.
        rules::finite("Optimizer.apply", "learning_rate", learning_rate)?;
        // Keras's learning rate is a float32 value.
        self.apply(grads, vars, learning_rate as f32 as f64)
    }

    /// Records `loss()` on a fresh tape watching `vars`, then applies its gradients. Returns the
    /// loss.
    pub fn minimize(
        &mut self,
        loss: impl FnOnce() -> Result<Tensor>,
        vars: &[Variable],
    ) -> Result<Tensor> {
        let tape = Tape::new(false, false);
        let value = {
            let _recording = tape.enter()?;
            for v in vars {
                tape.watch_variable(v);
            }
            loss()?
        };
        let sources: Vec<Source> = vars.iter().map(Source::from).collect();
        let grads = tape.gradient(
            std::slice::from_ref(&value),
            &sources,
            None,
            Unconnected::None,
        )?;
        self.apply_gradients(&grads, vars)?;
        Ok(value)
    }

    fn apply(&mut self, grads: &[Option<Tensor>], vars: &[Variable], rate: f64) -> Result<()> {
        let op = "Optimizer.apply_gradients";
        if grads.len() != vars.len() {
            return Err(Error::value(
                op,
                format!("got {} gradients for {} variables", grads.len(), vars.len()),
            ));
        }
        if grads.is_empty() {
            return Ok(());
        }
        self.options.validate()?;
        if !self.built {
            self.build(vars)?;
        }
        let mut pairs: Vec<(Tensor, usize)> = Vec::with_capacity(vars.len());
        for (g, v) in grads.iter().zip(vars) {
            let Some(&i) = self.index.get(&v.id()) else {
                return Err(Error::value(
                    op,
                    format!(
                        "Unknown variable: '{}'. This optimizer can only be called for the \
                         variables it was originally built with. When working with a new set of \
                         variables, you should recreate a new optimizer instance.",
                        v.name()
                    ),
                ));
            };
            if let Some(g) = g {
                pairs.push((checked_gradient(op, g, v)?, i));
            }
        }
        if pairs.is_empty() {
            return Err(Error::value(op, "No gradients provided for any variable."));
        }
        let step = self.iterations();
        // The count after this update, checked before any variable changes: an `iterations`
        // assigned int64's maximum is a ValueError, not a wrapped (or panicking) count.
        let next_step = step.checked_add(1).ok_or_else(|| {
            Error::value(
                op,
                format!("`iterations` is {step}: one more update would overflow int64"),
            )
        })?;
        let preps = self.clipping(&pairs);
        let u_product = match &self.u_product {
            Some(u) => {
                let next = next_u_product(&self.algorithm, &u.peek(), step)?;
                u.assign(&next)?;
                next.item()?
            }
            None => 1.0,
        };
        for ((g, i), prep) in pairs.iter().zip(preps) {
            let var = &self.tracked[*i];
            match var.dtype() {
                DType::F32 => self.update_one::<f32>(g, *i, prep, rate, step, u_product)?,
                _ => self.update_one::<f64>(g, *i, prep, rate, step, u_product)?,
            }
        }
        self.iterations.assign(&Tensor::scalar(next_step))
    }

    /// Each gradient's clipping (`Prep` with float64 fields holding the exact values of the
    /// gradient's dtype, or Keras's Python numbers).
    fn clipping(&self, pairs: &[(Tensor, usize)]) -> Vec<Prep<f64>> {
        let positive = |c: Option<f64>| c.filter(|&c| c > 0.0);
        if let Some(clip) = positive(self.options.clipnorm) {
            return pairs
                .iter()
                .map(|(g, _)| match g.data() {
                    Data::F32(v) => norm_prep(update::sum_of_squares(v.as_slice()), clip),
                    Data::F64(v) => norm_prep(update::sum_of_squares(v.as_slice()), clip),
                    _ => Prep::Plain,
                })
                .collect();
        }
        if let Some(clip) = positive(self.options.global_clipnorm) {
            let scale = if pairs.iter().all(|(g, _)| g.dtype() == DType::F32) {
                global_scale::<f32>(pairs, clip)
            } else {
                global_scale::<f64>(pairs, clip)
            };
            return vec![Prep::Scale(scale); pairs.len()];
        }
        if let Some(v) = positive(self.options.clipvalue) {
            return vec![Prep::Clip { lo: -v, hi: v }; pairs.len()];
        }
        vec![Prep::Plain; pairs.len()]
    }

    fn update_one<T: Float + Element>(
        &self,
        grad: &Tensor,
        i: usize,
        prep: Prep<f64>,
        rate: f64,
        step: i64,
        u_product: f64,
    ) -> Result<()> {
        let var = &self.tracked[i];
        // Muon steps the variables with a velocity slot with AdamW, the others itself.
        let adamw = matches!(self.algorithm, Algorithm::Muon(_)) && self.slots[i].len() == 2;
        let rule = match &self.algorithm {
            Algorithm::Muon(muon) => muon.adamw_rule::<T>(rate, step),
            other => other.prepare::<T>(rate, step, u_product),
        };
        let cast = rules::py::<T>;
        let prep = match prep {
            Prep::Plain => Prep::Plain,
            Prep::Clip { lo, hi } => Prep::Clip {
                lo: cast(lo),
                hi: cast(hi),
            },
            Prep::Norm { clip, denom } => Prep::Norm {
                clip: cast(clip),
                denom: cast(denom),
            },
            Prep::Scale(s) => Prep::Scale(cast(s)),
        };
        let weight_decay = match &self.algorithm {
            Algorithm::Muon(muon) if adamw => muon.adam_weight_decay,
            _ => self.options.weight_decay,
        };
        let decay = weight_decay
            .filter(|_| self.decays(var))
            .map(|wd| (rules::cast::<T>(wd), cast(rate)));
        let g = grad
            .values::<T>()
            .ok_or_else(|| Error::dtype("Optimizer.apply_gradients", "gradient dtype changed"))?
            .as_slice();
        if let Algorithm::Muon(muon) = &self.algorithm {
            if !adamw {
                return muon::update(muon, var, &self.slots[i], g, &prep, decay, rate);
            }
        }
        let layerwise = match &self.algorithm {
            Algorithm::Lamb(l) => Some(layerwise::Layerwise::lamb(l, rate, step)),
            Algorithm::Adafactor(a) => Some(layerwise::Layerwise::adafactor(a, rate, step)),
            _ => None,
        };
        if let Some(rule) = layerwise {
            return layerwise::update(&rule, var, &self.slots[i], g, &prep, decay);
        }
        let mut guards = Vec::with_capacity(1 + self.slots[i].len());
        guards.push(var.write_value());
        guards.extend(self.slots[i].iter().map(Variable::write_value));
        update::with_elements::<T, _>(&mut guards, |slices| {
            if let Some((w, slots)) = slices.split_first_mut() {
                update::update(&rule, &prep, decay, w, g, slots);
            }
        })
        .ok_or_else(|| {
            Error::dtype(
                "Optimizer.apply_gradients",
                format!(
                    "variable '{}' or one of its slots changed dtype (now {})",
                    var.name(),
                    var.dtype()
                ),
            )
        })
    }
}

/// The gradient for `var`: same shape, floating, cast to the variable's dtype as Keras does.
fn checked_gradient(op: &str, g: &Tensor, var: &Variable) -> Result<Tensor> {
    let value = var.peek();
    if !value.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!(
                "variable '{}' has dtype {}; optimizers update floating variables only",
                var.name(),
                value.dtype()
            ),
        ));
    }
    if g.shape() != value.shape() {
        return Err(Error::shape(
            op,
            format!(
                "the gradient for variable '{}' has shape {}, the variable {}",
                var.name(),
                fmt_shape(g.shape()),
                fmt_shape(value.shape())
            ),
        ));
    }
    if !g.dtype().is_float() {
        return Err(Error::dtype(
            op,
            format!(
                "the gradient for variable '{}' has dtype {}; gradients must be floating",
                var.name(),
                g.dtype()
            ),
        ));
    }
    if g.dtype() == value.dtype() {
        Ok(g.clone())
    } else {
        without_recording(|| ops::cast(g, value.dtype()))
    }
}

/// `tf.clip_by_norm`'s factors for a gradient whose squares sum to `sum`.
fn norm_prep<T: Float>(sum: T, clip: f64) -> Prep<f64> {
    let norm = if sum > T::zero() { sum.sqrt() } else { sum };
    let clip_t = rules::py::<T>(clip);
    let denom = if norm < clip_t { clip_t } else { norm };
    Prep::Norm {
        clip,
        denom: denom.to_f64().unwrap_or(f64::NAN),
    }
}

/// Keras's `clip_by_global_norm` factor, in dtype `T`:
/// `clip * min(1 / norm, 1 / clip) + (norm - norm)` (NaN for an infinite or NaN norm).
fn global_scale<T: Float + Element>(pairs: &[(Tensor, usize)], clip: f64) -> f64 {
    let mut total = T::zero();
    for (g, _) in pairs {
        let sum = match g.data() {
            Data::F32(v) => rules::py::<T>(update::sum_of_squares(v.as_slice()) as f64),
            Data::F64(v) => rules::py::<T>(update::sum_of_squares(v.as_slice())),
            _ => T::nan(),
        };
        total = total + sum;
    }
    let norm = total.sqrt();
    let py = rules::py::<T>;
    let inv = T::one() / norm;
    let inv_clip = py(1.0 / clip);
    let smaller = if inv_clip < inv { inv_clip } else { inv };
    // Keras adds `norm - norm`: 0 for a finite norm, NaN for an infinite or NaN one.
    let nan_unless_finite = if norm.is_finite() {
        T::zero()
    } else {
        T::nan()
    };
    let scale = py(clip) * smaller + nan_unless_finite;
    Element::to_f64(scale)
}

/// Nadam's product after step `step`, in the product's own dtype.
fn next_u_product(algorithm: &Algorithm, current: &Tensor, step: i64) -> Result<Tensor> {
    Ok(match current.data() {
        Data::F32(v) => Tensor::scalar(algorithm.next_u_product(v.as_slice()[0], step)),
        Data::F64(v) => Tensor::scalar(algorithm.next_u_product(v.as_slice()[0], step)),
        _ => {
            return Err(Error::dtype(
                "Nadam",
                format!("u_product has dtype {}", current.dtype()),
            ))
        }
    })
}
